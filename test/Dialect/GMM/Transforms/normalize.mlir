// RUN: gmm-opt %s -split-input-file -gmm-normalize | FileCheck %s

// Plain mode 1 (lax.ragged_dot): only reshapes, no copy.
// CHECK-LABEL: func.func @mode1_plain(
// CHECK-SAME:      %[[LHS:.+]]: tensor<8x4xf32>, %[[RHS:.+]]: tensor<3x4x5xf32>, %[[GS:.+]]: tensor<3xi32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 8, 4] : tensor<8x4xf32> into tensor<1x1x8x4xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 3, 4, 5] : tensor<3x4x5xf32> into tensor<1x3x4x5xf32>
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]] {{\[\[}}0, 1, 2]] output_shape [1, 1, 3] : tensor<3xi32> into tensor<1x1x3xi32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x8x4xf32>, tensor<1x3x4x5xf32>, tensor<1x1x3xi32> -> tensor<1x1x8x5xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x8x5xf32> into tensor<8x5xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[O]]
func.func @mode1_plain(%lhs: tensor<8x4xf32>, %rhs: tensor<3x4x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<3x4x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// Weights stored transposed [g, n, k]: kept as they are (rhs [B, G, N, K]).
// CHECK-LABEL: func.func @mode1_rhs_nk(
// CHECK-SAME:      %[[LHS:.+]]: tensor<8x4xbf16>, %[[RHS:.+]]: tensor<3x5x4xbf16>, %[[GS:.+]]: tensor<3xi64>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 8, 4] : tensor<8x4xbf16> into tensor<1x1x8x4xbf16>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 3, 5, 4] : tensor<3x5x4xbf16> into tensor<1x3x5x4xbf16>
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]] {{\[\[}}0, 1, 2]] output_shape [1, 1, 3] : tensor<3xi64> into tensor<1x1x3xi64>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x8x4xbf16>, tensor<1x3x5x4xbf16>, tensor<1x1x3xi64> -> tensor<1x1x8x5xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x8x5xf32> into tensor<8x5xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[O]]
func.func @mode1_rhs_nk(%lhs: tensor<8x4xbf16>, %rhs: tensor<3x5x4xbf16>, %gs: tensor<3xi64>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xbf16>, tensor<3x5x4xbf16>, tensor<3xi64> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// lhs [k, m]: the lhs is transposed.
// CHECK-LABEL: func.func @mode1_lhs_km(
// CHECK-SAME:      %[[LHS:.+]]: tensor<4x8xf32>, %[[RHS:.+]]: tensor<3x4x5xf32>, %[[GS:.+]]: tensor<3xi32>)
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<8x4xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[LHS]] : tensor<4x8xf32>) outs(%[[E]] : tensor<8x4xf32>) permutation = [1, 0]
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[T]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 8, 4] : tensor<8x4xf32> into tensor<1x1x8x4xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 3, 4, 5]
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]] {{\[\[}}0, 1, 2]] output_shape [1, 1, 3]
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x8x4xf32>, tensor<1x3x4x5xf32>, tensor<1x1x3xi32> -> tensor<1x1x8x5xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x8x5xf32> into tensor<8x5xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[O]]
func.func @mode1_lhs_km(%lhs: tensor<4x8xf32>, %rhs: tensor<3x4x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [0]>
      : tensor<4x8xf32>, tensor<3x4x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// JAX's batched mode 1, rhs [g, b, k, n]: the batching dim must lead, so the
// rhs is transposed; group sizes [g] are broadcast over the batch.
// CHECK-LABEL: func.func @mode1_batch(
// CHECK-SAME:      %[[LHS:.+]]: tensor<2x11x5xf32>, %[[RHS:.+]]: tensor<3x2x5x7xf32>, %[[GS:.+]]: tensor<3xi64>)
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 1, 11, 5] : tensor<2x11x5xf32> into tensor<2x1x11x5xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x3x5x7xf32>
// CHECK:         %[[R:.+]] = linalg.transpose ins(%[[RHS]] : tensor<3x2x5x7xf32>) outs(%[[E]] : tensor<2x3x5x7xf32>) permutation = [1, 0, 2, 3]
// CHECK:         %[[E2:.+]] = tensor.empty() : tensor<2x1x3xi64>
// CHECK:         %[[S:.+]] = linalg.broadcast ins(%[[GS]] : tensor<3xi64>) outs(%[[E2]] : tensor<2x1x3xi64>) dimensions = [0, 1]
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<2x1x11x5xf32>, tensor<2x3x5x7xf32>, tensor<2x1x3xi64> -> tensor<2x1x11x7xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<2x1x11x7xf32> into tensor<2x11x7xf32>
// CHECK:         return %[[O]]
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

