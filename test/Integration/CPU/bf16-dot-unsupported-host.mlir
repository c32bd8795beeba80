// UNSUPPORTED: host-avx512-bf16
// On a CPU without AVX512-BF16, a ragged dot configured for the bf16_dot
// micro-kernel is refused before the JIT compiles it (LLVM's instruction
// selection would stop the process), naming the instruction set; the
// heuristic never picks it on such a CPU.

// RUN: not gmm-runner %s -e given --seed=1 --check 2>&1 | FileCheck %s --check-prefix=GIVEN
// GIVEN: gmm-runner: error: @given uses AVX512-BF16 ('llvm.x86.avx512bf16.dpbf16ps.512'), which this CPU does not have; compile it for this CPU (the cpu pipeline's micro-kernel=fma or its heuristic)
func.func @given(%lhs: tensor<20x9xbf16>, %rhs: tensor<2x9x40xbf16>,
                 %group_sizes: tensor<2xi32>) -> tensor<20x40xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      {gmm.kernel_config = #gmm.kernel_config<tile = [16, 32, 8], register_block = [4, 32], micro_kernel = bf16_dot>}
      : tensor<20x9xbf16>, tensor<2x9x40xbf16>, tensor<2xi32> -> tensor<20x40xf32>
  return %0 : tensor<20x40xf32>
}

// RUN: gmm-runner %s -e heuristic --seed=1 --check | FileCheck %s --check-prefix=HEURISTIC
// HEURISTIC: check: PASS (800 elements,
func.func @heuristic(%lhs: tensor<20x9xbf16>, %rhs: tensor<2x9x40xbf16>,
                     %group_sizes: tensor<2xi32>) -> tensor<20x40xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<20x9xbf16>, tensor<2x9x40xbf16>, tensor<2xi32> -> tensor<20x40xf32>
  return %0 : tensor<20x40xf32>
}
