// Debian's own mlir-opt (linked against libMLIR.so) loads gmm as a plugin
// that shares its MLIR: the dialect plugin alone parses and verifies gmm and
// registers gmm's passes; the pass plugin registers them too.

// RUN: mlir-opt %s --load-dialect-plugin=%gmm_plugin | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: mlir-opt %s --load-dialect-plugin=%gmm_plugin --load-pass-plugin=%gmm_plugin \
// RUN:   --pass-pipeline='builtin.module(convert-gmm-to-loops,canonicalize,cse)' \
// RUN:   | FileCheck %s --check-prefix=LOOPS
// RUN: mlir-opt %s --load-dialect-plugin=%gmm_plugin \
// RUN:   --pass-pipeline='builtin.module(gmm-reference-to-llvm)' \
// RUN:   | FileCheck %s --check-prefix=LLVM
// RUN: mlir-opt %s --load-dialect-plugin=%gmm_plugin \
// RUN:   --pass-pipeline='builtin.module(gmm-to-cpu)' \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: mlir-opt %s --load-dialect-plugin=%gmm_plugin \
// RUN:   --pass-pipeline='builtin.module(gmm-to-ptx{chip=sm_80})' \
// RUN:   | FileCheck %s --check-prefix=PTX
// RUN: not mlir-opt %s --load-pass-plugin=%gmm_plugin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODIALECT
// gmm-opt contains gmm; its own plugin, which would register gmm twice, is
// refused in one line, in every spelling of the options.
// RUN: not gmm-opt %s --load-pass-plugin=%gmm_plugin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OWN-PASS
// RUN: not gmm-opt %s -load-pass-plugin %gmm_plugin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OWN-PASS
// RUN: not gmm-opt %s --load-dialect-plugin %gmm_plugin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OWN-DIALECT

// ROUNDTRIP-LABEL: func.func @moe
// ROUNDTRIP:         gmm.ragged_dot %{{.*}}, %{{.*}}, %{{.*}} dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<8x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<8x3xf32>

// LOOPS-LABEL: func.func @moe
// LOOPS-NOT:     gmm.ragged_dot
// LOOPS:         scf.for
// LOOPS:           arith.mulf

// LLVM-LABEL: llvm.func @moe
// LLVM-NOT:     gmm.
// LLVM:         llvm.fmul
// LLVM:         llvm.return

// CPU-LABEL: llvm.func @moe
// CPU-NOT:     gmm.
// CPU-NOT:     scf.
// CPU:         llvm.return

// PTX-LABEL:   llvm.func @moe
// PTX-NOT:       gmm.
// PTX:           gpu.launch_func
// PTX:           llvm.return
// PTX:         gpu.binary @{{.+}} [#gpu.object<#nvvm.target<{{.*}}chip = "sm_80"

// Passes alone do not make the dialect known.
// NODIALECT: Dialect `gmm' not found for custom op 'gmm.ragged_dot'

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

// OWN-PASS: gmm-opt: error: --load-pass-plugin={{.*}}libGMMPlugin.so: this is gmm's own plugin, and gmm-opt already contains the gmm dialect and passes (the plugin is for mlir-opt and other MLIR tools){{$}}
// OWN-PASS-NOT: {{.}}
// OWN-DIALECT: gmm-opt: error: --load-dialect-plugin={{.*}}libGMMPlugin.so: this is gmm's own plugin, and gmm-opt already contains the gmm dialect and passes (the plugin is for mlir-opt and other MLIR tools){{$}}
// OWN-DIALECT-NOT: {{.}}
