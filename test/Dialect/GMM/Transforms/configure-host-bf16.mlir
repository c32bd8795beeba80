// REQUIRES: host-prefers-bf16-dot
// RUN: gmm-opt %s -split-input-file --gmm-configure | FileCheck %s
// RUN: gmm-opt %s -split-input-file --gmm-configure="micro-n=24" | FileCheck %s --check-prefix=LANES
// RUN: gmm-opt %s -split-input-file --gmm-configure="tile-k=7" | FileCheck %s --check-prefix=ODD-K
// RUN: gmm-opt %s -split-input-file --gmm-configure="micro-kernel=fma" | FileCheck %s --check-prefix=FMA

// gmm-configure's heuristic on a host with AVX-512 and AVX512-BF16 whose
// vdpbf16ps is at least as fast as its f32 FMAs (a Zen 4 or 5; the rule is
// unit-tested in GMMTransformsTests), for code for the host (no
// vector-bits): bf16 ragged dots take the bf16_dot micro-kernel
// (vdpbf16ps), others fma. Where the blocks do not suit bf16_dot (lanes not
// a multiple of 16, an odd contraction block), the heuristic takes fma
// instead of refusing them; micro-kernel=fma turns it off. The groups hold
// 32 rows on average, so that the ops are not
// decode-like (whose visits span the rhs's rows, configure.mlir).

// CHECK-LABEL: func.func @bf16
// CHECK:         {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = bf16_dot>}
// LANES-LABEL: func.func @bf16
// LANES:         {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 384, 256], register_block = [14, 24], micro_kernel = fma>}
// ODD-K-LABEL: func.func @bf16
// ODD-K:         {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 7], register_block = [14, 32], micro_kernel = fma>}
// FMA-LABEL: func.func @bf16
// FMA:           {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
func.func @bf16(%lhs: tensor<64x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<64x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<64x3xf32>
  return %0 : tensor<64x3xf32>
}

// -----

// CHECK-LABEL: func.func @f16
// CHECK:         {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
func.func @f16(%lhs: tensor<64x4xf16>, %rhs: tensor<2x4x3xf16>, %gs: tensor<2xi32>) -> tensor<64x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x4xf16>, tensor<2x4x3xf16>, tensor<2xi32> -> tensor<64x3xf32>
  return %0 : tensor<64x3xf32>
}
