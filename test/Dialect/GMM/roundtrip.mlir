// RUN: gmm-opt %s -split-input-file | FileCheck %s
// RUN: gmm-opt %s -split-input-file | gmm-opt -split-input-file | FileCheck %s
// RUN: gmm-opt %s -split-input-file -mlir-print-op-generic | gmm-opt -split-input-file | FileCheck %s
// RUN: gmm-opt %s -split-input-file -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of gmm.ragged_dot and #gmm.ragged_dot: custom form, custom form
// printed and parsed again, generic form parsed back, and the generic form
// itself. Every mode, batch dims, group_sizes shapes, dynamic sizes, the
// optional operands and every element type.

// Mode 1, the MoE forward pass: lhs [m,k] x rhs [g,k,n] -> [m,n]; bf16
// operands with an f32 preferred result type.

// CHECK-LABEL: func.func @mode1(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xbf16>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x4x3xbf16>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>) -> tensor<16x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<16x3xf32>

// GENERIC-LABEL: sym_name = "mode1"
// GENERIC-NEXT:    ^bb0(%[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xbf16>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x4x3xbf16>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>):
// GENERIC-NEXT:    %[[R:[a-zA-Z0-9_]+]] = "gmm.ragged_dot"(%[[LHS]], %[[RHS]], %[[GS]]) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32>) -> tensor<16x3xf32>{{$}}
// GENERIC-NEXT:    "func.return"(%[[R]]) : (tensor<16x3xf32>) -> ()
func.func @mode1(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %group_sizes: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>
      : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// Mode 1 with the rhs transposed, [g,n,k]: contracting dims [1] / [2]; f32
// operands with a narrower bf16 result.

// CHECK-LABEL: func.func @mode1_rhs_transposed(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x3x4xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi64>) -> tensor<16x3xbf16>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x3x4xf32>, tensor<2xi64> -> tensor<16x3xbf16>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<16x3xbf16>
func.func @mode1_rhs_transposed(%lhs: tensor<16x4xf32>, %rhs: tensor<2x3x4xf32>, %group_sizes: tensor<2xi64>) -> tensor<16x3xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>
      : tensor<16x4xf32>, tensor<2x3x4xf32>, tensor<2xi64> -> tensor<16x3xbf16>
  return %0 : tensor<16x3xbf16>
}

// -----

// Mode 1 with lhs [k,m] (ragged dim 1) and the rhs group dim in the middle,
// [k,g,n]; f16 operands, bf16 result.

// CHECK-LABEL: func.func @mode1_lhs_transposed(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<4x16xf16>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<4x2x3xf16>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>) -> tensor<16x3xbf16>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]> : tensor<4x16xf16>, tensor<4x2x3xf16>, tensor<2xi32> -> tensor<16x3xbf16>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<16x3xbf16>
func.func @mode1_lhs_transposed(%lhs: tensor<4x16xf16>, %rhs: tensor<4x2x3xf16>, %group_sizes: tensor<2xi32>) -> tensor<16x3xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]>
      : tensor<4x16xf16>, tensor<4x2x3xf16>, tensor<2xi32> -> tensor<16x3xbf16>
  return %0 : tensor<16x3xbf16>
}

// -----

// Mode 1 without contracting dimensions (a grouped outer product): lhs [m],
// rhs [g,n] -> [m,n].

