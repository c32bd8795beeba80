// gmm-map-to-gpu keeps gmm-check-sizes' run-time checks on the host: a
// cf.assert of sizes read from buffer descriptors is not moved into a
// single-thread kernel, so a failed check stops the call before any kernel
// is launched.
// RUN: gmm-opt %s --gmm-check-sizes --gmm-normalize --gmm-configure=target=gpu --gmm-tile --gmm-materialize-metadata --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse \
// RUN:   --gmm-map-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @dynamic_k
// CHECK-SAME:    (%[[LHS:.*]]: memref<64x?xbf16>, %[[RHS:.*]]: memref<4x?x48xbf16>
// CHECK:         %[[K1:.*]] = memref.dim %[[LHS]], %{{.*}} : memref<64x?xbf16>
// CHECK:         %[[K2:.*]] = memref.dim %[[RHS]], %{{.*}} : memref<4x?x48xbf16>
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[K1]], %[[K2]] : index
// CHECK-NOT:     gpu.launch
// CHECK:         cf.assert %[[EQ]], "gmm.ragged_dot at {{.*}}host-checks.mlir:{{[0-9]+}}:8: lhs contracting dimension 1 and rhs contracting dimension 1 differ"
// CHECK:         gpu.launch
// CHECK-NOT:     cf.assert
// CHECK:         return
func.func @dynamic_k(%lhs: tensor<64x?xbf16>, %rhs: tensor<4x?x48xbf16>, %gs: tensor<4xi32>) -> tensor<64x48xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x?xbf16>, tensor<4x?x48xbf16>, tensor<4xi32> -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}
