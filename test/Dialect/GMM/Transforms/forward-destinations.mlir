// RUN: gmm-opt %s -split-input-file -gmm-forward-destinations | FileCheck %s
// RUN: gmm-opt %s -split-input-file -gmm-forward-destinations -eliminate-empty-tensors | FileCheck %s --check-prefix=ELIM

// A collapsed result materialized in a plain buffer is materialized
// uncollapsed in the buffer's expanded view; empty-tensor elimination then
// reaches the empty tensor the result was computed in, which becomes the
// output buffer itself.

// CHECK-LABEL: func.func @static
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<8x4xf32>
// CHECK:         %[[FILL:.+]] = linalg.fill {{.*}} -> tensor<8x1x4xf32>
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[VIEW:.+]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [8, 1, 4] : memref<8x4xf32> into memref<8x1x4xf32>
// CHECK:         bufferization.materialize_in_destination %[[FILL]] in restrict writable %[[VIEW]] : (tensor<8x1x4xf32>, memref<8x1x4xf32>) -> ()
// ELIM-LABEL: func.func @static
// ELIM-SAME:    %[[OUT:[a-z0-9]+]]: memref<8x4xf32>
// ELIM:         %[[VIEW:.+]] = memref.expand_shape %[[OUT]]
// ELIM:         %[[DEST:.+]] = bufferization.to_tensor %[[VIEW]] restrict writable
// ELIM:         linalg.fill {{.*}} outs(%[[DEST]] : tensor<8x1x4xf32>)
func.func @static(%out: memref<8x4xf32>) {
  %c = arith.constant 1.0 : f32
  %0 = tensor.empty() : tensor<8x1x4xf32>
  %1 = linalg.fill ins(%c : f32) outs(%0 : tensor<8x1x4xf32>) -> tensor<8x1x4xf32>
  %2 = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<8x1x4xf32> into tensor<8x4xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<8x4xf32>, memref<8x4xf32>) -> ()
  return
}

// -----

// Dynamic sizes come from the buffer, not from the value that fills it
// (so that the view can be made before that value is computed).

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    %[[T:[a-z0-9]+]]: tensor<?x1x4xf32>, %[[OUT:[a-z0-9]+]]: memref<?x4xf32>
// CHECK:         %[[N:.+]] = memref.dim %[[OUT]], %{{.+}} : memref<?x4xf32>
// CHECK:         %[[VIEW:.+]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [%[[N]], 1, 4] : memref<?x4xf32> into memref<?x1x4xf32>
// CHECK:         bufferization.materialize_in_destination %[[T]] in writable %[[VIEW]]
func.func @dynamic(%t: tensor<?x1x4xf32>, %out: memref<?x4xf32>) {
  %0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<?x1x4xf32> into tensor<?x4xf32>
  bufferization.materialize_in_destination %0 in writable %out : (tensor<?x4xf32>, memref<?x4xf32>) -> ()
  return
}

// -----

// Left alone: a buffer with a layout of its own, a tensor destination, a
// result that is not collapsed, a static size against a dynamic one (the
// materialization takes it, an expand_shape would not), and a group of the
// collapse with two dynamic sizes.

// CHECK-LABEL: func.func @static_into_dynamic
// CHECK:         tensor.collapse_shape
// CHECK-NOT:     memref.expand_shape
func.func @static_into_dynamic(%t: tensor<8x1x4xf32>, %out: memref<?x4xf32>) {
  %0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<8x1x4xf32> into tensor<8x4xf32>
  bufferization.materialize_in_destination %0 in restrict writable %out : (tensor<8x4xf32>, memref<?x4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @dynamic_into_static
// CHECK:         tensor.collapse_shape
// CHECK-NOT:     memref.expand_shape
func.func @dynamic_into_static(%t: tensor<?x1x4xf32>, %out: memref<8x4xf32>) {
  %0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<?x1x4xf32> into tensor<?x4xf32>
  bufferization.materialize_in_destination %0 in restrict writable %out : (tensor<?x4xf32>, memref<8x4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @two_dynamic_in_a_group
// CHECK:         tensor.collapse_shape
// CHECK-NOT:     memref.expand_shape
func.func @two_dynamic_in_a_group(%t: tensor<?x?x4xf32>, %out: memref<?x4xf32>) {
  %0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<?x?x4xf32> into tensor<?x4xf32>
  bufferization.materialize_in_destination %0 in restrict writable %out : (tensor<?x4xf32>, memref<?x4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @strided
// CHECK:         tensor.collapse_shape
// CHECK:         bufferization.materialize_in_destination %{{.+}} in restrict writable %{{.+}} : (tensor<8x4xf32>, memref<8x4xf32, strided<[8, 1]>>)
func.func @strided(%t: tensor<8x1x4xf32>, %out: memref<8x4xf32, strided<[8, 1]>>) {
  %0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<8x1x4xf32> into tensor<8x4xf32>
  bufferization.materialize_in_destination %0 in restrict writable %out : (tensor<8x4xf32>, memref<8x4xf32, strided<[8, 1]>>) -> ()
  return
}

// CHECK-LABEL: func.func @tensor_destination
// CHECK:         %[[C:.+]] = tensor.collapse_shape
// CHECK:         bufferization.materialize_in_destination %[[C]] in %{{.+}} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
func.func @tensor_destination(%t: tensor<8x1x4xf32>, %d: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<8x1x4xf32> into tensor<8x4xf32>
  %1 = bufferization.materialize_in_destination %0 in %d : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @not_collapsed
// CHECK-NOT:     memref.expand_shape
// CHECK:         bufferization.materialize_in_destination %{{.+}} in restrict writable %{{.+}} : (tensor<8x4xf32>, memref<8x4xf32>)
func.func @not_collapsed(%t: tensor<8x4xf32>, %out: memref<8x4xf32>) {
  bufferization.materialize_in_destination %t in restrict writable %out : (tensor<8x4xf32>, memref<8x4xf32>) -> ()
  return
}