// CHECK-LABEL: func.func @mode1_no_contracting(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>) -> tensor<16x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16xf32>, tensor<2x3xf32>, tensor<2xi32> -> tensor<16x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<16x3xf32>
func.func @mode1_no_contracting(%lhs: tensor<16xf32>, %rhs: tensor<2x3xf32>, %group_sizes: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>
      : tensor<16xf32>, tensor<2x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// Mode 1 with a leading batch dim: [b,m,k] x [b,g,k,n] -> [b,m,n]; a [g]
// group_sizes is broadcast over the batch.

// CHECK-LABEL: func.func @mode1_batch_broadcast_group_sizes(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<2x11x5xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x3x5x7xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<3xi64>) -> tensor<2x11x7xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]> : tensor<2x11x5xf32>, tensor<2x3x5x7xf32>, tensor<3xi64> -> tensor<2x11x7xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<2x11x7xf32>
func.func @mode1_batch_broadcast_group_sizes(%lhs: tensor<2x11x5xf32>, %rhs: tensor<2x3x5x7xf32>, %group_sizes: tensor<3xi64>) -> tensor<2x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]>
      : tensor<2x11x5xf32>, tensor<2x3x5x7xf32>, tensor<3xi64> -> tensor<2x11x7xf32>
  return %0 : tensor<2x11x7xf32>
}

// -----

// Mode 1 with a batch dim and batched group_sizes [b,g]; the rhs is
// [g,b,k,n] as in CHLO's own example.

// CHECK-LABEL: func.func @mode1_batch_group_sizes(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<2x11x5xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<3x2x5x7xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2x3xi32>) -> tensor<2x11x7xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<2x3xi32> -> tensor<2x11x7xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<2x11x7xf32>
func.func @mode1_batch_group_sizes(%lhs: tensor<2x11x5xf32>, %rhs: tensor<3x2x5x7xf32>, %group_sizes: tensor<2x3xi32>) -> tensor<2x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>
      : tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<2x3xi32> -> tensor<2x11x7xf32>
  return %0 : tensor<2x11x7xf32>
}

// -----

// Mode 1, group_sizes prefix from the lhs free dim before the ragged dim:
// lhs [19,11,5], ragged dim 1, group_sizes [19,3].

// CHECK-LABEL: func.func @mode1_free_dim_prefix(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<19x11x5xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<3x5x7xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<19x3xi32>) -> tensor<19x11x7xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<19x11x5xf32>, tensor<3x5x7xf32>, tensor<19x3xi32> -> tensor<19x11x7xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<19x11x7xf32>
func.func @mode1_free_dim_prefix(%lhs: tensor<19x11x5xf32>, %rhs: tensor<3x5x7xf32>, %group_sizes: tensor<19x3xi32>) -> tensor<19x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>
      : tensor<19x11x5xf32>, tensor<3x5x7xf32>, tensor<19x3xi32> -> tensor<19x11x7xf32>
  return %0 : tensor<19x11x7xf32>
}

// -----

// Mode 1, group_sizes prefix [batch, free before ragged] = [19,17].

// CHECK-LABEL: func.func @mode1_batch_and_free_dim_prefix(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<19x17x11x5xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<3x19x5x7xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<19x17x3xi64>) -> tensor<19x17x11x7xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [0]> : tensor<19x17x11x5xf32>, tensor<3x19x5x7xf32>, tensor<19x17x3xi64> -> tensor<19x17x11x7xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<19x17x11x7xf32>
func.func @mode1_batch_and_free_dim_prefix(%lhs: tensor<19x17x11x5xf32>, %rhs: tensor<3x19x5x7xf32>, %group_sizes: tensor<19x17x3xi64>) -> tensor<19x17x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [0]>
      : tensor<19x17x11x5xf32>, tensor<3x19x5x7xf32>, tensor<19x17x3xi64> -> tensor<19x17x11x7xf32>
  return %0 : tensor<19x17x11x7xf32>
}

// -----

// Mode 1 with dynamic m, n and g.

