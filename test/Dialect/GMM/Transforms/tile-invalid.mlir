// RUN: gmm-opt %s -split-input-file -gmm-tile -verify-diagnostics

func.func @bad_tile_sizes(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects 'gmm.tile_sizes' to be array<i64: m, n, k> of positive sizes, got array<i64: 8, 0, 4>}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.tile_sizes = array<i64: 8, 0, 4>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

func.func @bad_tile_sizes_kind(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects 'gmm.tile_sizes' to be array<i64: m, n, k> of positive sizes, got [8, 8]}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.tile_sizes = [8, 8]} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

// The CPU keeps a visit's tile_m x tile_n accumulators and packed tile_k x
// tile_n panels in buffers of its own: tiles this large are refused (at most
// 4096 along any dimension, 2^20 accumulators).

func.func @too_large_for_cpu(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op tile sizes 128x8192x32 are too large for the CPU cache tiles (tile sizes of at most 4096, at most 1048576 accumulators, tile_m * tile_n, and k steps of at most 4096)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.tile_sizes = array<i64: 128, 8192, 32>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

func.func @too_many_accumulators_for_cpu(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op tile sizes 2048x1024x32 are too large for the CPU cache tiles}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.tile_sizes = array<i64: 2048, 1024, 32>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

// Sizes near 2^62 are refused before any arithmetic with them (#15, class
// 2: their products overflowed): on the CPU ...
func.func @huge_for_cpu(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op tile sizes 2x4611686018427387904x4 are too large for the CPU cache tiles}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.tile_sizes = array<i64: 2, 4611686018427387904, 4>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

func.func @bad_register_block(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects 'gmm.register_block' to be array<i64: rows, lanes> of at most 64 rows of 256 lanes, got array<i64: 6, 0>}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.register_block = array<i64: 6, 0>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

func.func @register_block_too_large(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects 'gmm.register_block' to be array<i64: rows, lanes> of at most 64 rows of 256 lanes, got array<i64: 6, 512>}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.register_block = array<i64: 6, 512>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}
