// RUN: gmm-opt %s -split-input-file -verify-diagnostics

// Parse errors of the #gmm.ragged_dot dimension numbers attribute, both as a
// standalone attribute and inside the custom assembly of gmm.ragged_dot.

// expected-error @+1 {{unknown key 'foo' in #gmm.ragged_dot; expected one of lhs_batching_dimensions, rhs_batching_dimensions, lhs_contracting_dimensions, rhs_contracting_dimensions, lhs_ragged_dimensions, rhs_group_dimensions}}
#dims = #gmm.ragged_dot<foo = [1]>

// -----

// A misspelt key inside the op's custom assembly.
func.func @unknown_key_in_op(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{custom op 'gmm.ragged_dot' unknown key 'rhs_group_dimension' in #gmm.ragged_dot; expected one of lhs_batching_dimensions, rhs_batching_dimensions, lhs_contracting_dimensions, rhs_contracting_dimensions, lhs_ragged_dimensions, rhs_group_dimensions}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimension = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// expected-error @+1 {{duplicate key 'lhs_ragged_dimensions' in #gmm.ragged_dot}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions = [0], lhs_ragged_dimensions = [1]>

// -----

// Keys may come in any order, but each only once.
func.func @duplicate_key_in_op(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{custom op 'gmm.ragged_dot' duplicate key 'lhs_contracting_dimensions' in #gmm.ragged_dot}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], lhs_contracting_dimensions = [1], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// Duplicate keys are also rejected in the generic form's properties.
func.func @duplicate_key_generic(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{duplicate key 'rhs_group_dimensions' in #gmm.ragged_dot}}
  %0 = "gmm.ragged_dot"(%lhs, %rhs, %gs) <{dimension_numbers = #gmm.ragged_dot<rhs_group_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// expected-error @+1 {{expected '='}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions [0]>

// -----

// expected-error @+1 {{expected '['}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions = 0>

// -----

// expected-error @+1 {{expected integer value}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions = [a]>

// -----

// expected-error @+1 {{expected integer value}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions = [1.5]>

// -----

// A trailing comma in a list.
// expected-error @+1 {{expected integer value}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions = [0, ]>

// -----

// expected-error @+1 {{integer value too large}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions = [99999999999999999999]>

// -----

// A missing comma between two entries: the parser wants the closing '>'.
// expected-error @+1 {{expected '>'}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions = [0] rhs_group_dimensions = [0]>

// -----

// A missing '>' inside the op's custom assembly.
func.func @missing_greater_in_op(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{expected '>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0] : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// A missing '>' in the standalone form is caught by the lexer first.
// expected-error @+1 {{unbalanced '<' character in pretty dialect name}}
#dims = #gmm.ragged_dot<lhs_ragged_dimensions = [0]

// -----

// expected-error @+1 {{expected '<'}}
#dims = #gmm.ragged_dot

// -----

func.func @missing_less_in_op(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{expected '<'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = lhs_contracting_dimensions = [1]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}
