// REQUIRES: host-avx512-bf16
// The bf16_dot micro-kernel (vdpbf16ps on pairs of contraction steps),
// asked for by each op's configuration (gmm-configure's heuristic picks it
// only where vdpbf16ps is as fast as f32 FMAs, configure-host-bf16.mlir;
// every host with AVX512-BF16 runs it): odd contraction lengths (the last pair's odd step is zero in both
// operands), and a weight gradient whose groups have odd sizes next to
// tokens in no group (NaN here), which are never read.

// The op's choice is what runs: the module calls vdpbf16ps.
// RUN: gmm-opt %s --gmm-to-cpu | FileCheck %s --check-prefix=LLVM
// LLVM-LABEL: llvm.func @forward(
// LLVM:         llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// LLVM-LABEL: llvm.func @weight_gradient(
// LLVM:         llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"

// Mode 1, k = 3: rows 0-1 use rhs[0], row 2 uses rhs[1].
//   [1, 2, 3] . rhs[0] = [1*1 + 2*0 + 3*2, 1*0 + 2*1 + 3*1] = [7, 5]
//   [0, 1, 1] . rhs[0] = [0 + 0 + 2, 0 + 1 + 1] = [2, 2]
//   [2, 0, 1] . rhs[1] = [2*1 + 0 + 1*(-1), 2*2 + 0 + 1*4] = [1, 8]
// RUN: gmm-runner %s -e forward --values=0:1,2,3,0,1,1,2,0,1 \
// RUN:   --values=1:1,0,0,1,2,1,1,2,5,5,-1,4 --values=2:2,1 --print --check \
// RUN:   | FileCheck %s --check-prefix=FORWARD
// FORWARD:      result 0: tensor<3x2xf32>
// FORWARD-NEXT: {{\[}}[7, 5],
// FORWARD-NEXT:  [2, 2],
// FORWARD-NEXT:  [1, 8]]
// FORWARD-NEXT: check: PASS (6 elements, max abs error 0,
// RUN: gmm-runner %s -e forward_large --seed=3 --group-sizes=skewed --check \
// RUN:   | FileCheck %s --check-prefix=LARGE
// LARGE: check: PASS (102000 elements,
func.func @forward(%lhs: tensor<3x3xbf16>, %rhs: tensor<2x3x2xbf16>,
                   %group_sizes: tensor<2xi32>) -> tensor<3x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<micro_kernel = bf16_dot>}
      : tensor<3x3xbf16>, tensor<2x3x2xbf16>, tensor<2xi32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
// Several tiles, panels and contraction blocks of the heuristic's
// tiles, with an odd k.
func.func @forward_large(%lhs: tensor<300x517xbf16>, %rhs: tensor<5x517x340xbf16>,
                         %group_sizes: tensor<5xi32>) -> tensor<300x340xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<micro_kernel = bf16_dot>}
      : tensor<300x517xbf16>, tensor<5x517x340xbf16>, tensor<5xi32> -> tensor<300x340xf32>
  return %0 : tensor<300x340xf32>
}

// Mode 2, group sizes [3, 0, 2] over 6 tokens; token 5 is in no group.
//   group 0, tokens 0-2: x = [[1,0],[0,1],[1,1]], dy = [[1,2],[3,4],[1,1]]
//     -> [[1*1+0*3+1*1, 1*2+0*4+1*1], [0*1+1*3+1*1, 0*2+1*4+1*1]]
//      = [[2, 3], [4, 5]]
//   group 1 is empty: zero
//   group 2, tokens 3-4: x = [[2,0],[0,1]], dy = [[1,0],[2,2]]
//     -> [[2*1+0*2, 2*0+0*2], [0*1+1*2, 0*0+1*2]] = [[2, 0], [2, 2]]
// RUN: gmm-runner %s -e weight_gradient --values=0:1,0,0,1,1,1,2,0,0,1,nan,nan \
// RUN:   --values=1:1,2,3,4,1,1,1,0,2,2,nan,nan --values=2:3,0,2 --print --check \
// RUN:   | FileCheck %s --check-prefix=GRAD
// GRAD:      result 0: tensor<3x2x2xf32>
// GRAD-NEXT: {{\[\[\[}}2, 3],
// GRAD-NEXT:   [4, 5]],
// GRAD-NEXT:  {{\[\[}}0, 0],
// GRAD-NEXT:   [0, 0]],
// GRAD-NEXT:  {{\[\[}}2, 0],
// GRAD-NEXT:   [2, 2]]]
// GRAD-NEXT: check: PASS (12 elements, max abs error 0,
func.func @weight_gradient(%x: tensor<6x2xbf16>, %dy: tensor<6x2xbf16>,
                           %group_sizes: tensor<3xi32>) -> tensor<3x2x2xf32> {
  %0 = gmm.ragged_dot %x, %dy, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [0],
                           rhs_contracting_dimensions = [0],
                           lhs_ragged_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<micro_kernel = bf16_dot>}
      : tensor<6x2xbf16>, tensor<6x2xbf16>, tensor<3xi32> -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}
