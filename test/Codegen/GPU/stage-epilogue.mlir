// gmm-gpu-stage-epilogue alone: the tile program's block write (through
// its elementwise epilogue) goes through shared memory one warp row at a
// time. Inputs: the form gmm-gpu-promote-operands leaves (a staged loop
// carrying the f32 block, the epilogue and the block write after it),
// written small by hand: the loop's body does not matter here.
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-stage-epilogue | FileCheck %s

// 32x32 tiles on 2x2 warps (128 threads), a bf16 result accumulated into
// its old values: two warp rows of 16. For each, after the copies are
// drained: the block's 16 rows into a 16 x (32 + 4) f32 view of the
// buffer, a barrier, each thread's 4-element chunk (128 chunks, one per
// thread: row tid / 8, column 4 (tid % 8)) replayed through the epilogue
// (read the result's chunk, extend, add, truncate) and written masked,
// where the row is one of the visit's, then a barrier.
// CHECK-LABEL: func.func @two_warp_rows(
// CHECK-SAME:      %{{.+}}: index, %[[ROWS:[a-z0-9]+]]: index,
// CHECK-DAG:     %[[PAD:[a-z0-9_]+]] = arith.constant 0.000000e+00 : bf16
// CHECK-DAG:     %[[C0:[a-z0-9_]+]] = arith.constant 0 : index
// CHECK:         gpu.launch {{.+}} threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in {{.+}} workgroup(%[[SMEM:[a-z0-9]+]] : memref<9728xi8, #gpu.address_space<workgroup>>) {
// CHECK-NEXT:      %[[BLOCK:[a-z0-9_]+]] = scf.for
// CHECK:           } {gmm.pipeline_stages = 2 : i64}
// CHECK-NEXT:      %[[VISIT:[a-z0-9_]+]] = memref.subview
// CHECK-NEXT:      nvvm.cp.async.wait.group 0
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = memref.view %[[SMEM]][%[[C0]]][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[TOP:[a-z0-9_]+]] = vector.extract_strided_slice %[[BLOCK]] {offsets = [0, 0], sizes = [16, 32], strides = [1, 1]} : vector<32x32xf32> to vector<16x32xf32>
// CHECK-NEXT:      vector.transfer_write %[[TOP]], %[[C]][%[[C0]], %[[C0]]] {in_bounds = [true, true]} : vector<16x32xf32>, memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      gpu.barrier
// CHECK-DAG:       %[[R:[a-z0-9_]+]] = arith.divui %[[TX]], %c8 : index
// CHECK-DAG:       %[[Q:[a-z0-9_]+]] = arith.remui %[[TX]], %c8 : index
// CHECK-DAG:       %[[COL:[a-z0-9_]+]] = arith.muli %[[Q]], %c4 : index
// CHECK-DAG:       %[[IN:[a-z0-9_]+]] = arith.cmpi slt, %[[R]], %[[ROWS]] : index
// CHECK:           scf.if %[[IN]] {
// CHECK-NEXT:        %[[X:[a-z0-9_]+]] = vector.transfer_read %[[C]][%[[R]], %[[COL]]], %{{.+}} {in_bounds = [true, true]} : memref<16x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
// CHECK-NEXT:        %[[OLD:[a-z0-9_]+]] = vector.transfer_read %[[VISIT]][%[[R]], %[[COL]]], %[[PAD]] : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<1x4xbf16>
// CHECK-NEXT:        %[[OLDF:[a-z0-9_]+]] = arith.extf %[[OLD]] : vector<1x4xbf16> to vector<1x4xf32>
// CHECK-NEXT:        %[[SUM:[a-z0-9_]+]] = arith.addf %[[X]], %[[OLDF]] : vector<1x4xf32>
// CHECK-NEXT:        %[[Y:[a-z0-9_]+]] = arith.truncf %[[SUM]] : vector<1x4xf32> to vector<1x4xbf16>
// CHECK-NEXT:        vector.transfer_write %[[Y]], %[[VISIT]][%[[R]], %[[COL]]] : vector<1x4xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// The second warp row: rows 16 to 31 of the block, 16 rows further down.
// CHECK-NEXT:      %[[BOTTOM:[a-z0-9_]+]] = vector.extract_strided_slice %[[BLOCK]] {offsets = [16, 0], sizes = [16, 32], strides = [1, 1]} : vector<32x32xf32> to vector<16x32xf32>
// CHECK-NEXT:      vector.transfer_write %[[BOTTOM]], %[[C]][%[[C0]], %[[C0]]] {in_bounds = [true, true]}
// CHECK-NEXT:      gpu.barrier
// CHECK-DAG:       %[[R2:[a-z0-9_]+]] = arith.divui %[[TX]], %c8 : index
// CHECK-DAG:       %[[Q2:[a-z0-9_]+]] = arith.remui %[[TX]], %c8 : index
// CHECK-DAG:       %[[COL2:[a-z0-9_]+]] = arith.muli %[[Q2]], %c4 : index
// CHECK-DAG:       %[[ROW2:[a-z0-9_]+]] = arith.addi %[[R2]], %c16 : index
// CHECK-DAG:       %[[IN2:[a-z0-9_]+]] = arith.cmpi slt, %[[ROW2]], %[[ROWS]] : index
// CHECK:           scf.if %[[IN2]] {
// CHECK-NEXT:        vector.transfer_read %[[C]][%[[R2]], %[[COL2]]]
// CHECK-NEXT:        vector.transfer_read %[[VISIT]][%[[ROW2]], %[[COL2]]]
// CHECK-NEXT:        arith.extf
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        arith.truncf
// CHECK-NEXT:        vector.transfer_write %{{.+}}, %[[VISIT]][%[[ROW2]], %[[COL2]]] : vector<1x4xbf16>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// The block write is gone; the configuration stays for
// gmm-gpu-distribute-warps.
// CHECK-NEXT:      gpu.terminator
// CHECK-NEXT:    } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
func.func @two_warp_rows(%steps: index, %rows: index, %out: memref<64x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %first = arith.muli %bx, %c1 : index
    %visit = memref.subview %out[%first, 0] [%rows, 32] [1, 1] : memref<64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %pad = arith.constant 0.0 : bf16
    %old = vector.transfer_read %visit[%c0, %c0], %pad {in_bounds = [false, true]} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<32x32xbf16>
    %oldf = arith.extf %old : vector<32x32xbf16> to vector<32x32xf32>
    %sum = arith.addf %block, %oldf : vector<32x32xf32>
    %res = arith.truncf %sum : vector<32x32xf32> to vector<32x32xbf16>
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
  return
}

