// RUN: gmm-opt %s -split-input-file -gmm-aot-shape-functions | FileCheck %s

// Static sizes: nothing to check, the result's sizes are constants.
// CHECK-LABEL: func.func @static(
// CHECK-LABEL: func.func @static_shapes(
// CHECK-SAME: %{{.*}}: tensor<64x32xf32>, %{{.*}}: tensor<4x32x48xf32>, %{{.*}}: tensor<4xi32>, %[[OUT:.*]]: memref<3xi64>)
// CHECK-SAME: attributes {gmm.aot_shapes_of = @static}
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 48 : i64
// CHECK-NOT: gmm.ragged_dot
// CHECK-DAG: memref.store %[[ONE]], %[[OUT]][%{{.*}}]
// CHECK-DAG: memref.store %[[M]], %[[OUT]][%{{.*}}]
// CHECK-DAG: memref.store %[[N]], %[[OUT]][%{{.*}}]
// CHECK: return
func.func @static(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>,
                  %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

// A dynamic contracting size on both operands must agree; the result's
// rows are the lhs's.
// CHECK-LABEL: func.func @dynamic_shapes(
// CHECK-SAME: %[[LHS:.*]]: tensor<?x?xf32>, %[[RHS:.*]]: tensor<4x?x24xf32>, %{{.*}}: tensor<4xi32>, %[[OUT:.*]]: memref<3xi64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 24 : i64
// CHECK-DAG: %[[K1:.*]] = tensor.dim %[[LHS]], %[[C1]]
// CHECK-DAG: %[[K2:.*]] = tensor.dim %[[RHS]], %[[C1]]
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[K1]], %[[K2]]
// CHECK: %[[VALID:.*]] = arith.extui %[[EQ]] : i1 to i64
// CHECK: memref.store %[[VALID]], %[[OUT]][%[[C0]]]
// CHECK: %[[M:.*]] = tensor.dim %[[LHS]], %[[C0]]
// CHECK: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK: memref.store %[[M64]], %[[OUT]][%[[C1]]]
// CHECK: memref.store %[[N]], %[[OUT]][%[[C2]]]
// CHECK-NOT: gmm.ragged_dot
// CHECK: return
func.func @dynamic(%lhs: tensor<?x?xf32>, %rhs: tensor<4x?x24xf32>,
                   %sizes: tensor<4xi32>) -> tensor<?x24xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<4x?x24xf32>, tensor<4xi32> -> tensor<?x24xf32>
  return %0 : tensor<?x24xf32>
}

// -----

// A memref argument (a buffer the function writes) and two results, one of
// them an argument passed through; the computation that writes the memref
// is not the sizes' and goes. Private functions get no shape function.
// CHECK-LABEL: func.func private @helper(
// CHECK-NOT: @helper_shapes
// CHECK-LABEL: func.func @two_results_shapes(
// CHECK-SAME: %[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<4xi64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[DA:.*]] = tensor.dim %[[A]], %[[C0]]
// CHECK-DAG: %[[DB:.*]] = memref.dim %[[B]], %[[C0]]
// CHECK-NOT: linalg.fill
// CHECK: return
func.func private @helper(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  return %a : tensor<?x8xf32>
}
func.func @two_results(%a: tensor<?x8xf32>, %b: memref<?xf32>)
    -> (tensor<?x8xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%b : memref<?xf32>)
  %n = memref.dim %b, %c0 : memref<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  return %a, %e : tensor<?x8xf32>, tensor<?xf32>
}
