// The weight gradient of the expert layer in examples/moe_forward.mlir
// (mode 2, ragged contracting dimension): for each expert i,
// d_weights[i] = tokens[rows of i]^T * d_out[rows of i], accumulated into the
// gradient buffer of the previous micro-batch. An expert with no tokens keeps
// its slice of %acc.
func.func @moe_weight_grad(%tokens: tensor<64x32xf32>,
                           %d_out: tensor<64x48xf32>,
                           %group_sizes: tensor<4xi32>,
                           %acc: tensor<4x32x48xf32>) -> tensor<4x32x48xf32> {
  %d_weights = gmm.ragged_dot %tokens, %d_out, %group_sizes
      init(%acc : tensor<4x32x48xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<64x32xf32>, tensor<64x48xf32>, tensor<4xi32> -> tensor<4x32x48xf32>
  return %d_weights : tensor<4x32x48xf32>
}
