// Written by jax.export (JAX 0.10.2, platform cuda) for jax.lax.ragged_dot_general;
// regenerate with make-fixtures.py.
"builtin.module"() <{sym_name = "jit_fn"}> ({
  "func.func"() <{function_type = (tensor<16x8xbf16>, tensor<4x8x6xbf16>, tensor<4xi32>) -> tensor<16x6xbf16>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg3: tensor<16x8xbf16>, %arg4: tensor<4x8x6xbf16>, %arg5: tensor<4xi32>):
    %62 = "stablehlo.composite"(%arg3, %arg4, %arg5) <{composite_attributes = {precision_config = ["DEFAULT", "DEFAULT"], ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}, decomposition = @chlo.ragged_dot.impl, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<16x8xbf16>, tensor<4x8x6xbf16>, tensor<4xi32>) -> tensor<16x6xbf16>
    "func.return"(%62) : (tensor<16x6xbf16>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<16x8xbf16>, tensor<4x8x6xbf16>, tensor<4xi32>) -> tensor<16x6xbf16>, sym_name = "chlo.ragged_dot.impl", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<16x8xbf16>, %arg1: tensor<4x8x6xbf16>, %arg2: tensor<4xi32>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<16x8xbf16>}> : () -> tensor<16x8xbf16>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %2 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<16x1xi64>
    %3 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
    %4 = "stablehlo.reshape"(%3) : (tensor<1xi32>) -> tensor<i32>
    %5 = "stablehlo.convert"(%4) : (tensor<i32>) -> tensor<i64>
    %6 = "stablehlo.add"(%1, %5) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %7 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<16x8xi64>
    %8 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<16x8xi64>
    %9 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<16x1xi64>) -> tensor<16x8xi64>
    %10 = "stablehlo.compare"(%9, %7) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<16x8xi64>, tensor<16x8xi64>) -> tensor<16x8xi1>
    %11 = "stablehlo.compare"(%9, %8) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<16x8xi64>, tensor<16x8xi64>) -> tensor<16x8xi1>
    %12 = "stablehlo.and"(%10, %11) : (tensor<16x8xi1>, tensor<16x8xi1>) -> tensor<16x8xi1>
    %13 = "stablehlo.select"(%12, %arg0, %0) : (tensor<16x8xi1>, tensor<16x8xbf16>, tensor<16x8xbf16>) -> tensor<16x8xbf16>
    %14 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 1, 8, 6>, start_indices = array<i64: 0, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<4x8x6xbf16>) -> tensor<1x8x6xbf16>
    %15 = "stablehlo.reshape"(%14) : (tensor<1x8x6xbf16>) -> tensor<8x6xbf16>
    %16 = "stablehlo.dot_general"(%13, %15) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<16x8xbf16>, tensor<8x6xbf16>) -> tensor<16x6xbf16>
    %17 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
    %18 = "stablehlo.reshape"(%17) : (tensor<1xi32>) -> tensor<i32>
    %19 = "stablehlo.convert"(%18) : (tensor<i32>) -> tensor<i64>
    %20 = "stablehlo.add"(%6, %19) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %21 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<16x8xi64>
    %22 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<16x8xi64>
    %23 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<16x1xi64>) -> tensor<16x8xi64>
    %24 = "stablehlo.compare"(%23, %21) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<16x8xi64>, tensor<16x8xi64>) -> tensor<16x8xi1>
    %25 = "stablehlo.compare"(%23, %22) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<16x8xi64>, tensor<16x8xi64>) -> tensor<16x8xi1>
    %26 = "stablehlo.and"(%24, %25) : (tensor<16x8xi1>, tensor<16x8xi1>) -> tensor<16x8xi1>
    %27 = "stablehlo.select"(%26, %arg0, %0) : (tensor<16x8xi1>, tensor<16x8xbf16>, tensor<16x8xbf16>) -> tensor<16x8xbf16>
    %28 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 2, 8, 6>, start_indices = array<i64: 1, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<4x8x6xbf16>) -> tensor<1x8x6xbf16>
    %29 = "stablehlo.reshape"(%28) : (tensor<1x8x6xbf16>) -> tensor<8x6xbf16>
    %30 = "stablehlo.dot_general"(%27, %29) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<16x8xbf16>, tensor<8x6xbf16>) -> tensor<16x6xbf16>
    %31 = "stablehlo.add"(%16, %30) : (tensor<16x6xbf16>, tensor<16x6xbf16>) -> tensor<16x6xbf16>
    %32 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 3>, start_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
    %33 = "stablehlo.reshape"(%32) : (tensor<1xi32>) -> tensor<i32>
    %34 = "stablehlo.convert"(%33) : (tensor<i32>) -> tensor<i64>
    %35 = "stablehlo.add"(%20, %34) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %36 = "stablehlo.broadcast_in_dim"(%20) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<16x8xi64>
    %37 = "stablehlo.broadcast_in_dim"(%35) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<16x8xi64>
    %38 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<16x1xi64>) -> tensor<16x8xi64>
    %39 = "stablehlo.compare"(%38, %36) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<16x8xi64>, tensor<16x8xi64>) -> tensor<16x8xi1>
    %40 = "stablehlo.compare"(%38, %37) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<16x8xi64>, tensor<16x8xi64>) -> tensor<16x8xi1>
    %41 = "stablehlo.and"(%39, %40) : (tensor<16x8xi1>, tensor<16x8xi1>) -> tensor<16x8xi1>
    %42 = "stablehlo.select"(%41, %arg0, %0) : (tensor<16x8xi1>, tensor<16x8xbf16>, tensor<16x8xbf16>) -> tensor<16x8xbf16>
    %43 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 3, 8, 6>, start_indices = array<i64: 2, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<4x8x6xbf16>) -> tensor<1x8x6xbf16>
    %44 = "stablehlo.reshape"(%43) : (tensor<1x8x6xbf16>) -> tensor<8x6xbf16>
    %45 = "stablehlo.dot_general"(%42, %44) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<16x8xbf16>, tensor<8x6xbf16>) -> tensor<16x6xbf16>
    %46 = "stablehlo.add"(%31, %45) : (tensor<16x6xbf16>, tensor<16x6xbf16>) -> tensor<16x6xbf16>
    %47 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 4>, start_indices = array<i64: 3>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
    %48 = "stablehlo.reshape"(%47) : (tensor<1xi32>) -> tensor<i32>
    %49 = "stablehlo.convert"(%48) : (tensor<i32>) -> tensor<i64>
    %50 = "stablehlo.add"(%35, %49) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %51 = "stablehlo.broadcast_in_dim"(%35) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<16x8xi64>
    %52 = "stablehlo.broadcast_in_dim"(%50) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<16x8xi64>
    %53 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<16x1xi64>) -> tensor<16x8xi64>
    %54 = "stablehlo.compare"(%53, %51) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<16x8xi64>, tensor<16x8xi64>) -> tensor<16x8xi1>
    %55 = "stablehlo.compare"(%53, %52) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<16x8xi64>, tensor<16x8xi64>) -> tensor<16x8xi1>
    %56 = "stablehlo.and"(%54, %55) : (tensor<16x8xi1>, tensor<16x8xi1>) -> tensor<16x8xi1>
    %57 = "stablehlo.select"(%56, %arg0, %0) : (tensor<16x8xi1>, tensor<16x8xbf16>, tensor<16x8xbf16>) -> tensor<16x8xbf16>
    %58 = "stablehlo.slice"(%arg1) <{limit_indices = array<i64: 4, 8, 6>, start_indices = array<i64: 3, 0, 0>, strides = array<i64: 1, 1, 1>}> : (tensor<4x8x6xbf16>) -> tensor<1x8x6xbf16>
    %59 = "stablehlo.reshape"(%58) : (tensor<1x8x6xbf16>) -> tensor<8x6xbf16>
    %60 = "stablehlo.dot_general"(%57, %59) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<16x8xbf16>, tensor<8x6xbf16>) -> tensor<16x6xbf16>
    %61 = "stablehlo.add"(%46, %60) : (tensor<16x6xbf16>, tensor<16x6xbf16>) -> tensor<16x6xbf16>
    "func.return"(%61) : (tensor<16x6xbf16>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
