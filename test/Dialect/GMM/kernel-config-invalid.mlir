// RUN: gmm-opt %s -split-input-file -allow-unregistered-dialect -verify-diagnostics

// Parse and verification errors of #gmm.kernel_config: what the attribute
// checks on its own, and what the dialect's verifier checks of a complete
// one as an op's gmm.kernel_config (the bounds; on a ragged dot, a CPU
// micro-kernel's rules for its element type). gmm-configure's checks of
// what it chooses are in test/Dialect/GMM/Transforms/configure-invalid*.mlir.

// expected-error @+1 {{unknown key 'tiles' in #gmm.kernel_config; expected one of target, tile, warps, stages, register_block, micro_kernel}}
#c = #gmm.kernel_config<tiles = [1, 2, 3]>

// -----

// expected-error @+1 {{duplicate key 'tile' in #gmm.kernel_config}}
#c = #gmm.kernel_config<tile = [1, 2, 3], tile = [1, 2, 3]>

// -----

// expected-error @+1 {{unknown target 'tpu' in #gmm.kernel_config; expected cpu or gpu}}
#c = #gmm.kernel_config<target = tpu>

// -----

// expected-error @+1 {{expected one of the keys target, tile, warps, stages, register_block, micro_kernel, mma, raster in #gmm.kernel_config}}
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

// expected-error @+1 {{#gmm.kernel_config: warps, stages, mma and raster are GPU fields, not for target = cpu}}
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

// expected-error @+1 {{#gmm.kernel_config: warps, stages, mma and raster are GPU fields, not for target = cpu}}
#c = #gmm.kernel_config<target = cpu, mma = wgmma>

// -----

// expected-error @+1 {{unknown mma 'hmma' in #gmm.kernel_config; expected mma_sync or wgmma}}
#c = #gmm.kernel_config<mma = hmma>

// -----

// expected-error @+1 {{#gmm.kernel_config expects a positive raster band, got -8}}
#c = #gmm.kernel_config<raster = -8>

// -----

// expected-error @+1 {{#gmm.kernel_config: warps, stages, mma and raster are GPU fields, not for target = cpu}}
#c = #gmm.kernel_config<target = cpu, raster = 8>

// -----

// expected-error @+1 {{expected valid keyword}}
#c = #gmm.kernel_config<micro_kernel = 3>

// -----

// A complete configuration on any op is within the target's bounds.
func.func @bounds_on_any_op() {
  // expected-error @+1 {{'test.op' op kernel configuration #gmm.kernel_config<target = gpu, tile = [4096, 4096, 16], warps = [2, 2], stages = 2>: tile 4096x4096x16 is too large for a CUDA block}}
  "test.op"() {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [4096, 4096, 16], warps = [2, 2], stages = 2>} : () -> ()
  return
}

// -----

func.func @warps_on_any_op() {
  // expected-error @+1 {{'test.op' op kernel configuration #gmm.kernel_config<target = gpu, tile = [64, 64, 16], warps = [8, 8], stages = 2>: 8 x 8 warps are more than a block's 32 (1024 threads)}}
  "test.op"() {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [64, 64, 16], warps = [8, 8], stages = 2>} : () -> ()
  return
}

// -----

// The attribute's name is the configuration's.
func.func @not_a_config_on_any_op() {
  // expected-error @+1 {{'test.op' op expects 'gmm.kernel_config' to be a #gmm.kernel_config, got 3 : i64}}
  "test.op"() {gmm.kernel_config = 3} : () -> ()
  return
}

// -----

// A partial configuration is a request (gmm-configure completes it): only
// what the attribute checks on its own applies.
// (-verify-diagnostics fails on any error that no line expects.)
func.func @request_on_any_op() {
  "test.op"() {gmm.kernel_config = #gmm.kernel_config<tile = [1000000, 8, 8]>} : () -> ()
  return
}

// -----

// On a ragged dot, a CPU configuration's micro-kernel fits the op's inputs.
func.func @bf16_dot_on_f32(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x32xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x32xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [64, 64, 32], register_block = [2, 32], micro_kernel = bf16_dot>: the bf16_dot micro-kernel takes bf16 inputs, not 'f32'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [64, 64, 32], register_block = [2, 32], micro_kernel = bf16_dot>} : tensor<1x1x20x10xf32>, tensor<1x3x10x32xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x32xf32>
  return %0 : tensor<1x1x20x32xf32>
}

// -----

// The ragged dot's own verifier still runs after its configuration's: a
// malformed op with a configuration gets the op's message, no crash.
func.func @config_on_malformed_op(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x32xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x32xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [64, 64, 32], register_block = [2, 32], micro_kernel = fma>} : tensor<1x1x20x10xf32>, tensor<1x3x10x32xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x32xf32>
  return %0 : tensor<1x1x20x32xf32>
}
