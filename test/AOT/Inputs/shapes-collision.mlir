func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @f_shapes(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
