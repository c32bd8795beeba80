// The functions that aot-c-program.test compiles with gmm-aot and calls
// from a C program (Inputs/moe_main.c).

// Mode 1, static sizes, bf16 operands, f32 result.
func.func @moe_forward(%tokens: tensor<64x32xbf16>,
                       %weights: tensor<4x32x48xbf16>,
                       %group_sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  %out = gmm.ragged_dot %tokens, %weights, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<64x32xbf16>, tensor<4x32x48xbf16>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}

// Mode 1, a dynamic token count and a dynamic contracting size, which must
// agree between the operands.
func.func @moe_dynamic(%tokens: tensor<?x?xf32>, %weights: tensor<4x?x24xf32>,
                       %group_sizes: tensor<4xi32>) -> tensor<?x24xf32> {
  %out = gmm.ragged_dot %tokens, %weights, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<4x?x24xf32>, tensor<4xi32> -> tensor<?x24xf32>
  return %out : tensor<?x24xf32>
}

// Mode 2 (the weight gradient), a dynamic token count.
func.func @weight_grad(%x: tensor<?x16xf32>, %dy: tensor<?x24xf32>,
                       %group_sizes: tensor<3xi32>) -> tensor<3x16x24xf32> {
  %out = gmm.ragged_dot %x, %dy, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<?x16xf32>, tensor<?x24xf32>, tensor<3xi32> -> tensor<3x16x24xf32>
  return %out : tensor<3x16x24xf32>
}