// -----

// Group sizes with the full prefix [b0, b1, x, g]; the two batching dims
// collapse into B. No copy.
// CHECK-LABEL: func.func @mode1_prefix(
// CHECK-SAME:      %[[LHS:.+]]: tensor<2x3x4x8x6xf32>, %[[RHS:.+]]: tensor<2x3x5x6x7xf32>, %[[GS:.+]]: tensor<2x3x4x5xi32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[L:.+]] = tensor.collapse_shape %[[LHS]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<2x3x4x8x6xf32> into tensor<6x4x8x6xf32>
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[RHS]] {{\[\[}}0, 1], [2], [3], [4]] : tensor<2x3x5x6x7xf32> into tensor<6x5x6x7xf32>
// CHECK:         %[[S:.+]] = tensor.collapse_shape %[[GS]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x4x5xi32> into tensor<6x4x5xi32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<6x4x8x6xf32>, tensor<6x5x6x7xf32>, tensor<6x4x5xi32> -> tensor<6x4x8x7xf32>
// CHECK:         %[[O:.+]] = tensor.expand_shape %[[D]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 4, 8, 7] : tensor<6x4x8x7xf32> into tensor<2x3x4x8x7xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[O]]
func.func @mode1_prefix(%lhs: tensor<2x3x4x8x6xf32>, %rhs: tensor<2x3x5x6x7xf32>, %gs: tensor<2x3x4x5xi32>) -> tensor<2x3x4x8x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0, 1],
                           rhs_batching_dimensions = [0, 1],
                           lhs_contracting_dimensions = [4],
                           rhs_contracting_dimensions = [3],
                           lhs_ragged_dimensions = [3],
                           rhs_group_dimensions = [2]>
      : tensor<2x3x4x8x6xf32>, tensor<2x3x5x6x7xf32>, tensor<2x3x4x5xi32> -> tensor<2x3x4x8x7xf32>
  return %0 : tensor<2x3x4x8x7xf32>
}

// -----

// A free lhs dim after the ragged one joins X, which comes before M: the lhs
// and the result are transposed; group sizes [g] are broadcast over X.
// CHECK-LABEL: func.func @mode1_free_after(
// CHECK-SAME:      %[[LHS:.+]]: tensor<8x3x4xf32>, %[[RHS:.+]]: tensor<2x4x5xf32>, %[[GS:.+]]: tensor<2xi32>)
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<3x8x4xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[LHS]] : tensor<8x3x4xf32>) outs(%[[E]] : tensor<3x8x4xf32>) permutation = [1, 0, 2]
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[T]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 3, 8, 4] : tensor<3x8x4xf32> into tensor<1x3x8x4xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 2, 4, 5] : tensor<2x4x5xf32> into tensor<1x2x4x5xf32>
// CHECK:         %[[E2:.+]] = tensor.empty() : tensor<1x3x2xi32>
// CHECK:         %[[S:.+]] = linalg.broadcast ins(%[[GS]] : tensor<2xi32>) outs(%[[E2]] : tensor<1x3x2xi32>) dimensions = [0, 1]
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x3x8x4xf32>, tensor<1x2x4x5xf32>, tensor<1x3x2xi32> -> tensor<1x3x8x5xf32>
// CHECK:         %[[C:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<1x3x8x5xf32> into tensor<3x8x5xf32>
// CHECK:         %[[E3:.+]] = tensor.empty() : tensor<8x3x5xf32>
// CHECK:         %[[O:.+]] = linalg.transpose ins(%[[C]] : tensor<3x8x5xf32>) outs(%[[E3]] : tensor<8x3x5xf32>) permutation = [1, 0, 2]
// CHECK:         return %[[O]]
func.func @mode1_free_after(%lhs: tensor<8x3x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<2xi32>) -> tensor<8x3x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x3x4xf32>, tensor<2x4x5xf32>, tensor<2xi32> -> tensor<8x3x5xf32>
  return %0 : tensor<8x3x5xf32>
}

// -----

