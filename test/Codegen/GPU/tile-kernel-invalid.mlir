// What gmm-gpu-map-blocks and the tile kernel's passes refuse in the tile
// program they are given (gmm-gpu-promote-operands its contraction,
// gmm-gpu-stage-epilogue its block write), each an error at the op (a launch
// has its forall's location). Inputs handcrafted after the generated tile
// programs of tile-kernel.mlir before gmm-gpu-map-blocks (one tile forall,
// its k loop, one block write): the tile kernel's own input is this forall
// body in a launch. What the later two passes refuse in IR that is not
// what the pass before them makes is in stage-epilogue-invalid.mlir and
// distribute-warps-invalid.mlir; errors reached from ragged dots through
// gmm-map-to-gpu are in invalid.mlir.

// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-map-blocks --gmm-gpu-promote-operands --gmm-gpu-stage-epilogue --gmm-gpu-distribute-warps

// A CPU configuration is not mapped onto the GPU.
func.func @cpu_config(%out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'scf.forall' op gmm-gpu-map-blocks expects a GPU kernel configuration, not #gmm.kernel_config<target = cpu, tile = [32, 32, 16], register_block = [4, 16]>}}
  scf.forall (%i) in (2) {
    vector.transfer_write %zero, %out[%c0, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [32, 32, 16], register_block = [4, 16]>}
  return
}

// -----

// A tile loop without a block contraction.
func.func @no_contraction(%out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-promote-operands expects one vector.contract per tile loop (the block contraction of gmm-tile), found 0}}
  scf.forall (%i) in (2) {
    vector.transfer_write %zero, %out[%c0, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// Two contractions in one tile loop (say, two ragged dots fused by hand).
func.func @two_contractions(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-promote-operands expects one vector.contract per tile loop (the block contraction of gmm-tile), found 2}}
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      %s = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %r : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %s : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The rhs read as [n, k] (an (m, k) x (n, k) contraction).
func.func @transposed_rhs(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%c0, %k], %pad : memref<32x32xbf16>, vector<32x16xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<32x16xbf16> to vector<32x16xf32>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-promote-operands expects an (m, k) x (k, n) -> (m, n) addition}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<32x16xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// A contraction that combines with max, not add.
func.func @max_contraction(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-promote-operands expects an (m, k) x (k, n) -> (m, n) addition}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<maxnumf>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// An lhs that is not read from a buffer (a constant).
func.func @constant_operand(%rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  %ones = arith.constant dense<1.0> : vector<32x16xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-promote-operands expects the contraction's operands to be (masked, extended) transfer_reads of buffers}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %ones, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// A transfer_read with its own mask: the copies zero-fill only through a
// select of a create_mask.
func.func @masked_read(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>, %rows: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %mask = vector.create_mask %rows, %c16 : vector<32x16xi1>
      %x = vector.transfer_read %lhs[%row, %k], %pad, %mask : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-promote-operands expects the contraction's operands to be (masked, extended) transfer_reads of buffers}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// A select that does not zero what the mask leaves out.
func.func @select_not_zero(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>, %rows: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  %ones = arith.constant dense<1.0> : vector<32x16xbf16>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %mask = vector.create_mask %rows, %c16 : vector<32x16xi1>
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %xm = arith.select %mask, %x, %ones : vector<32x16xi1>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %xm : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-promote-operands expects the contraction's operands to be (masked, extended) transfer_reads of buffers}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// bf16 activations with f16 weights: the kernel stages one element type.
func.func @mixed_types(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %padh = arith.constant 0.0 : f16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %padh : memref<32x32xf16>, vector<16x32xf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xf16> to vector<16x32xf32>
      // expected-error @+1 {{'vector.contract' op mixed operand element types are not supported on the GPU}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The configuration is checked again: five stages are more than the kernel
// has.
func.func @five_stages(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'gpu.launch' op kernel configuration #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 5>: the GPU kernel stages 2 to 4 k steps at a time, not 5}}
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 5>}
  return
}

// -----

// A configuration without warps and stages (gmm-configure fills them in).
func.func @incomplete_config(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'scf.forall' op kernel configuration #gmm.kernel_config<target = gpu, tile = [32, 32, 16]> is incomplete (run gmm-configure)}}
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16]>}
  return
}

// -----

// The configuration says k steps of 32, the contraction takes 16.
func.func @tile_mismatch(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      // expected-error @+1 {{'vector.contract' op block contraction of 32x32x16 does not match the tile loop's configuration #gmm.kernel_config<target = gpu, tile = [32, 32, 32], warps = [1, 2], stages = 2>}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 32], warps = [1, 2], stages = 2>}
  return
}

// -----

// The k loop carries a second value besides the accumulator.
func.func @two_iter_args(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc:2 = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero, %n = %c0) -> (vector<32x32xf32>, index) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-promote-operands expects the accumulator to be carried by the contraction loop}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      %n1 = arith.addi %n, %c1 : index
      scf.yield %r, %n1 : vector<32x32xf32>, index
    }
    vector.transfer_write %acc#0, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The loop carries something computed from the contraction, not the
