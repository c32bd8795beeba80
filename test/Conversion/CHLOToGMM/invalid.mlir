// RUN: gmm-opt %s --allow-unregistered-dialect -split-input-file -convert-chlo-to-gmm -verify-diagnostics

// Every error of the chlo.ragged_dot import, one case per split. Each is
// reported at the op that is not imported, and fails the pass.

//===----------------------------------------------------------------------===//
// The text of #chlo.ragged_dot
//===----------------------------------------------------------------------===//

func.func @unknown_key(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has unknown key 'lhs_group_dimensions' in #chlo.ragged_dot (expected one of lhs_batching_dimensions, rhs_batching_dimensions, lhs_contracting_dimensions, rhs_contracting_dimensions, lhs_ragged_dimensions, rhs_group_dimensions)}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], lhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @duplicate_key(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has duplicate key 'lhs_ragged_dimensions' in #chlo.ragged_dot}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_ragged_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @missing_equal(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has malformed #chlo.ragged_dot: expected '=' after 'lhs_contracting_dimensions' at offset 38 of 'ragged_dot<lhs_contracting_dimensions [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>'}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @not_an_integer(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has malformed #chlo.ragged_dot: expected an integer at offset 41}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [x], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @missing_comma(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has malformed #chlo.ragged_dot: expected ',' or ']'}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1 2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @trailing_comma(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has malformed #chlo.ragged_dot: expected a key}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0],>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @wrong_dims_attribute(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op expects 'ragged_dot_dimension_numbers' to be a #chlo.ragged_dot attribute, got #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @missing_dims(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op expects a 'ragged_dot_dimension_numbers' attribute}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

//===----------------------------------------------------------------------===//
// precision_config and other attributes
//===----------------------------------------------------------------------===//

// -----

func.func @unsupported_precision(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has unsupported precision 'PACKED_NIBBLE' (expected DEFAULT, HIGH or HIGHEST)}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision PACKED_NIBBLE>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @three_precisions(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op expects at most 2 'precision_config' entries, got 3}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @precision_not_an_enum(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op expects #chlo<precision ...> entries in 'precision_config', got 1 : i32}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [1 : i32], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @unsupported_property(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has unsupported attribute 'foo' on chlo.ragged_dot}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{foo = 1 : i32, ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @unsupported_attribute(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has unsupported attribute 'group_offset' on chlo.ragged_dot}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {group_offset = 1 : i32, ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @property_and_attribute(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has 'precision_config' both as a property and as an attribute}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> {precision_config = []} : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @composite_extra_attribute(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'stablehlo.composite' op has unsupported attribute 'group_offset' on composite_attributes of stablehlo.composite "chlo.ragged_dot"}}
  %0 = "stablehlo.composite"(%lhs, %rhs, %gs) <{composite_attributes = {group_offset = 1 : i64, ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}, decomposition = @impl, name = "chlo.ragged_dot"}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}
func.func private @impl(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32>

// -----

func.func @composite_without_dims(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'stablehlo.composite' op expects a 'ragged_dot_dimension_numbers' attribute}}
  %0 = "stablehlo.composite"(%lhs, %rhs, %gs) <{decomposition = @impl, name = "chlo.ragged_dot"}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}
func.func private @impl(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32>

//===----------------------------------------------------------------------===//
// Operands and types
//===----------------------------------------------------------------------===//

// -----

func.func @i8_inputs(%lhs: tensor<16x4xi8>, %rhs: tensor<2x4x3xi8>, %gs: tensor<2xi32>) -> tensor<16x3xi32> {
  // expected-error @+1 {{'chlo.ragged_dot' op lhs element type 'i8' is not supported by gmm.ragged_dot (expected f16, bf16, f32 or f64)}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xi8>, tensor<2x4x3xi8>, tensor<2xi32>) -> tensor<16x3xi32>
  return %0 : tensor<16x3xi32>
}

// -----

func.func @f8_inputs(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf8E4M3FN>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op rhs element type 'f8E4M3FN' is not supported by gmm.ragged_dot (expected f16, bf16, f32 or f64)}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf8E4M3FN>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @ui32_sizes(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xui32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op group_sizes element type 'ui32' is not supported by gmm.ragged_dot (expected i32 or i64)}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xui32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @unranked(%lhs: tensor<*xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op expects lhs to be a ranked tensor, got 'tensor<*xf32>'}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<*xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @mixed_inputs(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op lhs element type 'bf16' differs from rhs element type 'f32'}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xbf16>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @two_operands(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op expects 3 operands (lhs, rhs, group_sizes) and 1 result, got 2 and 1}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

//===----------------------------------------------------------------------===//
// Dimension numbers that gmm.ragged_dot's verifier rejects
//===----------------------------------------------------------------------===//

// -----

func.func @two_ragged_dims(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op expects exactly one lhs ragged dimension, got 2}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0, 1], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @mode1_without_group_dim(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op expects one rhs group dimension in mode 1}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]>}> : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32>) -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

func.func @group_count_mismatch(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<2xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op rhs group dimension 0 has size 3 but group_sizes has 2 groups}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<2xi32>) -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

func.func @wrong_result_shape(%lhs: tensor<11x5xf32>, %rhs: tensor<5x7xf32>, %gs: tensor<3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has result type 'tensor<11x7xf32>' but the dimension numbers give 'tensor<3x11x7xf32>'}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]>}> : (tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32>) -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// -----