// -----

// 4x1 warps (128 threads) of 8-row warp tiles: 64 chunks per warp row, so
// half the threads write one and the others none.
// CHECK-LABEL: func.func @fewer_chunks_than_threads(
// CHECK:         gpu.launch {{.+}} threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in
// CHECK:           memref.view %{{.+}} to memref<8x36xf32, #gpu.address_space<workgroup>>
// CHECK:           vector.extract_strided_slice %{{.+}} {offsets = [0, 0], sizes = [8, 32], strides = [1, 1]} : vector<32x32xf32> to vector<8x32xf32>
// CHECK:           %[[IN:[a-z0-9_]+]] = arith.cmpi slt, %{{.+}}, %{{.+}} : index
// CHECK-DAG:       %[[FEW:[a-z0-9_]+]] = arith.cmpi ult, %[[TX]], %c64 : index
// CHECK-DAG:       %[[BOTH:[a-z0-9_]+]] = arith.andi %[[IN]], %[[FEW]] : i1
// CHECK:           scf.if %[[BOTH]] {
// CHECK-NEXT:        %[[X:[a-z0-9_]+]] = vector.transfer_read %{{.+}} : memref<8x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
// CHECK-NEXT:        vector.transfer_write %[[X]], %{{.+}} : vector<1x4xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:      }
// CHECK:           vector.extract_strided_slice %{{.+}} {offsets = [8, 0], sizes = [8, 32], strides = [1, 1]}
// CHECK:           vector.extract_strided_slice %{{.+}} {offsets = [16, 0], sizes = [8, 32], strides = [1, 1]}
// CHECK:           vector.extract_strided_slice %{{.+}} {offsets = [24, 0], sizes = [8, 32], strides = [1, 1]}
// CHECK-NOT:       vector.extract_strided_slice
// CHECK:           gpu.terminator
func.func @fewer_chunks_than_threads(%steps: index, %rows: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %visit = memref.subview %out[%bx, 0] [%rows, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    vector.transfer_write %block, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [4, 1], stages = 2>}
  return
}
