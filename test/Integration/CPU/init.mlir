// An init (accumulator) operand. Uncovered rows keep init's values.

// Mode 1 (docs/Semantics.md example 4): sizes [2, 3] over 8 rows, experts
// [identity, scale by 2 and 3], init all 100: rows 0-4 are 100 + the
// product, rows 5-7 are covered by no group and stay 100.

// RUN: gmm-runner %s -e mode1 --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3 --values=2:2,3 \
// RUN:   --values=3:100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100 \
// RUN:   --print --check | FileCheck %s --check-prefix=MODE1

// MODE1:      result 0: tensor<8x2xf32>
// MODE1-NEXT: {{\[}}[101, 100],
// MODE1-NEXT:  [100, 101],
// MODE1-NEXT:  [102, 103],
// MODE1-NEXT:  [104, 103],
// MODE1-NEXT:  [102, 106],
// MODE1-NEXT:  [100, 100],
// MODE1-NEXT:  [100, 100],
// MODE1-NEXT:  [100, 100]]
// MODE1-NEXT: check: PASS (16 elements, max abs error 0,

// Init values that differ per row show that each row keeps its own: rows
// 5-7 keep [5, -5], [6, -6], [7, -7].

// RUN: gmm-runner %s -e mode1 --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3 --values=2:2,3 \
// RUN:   --values=3:0,0,1,-1,2,-2,3,-3,4,-4,5,-5,6,-6,7,-7 \
// RUN:   --print --check | FileCheck %s --check-prefix=ROWS

// ROWS:      result 0: tensor<8x2xf32>
// ROWS-NEXT: {{\[}}[1, 0],
// ROWS-NEXT:  [1, 0],
// ROWS-NEXT:  [4, 1],
// ROWS-NEXT:  [7, 0],
// ROWS-NEXT:  [6, 2],
// ROWS-NEXT:  [5, -5],
// ROWS-NEXT:  [6, -6],
// ROWS-NEXT:  [7, -7]]
// ROWS-NEXT: check: PASS

// Mode 2 (docs/Semantics.md example 5) with init all 10: the empty group's
// slice keeps init, the others are 10 more.

// RUN: gmm-runner %s -e mode2 --values=0:1,0,0,1,1,1,2,0,0,1,5,5 \
// RUN:   --values=1:1,2,3,4,1,0,0,1,2,2,7,7 --values=2:2,0,3 \
// RUN:   --values=3:10,10,10,10,10,10,10,10,10,10,10,10 --print --check \
// RUN:   | FileCheck %s --check-prefix=MODE2

// MODE2:      result 0: tensor<3x2x2xf32>
// MODE2-NEXT: {{\[\[\[}}11, 12],
// MODE2-NEXT:   [13, 14]],
// MODE2-NEXT:  {{\[\[}}10, 10],
// MODE2-NEXT:   [10, 10]],
// MODE2-NEXT:  {{\[\[}}11, 12],
// MODE2-NEXT:   [13, 12]]]
// MODE2-NEXT: check: PASS (12 elements, max abs error 0,

// Seeded random init; the runner hands the callee a copy of init, so the
// repeated runs all start from the same values.
// RUN: gmm-runner %s -e mode1 --seed=4 --group-sizes=skewed --check --repeat=3 \
// RUN:   | FileCheck %s --check-prefix=RANDOM
// RANDOM:      check: PASS
// RANDOM-NEXT: time: median

func.func @mode1(%lhs: tensor<8x2xf32>, %rhs: tensor<2x2x2xf32>,
                 %group_sizes: tensor<2xi32>, %init: tensor<8x2xf32>)
    -> tensor<8x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes init(%init : tensor<8x2xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2xf32>, tensor<2x2x2xf32>, tensor<2xi32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

func.func @mode2(%x: tensor<6x2xf32>, %dy: tensor<6x2xf32>,
                 %group_sizes: tensor<3xi32>, %init: tensor<3x2x2xf32>)
    -> tensor<3x2x2xf32> {
  %0 = gmm.ragged_dot %x, %dy, %group_sizes init(%init : tensor<3x2x2xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<6x2xf32>, tensor<6x2xf32>, tensor<3xi32> -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}