// CHECK-LABEL: func.func @mode1_dynamic(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<?x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<?x4x?xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<?xi32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x4xf32>, tensor<?x4x?xf32>, tensor<?xi32> -> tensor<?x?xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<?x?xf32>
func.func @mode1_dynamic(%lhs: tensor<?x4xf32>, %rhs: tensor<?x4x?xf32>, %group_sizes: tensor<?xi32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>
      : tensor<?x4xf32>, tensor<?x4x?xf32>, tensor<?xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Mode 1, a dynamic lhs prefix dim against a static group_sizes prefix, and
// a dynamic number of groups in group_sizes against a static rhs group dim.

// CHECK-LABEL: func.func @mode1_dynamic_group_sizes_prefix(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<?x11x5xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<3x5x7xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<19x?xi32>) -> tensor<?x11x7xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> : tensor<?x11x5xf32>, tensor<3x5x7xf32>, tensor<19x?xi32> -> tensor<?x11x7xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<?x11x7xf32>
func.func @mode1_dynamic_group_sizes_prefix(%lhs: tensor<?x11x5xf32>, %rhs: tensor<3x5x7xf32>, %group_sizes: tensor<19x?xi32>) -> tensor<?x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>
      : tensor<?x11x5xf32>, tensor<3x5x7xf32>, tensor<19x?xi32> -> tensor<?x11x7xf32>
  return %0 : tensor<?x11x7xf32>
}

// -----

// Mode 1 with a rank-0 i32 group_offset: the rhs holds 2 local groups of the
// 8 in group_sizes. f16 operands, f64 result.

// CHECK-LABEL: func.func @mode1_group_offset(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf16>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x4x3xf16>, %[[GS:[a-zA-Z0-9_]+]]: tensor<8xi32>, %[[OFF:[a-zA-Z0-9_]+]]: tensor<i32>) -> tensor<16x3xf64>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] group_offset(%[[OFF]] : tensor<i32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf16>, tensor<2x4x3xf16>, tensor<8xi32> -> tensor<16x3xf64>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<16x3xf64>
func.func @mode1_group_offset(%lhs: tensor<16x4xf16>, %rhs: tensor<2x4x3xf16>, %group_sizes: tensor<8xi32>, %group_offset: tensor<i32>) -> tensor<16x3xf64> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes group_offset(%group_offset : tensor<i32>)
      dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>
      : tensor<16x4xf16>, tensor<2x4x3xf16>, tensor<8xi32> -> tensor<16x3xf64>
  return %0 : tensor<16x3xf64>
}

// -----

// Mode 1 with init and a discardable attribute on the op, written over
// several lines: the attribute dictionary prints after dimension_numbers.

// CHECK-LABEL: func.func @mode1_init_discardable_attr(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x4x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>, %[[INIT:[a-zA-Z0-9_]+]]: tensor<16x3xf32>) -> tensor<16x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] init(%[[INIT]] : tensor<16x3xf32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.tag = "experts"} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<16x3xf32>

// GENERIC-LABEL: sym_name = "mode1_init_discardable_attr"
// GENERIC-NEXT:    ^bb0(%[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x4x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>, %[[INIT:[a-zA-Z0-9_]+]]: tensor<16x3xf32>):
// GENERIC-NEXT:    %[[R:[a-zA-Z0-9_]+]] = "gmm.ragged_dot"(%[[LHS]], %[[RHS]], %[[GS]], %[[INIT]]) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}> {gmm.tag = "experts"} : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>, tensor<16x3xf32>) -> tensor<16x3xf32>{{$}}
// GENERIC-NEXT:    "func.return"(%[[R]]) : (tensor<16x3xf32>) -> ()
func.func @mode1_init_discardable_attr(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %group_sizes: tensor<2xi32>, %init: tensor<16x3xf32>) -> tensor<16x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      init(%init : tensor<16x3xf32>)
      dimension_numbers = <
        lhs_contracting_dimensions = [1],
        rhs_contracting_dimensions = [1],
        lhs_ragged_dimensions = [0],
        rhs_group_dimensions = [0]
      > {gmm.tag = "experts"}
      : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// Mode 2, CHLO style: lhs [m,k] x rhs [k,n] with k ragged -> [g,m,n]; f16
// operands, f32 result.

