// Normalization preserves the semantics: mode 1 with collapsed, broadcast,
// transposed, dynamic and zero-sized dimensions.
// Each function is run as written (checked against the C++ reference), then
// normalized and run on the same inputs; see normalize-run.mlir.
//
// REQUIRES: gmm-runner
// DEFINE: %{entry} =
// DEFINE: %{args} =
// DEFINE: %{compare} = gmm-runner %s -e %{entry} --seed=3 %{args} --print --check > %t.ref && grep -q "check: PASS" %t.ref && grep -v "^check:" %t.ref > %t.expected && gmm-opt %s -gmm-normalize | gmm-runner - -e %{entry} --seed=3 %{args} --print > %t.norm && diff %t.expected %t.norm

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
