// RUN: gmm-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the gmm.ragged_dot verifier (RaggedDotOp::inferResultType
// and RaggedDotOp::verify) and of its ODS operand constraints, one case per
// split. Cases marked "JAX case" are JAX's twelve shape-inference failures
// (tests/lax_test.py, test_ragged_dot_general_shape_inference_failure) with
// the same shapes and dimension numbers.

//===----------------------------------------------------------------------===//
// ODS operand and result constraints
//===----------------------------------------------------------------------===//

func.func @integer_lhs(%lhs: tensor<4x4xi32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x4xi32>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<4x4xi32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @integer_result(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xi32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<16x3xi32>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xi32>
  return %0 : tensor<16x3xi32>
}

// -----

func.func @i16_group_sizes(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi16>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op operand #2 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xi16>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi16> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// The custom assembly only takes ranked tensors.
func.func @unranked_group_sizes_custom(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<*xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{custom op 'gmm.ragged_dot' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xi32>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<*xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// The generic form reaches the ODS constraint.
func.func @unranked_group_sizes_generic(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<*xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op operand #2 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xi32>'}}
  %0 = "gmm.ragged_dot"(%lhs, %rhs, %gs) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<*xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @f32_group_offset(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<4xi32>, %off: tensor<f32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op operand #3 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<f32>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<f32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<4xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Element types and the dot_general rules
//===----------------------------------------------------------------------===//

func.func @element_type_mismatch(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs element type 'f32' differs from rhs element type 'f16'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @batching_length_mismatch(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<2x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs_batching_dimensions and rhs_batching_dimensions must have the same length, got 1 and 0}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x2x4x3xf32>, tensor<2xi32> -> tensor<2x16x3xf32>
  return %0 : tensor<2x16x3xf32>
}

// -----

func.func @contracting_length_mismatch(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs_contracting_dimensions and rhs_contracting_dimensions must have the same length, got 1 and 2}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @lhs_batching_out_of_range(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<2x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs_batching_dimensions[0] = 3 is out of range for lhs of rank 3}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [3], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x2x4x3xf32>, tensor<2xi32> -> tensor<2x16x3xf32>
  return %0 : tensor<2x16x3xf32>
}

// -----

func.func @lhs_contracting_negative(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs_contracting_dimensions[0] = -1 is out of range for lhs of rank 2}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [-1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @rhs_batching_out_of_range(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<2x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs_batching_dimensions[0] = 4 is out of range for rhs of rank 4}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [4], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x2x4x3xf32>, tensor<2xi32> -> tensor<2x16x3xf32>
  return %0 : tensor<2x16x3xf32>
}

// -----

// The index in the message is the position in the list.
func.func @rhs_contracting_negative(%lhs: tensor<16x4x5xf32>, %rhs: tensor<2x4x5x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs_contracting_dimensions[1] = -2 is out of range for rhs of rank 4}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [1, -2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4x5xf32>, tensor<2x4x5x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @lhs_contracting_listed_twice(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs dimension 1 is listed twice in lhs_contracting_dimensions}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1, 1], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @rhs_batching_listed_twice(%lhs: tensor<2x2x16x4xf32>, %rhs: tensor<2x2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<2x2x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs dimension 0 is listed twice in rhs_batching_dimensions}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<2x2x16x4xf32>, tensor<2x2x4x3xf32>, tensor<2xi32> -> tensor<2x2x16x3xf32>
  return %0 : tensor<2x2x16x3xf32>
}

// -----

func.func @lhs_batching_and_contracting(%lhs: tensor<4x16x4xf32>, %rhs: tensor<2x4x4x3xf32>, %gs: tensor<2xi32>) -> tensor<4x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs dimension 0 is listed in both lhs_batching_dimensions and lhs_contracting_dimensions}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<4x16x4xf32>, tensor<2x4x4x3xf32>, tensor<2xi32> -> tensor<4x16x3xf32>
  return %0 : tensor<4x16x3xf32>
}

// -----

func.func @rhs_batching_and_contracting(%lhs: tensor<4x16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<4x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs dimension 1 is listed in both rhs_batching_dimensions and rhs_contracting_dimensions}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<4x16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<4x16x3xf32>
  return %0 : tensor<4x16x3xf32>
}

// -----

func.func @batching_size_mismatch(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x3x4x5xf32>, %gs: tensor<2xi32>) -> tensor<2x16x5xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs batching dimension 0 has size 2 but rhs batching dimension 1 has size 3}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x3x4x5xf32>, tensor<2xi32> -> tensor<2x16x5xf32>
  return %0 : tensor<2x16x5xf32>
}