// Free dims before and after the ragged one with group sizes [x_before, g]:
// the sizes are broadcast along the later dim (and a unit B), then
// collapsed into X.
// CHECK-LABEL: func.func @mode1_prefix_partial(
// CHECK-SAME:      %[[LHS:.+]]: tensor<2x8x3x4xf32>, %[[RHS:.+]]: tensor<2x4x5xf32>, %[[GS:.+]]: tensor<2x2xi32>)
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x3x8x4xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[LHS]] : tensor<2x8x3x4xf32>) outs(%[[E]] : tensor<2x3x8x4xf32>) permutation = [0, 2, 1, 3]
// CHECK:         %[[C:.+]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x8x4xf32> into tensor<6x8x4xf32>
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 6, 8, 4] : tensor<6x8x4xf32> into tensor<1x6x8x4xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 2, 4, 5]
// CHECK:         %[[E2:.+]] = tensor.empty() : tensor<1x2x3x2xi32>
// CHECK:         %[[B:.+]] = linalg.broadcast ins(%[[GS]] : tensor<2x2xi32>) outs(%[[E2]] : tensor<1x2x3x2xi32>) dimensions = [0, 2]
// CHECK:         %[[S:.+]] = tensor.collapse_shape %[[B]] {{\[\[}}0], [1, 2], [3]] : tensor<1x2x3x2xi32> into tensor<1x6x2xi32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x6x8x4xf32>, tensor<1x2x4x5xf32>, tensor<1x6x2xi32> -> tensor<1x6x8x5xf32>
// CHECK:         %[[C2:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<1x6x8x5xf32> into tensor<6x8x5xf32>
// CHECK:         %[[X:.+]] = tensor.expand_shape %[[C2]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 3, 8, 5] : tensor<6x8x5xf32> into tensor<2x3x8x5xf32>
// CHECK:         %[[E3:.+]] = tensor.empty() : tensor<2x8x3x5xf32>
// CHECK:         %[[O:.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x8x5xf32>) outs(%[[E3]] : tensor<2x8x3x5xf32>) permutation = [0, 2, 1, 3]
// CHECK:         return %[[O]]
func.func @mode1_prefix_partial(%lhs: tensor<2x8x3x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<2x2xi32>) -> tensor<2x8x3x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [3],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [1],
                           rhs_group_dimensions = [0]>
      : tensor<2x8x3x4xf32>, tensor<2x4x5xf32>, tensor<2x2xi32> -> tensor<2x8x3x5xf32>
  return %0 : tensor<2x8x3x5xf32>
}

// -----

// Several contracting dims (collapsed into K) and rhs free dims (into N).
// CHECK-LABEL: func.func @mode1_multi(
// CHECK-SAME:      %[[LHS:.+]]: tensor<8x2x3xf32>, %[[RHS:.+]]: tensor<4x2x3x5x6xf32>, %[[GS:.+]]: tensor<4xi32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[C:.+]] = tensor.collapse_shape %[[LHS]] {{\[\[}}0], [1, 2]] : tensor<8x2x3xf32> into tensor<8x6xf32>
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 8, 6] : tensor<8x6xf32> into tensor<1x1x8x6xf32>
// CHECK:         %[[C2:.+]] = tensor.collapse_shape %[[RHS]] {{\[\[}}0], [1, 2], [3, 4]] : tensor<4x2x3x5x6xf32> into tensor<4x6x30xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[C2]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 4, 6, 30] : tensor<4x6x30xf32> into tensor<1x4x6x30xf32>
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]] {{\[\[}}0, 1, 2]] output_shape [1, 1, 4]
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x8x6xf32>, tensor<1x4x6x30xf32>, tensor<1x1x4xi32> -> tensor<1x1x8x30xf32>
// CHECK:         %[[C3:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x8x30xf32> into tensor<8x30xf32>
// CHECK:         %[[O:.+]] = tensor.expand_shape %[[C3]] {{\[\[}}0], [1, 2]] output_shape [8, 5, 6] : tensor<8x30xf32> into tensor<8x5x6xf32>
// CHECK:         return %[[O]]
func.func @mode1_multi(%lhs: tensor<8x2x3xf32>, %rhs: tensor<4x2x3x5x6xf32>, %gs: tensor<4xi32>) -> tensor<8x5x6xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1, 2],
                           rhs_contracting_dimensions = [1, 2],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2x3xf32>, tensor<4x2x3x5x6xf32>, tensor<4xi32> -> tensor<8x5x6xf32>
  return %0 : tensor<8x5x6xf32>
}

// -----

