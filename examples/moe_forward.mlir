// A mixture-of-experts expert layer (mode 1): 64 routed tokens, hidden size
// 32, 4 experts with an up-projection of 48 each. Tokens are sorted by
// expert; group_sizes says how many rows belong to each expert and is only
// known at run time. bf16 in, f32 out.
func.func @moe_forward(%tokens: tensor<64x32xbf16>,
                       %expert_weights: tensor<4x32x48xbf16>,
                       %group_sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  %out = gmm.ragged_dot %tokens, %expert_weights, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<64x32xbf16>, tensor<4x32x48xbf16>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
