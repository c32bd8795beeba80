// RUN: gmm-opt %s -split-input-file --gmm-configure=target=gpu -verify-diagnostics

// What gmm-configure refuses for the GPU, at the op and in terms of the
// configuration (the CPU's refusals are in configure-invalid-cpu.mlir).

// The shared memory of the stages: 2 x (256 x 72 + 64 x 136) bf16, more
// than a block's 48 KiB.
func.func @shared_memory(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [256, 128, 64], warps = [2, 4], stages = 2>: its 2 stages need 98304 bytes of shared memory, more than the 49152 a block gets statically (name the chip for more)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [256, 128, 64]>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// 2 x 4 warps of m16n8k16 steps need m to be a multiple of 32.
func.func @warps(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [48, 128, 32], warps = [2, 4], stages = 2>: the tile does not split over 2x4 warps of 16x8x16 mma.sync steps ('bf16')}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [48, 128, 32], warps = [2, 4]>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// 32 x 32 x 16 bf16 is 64 copies of 16 bytes per operand: not a whole
// number per thread of 8 warps.
func.func @copies(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 4], stages = 2>: the tile's 8-element copies (16 bytes of 'bf16') do not spread evenly over 256 threads}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [32, 32, 16], warps = [2, 4]>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// One stage has no pipeline; more than four are not built.
func.func @stages(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [64, 64, 32], warps = [2, 4], stages = 5>: the GPU kernel stages 2 to 4 k steps at a time, not 5}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], stages = 5>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// Four stages of the default 128 x 128 x 32 bf16 tile need more than the
// static 48 KiB (three fit: 49152 bytes).
func.func @four_default_stages(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [128, 128, 32], warps = [2, 4], stages = 4>: its 4 stages need 65536 bytes of shared memory, more than the 49152 a block gets statically (name the chip for more)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<stages = 4>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @too_many_warps(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [128, 128, 32], warps = [8, 8], stages = 2>: 8 x 8 warps are more than a block's 32 (1024 threads)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<warps = [8, 8]>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// f64 has neither a tensor-core nor an FMA kernel on the GPU.
func.func @f64(%lhs: tensor<16x4xf64>, %rhs: tensor<2x4x3xf64>, %gs: tensor<2xi32>) -> tensor<16x3xf64> {
  // expected-error @+1 {{'gmm.ragged_dot' op element type 'f64' is not supported on the GPU (f16, bf16 and f32 are)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf64>, tensor<2x4x3xf64>, tensor<2xi32> -> tensor<16x3xf64>
  return %0 : tensor<16x3xf64>
}

// -----

// Tiles past the target's bounds (sizes near 2^62 used to overflow the
// tiling's arithmetic, #15 class 2).
func.func @huge(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [2, 4611686018427387904, 4], warps = [2, 4], stages = 2>: tile 2x4611686018427387904x4 is too large for a CUDA block (at most 65536 accumulators, tile_m * tile_n, and k steps of at most 1024)}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [2, 4611686018427387904, 4]>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// A configuration for the other target.
func.func @other_target(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op is configured for the cpu, but this pipeline compiles for the gpu}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = cpu>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

func.func @not_a_config(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  // expected-error @+1 {{'gmm.ragged_dot' op expects 'gmm.kernel_config' to be a #gmm.kernel_config, got array<i64: 64, 64, 32>}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = array<i64: 64, 64, 32>} : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}
