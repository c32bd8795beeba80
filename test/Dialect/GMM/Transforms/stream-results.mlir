// RUN: gmm-opt %s -split-input-file -gmm-stream-results="min-bytes=1024" | FileCheck %s
// RUN: gmm-opt %s -split-input-file -gmm-stream-results="min-bytes=0" | FileCheck %s --check-prefix=NONE
// RUN: gmm-opt %s -split-input-file -gmm-stream-results | FileCheck %s --check-prefix=DEFAULT
// RUN: not gmm-opt %s -gmm-stream-results="min-bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NONE-NOT: nontemporal
// NONE-NOT: llvm.fence
// DEFAULT-NOT: nontemporal
// DEFAULT-NOT: llvm.fence
// NEGATIVE: gmm-opt: error: pass pipeline: for the --min-bytes option: '-1' value invalid for ulong argument!

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
// CHECK-NEXT:      %[[ROW:.+]] = arith.muli %[[C0:.+]], %[[STRIDES]]#0 : index
// CHECK-NEXT:      %[[AT0:.+]] = arith.addi %[[OFFSET]], %[[ROW]] : index
// CHECK-NEXT:      %[[COL:.+]] = arith.muli %[[J:.+]], %[[STRIDES]]#1 : index
// CHECK-NEXT:      %[[AT:.+]] = arith.addi %[[AT0]], %[[COL]] : index
// CHECK-NEXT:      %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BYTES:.+]] = arith.muli %[[AT]], %[[C4]] : index
// CHECK-NEXT:      %[[ADDR:.+]] = arith.addi %[[PTR]], %[[BYTES]] : index
// CHECK-NEXT:      %[[C63:.+]] = arith.constant 63 : index
// CHECK-NEXT:      %[[LOW:.+]] = arith.andi %[[ADDR]], %[[C63]] : index
// CHECK-NEXT:      %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[ALIGNED:.+]] = arith.cmpi eq, %[[LOW]], %[[ZERO]] : index
// CHECK-NEXT:      scf.if %[[ALIGNED]] {
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
