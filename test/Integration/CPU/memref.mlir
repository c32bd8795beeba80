// Memref arguments are written by the callee and come back as outputs after
// the results; a rank-0 tensor result prints as its value.
//   buf[1, 0] = x[2] = 7; the result is x[2] as a tensor<f32>.

// RUN: gmm-runner %s -e store --values=0:1,2,3,4 --values=1:5,6,7 --print \
// RUN:   --output=1:%t.npy | FileCheck %s
// CHECK:      result 0: tensor<f32>
// CHECK-NEXT: 7
// CHECK-NEXT: result 1 (memref argument 0): memref<2x2xf32>
// CHECK-NEXT: {{\[}}[1, 2],
// CHECK-NEXT:  [7, 4]]

// The memref output written with --output reads back as a tensor.
// RUN: gmm-runner %s -e show --input=0:%t.npy --print | FileCheck %s --check-prefix=BACK
// BACK:      result 0: tensor<2x2xf32>
// BACK-NEXT: {{\[}}[1, 2],
// BACK-NEXT:  [7, 4]]

func.func @store(%buf: memref<2x2xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.extract %x[%c2] : tensor<3xf32>
  memref.store %a, %buf[%c1, %c0] : memref<2x2xf32>
  %s = tensor.from_elements %a : tensor<f32>
  return %s : tensor<f32>
}

func.func @show(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  return %x : tensor<2x2xf32>
}
