// A function that calls another: on the GPU the caller passes its stream on
// (gmm-gpu-async-host{caller-stream}, as gmm-runner compiles), the callee's
// allocations, launches and frees go on it, and nothing waits in between.
// The caller passes the callee an empty workspace
// (gmm-gpu-merge-allocations{workspace-argument}): the callee allocates its
// temporaries itself.
// Group 0 (rows 0-1) multiplies by the identity, group 1 (rows 2-3) by
// diag(2, 3).

// REQUIRES: cuda-device
// RUN: gmm-runner %s -e outer %cuda_target --values=0:1,0,0,1,1,1,2,1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3 --values=2:2,2 --print | FileCheck %s
// The same on the CPU.
// RUN: gmm-runner %s -e outer --values=0:1,0,0,1,1,1,2,1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3 --values=2:2,2 --print | FileCheck %s

// CHECK: result 0: tensor<4x2xf32>
// CHECK-NEXT: {{\[}}[1, 0],
// CHECK-NEXT:  [0, 1],
// CHECK-NEXT:  [2, 3],
// CHECK-NEXT:  [4, 3]]

func.func @inner(%lhs: tensor<4x2xf32>, %rhs: tensor<2x2x2xf32>, %gs: tensor<2xi32>) -> tensor<4x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<4x2xf32>, tensor<2x2x2xf32>, tensor<2xi32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

func.func @outer(%lhs: tensor<4x2xf32>, %rhs: tensor<2x2x2xf32>, %gs: tensor<2xi32>) -> tensor<4x2xf32> {
  %0 = func.call @inner(%lhs, %rhs, %gs) : (tensor<4x2xf32>, tensor<2x2x2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
