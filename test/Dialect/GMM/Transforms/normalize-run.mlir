// Normalization preserves the semantics: each function is run as written
// (and checked against the C++ reference), then normalized and run again on
// the same inputs, and the printed results must be identical. (--check itself
// needs the ragged dot's operands to be entry arguments, which normalization
// changes, hence the comparison with the checked original.) Group sizes are
// given explicitly: seeded sizes are only generated for an argument that
// feeds the ragged dot directly.
//
// REQUIRES: gmm-runner
// DEFINE: %{entry} =
// DEFINE: %{args} =
// DEFINE: %{compare} = gmm-runner %s -e %{entry} --seed=3 %{args} --print --check > %t.ref && grep -q "check: PASS" %t.ref && grep -v "^check:" %t.ref > %t.expected && gmm-opt %s -gmm-normalize | gmm-runner - -e %{entry} --seed=3 %{args} --print > %t.norm && diff %t.expected %t.norm

// REDEFINE: %{entry} = mode1_plain
// REDEFINE: %{args} = --values=2:3,0,5
// RUN: %{compare}
func.func @mode1_plain(%lhs: tensor<8x4xf32>, %rhs: tensor<3x4x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<3x4x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// Transposed weights, bf16 in, f32 out; sizes with a negative one and past
// the extent.
// REDEFINE: %{entry} = mode1_rhs_nk
// REDEFINE: %{args} = --values=2:2,-1,9
// RUN: %{compare}
func.func @mode1_rhs_nk(%lhs: tensor<8x4xbf16>, %rhs: tensor<3x5x4xbf16>, %gs: tensor<3xi64>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xbf16>, tensor<3x5x4xbf16>, tensor<3xi64> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// lhs [k, m] (transposed) and weights [k, g, n] (transposed).
// REDEFINE: %{entry} = mode1_transposes
// REDEFINE: %{args} = --values=2:1,4,2
// RUN: %{compare}
func.func @mode1_transposes(%lhs: tensor<4x8xf32>, %rhs: tensor<4x3x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [1]>
      : tensor<4x8xf32>, tensor<4x3x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// JAX's batched mode 1 (rhs [g, b, k, n]), group sizes [g] shared by the batch.
// REDEFINE: %{entry} = mode1_batch
// REDEFINE: %{args} = --values=2:5,0,4
// RUN: %{compare}
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

// Two batching dims in the opposite order in lhs and rhs, a free dim before
// the ragged one, group sizes [b1, b0, x, g] (a partition per row).
// REDEFINE: %{entry} = mode1_prefix
// REDEFINE: %{args} = --values=2:1,2,3,0,6,0,6,0,0,2,2,2,3,3,3,9,-1,1,0,0,6,5,1,0
// RUN: %{compare}
func.func @mode1_prefix(%lhs: tensor<2x2x2x6x3xf32>, %rhs: tensor<2x2x3x3x4xf32>, %gs: tensor<2x2x2x3xi32>) -> tensor<2x2x2x6x4xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [1, 0],
                           rhs_batching_dimensions = [1, 0],
                           lhs_contracting_dimensions = [4],
                           rhs_contracting_dimensions = [3],
                           lhs_ragged_dimensions = [3],
                           rhs_group_dimensions = [2]>
      : tensor<2x2x2x6x3xf32>, tensor<2x2x3x3x4xf32>, tensor<2x2x2x3xi32> -> tensor<2x2x2x6x4xf32>
  return %0 : tensor<2x2x2x6x4xf32>
}

// Free dims before and after the ragged one; group sizes [x_before, g] are
// broadcast along the later one.
// REDEFINE: %{entry} = mode1_free_after
// REDEFINE: %{args} = --values=2:2,4,5,1
// RUN: %{compare}
func.func @mode1_free_after(%lhs: tensor<2x6x3x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<2x2xi32>) -> tensor<2x6x3x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [3],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [0]>
      : tensor<2x6x3x4xf32>, tensor<2x4x5xf32>, tensor<2x2xi32> -> tensor<2x6x3x5xf32>
  return %0 : tensor<2x6x3x5xf32>
}

// Several contracting dims (listed in reverse) and rhs free dims, f64.
// REDEFINE: %{entry} = mode1_multi
// REDEFINE: %{args} = --values=2:3,3,0,2
// RUN: %{compare}
func.func @mode1_multi(%lhs: tensor<8x2x3xf64>, %rhs: tensor<4x2x3x5x2xf64>, %gs: tensor<4xi32>) -> tensor<8x5x2xf64> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [2, 1],
                           rhs_contracting_dimensions = [2, 1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2x3xf64>, tensor<4x2x3x5x2xf64>, tensor<4xi32> -> tensor<8x5x2xf64>
  return %0 : tensor<8x5x2xf64>
}

// group_offset and init (expert sharding): global groups 1 and 2 only.
// REDEFINE: %{entry} = mode1_offset_init
// REDEFINE: %{args} = --values=2:2,3,1,2 --values=3:1
// RUN: %{compare}
func.func @mode1_offset_init(%lhs: tensor<8x4xf32>, %rhs: tensor<2x5x4xf32>, %gs: tensor<4xi32>, %off: tensor<1xi32>, %acc: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<1xi32>) init(%acc : tensor<8x5xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<2x5x4xf32>, tensor<4xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// Dynamic sizes, including a lhs that is transposed.
// REDEFINE: %{entry} = mode1_dynamic
// REDEFINE: %{args} = --arg-shape=0:3x9 --arg-shape=1:3x3x4 --values=2:4,0,3
// RUN: %{compare}
func.func @mode1_dynamic(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?x?xf32>, %gs: tensor<?xi32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Mode 2 weight gradient x^T dy with group_offset and init.
// REDEFINE: %{entry} = mode2_weight_grad
// REDEFINE: %{args} = --values=2:2,3,1,2 --values=3:1
// RUN: %{compare}
func.func @mode2_weight_grad(%x: tensor<8x2xf32>, %dy: tensor<8x3xf32>, %gs: tensor<4xi64>, %off: tensor<i64>, %acc: tensor<2x2x3xf32>) -> tensor<2x2x3xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<i64>) init(%acc : tensor<2x2x3xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<8x2xf32>, tensor<8x3xf32>, tensor<4xi64> -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// Mode 2 as CHLO writes it (lhs [m, k] ragged k, rhs [k, n]), f16, with an
// empty group and uncovered k.
// REDEFINE: %{entry} = mode2_chlo
// REDEFINE: %{args} = --values=2:5,0,6
// RUN: %{compare}
func.func @mode2_chlo(%lhs: tensor<4x16xf16>, %rhs: tensor<16x3xf16>, %gs: tensor<3xi32>) -> tensor<3x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [1]>
      : tensor<4x16xf16>, tensor<16x3xf16>, tensor<3xi32> -> tensor<3x4x3xf32>
  return %0 : tensor<3x4x3xf32>
}

// Mode 2 with a batching dim (group sizes [b, g]), a second contracting dim
// after the ragged one, and the rhs as [b, n, k, kc].
// REDEFINE: %{entry} = mode2_batch
// REDEFINE: %{args} = --values=2:3,3,1,7,0,1
// RUN: %{compare}
func.func @mode2_batch(%lhs: tensor<2x4x7x2xf32>, %rhs: tensor<2x3x7x2xf32>, %gs: tensor<2x3xi32>) -> tensor<3x2x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2, 3],
                           rhs_contracting_dimensions = [2, 3],
                           lhs_ragged_dimensions = [2]>
      : tensor<2x4x7x2xf32>, tensor<2x3x7x2xf32>, tensor<2x3xi32> -> tensor<3x2x4x3xf32>
  return %0 : tensor<3x2x4x3xf32>
}

