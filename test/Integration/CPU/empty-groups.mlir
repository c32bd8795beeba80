// Empty groups in mode 1: 5 experts with sizes [0, 3, 0, 5, 0]. Rows 0-2
// use expert 1 (identity), rows 3-7 expert 3 (scale by 2 and 3). The empty
// experts 0, 2 and 4 hold NaN: they cost nothing and are never read, so no
// NaN reaches the result.

// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:nan,nan,nan,nan,1,0,0,1,nan,nan,nan,nan,2,0,0,3,nan,nan,nan,nan \
// RUN:   --values=2:0,3,0,5,0 --print --check --repeat=2 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,TIME

// CHECK:      result 0: tensor<8x2xf32>
// CHECK-NEXT: {{\[}}[1, 0],
// CHECK-NEXT:  [0, 1],
// CHECK-NEXT:  [1, 1],
// CHECK-NEXT:  [4, 3],
// CHECK-NEXT:  [2, 6],
// CHECK-NEXT:  [6, 0],
// CHECK-NEXT:  [0, 9],
// CHECK-NEXT:  [2, -3]]
// CHECK-NEXT: check: PASS (16 elements, max abs error 0,
// TIME-NEXT:  time: median {{.*}} ms over 2 runs

// All groups empty: every row is uncovered and zero.
// RUN: gmm-runner %s --seed=1 --group-sizes=0,0,0,0,0 --print --check \
// RUN:   | FileCheck %s --check-prefix=NONE
// NONE:      result 0: tensor<8x2xf32>
// NONE-NEXT: {{\[}}[0, 0],
// NONE-NEXT:  [0, 0],
// NONE-NEXT:  [0, 0],
// NONE-NEXT:  [0, 0],
// NONE-NEXT:  [0, 0],
// NONE-NEXT:  [0, 0],
// NONE-NEXT:  [0, 0],
// NONE-NEXT:  [0, 0]]
// NONE-NEXT: check: PASS (16 elements, max abs error 0,

func.func @empty_groups(%lhs: tensor<8x2xf32>, %rhs: tensor<5x2x2xf32>,
                        %group_sizes: tensor<5xi32>) -> tensor<8x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2xf32>, tensor<5x2x2xf32>, tensor<5xi32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}
