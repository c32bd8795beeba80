// bf16 inputs (8 significant bits). Values given inline or loaded from f32
// files are rounded to bf16, to nearest with ties to even:
//   lhs = [[1.00390625, 3], [1, 1]]: 1 + 2^-8 ties between 1 and 1 + 2^-7
//         and goes to 1 (even), so lhs = [[1, 3], [1, 1]]
//   rhs[0] = [[1, 0.5], [0.00390625, 256]] (exact in bf16)
// Products accumulate in f32:
//   [[1 + 3 * 2^-8, 0.5 + 768], [1 + 2^-8, 0.5 + 256]]
//   = [[1.01171875, 768.5], [1.00390625, 256.5]]
// With a bf16 result each is rounded once to bf16:
//   1.01171875 = 1 + 1.5 * 2^-7 ties -> 1 + 2^-6 = 1.015625 (even)
//   768.5 -> 768 (ulp 4); 1.00390625 ties -> 1 (even); 256.5 -> 256 (ulp 2)

// RUN: gmm-runner %s -e bf16_result --values=0:1.00390625,3,1,1 \
// RUN:   --values=1:1,0.5,0.00390625,256 --values=2:2 --print-inputs --print \
// RUN:   --print-precision=9 --check | FileCheck %s --check-prefix=BF16

// BF16:      input 0: tensor<2x2xbf16>
// BF16-NEXT: {{\[}}[1, 3],
// BF16-NEXT:  [1, 1]]
// BF16:      result 0: tensor<2x2xbf16>
// BF16-NEXT: {{\[}}[1.015625, 768],
// BF16-NEXT:  [1, 256]]
// BF16-NEXT: check: PASS (4 elements, max abs error 0,

// RUN: gmm-runner %s -e f32_result --values=0:1.00390625,3,1,1 \
// RUN:   --values=1:1,0.5,0.00390625,256 --values=2:2 --print \
// RUN:   --print-precision=9 --check | FileCheck %s --check-prefix=F32

// F32:      result 0: tensor<2x2xf32>
// F32-NEXT: {{\[}}[1.01171875, 768.5],
// F32-NEXT:  [1.00390625, 256.5]]
// F32-NEXT: check: PASS (4 elements, max abs error 0,

// The same inputs from .npy files: an f32 file is rounded to bf16 on load.
// RUN: gmm-runner %s -e save_f32 --values=0:1.00390625,3,1,1 --output=0:%t.lhs.npy
// RUN: gmm-runner %s -e save_f32_3d --values=0:1,0.5,0.00390625,256 --output=0:%t.rhs.npy
// RUN: gmm-runner %s -e f32_result --input=0:%t.lhs.npy --input=1:%t.rhs.npy \
// RUN:   --values=2:2 --print --print-precision=9 --check \
// RUN:   | FileCheck %s --check-prefix=F32
// The bf16 result written to .npy (as |V2) and read back into a bf16 argument.
// RUN: gmm-runner %s -e bf16_result --values=0:1.00390625,3,1,1 \
// RUN:   --values=1:1,0.5,0.00390625,256 --values=2:2 --output=0:%t.out.npy
// RUN: gmm-runner %s -e print_bf16 --input=0:%t.out.npy --print --print-precision=9 \
// RUN:   | FileCheck %s --check-prefix=BACK
// BACK:      result 0: tensor<2x2xbf16>
// BACK-NEXT: {{\[}}[1.015625, 768],
// BACK-NEXT:  [1, 256]]

// Random bf16 inputs against the reference.
// RUN: gmm-runner %s -e f32_result --seed=9 --check | FileCheck %s --check-prefix=RANDOM
// RANDOM: check: PASS

func.func @bf16_result(%lhs: tensor<2x2xbf16>, %rhs: tensor<1x2x2xbf16>,
                       %group_sizes: tensor<1xi32>) -> tensor<2x2xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<2x2xbf16>, tensor<1x2x2xbf16>, tensor<1xi32> -> tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

func.func @f32_result(%lhs: tensor<2x2xbf16>, %rhs: tensor<1x2x2xbf16>,
                      %group_sizes: tensor<1xi32>) -> tensor<2x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<2x2xbf16>, tensor<1x2x2xbf16>, tensor<1xi32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Helpers that return their argument, to write and read .npy files.
func.func @save_f32(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  return %x : tensor<2x2xf32>
}

func.func @save_f32_3d(%x: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  return %x : tensor<1x2x2xf32>
}

func.func @print_bf16(%x: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
  return %x : tensor<2x2xbf16>
}