// All errors of a module are reported, not only the first.
func.func @two_errors(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> (tensor<16x3xf32>, tensor<16x3xf32>) {
  // expected-error @+1 {{'chlo.ragged_dot' op has unknown key 'foo'}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<foo = [1]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  // expected-error @+1 {{'chlo.ragged_dot' op has unsupported attribute 'bar' on chlo.ragged_dot}}
  %1 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{bar, ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>
  return %0, %1 : tensor<16x3xf32>, tensor<16x3xf32>
}

// -----

// Integers of any width are legal attributes; one that does not fit a
// dimension (int64_t) is refused, not truncated (2^64 + 1 would import as 1).
func.func @dimension_wider_than_64_bits(%lhs: tensor<11x5xf32>, %rhs: tensor<5x7xf32>, %gs: tensor<3xi32>) -> tensor<3x11x7xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has a dimension in 'lhs_contracting_dimensions' that does not fit in 64 bits: 18446744073709551617 : i128}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = ["HIGH", "HIGH"], ragged_dot_dimension_numbers = {lhs_contracting_dimensions = [18446744073709551617 : i128], rhs_contracting_dimensions = array<i64: 0>, lhs_ragged_dimensions = [1]}}> : (tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32>) -> tensor<3x11x7xf32>
  return %0 : tensor<3x11x7xf32>
}

// -----

func.func @dimension_unsigned_64_bits(%lhs: tensor<11x5xf32>, %rhs: tensor<5x7xf32>, %gs: tensor<3xi32>) -> tensor<3x11x7xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has a dimension in 'lhs_ragged_dimensions' that does not fit in 64 bits: 18446744073709551615 : ui64}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = ["HIGH", "HIGH"], ragged_dot_dimension_numbers = {lhs_contracting_dimensions = [1], rhs_contracting_dimensions = array<i64: 0>, lhs_ragged_dimensions = [18446744073709551615 : ui64]}}> : (tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32>) -> tensor<3x11x7xf32>
  return %0 : tensor<3x11x7xf32>
}

// -----

// A wide integer type whose value fits is taken as its value (i128 1 and -1).
func.func @dimension_wide_type_small_value(%lhs: tensor<11x5xf32>, %rhs: tensor<5x7xf32>, %gs: tensor<3xi32>) -> tensor<3x11x7xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op lhs_ragged_dimensions[0] = -1 is out of range for lhs of rank 2}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = ["HIGH", "HIGH"], ragged_dot_dimension_numbers = {lhs_contracting_dimensions = [1 : i128], rhs_contracting_dimensions = array<i64: 0>, lhs_ragged_dimensions = [-1 : i128]}}> : (tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi32>) -> tensor<3x11x7xf32>
  return %0 : tensor<3x11x7xf32>
}

// -----

//===----------------------------------------------------------------------===//
// The array form that jax.export writes, and stablehlo.custom_call
//===----------------------------------------------------------------------===//

func.func @array_form_five_lists(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'stablehlo.composite' op expects 'ragged_dot_dimension_numbers' as an array to hold 6 lists (lhs_batching_dimensions, rhs_batching_dimensions, lhs_contracting_dimensions, rhs_contracting_dimensions, lhs_ragged_dimensions, rhs_group_dimensions), got 5}}
  %0 = "stablehlo.composite"(%lhs, %rhs, %gs) <{composite_attributes = {ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>]}, decomposition = @impl, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @array_form_matrix(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'stablehlo.composite' op expects a list of integers (rank 0 or 1) for 'lhs_contracting_dimensions', got dense<1> : tensor<1x1xi64>}}
  %0 = "stablehlo.composite"(%lhs, %rhs, %gs) <{composite_attributes = {ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1x1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}, decomposition = @impl, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @array_form_not_integers(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'stablehlo.composite' op expects a list of integers for 'rhs_group_dimensions', got "0"}}
  %0 = "stablehlo.composite"(%lhs, %rhs, %gs) <{composite_attributes = {ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, "0"]}, decomposition = @impl, name = "chlo.ragged_dot", version = 1 : i32}> : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @custom_call_side_effect(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'stablehlo.custom_call' op has unsupported attribute 'has_side_effect' = true on stablehlo.custom_call @chlo.ragged_dot}}
  %0 = "stablehlo.custom_call"(%lhs, %rhs, %gs) <{call_target_name = "chlo.ragged_dot", has_side_effect = true}> {mhlo.attributes = {ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}} : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @custom_call_layouts(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'stablehlo.custom_call' op has unsupported attribute 'operand_layouts' = [dense<[0, 1]> : tensor<2xindex>] on stablehlo.custom_call @chlo.ragged_dot}}
  %0 = "stablehlo.custom_call"(%lhs, %rhs, %gs) <{call_target_name = "chlo.ragged_dot", operand_layouts = [dense<[0, 1]> : tensor<2xindex>]}> {mhlo.attributes = {ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}} : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @custom_call_attributes_not_a_dictionary(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<8x3xf32> {
  // expected-error @+1 {{'stablehlo.custom_call' op expects 'mhlo.attributes' to be a dictionary, got [1]}}
  %0 = "stablehlo.custom_call"(%lhs, %rhs, %gs) <{call_target_name = "chlo.ragged_dot"}> {mhlo.attributes = [1]} : (tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

// Another custom call is not gmm's business: it is left alone, silently.
func.func @other_custom_call(%lhs: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = "stablehlo.custom_call"(%lhs) <{call_target_name = "Sharding"}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// A splat of a few bytes of text may name billions of dimensions: refused by
// its length, before any is read (the fuzzer found the import running out of
// memory on it).
func.func @splat_list_of_four_billion(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<3xi32>) -> tensor<11x7xf32> {
  // expected-error @+1 {{'chlo.ragged_dot' op has 4294967296 dimensions in 'lhs_batching_dimensions', more than the 4096 a list may have}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{precision_config = ["HIGH", "HIGH"], ragged_dot_dimension_numbers = [dense<0> : tensor<4294967296xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}> : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi32>) -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}
