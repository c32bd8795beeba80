// RUN: gmm-opt %s -split-input-file -verify-diagnostics -gmm-aot-destination-results

// expected-error @+1 {{'func.func' op result 0 is 'i32': only ranked tensors without an encoding can be written into a caller's buffer}}
func.func @scalar(%a: tensor<4xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %a[%c0] : tensor<4xi32>
  return %x : i32
}

// -----

// expected-error @+1 {{'func.func' op is referenced inside the module; only functions that nothing in the module uses can return through their caller's buffers}}
func.func @callee(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @callee(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