// Contracting pairs listed in the opposite order of both layouts: K takes
// the operands' order, no transpose.
// CHECK-LABEL: func.func @mode1_k_order(
// CHECK-NOT:     linalg.transpose
// CHECK:         tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2]] : tensor<8x2x3xf32> into tensor<8x6xf32>
// CHECK:         tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2], [3]] : tensor<4x2x3x5xf32> into tensor<4x6x5xf32>
// CHECK:         gmm.ragged_dot
// CHECK-NOT:     linalg.transpose
// CHECK:         return
func.func @mode1_k_order(%lhs: tensor<8x2x3xf32>, %rhs: tensor<4x2x3x5xf32>, %gs: tensor<4xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [2, 1],
                           rhs_contracting_dimensions = [2, 1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2x3xf32>, tensor<4x2x3x5xf32>, tensor<4xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// Weights with the group dim in the middle [k, g, n]: the rhs is transposed.
// CHECK-LABEL: func.func @mode1_rhs_kgn(
// CHECK-SAME:      %[[LHS:.+]]: tensor<8x4xf32>, %[[RHS:.+]]: tensor<4x3x5xf32>, %[[GS:.+]]: tensor<3xi32>)
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 8, 4]
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<3x4x5xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[RHS]] : tensor<4x3x5xf32>) outs(%[[E]] : tensor<3x4x5xf32>) permutation = [1, 0, 2]
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[T]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 3, 4, 5] : tensor<3x4x5xf32> into tensor<1x3x4x5xf32>
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]]
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x8x4xf32>, tensor<1x3x4x5xf32>, tensor<1x1x3xi32> -> tensor<1x1x8x5xf32>
// CHECK:         tensor.collapse_shape %[[D]]
func.func @mode1_rhs_kgn(%lhs: tensor<8x4xf32>, %rhs: tensor<4x3x5xf32>, %gs: tensor<3xi32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [1]>
      : tensor<8x4xf32>, tensor<4x3x5xf32>, tensor<3xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// Mode 2, the weight gradient x^T dy with x [m, k], dy [m, n] (m ragged):
// lhs [B, Kr, Kc, M], rhs [B, Kr, Kc, N], no copy.
// CHECK-LABEL: func.func @mode2_weight_grad(
// CHECK-SAME:      %[[X:.+]]: tensor<16x4xf32>, %[[DY:.+]]: tensor<16x3xf32>, %[[GS:.+]]: tensor<2xi64>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 16, 1, 4] : tensor<16x4xf32> into tensor<1x16x1x4xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[DY]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 16, 1, 3] : tensor<16x3xf32> into tensor<1x16x1x3xf32>
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]] {{\[\[}}0, 1]] output_shape [1, 2] : tensor<2xi64> into tensor<1x2xi64>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [1]> : tensor<1x16x1x4xf32>, tensor<1x16x1x3xf32>, tensor<1x2xi64> -> tensor<2x1x4x3xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<2x1x4x3xf32> into tensor<2x4x3xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[O]]
func.func @mode2_weight_grad(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<2xi64>) -> tensor<2x4x3xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Mode 2 as CHLO writes it: lhs [m, k] ragged k becomes [B, M, Kr, Kc], rhs
// [k, n] becomes [B, Kr, Kc, N]; no copy.
// CHECK-LABEL: func.func @mode2_chlo(
// CHECK-SAME:      %[[LHS:.+]]: tensor<4x16xf16>, %[[RHS:.+]]: tensor<16x3xf16>, %[[GS:.+]]: tensor<5xi32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0, 1], [2, 3]] output_shape [1, 4, 16, 1] : tensor<4x16xf16> into tensor<1x4x16x1xf16>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 16, 1, 3] : tensor<16x3xf16> into tensor<1x16x1x3xf16>
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]] {{\[\[}}0, 1]] output_shape [1, 5] : tensor<5xi32> into tensor<1x5xi32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [2]> : tensor<1x4x16x1xf16>, tensor<1x16x1x3xf16>, tensor<1x5xi32> -> tensor<5x1x4x3xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<5x1x4x3xf32> into tensor<5x4x3xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[O]]
func.func @mode2_chlo(%lhs: tensor<4x16xf16>, %rhs: tensor<16x3xf16>, %gs: tensor<5xi32>) -> tensor<5x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [1]>
      : tensor<4x16xf16>, tensor<16x3xf16>, tensor<5xi32> -> tensor<5x4x3xf32>
  return %0 : tensor<5x4x3xf32>
}

// -----

