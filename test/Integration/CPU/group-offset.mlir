// group_offset (expert sharding), docs/Semantics.md example 6. Sizes
// [2, 3, 1, 2] over 8 rows give global groups 0: rows 0-1, 1: rows 2-4,
// 2: row 5, 3: rows 6-7.

// Mode 1, bf16 inputs, f32 result: the shard holds experts [1, 3) as
// rhs_local = [swap, scale by 2 and 3]. Offset 1: rows 2-4 are swapped
// ([1, 1] -> [1, 1], [2, 1] -> [1, 2], [1, 2] -> [2, 1]), row 5 is scaled
// ([3, 0] -> [6, 0]); rows of groups 0 and 3 belong to other shards: zero.

// RUN: gmm-runner %s -e mode1 --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:0,1,1,0,2,0,0,3 --values=2:2,3,1,2 --group-offset=1 \
// RUN:   --print --check | FileCheck %s --check-prefix=MODE1
// RUN: gmm-runner %s -e mode1 --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:0,1,1,0,2,0,0,3 --values=2:2,3,1,2 --values=3:1 \
// RUN:   --print --check | FileCheck %s --check-prefix=MODE1

// MODE1:      result 0: tensor<8x2xf32>
// MODE1-NEXT: {{\[}}[0, 0],
// MODE1-NEXT:  [0, 0],
// MODE1-NEXT:  [1, 1],
// MODE1-NEXT:  [1, 2],
// MODE1-NEXT:  [2, 1],
// MODE1-NEXT:  [6, 0],
// MODE1-NEXT:  [0, 0],
// MODE1-NEXT:  [0, 0]]
// MODE1-NEXT: check: PASS (16 elements, max abs error 0,

// Offset -1: the shard holds global groups -1 (none) and 0; group 0 (rows
// 0-1) uses rhs_local[1]: [1, 0] -> [2, 0], [0, 1] -> [0, 3].

// RUN: gmm-runner %s -e mode1 --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:0,1,1,0,2,0,0,3 --values=2:2,3,1,2 --group-offset=-1 \
// RUN:   --print --check | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE:      result 0: tensor<8x2xf32>
// NEGATIVE-NEXT: {{\[}}[2, 0],
// NEGATIVE-NEXT:  [0, 3],
// NEGATIVE-NEXT:  [0, 0],
// NEGATIVE-NEXT:  [0, 0],
// NEGATIVE-NEXT:  [0, 0],
// NEGATIVE-NEXT:  [0, 0],
// NEGATIVE-NEXT:  [0, 0],
// NEGATIVE-NEXT:  [0, 0]]
// NEGATIVE-NEXT: check: PASS

// Mode 2, offset 1, G_local = 2:
//   x  = [[1,0],[0,1],[1,1],[2,0],[0,1],[1,2],[3,3],[4,4]]
//   dy = [[1,1],[1,1],[1,0],[0,1],[2,2],[1,3],[5,5],[6,6]]
//   slice 0 = global group 1, tokens 2-4:
//     [[1*1+2*0+0*2, 1*0+2*1+0*2], [1*1+0*0+1*2, 1*0+0*1+1*2]] = [[1, 2], [3, 2]]
//   slice 1 = global group 2, token 5: [[1*1, 1*3], [2*1, 2*3]] = [[1, 3], [2, 6]]

// RUN: gmm-runner %s -e mode2 --values=0:1,0,0,1,1,1,2,0,0,1,1,2,3,3,4,4 \
// RUN:   --values=1:1,1,1,1,1,0,0,1,2,2,1,3,5,5,6,6 --values=2:2,3,1,2 \
// RUN:   --group-offset=1 --print --check | FileCheck %s --check-prefix=MODE2

// MODE2:      result 0: tensor<2x2x2xf32>
// MODE2-NEXT: {{\[\[\[}}1, 2],
// MODE2-NEXT:   [3, 2]],
// MODE2-NEXT:  {{\[\[}}1, 3],
// MODE2-NEXT:   [2, 6]]]
// MODE2-NEXT: check: PASS (8 elements, max abs error 0,

// Offset 3: slice 0 is global group 3 (tokens 6-7:
// [[3*5+4*6, 3*5+4*6], [3*5+4*6, 3*5+4*6]] = 39 everywhere); slice 1 would
// be global group 4, which does not exist: zero.

// RUN: gmm-runner %s -e mode2 --values=0:1,0,0,1,1,1,2,0,0,1,1,2,3,3,4,4 \
// RUN:   --values=1:1,1,1,1,1,0,0,1,2,2,1,3,5,5,6,6 --values=2:2,3,1,2 \
// RUN:   --group-offset=3 --print --check | FileCheck %s --check-prefix=LAST

// LAST:      result 0: tensor<2x2x2xf32>
// LAST-NEXT: {{\[\[\[}}39, 39],
// LAST-NEXT:   [39, 39]],
// LAST-NEXT:  {{\[\[}}0, 0],
// LAST-NEXT:   [0, 0]]]
// LAST-NEXT: check: PASS

func.func @mode1(%lhs: tensor<8x2xbf16>, %rhs_local: tensor<2x2x2xbf16>,
                 %group_sizes: tensor<4xi32>, %offset: tensor<i32>)
    -> tensor<8x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs_local, %group_sizes
      group_offset(%offset : tensor<i32>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2xbf16>, tensor<2x2x2xbf16>, tensor<4xi32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

func.func @mode2(%x: tensor<8x2xf32>, %dy: tensor<8x2xf32>,
                 %group_sizes: tensor<4xi64>, %offset: tensor<1xi64>)
    -> tensor<2x2x2xf32> {
  %0 = gmm.ragged_dot %x, %dy, %group_sizes group_offset(%offset : tensor<1xi64>)
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<8x2xf32>, tensor<8x2xf32>, tensor<4xi64> -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}