// CHECK-LABEL: func.func @mode2(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<8x16xf16>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<16x3xf16>, %[[GS:[a-zA-Z0-9_]+]]: tensor<4xi32>) -> tensor<4x8x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]> : tensor<8x16xf16>, tensor<16x3xf16>, tensor<4xi32> -> tensor<4x8x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<4x8x3xf32>

// GENERIC-LABEL: sym_name = "mode2"
// GENERIC-NEXT:    ^bb0(%[[LHS:[a-zA-Z0-9_]+]]: tensor<8x16xf16>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<16x3xf16>, %[[GS:[a-zA-Z0-9_]+]]: tensor<4xi32>):
// GENERIC-NEXT:    %[[R:[a-zA-Z0-9_]+]] = "gmm.ragged_dot"(%[[LHS]], %[[RHS]], %[[GS]]) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<8x16xf16>, tensor<16x3xf16>, tensor<4xi32>) -> tensor<4x8x3xf32>{{$}}
// GENERIC-NEXT:    "func.return"(%[[R]]) : (tensor<4x8x3xf32>) -> ()
func.func @mode2(%lhs: tensor<8x16xf16>, %rhs: tensor<16x3xf16>, %group_sizes: tensor<4xi32>) -> tensor<4x8x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]>
      : tensor<8x16xf16>, tensor<16x3xf16>, tensor<4xi32> -> tensor<4x8x3xf32>
  return %0 : tensor<4x8x3xf32>
}

// -----

// Mode 2, the weight gradient: x [m,k] and dy [m,n] both contract the ragged
// dim 0 -> [g,k,n], accumulating into init.

// CHECK-LABEL: func.func @mode2_weight_gradient(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<16x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi64>, %[[INIT:[a-zA-Z0-9_]+]]: tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] init(%[[INIT]] : tensor<2x4x3xf32>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<2x4x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<2x4x3xf32>
func.func @mode2_weight_gradient(%lhs: tensor<16x4xf32>, %rhs: tensor<16x3xf32>, %group_sizes: tensor<2xi64>, %init: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes init(%init : tensor<2x4x3xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]>
      : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Mode 2 on vectors: per-group partial dot products, result [g].

// CHECK-LABEL: func.func @mode2_vectors(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<16xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16xf32>, tensor<16xf32>, tensor<2xi32> -> tensor<2xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<2xf32>
func.func @mode2_vectors(%lhs: tensor<16xf32>, %rhs: tensor<16xf32>, %group_sizes: tensor<2xi32>) -> tensor<2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]>
      : tensor<16xf32>, tensor<16xf32>, tensor<2xi32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Mode 2 with a leading batch dim and batched group_sizes [b,g]:
// [b,m,k] x [b,k,n] -> [g,b,m,n]; bf16 in and out.

// CHECK-LABEL: func.func @mode2_batch_group_sizes(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<2x11x16xbf16>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x16x7xbf16>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2x4xi32>) -> tensor<4x2x11x7xbf16>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2]> : tensor<2x11x16xbf16>, tensor<2x16x7xbf16>, tensor<2x4xi32> -> tensor<4x2x11x7xbf16>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<4x2x11x7xbf16>
func.func @mode2_batch_group_sizes(%lhs: tensor<2x11x16xbf16>, %rhs: tensor<2x16x7xbf16>, %group_sizes: tensor<2x4xi32>) -> tensor<4x2x11x7xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2]>
      : tensor<2x11x16xbf16>, tensor<2x16x7xbf16>, tensor<2x4xi32> -> tensor<4x2x11x7xbf16>
  return %0 : tensor<4x2x11x7xbf16>
}

// -----

// Mode 2 with two contracting dims, the second ragged: group_sizes prefix
// [batch, contracting dims listed before the ragged one] = [19,17].

