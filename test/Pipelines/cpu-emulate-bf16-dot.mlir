// gmm-to-cpu{emulate-bf16-dot}: the bf16_dot micro-kernel's code (bf16
// panels of interleaved pairs of k) with each vdpbf16ps computed by f32
// FMAs of the pairs' even and odd elements, so that it runs on a CPU without
// AVX512-BF16 (gmm-difftest does this there; its bf16-dot runs compare the
// results with the C++ reference). Without the option the intrinsic stays.

// RUN: gmm-opt %s --gmm-to-cpu="micro-kernel=bf16-dot emulate-bf16-dot=1" | FileCheck %s --check-prefix=EMULATED
// RUN: gmm-opt %s --gmm-to-cpu="micro-kernel=bf16-dot" | FileCheck %s --check-prefix=NATIVE

// EMULATED-LABEL: llvm.func @forward(
// EMULATED-NOT:     avx512bf16
// EMULATED:         %[[EVEN:.+]] = llvm.shufflevector %[[W:.+]], %{{.+}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>
// EMULATED-NEXT:    %[[ODD:.+]] = llvm.shufflevector %[[W]], %{{.+}} [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31] : vector<32xf32>
// EMULATED:         llvm.intr.fmuladd(%[[ODD]], %{{.+}}, %{{.+}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// EMULATED:         llvm.intr.fmuladd(%[[EVEN]], %{{.+}}, %{{.+}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// EMULATED-NOT:     avx512bf16
// EMULATED:         llvm.return

// NATIVE-LABEL: llvm.func @forward(
// NATIVE:         llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
func.func @forward(%lhs: tensor<20x9xbf16>, %rhs: tensor<2x9x40xbf16>,
                   %group_sizes: tensor<2xi32>) -> tensor<20x40xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<20x9xbf16>, tensor<2x9x40xbf16>, tensor<2xi32> -> tensor<20x40xf32>
  return %0 : tensor<20x40xf32>
}
