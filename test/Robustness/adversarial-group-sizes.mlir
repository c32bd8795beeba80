// Adversarial group sizes and offsets (docs/Semantics.md: negative sizes
// count as 0, groups past the extent are cut, sums never wrap) on every
// pipeline, with every buffer against a guard page (end, then start), so an
// out-of-bounds access by the compiled code kills the run; each result is
// checked against the C++ reference. gmm-difftest --adversarial (ctest
// robustness.adversarial.*) runs the same families on random problems.

// REQUIRES: gmm-runner

// DEFINE: %{cpu} = gmm-runner %s --seed=1 --check --guard-pages=end
// DEFINE: %{cpu-start} = gmm-runner %s --seed=1 --check --guard-pages=start
// DEFINE: %{ref} = gmm-runner %s --seed=1 --check --guard-pages=end --pipeline=reference
// DEFINE: %{ref-start} = gmm-runner %s --seed=1 --check --guard-pages=start --pipeline=reference

// Mode 1, i32 sizes: all negative; every size INT32_MAX (the sum overflows
// 32 bits); all the mass in the last group, exact and INT32_MAX; sums that
// wrap around to exactly 0; INT32_MIN first.
// RUN: %{cpu} -e mode1 --group-sizes=-1,-2147483648,-5,-1 | FileCheck %s
// RUN: %{ref-start} -e mode1 --group-sizes=-1,-2147483648,-5,-1 | FileCheck %s
// RUN: %{cpu} -e mode1 --group-sizes=2147483647,2147483647,2147483647,2147483647 | FileCheck %s
// RUN: %{cpu-start} -e mode1 --group-sizes=2147483647,2147483647,2147483647,2147483647 | FileCheck %s
// RUN: %{ref} -e mode1 --group-sizes=2147483647,2147483647,2147483647,2147483647 | FileCheck %s
// RUN: %{cpu} -e mode1 --group-sizes=0,0,0,7 | FileCheck %s
// RUN: %{cpu-start} -e mode1 --group-sizes=0,0,0,2147483647 | FileCheck %s
// RUN: %{ref} -e mode1 --group-sizes=0,0,0,2147483647 | FileCheck %s
// RUN: %{cpu} -e mode1 --group-sizes=2147483647,2147483647,2,3 | FileCheck %s
// RUN: %{ref-start} -e mode1 --group-sizes=2147483647,2147483647,2,3 | FileCheck %s
// RUN: %{cpu-start} -e mode1 --group-sizes=-2147483648,7,1,1 | FileCheck %s

// Mode 1, i64 sizes and a group offset (the rhs holds 2 of the 4 groups):
// sums that overflow 64 bits or wrap to 0, offsets at the i64 extremes.
// RUN: %{cpu} -e sharded --group-sizes=9223372036854775807,9223372036854775807,2,3 --group-offset=1 | FileCheck %s
// RUN: %{cpu-start} -e sharded --group-sizes=9223372036854775807,9223372036854775807,2,3 --group-offset=2 | FileCheck %s
// RUN: %{ref} -e sharded --group-sizes=9223372036854775807,9223372036854775807,2,3 --group-offset=2 | FileCheck %s
// RUN: %{cpu} -e sharded --group-sizes=-9223372036854775808,3,9223372036854775807,1 --group-offset=-9223372036854775808 | FileCheck %s
// RUN: %{cpu-start} -e sharded --group-sizes=1,2,3,1 --group-offset=9223372036854775807 | FileCheck %s
// RUN: %{ref-start} -e sharded --group-sizes=1,2,3,1 --group-offset=9223372036854775807 | FileCheck %s
// RUN: %{cpu} -e sharded --group-sizes=0,0,0,9223372036854775807 --group-offset=-1 | FileCheck %s
// RUN: %{cpu-start} -e sharded --group-sizes=2,2,2,2147483648 --group-offset=3 | FileCheck %s
// RUN: %{ref} -e sharded --group-sizes=2,2,2,2147483648 --group-offset=3 | FileCheck %s

// Mode 2 (ragged contracting dimension): the same families over k = 9.
// RUN: %{cpu} -e mode2 --group-sizes=-1,-2147483648,-5 | FileCheck %s
// RUN: %{cpu-start} -e mode2 --group-sizes=2147483647,2147483647,2 | FileCheck %s
// RUN: %{ref} -e mode2 --group-sizes=2147483647,2147483647,2 | FileCheck %s
// RUN: %{cpu} -e mode2 --group-sizes=0,0,2147483647 | FileCheck %s
// RUN: %{cpu-start} -e mode2 --group-sizes=0,0,9 | FileCheck %s
// RUN: %{ref-start} -e mode2 --group-sizes=-2147483648,10,1 | FileCheck %s

// Tile sizes that divide nothing (3x5x2, from the op's gmm.kernel_config), so
// every remainder and mask path meets the adversarial sizes.
// RUN: %{cpu} -e odd_tiles --group-sizes=2147483647,2147483647,2,3 | FileCheck %s
// RUN: %{cpu-start} -e odd_tiles --group-sizes=2147483647,2147483647,2,3 | FileCheck %s
// RUN: %{cpu} -e odd_tiles --group-sizes=0,0,0,2147483647 | FileCheck %s
// RUN: %{cpu-start} -e odd_tiles --group-sizes=-1,5,-2147483648,100 | FileCheck %s
// RUN: %{cpu} -e odd_tiles --group-sizes=1,2,2147483647,-2147483648 | FileCheck %s

// CHECK: check: PASS

func.func @mode1(%lhs: tensor<7x3xf32>, %rhs: tensor<4x3x5xf32>,
                 %group_sizes: tensor<4xi32>) -> tensor<7x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<7x3xf32>, tensor<4x3x5xf32>, tensor<4xi32> -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

func.func @sharded(%lhs: tensor<7x3xf32>, %rhs: tensor<2x3x5xf32>,
                   %group_sizes: tensor<4xi64>, %offset: tensor<i64>)
    -> tensor<7x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      group_offset(%offset : tensor<i64>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<7x3xf32>, tensor<2x3x5xf32>, tensor<4xi64> -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

func.func @mode2(%lhs: tensor<4x9xf32>, %rhs: tensor<9x5xf32>,
                 %group_sizes: tensor<3xi32>) -> tensor<3x4x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [1]>
      : tensor<4x9xf32>, tensor<9x5xf32>, tensor<3xi32> -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

func.func @odd_tiles(%lhs: tensor<13x7xbf16>, %rhs: tensor<4x7x11xbf16>,
                     %group_sizes: tensor<4xi32>) -> tensor<13x11xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      {gmm.kernel_config = #gmm.kernel_config<tile = [3, 5, 2]>}
      : tensor<13x7xbf16>, tensor<4x7x11xbf16>, tensor<4xi32> -> tensor<13x11xf32>
  return %0 : tensor<13x11xf32>
}
