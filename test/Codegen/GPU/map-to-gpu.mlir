// gmm-map-to-gpu on the bufferized output of gmm-tile{target=gpu} and
// gmm-materialize-metadata: one block per tile visit and n-tile, operand
// tiles staged through shared memory with cp.async in two stages, warp
// contractions of m16n8k16 shape, an epilogue through shared memory, and
// the group metadata in one kernel of a thread per group (the parallel form
// that gmm-to-ptx uses), its buffers views of one device allocation.

// RUN: gmm-opt %s -split-input-file --gmm-normalize --gmm-configure=target=gpu --gmm-tile --gmm-materialize-metadata=parallel --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse \
// RUN:   --gmm-map-to-gpu=convert-mma=0 | FileCheck %s
// RUN: gmm-opt %s -split-input-file --gmm-normalize --gmm-configure=target=gpu --gmm-tile --gmm-materialize-metadata=parallel --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse \
// RUN:   --gmm-map-to-gpu | FileCheck %s --check-prefix=MMA
// RUN: gmm-opt %s -split-input-file --gmm-normalize --gmm-configure="target=gpu tile-m=32 tile-n=32 tile-k=16" --gmm-tile --gmm-materialize-metadata=parallel --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse \
// RUN:   --gmm-map-to-gpu | FileCheck %s --check-prefix=SMALL

// CHECK-LABEL: func.func @bf16
// The result lives in device memory; it is not filled (the tile kernel's
// fill visits zero the rows no visit covers).
// The host's gpu ops are synchronous here (gmm-gpu-async-host chains them
// later).
// CHECK-NOT:     gpu.wait
// CHECK:         %[[OUT:.+]] = gpu.alloc () : memref<1x1x256x96xbf16>
// CHECK-NOT:     gpu.memset
// The group bounds and the visit schedule, in views of one workspace
// (gmm-gpu-merge-allocations): one kernel of a thread per group, blocks of
// 128, which also writes the visit count.
// CHECK:         %[[WS:.+]] = gpu.alloc (%{{.+}}) : memref<?xi8>
// CHECK:         %[[COUNT:.+]] = memref.view %[[WS]][%{{.+}}][] : memref<?xi8> to memref<1xindex>
// CHECK:         gpu.launch blocks(%{{.+}}) in (%{{.+}}) threads(%{{.+}}) in (%{{.+}} = %c128{{.*}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}})
// CHECK:           %[[CS:.+]] = memref.subview %[[COUNT]][0] [%{{.+}}] [1]
// CHECK:           memref.store %{{.+}}, %[[CS]][%{{.+}}]
// CHECK:         } {gmm.kernel = "metadata"}
// CHECK-NOT:     gmm.kernel = "serial"
// The tile kernel: 256 threads and a 33792-byte workgroup buffer; the
// visit count comes from the device. A grid of no blocks (no visit, e.g. no
// local groups) is not launched.
// CHECK:         %[[ANY:.+]] = arith.cmpi ne, %[[GRID:.+]], %c0{{.*}} : index
// CHECK:         scf.if %[[ANY]] {
// CHECK:         gpu.launch blocks(%{{.+}}) in (%{{.+}} = %[[GRID]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%[[TX:[a-z0-9]+]], %{{.+}}) in (%{{.+}} = %c256{{.*}}, %{{.+}}) workgroup(%[[SMEM:.+]] : memref<33792xi8, #gpu.address_space<workgroup>>)
// CHECK:           %[[N:.+]] = memref.load %[[COUNT]][%{{.+}}] : memref<1xindex>
// CHECK:           arith.cmpi ult, %{{.+}}, %[[N]] : index
// Two stages of the lhs tile (128 x 32) and the rhs tile (32 x 128), rows
// unpadded (gmm-gpu-swizzle-shared-memory permutes their chunks in the full
// pipeline): one bf16 view each, written by the copies and read by the
// math.
// CHECK:           %[[A:.+]] = memref.view %[[SMEM]][%{{.+}}][] {gmm.swizzle} : memref<33792xi8, #gpu.address_space<workgroup>> to memref<2x128x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT:       memref.view
// CHECK:           %[[B:.+]] = memref.view %[[SMEM]][%{{.+}}][] {gmm.swizzle} : memref<33792xi8, #gpu.address_space<workgroup>> to memref<2x32x128xbf16, #gpu.address_space<workgroup>>
// Prologue: step 0 into stage 0, 16 bytes per copy, zero-filled past the
// operands' ends.
// CHECK:           nvgpu.device_async_copy %{{.+}}, %[[A]][%{{.+}}], 8, %{{.+}} {bypassL1} : memref<1x1x256x64xbf16> to memref<2x128x32xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_copy %{{.+}}, %[[B]][%{{.+}}], 8, %{{.+}} {bypassL1} : memref<1x4x64x96xbf16> to memref<2x32x128xbf16, #gpu.address_space<workgroup>>
// CHECK:           nvgpu.device_async_create_group
// The k loop: step j + 1 is copied while step j is computed.
// CHECK:           %[[ACC:.+]]:16 = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.*}}) -> (vector<16x8xf32>,
// CHECK:             nvgpu.device_async_copy
// CHECK:             %[[GROUP:.+]] = nvgpu.device_async_create_group
// CHECK:             nvgpu.device_async_wait %[[GROUP]] {numGroups = 1 : i32}
// CHECK:             gpu.barrier
// CHECK:             vector.transfer_read %[[A]][{{.*}}], %{{.+}} {in_bounds = [true, true]} : memref<2x128x32xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
// CHECK:             vector.transfer_read %[[B]][{{.*}}], %{{.+}} {in_bounds = [true, true]} : memref<2x32x128xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
// CHECK:             vector.contract {{.*}} : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK:             gpu.barrier
// CHECK:             scf.yield
// Epilogue: drain the copies, then per warp row: fragments to shared memory,
// 4-element chunks converted to bf16 and written to the visit's rows only.
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK:           %[[C:.+]] = memref.view %[[SMEM]][%{{.+}}][] : memref<33792xi8, #gpu.address_space<workgroup>> to memref<64x132xf32, #gpu.address_space<workgroup>>
// CHECK:           vector.transfer_write %[[ACC]]#0, %[[C]]
// CHECK:           gpu.barrier
// CHECK:           scf.if
// CHECK:             vector.transfer_read %[[C]]{{.*}} : memref<64x132xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
// CHECK:             arith.truncf %{{.+}} : vector<1x4xf32> to vector<1x4xbf16>
// CHECK:             vector.transfer_write %{{.+}} : vector<1x4xbf16>, memref<?x96xbf16, strided<[96, 1], offset: ?>>
// CHECK:         } {gmm.kernel = "tile"}
// Device buffers that do not leave the function are freed.
// CHECK:         gpu.dealloc
// CHECK:         return %{{.+}} : memref<256x96xbf16>