// -----

func.func @contracting_size_mismatch(%lhs: tensor<16x4xf32>, %rhs: tensor<2x5x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs contracting dimension 1 has size 4 but rhs contracting dimension 1 has size 5}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x5x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// The ragged dimension
//===----------------------------------------------------------------------===//

func.func @no_ragged_dim(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects exactly one lhs ragged dimension, got 0}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// JAX case: two ragged dims.
func.func @jax_two_ragged_dims(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects exactly one lhs ragged dimension, got 2}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0, 1], rhs_group_dimensions = [0]> : tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32> -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

// JAX case: ragged dim out of range.
func.func @jax_ragged_dim_out_of_range(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs_ragged_dimensions[0] = 2 is out of range for lhs of rank 2}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2], rhs_group_dimensions = [0]> : tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32> -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

func.func @ragged_dim_negative(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op lhs_ragged_dimensions[0] = -1 is out of range for lhs of rank 2}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [-1], rhs_group_dimensions = [0]> : tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32> -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

//===----------------------------------------------------------------------===//
// The shape of group_sizes
//===----------------------------------------------------------------------===//

// JAX case: group_sizes [2,3] where (3,) is expected.
func.func @jax_group_sizes_rank(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<2x3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_sizes of shape [g] in mode 1 (ragged free dimension), got [2, 3]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<2x3xi32> -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

// JAX case: mode 1 shape mismatch: group_sizes (19, 17, 3) expected, (19, 11, 3) given.
func.func @jax_group_sizes_prefix_mode1(%lhs: tensor<19x17x11x5xf32>, %rhs: tensor<3x19x5x7xf32>, %gs: tensor<19x11x3xi32>) -> tensor<19x17x11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_sizes of shape [g] or [19, 17, g] in mode 1 (ragged free dimension), got [19, 11, 3]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [0]> : tensor<19x17x11x5xf32>, tensor<3x19x5x7xf32>, tensor<19x11x3xi32> -> tensor<19x17x11x7xf32>
  return %0 : tensor<19x17x11x7xf32>
}

// -----

// JAX case: mode 2 shape mismatch: group_sizes (19, 17, 3) expected, (19, 11, 3) given.
func.func @jax_group_sizes_prefix_mode2(%lhs: tensor<19x11x17x5xf32>, %rhs: tensor<19x17x5x7xf32>, %gs: tensor<19x11x3xi32>) -> tensor<3x19x11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_sizes of shape [g] or [19, 17, g] in mode 2 (ragged contracting dimension), got [19, 11, 3]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [3]> : tensor<19x11x17x5xf32>, tensor<19x17x5x7xf32>, tensor<19x11x3xi32> -> tensor<3x19x11x7xf32>
  return %0 : tensor<3x19x11x7xf32>
}

// -----

// JAX case: mode 3 shape mismatch: group_sizes (17, 3) expected, (19, 3) given.
func.func @jax_group_sizes_prefix_mode3(%lhs: tensor<17x19x11x5xf32>, %rhs: tensor<17x19x5x7xf32>, %gs: tensor<19x3xi32>) -> tensor<17x19x11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_sizes of shape [g] or [17, g] in mode 3 (ragged batching dimension), got [19, 3]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1]> : tensor<17x19x11x5xf32>, tensor<17x19x5x7xf32>, tensor<19x3xi32> -> tensor<17x19x11x7xf32>
  return %0 : tensor<17x19x11x7xf32>
}

// -----

