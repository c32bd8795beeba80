// Expert parallelism: the routing produced sizes for all 8 experts, but this
// device holds only 2 of them (experts [offset, offset + 2)). Rows routed to
// other experts are left as they are in %partial (the accumulator), so the
// results of several devices can be summed.
func.func @expert_parallel(%tokens: tensor<64x32xf16>,
                           %local_weights: tensor<2x48x32xf16>,
                           %group_sizes: tensor<8xi32>,
                           %offset: tensor<i32>,
                           %partial: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // The weights are stored transposed ([expert, n, k]); the dimension numbers
  // say so, and no transposed copy is made.
  %out = gmm.ragged_dot %tokens, %local_weights, %group_sizes
      group_offset(%offset : tensor<i32>)
      init(%partial : tensor<64x48xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<64x32xf16>, tensor<2x48x32xf16>, tensor<8xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
