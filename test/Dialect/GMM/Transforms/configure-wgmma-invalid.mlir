// gmm-configure's checks of a wgmma configuration (the Hopper kernel of
// gmm-gpu-wgmma-kernel), each reported at the op: 16-bit inputs, tiles of
// 128 x n x 64 with n a multiple of 64 up to 256, 2 x 4 warps (two consumer
// warpgroups), 2 to 8 stages that fit in the chip's shared memory, and a
// chip with wgmma (sm_90a).
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90a" -verify-diagnostics
// RUN: not gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90" 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90a mma=wgmma tile-k=32" 2>&1 | FileCheck %s --check-prefix=OPTION

// SM90: error: 'gmm.ragged_dot' op asks for the wgmma kernel, which needs sm_90a (wgmma.mma_async), not 'sm_90'
// OPTION: error: 'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [128, 256, 32], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>: the wgmma kernel takes tiles of 128 x n x 64 with n a multiple of 64 up to 256
func.func @k32(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x512xbf16>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  // expected-error @+1 {{kernel configuration #gmm.kernel_config<target = gpu, tile = [128, 256, 32], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>: the wgmma kernel takes tiles of 128 x n x 64 with n a multiple of 64 up to 256}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [128, 256, 32], mma = wgmma>} : tensor<512x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

func.func @n320(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x512xbf16>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  // expected-error @+1 {{the wgmma kernel takes tiles of 128 x n x 64 with n a multiple of 64 up to 256}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [128, 320, 64], stages = 2, mma = wgmma>} : tensor<512x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

func.func @f32_inputs(%lhs: tensor<512x64xf32>, %rhs: tensor<4x64x512xf32>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  // expected-error @+1 {{wgmma takes 16-bit inputs (f16, bf16), not 'f32'}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<mma = wgmma>} : tensor<512x64xf32>, tensor<4x64x512xf32>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

func.func @warps(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x512xbf16>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  // expected-error @+1 {{the wgmma kernel has warps = [2, 4]: two consumer warpgroups of four warps}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [4, 2], stages = 4, mma = wgmma>} : tensor<512x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

func.func @stages(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x512xbf16>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  // expected-error @+1 {{the wgmma kernel stages 2 to 8 k steps at a time, not 9}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [128, 128, 64], stages = 9, mma = wgmma>} : tensor<512x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

// Five stages of 48 KiB and the alignment slack: 246912 bytes.
func.func @shared_memory(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x512xbf16>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  // expected-error @+1 {{its 5 stages need 246912 bytes of shared memory, more than the 232448 a block can have on the chip}}
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<stages = 5, mma = wgmma>} : tensor<512x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
