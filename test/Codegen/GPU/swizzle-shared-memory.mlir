// gmm-gpu-swizzle-shared-memory: every access to a workgroup view marked
// gmm.swizzle has its 16-byte chunk index permuted by its row:
// col' = col xor (((row >> log2(rowsPerLine)) & (period - 1)) << log2(chunk)).
// Unmarked views are left alone; an access the permutation cannot follow is
// an error before anything is rewritten.

// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-swizzle-shared-memory | FileCheck %s

// Rows of 32 bf16 (64 bytes, four chunks): two rows share a 128-byte line,
// so row bits 1-2 pick the chunk permutation: shift 1, mask 3, chunk 8.
// CHECK-LABEL: func.func @rows_of_four_chunks(
// CHECK-SAME:      %{{[a-z0-9]+}}: memref<64x64xbf16>, %[[R:[a-z0-9]+]]: index, %[[COL:[a-z0-9]+]]: index
// The row's offset is computed once (here at the start of the launch, the
// row coming from outside it) and every access XORs its column with it.
// CHECK:         gpu.launch
// CHECK-NEXT:      %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:       %[[L:.+]] = arith.shrui %[[R]], %[[C1]] : index
// CHECK:           %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:       %[[K:.+]] = arith.andi %[[L]], %[[C3]] : index
// CHECK:           %[[C3B:.+]] = arith.constant 3 : index
// CHECK-DAG:       %[[O:.+]] = arith.shli %[[K]], %[[C3B]] : index
// CHECK:           %[[V:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<2x32x32xbf16, #gpu.address_space<workgroup>>
// The cp.async destination, the element-wise store and the ldmatrix.
// CHECK-DAG:       %[[X1:.+]] = arith.xori %[[COL]], %[[O]] : index
// CHECK:           nvgpu.device_async_copy %{{.+}}[%{{.+}}, %{{.+}}], %[[V]][%{{.+}}, %[[R]], %[[X1]]], 8
// CHECK-DAG:       %[[X2:.+]] = arith.xori %[[COL]], %[[O]] : index
// CHECK:           memref.store %{{.+}}, %[[V]][%{{.+}}, %[[R]], %[[X2]]]
// CHECK-DAG:       %[[X3:.+]] = arith.xori %[[COL]], %[[O]] : index
// CHECK:           nvgpu.ldmatrix %[[V]][%{{.+}}, %[[R]], %[[X3]]] {numTiles = 4 : i32, transpose = false}
// The unmarked view is not permuted, and no mark is left.
// CHECK-NOT:       arith.xori
// CHECK-NOT:       gmm.swizzle
// CHECK:           memref.store %{{.+}}, %{{.+}}[%[[R]], %[[COL]]] : memref<32x32xf32, #gpu.address_space<workgroup>>
func.func @rows_of_four_chunks(%src: memref<64x64xbf16>, %r: index, %col: index, %x: bf16, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4096xi8, #gpu.address_space<workgroup>>) {
    %v = memref.view %smem[%c0][] {gmm.swizzle} : memref<4096xi8, #gpu.address_space<workgroup>> to memref<2x32x32xbf16, #gpu.address_space<workgroup>>
    %t = nvgpu.device_async_copy %src[%r, %col], %v[%c0, %r, %col], 8 : memref<64x64xbf16> to memref<2x32x32xbf16, #gpu.address_space<workgroup>>
    memref.store %x, %v[%c1, %r, %col] : memref<2x32x32xbf16, #gpu.address_space<workgroup>>
    %frag = nvgpu.ldmatrix %v[%c0, %r, %col] {numTiles = 4 : i32, transpose = false} : memref<2x32x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    %w = memref.view %smem[%c0][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<32x32xf32, #gpu.address_space<workgroup>>
    memref.store %f, %w[%r, %col] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Rows of 128 bf16 (256 bytes, sixteen chunks): each row spans lines, so
// row bits 0-2 pick one of eight permutations: no shift, mask 7.
// CHECK-LABEL: func.func @rows_of_sixteen_chunks(
// CHECK-SAME:      %[[R:[a-z0-9]+]]: index
// CHECK-NOT:     arith.shrui
// CHECK:         %[[C7:.+]] = arith.constant 7 : index
// CHECK-DAG:     %[[K:.+]] = arith.andi %[[R]], %[[C7]] : index
// CHECK:         %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[O:.+]] = arith.shli %[[K]], %[[C3]] : index
// CHECK:         %[[X:.+]] = arith.xori %{{.+}}, %[[O]] : index
// CHECK-NEXT:    nvgpu.ldmatrix %{{.+}}[%{{.+}}, %[[R]], %[[X]]] {numTiles = 2 : i32, transpose = true}
func.func @rows_of_sixteen_chunks(%r: index, %col: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<16384xi8, #gpu.address_space<workgroup>>) {
    %v = memref.view %smem[%c0][] {gmm.swizzle} : memref<16384xi8, #gpu.address_space<workgroup>> to memref<2x32x128xbf16, #gpu.address_space<workgroup>>
    %frag = nvgpu.ldmatrix %v[%c0, %r, %col] {numTiles = 2 : i32, transpose = true} : memref<2x32x128xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
    gpu.terminator
  }
  return
}

// -----

// A vector read may span chunks that the permutation separates.
func.func @vector_read(%r: index, %col: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : bf16
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4096xi8, #gpu.address_space<workgroup>>) {
    // expected-note @+1 {{the view}}
    %v = memref.view %smem[%c0][] {gmm.swizzle} : memref<4096xi8, #gpu.address_space<workgroup>> to memref<2x32x32xbf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'vector.transfer_read' op accesses a swizzled shared-memory view in a way the permutation cannot follow (expected nvgpu.ldmatrix, an nvgpu.device_async_copy into it, memref.load or memref.store)}}
    %x = vector.transfer_read %v[%c0, %r, %col], %pad {in_bounds = [true, true]} : memref<2x32x32xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
    gpu.terminator
  }
  return
}

// -----

// Rows of 24 bf16 are not a power of two of chunks.
func.func @odd_rows() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4096xi8, #gpu.address_space<workgroup>>) {
    // expected-error @+1 {{'memref.view' op gmm-gpu-swizzle-shared-memory expects a static view whose rows are a power of two of at least two 16-byte chunks}}
    %v = memref.view %smem[%c0][] {gmm.swizzle} : memref<4096xi8, #gpu.address_space<workgroup>> to memref<2x32x24xbf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