// Mode 2 with a batching dim and group sizes [b, g] (used as they are); the
// result [G, B, M, N] is already the original result.
// CHECK-LABEL: func.func @mode2_batch(
// CHECK-SAME:      %[[LHS:.+]]: tensor<2x11x5xf32>, %[[RHS:.+]]: tensor<2x5x7xf32>, %[[GS:.+]]: tensor<2x3xi32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0], [1], [2, 3]] output_shape [2, 11, 5, 1] : tensor<2x11x5xf32> into tensor<2x11x5x1xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0], [1, 2], [3]] output_shape [2, 5, 1, 7] : tensor<2x5x7xf32> into tensor<2x5x1x7xf32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [2]> : tensor<2x11x5x1xf32>, tensor<2x5x1x7xf32>, tensor<2x3xi32> -> tensor<3x2x11x7xf32>
// CHECK-NEXT:    return %[[D]]
func.func @mode2_batch(%lhs: tensor<2x11x5xf32>, %rhs: tensor<2x5x7xf32>, %gs: tensor<2x3xi32>) -> tensor<3x2x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [2]>
      : tensor<2x11x5xf32>, tensor<2x5x7xf32>, tensor<2x3xi32> -> tensor<3x2x11x7xf32>
  return %0 : tensor<3x2x11x7xf32>
}

// -----

// Mode 2 with a second contracting dim after the ragged one and a unit
// contracting dim in the group sizes' prefix (it cannot vary): the operands
// only need new dimension numbers (the unit dim serves as B).
// CHECK-LABEL: func.func @mode2_kc(
// CHECK-SAME:      %[[LHS:.+]]: tensor<1x16x2x4xf32>, %[[RHS:.+]]: tensor<1x16x2x3xf32>, %[[GS:.+]]: tensor<1x5xi32>)
// CHECK-NEXT:    %[[D:.+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [1]> : tensor<1x16x2x4xf32>, tensor<1x16x2x3xf32>, tensor<1x5xi32> -> tensor<5x1x4x3xf32>
// CHECK-NEXT:    %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<5x1x4x3xf32> into tensor<5x4x3xf32>
// CHECK-NEXT:    return %[[O]]
func.func @mode2_kc(%lhs: tensor<1x16x2x4xf32>, %rhs: tensor<1x16x2x3xf32>, %gs: tensor<1x5xi32>) -> tensor<5x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0, 1, 2],
                           rhs_contracting_dimensions = [0, 1, 2],
                           lhs_ragged_dimensions = [1]>
      : tensor<1x16x2x4xf32>, tensor<1x16x2x3xf32>, tensor<1x5xi32> -> tensor<5x4x3xf32>
  return %0 : tensor<5x4x3xf32>
}

// -----

// Mode 3: a batched dot becomes mode 1 with one group (rhs [B, 1, K, N])
// whose size is the row count 3 of every batch element.
// CHECK-LABEL: func.func @mode3(
// CHECK-SAME:      %[[LHS:.+]]: tensor<2x3x4xf32>, %[[RHS:.+]]: tensor<2x4x5xf32>, %[[GS:.+]]: tensor<7xi32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 1, 3, 4] : tensor<2x3x4xf32> into tensor<2x1x3x4xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 1, 4, 5] : tensor<2x4x5xf32> into tensor<2x1x4x5xf32>
// CHECK:         %[[ROWS:.+]] = arith.constant 3 : i32
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x1x1xi32>
// CHECK:         %[[S:.+]] = linalg.fill ins(%[[ROWS]] : i32) outs(%[[E]] : tensor<2x1x1xi32>) -> tensor<2x1x1xi32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<2x1x3x4xf32>, tensor<2x1x4x5xf32>, tensor<2x1x1xi32> -> tensor<2x1x3x5xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<2x1x3x5xf32> into tensor<2x3x5xf32>
// CHECK:         return %[[O]]
func.func @mode3(%lhs: tensor<2x3x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<7xi32>) -> tensor<2x3x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0]>
      : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<7xi32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// group_offset is carried over, init is reshaped like the result, and
// discardable attributes (tile sizes) stay on the op.
// CHECK-LABEL: func.func @offset_init(
// CHECK-SAME:      %[[LHS:.+]]: tensor<8x4xf32>, %[[RHS:.+]]: tensor<2x4x5xf32>, %[[GS:.+]]: tensor<4xi32>, %[[OFF:.+]]: tensor<i32>, %[[ACC:.+]]: tensor<8x5xf32>)
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]]
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]]
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]]
// CHECK:         %[[I:.+]] = tensor.expand_shape %[[ACC]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 8, 5] : tensor<8x5xf32> into tensor<1x1x8x5xf32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] group_offset(%[[OFF]] : tensor<i32>) init(%[[I]] : tensor<1x1x8x5xf32>) dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<tile = [16, 16, 8]>} : tensor<1x1x8x4xf32>, tensor<1x2x4x5xf32>, tensor<1x1x4xi32> -> tensor<1x1x8x5xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x8x5xf32> into tensor<8x5xf32>
// CHECK:         return %[[O]]
func.func @offset_init(%lhs: tensor<8x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<4xi32>, %off: tensor<i32>, %acc: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<i32>) init(%acc : tensor<8x5xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [16, 16, 8]>}
      : tensor<8x4xf32>, tensor<2x4x5xf32>, tensor<4xi32> -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// Mode 2 with group_offset and an init with a dynamic number of local
