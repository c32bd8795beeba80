// RUN: gmm-opt %s -split-input-file -gmm-normalize | FileCheck %s

// Plain mode 1 (lax.ragged_dot): only reshapes, no copy.
func.func @mode1_plain(%lhs: tensor<8x4xf32>, %rhs: tensor<3x4x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<3x4x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// Weights stored transposed [g, n, k]: kept as they are.
func.func @mode1_rhs_nk(%lhs: tensor<8x4xbf16>, %rhs: tensor<3x5x4xbf16>, %gs: tensor<3xi64>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xbf16>, tensor<3x5x4xbf16>, tensor<3xi64> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// lhs [k, m]: the lhs is transposed.
func.func @mode1_lhs_km(%lhs: tensor<4x8xf32>, %rhs: tensor<3x4x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [0]>
      : tensor<4x8xf32>, tensor<3x4x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// JAX's batched mode 1: rhs [g, b, k, n]; group sizes [g] broadcast over b.
func.func @mode1_batch(%lhs: tensor<2x11x5xf32>, %rhs: tensor<3x2x5x7xf32>, %gs: tensor<3xi64>) -> tensor<2x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [1],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [0]>
      : tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64> -> tensor<2x11x7xf32>
  return %0 : tensor<2x11x7xf32>
}

// -----

// Group sizes with the full prefix [b, x, g]; two batching dims collapse.
func.func @mode1_prefix(%lhs: tensor<2x3x4x8x6xf32>, %rhs: tensor<2x3x5x6x7xf32>, %gs: tensor<2x3x4x5xi32>) -> tensor<2x3x4x8x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0, 1],
                           rhs_batching_dimensions = [0, 1],
                           lhs_contracting_dimensions = [4],
                           rhs_contracting_dimensions = [3],
                           lhs_ragged_dimensions = [3],
                           rhs_group_dimensions = [2]>
      : tensor<2x3x4x8x6xf32>, tensor<2x3x5x6x7xf32>, tensor<2x3x4x5xi32> -> tensor<2x3x4x8x7xf32>
  return %0 : tensor<2x3x4x8x7xf32>
}

// -----

// A free lhs dim after the ragged one: it joins X, which moves it before M.
func.func @mode1_free_after(%lhs: tensor<8x3x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<2xi32>) -> tensor<8x3x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x3x4xf32>, tensor<2x4x5xf32>, tensor<2xi32> -> tensor<8x3x5xf32>
  return %0 : tensor<8x3x5xf32>
}

// -----

// Free dims before and after the ragged one, group sizes [x_before, g]:
// broadcast along the later one.
func.func @mode1_prefix_partial(%lhs: tensor<2x8x3x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<2x2xi32>) -> tensor<2x8x3x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [3],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [0]>
      : tensor<2x8x3x4xf32>, tensor<2x4x5xf32>, tensor<2x2xi32> -> tensor<2x8x3x5xf32>
  return %0 : tensor<2x8x3x5xf32>
}

// -----

// Several contracting dims (collapsed into K) and rhs free dims (into N).
func.func @mode1_multi(%lhs: tensor<8x2x3xf32>, %rhs: tensor<4x2x3x5x6xf32>, %gs: tensor<4xi32>) -> tensor<8x5x6xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1, 2],
                           rhs_contracting_dimensions = [1, 2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2x3xf32>, tensor<4x2x3x5x6xf32>, tensor<4xi32> -> tensor<8x5x6xf32>
  return %0 : tensor<8x5x6xf32>
}

// -----

// Contracting pairs listed in the opposite order of both layouts: K takes
// the operands' order, no transpose.
func.func @mode1_k_order(%lhs: tensor<8x2x3xf32>, %rhs: tensor<4x2x3x5xf32>, %gs: tensor<4xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [2, 1],
                           rhs_contracting_dimensions = [2, 1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2x3xf32>, tensor<4x2x3x5xf32>, tensor<4xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// Weights with the group dim in the middle [k, g, n]: transposed.
func.func @mode1_rhs_kgn(%lhs: tensor<8x4xf32>, %rhs: tensor<4x3x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [1]>
      : tensor<8x4xf32>, tensor<4x3x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// Mode 2, the weight gradient x^T dy with x [m, k], dy [m, n] (m ragged).
func.func @mode2_weight_grad(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>) -> tensor<2x4x3xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Mode 2 as CHLO writes it: lhs [m, k] ragged k, rhs [k, n].
func.func @mode2_chlo(%lhs: tensor<4x16xf16>, %rhs: tensor<16x3xf16>, %gs: tensor<5xi32>) -> tensor<5x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [1]>
      : tensor<4x16xf16>, tensor<16x3xf16>, tensor<5xi32> -> tensor<5x4x3xf32>
  return %0 : tensor<5x4x3xf32>
}

// -----

// Mode 2 with a batching dim and group sizes [b, g].
func.func @mode2_batch(%lhs: tensor<2x11x5xf32>, %rhs: tensor<2x5x7xf32>, %gs: tensor<2x3xi32>) -> tensor<3x2x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [2]>
      : tensor<2x11x5xf32>, tensor<2x5x7xf32>, tensor<2x3xi32> -> tensor<3x2x11x7xf32>
  return %0 : tensor<3x2x11x7xf32>
}

// -----

// Mode 2 with a second contracting dim after the ragged one, and a prefix
// contracting dim of size 1 (it cannot vary).
func.func @mode2_kc(%lhs: tensor<1x16x2x4xf32>, %rhs: tensor<1x16x2x3xf32>, %gs: tensor<1x5xi32>) -> tensor<5x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0, 1, 2],
                           rhs_contracting_dimensions = [0, 1, 2],
                           lhs_ragged_dimensions = [1]>
      : tensor<1x16x2x4xf32>, tensor<1x16x2x3xf32>, tensor<1x5xi32> -> tensor<5x4x3xf32>
  return %0 : tensor<5x4x3xf32>
}

