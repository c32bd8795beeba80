// RUN: gmm-opt %s -split-input-file -gmm-tile -verify-diagnostics

// gmm-tile tiles by the op's gmm.kernel_config and nothing else: an op
// without a complete one is an error. A hand-written one is checked by the
// dialect's verifier (KernelConfigRules.h) against the target's bounds
// when it is parsed, before any pass runs.

func.func @no_config(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op has no 'gmm.kernel_config' to tile by; gmm-configure attaches one}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

func.func @not_a_config(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects 'gmm.kernel_config' to be a #gmm.kernel_config, got array<i64: 8, 8, 4>}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = array<i64: 8, 8, 4>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

// A partial request is gmm-configure's to complete.
func.func @incomplete(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<tile = [8, 8, 4]> is incomplete (run gmm-configure)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<tile = [8, 8, 4]>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

// A GPU configuration without warps is incomplete too.
func.func @gpu_incomplete(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [8, 8, 4], stages = 2> is incomplete (run gmm-configure)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [8, 8, 4], stages = 2>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

// Sizes near 2^62 written by hand are refused before any arithmetic with
// them (#15, class 2: their products overflowed): on the CPU ...
func.func @huge_for_cpu(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [2, 4611686018427387904, 4], register_block = [1, 8]>: tile 2x4611686018427387904x4 is too large for the CPU cache tiles}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [2, 4611686018427387904, 4], register_block = [1, 8]>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

// ... and on the GPU.
func.func @huge_for_gpu(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [1152921504606846976, 128, 16], warps = [1, 1], stages = 2>: tile 1152921504606846976x128x16 is too large for a CUDA block (at most 65536 accumulators, tile_m * tile_n, and k steps of at most 1024)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [1152921504606846976, 128, 16], warps = [1, 1], stages = 2>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

func.func @huge_register_block(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [96, 128, 256], register_block = [6, 4611686018427387904]>: a register block of 6 x 4611686018427387904 is too large (at most 64 rows of 256 lanes)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [96, 128, 256], register_block = [6, 4611686018427387904]>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}