func.func @group_sizes_rank_mode1(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x2x4x3xf32>, %gs: tensor<2x5x2xi32>) -> tensor<2x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_sizes of shape [g] or [2, g] in mode 1 (ragged free dimension), got [2, 5, 2]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x2x4x3xf32>, tensor<2x5x2xi32> -> tensor<2x16x3xf32>
  return %0 : tensor<2x16x3xf32>
}

// -----

func.func @group_sizes_rank0(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<i32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_sizes of shape [g] in mode 1 (ragged free dimension), got []}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<i32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// A dynamic prefix size prints as '?'. The mode-2 prefix is the batching
// dims, then the contracting dims listed before the ragged one.
func.func @group_sizes_rank_mode2_dynamic(%lhs: tensor<?x16x5x8xf32>, %rhs: tensor<?x5x8x3xf32>, %gs: tensor<4x2xi64>) -> tensor<2x?x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_sizes of shape [g] or [?, 5, g] in mode 2 (ragged contracting dimension), got [4, 2]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [3]> : tensor<?x16x5x8xf32>, tensor<?x5x8x3xf32>, tensor<4x2xi64> -> tensor<2x?x16x3xf32>
  return %0 : tensor<2x?x16x3xf32>
}

// -----

func.func @group_sizes_rank_mode3(%lhs: tensor<2x3x16x4xf32>, %rhs: tensor<2x3x4x5xf32>, %gs: tensor<2x3x4xi32>) -> tensor<2x3x16x5xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_sizes of shape [g] or [2, g] in mode 3 (ragged batching dimension), got [2, 3, 4]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1]> : tensor<2x3x16x4xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4xi32> -> tensor<2x3x16x5xf32>
  return %0 : tensor<2x3x16x5xf32>
}

// -----

//===----------------------------------------------------------------------===//
// The rhs group dimension
//===----------------------------------------------------------------------===//

func.func @two_rhs_group_dims(%lhs: tensor<16x4xf32>, %rhs: tensor<2x2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects at most one rhs group dimension, got 2}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0, 1]> : tensor<16x4xf32>, tensor<2x2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @rhs_group_out_of_range(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs_group_dimensions[0] = 3 is out of range for rhs of rank 3}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [3]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// JAX case: rhs group dim equal to a batch dim.
func.func @jax_rhs_group_is_batch(%lhs: tensor<19x11x5xf32>, %rhs: tensor<19x5x7xf32>, %gs: tensor<19x3xi32>) -> tensor<19x11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs dimension 0 is listed in both rhs_batching_dimensions and rhs_group_dimensions}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<19x11x5xf32>, tensor<19x5x7xf32>, tensor<19x3xi32> -> tensor<19x11x7xf32>
  return %0 : tensor<19x11x7xf32>
}

// -----

// JAX case: rhs group dim equal to a contracting dim.
func.func @jax_rhs_group_is_contracting(%lhs: tensor<11x3xf32>, %rhs: tensor<3x3x7xf32>, %gs: tensor<3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs dimension 1 is listed in both rhs_contracting_dimensions and rhs_group_dimensions}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [1]> : tensor<11x3xf32>, tensor<3x3x7xf32>, tensor<3xi32> -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

// JAX case: group count 2 against rhs group dim of size 3.
func.func @jax_group_count_mismatch(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<2xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs group dimension 0 has size 3 but group_sizes has 2 groups}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<2xi32> -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

// The group count is the last dimension of a [prefix..., g] group_sizes.
func.func @group_count_mismatch_batched(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x3x4x5xf32>, %gs: tensor<2x4xi64>) -> tensor<2x16x5xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs group dimension 1 has size 3 but group_sizes has 4 groups}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]> : tensor<2x16x4xf32>, tensor<2x3x4x5xf32>, tensor<2x4xi64> -> tensor<2x16x5xf32>
  return %0 : tensor<2x16x5xf32>
}

// -----

// JAX case: mode 3 with an rhs group dim.
func.func @jax_mode3_with_rhs_group(%lhs: tensor<2x11x5xf32>, %rhs: tensor<3x2x5x7xf32>, %gs: tensor<3xi32>) -> tensor<2x11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects no rhs group dimension in mode 3 (ragged batching dimension), got rhs_group_dimensions = [0]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi32> -> tensor<2x11x7xf32>
  return %0 : tensor<2x11x7xf32>
}

