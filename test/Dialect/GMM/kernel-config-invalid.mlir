// RUN: gmm-opt %s -split-input-file -verify-diagnostics

// Parse and verification errors of #gmm.kernel_config: what the attribute
// checks on its own (whether it fits an op and a target is gmm-configure's
// check, in test/Dialect/GMM/Transforms/configure-invalid.mlir).

// expected-error @+1 {{unknown key 'tiles' in #gmm.kernel_config; expected one of target, tile, warps, stages, register_block, micro_kernel}}
#c = #gmm.kernel_config<tiles = [1, 2, 3]>

// -----

// expected-error @+1 {{duplicate key 'tile' in #gmm.kernel_config}}
#c = #gmm.kernel_config<tile = [1, 2, 3], tile = [1, 2, 3]>

// -----

// expected-error @+1 {{unknown target 'tpu' in #gmm.kernel_config; expected cpu or gpu}}
#c = #gmm.kernel_config<target = tpu>

// -----

// expected-error @+1 {{expected one of the keys target, tile, warps, stages, register_block, micro_kernel, mma in #gmm.kernel_config}}
#c = #gmm.kernel_config<[1, 2, 3]>

// -----

// expected-error @+1 {{#gmm.kernel_config expects tile = [m, n, k] of positive sizes}}
#c = #gmm.kernel_config<tile = [128, 128]>

// -----

// expected-error @+1 {{#gmm.kernel_config expects tile = [m, n, k] of positive sizes}}
#c = #gmm.kernel_config<tile = [128, 0, 32]>

// -----

// expected-error @+1 {{#gmm.kernel_config expects warps = [rows, columns] of positive counts}}
#c = #gmm.kernel_config<warps = [2, -4]>

// -----

// expected-error @+1 {{#gmm.kernel_config expects a positive number of stages, got -1}}
#c = #gmm.kernel_config<stages = -1>

// -----

// expected-error @+1 {{#gmm.kernel_config expects register_block = [rows, lanes] of positive sizes}}
#c = #gmm.kernel_config<register_block = [6]>

// -----

// expected-error @+1 {{#gmm.kernel_config: warps, stages and mma are GPU fields, not for target = cpu}}
#c = #gmm.kernel_config<target = cpu, warps = [2, 4]>

// -----

// expected-error @+1 {{#gmm.kernel_config: register_block and micro_kernel are CPU fields, not for target = gpu}}
#c = #gmm.kernel_config<target = gpu, register_block = [6, 16]>

// -----

// expected-error @+1 {{#gmm.kernel_config: register_block and micro_kernel are CPU fields, not for target = gpu}}
#c = #gmm.kernel_config<target = gpu, micro_kernel = fma>

// -----

// expected-error @+1 {{unknown micro_kernel 'amx' in #gmm.kernel_config; expected fma or bf16_dot}}
#c = #gmm.kernel_config<micro_kernel = amx>

// -----

// expected-error @+1 {{#gmm.kernel_config: warps, stages and mma are GPU fields, not for target = cpu}}
#c = #gmm.kernel_config<target = cpu, mma = wgmma>

// -----

// expected-error @+1 {{unknown mma 'hmma' in #gmm.kernel_config; expected mma_sync or wgmma}}
#c = #gmm.kernel_config<mma = hmma>

// -----

// expected-error @+1 {{expected valid keyword}}
#c = #gmm.kernel_config<micro_kernel = 3>