// groups, which the reshaped init keeps.
// CHECK-LABEL: func.func @mode2_offset_init(
// CHECK-SAME:      %[[OFF:[^:]+]]: tensor<i32>, %[[ACC:.+]]: tensor<?x4x3xf32>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[G:.+]] = tensor.dim %[[ACC]], %[[C0]] : tensor<?x4x3xf32>
// CHECK:         %[[I:.+]] = tensor.expand_shape %[[ACC]] {{\[\[}}0, 1], [2], [3]] output_shape [%[[G]], 1, 4, 3] : tensor<?x4x3xf32> into tensor<?x1x4x3xf32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %{{.+}}, %{{.+}}, %{{.+}} group_offset(%[[OFF]] : tensor<i32>) init(%[[I]] : tensor<?x1x4x3xf32>) dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [1]> : tensor<1x16x1x4xf32>, tensor<1x16x1x3xf32>, tensor<1x4xi32> -> tensor<?x1x4x3xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<?x1x4x3xf32> into tensor<?x4x3xf32>
// CHECK:         return %[[O]]
func.func @mode2_offset_init(%x: tensor<16x4xf32>, %dy: tensor<16x3xf32>, %gs: tensor<4xi32>, %off: tensor<i32>, %acc: tensor<?x4x3xf32>) -> tensor<?x4x3xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<i32>) init(%acc : tensor<?x4x3xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]>
      : tensor<16x4xf32>, tensor<16x3xf32>, tensor<4xi32> -> tensor<?x4x3xf32>
  return %0 : tensor<?x4x3xf32>
}

// -----

