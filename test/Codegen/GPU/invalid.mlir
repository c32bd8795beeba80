// What gmm-map-to-gpu cannot map is an error at the ragged dot's location.
// gmm-configure refuses these configurations already
// (test/Dialect/GMM/Transforms/configure-invalid.mlir); here they are
// written on the ops by hand and reach the mapping through gmm-tile, which
// checks only the tile bounds, and the mapping checks them again.

// RUN: gmm-opt %s -split-input-file --gmm-normalize --gmm-tile --gmm-materialize-metadata --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --gmm-map-to-gpu -verify-diagnostics

// No f64 tensor cores or FMA path.
func.func @f64(%lhs: tensor<64x32xf64>, %rhs: tensor<2x32x64xf64>, %gs: tensor<2xi32>) -> tensor<64x64xf64> {
  // expected-error @+1 {{'gpu.launch' op element type 'f64' is not supported on the GPU (f16, bf16 and f32 are)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [64, 64, 16], warps = [1, 1], stages = 2>} : tensor<64x32xf64>, tensor<2x32x64xf64>, tensor<2xi32> -> tensor<64x64xf64>
  return %0 : tensor<64x64xf64>
}

// -----

// A 16 x 16 block tile has no room for 2 x 4 warps of 16 x 8 mma tiles.
func.func @small_tiles(%lhs: tensor<64x32xbf16>, %rhs: tensor<2x32x64xbf16>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'gpu.launch' op kernel configuration #gmm.kernel_config<target = gpu, tile = [16, 16, 16], warps = [2, 4], stages = 2>: the tile does not split over 2x4 warps of 16x8x16 mma.sync steps ('bf16')}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [16, 16, 16], warps = [2, 4], stages = 2>} : tensor<64x32xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// f32 tiles need whole 4-element copies per thread.
func.func @f32_tiles(%lhs: tensor<64x32xf32>, %rhs: tensor<2x32x64xf32>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'gpu.launch' op kernel configuration #gmm.kernel_config<target = gpu, tile = [128, 128, 12], warps = [2, 4], stages = 2>: the tile's 4-element copies (16 bytes of 'f32') do not spread evenly over 256 threads}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 128, 12], warps = [2, 4], stages = 2>} : tensor<64x32xf32>, tensor<2x32x64xf32>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Four stages of 256 x 64 and 64 x 256 bf16 tiles exceed what any chip
// gives a block (sm_90's 227 KiB; gmm-configure checks the chip's own).
func.func @big_tiles(%lhs: tensor<64x32xbf16>, %rhs: tensor<2x32x64xbf16>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'gpu.launch' op kernel configuration #gmm.kernel_config<target = gpu, tile = [256, 256, 64], warps = [2, 4], stages = 4>: its 4 stages need 262144 bytes of shared memory, more than the 232448 a block can have on the chip}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [256, 256, 64], warps = [2, 4], stages = 4>} : tensor<64x32xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
