// RUN: gmm-opt %s -split-input-file --gmm-configure=target=cpu -verify-diagnostics

// What gmm-configure refuses for the CPU, at the op and in terms of the
// configuration.

// Tiles past the CPU's bounds (sizes near 2^62 used to overflow the
// tiling's arithmetic, #15 class 2). The register block is given: the
// default depends on the host's vector width.
func.func @huge(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [2, 4611686018427387904, 4], register_block = [2, 16], micro_kernel = fma>: tile 2x4611686018427387904x4 is too large for the CPU cache tiles (tile sizes of at most 4096, at most 1048576 accumulators, tile_m * tile_n, and k steps of at most 4096)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [2, 4611686018427387904, 4], register_block = [2, 16]>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @too_many_accumulators(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [2048, 1024, 32], register_block = [6, 16], micro_kernel = fma>: tile 2048x1024x32 is too large for the CPU cache tiles}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [2048, 1024, 32], register_block = [6, 16]>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// A register block taller than the tile it blocks (the heuristic's own
// block is shortened to the tile; one given by the op is not).
func.func @tall_register_block(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [4, 128, 256], register_block = [6, 16], micro_kernel = fma>: a register block of 6 rows is taller than the tile's 4 rows}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [4, 128, 256], register_block = [6, 16]>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @register_block_too_large(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [96, 128, 256], register_block = [6, 512], micro_kernel = fma>: a register block of 6 x 512 is too large (at most 64 rows of 256 lanes)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [96, 128, 256], register_block = [6, 512]>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @other_target(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op is configured for the gpu, but this pipeline compiles for the cpu}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [64, 64, 16]>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// A huge register block with no tile: the heuristic tile (64 x 32 or, on
// an AVX-512 host, 32 x 16 register blocks, bounded) is not computed from it
// before it is refused (the .mlir fuzzer found the overflow).
func.func @huge_register_block_no_tile(%lhs: tensor<40x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<40x3xf32> {
  // expected-error-re @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [{{256|192}}, 4096, 256], register_block = [6, 4611686018427387904], micro_kernel = fma>: a register block of 6 x 4611686018427387904 is too large (at most 64 rows of 256 lanes)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<register_block = [6, 4611686018427387904]>} : tensor<40x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<40x3xf32>
  return %0 : tensor<40x3xf32>
}

// -----

// The bf16_dot micro-kernel takes bf16 inputs, lanes in multiples of 16
// and an even contraction block.
func.func @bf16_dot_f32(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [64, 64, 32], register_block = [2, 32], micro_kernel = bf16_dot>: the bf16_dot micro-kernel takes bf16 inputs, not 'f32'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], register_block = [2, 32], micro_kernel = bf16_dot>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @bf16_dot_lanes(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [64, 64, 32], register_block = [2, 24], micro_kernel = bf16_dot>: the bf16_dot micro-kernel needs register block lanes in multiples of 16 (one vdpbf16ps each), not 24}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], register_block = [2, 24], micro_kernel = bf16_dot>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @bf16_dot_odd_k(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [64, 64, 33], register_block = [2, 32], micro_kernel = bf16_dot>: the bf16_dot micro-kernel multiplies pairs of contraction steps: the contraction block must be even, not 33}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 33], register_block = [2, 32], micro_kernel = bf16_dot>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}
