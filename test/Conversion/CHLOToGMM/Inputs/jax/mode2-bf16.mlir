// Written by jax.export (JAX 0.10.2, platform cuda) for jax.lax.ragged_dot_general;
// regenerate with make-fixtures.py.
"builtin.module"() <{sym_name = "jit_fn"}> ({
  "func.func"() <{function_type = (tensor<4x12xbf16>, tensor<12x3xbf16>, tensor<4xi32>) -> tensor<4x4x3xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg3: tensor<4x12xbf16>, %arg4: tensor<12x3xbf16>, %arg5: tensor<4xi32>):
    %56 = "stablehlo.composite"(%arg3, %arg4, %arg5) <{composite_attributes = {precision_config = ["DEFAULT", "DEFAULT"], ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<> : tensor<0xi64>]}, decomposition = @chlo.ragged_dot.impl, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<4x12xbf16>, tensor<12x3xbf16>, tensor<4xi32>) -> tensor<4x4x3xf32>
    "func.return"(%56) : (tensor<4x4x3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x12xbf16>, tensor<12x3xbf16>, tensor<4xi32>) -> tensor<4x4x3xf32>, sym_name = "chlo.ragged_dot.impl", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<4x12xbf16>, %arg1: tensor<12x3xbf16>, %arg2: tensor<4xi32>):
    %0 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<4x12xbf16>}> : () -> tensor<4x12xbf16>
    %1 = "stablehlo.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %2 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<1x12xi64>
    %3 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 1>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
    %4 = "stablehlo.reshape"(%3) : (tensor<1xi32>) -> tensor<i32>
    %5 = "stablehlo.convert"(%4) : (tensor<i32>) -> tensor<i64>
    %6 = "stablehlo.add"(%1, %5) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %7 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<4x12xi64>
    %8 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<4x12xi64>
    %9 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x12xi64>) -> tensor<4x12xi64>
    %10 = "stablehlo.compare"(%9, %7) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<4x12xi64>, tensor<4x12xi64>) -> tensor<4x12xi1>
    %11 = "stablehlo.compare"(%9, %8) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x12xi64>, tensor<4x12xi64>) -> tensor<4x12xi1>
    %12 = "stablehlo.and"(%10, %11) : (tensor<4x12xi1>, tensor<4x12xi1>) -> tensor<4x12xi1>
    %13 = "stablehlo.select"(%12, %arg0, %0) : (tensor<4x12xi1>, tensor<4x12xbf16>, tensor<4x12xbf16>) -> tensor<4x12xbf16>
    %14 = "stablehlo.dot_general"(%13, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x12xbf16>, tensor<12x3xbf16>) -> tensor<4x3xf32>
    %15 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 2>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
    %16 = "stablehlo.reshape"(%15) : (tensor<1xi32>) -> tensor<i32>
    %17 = "stablehlo.convert"(%16) : (tensor<i32>) -> tensor<i64>
    %18 = "stablehlo.add"(%6, %17) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %19 = "stablehlo.broadcast_in_dim"(%6) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<4x12xi64>
    %20 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<4x12xi64>
    %21 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x12xi64>) -> tensor<4x12xi64>
    %22 = "stablehlo.compare"(%21, %19) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<4x12xi64>, tensor<4x12xi64>) -> tensor<4x12xi1>
    %23 = "stablehlo.compare"(%21, %20) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x12xi64>, tensor<4x12xi64>) -> tensor<4x12xi1>
    %24 = "stablehlo.and"(%22, %23) : (tensor<4x12xi1>, tensor<4x12xi1>) -> tensor<4x12xi1>
    %25 = "stablehlo.select"(%24, %arg0, %0) : (tensor<4x12xi1>, tensor<4x12xbf16>, tensor<4x12xbf16>) -> tensor<4x12xbf16>
    %26 = "stablehlo.dot_general"(%25, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x12xbf16>, tensor<12x3xbf16>) -> tensor<4x3xf32>
    %27 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 3>, start_indices = array<i64: 2>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
    %28 = "stablehlo.reshape"(%27) : (tensor<1xi32>) -> tensor<i32>
    %29 = "stablehlo.convert"(%28) : (tensor<i32>) -> tensor<i64>
    %30 = "stablehlo.add"(%18, %29) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %31 = "stablehlo.broadcast_in_dim"(%18) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<4x12xi64>
    %32 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<4x12xi64>
    %33 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x12xi64>) -> tensor<4x12xi64>
    %34 = "stablehlo.compare"(%33, %31) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<4x12xi64>, tensor<4x12xi64>) -> tensor<4x12xi1>
    %35 = "stablehlo.compare"(%33, %32) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x12xi64>, tensor<4x12xi64>) -> tensor<4x12xi1>
    %36 = "stablehlo.and"(%34, %35) : (tensor<4x12xi1>, tensor<4x12xi1>) -> tensor<4x12xi1>
    %37 = "stablehlo.select"(%36, %arg0, %0) : (tensor<4x12xi1>, tensor<4x12xbf16>, tensor<4x12xbf16>) -> tensor<4x12xbf16>
    %38 = "stablehlo.dot_general"(%37, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x12xbf16>, tensor<12x3xbf16>) -> tensor<4x3xf32>
    %39 = "stablehlo.slice"(%arg2) <{limit_indices = array<i64: 4>, start_indices = array<i64: 3>, strides = array<i64: 1>}> : (tensor<4xi32>) -> tensor<1xi32>
    %40 = "stablehlo.reshape"(%39) : (tensor<1xi32>) -> tensor<i32>
    %41 = "stablehlo.convert"(%40) : (tensor<i32>) -> tensor<i64>
    %42 = "stablehlo.add"(%30, %41) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %43 = "stablehlo.broadcast_in_dim"(%30) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<4x12xi64>
    %44 = "stablehlo.broadcast_in_dim"(%42) <{broadcast_dimensions = array<i64>}> : (tensor<i64>) -> tensor<4x12xi64>
    %45 = "stablehlo.broadcast_in_dim"(%2) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x12xi64>) -> tensor<4x12xi64>
    %46 = "stablehlo.compare"(%45, %43) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<4x12xi64>, tensor<4x12xi64>) -> tensor<4x12xi1>
    %47 = "stablehlo.compare"(%45, %44) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x12xi64>, tensor<4x12xi64>) -> tensor<4x12xi1>
    %48 = "stablehlo.and"(%46, %47) : (tensor<4x12xi1>, tensor<4x12xi1>) -> tensor<4x12xi1>
    %49 = "stablehlo.select"(%48, %arg0, %0) : (tensor<4x12xi1>, tensor<4x12xbf16>, tensor<4x12xbf16>) -> tensor<4x12xbf16>
    %50 = "stablehlo.dot_general"(%49, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<4x12xbf16>, tensor<12x3xbf16>) -> tensor<4x3xf32>
    %51 = "stablehlo.reshape"(%14) : (tensor<4x3xf32>) -> tensor<1x4x3xf32>
    %52 = "stablehlo.reshape"(%26) : (tensor<4x3xf32>) -> tensor<1x4x3xf32>
    %53 = "stablehlo.reshape"(%38) : (tensor<4x3xf32>) -> tensor<1x4x3xf32>
    %54 = "stablehlo.reshape"(%50) : (tensor<4x3xf32>) -> tensor<1x4x3xf32>
    %55 = "stablehlo.concatenate"(%51, %52, %53, %54) <{dimension = 0 : i64}> : (tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3xf32>) -> tensor<4x4x3xf32>
    "func.return"(%55) : (tensor<4x4x3xf32>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
