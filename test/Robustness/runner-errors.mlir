// gmm-runner: every user error is exactly one line "gmm-runner: error: ..."
// (or "FILE:LINE:COL: error: ..." for parse and verify errors) and exit code
// 1, never a crash. test/Integration/CPU/errors.mlir has the option and
// .npy basics; these are the rest. Each check is followed by a -NOT: {{.}}
// that rejects any second line.

// REQUIRES: gmm-runner

// Output that cannot be written (#38, class 7: "LLVM ERROR: IO failure on
// output stream" and an abort).
// RUN: not gmm-runner %s -e ragged --print 2>&1 >/dev/full | FileCheck %s --check-prefix=FULL
// RUN: not gmm-runner --help 2>&1 >/dev/full | FileCheck %s --check-prefix=FULL
// FULL: gmm-runner: error: cannot write standard output: No space left on device{{$}}
// FULL-NOT: {{.}}

// The device options choose the CUDA device of a GPU run (#38, class 6: a
// --device=sim run without --target=cuda ran on the CPU and passed).
// RUN: not gmm-runner %s -e ragged --device=sim --check 2>&1 | FileCheck %s --check-prefix=DEVICE-CPU
// DEVICE-CPU: gmm-runner: error: --device=sim chooses the CUDA device of --target=cuda, but the target is cpu (add --target=cuda){{$}}
// DEVICE-CPU-NOT: {{.}}
// RUN: not gmm-runner %s -e ragged --device=gpu 2>&1 | FileCheck %s --check-prefix=DEVICE-GPU-CPU
// DEVICE-GPU-CPU: gmm-runner: error: --device=gpu chooses the CUDA device of --target=cuda, but the target is cpu (add --target=cuda){{$}}

// Input files that are not modules.
// RUN: not gmm-runner %S 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: gmm-runner: error: cannot open input file '{{.*}}': Is a directory{{$}}
// DIR-NOT: {{.}}
// RUN: printf '' > %t.empty.mlir
// RUN: not gmm-runner %t.empty.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: gmm-runner: error: the module defines no func.func to run{{$}}
// EMPTY-NOT: {{.}}
// RUN: printf '\000\377garbage' > %t.binary.mlir
// RUN: not gmm-runner %t.binary.mlir 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: binary.mlir:1:{{[0-9]+}}: error: unexpected character{{$}}
// BINARY-NOT: {{.}}
// A verifier error with a note is still one line.
// RUN: printf 'func.func @f(%%%%a: tensor<4xf32>) -> tensor<4xi32> {\n  return %%%%a : tensor<4xf32>\n}\n' \
// RUN:   | not gmm-runner - 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: <stdin>:2:3: error: type of return operand 0 ('tensor<4xf32>') doesn't match function result type ('tensor<4xi32>') in function @f{{$}}
// VERIFY-NOT: {{.}}
// An op of an unregistered dialect.
// RUN: printf 'func.func @f() {\n  "foo.bar"() : () -> ()\n  return\n}\n' \
// RUN:   | not gmm-runner - 2>&1 | FileCheck %s --check-prefix=UNREGISTERED
// UNREGISTERED: <stdin>:2:12: error: operation being parsed with an unregistered dialect.{{.*}}{{$}}
// UNREGISTERED-NOT: {{.}}

// An op that the pipeline cannot lower: one line naming the op, with either
// pipeline; a function that does not use it still runs.
// RUN: not gmm-runner %s -e erf 2>&1 | FileCheck %s --check-prefix=NO-LOWER
// RUN: not gmm-runner %s -e erf --pipeline=reference 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-LOWER
// NO-LOWER: gmm-runner: error: cannot lower @erf to the LLVM dialect: {{.*}}runner-errors.mlir:{{[0-9]+}}:8: 'math.erf' op was not bufferized{{$}}
// NO-LOWER-NOT: {{.}}
// RUN: gmm-runner %s -e ragged --seed=1 --check | FileCheck %s --check-prefix=OTHER
// RUN: gmm-runner %s -e ragged --seed=1 --check --pipeline=reference \
// RUN:   | FileCheck %s --check-prefix=OTHER
// OTHER: check: PASS

