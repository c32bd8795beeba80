func.func @jax_group_sizes_prefix_mode1(%lhs: tensor<19x17x11x5xf32>, %rhs: tensor<3x19x5x7xf32>, %gs: tensor<19x11x3xi32>) -> tensor<19x17x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [0]> : tensor<19x17x11x5xf32>, tensor<3x19x5x7xf32>, tensor<19x11x3xi32> -> tensor<19x17x11x7xf32>
  return %0 : tensor<19x17x11x7xf32>
}f