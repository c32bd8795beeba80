// Negative group sizes (docs/Semantics.md example 2): sizes [2, -1, 3] (i64)
// over 6 rows. The -1 counts as 0 and does not pull group 2 back: group 0 is
// rows 0-1 (identity), group 1 is empty, group 2 is rows 2-4 (scale by 2 and
// 3: [1, 1] -> [2, 3], [2, 1] -> [4, 3], [1, 2] -> [2, 6]), and row 5 is
// covered by no group.

// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,2,0,0,3 --values=2:2,-1,3 --print --check \
// RUN:   | FileCheck %s

// CHECK:      result 0: tensor<6x2xf32>
// CHECK-NEXT: {{\[}}[1, 0],
// CHECK-NEXT:  [0, 1],
// CHECK-NEXT:  [2, 3],
// CHECK-NEXT:  [4, 3],
// CHECK-NEXT:  [2, 6],
// CHECK-NEXT:  [0, 0]]
// CHECK-NEXT: check: PASS (12 elements, max abs error 0,

// The most negative i64 is just another empty group.
// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,2,0,0,3 \
// RUN:   --group-sizes=-9223372036854775808,4,-5 --print --check \
// RUN:   | FileCheck %s --check-prefix=MIN
// MIN:      result 0: tensor<6x2xf32>
// MIN-NEXT: {{\[}}[0, 1],
// MIN-NEXT:  [1, 0],
// MIN-NEXT:  [1, 1],
// MIN-NEXT:  [1, 2],
// MIN-NEXT:  [0, 0],
// MIN-NEXT:  [0, 0]]
// MIN-NEXT: check: PASS

func.func @negative(%lhs: tensor<6x2xf32>, %rhs: tensor<3x2x2xf32>,
                    %group_sizes: tensor<3xi64>) -> tensor<6x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<6x2xf32>, tensor<3x2x2xf32>, tensor<3xi64> -> tensor<6x2xf32>
  return %0 : tensor<6x2xf32>
}