// CHECK-LABEL: func.func @mode2_contracting_prefix(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<19x11x17x5xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<19x17x5x7xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<19x17x3xi64>) -> tensor<3x19x11x7xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [3]> : tensor<19x11x17x5xf32>, tensor<19x17x5x7xf32>, tensor<19x17x3xi64> -> tensor<3x19x11x7xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<3x19x11x7xf32>
func.func @mode2_contracting_prefix(%lhs: tensor<19x11x17x5xf32>, %rhs: tensor<19x17x5x7xf32>, %group_sizes: tensor<19x17x3xi64>) -> tensor<3x19x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2, 3], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [3]>
      : tensor<19x11x17x5xf32>, tensor<19x17x5x7xf32>, tensor<19x17x3xi64> -> tensor<3x19x11x7xf32>
  return %0 : tensor<3x19x11x7xf32>
}

// -----

// Mode 2 with dynamic m (the ragged, contracting dim) and dynamic g.

// CHECK-LABEL: func.func @mode2_dynamic(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<?x4xbf16>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<?x3xbf16>, %[[GS:[a-zA-Z0-9_]+]]: tensor<?xi32>) -> tensor<?x4x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<?x4xbf16>, tensor<?x3xbf16>, tensor<?xi32> -> tensor<?x4x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<?x4x3xf32>
func.func @mode2_dynamic(%lhs: tensor<?x4xbf16>, %rhs: tensor<?x3xbf16>, %group_sizes: tensor<?xi32>) -> tensor<?x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]>
      : tensor<?x4xbf16>, tensor<?x3xbf16>, tensor<?xi32> -> tensor<?x4x3xf32>
  return %0 : tensor<?x4x3xf32>
}

// -----

// Mode 2 with a [1]-shaped i64 group_offset: 2 local groups of 8; f64
// operands, bf16 result.

// CHECK-LABEL: func.func @mode2_group_offset(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf64>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<16x3xf64>, %[[GS:[a-zA-Z0-9_]+]]: tensor<8xi64>, %[[OFF:[a-zA-Z0-9_]+]]: tensor<1xi64>) -> tensor<2x4x3xbf16>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] group_offset(%[[OFF]] : tensor<1xi64>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf64>, tensor<16x3xf64>, tensor<8xi64> -> tensor<2x4x3xbf16>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<2x4x3xbf16>

// GENERIC-LABEL: sym_name = "mode2_group_offset"
// GENERIC-NEXT:    ^bb0(%[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf64>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<16x3xf64>, %[[GS:[a-zA-Z0-9_]+]]: tensor<8xi64>, %[[OFF:[a-zA-Z0-9_]+]]: tensor<1xi64>):
// GENERIC-NEXT:    %[[R:[a-zA-Z0-9_]+]] = "gmm.ragged_dot"(%[[LHS]], %[[RHS]], %[[GS]], %[[OFF]]) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (tensor<16x4xf64>, tensor<16x3xf64>, tensor<8xi64>, tensor<1xi64>) -> tensor<2x4x3xbf16>{{$}}
// GENERIC-NEXT:    "func.return"(%[[R]]) : (tensor<2x4x3xbf16>) -> ()
func.func @mode2_group_offset(%lhs: tensor<16x4xf64>, %rhs: tensor<16x3xf64>, %group_sizes: tensor<8xi64>, %group_offset: tensor<1xi64>) -> tensor<2x4x3xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes group_offset(%group_offset : tensor<1xi64>)
      dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]>
      : tensor<16x4xf64>, tensor<16x3xf64>, tensor<8xi64> -> tensor<2x4x3xbf16>
  return %0 : tensor<2x4x3xbf16>
}

// -----

// Mode 2 with both optional operands; the number of local groups is dynamic
// and comes from init.

// CHECK-LABEL: func.func @mode2_group_offset_init(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<16x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<8xi64>, %[[OFF:[a-zA-Z0-9_]+]]: tensor<i64>, %[[INIT:[a-zA-Z0-9_]+]]: tensor<?x4x3xf32>) -> tensor<?x4x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] group_offset(%[[OFF]] : tensor<i64>) init(%[[INIT]] : tensor<?x4x3xf32>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<16x4xf32>, tensor<16x3xf32>, tensor<8xi64> -> tensor<?x4x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<?x4x3xf32>

