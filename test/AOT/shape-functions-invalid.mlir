// RUN: gmm-opt %s -split-input-file -verify-diagnostics -gmm-aot-shape-functions

// A result size read from an element: not a size of the arguments.
func.func @from_element(%sizes: tensor<4xindex>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{the sizes of @from_element's results depend on 'tensor.extract', not only on its arguments' sizes}}
  %n = tensor.extract %sizes[%c0] : tensor<4xindex>
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}
// expected-note @-7 {{in the function compiled here}}

// -----

// expected-error @+1 {{'func.func' op has 2 blocks; gmm-aot computes the sizes of functions of one block (structured control flow)}}
func.func @blocks(%a: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result 0 is 'f32': gmm-aot returns ranked tensors only}}
func.func @scalar(%a: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %a[%c0] : tensor<4xf32>
  return %x : f32
}

// -----

// expected-error @+1 {{'func.func' op argument 0 is 'f32': gmm-aot passes ranked tensors and memrefs only}}
func.func @scalar_argument(%x: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op needs the name @taken_shapes for its shape function, which the module already uses}}
func.func @taken(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @taken_shapes()
