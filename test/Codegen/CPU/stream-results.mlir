// RUN: gmm-opt %s -split-input-file -gmm-cpu-stream-results="min-bytes=1024" | FileCheck %s
// RUN: gmm-opt %s -split-input-file -gmm-cpu-stream-results="min-bytes=0" | FileCheck %s --check-prefix=NONE
// RUN: gmm-opt %s -split-input-file -gmm-cpu-stream-results | FileCheck %s --check-prefix=DEFAULT
// RUN: not gmm-opt %s -gmm-cpu-stream-results="min-bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: gmm-opt %s -split-input-file -gmm-cpu-stream-results="min-bytes=1024 x86-register-bits=512" | FileCheck %s --check-prefix=X512
// RUN: gmm-opt %s -split-input-file -gmm-cpu-stream-results="min-bytes=1024 x86-register-bits=256" | FileCheck %s --check-prefix=X256
// RUN: not gmm-opt %s -gmm-cpu-stream-results="x86-register-bits=384" 2>&1 | FileCheck %s --check-prefix=WIDTH

// NONE-NOT: nontemporal
// NONE-NOT: llvm.fence
// DEFAULT-NOT: nontemporal
// DEFAULT-NOT: llvm.fence
// NEGATIVE: gmm-opt: error: pass pipeline: for the --min-bytes option: '-1' value invalid for ulong argument!
// WIDTH: error: gmm-cpu-stream-results: x86-register-bits must be 128, 256 or 512, or 0 for none, got 384{{$}}

// A visit loop's whole-vector store into the result (a view of a function
// argument of 64 KiB) streams when its address is aligned to the vector's
// 64 bytes, and the loop body ends with a fence. The store into the visit's
// own buffer does not stream.