// bf16 stays bf16: ldmatrix reads the views the copies write, and the
// mma.sync ops take bf16 fragments (gmm-gpu-lower-bf16-mma-sync lowers them to
// NVVM later). No f16 appears anywhere.
// MMA-LABEL: func.func @bf16
// MMA-NOT:     {{(x| )f16}}
// MMA:         gpu.launch
// MMA:         } {gmm.kernel = "metadata"}
// MMA:         gpu.launch
// MMA:           %[[A:.+]] = memref.view %{{.+}} to memref<2x128x32xbf16, #gpu.address_space<workgroup>>
// MMA:           %[[B:.+]] = memref.view %{{.+}} to memref<2x32x128xbf16, #gpu.address_space<workgroup>>
// The copies write, and ldmatrix reads, chunk (c xor row bits) of a row:
// for the lhs rows of 64 bytes (two per 128-byte line), bits 1-2 of the row
// select which of the four chunks; for the rhs rows of 256 bytes, bits 0-2
// select which of eight.
// MMA:           %[[ROWA:.+]] = arith.shrui %{{.+}}, %c1{{(_[0-9]+)?}} : index
// MMA:           %[[KEYA:.+]] = arith.andi %[[ROWA]], %c3{{(_[0-9]+)?}} : index
// MMA:           %[[OFFA:.+]] = arith.shli %[[KEYA]], %c3{{(_[0-9]+)?}} : index
// MMA:           %[[COLA:.+]] = arith.xori %{{.+}}, %[[OFFA]] : index
// MMA:           nvgpu.device_async_copy %{{.+}}, %[[A]][%{{.+}}, %{{.+}}, %[[COLA]]], 8
// MMA:           scf.for
// MMA:             %[[FA:.+]] = nvgpu.ldmatrix %[[A]][{{.+}}] {numTiles = 4 : i32, transpose = false} : memref<2x128x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// MMA:             %[[FB:.+]] = nvgpu.ldmatrix %[[B]][{{.+}}] {numTiles = 2 : i32, transpose = true} : memref<2x32x128xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// MMA:             nvgpu.mma.sync(%[[FA]], %[[FB]], %{{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// MMA-NOT:         vector.contract
// MMA-NOT:         {{(x| )f16}}
// MMA:         } {gmm.kernel = "tile"}
// MMA-NOT:     {{(x| )f16}}
// MMA:         return
// The warps come from the configuration on the tile loop: a 32 x 32 x 16
// bf16 tile gets gmm-configure's 1 x 2 warps, 64 threads, and two stages of
// 32 x 16 and 16 x 32 bf16 (rows of two and four chunks, swizzled) in a
// 4608-byte buffer (the epilogue's 32 x 36 f32 is the larger use).
// SMALL-LABEL: func.func @bf16
// SMALL:         gpu.launch blocks({{.*}}) threads(%{{.+}}) in (%{{.+}} = %c64{{(_[0-9]+)?}}, %{{.+}} = %c1{{(_[0-9]+)?}}, %{{.+}} = %c1{{(_[0-9]+)?}}) function(@bf16_tile_32x32x16_w1x2_s2) workgroup(%{{.+}} : memref<4608xi8, #gpu.address_space<workgroup>>)
// SMALL:           nvgpu.mma.sync
// SMALL:         } {gmm.kernel = "tile"}
func.func @bf16(%lhs: tensor<256x64xbf16>, %rhs: tensor<4x64x96xbf16>, %gs: tensor<4xi32>) -> tensor<256x96xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<256x64xbf16>, tensor<4x64x96xbf16>, tensor<4xi32> -> tensor<256x96xbf16>
  return %0 : tensor<256x96xbf16>
}