// Dynamic sizes everywhere: expand_shape takes them from tensor.dim.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[LHS:.+]]: tensor<?x?xf32>, %[[RHS:.+]]: tensor<?x?x?xf32>, %[[GS:.+]]: tensor<?xi32>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[M:.+]] = tensor.dim %[[LHS]], %[[C0]] : tensor<?x?xf32>
// CHECK-DAG:     %[[K:.+]] = tensor.dim %[[LHS]], %[[C1]] : tensor<?x?xf32>
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, %[[M]], %[[K]]] : tensor<?x?xf32> into tensor<1x1x?x?xf32>
// CHECK-DAG:     %[[C0B:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1B:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2B:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[RG:.+]] = tensor.dim %[[RHS]], %[[C0B]] : tensor<?x?x?xf32>
// CHECK-DAG:     %[[RK:.+]] = tensor.dim %[[RHS]], %[[C1B]] : tensor<?x?x?xf32>
// CHECK-DAG:     %[[RN:.+]] = tensor.dim %[[RHS]], %[[C2B]] : tensor<?x?x?xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[RHS]] {{\[\[}}0, 1], [2], [3]] output_shape [1, %[[RG]], %[[RK]], %[[RN]]] : tensor<?x?x?xf32> into tensor<1x?x?x?xf32>
// CHECK:         %[[G:.+]] = tensor.dim %[[GS]], %{{.+}} : tensor<?xi32>
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[GS]] {{\[\[}}0, 1, 2]] output_shape [1, 1, %[[G]]] : tensor<?xi32> into tensor<1x1x?xi32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x?x?xf32>, tensor<1x?x?x?xf32>, tensor<1x1x?xi32> -> tensor<1x1x?x?xf32>
// CHECK:         %[[O:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x?x?xf32> into tensor<?x?xf32>
// CHECK:         return %[[O]]
func.func @dynamic(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?x?xf32>, %gs: tensor<?xi32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Dynamic sizes that collapse (two batching dims, two rhs free dims) and a
// transposed lhs: products of dynamic sizes are arith.muli of tensor.dim.
// CHECK-LABEL: func.func @dynamic_collapse(
// CHECK-SAME:      %[[LHS:.+]]: tensor<?x?x?x?xf32>, %[[RHS:.+]]: tensor<?x?x?x?x?x?xf32>, %[[GS:.+]]: tensor<?x?x?xi64>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[B0:.+]] = tensor.dim %[[LHS]], %[[C0]] : tensor<?x?x?x?xf32>
// CHECK-DAG:     %[[B1:.+]] = tensor.dim %[[LHS]], %[[C1]] : tensor<?x?x?x?xf32>
// CHECK-DAG:     %[[K:.+]] = tensor.dim %[[LHS]], %[[C2]] : tensor<?x?x?x?xf32>
// CHECK-DAG:     %[[M:.+]] = tensor.dim %[[LHS]], %[[C3]] : tensor<?x?x?x?xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[B0]], %[[B1]], %[[M]], %[[K]]) : tensor<?x?x?x?xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[LHS]] : tensor<?x?x?x?xf32>) outs(%[[E]] : tensor<?x?x?x?xf32>) permutation = [0, 1, 3, 2]
// CHECK:         %[[C:.+]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2], [3]] : tensor<?x?x?x?xf32> into tensor<?x?x?xf32>
// CHECK:         %[[B:.+]] = arith.muli %[[B0]], %[[B1]] : index
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2], [3]] output_shape [%[[B]], 1, %[[M]], %[[K]]] : tensor<?x?x?xf32> into tensor<?x1x?x?xf32>
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[RHS]] {{\[\[}}0, 1], [2], [3], [4, 5]] : tensor<?x?x?x?x?x?xf32> into tensor<?x?x?x?xf32>
// CHECK:         %[[CS:.+]] = tensor.collapse_shape %[[GS]] {{\[\[}}0, 1], [2]] : tensor<?x?x?xi64> into tensor<?x?xi64>
// CHECK:         %[[S:.+]] = tensor.expand_shape %[[CS]] {{\[\[}}0, 1], [2]] output_shape [%{{.+}}, 1, %{{.+}}] : tensor<?x?xi64> into tensor<?x1x?xi64>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<?x1x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x1x?xi64> -> tensor<?x1x?x?xf32>
// CHECK:         %[[CD:.+]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<?x1x?x?xf32> into tensor<?x?x?xf32>
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C5:.+]] = arith.constant 5 : index
// CHECK-DAG:     %[[N0:.+]] = tensor.dim %[[RHS]], %[[C4]] : tensor<?x?x?x?x?x?xf32>
// CHECK-DAG:     %[[N1:.+]] = tensor.dim %[[RHS]], %[[C5]] : tensor<?x?x?x?x?x?xf32>
// Two dynamic sizes out of one group are a tensor.reshape (MLIR 22's
// expand-strided-metadata crashes on such a memref.expand_shape).
// CHECK:         %[[SHAPE:.+]] = tensor.from_elements %[[B0]], %[[B1]], %[[M]], %[[N0]], %[[N1]] : tensor<5xindex>
// CHECK:         %[[O:.+]] = tensor.reshape %[[CD]](%[[SHAPE]]) : (tensor<?x?x?xf32>, tensor<5xindex>) -> tensor<?x?x?x?x?xf32>
// CHECK:         return %[[O]]
func.func @dynamic_collapse(%lhs: tensor<?x?x?x?xf32>, %rhs: tensor<?x?x?x?x?x?xf32>, %gs: tensor<?x?x?xi64>) -> tensor<?x?x?x?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0, 1],
                           rhs_batching_dimensions = [0, 1],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [3],
                           lhs_ragged_dimensions = [3],
                           rhs_group_dimensions = [2]>
      : tensor<?x?x?x?xf32>, tensor<?x?x?x?x?x?xf32>, tensor<?x?x?xi64> -> tensor<?x?x?x?x?xf32>
  return %0 : tensor<?x?x?x?x?xf32>
}

// -----

