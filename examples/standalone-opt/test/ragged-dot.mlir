// my-opt, built against an installed gmm, parses and verifies gmm, lowers it
// with gmm's passes and runs each of gmm's pipelines (reference, CPU, PTX)
// to the LLVM dialect: registerGMMDialects registers all that they need.
// test/Embedding/install-and-build-example.sh runs these commands.
//
// RUN: my-opt %s --convert-gmm-to-loops --canonicalize --cse | FileCheck %s --check-prefix=LOOPS
// RUN: my-opt %s --gmm-reference-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: my-opt %s --gmm-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: my-opt %s --gmm-to-ptx=chip=sm_80 | FileCheck %s --check-prefix=PTX

// LOOPS-LABEL: func.func @moe
// LOOPS-NOT:     gmm.ragged_dot
// LOOPS:         linalg.fill
// LOOPS:         scf.for
// LOOPS:           tensor.extract
// LOOPS:           arith.mulf
// LOOPS:         return

// LLVM-LABEL: llvm.func @moe
// LLVM-NOT:     gmm.
// LLVM-NOT:     scf.
// LLVM:         llvm.fmul
// LLVM:         llvm.return
// CPU-LABEL: llvm.func @moe
// CPU-NOT:     gmm.
// CPU-NOT:     scf.
// CPU-NOT:     vector.
// CPU:         llvm.return

// PTX-LABEL:   llvm.func @moe
// PTX-NOT:       gmm.
// PTX:           gpu.launch_func
// PTX:           llvm.return
// PTX:         gpu.binary @{{.+}} [#gpu.object<#nvvm.target<{{.*}}chip = "sm_80"
func.func @moe(%tokens: tensor<8x4xf32>, %experts: tensor<2x4x3xf32>,
               %group_sizes: tensor<2xi32>) -> tensor<8x3xf32> {
  %0 = gmm.ragged_dot %tokens, %experts, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}
