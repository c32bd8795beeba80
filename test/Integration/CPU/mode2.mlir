// Mode 2 (ragged contracting dimension), docs/Semantics.md example 5: a
// weight gradient over 6 tokens with group sizes [2, 0, 3].
// result[i] = x[start_i:end_i]^T * dy[start_i:end_i]:
//   group 0, tokens 0-1: [[1*1+0*3, 1*2+0*4], [0*1+1*3, 0*2+1*4]] = [[1, 2], [3, 4]]
//   group 1 is empty: its slice is zero
//   group 2, tokens 2-4: x = [[1,1],[2,0],[0,1]], dy = [[1,0],[0,1],[2,2]]
//     -> [[1*1+2*0+0*2, 1*0+2*1+0*2], [1*1+0*0+1*2, 1*0+0*1+1*2]] = [[1, 2], [3, 2]]
// Token 5 is in no group; its values (NaN here) are never read.

// RUN: gmm-runner %s --values=0:1,0,0,1,1,1,2,0,0,1,nan,nan \
// RUN:   --values=1:1,2,3,4,1,0,0,1,2,2,nan,nan --values=2:2,0,3 --print --check \
// RUN:   | FileCheck %s

// CHECK:      result 0: tensor<3x2x2xf32>
// CHECK-NEXT: {{\[\[\[}}1, 2],
// CHECK-NEXT:   [3, 4]],
// CHECK-NEXT:  {{\[\[}}0, 0],
// CHECK-NEXT:   [0, 0]],
// CHECK-NEXT:  {{\[\[}}1, 2],
// CHECK-NEXT:   [3, 2]]]
// CHECK-NEXT: check: PASS (12 elements, max abs error 0, tolerance atol={{.*}} rtol={{.*}})

// RUN: gmm-runner %s --seed=5 --group-sizes=skewed --check | FileCheck %s --check-prefix=RANDOM
// RANDOM: check: PASS (12 elements,

func.func @mode2(%x: tensor<6x2xf32>, %dy: tensor<6x2xf32>,
                 %group_sizes: tensor<3xi32>) -> tensor<3x2x2xf32> {
  %0 = gmm.ragged_dot %x, %dy, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<6x2xf32>, tensor<6x2xf32>, tensor<3xi32> -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}
