// User errors: exactly one line "gmm-runner: error: ..." on stderr and exit
// code 1 (`not` checks the exit code), never a crash.

// RUN: not gmm-runner %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: gmm-runner: error: cannot open input file '{{.*}}missing.mlir': No such file or directory

// RUN: not gmm-runner %s -e ragged --values=0:1,2,3 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: gmm-runner: error: --values=0:1,2,3: got 3 values, but argument 0 (tensor<4x2xf32>) with shape [4, 2] has 8 elements
// RUN: not gmm-runner %s -e ragged --values=0:1,2,3 2>&1 | count 1

// RUN: not gmm-runner %s -e ragged --values=2:1.5,2 2>&1 | FileCheck %s --check-prefix=NOTINT
// NOTINT: gmm-runner: error: --values=2:1.5,2: '1.5' is not an integer
// RUN: not gmm-runner %s -e ragged --values=1:1,x 2>&1 | FileCheck %s --check-prefix=NOTNUM
// NOTNUM: gmm-runner: error: --values=1:1,x: 'x' is not a number
// RUN: not gmm-runner %s -e ragged --values=3:1 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: gmm-runner: error: --values=3:1: argument index 3 is out of range (there are 3)
// RUN: not gmm-runner %s -e ragged --values=1 2>&1 | FileCheck %s --check-prefix=NOINDEX
// NOINDEX: gmm-runner: error: --values=1: expected IDX:v0,v1,... with IDX a 0-based argument index
// RUN: not gmm-runner %s -e ragged --values=2:1,1 --group-sizes=uniform 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWICE
// TWICE: gmm-runner: error: argument 2 is given twice (--values=2:1,1 and --group-sizes=uniform)

// RUN: not gmm-runner %s -e ragged --group-sizes=lots 2>&1 | FileCheck %s --check-prefix=GS-WORD
// GS-WORD: gmm-runner: error: --group-sizes=lots: 'lots' is not an integer (expected uniform, skewed or a comma-separated list of sizes)
// RUN: not gmm-runner %s -e ragged --group-sizes=1,2,3 2>&1 | FileCheck %s --check-prefix=GS-COUNT
// GS-COUNT: gmm-runner: error: --group-sizes=1,2,3: got 3 sizes, but argument 2 (tensor<2xi32>) has 2 groups
// RUN: not gmm-runner %s -e ragged --group-sizes=1,3000000000 2>&1 | FileCheck %s --check-prefix=GS-I32
// GS-I32: gmm-runner: error: --group-sizes: 3000000000 does not fit in i32
// RUN: not gmm-runner %s -e copy --group-sizes=uniform 2>&1 | FileCheck %s --check-prefix=GS-NONE
// GS-NONE: gmm-runner: error: --group-sizes needs a gmm.ragged_dot: @copy contains no gmm.ragged_dot
// RUN: not gmm-runner %s -e ragged --group-offset=1 2>&1 | FileCheck %s --check-prefix=OFFSET
// OFFSET: gmm-runner: error: --group-offset applies to the group_offset operand of gmm.ragged_dot, which is not an argument of @ragged

// RUN: not gmm-runner %s -e nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: gmm-runner: error: no function @nope (functions: @ragged, @dynamic, @copy, @index)
// RUN: not gmm-runner %s 2>&1 | FileCheck %s --check-prefix=WHICH
// WHICH: gmm-runner: error: the module defines 4 functions (@ragged, @dynamic, @copy, @index); choose one with --entry

// RUN: not gmm-runner %s -e dynamic --seed=1 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: gmm-runner: error: argument 0 (tensor<?x2xf32>) has dynamic sizes; give its shape with --arg-shape=0:Ax2
// RUN: not gmm-runner %s -e dynamic --arg-shape=0:4x2 --arg-shape=0:4x2 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE-TWICE
// SHAPE-TWICE: gmm-runner: error: --arg-shape is given twice for argument 0
// RUN: not gmm-runner %s -e dynamic --arg-shape=0:4xy 2>&1 | FileCheck %s --check-prefix=SHAPE-BAD
// SHAPE-BAD: gmm-runner: error: --arg-shape=0:4xy: 'y' is not a size (expected AxBxC with non-negative integers)
// RUN: not gmm-runner %s -e ragged --arg-shape=0:4 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: gmm-runner: error: --arg-shape=0:4 has shape [4], but argument 0 (tensor<4x2xf32>) needs shape [4, 2]

