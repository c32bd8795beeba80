// RUN: gmm-opt %s --allow-unregistered-dialect -split-input-file -convert-chlo-to-gmm | FileCheck %s

// The import of chlo.ragged_dot as JAX exports it (jax.export / jit(...).lower
// with jax_ragged_dot_use_ragged_dot_instruction), one module per split. The
// modules are parsed with unregistered dialects allowed, so chlo and
// stablehlo ops stay generic and their attributes are opaque text.

// Mode 1: jax.lax.ragged_dot(lhs[16,4], rhs[2,4,3], group_sizes[2]).
// CHECK-LABEL: module @jit_ragged_dot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}
// CHECK-LABEL: func.func public @main(
// CHECK-SAME:      %[[LHS:.*]]: tensor<16x4xf32> {mhlo.layout_mode = "default"}, %[[RHS:.*]]: tensor<2x4x3xf32> {mhlo.layout_mode = "default"}, %[[GS:.*]]: tensor<2xi32> {mhlo.layout_mode = "default"})
// CHECK-SAME:      -> (tensor<16x3xf32> {jax.result_info = "result", mhlo.layout_mode = "default"})
// CHECK-NOT:     chlo.ragged_dot
// CHECK:         %[[OUT:.*]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
// CHECK-NEXT:    return %[[OUT]] : tensor<16x3xf32>
module @jit_ragged_dot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x4xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<2x4x3xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<2xi32> {mhlo.layout_mode = "default"}) -> (tensor<16x3xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
    return %0 : tensor<16x3xf32>
  }
}

// -----

// Mode 2 (JAX's shape test): lhs[11,5] x rhs[5,7], sizes[3] -> [3,11,7].
// CHECK-LABEL: func.func public @main(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]> : tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32> -> tensor<3x11x7xf32>
module @jit_ragged_dot_general attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<11x5xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<5x7xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<3xi32> {mhlo.layout_mode = "default"}) -> (tensor<3x11x7xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]>}> : (tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32>) -> tensor<3x11x7xf32>
    return %0 : tensor<3x11x7xf32>
  }
}

// -----

// JAX's batched shape test: lhs[2,11,5] x rhs[2,5,7], sizes[2,3] ->
// [3,2,11,7]. The ragged dim (2) is contracting, so this is mode 2 with a
// batch dim; group_sizes is [batch, g], one row of sizes per batch element.
// CHECK-LABEL: func.func public @main(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2]> : tensor<2x11x5xf32>, tensor<2x5x7xf32>, tensor<2x3xi32> -> tensor<3x2x11x7xf32>
module @jit_ragged_dot_general attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x11x5xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<2x5x7xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<2x3xi32> {mhlo.layout_mode = "default"}) -> (tensor<3x2x11x7xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2]>}> : (tensor<2x11x5xf32>, tensor<2x5x7xf32>, tensor<2x3xi32>) -> tensor<3x2x11x7xf32>
    return %0 : tensor<3x2x11x7xf32>
  }
}

// -----

// Mode 3: the ragged dim is the batch dim; a plain batched dot.
// CHECK-LABEL: func.func public @main(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<2x11x5xf32>, tensor<2x5x7xf32>, tensor<3xi32> -> tensor<2x11x7xf32>
module @jit_ragged_dot_general attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x11x5xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<2x5x7xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<3xi32> {mhlo.layout_mode = "default"}) -> (tensor<2x11x7xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]>}> : (tensor<2x11x5xf32>, tensor<2x5x7xf32>, tensor<3xi32>) -> tensor<2x11x7xf32>
    return %0 : tensor<2x11x7xf32>
  }
}

// -----

// Mode 3 with batched group sizes: the ragged batch dim (1) comes after batch
// dim 0, so group_sizes is [2, g].
// CHECK-LABEL: func.func public @main(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1]> : tensor<2x3x11x5xf32>, tensor<2x3x5x7xf32>, tensor<2x4xi32> -> tensor<2x3x11x7xf32>
module @jit_ragged_dot_general attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x11x5xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<2x3x5x7xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<2x4xi32> {mhlo.layout_mode = "default"}) -> (tensor<2x3x11x7xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1]>}> : (tensor<2x3x11x5xf32>, tensor<2x3x5x7xf32>, tensor<2x4xi32>) -> tensor<2x3x11x7xf32>
    return %0 : tensor<2x3x11x7xf32>
  }
}

