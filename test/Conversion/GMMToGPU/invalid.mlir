// What gmm-map-to-gpu cannot map is an error at the ragged dot's location.

// RUN: gmm-opt %s -split-input-file --gmm-normalize --gmm-tile=target=gpu --gmm-materialize-metadata --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --gmm-map-to-gpu -verify-diagnostics
// Warp counts out of range are one error at the module, before any
// arithmetic with them (2^60 warps overflowed it), without the module.
// RUN: not gmm-opt %s -split-input-file --gmm-map-to-gpu=warps-m=0 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: error: gmm-map-to-gpu: warps-m and warps-n must be positive with at most 32 warps (1024 threads) per block, got 0 x 4{{$}}
// WARPS-NOT: note
// RUN: not gmm-opt %s -split-input-file --gmm-map-to-gpu=warps-m=1152921504606846976 2>&1 | FileCheck %s --check-prefix=HUGE-WARPS
// HUGE-WARPS: error: gmm-map-to-gpu: warps-m and warps-n must be positive with at most 32 warps (1024 threads) per block, got 1152921504606846976 x 4{{$}}
// RUN: not gmm-opt %s -split-input-file --gmm-map-to-gpu="warps-m=8 warps-n=8" 2>&1 | FileCheck %s --check-prefix=MANY-WARPS
// MANY-WARPS: error: gmm-map-to-gpu: {{.*}}, got 8 x 8{{$}}

// No f64 tensor cores or FMA path.
func.func @f64(%lhs: tensor<64x32xf64>, %rhs: tensor<2x32x64xf64>, %gs: tensor<2xi32>) -> tensor<64x64xf64> {
  // expected-error @+1 {{element type 'f64' is not supported on the GPU (f16, bf16 and f32 are)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x32xf64>, tensor<2x32x64xf64>, tensor<2xi32> -> tensor<64x64xf64>
  return %0 : tensor<64x64xf64>
}

// -----

// A 16 x 16 block tile has no room for 2 x 4 warps of 16 x 8 mma tiles.
func.func @small_tiles(%lhs: tensor<64x32xbf16>, %rhs: tensor<2x32x64xbf16>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{tile sizes 16x16x16 do not split over 2x4 warps of 16x8x16 mma.sync steps with 8-element copies spread evenly over 256 threads}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.tile_sizes = array<i64: 16, 16, 16>} : tensor<64x32xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// f32 tiles need 4 x 8 lanes of FMA blocks per warp.
func.func @f32_tiles(%lhs: tensor<64x32xf32>, %rhs: tensor<2x32x64xf32>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{tile sizes 128x128x12 do not split over 2x4 warps of 4x8x1 FMA steps with 4-element copies spread evenly over 256 threads}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.tile_sizes = array<i64: 128, 128, 12>} : tensor<64x32xf32>, tensor<2x32x64xf32>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Two stages of 256 x 64 and 64 x 128 bf16 tiles do not fit in 48 KiB.
func.func @big_tiles(%lhs: tensor<64x32xbf16>, %rhs: tensor<2x32x64xbf16>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{tile sizes 256x128x64 need 108544 bytes of shared memory, more than the 49152 a block gets statically}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.tile_sizes = array<i64: 256, 128, 64>} : tensor<64x32xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
