func.func @bad(%a: tensor<4x8xf32>, %b: tensor<2x9x3xf32>, %gs: tensor<2xi32>)
    -> tensor<4x3xf32> {
  %0 = gmm.ragged_dot %a, %b, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<4x8xf32>, tensor<2x9x3xf32>, tensor<2xi32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