// -----

// The example of XLA's tests (REFERENCES.md): mode 1 with a batch dim, the
// rhs group dim before the rhs batch dim, i64 sizes broadcast over the batch.
// CHECK-LABEL: func.func @xla_example(
// CHECK-SAME:      %[[LHS:.*]]: tensor<2x11x5xf32>, %[[RHS:.*]]: tensor<3x2x5x7xf32>, %[[GS:.*]]: tensor<3xi64>)
// CHECK:         %[[OUT:.*]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64> -> tensor<2x11x7xf32>
// CHECK-NEXT:    return %[[OUT]]
func.func @xla_example(%lhs: tensor<2x11x5xf32>, %rhs: tensor<3x2x5x7xf32>, %gs: tensor<3xi64>) -> tensor<2x11x7xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>}> : (tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64>) -> tensor<2x11x7xf32>
  return %0 : tensor<2x11x7xf32>
}

// -----

// bf16 inputs with preferred_element_type=jnp.float32: the result type is
// kept.
// CHECK-LABEL: func.func public @main(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x9xbf16>, tensor<2x9x8xbf16>, tensor<2xi32> -> tensor<64x8xf32>
module @jit_ragged_dot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64x9xbf16> {mhlo.layout_mode = "default"}, %arg1: tensor<2x9x8xbf16> {mhlo.layout_mode = "default"}, %arg2: tensor<2xi32> {mhlo.layout_mode = "default"}) -> (tensor<64x8xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<64x9xbf16>, tensor<2x9x8xbf16>, tensor<2xi32>) -> tensor<64x8xf32>
    return %0 : tensor<64x8xf32>
  }
}

// -----

// Older text: an attribute dictionary instead of properties, one precision
// entry, and a discardable dialect attribute that is carried over.
// CHECK-LABEL: func.func @attribute_dict(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {mhlo.frontend_attributes = {_xla_compute_type = "dense"}} : tensor<16x4xf16>, tensor<2x4x3xf16>, tensor<2xi32> -> tensor<16x3xf16>
func.func @attribute_dict(%lhs: tensor<16x4xf16>, %rhs: tensor<2x4x3xf16>, %gs: tensor<2xi32>) -> tensor<16x3xf16> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {mhlo.frontend_attributes = {_xla_compute_type = "dense"}, precision_config = [#chlo<precision HIGHEST>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<16x4xf16>, tensor<2x4x3xf16>, tensor<2xi32>) -> tensor<16x3xf16>
  return %0 : tensor<16x3xf16>
}

// -----

// Keys in an unusual order, explicitly empty lists, white space and newlines
// inside the opaque text; no precision_config at all.
// CHECK-LABEL: func.func @unusual_order(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<2x11x5xf64>, tensor<3x2x5x7xf64>, tensor<3xi64> -> tensor<2x11x7xf64>
func.func @unusual_order(%lhs: tensor<2x11x5xf64>, %rhs: tensor<3x2x5x7xf64>, %gs: tensor<3xi64>) -> tensor<2x11x7xf64> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<
      rhs_group_dimensions = [0],
      lhs_ragged_dimensions=[1],
      rhs_contracting_dimensions = [ 2 ],
      lhs_contracting_dimensions = [2],
      rhs_batching_dimensions = [1] ,
      lhs_batching_dimensions = [0]
    >}> : (tensor<2x11x5xf64>, tensor<3x2x5x7xf64>, tensor<3xi64>) -> tensor<2x11x7xf64>
  return %0 : tensor<2x11x7xf64>
}

// -----