// CHECK-LABEL: func.func @visit_stores
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<128x128xf32>
// CHECK:         omp.loop_nest (%[[I:.+]]) :
// CHECK:           %[[VIEW:.+]] = memref.subview %[[OUT]][%[[I]], 0] [1, 128] [1, 1]
// CHECK-NEXT:      %{{.+}}, %[[OFFSET:.+]], %{{.+}}:2, %[[STRIDES:.+]]:2 = memref.extract_strided_metadata %[[VIEW]]
// CHECK-NEXT:      %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %[[VIEW]]
// CHECK:           %[[SCRATCH:.+]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:      vector.transfer_write %{{.+}}, %[[SCRATCH]][%{{.+}}] {in_bounds = [true]}
// CHECK-DAG:       %[[ROW:.+]] = arith.muli %[[C0:.+]], %[[STRIDES]]#0 : index
// CHECK-DAG:       %[[AT0:.+]] = arith.addi %[[OFFSET]], %[[ROW]] : index
// CHECK-DAG:       %[[COL:.+]] = arith.muli %[[J:.+]], %[[STRIDES]]#1 : index
// CHECK-DAG:       %[[AT:.+]] = arith.addi %[[AT0]], %[[COL]] : index
// CHECK:           %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:       %[[BYTES:.+]] = arith.muli %[[AT]], %[[C4]] : index
// CHECK-DAG:       %[[ADDR:.+]] = arith.addi %[[PTR]], %[[BYTES]] : index
// CHECK:           %[[C63:.+]] = arith.constant 63 : index
// CHECK-DAG:       %[[LOW:.+]] = arith.andi %[[ADDR]], %[[C63]] : index
// CHECK:           %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-DAG:       %[[ALIGNED:.+]] = arith.cmpi eq, %[[LOW]], %[[ZERO]] : index
// CHECK:           scf.if %[[ALIGNED]] {
// CHECK-NEXT:        vector.store %[[V:.+]], %[[VIEW]][%[[C0]], %[[J]]] {alignment = 64 : i64, nontemporal = true} : memref<1x128xf32, strided<[128, 1], offset: ?>>, vector<16xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        vector.store %[[V]], %[[VIEW]][%[[C0]], %[[J]]] : memref<1x128xf32, strided<[128, 1], offset: ?>>, vector<16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.dealloc %[[SCRATCH]]
// CHECK-NEXT:      llvm.fence seq_cst
// CHECK-NEXT:      omp.yield
func.func @visit_stores(%v: vector<16xf32>, %j: index, %out: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c128) step (%c1) {
        %view = memref.subview %out[%i, 0] [1, 128] [1, 1] : memref<128x128xf32> to memref<1x128xf32, strided<[128, 1], offset: ?>>
        %scratch = memref.alloc() : memref<16xf32>
        vector.transfer_write %v, %scratch[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
        vector.transfer_write %v, %view[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<1x128xf32, strided<[128, 1], offset: ?>>
        memref.dealloc %scratch : memref<16xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A vector wider than a 64-byte register needs each register's alignment,
// 64 bytes, not its own 128. Without OpenMP the visit loop is an
// scf.parallel, whose body ends with the fence; the result is allocated by
// the function (returned rather than written into an argument).

// CHECK-LABEL: func.func @wide_vector_scf_parallel
// CHECK:         %[[OUT:.+]] = memref.alloc() : memref<64x64xf32>
// CHECK:         scf.parallel
// CHECK:           %[[C63:.+]] = arith.constant 63 : index
// CHECK:           scf.if
// CHECK-NEXT:        vector.store %{{.+}}, %[[OUT]][%{{.+}}, %{{.+}}] {alignment = 64 : i64, nontemporal = true} : memref<64x64xf32>, vector<32xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        vector.store %{{.+}}, %[[OUT]][%{{.+}}, %{{.+}}] : memref<64x64xf32>, vector<32xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      llvm.fence seq_cst
// CHECK-NEXT:      scf.reduce
func.func @wide_vector_scf_parallel(%v: vector<32xf32>) -> memref<64x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %out = memref.alloc() : memref<64x64xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    vector.transfer_write %v, %out[%i, %c0] {in_bounds = [true]} : vector<32xf32>, memref<64x64xf32>
    scf.reduce
  }
  return %out : memref<64x64xf32>
}

// -----

// What does not stream: a masked store (a partial column panel), one that
// may cross the end of a row, one along a strided dimension, one of 8 bytes,
// a store outside any parallel loop, into a result below min-bytes, into a
// dynamically shaped or an unranked one, and into a buffer allocated inside
// the loop.

// CHECK-LABEL: func.func @no_stream
// CHECK-NOT:     nontemporal
// CHECK-NOT:     llvm.fence
// CHECK:         return
func.func @no_stream(%v: vector<16xf32>, %w: vector<2xf32>, %mask: vector<16xi1>,
                     %j: index, %out: memref<128x128xf32>,
                     %strided: memref<128x128xf32, strided<[1, 128]>>,
                     %small: memref<8x16xf32>, %dynamic: memref<?x128xf32>,
                     %unranked: memref<*xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %ranked = memref.cast %unranked : memref<*xf32> to memref<128x128xf32>
  vector.transfer_write %v, %out[%c0, %j] {in_bounds = [true]} : vector<16xf32>, memref<128x128xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    vector.transfer_write %v, %out[%i, %j], %mask {in_bounds = [true]} : vector<16xf32>, memref<128x128xf32>
    vector.transfer_write %v, %out[%i, %j] : vector<16xf32>, memref<128x128xf32>
    vector.transfer_write %v, %strided[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<128x128xf32, strided<[1, 128]>>
    vector.transfer_write %w, %out[%i, %j] {in_bounds = [true]} : vector<2xf32>, memref<128x128xf32>
    vector.transfer_write %v, %small[%i, %c0] {in_bounds = [true]} : vector<16xf32>, memref<8x16xf32>
    vector.transfer_write %v, %dynamic[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<?x128xf32>
    vector.transfer_write %v, %ranked[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<128x128xf32>
    %local = memref.alloc() : memref<128x128xf32>
    vector.transfer_write %v, %local[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<128x128xf32>
    memref.dealloc %local : memref<128x128xf32>
    scf.reduce
  }
  return
}

// -----

// A result of 16-bit floats: its streaming store is the same nontemporal
// vector.store as an f32 one, unless x86-register-bits is set. Then each
// register-wide piece is bitcast to integers, passed through an empty inline
// asm that LLVM cannot look through, bitcast back and stored (LLVM 22's X86
// backend selects a plain store for a nontemporal bf16 or f16 vector, and
// folds a bare bitcast back into it). 256-bit registers take a 64-byte
// vector in two pieces, each aligned to its 32 bytes; a vector narrower than
// the register is one piece. The misaligned branch and f32 results are
// unchanged.

// CHECK-LABEL: func.func @half_results
// CHECK-NOT:     llvm.inline_asm
// CHECK:         vector.store %{{.+}} {alignment = 64 : i64, nontemporal = true} : memref<64x64xbf16>, vector<32xbf16>
// CHECK:         vector.store %{{.+}} {alignment = 16 : i64, nontemporal = true} : memref<64x64xf16>, vector<8xf16>
// CHECK:         vector.store %{{.+}} {alignment = 64 : i64, nontemporal = true} : memref<64x64xf32>, vector<16xf32>

// X512-LABEL: func.func @half_results
// X512-SAME:     (%[[V:.+]]: vector<32xbf16>, %[[H:.+]]: vector<8xf16>, %[[F:.+]]: vector<16xf32>, %[[OUT:.+]]: memref<64x64xbf16>, %[[HALF:.+]]: memref<64x64xf16>, %[[FULL:.+]]: memref<64x64xf32>)
// X512:          scf.parallel (%[[I:.+]]) =
// X512:          scf.if
// X512-NEXT:       %[[BITS:.+]] = vector.bitcast %[[V]] : vector<32xbf16> to vector<32xi16>
// X512-NEXT:       %[[OPAQUE:.+]] = llvm.inline_asm asm_dialect = att "", "=v,0" %[[BITS]] : (vector<32xi16>) -> vector<32xi16>
// X512-NEXT:       %[[BACK:.+]] = vector.bitcast %[[OPAQUE]] : vector<32xi16> to vector<32xbf16>
// X512-NEXT:       vector.store %[[BACK]], %[[OUT]][%[[I]], %{{.+}}] {alignment = 64 : i64, nontemporal = true} : memref<64x64xbf16>, vector<32xbf16>
// X512-NEXT:     } else {
// X512-NEXT:       vector.store %[[V]], %[[OUT]][%[[I]], %{{.+}}] : memref<64x64xbf16>, vector<32xbf16>
// X512-NEXT:     }
// X512:          scf.if
// X512-NEXT:       %[[HBITS:.+]] = vector.bitcast %[[H]] : vector<8xf16> to vector<8xi16>
// X512-NEXT:       %[[HOPAQUE:.+]] = llvm.inline_asm asm_dialect = att "", "=v,0" %[[HBITS]] : (vector<8xi16>) -> vector<8xi16>
// X512-NEXT:       %[[HBACK:.+]] = vector.bitcast %[[HOPAQUE]] : vector<8xi16> to vector<8xf16>
// X512-NEXT:       vector.store %[[HBACK]], %[[HALF]][%[[I]], %{{.+}}] {alignment = 16 : i64, nontemporal = true} : memref<64x64xf16>, vector<8xf16>
// X512:          scf.if
// X512-NEXT:       vector.store %[[F]], %[[FULL]][%[[I]], %{{.+}}] {alignment = 64 : i64, nontemporal = true} : memref<64x64xf32>, vector<16xf32>
// X512-NEXT:     } else {

// X256-LABEL: func.func @half_results
// X256-SAME:     (%[[V:.+]]: vector<32xbf16>, %{{.+}}: vector<8xf16>, %{{.+}}: vector<16xf32>, %[[OUT:.+]]: memref<64x64xbf16>,
// X256:          scf.parallel (%[[I:.+]]) =
// X256:          scf.if
// X256-NEXT:       %[[LOW:.+]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [16], strides = [1]} : vector<32xbf16> to vector<16xbf16>
// X256-NEXT:       %[[LBITS:.+]] = vector.bitcast %[[LOW]] : vector<16xbf16> to vector<16xi16>
// X256-NEXT:       %[[LOPAQUE:.+]] = llvm.inline_asm asm_dialect = att "", "=v,0" %[[LBITS]] : (vector<16xi16>) -> vector<16xi16>
// X256-NEXT:       %[[LBACK:.+]] = vector.bitcast %[[LOPAQUE]] : vector<16xi16> to vector<16xbf16>
// X256-NEXT:       vector.store %[[LBACK]], %[[OUT]][%[[I]], %[[J:.+]]] {alignment = 32 : i64, nontemporal = true} : memref<64x64xbf16>, vector<16xbf16>
// X256-NEXT:       %[[HIGH:.+]] = vector.extract_strided_slice %[[V]] {offsets = [16], sizes = [16], strides = [1]} : vector<32xbf16> to vector<16xbf16>
// X256-NEXT:       %[[HBITS:.+]] = vector.bitcast %[[HIGH]] : vector<16xbf16> to vector<16xi16>
// X256-NEXT:       %[[HOPAQUE:.+]] = llvm.inline_asm asm_dialect = att "", "=v,0" %[[HBITS]] : (vector<16xi16>) -> vector<16xi16>
// X256-NEXT:       %[[HBACK:.+]] = vector.bitcast %[[HOPAQUE]] : vector<16xi16> to vector<16xbf16>
// X256-NEXT:       %[[C16:.+]] = arith.constant 16 : index
// X256-NEXT:       %[[J16:.+]] = arith.addi %[[J]], %[[C16]] : index
// X256-NEXT:       vector.store %[[HBACK]], %[[OUT]][%[[I]], %[[J16]]] {alignment = 32 : i64, nontemporal = true} : memref<64x64xbf16>, vector<16xbf16>
// X256-NEXT:     } else {
// X256-NEXT:       vector.store %[[V]], %[[OUT]][%[[I]], %[[J]]] : memref<64x64xbf16>, vector<32xbf16>
// X256-NEXT:     }
func.func @half_results(%v: vector<32xbf16>, %h: vector<8xf16>, %f: vector<16xf32>,
                        %out: memref<64x64xbf16>, %half: memref<64x64xf16>,
                        %full: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    vector.transfer_write %v, %out[%i, %c32] {in_bounds = [true]} : vector<32xbf16>, memref<64x64xbf16>
    vector.transfer_write %h, %half[%i, %c32] {in_bounds = [true]} : vector<8xf16>, memref<64x64xf16>
    vector.transfer_write %f, %full[%i, %c32] {in_bounds = [true]} : vector<16xf32>, memref<64x64xf32>
    scf.reduce
  }
  return
}