// -----

// Mode 3: a batched dot becomes mode 1 with one group of all 3 rows.
func.func @mode3(%lhs: tensor<2x3x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<7xi32>) -> tensor<2x3x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0]>
      : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<7xi32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// group_offset and init are carried over; init is reshaped like the result.
func.func @offset_init(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<4xi32>, %off: tensor<i32>, %acc: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<i32>) init(%acc : tensor<8x5xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<2x4x5xf32>, tensor<4xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// Mode 2 with group_offset and an init with a dynamic number of local groups.
func.func @mode2_offset_init(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<4xi32>, %off: tensor<i32>, %acc: tensor<?x4x3xf32>) -> tensor<?x4x3xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<i32>) init(%acc : tensor<?x4x3xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<16x4xf32>, tensor<16x3xf32>, tensor<4xi32> -> tensor<?x4x3xf32>
  return %0 : tensor<?x4x3xf32>
}

// -----

// Dynamic sizes everywhere.
func.func @dynamic(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?x?xf32>, %gs: tensor<?xi32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Dynamic sizes that collapse (two batching dims, two rhs free dims) and a
// transposed lhs.
func.func @dynamic_collapse(%lhs: tensor<?x?x?x?xf32>, %rhs: tensor<?x?x?x?x?x?xf32>, %gs: tensor<?x?x?xi64>) -> tensor<?x?x?x?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0, 1],
                           rhs_batching_dimensions = [0, 1],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [3],
                           lhs_ragged_dimensions = [3],
                           rhs_group_dimensions = [2]>
      : tensor<?x?x?x?xf32>, tensor<?x?x?x?x?x?xf32>, tensor<?x?x?xi64> -> tensor<?x?x?x?x?xf32>
  return %0 : tensor<?x?x?x?x?xf32>
}

// -----

// Mode 3 with a dynamic row count: the group size is computed.
func.func @mode3_dynamic(%lhs: tensor<2x?x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<3xi32>) -> tensor<2x?x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0]>
      : tensor<2x?x4xf32>, tensor<2x4x5xf32>, tensor<3xi32> -> tensor<2x?x5xf32>
  return %0 : tensor<2x?x5xf32>
}

// -----

// Zero-sized dims.
func.func @zero(%lhs: tensor<0x4xf32>, %rhs: tensor<3x4x0xf32>, %gs: tensor<3xi32>) -> tensor<0x0xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<0x4xf32>, tensor<3x4x0xf32>, tensor<3xi32> -> tensor<0x0xf32>
  return %0 : tensor<0x0xf32>
}

// -----

// Already normalized: untouched (attributes included).
func.func @normalized(%lhs: tensor<2x3x8x4xf32>, %rhs: tensor<2x5x4x6xf32>, %gs: tensor<2x3x5xi32>) -> tensor<2x3x8x6xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [3],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [2],
                           rhs_group_dimensions = [1]> {gmm.tile_sizes = array<i64: 4, 4, 4>}
      : tensor<2x3x8x4xf32>, tensor<2x5x4x6xf32>, tensor<2x3x5xi32> -> tensor<2x3x8x6xf32>
  return %0 : tensor<2x3x8x6xf32>
}

// -----

// Mode 2 whose group sizes vary along another contracting dim: unchanged.
func.func @mode2_unsupported(%lhs: tensor<3x16x4xf32>, %rhs: tensor<3x16x5xf32>, %gs: tensor<3x2xi32>) -> tensor<2x4x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0, 1],
                           rhs_contracting_dimensions = [0, 1],
                           lhs_ragged_dimensions = [1]>
      : tensor<3x16x4xf32>, tensor<3x16x5xf32>, tensor<3x2xi32> -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}