// CHECK-LABEL: func.func @empty_lists(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
func.func @empty_lists(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// Dimension numbers written as a plain dictionary, and precision as strings.
// CHECK-LABEL: func.func @dictionary_dims(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]> : tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32> -> tensor<3x11x7xf32>
func.func @dictionary_dims(%lhs: tensor<11x5xf32>, %rhs: tensor<5x7xf32>, %gs: tensor<3xi32>) -> tensor<3x11x7xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = ["HIGH", "HIGH"], ragged_dot_dimension_numbers = {lhs_contracting_dimensions = [1], rhs_contracting_dimensions = array<i64: 0>, lhs_ragged_dimensions = [1]}}> : (tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32>) -> tensor<3x11x7xf32>
  return %0 : tensor<3x11x7xf32>
}

// -----

// Dynamic sizes are kept as they are.
// CHECK-LABEL: func.func @dynamic(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x4xf32>, tensor<?x4x3xf32>, tensor<?xi32> -> tensor<?x3xf32>
func.func @dynamic(%lhs: tensor<?x4xf32>, %rhs: tensor<?x4x3xf32>, %gs: tensor<?xi32>) -> tensor<?x3xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<?x4xf32>, tensor<?x4x3xf32>, tensor<?xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// The composite form: the composite is replaced, and its decomposition,
// which nothing else uses, is removed.
// CHECK-LABEL: module @jit_composite
// CHECK-LABEL: func.func public @main(
// CHECK-NOT:     stablehlo.composite
// CHECK:         %[[OUT:.*]] = gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
// CHECK-NEXT:    return %[[OUT]] : tensor<16x3xf32>
// CHECK-NOT:   func.func private @chlo.ragged_dot.impl(
// CHECK-NOT:     "stablehlo.constant"
module @jit_composite attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x4xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<2x4x3xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<2xi32> {mhlo.layout_mode = "default"}) -> (tensor<16x3xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "stablehlo.composite"(%arg0, %arg1, %arg2) <{composite_attributes = {precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}, decomposition = @chlo.ragged_dot.impl, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
    return %0 : tensor<16x3xf32>
  }
  // A stand-in for the dense decomposition that JAX writes.
  func.func private @chlo.ragged_dot.impl(%arg0: tensor<16x4xf32>, %arg1: tensor<2x4x3xf32>, %arg2: tensor<2xi32>) -> tensor<16x3xf32> {
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<16x3xf32>}> : () -> tensor<16x3xf32>
    return %0 : tensor<16x3xf32>
  }
}

// -----

// Unrelated unregistered ops and other composites are left alone.
// CHECK-LABEL: func.func public @main(
// CHECK:         %[[SUM:.*]] = "stablehlo.add"(%arg0, %arg0) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
// CHECK:         %[[TANH:.*]] = "stablehlo.composite"(%[[SUM]]) <{decomposition = @my_tanh, name = "my.tanh"}> : (tensor<16x4xf32>) -> tensor<16x4xf32>
// CHECK:         %[[OUT:.*]] = gmm.ragged_dot %[[TANH]], %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
// CHECK:         %[[NEG:.*]] = "stablehlo.negate"(%[[OUT]]) : (tensor<16x3xf32>) -> tensor<16x3xf32>
// CHECK:         return %[[NEG]]
// CHECK-LABEL: func.func private @my_tanh(
// CHECK:         "stablehlo.tanh"(%arg0)
module @jit_mixed attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x4xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg1: tensor<2x4x3xf32> {mhlo.layout_mode = "default"}, %arg2: tensor<2xi32> {mhlo.layout_mode = "default"}) -> (tensor<16x3xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %1 = "stablehlo.composite"(%0) <{decomposition = @my_tanh, name = "my.tanh"}> : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %2 = "chlo.ragged_dot"(%1, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
    %3 = "stablehlo.negate"(%2) : (tensor<16x3xf32>) -> tensor<16x3xf32>
    return %3 : tensor<16x3xf32>
  }
  func.func private @my_tanh(%arg0: tensor<16x4xf32>) -> tensor<16x4xf32> {
    %0 = "stablehlo.tanh"(%arg0) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    return %0 : tensor<16x4xf32>
  }
}

// -----

