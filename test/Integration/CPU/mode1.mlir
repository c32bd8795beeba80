// Mode 1 (ragged free dimension), docs/Semantics.md example 1: 8 tokens, 3
// experts (identity, swap, scale by 2 and 3), group sizes [3, 0, 5]. Expected
// values are computed by hand: rows 0-2 use expert 0, rows 3-7 expert 2, and
// the empty expert 1 is never used.

// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,2,0,0,3 --values=2:3,0,5 --print --check \
// RUN:   | FileCheck %s
// The same sizes through --group-sizes.
// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,2,0,0,3 --group-sizes=3,0,5 --print --check \
// RUN:   | FileCheck %s

// CHECK:      result 0: tensor<8x2xf32>
// CHECK-NEXT: {{\[}}[1, 0],
// CHECK-NEXT:  [0, 1],
// CHECK-NEXT:  [1, 1],
// CHECK-NEXT:  [4, 3],
// CHECK-NEXT:  [2, 6],
// CHECK-NEXT:  [6, 0],
// CHECK-NEXT:  [0, 9],
// CHECK-NEXT:  [2, -3]]
// CHECK-NEXT: check: PASS (16 elements, max abs error 0, tolerance atol={{.*}} rtol={{.*}})

// --group-sizes=uniform splits 8 rows over 3 groups as [3, 3, 2]: rows 3-5
// are swapped, rows 6-7 scaled.
// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,2,0,0,3 --group-sizes=uniform \
// RUN:   --print-inputs --print --check | FileCheck %s --check-prefix=UNIFORM

// UNIFORM:      input 2: tensor<3xi32>
// UNIFORM-NEXT: [3, 3, 2]
// UNIFORM:      result 0: tensor<8x2xf32>
// UNIFORM-NEXT: {{\[}}[1, 0],
// UNIFORM-NEXT:  [0, 1],
// UNIFORM-NEXT:  [1, 1],
// UNIFORM-NEXT:  [1, 2],
// UNIFORM-NEXT:  [2, 1],
// UNIFORM-NEXT:  [0, 3],
// UNIFORM-NEXT:  [0, 9],
// UNIFORM-NEXT:  [2, -3]]
// UNIFORM-NEXT: check: PASS

// --group-sizes=skewed: weights 13, 5, 0 give floor(8*13/18) = 5,
// floor(8*5/18) = 2 and 0; the remaining row goes to group 0: [6, 2, 0].
// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,2,0,0,3 --group-sizes=skewed \
// RUN:   --print-inputs --print --check | FileCheck %s --check-prefix=SKEWED

// SKEWED:      input 2: tensor<3xi32>
// SKEWED-NEXT: [6, 2, 0]
// SKEWED:      result 0: tensor<8x2xf32>
// SKEWED-NEXT: {{\[}}[1, 0],
// SKEWED-NEXT:  [0, 1],
// SKEWED-NEXT:  [1, 1],
// SKEWED-NEXT:  [2, 1],
// SKEWED-NEXT:  [1, 2],
// SKEWED-NEXT:  [3, 0],
// SKEWED-NEXT:  [3, 0],
// SKEWED-NEXT:  [-1, 1]]
// SKEWED-NEXT: check: PASS

// Seeded random inputs (random group sizes summing to 8), checked against
// the reference and timed: 8 covered rows * k = 2 * n = 2 = 32 multiply-adds.
// RUN: gmm-runner %s --seed=3 --check --repeat=3 | FileCheck %s --check-prefix=RANDOM
// RANDOM:      check: PASS (16 elements, max abs error {{.*}}, tolerance atol={{.*}} rtol={{.*}})
// RANDOM-NEXT: time: median {{[0-9.e+-]+}} ms over 3 runs ({{[0-9.]+}} GFLOP/s)

func.func @mode1(%lhs: tensor<8x2xf32>, %rhs: tensor<3x2x2xf32>,
                 %group_sizes: tensor<3xi32>) -> tensor<8x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2xf32>, tensor<3x2x2xf32>, tensor<3xi32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}