// GENERIC-LABEL: sym_name = "mode2_group_offset_init"
// GENERIC-NEXT:    ^bb0(%[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<16x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<8xi64>, %[[OFF:[a-zA-Z0-9_]+]]: tensor<i64>, %[[INIT:[a-zA-Z0-9_]+]]: tensor<?x4x3xf32>):
// GENERIC-NEXT:    %[[R:[a-zA-Z0-9_]+]] = "gmm.ragged_dot"(%[[LHS]], %[[RHS]], %[[GS]], %[[OFF]], %[[INIT]]) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>}> : (tensor<16x4xf32>, tensor<16x3xf32>, tensor<8xi64>, tensor<i64>, tensor<?x4x3xf32>) -> tensor<?x4x3xf32>{{$}}
// GENERIC-NEXT:    "func.return"(%[[R]]) : (tensor<?x4x3xf32>) -> ()
func.func @mode2_group_offset_init(%lhs: tensor<16x4xf32>, %rhs: tensor<16x3xf32>, %group_sizes: tensor<8xi64>, %group_offset: tensor<i64>, %init: tensor<?x4x3xf32>) -> tensor<?x4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes group_offset(%group_offset : tensor<i64>) init(%init : tensor<?x4x3xf32>)
      dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]>
      : tensor<16x4xf32>, tensor<16x3xf32>, tensor<8xi64> -> tensor<?x4x3xf32>
  return %0 : tensor<?x4x3xf32>
}

// -----

// Mode 3, ragged batch dim: [b,m,k] x [b,k,n] -> [b,m,n]; f64 operands,
// f32 result.

// CHECK-LABEL: func.func @mode3(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<3x11x5xf64>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<3x5x7xf64>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi64>) -> tensor<3x11x7xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<3x11x5xf64>, tensor<3x5x7xf64>, tensor<2xi64> -> tensor<3x11x7xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<3x11x7xf32>
func.func @mode3(%lhs: tensor<3x11x5xf64>, %rhs: tensor<3x5x7xf64>, %group_sizes: tensor<2xi64>) -> tensor<3x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]>
      : tensor<3x11x5xf64>, tensor<3x5x7xf64>, tensor<2xi64> -> tensor<3x11x7xf32>
  return %0 : tensor<3x11x7xf32>
}

// -----

// Mode 3, the second batch dim ragged: group_sizes prefix [17] from the batch
// dim listed before it; f32 operands, f16 result.

// CHECK-LABEL: func.func @mode3_group_sizes_prefix(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<17x19x11x5xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<17x19x5x7xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<17x3xi32>) -> tensor<17x19x11x7xf16>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1]> : tensor<17x19x11x5xf32>, tensor<17x19x5x7xf32>, tensor<17x3xi32> -> tensor<17x19x11x7xf16>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<17x19x11x7xf16>
func.func @mode3_group_sizes_prefix(%lhs: tensor<17x19x11x5xf32>, %rhs: tensor<17x19x5x7xf32>, %group_sizes: tensor<17x3xi32>) -> tensor<17x19x11x7xf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1]>
      : tensor<17x19x11x5xf32>, tensor<17x19x5x7xf32>, tensor<17x3xi32> -> tensor<17x19x11x7xf16>
  return %0 : tensor<17x19x11x7xf16>
}

// -----

// Mode 3 with a dynamic lhs batch dim; the result takes the static size from
// the rhs.

// CHECK-LABEL: func.func @mode3_dynamic_batch(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<?x11x5xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<3x5x7xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi64>) -> tensor<3x11x7xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<?x11x5xf32>, tensor<3x5x7xf32>, tensor<2xi64> -> tensor<3x11x7xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<3x11x7xf32>
func.func @mode3_dynamic_batch(%lhs: tensor<?x11x5xf32>, %rhs: tensor<3x5x7xf32>, %group_sizes: tensor<2xi64>) -> tensor<3x11x7xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]>
      : tensor<?x11x5xf32>, tensor<3x5x7xf32>, tensor<2xi64> -> tensor<3x11x7xf32>
  return %0 : tensor<3x11x7xf32>
}

