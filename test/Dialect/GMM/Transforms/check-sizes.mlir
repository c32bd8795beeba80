// gmm-check-sizes: a cf.assert for every pair of sizes of a gmm.ragged_dot
// that must agree and that the types leave open.

// RUN: gmm-opt %s --gmm-check-sizes --split-input-file | FileCheck %s

// Static shapes: the verifier decided every pair; nothing is added.
// CHECK-LABEL: func.func @static
// CHECK-NOT:     cf.assert
// CHECK:         gmm.ragged_dot
func.func @static(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>,
                  %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// Mode 1 with dynamic sizes: contracting sizes, the rhs group dimension
// against the number of groups, and the result type's static columns.
// CHECK-LABEL: func.func @mode1
// CHECK-SAME:    (%[[LHS:.*]]: tensor<?x?xf32>, %[[RHS:.*]]: tensor<?x?x?xf32>, %[[GS:.*]]: tensor<?xi32>)
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[K1:.*]] = tensor.dim %[[LHS]], %[[C1]]
// CHECK:         %[[K2:.*]] = tensor.dim %[[RHS]], %[[C1]]
// CHECK:         %[[EQ0:.*]] = arith.cmpi eq, %[[K1]], %[[K2]] : index
// CHECK:         cf.assert %[[EQ0]], "gmm.ragged_dot at {{.*}}check-sizes.mlir:{{[0-9]+}}:8: lhs contracting dimension 1 and rhs contracting dimension 1 differ"
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[G1:.*]] = tensor.dim %[[RHS]], %[[C0]]
// CHECK:         %[[G2:.*]] = tensor.dim %[[GS]], %[[C0]]
// CHECK:         %[[EQ1:.*]] = arith.cmpi eq, %[[G1]], %[[G2]] : index
// CHECK:         cf.assert %[[EQ1]], "gmm.ragged_dot at {{.*}}: rhs group dimension 0 and the number of groups in group_sizes differ"
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[N:.*]] = tensor.dim %[[RHS]], %[[C2]]
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[EQ2:.*]] = arith.cmpi eq, %[[N]], %[[C3]] : index
// CHECK:         cf.assert %[[EQ2]], "gmm.ragged_dot at {{.*}}: rhs dimension 2 and result dimension 1 differ"
// CHECK-NOT:     cf.assert
// CHECK:         gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]]
func.func @mode1(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?x?xf32>,
                 %gs: tensor<?xi32>) -> tensor<?x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?xi32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Batching dimensions, a batched group_sizes and an init: each pair once.
// CHECK-LABEL: func.func @batched_init
// CHECK-SAME:    (%[[LHS:.*]]: tensor<?x8x4xf32>, %[[RHS:.*]]: tensor<?x2x4x3xf32>, %[[GS:.*]]: tensor<?x2xi32>, %[[INIT:.*]]: tensor<?x8x3xf32>)
// CHECK:         cf.assert %{{.*}}, "gmm.ragged_dot at {{.*}}: lhs batching dimension 0 and rhs batching dimension 0 differ"
// CHECK:         cf.assert %{{.*}}, "gmm.ragged_dot at {{.*}}: group_sizes dimension 0 and lhs dimension 0 differ"
// CHECK:         tensor.dim %[[INIT]]
// CHECK:         cf.assert %{{.*}}, "gmm.ragged_dot at {{.*}}: lhs dimension 0 and init dimension 0 differ"
// CHECK-NOT:     cf.assert
// CHECK:         gmm.ragged_dot
func.func @batched_init(%lhs: tensor<?x8x4xf32>, %rhs: tensor<?x2x4x3xf32>,
                        %gs: tensor<?x2xi32>, %init: tensor<?x8x3xf32>)
    -> tensor<?x8x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs init(%init : tensor<?x8x3xf32>)
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [1]>
      : tensor<?x8x4xf32>, tensor<?x2x4x3xf32>, tensor<?x2xi32> -> tensor<?x8x3xf32>
  return %0 : tensor<?x8x3xf32>
}
