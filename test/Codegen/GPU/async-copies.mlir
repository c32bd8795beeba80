// gmm-gpu-async-copies alone: upstream's nvgpu::createAsyncGroups on each
// gpu.launch turns the 1-D global-to-workgroup vector copies into
// nvgpu.device_async_copy, each run of them one group waited for right
// after it; the replaced reads and masks are erased.
// RUN: gmm-opt %s -split-input-file --gmm-gpu-async-copies | FileCheck %s

// gmm-gpu-promote-operands's staging of a bf16 lhs (16-byte chunks, masked by the
// elements left) and an f32 rhs (4 elements, 16 bytes, unmasked): one run of
// two copies, L1 bypassed, the mask's count as the source elements; the
// element-wise copy after the next op with memory effects is not a vector
// copy and stays, as do the copy out of workgroup memory and the 8-byte
// transfer of a register value.
// CHECK-LABEL: func.func @staging(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: memref<64x32xbf16>, %[[B:[a-z0-9]+]]: memref<32x64xf32>, %[[OUT:[a-z0-9]+]]: memref<64xf32>, %[[N:[a-z0-9]+]]: index)
// CHECK:         gpu.launch
// CHECK:           %[[SA:.+]] = memref.alloc() : memref<2x64x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[SB:.+]] = memref.alloc() : memref<2x32x36xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:       vector.create_mask
// CHECK-NOT:       vector.transfer_read
// CHECK:           %[[TA:.+]] = nvgpu.device_async_copy %[[A]][%[[TX:.+]], %{{.+}}], %[[SA]][%{{.+}}, %[[TX]], %{{.+}}], 8, %[[N]] {bypassL1} : memref<64x32xbf16> to memref<2x64x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[TB:.+]] = nvgpu.device_async_copy %[[B]][%[[TX]], %{{.+}}], %[[SB]][%{{.+}}, %[[TX]], %{{.+}}], 4 {bypassL1} : memref<32x64xf32> to memref<2x32x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[G:.+]] = nvgpu.device_async_create_group %[[TA]], %[[TB]]
// CHECK-NEXT:      nvgpu.device_async_wait %[[G]]
// CHECK-NEXT:      %[[X:.+]] = memref.load %[[B]]
// CHECK-NEXT:      memref.store %[[X]], %[[SB]]
// CHECK-NEXT:      %[[Y:.+]] = vector.transfer_read %[[SB]]
// CHECK-NEXT:      vector.transfer_write %[[Y]], %[[OUT]]
// CHECK-NEXT:      vector.transfer_write %{{.+}}, %[[SB]]{{.+}} : vector<2xf32>
// CHECK-NOT:       nvgpu.device_async
// CHECK:           gpu.terminator
func.func @staging(%a: memref<64x32xbf16>, %b: memref<32x64xf32>, %out: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zb = arith.constant 0.0 : bf16
    %zf = arith.constant 0.0 : f32
    %two = arith.constant dense<1.0> : vector<2xf32>
    %sa = memref.alloc() : memref<2x64x16xbf16, #gpu.address_space<workgroup>>
    %sb = memref.alloc() : memref<2x32x36xf32, #gpu.address_space<workgroup>>
    %m = vector.create_mask %n : vector<8xi1>
    %va = vector.transfer_read %a[%tx, %c8], %zb, %m {in_bounds = [true]} : memref<64x32xbf16>, vector<8xbf16>
    vector.transfer_write %va, %sa[%c1, %tx, %c8] {in_bounds = [true]} : vector<8xbf16>, memref<2x64x16xbf16, #gpu.address_space<workgroup>>
    %vb = vector.transfer_read %b[%tx, %c8], %zf {in_bounds = [true]} : memref<32x64xf32>, vector<4xf32>
    vector.transfer_write %vb, %sb[%c1, %tx, %c8] {in_bounds = [true]} : vector<4xf32>, memref<2x32x36xf32, #gpu.address_space<workgroup>>
    %x = memref.load %b[%tx, %c0] : memref<32x64xf32>
    memref.store %x, %sb[%c0, %tx, %c0] : memref<2x32x36xf32, #gpu.address_space<workgroup>>
    %y = vector.transfer_read %sb[%c0, %tx, %c0], %zf {in_bounds = [true]} : memref<2x32x36xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.transfer_write %y, %out[%c0] {in_bounds = [true]} : vector<4xf32>, memref<64xf32>
    vector.transfer_write %two, %sb[%c0, %tx, %c8] {in_bounds = [true]} : vector<2xf32>, memref<2x32x36xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Outside a gpu.launch nothing changes.
// CHECK-LABEL: func.func @host(
// CHECK:         vector.transfer_read
// CHECK-NEXT:    vector.transfer_write
// CHECK-NOT:     nvgpu.device_async_copy
func.func @host(%a: memref<64xf32>, %s: memref<64xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0], %z {in_bounds = [true]} : memref<64xf32>, vector<4xf32>
  vector.transfer_write %v, %s[%c0] {in_bounds = [true]} : vector<4xf32>, memref<64xf32, #gpu.address_space<workgroup>>
  return
}
