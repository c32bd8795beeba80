// gmm-runner --guard-pages: every argument buffer (and every buffer that the
// compiled code allocates) gets an inaccessible page right after its end
// (end, the default) or right before its start (start), so an out-of-bounds
// access by the compiled code faults and is reported as one line naming the
// argument and the byte; the process then dies by SIGSEGV. These functions
// read and write wherever an index argument says, without bounds checks.

// REQUIRES: gmm-runner

// In bounds, the functions run and print as usual, in every mode and
// pipeline.
// RUN: gmm-runner %s -e read --values=0:1,2,3,4 --values=1:3 --print \
// RUN:   --guard-pages | FileCheck %s --check-prefix=IN
// RUN: gmm-runner %s -e read --values=0:1,2,3,4 --values=1:0 --print \
// RUN:   --guard-pages=start --pipeline=reference \
// RUN:   | FileCheck %s --check-prefix=IN0
// RUN: gmm-runner %s -e write --values=0:2 --values=1:1,2,3 --print \
// RUN:   --guard-pages=end | FileCheck %s --check-prefix=IN-WRITE
// IN:       result 0: tensor<1xf32>
// IN-NEXT:  [4]
// IN0:      result 0: tensor<1xf32>
// IN0-NEXT: [1]
// IN-WRITE:      result 0 (memref argument 1): memref<3xi32>
// IN-WRITE-NEXT: [1, 2, 7]

// One element past the end: the first byte after the buffer faults.
// RUN: not --crash gmm-runner %s -e read --values=0:1,2,3,4 --values=1:4 \
// RUN:   --guard-pages 2>&1 | FileCheck %s --check-prefix=PAST-END
// RUN: not --crash gmm-runner %s -e read --values=0:1,2,3,4 --values=1:4 \
// RUN:   --guard-pages --pipeline=reference 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PAST-END
// PAST-END: gmm-runner: error: compiled code read out of bounds: byte 16 of argument 0 (tensor<4xf32>), which has 16 bytes (guard page at 0x{{[0-9a-f]+}})

// One element before the start needs the start against the guard page.
// RUN: not --crash gmm-runner %s -e read --values=0:1,2,3,4 --values=1:-1 \
// RUN:   --guard-pages=start 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE: gmm-runner: error: compiled code read out of bounds: byte -4 of argument 0 (tensor<4xf32>), which has 16 bytes

// Writes into a memref argument.
// RUN: not --crash gmm-runner %s -e write --values=0:3 --values=1:1,2,3 \
// RUN:   --guard-pages 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: gmm-runner: error: compiled code wrote out of bounds: byte 12 of argument 1 (memref<3xi32>), which has 12 bytes
// RUN: not --crash gmm-runner %s -e write --values=0:-2 --values=1:1,2,3 \
// RUN:   --guard-pages=start 2>&1 | FileCheck %s --check-prefix=WRITE-BEFORE
// WRITE-BEFORE: gmm-runner: error: compiled code wrote out of bounds: byte -8 of argument 1 (memref<3xi32>), which has 12 bytes

// An index argument far out of range.
// RUN: not --crash gmm-runner %s -e read --values=0:1,2,3,4 \
// RUN:   --values=1:1000 --guard-pages 2>&1 | FileCheck %s --check-prefix=FAR
// FAR: gmm-runner: error: compiled code read out of bounds: byte 4000 of argument 0 (tensor<4xf32>)

// A buffer that the compiled code allocates itself (the memref.alloc of
// @alloc_read) is guarded too: its malloc is the runner's.
// RUN: gmm-runner %s -e alloc_read --values=0:1,2,3,4 --values=1:15 \
// RUN:   --guard-pages --print | FileCheck %s --check-prefix=ALLOC-IN
// ALLOC-IN: [1]
// RUN: not --crash gmm-runner %s -e alloc_read --values=0:1,2,3,4 \
// RUN:   --values=1:16 --guard-pages 2>&1 | FileCheck %s --check-prefix=ALLOC
// ALLOC: gmm-runner: error: compiled code read out of bounds: byte 64 of a buffer allocated by the compiled code, which has 64 bytes

// A bad mode is an option error.
// RUN: not gmm-runner %s -e read --guard-pages=middle 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MODE
// MODE: gmm-runner: error: --guard-pages=middle: expected end, start or none

func.func @read(%x: tensor<4xf32>, %i: tensor<1xi64>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %iv = tensor.extract %i[%c0] : tensor<1xi64>
  %idx = arith.index_cast %iv : i64 to index
  %v = tensor.extract %x[%idx] : tensor<4xf32>
  %r = tensor.from_elements %v : tensor<1xf32>
  return %r : tensor<1xf32>
}

func.func @write(%i: tensor<1xi64>, %x: memref<3xi32>) {
  %c0 = arith.constant 0 : index
  %iv = tensor.extract %i[%c0] : tensor<1xi64>
  %idx = arith.index_cast %iv : i64 to index
  %c7 = arith.constant 7 : i32
  memref.store %c7, %x[%idx] : memref<3xi32>
  return
}

func.func @alloc_read(%x: tensor<4xf32>, %i: tensor<1xi64>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %buffer = memref.alloc() : memref<16xf32>
  scf.for %k = %c0 to %c16 step %c1 {
    %j = arith.remui %k, %c1 : index
    %v = tensor.extract %x[%j] : tensor<4xf32>
    memref.store %v, %buffer[%k] : memref<16xf32>
  }
  %iv = tensor.extract %i[%c0] : tensor<1xi64>
  %idx = arith.index_cast %iv : i64 to index
  %v = memref.load %buffer[%idx] : memref<16xf32>
  %r = tensor.from_elements %v : tensor<1xf32>
  return %r : tensor<1xf32>
}
