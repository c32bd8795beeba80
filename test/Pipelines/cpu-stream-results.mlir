// gmm-to-cpu writes results of at least stream-min-bytes (16 MiB by
// default) with streaming stores where their address is aligned, and fences
// each visit; smaller results, and any with stream-min-bytes=0, with plain
// stores.
// RUN: gmm-opt %s -split-input-file --gmm-to-cpu | FileCheck %s
// RUN: gmm-opt %s -split-input-file --gmm-to-cpu=stream-min-bytes=0 | FileCheck %s --check-prefix=NEVER
// RUN: gmm-opt %s -split-input-file --gmm-to-cpu=stream-min-bytes=1 | FileCheck %s --check-prefix=ALWAYS
// RUN: not gmm-opt %s --gmm-to-cpu=stream-min-bytes=-5 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEVER-NOT: nontemporal
// NEVER-NOT: llvm.fence
// NEGATIVE: gmm-opt: error: pass pipeline: for the --stream-min-bytes option: '-5' value invalid for ulong argument!

// A weight gradient of 64 x 1024 x 1024 f32 (256 MiB): its stores stream.

// CHECK-LABEL: llvm.func @mode2_large
// CHECK:         llvm.store %{{.+}}, %{{.+}} {alignment = 64 : i64, nontemporal} : vector<32xf32>, !llvm.ptr
// CHECK:         llvm.fence seq_cst
// ALWAYS-LABEL: llvm.func @mode2_large
// ALWAYS:         llvm.store {{.*}}nontemporal
func.func @mode2_large(%x: tensor<4096x1024xf32>, %dy: tensor<4096x1024xf32>, %gs: tensor<64xi32>, %out: memref<64x1024x1024xf32>) {
  %r = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [224, 256, 256], register_block = [14, 32]>} : tensor<4096x1024xf32>, tensor<4096x1024xf32>, tensor<64xi32> -> tensor<64x1024x1024xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<64x1024x1024xf32>, memref<64x1024x1024xf32>) -> ()
  return
}

// -----

// A forward result of 64 x 1024 f32 (256 KiB) is written with plain stores,
// unless every result streams.

// CHECK-LABEL: llvm.func @mode1_small
// CHECK-NOT:     nontemporal
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.return
// ALWAYS-LABEL: llvm.func @mode1_small
// ALWAYS:         llvm.store %{{.+}}, %{{.+}} {alignment = 64 : i64, nontemporal} : vector<32xf32>, !llvm.ptr
// ALWAYS:         llvm.fence seq_cst
func.func @mode1_small(%lhs: tensor<64x512xf32>, %rhs: tensor<4x512x1024xf32>, %gs: tensor<4xi32>, %out: memref<64x1024xf32>) {
  %r = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [224, 256, 256], register_block = [14, 32]>} : tensor<64x512xf32>, tensor<4x512x1024xf32>, tensor<4xi32> -> tensor<64x1024xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<64x1024xf32>, memref<64x1024xf32>) -> ()
  return
}
