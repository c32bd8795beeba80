"builtin.module"() <{sym_name = "jit_fn"}> ({
  "func.func"() <{function_type = (tensor<3x4x8xf16>, tensor<3x8x5xf16>, tensor<2xi32>) -> tensor<3x4x5xf16>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg3: tensor<3x4x8xf16>, %arg4: tensor<3x8x5xf16>, %arg5: tensor<2xi32>):
    %1 = "stablehlo.composite"(%arg3, %arg4, %arg5) <{composite_attributes = {precision_config = ["DEFAULT", "DEFAULT"], ragged_dot_dimension_numbers = [dense<0> : tensor<14294967296xi64>, dense<0> : tensor<1xi64>, dense<2> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<> : tensor<0xi64>]}, decomposition = @chlo.ragged_dot.impl, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<3x4x8xf16>, tensor<3x8x5xf16>, tensor<2xi32>) -> tensor<3x4x5xf16>
    "func.return"(%1) : (tensor<3x4x5xf16>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<3x4x8xf16>, tensor<3x8x5xf16>, tensor<2xi32>) -> tensor<3x4x5xf16>, sym_name = "chlo.ragged_dot.impl", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3x4x8xf16>, %arg1: tensor<3x8x5xf16>, %arg2: tensor<2xi32>):
    %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<3x4x8xf16>, tensor<3x8x5xf16>) -> tensor<3x4x5xf16>
    "func.return"(%0) : (tensor<3x4x5xf16>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
