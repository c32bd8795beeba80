#id = affine_map<(d0) -> (d0)>
func.func @f(%t: tensor<?xi64>, %e: tensor<?xi64>) -> tensor<?xi64> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = [2147483648]} ins(%t : tensor<?xi64>) outs(%e : tensor<?xi64>) {
  ^bb0(%a: i64, %b: i64):
    linalg.yield %a : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}
