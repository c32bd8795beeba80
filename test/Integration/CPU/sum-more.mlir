// Group sizes that sum to more than m (docs/Semantics.md example 3): sizes
// [4, 4, 4] over 8 rows. Group 0 is rows 0-3 (identity), group 1 rows 4-7
// (swap: [1, 2] -> [2, 1], [3, 0] -> [0, 3], [0, 3] -> [3, 0],
// [1, -1] -> [-1, 1]); group 2 is cut to nothing, and its weights (NaN) are
// never read.

// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,nan,nan,nan,nan --values=2:4,4,4 \
// RUN:   --print --check | FileCheck %s

// CHECK:      result 0: tensor<8x2xf32>
// CHECK-NEXT: {{\[}}[1, 0],
// CHECK-NEXT:  [0, 1],
// CHECK-NEXT:  [1, 1],
// CHECK-NEXT:  [2, 1],
// CHECK-NEXT:  [2, 1],
// CHECK-NEXT:  [0, 3],
// CHECK-NEXT:  [3, 0],
// CHECK-NEXT:  [-1, 1]]
// CHECK-NEXT: check: PASS (16 elements, max abs error 0,

// Sizes far past the extent, at the limit of i32, are cut as well.
// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,nan,nan,nan,nan \
// RUN:   --group-sizes=2147483647,2147483647,2147483647 --print --check \
// RUN:   | FileCheck %s --check-prefix=HUGE
// HUGE:      result 0: tensor<8x2xf32>
// HUGE-NEXT: {{\[}}[1, 0],
// HUGE-NEXT:  [0, 1],
// HUGE-NEXT:  [1, 1],
// HUGE-NEXT:  [2, 1],
// HUGE-NEXT:  [1, 2],
// HUGE-NEXT:  [3, 0],
// HUGE-NEXT:  [0, 3],
// HUGE-NEXT:  [1, -1]]
// HUGE-NEXT: check: PASS

func.func @sum_more(%lhs: tensor<8x2xf32>, %rhs: tensor<3x2x2xf32>,
                    %group_sizes: tensor<3xi32>) -> tensor<8x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2xf32>, tensor<3x2x2xf32>, tensor<3xi32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}
