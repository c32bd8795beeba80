// REQUIRES: gmm-runner
// RUN: gmm-opt %s --allow-unregistered-dialect -convert-chlo-to-gmm \
// RUN:   | gmm-runner - --seed=1 --check | FileCheck %s

// End to end: a module exactly as JAX exports jax.lax.ragged_dot (mode 1,
// lhs [16,4], rhs [2,4,3], group_sizes [2] i32) is imported and run, and the
// result is compared with the C++ reference on seeded random inputs.

// CHECK: check: PASS

module @jit_ragged_dot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x4xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<2x4x3xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<2xi32> {mhlo.layout_mode = "default"}) -> (tensor<16x3xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
    return %0 : tensor<16x3xf32>
  }
}
