func.func @unusual_order(%lhs: tensor<2x11x5xf64>, %rhs: tensor<3x2x5x7xf64>, %gs: tensor<3xi64>) -> tensor<2x11x7xf64> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<
      rhs_group_dimensions = [0],
      lhs_ragged_dimensions=[1],
      rhs_contracting_dimensions = [ 2 ],
      lhs_contracting_dimensions = [2],
      rhs_batching_dimensions = [1] ,
      lhs_batching_dimensions = [0]
    >}> : (tensor<2x11x5xf64>, tensor<3x2x5x7xf64>, tensor<3xi64>) -> tensor<2x11x7xf64>
}