// Functions whose signature gmm-runner cannot pass.
// RUN: not gmm-runner %s -e i8 2>&1 | FileCheck %s --check-prefix=I8
// I8: gmm-runner: error: result 0 of @i8 has type 'tensor<4xi8>': supported element types are f16, bf16, f32, f64, i32 and i64{{$}}
// I8-NOT: {{.}}
// RUN: not gmm-runner %s -e unranked 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: gmm-runner: error: argument 0 of @unranked has type 'tensor<*xf32>': gmm-runner passes only ranked tensors and memrefs{{$}}
// UNRANKED-NOT: {{.}}
// RUN: not gmm-runner %s -e strided 2>&1 | FileCheck %s --check-prefix=STRIDED
// STRIDED: gmm-runner: error: argument 0 of @strided has type 'memref<4xf32, strided<[2]>>': only memrefs with the identity layout are supported{{$}}
// STRIDED-NOT: {{.}}
// RUN: not gmm-runner %s -e vector 2>&1 | FileCheck %s --check-prefix=VECTOR
// VECTOR: gmm-runner: error: argument 0 of @vector has type 'vector<4xf32>': gmm-runner passes only ranked tensors and memrefs{{$}}
// VECTOR-NOT: {{.}}
// RUN: not gmm-runner %s -e decl 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: gmm-runner: error: @decl is a declaration without a body{{$}}
// DECL-NOT: {{.}}

// Shapes that cannot be allocated, including products that overflow int64.
// RUN: not gmm-runner %s -e dynamic --arg-shape=0:100000000x100000000 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HUGE
// RUN: not gmm-runner %s -e dynamic --arg-shape=0:4294967296x4294967296 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HUGE
// HUGE: gmm-runner: error: the arguments do not fit in memory: argument 0 (tensor<?x?xf32>) with shape [{{[0-9]+}}, {{[0-9]+}}] and the others take {{[0-9.]+}} GiB, and a run holds about 4 times that ({{[0-9.]+}} GiB), more than the machine's {{[0-9.]+}} GiB{{$}}
// HUGE-NOT: {{.}}
// RUN: not gmm-runner %s -e dynamic --arg-shape=0:99999999999999999999x1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIZE
// SIZE: gmm-runner: error: --arg-shape=0:99999999999999999999x1: '99999999999999999999' is not a size (expected AxBxC with non-negative integers){{$}}
// SIZE-NOT: {{.}}

// Bad option values.
// RUN: not gmm-runner %s -e ragged --print-precision=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRECISION
// PRECISION: gmm-runner: error: --print-precision=0: expected an integer from 1 to 17{{$}}
// PRECISION-NOT: {{.}}
// RUN: not gmm-runner %s -e ragged --group-offset=abc 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OFFSET
// OFFSET: gmm-runner: error: --group-offset=abc: expected an integer{{$}}
// OFFSET-NOT: {{.}}
// RUN: not gmm-runner %s -e sharded --group-offset=2147483648 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OFFSET-I32
// OFFSET-I32: gmm-runner: error: --group-offset=2147483648 does not fit in i32{{$}}
// OFFSET-I32-NOT: {{.}}
// RUN: not gmm-runner %s -e ragged --guard-pages=sideways 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GUARD
// GUARD: gmm-runner: error: --guard-pages=sideways: expected end, start or none{{$}}
// GUARD-NOT: {{.}}
// RUN: not gmm-runner %s -e ragged --input=0: 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-FILE
// NO-FILE: gmm-runner: error: --input=0:: no file name after ':'{{$}}
// NO-FILE-NOT: {{.}}
// RUN: not gmm-runner %s -e ragged --input=0:%S 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-DIR
// NPY-DIR: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}: cannot read: Is a directory{{$}}
// NPY-DIR-NOT: {{.}}

