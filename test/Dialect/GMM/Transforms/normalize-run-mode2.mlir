// Normalization preserves the semantics: modes 2 and 3.
// Each function is run as written (checked against the C++ reference), then
// normalized and run on the same inputs; see normalize-run.mlir.
//
// REQUIRES: gmm-runner
// DEFINE: %{entry} =
// DEFINE: %{args} =
// DEFINE: %{compare} = gmm-runner %s -e %{entry} --seed=3 %{args} --print --check > %t.ref && grep -q "check: PASS" %t.ref && grep -v "^check:" %t.ref > %t.expected && gmm-opt %s -gmm-normalize | gmm-runner - -e %{entry} --seed=3 %{args} --print > %t.norm && diff %t.expected %t.norm

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
