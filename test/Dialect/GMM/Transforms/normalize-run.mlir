// Normalization preserves the semantics: each function is run as written
// (and checked against the C++ reference), then normalized and run again on
// the same inputs, and the printed results must be identical. (--check itself
// needs the ragged dot's operands to be entry arguments, which normalization
// changes, hence the comparison with the checked original.) Group sizes are
// given explicitly: seeded sizes are only generated for an argument that
// feeds the ragged dot directly.
//
// REQUIRES: gmm-runner
// DEFINE: %{entry} =
// DEFINE: %{args} =
// DEFINE: %{compare} = gmm-runner %s -e %{entry} --seed=3 %{args} --print --check > %t.ref && grep -q "check: PASS" %t.ref && grep -v "^check:" %t.ref > %t.expected && gmm-opt %s -gmm-normalize | gmm-runner - -e %{entry} --seed=3 %{args} --print > %t.norm && diff %t.expected %t.norm

// REDEFINE: %{entry} = mode1_plain
// REDEFINE: %{args} = --values=2:3,0,5
// RUN: %{compare}
func.func @mode1_plain(%lhs: tensor<8x4xf32>, %rhs: tensor<3x4x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<3x4x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// Transposed weights, bf16 in, f32 out; sizes with a negative one and past
// the extent.
// REDEFINE: %{entry} = mode1_rhs_nk
// REDEFINE: %{args} = --values=2:2,-1,9
// RUN: %{compare}
func.func @mode1_rhs_nk(%lhs: tensor<8x4xbf16>, %rhs: tensor<3x5x4xbf16>, %gs: tensor<3xi64>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xbf16>, tensor<3x5x4xbf16>, tensor<3xi64> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// lhs [k, m] (transposed) and weights [k, g, n] (transposed).
// REDEFINE: %{entry} = mode1_transposes
// REDEFINE: %{args} = --values=2:1,4,2
// RUN: %{compare}
func.func @mode1_transposes(%lhs: tensor<4x8xf32>, %rhs: tensor<4x3x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [1]>
      : tensor<4x8xf32>, tensor<4x3x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// JAX's batched mode 1 (rhs [g, b, k, n]), group sizes [g] shared by the batch.
// REDEFINE: %{entry} = mode1_batch
// REDEFINE: %{args} = --values=2:5,0,4
// RUN: %{compare}
func.func @mode1_batch(%lhs: tensor<2x11x5xf32>, %rhs: tensor<3x2x5x7xf32>, %gs: tensor<3xi64>) -> tensor<2x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [1],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [0]>
      : tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64> -> tensor<2x11x7xf32>
  return %0 : tensor<2x11x7xf32>
}

// group_offset and init (expert sharding): global groups 1 and 2 only.
// REDEFINE: %{entry} = mode1_offset_init
// REDEFINE: %{args} = --values=2:2,3,1,2 --values=3:1
// RUN: %{compare}
func.func @mode1_offset_init(%lhs: tensor<8x4xf32>, %rhs: tensor<2x5x4xf32>, %gs: tensor<4xi32>, %off: tensor<1xi32>, %acc: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<1xi32>) init(%acc : tensor<8x5xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<2x5x4xf32>, tensor<4xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}
