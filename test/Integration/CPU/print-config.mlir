// gmm-runner --print-config prints, before the run, each ragged dot's
// kernel configuration as gmm-configure chose it in the run's pipeline, and
// where each field came from; the run then goes on. The CPU's register
// block and tile depend on the host's vectors, so they are matched loosely;
// what came from the op's gmm.kernel_config and the f32 micro-kernel's
// reason are exact.

// RUN: gmm-runner %s -e heuristic --seed=1 --print-config --check | FileCheck %s --check-prefix=CPU
// CPU:      config: @heuristic at {{.*}}print-config.mlir:[[# @LINE + 7]]:8: #gmm.kernel_config<target = cpu, tile = [{{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}], register_block = [{{[0-9]+}}, {{[0-9]+}}], micro_kernel = fma>
// CPU-NEXT:   tile: heuristic: {{.+}}
// CPU-NEXT:   register_block: heuristic: fills the vector registers of {{128|256|512}}-bit vectors
// CPU-NEXT:   micro_kernel: heuristic: not bf16 inputs
// CPU-NEXT: check: PASS
// CPU-NOT:  config:
func.func @heuristic(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %gs: tensor<4xi32>) -> tensor<64x48xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// Two ragged dots, the first with its own tile: one line each, in order.
// RUN: gmm-runner %s -e two --seed=1 --print-config | FileCheck %s --check-prefix=TWO
// TWO:      config: @two at {{.*}}print-config.mlir:[[# @LINE + 6]]:8: #gmm.kernel_config<target = cpu, tile = [16, 16, 8], register_block = [{{[0-9]+}}, {{[0-9]+}}], micro_kernel = fma>
// TWO-NEXT:   tile: the op's gmm.kernel_config
// TWO:      config: @two at {{.*}}print-config.mlir:[[# @LINE + 5]]:8: #gmm.kernel_config<target = cpu,
// TWO-NEXT:   tile: heuristic:
// TWO-NOT:  config:
func.func @two(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %gs: tensor<4xi32>, %rhs2: tensor<4x48x48xf32>) -> tensor<64x48xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [16, 16, 8]>} : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  %1 = gmm.ragged_dot %0, %rhs2, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x48xf32>, tensor<4x48x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %1 : tensor<64x48xf32>
}

// The reference pipeline configures nothing, and says so.
// RUN: gmm-runner %s -e heuristic --seed=1 --pipeline=reference --print-config | FileCheck %s --check-prefix=REF
// REF: config: none: --pipeline=reference configures no kernel
