// RUN: gmm-opt %s -split-input-file --gmm-to-cpu --mlir-print-ir-after=convert-bufferization-to-memref 2>&1 >/dev/null | FileCheck %s

// A result written into an output buffer (how gmm.jax and embedding
// compilers call gmm) is computed in that buffer: gmm-forward-destinations
// and empty-tensor elimination make the tile program's destination a view
// of the output argument, so no result buffer is allocated and nothing is
// copied into the output (the only copy left is of index metadata). The
// buffers allocated per visit are the packed panels and accumulators.

// CHECK-LABEL: func.func @mode1
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<64x48xf32>
// CHECK:         %[[VIEW:.+]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 64, 48]
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%[[VIEW]] : memref<1x1x64x48xf32>)
// CHECK-NOT:     memref.copy {{.*}}f32
// CHECK:         scf.forall
// CHECK:           memref.alloc() {{.*}} : memref<8x257x16xf32>
// CHECK:           memref.alloc() {{.*}} : memref<8x96x16xf32>
// CHECK-NOT:     memref.copy {{.*}}f32
// CHECK:         return
func.func @mode1(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %gs: tensor<4xi32>, %out: memref<64x48xf32>) {
  %r = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [96, 128, 256], register_block = [6, 16]>} : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<64x48xf32>, memref<64x48xf32>) -> ()
  return
}

// -----

// Mode 2 writes every element: the output is not zero-filled either.

// CHECK-LABEL: func.func @mode2
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<4x32x48xf32>
// CHECK:         %[[VIEW:.+]] = memref.expand_shape %[[OUT]]
// CHECK-NOT:     linalg.fill {{.*}} outs(%[[VIEW]]
// CHECK-NOT:     memref.copy {{.*}}f32
// CHECK:         scf.forall
// CHECK:           memref.subview %[[VIEW]]
// CHECK-NOT:     memref.copy {{.*}}f32
// CHECK:         return
func.func @mode2(%x: tensor<64x32xf32>, %dy: tensor<64x48xf32>, %gs: tensor<4xi32>, %out: memref<4x32x48xf32>) {
  %r = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0], rhs_group_dimensions = []> : tensor<64x32xf32>, tensor<64x48xf32>, tensor<4xi32> -> tensor<4x32x48xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<4x32x48xf32>, memref<4x32x48xf32>) -> ()
  return
}

// -----

// Dynamic sizes: the view of the output takes its sizes from the output
// buffer, so the result is computed in place here too.

// CHECK-LABEL: func.func @mode1_dynamic
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x48xf32>
// CHECK:         %[[N:.+]] = memref.dim %[[OUT]]
// CHECK:         %[[VIEW:.+]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1, 2], [3]] output_shape [1, 1, %[[N]], 48]
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%[[VIEW]] : memref<1x1x?x48xf32>)
// CHECK-NOT:     memref.copy {{.*}}f32
// CHECK:         return
func.func @mode1_dynamic(%lhs: tensor<?x32xf32>, %rhs: tensor<4x32x48xf32>, %gs: tensor<4xi32>, %out: memref<?x48xf32>) {
  %r = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<?x48xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<?x48xf32>, memref<?x48xf32>) -> ()
  return
}