// Ops nested in regions of unregistered ops are imported too.
// CHECK-LABEL: func.func @nested(
// CHECK:         "stablehlo.while"
// CHECK:         gmm.ragged_dot
// CHECK-NOT:     chlo.ragged_dot
func.func @nested(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = "stablehlo.while"(%lhs) ({
    ^bb0(%x: tensor<16x4xf32>):
      %1 = "chlo.ragged_dot"(%x, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
      "stablehlo.return"(%1) : (tensor<16x3xf32>) -> ()
  }) : (tensor<16x4xf32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// Dimension numbers already in gmm's own form are taken as they are.
// CHECK-LABEL: func.func @gmm_dims(
// CHECK:         gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
func.func @gmm_dims(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// What JAX 0.8.1's jax.export wrote for jax.lax.ragged_dot (platform cuda),
// printed in generic form: a stablehlo.custom_call @chlo.ragged_dot whose
// mhlo.attributes hold the dimension numbers as six dense i64 tensors and
// the precisions as strings. (JAX 0.10 writes a composite:
// jax-export.mlir.)
// CHECK-LABEL: func.func public @custom_call_jax_0_8
// CHECK-SAME:      (%[[LHS:.*]]: tensor<16x8xbf16>, %[[RHS:.*]]: tensor<4x8x6xbf16>, %[[GS:.*]]: tensor<4xi32>)
// CHECK-NEXT:    %[[R:.*]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x8xbf16>, tensor<4x8x6xbf16>, tensor<4xi32> -> tensor<16x6xbf16>
// CHECK-NOT:     mhlo.
// CHECK-NEXT:    return %[[R]]
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{function_type = (tensor<16x8xbf16>, tensor<4x8x6xbf16>, tensor<4xi32>) -> tensor<16x6xbf16>, res_attrs = [{jax.result_info = "result"}], sym_name = "custom_call_jax_0_8", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<16x8xbf16>, %arg1: tensor<4x8x6xbf16>, %arg2: tensor<4xi32>):
    %0 = "stablehlo.custom_call"(%arg0, %arg1, %arg2) <{call_target_name = "chlo.ragged_dot"}> {mhlo.attributes = {precision_config = ["DEFAULT", "DEFAULT"], ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}, mhlo.version = 1 : i64} : (tensor<16x8xbf16>, tensor<4x8x6xbf16>, tensor<4xi32>) -> tensor<16x6xbf16>
    "func.return"(%0) : (tensor<16x6xbf16>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// A decomposition function that something else still calls stays; one that
// only the imported composite used goes, with the private helper it called.
// CHECK-LABEL: func.func public @composite_keeps_used_decomposition
// CHECK:         gmm.ragged_dot
// CHECK:         call @still_used
// CHECK-LABEL: func.func private @still_used
// CHECK-NOT:     func.func private @only_composite
// CHECK-NOT:     func.func private @helper
func.func public @composite_keeps_used_decomposition(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> (tensor<8x3xf32>, tensor<8x3xf32>) {
  %0 = "stablehlo.composite"(%lhs, %rhs, %gs) <{composite_attributes = {precision_config = ["DEFAULT", "DEFAULT"], ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}, decomposition = @still_used, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  %1 = "stablehlo.composite"(%lhs, %rhs, %gs) <{composite_attributes = {precision_config = ["DEFAULT", "DEFAULT"], ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}, decomposition = @only_composite, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  %2 = func.call @still_used(%lhs, %rhs, %gs) : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  return %0, %2 : tensor<8x3xf32>, tensor<8x3xf32>
}
func.func private @still_used(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  %0 = "stablehlo.dot_general"(%lhs, %rhs) : (tensor<8x4xf32>, tensor<2x4x3xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}
func.func private @only_composite(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  %0 = func.call @helper(%lhs, %rhs) : (tensor<8x4xf32>, tensor<2x4x3xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}
func.func private @helper(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>) -> tensor<8x3xf32> {
  %0 = "stablehlo.dot_general"(%lhs, %rhs) : (tensor<8x4xf32>, tensor<2x4x3xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}
