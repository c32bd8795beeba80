// Written by jax.export (JAX 0.10.2, platform cuda) for jax.lax.ragged_dot_general;
// regenerate with make-fixtures.py.
"builtin.module"() <{sym_name = "jit_fn"}> ({
  "func.func"() <{function_type = (tensor<2x10x4xf32>, tensor<2x3x4x5xf32>, tensor<2x3xi32>) -> tensor<2x10x5xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg3: tensor<2x10x4xf32>, %arg4: tensor<2x3x4x5xf32>, %arg5: tensor<2x3xi32>):
    %47 = "stablehlo.composite"(%arg3, %arg4, %arg5) <{composite_attributes = {precision_config = ["DEFAULT", "DEFAULT"], ragged_dot_dimension_numbers = [dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<2> : tensor<1xi64>, dense<2> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>]}, decomposition = @chlo.ragged_dot.impl, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<2x10x4xf32>, tensor<2x3x4x5xf32>, tensor<2x3xi32>) -> tensor<2x10x5xf32>
    "func.return"(%47) : (tensor<2x10x5xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2x10x4xf32>, tensor<2x3x4x5xf32>, tensor<2x3xi32>) -> tensor<2x10x5xf32>, sym_name = "chlo.ragged_dot.impl", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x10x4xf32>, %arg1: tensor<2x3x4x5xf32>, %arg2: tensor<2x3xi32>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<2x10x4xf32>}> : () -> tensor<2x10x4xf32>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<2xi64>}> : () -> tensor<2xi64>
    %2 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<1x10x1xi64>
    %3 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 2, 1>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (tensor<2x3xi32>) -> tensor<2x1xi32>
    %4 = "stablehlo.reshape"(%3) : (tensor<2x1xi32>) -> tensor<2xi32>
    %5 = "stablehlo.convert"(%4) : (tensor<2xi32>) -> tensor<2xi64>
    %6 = "stablehlo.add"(%1, %5) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
    %7 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xi64>) -> tensor<2x10x4xi64>
    %8 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xi64>) -> tensor<2x10x4xi64>
    %9 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x10x1xi64>) -> tensor<2x10x4xi64>
    %10 = "stablehlo.compare"(%9, %7) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x10x4xi64>, tensor<2x10x4xi64>) -> tensor<2x10x4xi1>
    %11 = "stablehlo.compare"(%9, %8) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x10x4xi64>, tensor<2x10x4xi64>) -> tensor<2x10x4xi1>
    %12 = "stablehlo.and"(%10, %11) : (tensor<2x10x4xi1>, tensor<2x10x4xi1>) -> tensor<2x10x4xi1>
    %13 = "stablehlo.select"(%12, %arg0, %0) : (tensor<2x10x4xi1>, tensor<2x10x4xf32>, tensor<2x10x4xf32>) -> tensor<2x10x4xf32>
    %14 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 2, 1, 4, 5>, start_indices = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
    %15 = "stablehlo.reshape"(%14) : (tensor<2x1x4x5xf32>) -> tensor<2x4x5xf32>
    %16 = "stablehlo.dot_general"(%13, %15) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<2x10x4xf32>, tensor<2x4x5xf32>) -> tensor<2x10x5xf32>
    %17 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 2, 2>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 1>}> : (tensor<2x3xi32>) -> tensor<2x1xi32>
    %18 = "stablehlo.reshape"(%17) : (tensor<2x1xi32>) -> tensor<2xi32>
    %19 = "stablehlo.convert"(%18) : (tensor<2xi32>) -> tensor<2xi64>
    %20 = "stablehlo.add"(%6, %19) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
    %21 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xi64>) -> tensor<2x10x4xi64>
    %22 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xi64>) -> tensor<2x10x4xi64>
    %23 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x10x1xi64>) -> tensor<2x10x4xi64>
    %24 = "stablehlo.compare"(%23, %21) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x10x4xi64>, tensor<2x10x4xi64>) -> tensor<2x10x4xi1>
    %25 = "stablehlo.compare"(%23, %22) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x10x4xi64>, tensor<2x10x4xi64>) -> tensor<2x10x4xi1>
    %26 = "stablehlo.and"(%24, %25) : (tensor<2x10x4xi1>, tensor<2x10x4xi1>) -> tensor<2x10x4xi1>
    %27 = "stablehlo.select"(%26, %arg0, %0) : (tensor<2x10x4xi1>, tensor<2x10x4xf32>, tensor<2x10x4xf32>) -> tensor<2x10x4xf32>
    %28 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 2, 2, 4, 5>, start_indices = array<i64: 0, 1, 0, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
    %29 = "stablehlo.reshape"(%28) : (tensor<2x1x4x5xf32>) -> tensor<2x4x5xf32>
    %30 = "stablehlo.dot_general"(%27, %29) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<2x10x4xf32>, tensor<2x4x5xf32>) -> tensor<2x10x5xf32>
    %31 = "stablehlo.add"(%16, %30) : (tensor<2x10x5xf32>, tensor<2x10x5xf32>) -> tensor<2x10x5xf32>
    %32 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 2, 3>, start_indices = array<i64: 0, 2>, strides = array<i64: 1, 1>}> : (tensor<2x3xi32>) -> tensor<2x1xi32>
    %33 = "stablehlo.reshape"(%32) : (tensor<2x1xi32>) -> tensor<2xi32>
    %34 = "stablehlo.convert"(%33) : (tensor<2xi32>) -> tensor<2xi64>
    %35 = "stablehlo.add"(%20, %34) : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
    %36 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xi64>) -> tensor<2x10x4xi64>
    %37 = "stablehlo.broadcast_in_dim"(%35) <{broadcast_dimensions = array<i64: 0>}> : (tensor<2xi64>) -> tensor<2x10x4xi64>
    %38 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1, 2>}> : (tensor<1x10x1xi64>) -> tensor<2x10x4xi64>
    %39 = "stablehlo.compare"(%38, %36) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x10x4xi64>, tensor<2x10x4xi64>) -> tensor<2x10x4xi1>
    %40 = "stablehlo.compare"(%38, %37) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x10x4xi64>, tensor<2x10x4xi64>) -> tensor<2x10x4xi1>
    %41 = "stablehlo.and"(%39, %40) : (tensor<2x10x4xi1>, tensor<2x10x4xi1>) -> tensor<2x10x4xi1>
    %42 = "stablehlo.select"(%41, %arg0, %0) : (tensor<2x10x4xi1>, tensor<2x10x4xf32>, tensor<2x10x4xf32>) -> tensor<2x10x4xf32>
    %43 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 2, 3, 4, 5>, start_indices = array<i64: 0, 2, 0, 0>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
    %44 = "stablehlo.reshape"(%43) : (tensor<2x1x4x5xf32>) -> tensor<2x4x5xf32>
    %45 = "stablehlo.dot_general"(%42, %44) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<2x10x4xf32>, tensor<2x4x5xf32>) -> tensor<2x10x5xf32>
    %46 = "stablehlo.add"(%31, %45) : (tensor<2x10x5xf32>, tensor<2x10x5xf32>) -> tensor<2x10x5xf32>
    "func.return"(%46) : (tensor<2x10x5xf32>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
