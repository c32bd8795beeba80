// Ragged dots with the same shapes, types and kernel configuration share
// their kernels (gmm-gpu-share-kernels after outlining): one gpu.binary per
// distinct kernel, launched by every function that needs it: the group
// metadata kernel (one thread per group), then the tile kernel. A ragged dot
// with a different n shares the group-metadata kernel but has a tile kernel
// of its own.

// RUN: gmm-opt %s --gmm-to-ptx | FileCheck %s --check-prefix=PTX
// PTX-LABEL: llvm.func @layer0(
// PTX:         gpu.launch_func {{.*}}@[[M0:[a-z0-9_]+]]::@{{[a-z0-9_]+}}
// PTX:         gpu.launch_func {{.*}}@[[TILE:[a-z0-9_]+]]::@{{[a-z0-9_]+}} blocks
// PTX-NOT:     gpu.launch_func
// PTX:       gpu.binary @[[M0]]
// PTX:       gpu.binary @[[TILE]]
// PTX-LABEL: llvm.func @layer1(
// PTX:         gpu.launch_func {{.*}}@[[M0]]::
// PTX:         gpu.launch_func {{.*}}@[[TILE]]::
// PTX-NOT:     gpu.launch_func
// PTX-NOT:   gpu.binary
// PTX-LABEL: llvm.func @wider(
// PTX:         gpu.launch_func {{.*}}@[[M0]]::
// PTX:         gpu.launch_func {{.*}}@[[WIDE:[a-z0-9_]+]]::
// PTX-NOT:     gpu.launch_func
// PTX:       gpu.binary @[[WIDE]]
// PTX-NOT:   gpu.binary

// Each function computes the right result with the kernels it now shares.
// REQUIRES: cuda-device
// RUN: gmm-runner %s -e layer1 %cuda_target --seed=1 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %s -e wider %cuda_target --seed=2 --group-sizes=uniform --check | FileCheck %s
// CHECK: check: PASS

func.func @layer0(%x: tensor<200x64xbf16>, %w: tensor<4x64x96xbf16>, %gs: tensor<4xi32>) -> tensor<200x96xf32> {
  %0 = gmm.ragged_dot %x, %w, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<200x64xbf16>, tensor<4x64x96xbf16>, tensor<4xi32> -> tensor<200x96xf32>
  return %0 : tensor<200x96xf32>
}

func.func @layer1(%x: tensor<200x64xbf16>, %w: tensor<4x64x96xbf16>, %gs: tensor<4xi32>) -> tensor<200x96xf32> {
  %0 = gmm.ragged_dot %x, %w, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<200x64xbf16>, tensor<4x64x96xbf16>, tensor<4xi32> -> tensor<200x96xf32>
  return %0 : tensor<200x96xf32>
}

func.func @wider(%x: tensor<200x64xbf16>, %w: tensor<4x64x160xbf16>, %gs: tensor<4xi32>) -> tensor<200x160xf32> {
  %0 = gmm.ragged_dot %x, %w, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<200x64xbf16>, tensor<4x64x160xbf16>, tensor<4xi32> -> tensor<200x160xf32>
  return %0 : tensor<200x160xf32>
}