// Without a CUDA driver (forced even on a GPU machine), --target=cuda
// compiles the module for the GPU and then stops with the runtime's reason.
// RUN: env GMM_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 not gmm-runner %s -e ragged --target=cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: gmm-runner: error: cannot run @ragged on CUDA: no CUDA driver ({{.*}}/nonexistent/libcuda.so.1{{.*}})
// RUN: env GMM_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 not gmm-runner %s -e ragged --target=cuda 2>&1 | count 1
// RUN: not gmm-runner %s -e ragged --target=cuda --pipeline=reference 2>&1 | FileCheck %s --check-prefix=CUDA-PIPE
// CUDA-PIPE: gmm-runner: error: --pipeline=cuda and --target=cuda go together (got --pipeline=reference --target=cuda)
// RUN: not gmm-runner %s -e ragged --target=cuda --guard-pages 2>&1 | FileCheck %s --check-prefix=CUDA-GUARD
// CUDA-GUARD: gmm-runner: error: --guard-pages guards host memory; it does not apply to --target=cuda
// RUN: not gmm-runner %s -e ragged --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: gmm-runner: error: unknown --target=tpu (expected cpu or cuda)
// RUN: not gmm-runner %s -e ragged --pipeline=fast 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: gmm-runner: error: unknown --pipeline=fast (available: cpu, reference, cuda)

// Bad .npy files.
// RUN: echo "not numpy" > %t.bad.npy
// RUN: not gmm-runner %s -e ragged --input=0:%t.bad.npy 2>&1 | FileCheck %s --check-prefix=NPY-MAGIC
// NPY-MAGIC: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}.bad.npy: not a .npy file (bad magic string; expected "\x93NUMPY")
// RUN: not gmm-runner %s -e ragged --input=0:%t.missing.npy 2>&1 | FileCheck %s --check-prefix=NPY-MISSING
// NPY-MISSING: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}.missing.npy: cannot read: No such file or directory
// RUN: gmm-runner %s -e copy --values=0:1,2,3 --output=0:%t.f64.npy
// RUN: not gmm-runner %s -e ragged --input=0:%t.f64.npy 2>&1 | FileCheck %s --check-prefix=NPY-DTYPE
// NPY-DTYPE: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}.f64.npy: has element type f64, expected f32
// RUN: not gmm-runner %s -e index --input=0:%t.f64.npy 2>&1 | FileCheck %s --check-prefix=ARG-TYPE
// ARG-TYPE: gmm-runner: error: argument 0 of @index has type 'index': gmm-runner passes only ranked tensors and memrefs
// RUN: gmm-runner %s -e ragged --seed=1 --output=0:%t.f32.npy
// RUN: not gmm-runner %s -e ragged --input=1:%t.f32.npy 2>&1 | FileCheck %s --check-prefix=NPY-SHAPE
// NPY-SHAPE: gmm-runner: error: {{.*}}.f32.npy has shape [4, 3], but argument 1 (tensor<2x2x3xf32>) needs shape [2, 2, 3]
// RUN: head -c 164 %t.f32.npy > %t.short.npy
// RUN: not gmm-runner %s -e ragged --input=0:%t.short.npy 2>&1 | FileCheck %s --check-prefix=NPY-SHORT
// NPY-SHORT: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}.short.npy: truncated data (shape [4, 3] of f32 needs 48 bytes, found 36)

// Bad option values.
// RUN: not gmm-runner %s -e ragged --seed=abc 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: gmm-runner: error: --seed=abc: expected a non-negative integer
// RUN: not gmm-runner %s -e ragged --repeat=-2 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: gmm-runner: error: --repeat=-2: expected a non-negative integer
// RUN: not gmm-runner %s -e ragged --bogus 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: gmm-runner: error: Unknown command line argument '--bogus'.
// RUN: not gmm-runner %s -e ragged --bogus 2>&1 | count 1
// RUN: not gmm-runner %s -e ragged --output=1:%t.out.npy 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: gmm-runner: error: --output=1:{{.*}}: output index 1 is out of range (there are 1)
// RUN: not gmm-runner %s -e ragged --seed=1 --output=0:%t.nodir/out.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OUTPUT-DIR
// OUTPUT-DIR: gmm-runner: error: {{.*}}nodir/out.npy: cannot write: No such file or directory

// --check needs a single gmm.ragged_dot whose operands are arguments.
// RUN: not gmm-runner %s -e copy --check 2>&1 | FileCheck %s --check-prefix=CHECK-NONE
// CHECK-NONE: gmm-runner: error: --check needs a gmm.ragged_dot: @copy contains no gmm.ragged_dot

// Parse and verify errors are MLIR's diagnostics.
// RUN: echo "func.func @f(" | not gmm-runner - 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: <stdin>:1:14: error: expected non-function type

func.func @ragged(%lhs: tensor<4x2xf32>, %rhs: tensor<2x2x3xf32>,
                  %group_sizes: tensor<2xi32>) -> tensor<4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<4x2xf32>, tensor<2x2x3xf32>, tensor<2xi32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

func.func @dynamic(%lhs: tensor<?x2xf32>, %rhs: tensor<2x2x3xf32>,
                   %group_sizes: tensor<2xi32>) -> tensor<?x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x2xf32>, tensor<2x2x3xf32>, tensor<2xi32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

func.func @copy(%x: tensor<3xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}

func.func @index(%i: index) -> index {
  return %i : index
}
