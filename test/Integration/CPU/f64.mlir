// f64 inputs accumulate in f64: 0.1 * 1 + 0.2 * 1 = 0.30000000000000004
// (the f64 sum of the f64 values nearest 0.1 and 0.2), printed with 17
// significant digits. In f32 the same sum would be 0.30000001192092896.

// RUN: gmm-runner %s --values=0:0.1,0.2,1,2 --values=1:1,1 --values=2:2 \
// RUN:   --print --print-precision=17 --check | FileCheck %s

// CHECK:      result 0: tensor<2x1xf64>
// CHECK-NEXT: {{\[}}[0.30000000000000004],
// CHECK-NEXT:  [3]]
// CHECK-NEXT: check: PASS (2 elements, max abs error 0,

// RUN: gmm-runner %s --seed=8 --group-sizes=uniform --check | FileCheck %s --check-prefix=RANDOM
// RANDOM: check: PASS (2 elements,

func.func @f64(%lhs: tensor<2x2xf64>, %rhs: tensor<1x2x1xf64>,
               %group_sizes: tensor<1xi32>) -> tensor<2x1xf64> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<2x2xf64>, tensor<1x2x1xf64>, tensor<1xi32> -> tensor<2x1xf64>
  return %0 : tensor<2x1xf64>
}
