// Group sizes that sum to less than m (docs/Semantics.md example 4): sizes
// [2, 3] over 8 rows, experts [identity, scale by 2 and 3]. Rows 0-1 use
// expert 0, rows 2-4 expert 1: [1, 1] -> [2, 3], [2, 1] -> [4, 3],
// [1, 2] -> [2, 6]. Rows 5-7 are covered by no group and are zero.

// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3 --values=2:2,3 --print --check | FileCheck %s

// CHECK:      result 0: tensor<8x2xf32>
// CHECK-NEXT: {{\[}}[1, 0],
// CHECK-NEXT:  [0, 1],
// CHECK-NEXT:  [2, 3],
// CHECK-NEXT:  [4, 3],
// CHECK-NEXT:  [2, 6],
// CHECK-NEXT:  [0, 0],
// CHECK-NEXT:  [0, 0],
// CHECK-NEXT:  [0, 0]]
// CHECK-NEXT: check: PASS (16 elements, max abs error 0,

func.func @sum_less(%lhs: tensor<8x2xf32>, %rhs: tensor<2x2x2xf32>,
                    %group_sizes: tensor<2xi32>) -> tensor<8x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2xf32>, tensor<2x2x2xf32>, tensor<2xi32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}