// -----

// JAX case: mode 2 with an rhs group dim.
func.func @jax_mode2_with_rhs_group(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<3xi32>) -> tensor<3x11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects no rhs group dimension in mode 2 (ragged contracting dimension), got rhs_group_dimensions = [0]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32> -> tensor<3x11x7xf32>
  return %0 : tensor<3x11x7xf32>
}

// -----

// JAX case: mode 1 without an rhs group dim.
func.func @jax_mode1_without_rhs_group(%lhs: tensor<11x5xf32>, %rhs: tensor<5x7xf32>, %gs: tensor<3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects one rhs group dimension in mode 1 (ragged free dimension), got none}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32> -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

//===----------------------------------------------------------------------===//
// group_offset
//===----------------------------------------------------------------------===//

func.func @group_offset_mode3(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>, %off: tensor<i32>) -> tensor<2x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op group_offset is not supported in mode 3 (ragged batching dimension)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<i32>) dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<2x16x3xf32>
  return %0 : tensor<2x16x3xf32>
}

// -----

func.func @group_offset_shape_2(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<4xi32>, %off: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_offset of shape [] or [1], got [2]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<2xi32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<4xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @group_offset_rank2(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<4xi32>, %off: tensor<1x1xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_offset of shape [] or [1], got [1, 1]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<1x1xi32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<4xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// A dynamic [?] offset is not known to hold one element.
func.func @group_offset_dynamic(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<4xi32>, %off: tensor<?xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects group_offset of shape [] or [1], got [?]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<?xi32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<4xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @group_offset_element_type(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<4xi32>, %off: tensor<1xi64>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op group_offset element type 'i64' differs from group_sizes element type 'i32'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<1xi64>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<4xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @group_offset_too_many_local_groups_mode1(%lhs: tensor<16x4xf32>, %rhs: tensor<4x4x3xf32>, %gs: tensor<2xi32>, %off: tensor<i32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op rhs group dimension 0 has size 4, more than the 2 groups in group_sizes}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<i32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<4x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @group_offset_too_many_local_groups_mode2(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>, %off: tensor<i64>) -> tensor<3x4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result dimension 0 has 3 local groups, more than the 2 groups in group_sizes}}
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<i64>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<3x4x3xf32>
  return %0 : tensor<3x4x3xf32>
}

// -----

func.func @group_offset_dynamic_local_groups_mode2(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>, %off: tensor<i64>) -> tensor<?x4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op needs a static result group dimension or an init operand when group_offset is given in mode 2 (ragged contracting dimension)}}
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<i64>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<?x4x3xf32>
  return %0 : tensor<?x4x3xf32>
}

// -----

// Under a group offset the mode-2 group dimension is G_local, unknown to the
// verifier: the expected shape shows it as '?'.
func.func @group_offset_result_rank_mode2(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>, %off: tensor<i64>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects result of rank 3 [?, 4, 3], got 'tensor<4x3xf32>'}}
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<i64>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// The result and init
//===----------------------------------------------------------------------===//

func.func @result_rank_mode1(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<2x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects result of rank 2 [16, 3], got 'tensor<2x16x3xf32>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<2x16x3xf32>
  return %0 : tensor<2x16x3xf32>
}

// -----

func.func @result_rank_mode2(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects result of rank 3 [2, 4, 3], got 'tensor<4x3xf32>'}}
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @result_rank_mode3(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<2x2x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects result of rank 3 [2, 16, 3], got 'tensor<2x2x16x3xf32>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<2x2x16x3xf32>
  return %0 : tensor<2x2x16x3xf32>
}

// -----

func.func @result_lhs_dim_mode1(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result dimension 0 has size 8, expected 16 (lhs dimension 0)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// The rhs group dimension is not part of the result.
func.func @result_rhs_dim_mode1(%lhs: tensor<16x4xf32>, %rhs: tensor<4x3x2xf32>, %gs: tensor<2xi32>) -> tensor<16x2xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result dimension 1 has size 2, expected 3 (rhs dimension 1)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0], rhs_group_dimensions = [2]> : tensor<16x4xf32>, tensor<4x3x2xf32>, tensor<2xi32> -> tensor<16x2xf32>
  return %0 : tensor<16x2xf32>
}

