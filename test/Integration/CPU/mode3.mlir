// Mode 3 (ragged batching dimension), docs/Semantics.md example 8: a plain
// batched dot; the group sizes [7, -3, 0, 1, 1] are ignored.
//   batch 0: [[1, 2], [3, 4]] * identity         = [[1, 2], [3, 4]]
//   batch 1: [[0, 1], [1, 0]] * [[2, 3], [4, 5]] = [[4, 5], [2, 3]]

// RUN: gmm-runner %s --values=0:1,2,3,4,0,1,1,0 --values=1:1,0,0,1,2,3,4,5 \
// RUN:   --values=2:7,-3,0,1,1 --print --check | FileCheck %s

// CHECK:      result 0: tensor<2x2x2xf32>
// CHECK-NEXT: {{\[\[\[}}1, 2],
// CHECK-NEXT:   [3, 4]],
// CHECK-NEXT:  {{\[\[}}4, 5],
// CHECK-NEXT:   [2, 3]]]
// CHECK-NEXT: check: PASS (8 elements, max abs error 0, tolerance atol={{.*}} rtol={{.*}})

// Every product counts: 8 elements * k = 2 multiply-adds.
// RUN: gmm-runner %s --seed=2 --check --repeat=1 | FileCheck %s --check-prefix=RANDOM
// RANDOM:      check: PASS
// RANDOM-NEXT: time: median {{.*}} ms over 1 run ({{.*}} GFLOP/s)

func.func @mode3(%lhs: tensor<2x2x2xf32>, %rhs: tensor<2x2x2xf32>,
                 %group_sizes: tensor<5xi32>) -> tensor<2x2x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0]>
      : tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<5xi32> -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}
