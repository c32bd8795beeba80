// RUN: gmm-opt %s -split-input-file -resolve-ranked-shaped-type-result-dims | FileCheck %s

// The dynamic result dims of gmm.ragged_dot come from the operands that own
// them: lhs free dims from lhs, rhs free dims from rhs.

// CHECK-LABEL: func.func @mode1_dynamic
// CHECK-SAME:    %[[LHS:[a-z0-9]+]]: tensor<?x4xf32>, %[[RHS:[a-z0-9]+]]: tensor<2x4x?xf32>
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[M:.+]] = tensor.dim %[[LHS]], %[[C0]]
// CHECK-DAG:     %[[N:.+]] = tensor.dim %[[RHS]], %[[C2]]
// CHECK:         return %[[M]], %[[N]]
func.func @mode1_dynamic(%lhs: tensor<?x4xf32>, %rhs: tensor<2x4x?xf32>, %gs: tensor<2xi32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x4xf32>, tensor<2x4x?xf32>, tensor<2xi32> -> tensor<?x?xf32>
  %m = tensor.dim %0, %c0 : tensor<?x?xf32>
  %n = tensor.dim %0, %c1 : tensor<?x?xf32>
  return %m, %n : index, index
}

// -----

// CHECK-LABEL: func.func @mode2_dynamic_groups
// CHECK-SAME:    %{{[a-z0-9]+}}: tensor<8x4xf32>, %{{[a-z0-9]+}}: tensor<8x3xf32>, %[[GS:[a-z0-9]+]]: tensor<?xi64>
// CHECK:         %[[C0:.+]] = arith.constant 0 : index
// CHECK:         %[[G:.+]] = tensor.dim %[[GS]], %[[C0]]
// CHECK:         return %[[G]]
func.func @mode2_dynamic_groups(%lhs: tensor<8x4xf32>, %rhs: tensor<8x3xf32>, %gs: tensor<?xi64>) -> index {
  %c0 = arith.constant 0 : index
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<8x4xf32>, tensor<8x3xf32>, tensor<?xi64> -> tensor<?x4x3xf32>
  %g = tensor.dim %0, %c0 : tensor<?x4x3xf32>
  return %g : index
}

// -----

// CHECK-LABEL: func.func @mode2_offset_local_groups_from_init
// CHECK-SAME:    %[[INIT:[a-z0-9]+]]: tensor<?x4x3xf32>
// CHECK:         %[[C0:.+]] = arith.constant 0 : index
// CHECK:         %[[G:.+]] = tensor.dim %[[INIT]], %[[C0]]
// CHECK:         return %[[G]]
func.func @mode2_offset_local_groups_from_init(%lhs: tensor<8x4xf32>, %rhs: tensor<8x3xf32>, %gs: tensor<5xi32>, %off: tensor<1xi32>, %init: tensor<?x4x3xf32>) -> index {
  %c0 = arith.constant 0 : index
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<1xi32>) init(%init : tensor<?x4x3xf32>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<8x4xf32>, tensor<8x3xf32>, tensor<5xi32> -> tensor<?x4x3xf32>
  %g = tensor.dim %0, %c0 : tensor<?x4x3xf32>
  return %g : index
}