// -----

// A dynamic lhs batching size takes the static size of its rhs partner.
func.func @result_batch_dim_mode1(%lhs: tensor<?x16x4xf32>, %rhs: tensor<2x2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<3x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result dimension 0 has size 3, expected 2 (lhs batching dimension 0)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<?x16x4xf32>, tensor<2x2x4x3xf32>, tensor<2xi32> -> tensor<3x16x3xf32>
  return %0 : tensor<3x16x3xf32>
}

// -----

func.func @result_groups_dim_mode2(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>) -> tensor<3x4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result dimension 0 has size 3, expected 2 (the number of groups in group_sizes)}}
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<3x4x3xf32>
  return %0 : tensor<3x4x3xf32>
}

// -----

func.func @result_rhs_dim_mode2(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result dimension 2 has size 4, expected 3 (rhs dimension 1)}}
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

func.func @result_batch_dim_mode3(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<3x16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result dimension 0 has size 3, expected 2 (lhs batching dimension 0)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<3x16x3xf32>
  return %0 : tensor<3x16x3xf32>
}

// -----

func.func @result_lhs_dim_mode3(%lhs: tensor<2x16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<2x15x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op result dimension 1 has size 15, expected 16 (lhs dimension 1)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<2x16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<2x15x3xf32>
  return %0 : tensor<2x15x3xf32>
}

// -----

func.func @init_element_type(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>, %acc: tensor<16x3xf16>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op init type 'tensor<16x3xf16>' differs from result type 'tensor<16x3xf32>'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs init(%acc : tensor<16x3xf16>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// init must have the result type exactly, not just a compatible shape.
func.func @init_dynamic_shape(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>, %acc: tensor<?x4x3xf32>) -> tensor<2x4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op init type 'tensor<?x4x3xf32>' differs from result type 'tensor<2x4x3xf32>'}}
  %0 = gmm.ragged_dot %x, %dy, %gs init(%acc : tensor<?x4x3xf32>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Operand segments in the generic form: each required operand takes exactly
// one value, each optional one at most one, before anything reads them.
// (issue #15, class 1: an empty group_sizes segment read past the operands.)
func.func @segment_missing_group_sizes(%lhs: tensor<4x8xf32>, %rhs: tensor<2x8x3xf32>, %offset: tensor<i32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op operandSegmentSizes gives 0 values to group_sizes, which takes exactly one}}
  %0 = "gmm.ragged_dot"(%lhs, %rhs, %offset) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}> : (tensor<4x8xf32>, tensor<2x8x3xf32>, tensor<i32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @segment_empty_lhs(%lhs: tensor<4x8xf32>, %rhs: tensor<2x8x3xf32>, %gs: tensor<2xi32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op operandSegmentSizes gives 0 values to lhs, which takes exactly one}}
  %0 = "gmm.ragged_dot"(%lhs, %rhs, %gs) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 0, 2, 1, 0, 0>}> : (tensor<4x8xf32>, tensor<2x8x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Two values for group_sizes: refused, not printed back with one dropped.
func.func @segment_two_group_sizes(%lhs: tensor<4x8xf32>, %rhs: tensor<2x8x3xf32>, %gs: tensor<2xi32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op operandSegmentSizes gives 2 values to group_sizes, which takes exactly one}}
  %0 = "gmm.ragged_dot"(%lhs, %rhs, %gs, %gs) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 0>}> : (tensor<4x8xf32>, tensor<2x8x3xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @segment_sum_mismatch(%lhs: tensor<4x8xf32>, %rhs: tensor<2x8x3xf32>, %gs: tensor<2xi32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op operand count (3) does not match with the total size (4) specified in attribute 'operandSegmentSizes'}}
  %0 = "gmm.ragged_dot"(%lhs, %rhs, %gs) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<4x8xf32>, tensor<2x8x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