// .npy files with the wrong dtype or shape, or a header gmm-runner does not
// read. Written by hand: magic, version 1.0, header length, header, data.
// DEFINE: %{npy} = %python -c "import struct, sys; h = sys.argv[1].encode(); open(sys.argv[3], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h + bytes.fromhex(sys.argv[2]))"
// RUN: %{npy} "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }" 0100000000000000ffffffff00000000 %t.i64.npy
// RUN: not gmm-runner %s -e ragged --input=2:%t.i64.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-RANGE
// NPY-RANGE: gmm-runner: error: argument 2 (tensor<2xi32>): {{.*}}i64.npy: has element type i64, expected i32 (element 1 = 4294967295 does not fit in i32){{$}}
// NPY-RANGE-NOT: {{.}}
// RUN: not gmm-runner %s -e ragged --input=0:%t.i64.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-INT-FLOAT
// NPY-INT-FLOAT: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}i64.npy: has element type i64, expected f32{{$}}
// NPY-INT-FLOAT-NOT: {{.}}
// RUN: %{npy} "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2, 1), }" 0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f %t.rank.npy
// RUN: not gmm-runner %s -e ragged --input=0:%t.rank.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-RANK
// NPY-RANK: gmm-runner: error: {{.*}}rank.npy has shape [4, 2, 1], but argument 0 (tensor<4x2xf32>) needs shape [4, 2]{{$}}
// NPY-RANK-NOT: {{.}}
// RUN: %{npy} "{'descr': '>f4', 'fortran_order': False, 'shape': (4, 2), }" 00 %t.big-endian.npy
// RUN: not gmm-runner %s -e ragged --input=0:%t.big-endian.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-BE
// NPY-BE: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}big-endian.npy: unsupported dtype '>f4': big-endian data is not supported{{$}}
// NPY-BE-NOT: {{.}}
// RUN: %{npy} "{'descr': '<f4', 'fortran_order': True, 'shape': (4, 2), }" 00 %t.fortran.npy
// RUN: not gmm-runner %s -e ragged --input=0:%t.fortran.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-FORTRAN
// NPY-FORTRAN: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}fortran.npy: Fortran-order data is not supported {{.*}}{{$}}
// NPY-FORTRAN-NOT: {{.}}
// RUN: %{npy} "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }" 00 %t.huge.npy
// RUN: not gmm-runner %s -e dynamic --input=0:%t.huge.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-HUGE
// NPY-HUGE: gmm-runner: error: argument 0 (tensor<?x?xf32>): {{.*}}huge.npy: shape [4611686018427387904, 4] has too many elements{{$}}
// NPY-HUGE-NOT: {{.}}
// RUN: %{npy} "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2), 'extra': 1}" 00 %t.key.npy
// RUN: not gmm-runner %s -e ragged --input=0:%t.key.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-KEY
// NPY-KEY: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}key.npy: malformed header: unknown key 'extra' in {{.*}}{{$}}
// NPY-KEY-NOT: {{.}}
// RUN: %{npy} "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2), }" 0000 %t.short.npy
// RUN: not gmm-runner %s -e ragged --input=0:%t.short.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-SHORT
// NPY-SHORT: gmm-runner: error: argument 0 (tensor<4x2xf32>): {{.*}}short.npy: truncated data (shape [4, 2] of f32 needs 32 bytes, found 2){{$}}
// NPY-SHORT-NOT: {{.}}