// Mode 2 with the ragged dim in the middle of three contracting dims, a
// transposed lhs and a unit contracting dim in the group sizes' prefix.
// REDEFINE: %{entry} = mode2_kc
// REDEFINE: %{args} = --values=2:2,6
// RUN: %{compare}
func.func @mode2_kc(%lhs: tensor<2x1x4x9xf32>, %rhs: tensor<1x9x2x3xf32>, %gs: tensor<1x2xi32>) -> tensor<2x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1, 3, 0],
                           rhs_contracting_dimensions = [0, 1, 2],
                           lhs_ragged_dimensions = [3]>
      : tensor<2x1x4x9xf32>, tensor<1x9x2x3xf32>, tensor<1x2xi32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// Mode 3: a batched dot (the group sizes are ignored).
// REDEFINE: %{entry} = mode3
// REDEFINE: %{args} = --values=2:7,-3,0,1,1 --arg-shape=0:2x3x4
// RUN: %{compare}
func.func @mode3(%lhs: tensor<2x?x4xf32>, %rhs: tensor<4x2x5xf32>, %gs: tensor<5xi32>) -> tensor<2x?x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [1],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<2x?x4xf32>, tensor<4x2x5xf32>, tensor<5xi32> -> tensor<2x?x5xf32>
  return %0 : tensor<2x?x5xf32>
}

// Zero-sized dims.
// REDEFINE: %{entry} = zero
// REDEFINE: %{args} = --values=2:0,0,0
// RUN: %{compare}
func.func @zero(%lhs: tensor<0x4xf32>, %rhs: tensor<3x4x2xf32>, %gs: tensor<3xi32>) -> tensor<0x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<0x4xf32>, tensor<3x4x2xf32>, tensor<3xi32> -> tensor<0x2xf32>
  return %0 : tensor<0x2xf32>
}
