// gmm-gpu-lower-kernel-vectors lowers the vector ops of every gpu.launch
// (contractions, transposes, n-D and masked transfers) to 1-D loads, stores
// and FMAs; vector ops outside launches are left alone, and a transfer it
// cannot lower is an error at its launch.
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-lower-kernel-vectors | FileCheck %s
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-lower-kernel-vectors | FileCheck %s --check-prefix=KERNEL

// No contraction, transfer or transpose is left in either launch.
// KERNEL-LABEL: func.func @contract
// KERNEL:         gpu.launch
// KERNEL-NOT:       vector.{{contract|outerproduct|transfer_read|transfer_write|transpose}}
// KERNEL:           gpu.terminator
// KERNEL-LABEL: func.func @masked
// KERNEL:         gpu.launch
// KERNEL-NOT:       vector.{{contract|outerproduct|transfer_read|transfer_write|transpose}}
// KERNEL:           gpu.terminator

// An outer-product shaped f32 contraction on workgroup memory becomes one
// FMA per row of the result: 1-D loads of the 4x1 column, the 1x4 row and
// the accumulator's rows, FMAs of the broadcast column elements, 1-D stores.
// The host's transfer and transpose stay as they are.
// CHECK-LABEL: func.func @contract
// CHECK-SAME:    (%[[HOST:.+]]: memref<4x4xf32>)
// CHECK:         %[[HV:.+]] = vector.transfer_read %[[HOST]]
// CHECK-NEXT:    %[[HT:.+]] = vector.transpose %[[HV]], [1, 0]
// CHECK-NEXT:    gpu.launch
// CHECK:           %[[VIEW:.+]] = memref.view
// CHECK:           %[[A0:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<1xf32>
// CHECK:           %[[A1:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<1xf32>
// CHECK:           %[[A2:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<1xf32>
// CHECK:           %[[A3:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<1xf32>
// CHECK:           %[[B:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           %[[C0:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           %[[C1:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           %[[C2:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           %[[C3:.+]] = vector.load %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           %[[E0:.+]] = vector.extract %[[A0]][0] : f32 from vector<1xf32>
// CHECK:           %[[S0:.+]] = vector.broadcast %[[E0]] : f32 to vector<4xf32>
// CHECK:           %[[F0:.+]] = vector.fma %[[S0]], %[[B]], %[[C0]] : vector<4xf32>
// CHECK:           vector.extract %[[A1]][0]
// CHECK:           vector.broadcast
// CHECK:           %[[F1:.+]] = vector.fma %{{.+}}, %[[B]], %[[C1]] : vector<4xf32>
// CHECK:           vector.extract %[[A2]][0]
// CHECK:           vector.broadcast
// CHECK:           %[[F2:.+]] = vector.fma %{{.+}}, %[[B]], %[[C2]] : vector<4xf32>
// CHECK:           vector.extract %[[A3]][0]
// CHECK:           vector.broadcast
// CHECK:           %[[F3:.+]] = vector.fma %{{.+}}, %[[B]], %[[C3]] : vector<4xf32>
// CHECK:           vector.store %[[F0]], %[[VIEW]][{{.+}}] : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:           vector.store %[[F1]], %[[VIEW]]
// CHECK:           vector.store %[[F2]], %[[VIEW]]
// CHECK:           vector.store %[[F3]], %[[VIEW]]
// CHECK:           gpu.terminator
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[HT]]
#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>
func.func @contract(%host: memref<4x4xf32>) -> vector<4x4xf32> {
  %c1 = arith.constant 1 : index
  %h0 = arith.constant 0 : index
  %hf = arith.constant 0.0 : f32
  %hv = vector.transfer_read %host[%h0, %h0], %hf : memref<4x4xf32>, vector<4x4xf32>
  %ht = vector.transpose %hv, [1, 0] : vector<4x4xf32> to vector<4x4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) workgroup(%wg : memref<256xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %f0 = arith.constant 0.0 : f32
    %ws = memref.view %wg[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<8x8xf32, #gpu.address_space<workgroup>>
    %a = vector.transfer_read %ws[%c0, %c4], %f0 {in_bounds = [true, true]} : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4x1xf32>
    %b = vector.transfer_read %ws[%c4, %c0], %f0 {in_bounds = [true, true]} : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    %acc = vector.transfer_read %ws[%c0, %c0], %f0 {in_bounds = [true, true]} : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4x4xf32>
    %r = vector.contract {indexing_maps = [#map_a, #map_b, #map_c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %r, %ws[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<8x8xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return %ht : vector<4x4xf32>
}

// -----

// Masked transfers on global memory: the 1-D pair (possibly out of bounds)
// becomes a maskedload/maskedstore, the 2-D read one maskedload per row;
// the transpose becomes element-wise extracts and inserts, and the 2-D
// write of its result one 1-D store per row.
// CHECK-LABEL: func.func @masked
// CHECK-SAME:    (%[[H:.+]]: memref<?xf32>, %[[G:.+]]: memref<?x8xf32>, %{{.+}}: index, %{{.+}}: index)
// CHECK:         gpu.launch blocks(%{{.+}}) in (%{{.+}}) threads(%[[TX:.+]], %[[TY:.+]], %{{.+}}) in
// CHECK:           %[[V:.+]] = vector.maskedload %[[H]][%[[TX]]], %{{.+}}, %{{.+}} : memref<?xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK:           vector.maskedstore %[[H]][%[[TY]]], %{{.+}}, %[[V]] : memref<?xf32>, vector<4xi1>, vector<4xf32>
// CHECK:           %[[R0:.+]] = vector.maskedload %[[G]][%[[TX]], %{{.+}}], %{{.+}}, %{{.+}} : memref<?x8xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK:           %[[R1:.+]] = vector.maskedload %[[G]][%{{.+}}, %{{.+}}], %{{.+}}, %{{.+}} : memref<?x8xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK:           vector.extract %[[R0]][0] : f32 from vector<4xf32>
// CHECK:           vector.insert %{{.+}}, %{{.+}} [0, 0] : f32 into vector<4x2xf32>
// CHECK:           vector.extract %[[R0]][1] : f32 from vector<4xf32>
// CHECK:           vector.insert %{{.+}}, %{{.+}} [1, 0] : f32 into vector<4x2xf32>
// CHECK:           vector.extract %[[R1]][3] : f32 from vector<4xf32>
// CHECK:           %[[T:.+]] = vector.insert %{{.+}}, %{{.+}} [3, 1] : f32 into vector<4x2xf32>
// CHECK:           %[[T0:.+]] = vector.extract %[[T]][0] : vector<2xf32> from vector<4x2xf32>
// CHECK:           vector.store %[[T0]], %[[G]][%[[TY]], %{{.+}}] : memref<?x8xf32>, vector<2xf32>
// CHECK-COUNT-3:   vector.store %{{.+}}, %[[G]][%{{.+}}, %{{.+}}] : memref<?x8xf32>, vector<2xf32>
// CHECK:           gpu.terminator
func.func @masked(%h: memref<?xf32>, %g: memref<?x8xf32>, %n: index, %m: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %f0 = arith.constant 0.0 : f32
    %mask1 = vector.create_mask %n : vector<4xi1>
    %v = vector.transfer_read %h[%tx], %f0, %mask1 : memref<?xf32>, vector<4xf32>
    vector.transfer_write %v, %h[%ty], %mask1 : vector<4xf32>, memref<?xf32>
    %mask2 = vector.create_mask %m, %n : vector<2x4xi1>
    %w = vector.transfer_read %g[%tx, %c0], %f0, %mask2 {in_bounds = [true, true]} : memref<?x8xf32>, vector<2x4xf32>
    %t = vector.transpose %w, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
    vector.transfer_write %t, %g[%ty, %c0] {in_bounds = [true, true]} : vector<4x2xf32>, memref<?x8xf32>
    gpu.terminator
  }
  return
}

// -----

// A function without launches is left alone.
// CHECK-LABEL: func.func @host_only
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    %[[V:.+]] = vector.transfer_read
// CHECK-NEXT:    %[[T:.+]] = vector.transpose %[[V]]
// CHECK-NEXT:    vector.transfer_write %[[T]]
// CHECK-NEXT:    return
func.func @host_only(%m: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
  %t = vector.transpose %v, [1, 0] : vector<4x4xf32> to vector<4x4xf32>
  vector.transfer_write %t, %m[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  return
}

// -----

// VectorToSCF does not lower transfers on tensors: the 2-D read is left.
func.func @tensor_transfer(%t: tensor<4x4xf32>, %o: memref<4x4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch' op could not lower the kernel's vector ops}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %f0 = arith.constant 0.0 : f32
    %v = vector.transfer_read %t[%c0, %c0], %f0 : tensor<4x4xf32>, vector<4x4xf32>
    vector.transfer_write %v, %o[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
    gpu.terminator
  }
  return
}