// Inputs that never end, or nest deeper than the parser's stack: refused
// before they are read or parsed.
// RUN: not gmm-runner /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: gmm-runner: error: cannot read input file '/dev/zero': not a regular file (a character device){{$}}
// DEVICE-NOT: {{.}}
// RUN: not gmm-runner %s -e ragged --input=0:/dev/urandom 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NPY-DEVICE
// NPY-DEVICE: gmm-runner: error: argument 0 (tensor<4x2xf32>): /dev/urandom: cannot read: not a regular file (a character device){{$}}
// NPY-DEVICE-NOT: {{.}}
// RUN: %python -c "print('func.func private @f() -> ' + 'tuple<' * 20000 + 'i32' + '>' * 20000)" > %t.deep.mlir
// RUN: not gmm-runner %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:1:60032: error: brackets nest more than 10000 deep; gmm-runner does not read deeper nesting{{$}}
// DEEP-NOT: {{.}}

// Bad values of boolean options: one line (cl writes these to stderr
// itself).
// RUN: not gmm-runner %s --check=maybe 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: gmm-runner: error: for the --check option: 'maybe' is invalid value for boolean argument! Try 0 or 1{{$}}
// BOOL-NOT: {{.}}

// A call of a function that nothing defines: one line, before the JIT.
// RUN: not gmm-runner %s -e undefined_call 2>&1 | FileCheck %s --check-prefix=UNDEFINED
// UNDEFINED: gmm-runner: error: @undefined_call calls 'gmm_nowhere', which neither the module nor gmm-runner's process defines{{$}}
// UNDEFINED-NOT: {{.}}

// Memory that the compiled code cannot allocate (here 4 TB for the result
// of KB-sized inputs) ends the call with one line, with every CPU pipeline
// and with guard pages; nothing is written through a null pointer.
// RUN: not gmm-runner %s -e dynamic_ragged --arg-shape=0:1000000x0 --arg-shape=1:4x0x1000000 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALLOC
// RUN: not gmm-runner %s -e dynamic_ragged --arg-shape=0:1000000x0 --arg-shape=1:4x0x1000000 --pipeline=reference 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALLOC
// RUN: not gmm-runner %s -e dynamic_ragged --arg-shape=0:1000000x0 --arg-shape=1:4x0x1000000 --guard-pages 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALLOC
// ALLOC: gmm-runner: error: @dynamic_ragged could not allocate {{[0-9]+}} bytes (3725.3 GiB; the machine has {{[0-9.]+}} GiB of memory){{$}}
// ALLOC-NOT: {{.}}
// The same sizes with a result that fits run.
// RUN: gmm-runner %s -e dynamic_ragged --arg-shape=0:1000000x0 --arg-shape=1:4x0x1 --check \
// RUN:   | FileCheck %s --check-prefix=ALLOC-FITS
// ALLOC-FITS: check: PASS (1000000 elements, max abs error 0,

// Dynamic sizes that contradict each other where gmm-runner cannot see them
// before the call (two ragged dots; an operand that another op produced):
// the compiled code checks them (gmm-check-sizes) and the call ends with
// one line naming the op and the sizes, with every CPU pipeline.
// RUN: not gmm-runner %s -e two_dots --arg-shape=0:8x4 --arg-shape=1:2x4x3 --arg-shape=2:2x5x3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIZES-TWO
// RUN: not gmm-runner %s -e two_dots --arg-shape=0:8x4 --arg-shape=1:2x4x3 --arg-shape=2:2x5x3 --pipeline=reference 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIZES-TWO
// SIZES-TWO: gmm-runner: error: @two_dots aborted: gmm.ragged_dot at {{.*}}runner-errors.mlir:[[@LINE+105]]:8: lhs contracting dimension 1 and rhs contracting dimension 1 differ{{$}}
// SIZES-TWO-NOT: {{.}}
// RUN: not gmm-runner %s -e through_op --arg-shape=0:4x8 --arg-shape=1:2x5x3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIZES-THROUGH
// SIZES-THROUGH: gmm-runner: error: @through_op aborted: gmm.ragged_dot at {{.*}}: lhs contracting dimension 1 and rhs contracting dimension 1 differ{{$}}
// SIZES-THROUGH-NOT: {{.}}
// Sizes that agree run.
// RUN: gmm-runner %s -e two_dots --arg-shape=0:8x4 --arg-shape=1:2x4x3 --arg-shape=2:2x4x5 --print \
// RUN:   | FileCheck %s --check-prefix=SIZES-OK
// SIZES-OK: result 0: tensor<8x3xf32>
// SIZES-OK: result 1: tensor<8x5xf32>