// contraction itself.
func.func @acc_not_yielded(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-promote-operands expects the accumulator to be carried by the contraction loop}}
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      %s = arith.negf %r : vector<32x32xf32>
      scf.yield %s : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The block written twice.
func.func @two_writes(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>, %copy: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-stage-epilogue expects one 2-D block write per tile loop}}
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
    vector.transfer_write %acc, %copy[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The block written transposed.
func.func @transposed_write(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-stage-epilogue expects one 2-D block write per tile loop}}
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%c0, %row] {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// Tile visits numbered from 1: the block ids start at 0.
func.func @not_normalized(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'scf.forall' op gmm-gpu-map-blocks expects a normalized, bufferized scf.forall}}
  scf.forall (%i) = (1) to (3) step (1) {
    %row = arith.muli %i, %c16 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// A tile loop still on tensors (shared_outs): not bufferized.
func.func @shared_outs(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  // expected-error @+1 {{'scf.forall' op gmm-gpu-map-blocks expects a normalized, bufferized scf.forall}}
  %res = scf.forall (%i) in (2) shared_outs(%o = %t) -> (tensor<4xf32>) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return %res : tensor<4xf32>
}

// -----

// A k loop whose step is not a constant: the stages hold fixed steps.
func.func @dynamic_step(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>, %step: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    // expected-error @+1 {{'scf.for' op gmm-gpu-promote-operands expects a contraction loop with a constant step}}
    %acc = scf.for %k = %c0 to %c32 step %step iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    vector.transfer_write %acc, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// An epilogue that adds a block of another buffer: the epilogue replays
// only elementwise ops and reads of the block it writes.
func.func @foreign_epilogue(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>, %bias: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %padf = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    %b = vector.transfer_read %bias[%row, %c0], %padf : memref<64x32xf32>, vector<32x32xf32>
    %sum = arith.addf %acc, %b : vector<32x32xf32>
    // expected-error @+1 {{'vector.transfer_write' op gmm-gpu-stage-epilogue cannot replay the block epilogue (expected elementwise ops and reads of the written block)}}
    vector.transfer_write %sum, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// An epilogue that transposes the block: not elementwise.
func.func @transposing_epilogue(%lhs: memref<64x32xbf16>, %rhs: memref<32x32xbf16>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<32x32xf32>
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c32 : index
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%a = %zero) -> (vector<32x32xf32>) {
      %x = vector.transfer_read %lhs[%row, %k], %pad : memref<64x32xbf16>, vector<32x16xbf16>
      %y = vector.transfer_read %rhs[%k, %c0], %pad : memref<32x32xbf16>, vector<16x32xbf16>
      %xf = arith.extf %x : vector<32x16xbf16> to vector<32x16xf32>
      %yf = arith.extf %y : vector<16x32xbf16> to vector<16x32xf32>
      %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %xf, %yf, %a : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      scf.yield %r : vector<32x32xf32>
    }
    %t = vector.transpose %acc, [1, 0] : vector<32x32xf32> to vector<32x32xf32>
    // expected-error @+1 {{'vector.transfer_write' op gmm-gpu-stage-epilogue cannot replay the block epilogue (expected elementwise ops and reads of the written block)}}
    vector.transfer_write %t, %out[%row, %c0] : vector<32x32xf32>, memref<64x32xf32>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}
