// Leading batch dimensions in mode 1, docs/Semantics.md example 7: lhs
// [2, 4, 2] (batch, m, k), rhs [2, 2, 2, 2] (batch, group, k, n).
//   rhs[0] = [identity, scale by 2 and 3], rhs[1] = [swap, [[1, 1], [0, 1]]]
//
// Batched group sizes [2, 2]: each batch element has its own partition.
//   batch 0, sizes [1, 3]: row 0 identity, rows 1-3 scaled
//     [1, 0] -> [1, 0]; [0, 1] -> [0, 3]; [1, 1] -> [2, 3]; [2, 1] -> [4, 3]
//   batch 1, sizes [4, 0]: all rows swapped, group 1 empty
//     [1, 2] -> [2, 1]; [3, 0] -> [0, 3]; [0, 3] -> [3, 0]; [1, -1] -> [-1, 1]

// RUN: gmm-runner %s -e batched --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3,0,1,1,0,1,1,0,1 --values=2:1,3,4,0 \
// RUN:   --print --check | FileCheck %s --check-prefix=BATCHED

// BATCHED:      result 0: tensor<2x4x2xf32>
// BATCHED-NEXT: {{\[\[\[}}1, 0],
// BATCHED-NEXT:   [0, 3],
// BATCHED-NEXT:   [2, 3],
// BATCHED-NEXT:   [4, 3]],
// BATCHED-NEXT:  {{\[\[}}2, 1],
// BATCHED-NEXT:   [0, 3],
// BATCHED-NEXT:   [3, 0],
// BATCHED-NEXT:   [-1, 1]]]
// BATCHED-NEXT: check: PASS (16 elements, max abs error 0,

// --group-sizes with g values gives every batch element the same sizes.
// RUN: gmm-runner %s -e batched --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3,0,1,1,0,1,1,0,1 --group-sizes=1,3 \
// RUN:   --print-inputs --print --check | FileCheck %s --check-prefix=SAME
// SAME:      input 2: tensor<2x2xi32>
// SAME-NEXT: {{\[}}[1, 3],
// SAME-NEXT:  [1, 3]]
// SAME: check: PASS

// A [g] vector is broadcast over the batch: sizes [1, 3] for both.
//   batch 1: row 0 swapped [1, 2] -> [2, 1]; rows 1-3 by [[1, 1], [0, 1]]:
//     [3, 0] -> [3, 3]; [0, 3] -> [0, 3]; [1, -1] -> [1, 0]

// RUN: gmm-runner %s -e broadcast --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3,0,1,1,0,1,1,0,1 --values=2:1,3 \
// RUN:   --print --check | FileCheck %s --check-prefix=BROADCAST

// BROADCAST:      result 0: tensor<2x4x2xf32>
// BROADCAST-NEXT: {{\[\[\[}}1, 0],
// BROADCAST-NEXT:   [0, 3],
// BROADCAST-NEXT:   [2, 3],
// BROADCAST-NEXT:   [4, 3]],
// BROADCAST-NEXT:  {{\[\[}}2, 1],
// BROADCAST-NEXT:   [3, 3],
// BROADCAST-NEXT:   [0, 3],
// BROADCAST-NEXT:   [1, 0]]]
// BROADCAST-NEXT: check: PASS (16 elements, max abs error 0,

// Random batched sizes: every row of group_sizes sums to m.
// RUN: gmm-runner %s -e batched --seed=11 --print-inputs --check \
// RUN:   | FileCheck %s --check-prefix=RANDOM
// RANDOM: input 2: tensor<2x2xi32>
// RANDOM: check: PASS

func.func @batched(%lhs: tensor<2x4x2xf32>, %rhs: tensor<2x2x2x2xf32>,
                   %group_sizes: tensor<2x2xi32>) -> tensor<2x4x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [1]>
      : tensor<2x4x2xf32>, tensor<2x2x2x2xf32>, tensor<2x2xi32> -> tensor<2x4x2xf32>
  return %0 : tensor<2x4x2xf32>
}

func.func @broadcast(%lhs: tensor<2x4x2xf32>, %rhs: tensor<2x2x2x2xf32>,
                     %group_sizes: tensor<2xi32>) -> tensor<2x4x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [1]>
      : tensor<2x4x2xf32>, tensor<2x2x2x2xf32>, tensor<2xi32> -> tensor<2x4x2xf32>
  return %0 : tensor<2x4x2xf32>
}