// Mode 3 with a dynamic row count: the single group's size is computed
// (saturated to the i32 range).
// CHECK-LABEL: func.func @mode3_dynamic(
// CHECK-SAME:      %[[LHS:.+]]: tensor<2x?x4xf32>
// CHECK:         %[[M:.+]] = tensor.dim %[[LHS]], %{{.+}} : tensor<2x?x4xf32>
// CHECK:         %[[L:.+]] = tensor.expand_shape %[[LHS]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 1, %[[M]], 4] : tensor<2x?x4xf32> into tensor<2x1x?x4xf32>
// CHECK:         %[[R:.+]] = tensor.expand_shape
// CHECK:         %[[M64:.+]] = arith.index_cast %[[M]] : index to i64
// CHECK:         %[[MAX:.+]] = arith.constant 2147483647 : i64
// CHECK:         %[[SAT:.+]] = arith.minsi %[[M64]], %[[MAX]] : i64
// CHECK:         %[[ROWS:.+]] = arith.trunci %[[SAT]] : i64 to i32
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x1x1xi32>
// CHECK:         %[[S:.+]] = linalg.fill ins(%[[ROWS]] : i32) outs(%[[E]] : tensor<2x1x1xi32>) -> tensor<2x1x1xi32>
// CHECK:         %[[D:.+]] = gmm.ragged_dot %[[L]], %[[R]], %[[S]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<2x1x?x4xf32>, tensor<2x1x4x5xf32>, tensor<2x1x1xi32> -> tensor<2x1x?x5xf32>
// CHECK:         tensor.collapse_shape %[[D]] {{\[\[}}0, 1], [2], [3]] : tensor<2x1x?x5xf32> into tensor<2x?x5xf32>
func.func @mode3_dynamic(%lhs: tensor<2x?x4xf32>, %rhs: tensor<2x4x5xf32>, %gs: tensor<3xi32>) -> tensor<2x?x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [2],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0]>
      : tensor<2x?x4xf32>, tensor<2x4x5xf32>, tensor<3xi32> -> tensor<2x?x5xf32>
  return %0 : tensor<2x?x5xf32>
}

// -----

// An op with a static zero dimension has nothing to tile; it is left for the
// reference lowering (MLIR 22 mishandles reshape groups that are statically
// empty but hold a dynamic size).
// CHECK-LABEL: func.func @zero(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         gmm.ragged_dot {{.+}} : tensor<0x4xf32>, tensor<3x4x0xf32>, tensor<3xi32> -> tensor<0x0xf32>
// CHECK-NOT:     tensor.collapse_shape
func.func @zero(%lhs: tensor<0x4xf32>, %rhs: tensor<3x4x0xf32>, %gs: tensor<3xi32>) -> tensor<0x0xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<0x4xf32>, tensor<3x4x0xf32>, tensor<3xi32> -> tensor<0x0xf32>
  return %0 : tensor<0x0xf32>
}

// -----

// Already normalized: untouched (attributes included).
// CHECK-LABEL: func.func @normalized(
// CHECK-SAME:      %[[LHS:.+]]: tensor<2x3x8x4xf32>, %[[RHS:.+]]: tensor<2x5x4x6xf32>, %[[GS:.+]]: tensor<2x3x5xi32>)
// CHECK-NEXT:    %[[D:.+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<tile = [4, 4, 4]>} : tensor<2x3x8x4xf32>, tensor<2x5x4x6xf32>, tensor<2x3x5xi32> -> tensor<2x3x8x6xf32>
// CHECK-NEXT:    return %[[D]]
func.func @normalized(%lhs: tensor<2x3x8x4xf32>, %rhs: tensor<2x5x4x6xf32>, %gs: tensor<2x3x5xi32>) -> tensor<2x3x8x6xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_batching_dimensions = [0],
                           rhs_batching_dimensions = [0],
                           lhs_contracting_dimensions = [3],
                           rhs_contracting_dimensions = [2],
                           lhs_ragged_dimensions = [2],
                           rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<tile = [4, 4, 4]>}
      : tensor<2x3x8x4xf32>, tensor<2x5x4x6xf32>, tensor<2x3x5xi32> -> tensor<2x3x8x6xf32>
  return %0 : tensor<2x3x8x6xf32>
}

// -----

// Mode 2 whose group sizes vary along another contracting dim (the prefix
// holds lhs dim 0, of size 3): no normalized form, unchanged.
// CHECK-LABEL: func.func @mode2_unsupported(
// CHECK-SAME:      %[[LHS:.+]]: tensor<3x16x4xf32>, %[[RHS:.+]]: tensor<3x16x5xf32>, %[[GS:.+]]: tensor<3x2xi32>)
// CHECK-NEXT:    %[[D:.+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1], lhs_ragged_dimensions = [1]> : tensor<3x16x4xf32>, tensor<3x16x5xf32>, tensor<3x2xi32> -> tensor<2x4x5xf32>
// CHECK-NEXT:    return %[[D]]
func.func @mode2_unsupported(%lhs: tensor<3x16x4xf32>, %rhs: tensor<3x16x5xf32>, %gs: tensor<3x2xi32>) -> tensor<2x4x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [0, 1],
                           rhs_contracting_dimensions = [0, 1],
                           lhs_ragged_dimensions = [1]>
      : tensor<3x16x4xf32>, tensor<3x16x5xf32>, tensor<3x2xi32> -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}
