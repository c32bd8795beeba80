// RUN: gmm-opt %s -split-input-file -gmm-aot-destination-results | FileCheck %s

// CHECK-LABEL: func.func @moe(
// CHECK-SAME: %[[LHS:.*]]: tensor<?x32xf32>, %[[RHS:.*]]: tensor<4x32x48xf32>, %[[GS:.*]]: tensor<4xi32>,
// CHECK-SAME: %[[OUT:.*]]: memref<?x48xf32> {gmm.aot_result = 0 : i64}) {
// CHECK: %[[R:.*]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]]
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]] : (tensor<?x48xf32>, memref<?x48xf32>) -> ()
// CHECK-NEXT: return{{$}}
func.func @moe(%lhs: tensor<?x32xf32>, %rhs: tensor<4x32x48xf32>,
               %gs: tensor<4xi32>) -> tensor<?x48xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<?x48xf32>
  return %0 : tensor<?x48xf32>
}

// -----

// Two results, one an argument passed through (copied into its buffer);
// private functions and functions without results are left alone.
// CHECK-LABEL: func.func private @helper(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @no_results(%{{.*}}: memref<4xf32>) {
// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<2x2xbf16>,
// CHECK-SAME: %[[OUT0:.*]]: memref<2x2xbf16> {gmm.aot_result = 0 : i64},
// CHECK-SAME: %[[OUT1:.*]]: memref<4xf32> {gmm.aot_result = 1 : i64}) {
// CHECK: bufferization.materialize_in_destination %[[B]] in restrict writable %[[OUT0]]
// CHECK: bufferization.materialize_in_destination %[[A]] in restrict writable %[[OUT1]]
// CHECK-NEXT: return{{$}}
func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @no_results(%m: memref<4xf32>) {
  return
}
func.func @two(%a: tensor<4xf32>, %b: tensor<2x2xbf16>)
    -> (tensor<2x2xbf16>, tensor<4xf32>) {
  return %b, %a : tensor<2x2xbf16>, tensor<4xf32>
}
