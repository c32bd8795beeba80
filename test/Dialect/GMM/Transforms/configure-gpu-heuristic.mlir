// gmm-configure's GPU tile by chip and shape (defaultGPUTile in
// KernelConfig.cpp, which says what was measured): on sm_90, 16-bit
// operands with at least 256 columns (or an unknown number) take 128 x 256
// x 32 on 2 x 4 warps; narrower results, f32 operands, other chips and no
// chip take 128 x 128. On sm_90a the 16-bit mode-1 ragged dots take the
// wgmma kernel instead: 128 x 256 x 64 (128 x 128 x 64 for at most 128
// columns) in the most stages that fit in 227 KiB; the others keep sm_90's
// mma.sync configuration.

// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90" | FileCheck %s --check-prefix=SM90
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90a" | FileCheck %s --check-prefix=SM90A
// The mma option overrides the heuristic on sm_90a; mma=wgmma applies to
// the ragged dots the wgmma kernel takes only (16-bit mode 1, static,
// weights not transposed), the others keep mma.sync.
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90a mma=mma-sync" | FileCheck %s --check-prefix=SM90
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90a mma=wgmma" | FileCheck %s --check-prefix=FORCED
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_80" | FileCheck %s --check-prefix=OTHER
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_89" | FileCheck %s --check-prefix=OTHER
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu" | FileCheck %s --check-prefix=OTHER

// SM90-LABEL: func.func @wide_bf16
// SM90: tile = [128, 256, 32], warps = [2, 4], stages = 2
// OTHER-LABEL: func.func @wide_bf16
// SM90A-LABEL: func.func @wide_bf16
// SM90A: tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>
// FORCED-LABEL: func.func @wide_bf16
// FORCED: tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>
// OTHER: tile = [128, 128, 32], warps = [2, 4], stages = 2
func.func @wide_bf16(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x1536xbf16>, %gs: tensor<4xi32>) -> tensor<512x1536xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x64xbf16>, tensor<4x64x1536xbf16>, tensor<4xi32> -> tensor<512x1536xf32>
  return %0 : tensor<512x1536xf32>
}

// -----

// The weight gradient: its columns are dy's.
// SM90-LABEL: func.func @wide_f16_weight_gradient
// SM90: tile = [128, 256, 32], warps = [2, 4], stages = 2
// OTHER-LABEL: func.func @wide_f16_weight_gradient
// SM90A-LABEL: func.func @wide_f16_weight_gradient
// SM90A: tile = [128, 256, 32], warps = [2, 4], stages = 2>
// FORCED-LABEL: func.func @wide_f16_weight_gradient
// FORCED: tile = [128, 256, 32], warps = [2, 4], stages = 2>
// OTHER: tile = [128, 128, 32], warps = [2, 4], stages = 2
func.func @wide_f16_weight_gradient(%x: tensor<512x64xf16>, %dy: tensor<512x256xf16>, %gs: tensor<4xi32>) -> tensor<4x64x256xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<512x64xf16>, tensor<512x256xf16>, tensor<4xi32> -> tensor<4x64x256xf32>
  return %0 : tensor<4x64x256xf32>
}

// -----

// Unknown columns count as wide.
// SM90-LABEL: func.func @dynamic_columns
// SM90: tile = [128, 256, 32], warps = [2, 4], stages = 2
// OTHER-LABEL: func.func @dynamic_columns
// Dynamic shapes, which the wgmma kernel does not take, keep mma.sync.
// SM90A-LABEL: func.func @dynamic_columns
// SM90A: tile = [128, 256, 32], warps = [2, 4], stages = 2>
// FORCED-LABEL: func.func @dynamic_columns
// FORCED: tile = [128, 256, 32], warps = [2, 4], stages = 2>
// OTHER: tile = [128, 128, 32], warps = [2, 4], stages = 2
func.func @dynamic_columns(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x?xbf16>, %gs: tensor<4xi32>) -> tensor<512x?xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x64xbf16>, tensor<4x64x?xbf16>, tensor<4xi32> -> tensor<512x?xbf16>
  return %0 : tensor<512x?xbf16>
}

// -----

// Fewer than 256 columns: half of a 256-column tile would be masked off.
// SM90-LABEL: func.func @narrow_bf16
// SM90: tile = [128, 128, 32], warps = [2, 4], stages = 2
// OTHER-LABEL: func.func @narrow_bf16
// SM90A-LABEL: func.func @narrow_bf16
// SM90A: tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>
// FORCED-LABEL: func.func @narrow_bf16
// FORCED: tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>
// OTHER: tile = [128, 128, 32], warps = [2, 4], stages = 2
func.func @narrow_bf16(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x192xbf16>, %gs: tensor<4xi32>) -> tensor<512x192xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x64xbf16>, tensor<4x64x192xbf16>, tensor<4xi32> -> tensor<512x192xf32>
  return %0 : tensor<512x192xf32>
}

// -----

// f32 operands keep 128 x 128 x 16 on every chip.
// SM90-LABEL: func.func @wide_f32
// SM90: tile = [128, 128, 16], warps = [2, 4], stages = 2
// OTHER-LABEL: func.func @wide_f32
// SM90A-LABEL: func.func @wide_f32
// SM90A: tile = [128, 128, 16], warps = [2, 4], stages = 2>
// FORCED-LABEL: func.func @wide_f32
// FORCED: tile = [128, 128, 16], warps = [2, 4], stages = 2>
// OTHER: tile = [128, 128, 16], warps = [2, 4], stages = 2
func.func @wide_f32(%lhs: tensor<512x64xf32>, %rhs: tensor<4x64x1536xf32>, %gs: tensor<4xi32>) -> tensor<512x1536xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x64xf32>, tensor<4x64x1536xf32>, tensor<4xi32> -> tensor<512x1536xf32>
  return %0 : tensor<512x1536xf32>
}

// -----

// At most 128 columns: m64n128 warpgroups, in 7 stages of 32 KiB.
// SM90-LABEL: func.func @narrow_128
// SM90: tile = [128, 128, 32], warps = [2, 4], stages = 2>
// OTHER-LABEL: func.func @narrow_128
// OTHER: tile = [128, 128, 32], warps = [2, 4], stages = 2>
// SM90A-LABEL: func.func @narrow_128
// SM90A: tile = [128, 128, 64], warps = [2, 4], stages = 7, mma = wgmma, raster = 8>
// FORCED-LABEL: func.func @narrow_128
// FORCED: tile = [128, 128, 64], warps = [2, 4], stages = 7, mma = wgmma, raster = 8>
func.func @narrow_128(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x128xbf16>, %gs: tensor<4xi32>) -> tensor<512x128xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x64xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<512x128xbf16>
  return %0 : tensor<512x128xbf16>
}

// -----

// Transposed weights ([g, n, k]) and an init keep mma.sync on sm_90a.
// SM90A-LABEL: func.func @transposed
// SM90A: tile = [128, 256, 32], warps = [2, 4], stages = 2>
// SM90A-LABEL: func.func @init
// SM90A: tile = [128, 256, 32], warps = [2, 4], stages = 2>
func.func @transposed(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x512x64xbf16>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x64xbf16>, tensor<4x512x64xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
func.func @init(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x512xbf16>, %gs: tensor<4xi32>, %i: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs init(%i : tensor<512x512xf32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
