// f16 inputs (11 significant bits):
//   lhs = [[1, 1]], rhs[0] = [[2048, 0.5, 0.1], [1, 0.25, 0.2]]
// 0.1 and 0.2 round to f16 as 0.0999755859375 and 0.199951171875.
// Products accumulate in f32: [2049, 0.75, 0.2999267578125].
// An f16 result rounds each once: 2049 ties between 2048 and 2050 -> 2048
// (even); 0.2999267578125 = 1228.5 * 2^-12 ties -> 1228 * 2^-12 =
// 0.2998046875 (even).

// RUN: gmm-runner %s -e f16_result --values=0:1,1 \
// RUN:   --values=1:2048,0.5,0.1,1,0.25,0.2 --values=2:1 --print-inputs --print \
// RUN:   --print-precision=13 --check | FileCheck %s --check-prefix=F16

// F16:      input 1: tensor<1x2x3xf16>
// F16-NEXT: {{\[\[\[}}2048, 0.5, 0.0999755859375],
// F16-NEXT:   [1, 0.25, 0.199951171875]]]
// F16:      result 0: tensor<1x3xf16>
// F16-NEXT: {{\[\[}}2048, 0.75, 0.2998046875]]
// F16-NEXT: check: PASS (3 elements, max abs error 0,

// RUN: gmm-runner %s -e f32_result --values=0:1,1 \
// RUN:   --values=1:2048,0.5,0.1,1,0.25,0.2 --values=2:1 --print \
// RUN:   --print-precision=13 --check | FileCheck %s --check-prefix=F32

// F32:      result 0: tensor<1x3xf32>
// F32-NEXT: {{\[\[}}2049, 0.75, 0.2999267578125]]
// F32-NEXT: check: PASS (3 elements, max abs error 0,

// An f32 .npy file loads into an f16 argument, rounded the same way.
// RUN: gmm-runner %s -e save_f32 --values=0:2048,0.5,0.1,1,0.25,0.2 --output=0:%t.npy
// RUN: gmm-runner %s -e f32_result --values=0:1,1 --input=1:%t.npy \
// RUN:   --values=2:1 --print --print-precision=13 --check \
// RUN:   | FileCheck %s --check-prefix=F32

// RUN: gmm-runner %s -e f16_result --seed=1 --check | FileCheck %s --check-prefix=RANDOM
// RANDOM: check: PASS

func.func @f16_result(%lhs: tensor<1x2xf16>, %rhs: tensor<1x2x3xf16>,
                      %group_sizes: tensor<1xi64>) -> tensor<1x3xf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<1x2xf16>, tensor<1x2x3xf16>, tensor<1xi64> -> tensor<1x3xf16>
  return %0 : tensor<1x3xf16>
}

func.func @f32_result(%lhs: tensor<1x2xf16>, %rhs: tensor<1x2x3xf16>,
                      %group_sizes: tensor<1xi64>) -> tensor<1x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<1x2xf16>, tensor<1x2x3xf16>, tensor<1xi64> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

func.func @save_f32(%x: tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
  return %x : tensor<1x2x3xf32>
}
