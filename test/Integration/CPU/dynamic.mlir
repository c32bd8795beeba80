// Dynamic sizes take the size of the value given for them. The data are
// those of docs/Semantics.md example 1 (expected values in mode1.mlir).

// A single dynamic size follows from the number of inline values (16 / 2 =
// 8 rows, 12 / 6 = 2 columns) or explicit group sizes (3 groups).
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
// CHECK-NEXT: check: PASS (16 elements, max abs error 0,

// --arg-shape gives the sizes of random arguments.
// RUN: gmm-runner %s --seed=1 --arg-shape=0:5x2 --arg-shape=1:3x2x4 \
// RUN:   --arg-shape=2:3 --group-sizes=uniform --print-inputs --print --check \
// RUN:   | FileCheck %s --check-prefix=SHAPE
// SHAPE: input 0: tensor<5x2xf32>
// SHAPE: input 1: tensor<3x2x4xf32>
// SHAPE: input 2: tensor<3xi32>
// SHAPE-NEXT: [2, 2, 1]
// SHAPE: result 0: tensor<5x4xf32>
// SHAPE: check: PASS (20 elements,

// Static sizes must match, and the sizes must fit the op.
// RUN: not gmm-runner %s --seed=1 --arg-shape=0:5x3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATIC
// STATIC: gmm-runner: error: --arg-shape=0:5x3 has shape [5, 3], but argument 0 (tensor<?x2xf32>) needs shape [?, 2]
// RUN: not gmm-runner %s --seed=1 --arg-shape=0:5x2 --arg-shape=1:3x2x4 \
// RUN:   --arg-shape=2:4 2>&1 | FileCheck %s --check-prefix=FIT
// FIT: gmm-runner: error: the argument shapes do not fit gmm.ragged_dot: rhs group dimension 0 has size 3 but group_sizes has 4 groups

func.func @dynamic(%lhs: tensor<?x2xf32>, %rhs: tensor<3x2x?xf32>,
                   %group_sizes: tensor<?xi32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x2xf32>, tensor<3x2x?xf32>, tensor<?xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