// Zero-element tensors whose other dimensions are huge: no stride
// arithmetic overflows, and they print as numpy prints them.
// RUN: gmm-runner %s -e dynamic3 --arg-shape=0:1099511627776x1099511627776x0 --print \
// RUN:   | FileCheck %s --check-prefix=EMPTY-HUGE
// RUN: gmm-runner %s -e dynamic3 --arg-shape=0:0x1099511627776x1099511627776 --print \
// RUN:   | FileCheck %s --check-prefix=EMPTY-HUGE
// EMPTY-HUGE: result 0: tensor<{{.*}}xf32>
// EMPTY-HUGE-NEXT: []{{$}}
// EMPTY-HUGE-NOT: {{.}}

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

func.func @sharded(%lhs: tensor<4x2xf32>, %rhs: tensor<1x2x3xf32>,
                   %group_sizes: tensor<2xi32>, %offset: tensor<i32>)
    -> tensor<4x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      group_offset(%offset : tensor<i32>)
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<4x2xf32>, tensor<1x2x3xf32>, tensor<2xi32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

func.func @erf(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.erf %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @i8(%a: tensor<4xf32>) -> tensor<4xi8> {
  %0 = arith.fptosi %a : tensor<4xf32> to tensor<4xi8>
  return %0 : tensor<4xi8>
}

func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  return %a : tensor<*xf32>
}

func.func @strided(%a: memref<4xf32, strided<[2]>>) {
  return
}

func.func @vector(%a: vector<4xf32>) -> vector<4xf32> {
  return %a : vector<4xf32>
}

func.func @dynamic(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  return %a : tensor<?x?xf32>
}

func.func private @decl(%a: tensor<4xf32>) -> tensor<4xf32>

func.func private @gmm_nowhere(f32) -> f32

func.func @undefined_call(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %a[%c0] : tensor<4xf32>
  %y = func.call @gmm_nowhere(%x) : (f32) -> f32
  %r = tensor.insert %y into %a[%c0] : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @dynamic_ragged(%lhs: tensor<?x?xf32>, %rhs: tensor<4x?x?xf32>,
                          %group_sizes: tensor<4xi32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<4x?x?xf32>, tensor<4xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @two_dots(%lhs: tensor<?x?xf32>, %rhs1: tensor<2x?x?xf32>,
                    %rhs2: tensor<2x?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %gs = arith.constant dense<[3, 5]> : tensor<2xi32>
  %0 = gmm.ragged_dot %lhs, %rhs1, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<2x?x?xf32>, tensor<2xi32> -> tensor<?x?xf32>
  %1 = gmm.ragged_dot %lhs, %rhs2, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<2x?x?xf32>, tensor<2xi32> -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}

func.func @through_op(%lhs_t: tensor<?x?xf32>, %rhs: tensor<2x?x?xf32>)
    -> tensor<?x?xf32> {
  %gs = arith.constant dense<[3, 5]> : tensor<2xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tensor.dim %lhs_t, %c0 : tensor<?x?xf32>
  %m = tensor.dim %lhs_t, %c1 : tensor<?x?xf32>
  %empty = tensor.empty(%m, %k) : tensor<?x?xf32>
  %lhs = linalg.transpose ins(%lhs_t : tensor<?x?xf32>)
      outs(%empty : tensor<?x?xf32>) permutation = [1, 0]
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<2x?x?xf32>, tensor<2xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @dynamic3(%a: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  return %a : tensor<?x?x?xf32>
}