// -----

// K = 6 is not a multiple of 8 elements: rows are not 16-byte aligned, so
// the lhs is staged with element loads (zero past the end), not cp.async;
// the weights, 16-byte aligned, still use cp.async.
// CHECK-LABEL: func.func @unaligned
// CHECK:         } {gmm.kernel = "tile"}
// MMA-LABEL: func.func @unaligned
// MMA:         gpu.launch
// MMA-NOT:       nvgpu.device_async_copy {{.*}} : memref<1x1x64x6xf16>
// MMA:           scf.if
// MMA:             memref.load %{{.+}} : memref<1x1x64x6xf16>
// MMA:           memref.store %{{.+}} : memref<2x128x32xf16, #gpu.address_space<workgroup>>
// MMA:           nvgpu.device_async_copy {{.*}} : memref<1x2x6x64xf16> to memref<2x32x128xf16, #gpu.address_space<workgroup>>
// MMA:         } {gmm.kernel = "tile"}
func.func @unaligned(%lhs: tensor<64x6xf16>, %rhs: tensor<2x6x64xf16>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x6xf16>, tensor<2x6x64xf16>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Constant operands are host globals: kernels read a device copy (in the
// workspace), which is freed after the last kernel.
// CHECK-LABEL: func.func @constants
// CHECK:         %[[G:.+]] = memref.get_global @{{.+}} : memref<1x2x32x48xbf16>
// CHECK:         %[[WS:.+]] = gpu.alloc (%{{.+}}) : memref<?xi8>
// CHECK:         %[[D:.+]] = memref.view %[[WS]][%{{.+}}][] : memref<?xi8> to memref<1x2x32x48xbf16>
// CHECK:         gpu.memcpy %[[D]], %[[G]] : memref<1x2x32x48xbf16>, memref<1x2x32x48xbf16>
// CHECK:         gpu.launch
// CHECK:         gpu.dealloc %[[WS]] : memref<?xi8>
func.func @constants(%lhs: tensor<64x32xbf16>, %gs: tensor<2xi32>) -> tensor<64x48xf32> {
  %rhs = arith.constant dense<1.0> : tensor<2x32x48xbf16>
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x32xbf16>, tensor<2x32x48xbf16>, tensor<2xi32> -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

// A mode-2 lhs [k, m] (the weight gradient's activations) is staged k-major
// and read with ldmatrix.x4.trans, whose middle two registers hold A's
// (rows 0-7, k 8-15) and (rows 8-15, k 0-7) blocks: they are swapped into
// mma.sync's A fragment order.
// MMA-LABEL: func.func @transposed_lhs
// MMA:         gpu.launch
// MMA:           scf.for
// MMA:             %[[A:.+]] = nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<2x32x128xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// MMA:             %[[ORDERED:.+]] = vector.shuffle %[[A]], %[[A]] [0, 2, 1, 3] : vector<4x2xbf16>, vector<4x2xbf16>
// MMA:             nvgpu.mma.sync(%[[ORDERED]], %{{.+}}, %{{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @transposed_lhs(%lhs: tensor<64x96xbf16>, %rhs: tensor<64x48xbf16>, %gs: tensor<4xi32>) -> tensor<4x96x48xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<64x96xbf16>, tensor<64x48xbf16>, tensor<4xi32> -> tensor<4x96x48xf32>
  return %0 : tensor<4x96x48xf32>
}
