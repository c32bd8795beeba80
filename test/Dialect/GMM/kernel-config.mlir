// RUN: gmm-opt %s -split-input-file | FileCheck %s
// RUN: gmm-opt %s -split-input-file | gmm-opt -split-input-file | FileCheck %s
// RUN: gmm-opt %s -split-input-file -mlir-print-op-generic | gmm-opt -split-input-file | FileCheck %s

// Round trip of #gmm.kernel_config: complete GPU and CPU configurations,
// partial requests (any subset of the fields, in any order on input; the
// printer writes them in a fixed order and leaves out what is unset), and
// the empty configuration.

// CHECK-LABEL: func.func @gpu
// CHECK:         gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 128, 32], warps = [2, 4], stages = 2>
func.func @gpu() attributes {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 128, 32], warps = [2, 4], stages = 2>} {
  return
}

// -----

// CHECK-LABEL: func.func @cpu
// CHECK:         gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [96, 128, 256], register_block = [6, 16]>
func.func @cpu() attributes {gmm.kernel_config = #gmm.kernel_config<register_block = [6, 16], tile = [96, 128, 256], target = cpu>} {
  return
}

// -----

// The micro-kernel, with the other CPU fields or alone.
// CHECK-LABEL: func.func @micro_kernel
// CHECK:         a = #gmm.kernel_config<target = cpu, tile = [224, 256, 256], register_block = [14, 32], micro_kernel = bf16_dot>
// CHECK-SAME:    b = #gmm.kernel_config<micro_kernel = fma>
func.func @micro_kernel() attributes {a = #gmm.kernel_config<micro_kernel = bf16_dot, target = cpu, tile = [224, 256, 256], register_block = [14, 32]>, b = #gmm.kernel_config<micro_kernel = fma>} {
  return
}

// -----

// The GPU's matrix instruction, with the other GPU fields or alone.
// CHECK-LABEL: func.func @mma
// CHECK:         a = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma>
// CHECK-SAME:    b = #gmm.kernel_config<mma = mma_sync>
func.func @mma() attributes {a = #gmm.kernel_config<mma = wgmma, stages = 4, target = gpu, tile = [128, 256, 64], warps = [2, 4]>, b = #gmm.kernel_config<mma = mma_sync>} {
  return
}

// -----

// The blocks' raster band, printed last, with the other GPU fields or
// alone.
// CHECK-LABEL: func.func @raster
// CHECK:         a = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>
// CHECK-SAME:    b = #gmm.kernel_config<raster = 1>
func.func @raster() attributes {a = #gmm.kernel_config<raster = 8, mma = wgmma, stages = 4, target = gpu, tile = [128, 256, 64], warps = [2, 4]>, b = #gmm.kernel_config<raster = 1>} {
  return
}

// -----

// CHECK-LABEL: func.func @partial
// CHECK:         a = #gmm.kernel_config<tile = [64, 64, 32]>
// CHECK-SAME:    b = #gmm.kernel_config<warps = [1, 2]>
// CHECK-SAME:    c = #gmm.kernel_config<target = gpu, stages = 2>
// CHECK-SAME:    d = #gmm.kernel_config<>
func.func @partial() attributes {a = #gmm.kernel_config<tile = [64, 64, 32]>, b = #gmm.kernel_config<warps = [1, 2]>, c = #gmm.kernel_config<stages = 2, target = gpu>, d = #gmm.kernel_config<>} {
  return
}

// -----

// On a ragged dot, as gmm-configure leaves it.
// CHECK-LABEL: func.func @on_op
// CHECK:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [64, 64, 32], warps = [2, 2], stages = 2>}
func.func @on_op(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [64, 64, 32], warps = [2, 2], stages = 2>} : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}