// -----

// Keys in any order and explicitly empty lists are accepted; the printer
// writes CHLO's order and leaves the empty lists out.

// CHECK-LABEL: func.func @noncanonical_keys(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x4x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>) -> tensor<16x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<16x3xf32>

// GENERIC-LABEL: sym_name = "noncanonical_keys"
// GENERIC-NEXT:    ^bb0(%[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x4x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>):
// GENERIC-NEXT:    %[[R:[a-zA-Z0-9_]+]] = "gmm.ragged_dot"(%[[LHS]], %[[RHS]], %[[GS]]) <{dimension_numbers = #gmm.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>) -> tensor<16x3xf32>{{$}}
// GENERIC-NEXT:    "func.return"(%[[R]]) : (tensor<16x3xf32>) -> ()
func.func @noncanonical_keys(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %group_sizes: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <rhs_group_dimensions = [0], lhs_ragged_dimensions = [0], rhs_batching_dimensions = [], rhs_contracting_dimensions = [1], lhs_batching_dimensions = [], lhs_contracting_dimensions = [1]>
      : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// The generic form is accepted as input, with keys in any order, and prints
// in the custom form.

// CHECK-LABEL: func.func @generic_input(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<2x4x3xf32>, %[[GS:[a-zA-Z0-9_]+]]: tensor<2xi32>, %[[OFF:[a-zA-Z0-9_]+]]: tensor<1xi32>) -> tensor<16x3xf32>
// CHECK-NEXT:    %[[R:[a-zA-Z0-9_]+]] = gmm.ragged_dot %[[LHS]], %[[RHS]], %[[GS]] group_offset(%[[OFF]] : tensor<1xi32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>{{$}}
// CHECK-NEXT:    return %[[R]] : tensor<16x3xf32>
func.func @generic_input(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %group_sizes: tensor<2xi32>, %group_offset: tensor<1xi32>) -> tensor<16x3xf32> {
  %0 = "gmm.ragged_dot"(%lhs, %rhs, %group_sizes, %group_offset) <{
      dimension_numbers = #gmm.ragged_dot<rhs_group_dimensions = [0], lhs_ragged_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>,
      operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}>
      : (tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32>, tensor<1xi32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// The attribute on its own, as a discardable attribute: it prints with its
// #gmm.ragged_dot prefix, keys in CHLO order, empty lists left out, and
// multi-element lists in the order given. #gmm.ragged_dot<> is the attribute
// with all lists empty. (The dictionary prints sorted by name.)

// CHECK-LABEL: func.func @attribute_standalone()
// CHECK-SAME:    attributes {all_empty = #gmm.ragged_dot<>, dims = #gmm.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3, 2], rhs_contracting_dimensions = [2, 1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>, empty = #gmm.ragged_dot<>} {
// CHECK-NEXT:    return

// GENERIC-LABEL: sym_name = "attribute_standalone"
// GENERIC-NEXT:    "func.return"() : () -> ()
// GENERIC-NEXT:    }) {all_empty = #gmm.ragged_dot<>, dims = #gmm.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3, 2], rhs_contracting_dimensions = [2, 1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>, empty = #gmm.ragged_dot<>} : () -> (){{$}}
func.func @attribute_standalone() attributes {
    empty = #gmm.ragged_dot<>,
    dims = #gmm.ragged_dot<rhs_group_dimensions = [0], lhs_ragged_dimensions = [1], rhs_contracting_dimensions = [2, 1], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3, 2], lhs_batching_dimensions = [0]>,
    all_empty = #gmm.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [], rhs_contracting_dimensions = [], lhs_ragged_dimensions = [], rhs_group_dimensions = []>} {
  return
}
