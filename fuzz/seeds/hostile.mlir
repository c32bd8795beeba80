// Seeds for gmm-fuzz in the shapes of the hostile inputs of issue #15 (each
// chunk one seed; make-seed-corpus.py keeps the `// pipeline:` lines, which
// choose a pipeline and its options for the chunk). They are not a test:
// the fuzzer mutates them.

// Generic form with operand segments that do not match the operands.
func.func @segments(%lhs: tensor<4x8xf32>, %rhs: tensor<2x8x3xf32>, %gs: tensor<2xi32>) -> tensor<4x3xf32> {
  %0 = "gmm.ragged_dot"(%lhs, %rhs, %gs) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}> : (tensor<4x8xf32>, tensor<2x8x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// pipeline: gmm-to-ptx{chip=sm_75 tile-m=1152921504606846976 warps-m=1152921504606846976}
func.func @ptx_options(%lhs: tensor<64x32xbf16>, %rhs: tensor<2x32x64xbf16>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x32xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// pipeline: gmm-to-ptx{chip=sm_80 tile-m=64 tile-n=64 tile-k=32 warps-m=2 warps-n=2 format=isa}
func.func @ptx_small_tiles(%lhs: tensor<?x?xf16>, %rhs: tensor<?x?x?xf16>, %gs: tensor<?xi64>) -> tensor<?x?xf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x?xf16>, tensor<?x?x?xf16>, tensor<?xi64> -> tensor<?x?xf16>
  return %0 : tensor<?x?xf16>
}

// -----

// pipeline: gmm-to-cpu{tile-m=-3 tile-n=4611686018427387904 tile-k=0 parallel=0}
func.func @cpu_options(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>) -> tensor<2x4x3xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// pipeline: gmm-to-cpu{tile-m=7 tile-n=1 tile-k=3}
func.func @tile_attribute(%lhs: tensor<20x10xf32>, %rhs: tensor<3x10x37xf32>, %gs: tensor<3xi32>) -> tensor<20x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [9223372036854775807, 2, 4611686018427387904]>} : tensor<20x10xf32>, tensor<3x10x37xf32>, tensor<3xi32> -> tensor<20x37xf32>
  return %0 : tensor<20x37xf32>
}

// -----

// pipeline: gmm-reference-to-llvm
func.func @dynamic_offset_init(%lhs: tensor<?x?xbf16>, %rhs: tensor<?x?x?xbf16>, %gs: tensor<?xi32>, %off: tensor<i32>, %acc: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<i32>) init(%acc : tensor<?x?xf32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x?xbf16>, tensor<?x?x?xbf16>, tensor<?xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A tile schedule with extents and group counts at the extremes.
func.func @schedule_extremes(%gs: tensor<?xi64>) -> (index, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>) {
  %extent = arith.constant 9223372036854775807 : index
  %local = arith.constant 4611686018427387904 : index
  %off = arith.constant -9223372036854775808 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%local) offset(%off) tile_size = 1 : tensor<?xi64> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  return %n, %g, %t, %s, %e : index, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
}
