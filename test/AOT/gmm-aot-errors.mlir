// gmm-aot's errors: one line each, naming what is wrong.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: not gmm-aot %s 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT
// NO-OUTPUT: gmm-aot: error: no output library: name it with -o libNAME.so
// RUN: not gmm-aot %s -o %t/lib.so --target=rocm 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: gmm-aot: error: unknown --target=rocm (expected cpu or cuda)
// RUN: not gmm-aot %s -o %t/lib.so --chip=sm_90 2>&1 | FileCheck %s --check-prefix=CHIP-CPU
// CHIP-CPU: gmm-aot: error: --chip is for --target=cuda
// RUN: not gmm-aot %s -o %t/lib.so --target=cuda --chip=sm_70 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: gmm-aot: error: gmm-to-ptx options: chip 'sm_70' is not supported: gmm's kernels use cp.async and bf16 mma.sync, which need sm_80 or newer
// RUN: not gmm-aot %s -o %t/lib.so --options="tile-m=-3" 2>&1 | FileCheck %s --check-prefix=OPTIONS
// OPTIONS: gmm-aot: error: gmm-to-cpu options
// RUN: not gmm-aot %s -o %t/lib.so --options="no-such-option=1" 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OPTION
// UNKNOWN-OPTION: gmm-aot: error: gmm-to-cpu options 'no-such-option=1':
// RUN: not gmm-aot %t/missing.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: gmm-aot: error: cannot open {{.*}}missing.mlir
// RUN: not gmm-aot %s -o %t/lib.so --cc=/no/such/cc 2>&1 | FileCheck %s --check-prefix=CC
// CC: gmm-aot: error: no C compiler '/no/such/cc'
// RUN: not gmm-aot %s -o %t/no/such/dir/lib.so 2>&1 | FileCheck %s --check-prefix=LINK
// LINK: gmm-aot: error: cannot write {{.*}}/no/such/dir/lib.h: No such file or directory
// An output that cannot be written (#38, class 7: LLVM's fatal "IO failure
// on output stream").
// RUN: not gmm-aot %s -o %t/lib.so --header=/dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: gmm-aot: error: cannot write /dev/full: No space left on device{{$}}
// FULL-NOT: {{.}}
// RUN: not gmm-aot --help 2>&1 >/dev/full | FileCheck %s --check-prefix=FULL-HELP
// FULL-HELP: gmm-aot: error: cannot write standard output: No space left on device{{$}}
// RUN: not gmm-aot %S/Inputs/not-a-c-name.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: gmm-aot: error: @my.kernel: 'my.kernel' is not a C identifier, which an entry point's name must be
// RUN: not gmm-aot %S/Inputs/not-a-c-name.mlir -o %t/lib.so --prefix=9 2>&1 | FileCheck %s --check-prefix=PREFIX
// PREFIX: gmm-aot: error: @my.kernel: '9my.kernel' is not a C identifier
// RUN: not gmm-aot %S/Inputs/unsupported-type.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: gmm-aot: error: @complex: arg0 is tensor<4xcomplex<f32>>; entry points pass f16, bf16, f32, f64 and signless i1, i8, i16, i32 and i64 elements
// RUN: not gmm-aot %S/Inputs/no-functions.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: gmm-aot: error: the module has no public function with a body to compile
// RUN: not gmm-aot %S/Inputs/collision.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=COLLISION
// COLLISION: gmm-aot: error: two entry points would export 'f_result_sizes'
// RUN: not gmm-aot %S/Inputs/shapes-collision.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=SHAPES-COLLISION
// SHAPES-COLLISION: gmm-aot: error: @f_shapes: the name 'f_shapes' is taken by another function's shape or workspace-size function; rename one of them
// RUN: not gmm-aot %S/Inputs/invalid-op.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: invalid-op.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'gmm.ragged_dot' op

func.func @f(%a: tensor<4x8xf32>, %b: tensor<2x8x3xf32>, %gs: tensor<2xi32>)
    -> tensor<4x3xf32> {
  %0 = gmm.ragged_dot %a, %b, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<4x8xf32>, tensor<2x8x3xf32>, tensor<2xi32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
