// gmm-gpu-promote-operands alone: each tile kernel's contraction loop (in
// the gpu.launch gmm-gpu-map-blocks made) is rebuilt around shared-memory
// stages, its math one block-level contraction of the stage; the epilogue
// and the block write after it, and the host ops around the launch, stay.
// Inputs: one mode-1 gmm.ragged_dot each, through (module wrapper dropped)
//   gmm-opt --gmm-normalize --gmm-configure="target=gpu tile-m=32 tile-n=32 tile-k=16" --gmm-tile --gmm-materialize-metadata --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse --gmm-gpu-forward-buffers --canonicalize --gmm-gpu-map-blocks
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-promote-operands | FileCheck %s

// bf16 inputs, f32 result, 32x32x16 tiles on 1x2 warps (64 threads): two
// stages of the 32 x 16 lhs and 16 x 32 rhs bf16 tiles, rows unpadded and
// marked for gmm-gpu-swizzle-shared-memory (2048 + 2048 bytes; the buffer is
// the epilogue's 32 x 36 f32, 4608 bytes).
// CHECK-LABEL: func.func @bf16(
// CHECK-DAG:     %[[ZERO:[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : vector<32x32xf32>
// CHECK:         %[[LHS:[a-z0-9_]+]] = memref.expand_shape %arg0
// CHECK-NEXT:    %[[RHS:[a-z0-9_]+]] = memref.expand_shape %arg1
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in ({{.+}}) threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in ({{.+}}) workgroup(%[[SMEM:[a-z0-9]+]] : memref<4608xi8, #gpu.address_space<workgroup>>) {
// CHECK:             %[[ROWS:[a-z0-9_]+]]:3 = scf.if
// CHECK:             %[[BLOCKOUT:[a-z0-9_]+]] = memref.subview
// CHECK:             %[[NONEMPTY:[a-z0-9_]+]] = arith.cmpi sgt, %[[ROWS]]#1, %c0{{(_[0-9]+)?}} : index
// CHECK-NEXT:        scf.if %[[NONEMPTY]] {
// CHECK-NEXT:          %[[A:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:          %[[B:[a-z0-9_]+]] = memref.view %[[SMEM]][%c2048{{(_[0-9]+)?}}][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
// The contraction loop, unpipelined and marked for gmm-gpu-pipeline-stages:
// iteration j copies step j into stage j % 2 as 8-bf16 (16-byte) chunks,
// each a transfer_read masked by the elements inside the operand (and the
// group's k range) and a transfer_write into the stage (gmm-gpu-async-copies
// makes them cp.async), then a barrier, the math, a barrier.
// CHECK-NEXT:          %[[BLOCK:[a-z0-9_]+]] = scf.for %[[J:[a-z0-9]+]] = %[[LB:c0(_[0-9]+)?]] to %c2{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args(%[[ACC:[a-z0-9]+]] = %[[ZERO]]) -> (vector<32x32xf32>) {
// CHECK-DAG:             %[[S:[a-z0-9_]+]] = arith.remui %[[J]], %c2{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[K:[a-z0-9_]+]] = arith.muli %[[J]], %c16{{(_[0-9]+)?}} : index
// One chunk of the lhs per thread: row tid / 2, chunk tid % 2 of the step's
// 16 columns; the elements left in the row (32 - k - 8 * (tid % 2), at
// most 8), none past row 64, and the address 0 when nothing is read.
// CHECK-DAG:             %[[AR:[a-z0-9_]+]] = arith.divui %[[TX]], %c2{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AQ:[a-z0-9_]+]] = arith.remui %[[TX]], %c2{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AC:[a-z0-9_]+]] = arith.muli %[[AQ]], %c8{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AROW:[a-z0-9_]+]] = arith.addi %[[ROWS]]#0, %[[AR]] : index
// CHECK-DAG:             %[[ACOL:[a-z0-9_]+]] = arith.addi %[[K]], %[[AC]] : index
// CHECK-DAG:             %[[ALEFT:[a-z0-9_]+]] = arith.subi %c32{{(_[0-9]+)?}}, %[[ACOL]] : index
// CHECK-DAG:             %[[APOS:[a-z0-9_]+]] = arith.maxsi %[[ALEFT]], %c0{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AMIN:[a-z0-9_]+]] = arith.minsi %[[APOS]], %c8{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AIN:[a-z0-9_]+]] = arith.cmpi slt, %[[AROW]], %c64{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AN:[a-z0-9_]+]] = arith.select %[[AIN]], %[[AMIN]], %c0{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AANY:[a-z0-9_]+]] = arith.cmpi sgt, %[[AN]], %c0{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AI:[a-z0-9_]+]] = arith.select %[[AANY]], %[[AROW]], %c0{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AJ:[a-z0-9_]+]] = arith.select %[[AANY]], %[[ACOL]], %c0{{(_[0-9]+)?}} : index
// CHECK-DAG:             %[[AM:[a-z0-9_]+]] = vector.create_mask %[[AN]] : vector<8xi1>
// CHECK:                 %[[AV:[a-z0-9_]+]] = vector.transfer_read %[[LHS]][%c0{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}}, %[[AI]], %[[AJ]]], %{{.+}}, %[[AM]] {in_bounds = [true]} : memref<1x1x64x32xbf16>, vector<8xbf16>
// CHECK-NEXT:            vector.transfer_write %[[AV]], %[[A]][%[[S]], %[[AR]], %[[AC]]] {in_bounds = [true]} : vector<8xbf16>, memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// The rhs: row tid / 4 of the step's 16 rows of the visit's group.
// CHECK:                 %[[BM:[a-z0-9_]+]] = vector.create_mask %{{.+}} : vector<8xi1>
// CHECK-NEXT:            %[[BV:[a-z0-9_]+]] = vector.transfer_read %[[RHS]][%c0{{(_[0-9]+)?}}, %[[ROWS]]#2, %{{.+}}, %{{.+}}], %{{.+}}, %[[BM]] {in_bounds = [true]} : memref<1x2x32x32xbf16>, vector<8xbf16>
// CHECK-NEXT:            vector.transfer_write %[[BV]], %[[B]][%[[S]], %{{.+}}, %{{.+}}] {in_bounds = [true]} : vector<8xbf16>, memref<2x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:            gpu.barrier
// The block's contraction of the stage: the whole staged tiles, read
// through the views, into the f32 block (gmm-gpu-distribute-warps shares it
// among the warps), then a barrier.
// CHECK-NEXT:            %[[X:[a-z0-9_]+]] = vector.transfer_read %[[A]][%[[S]], %[[LB]], %[[LB]]], %{{.+}} {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
// CHECK-NEXT:            %[[Y:[a-z0-9_]+]] = vector.transfer_read %[[B]][%[[S]], %[[LB]], %[[LB]]], %{{.+}} {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
// CHECK-NEXT:            %[[R:[a-z0-9_]+]] = vector.contract {{.+}}kind = #vector.kind<add>} %[[X]], %[[Y]], %[[ACC]] : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
// CHECK-NEXT:            gpu.barrier
// CHECK-NEXT:            scf.yield %[[R]] : vector<32x32xf32>
// CHECK-NEXT:          } {gmm.pipeline_stages = 2 : i64}
// The block write stays, of the staged loop's block now; no read of the
// operands from global memory is left outside the loop.
// CHECK-NEXT:          vector.transfer_write %[[BLOCK]], %[[BLOCKOUT]][%c0{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}}] {in_bounds = [false, true]} : vector<32x32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.terminator
// The configuration stays for the passes after it.
// CHECK-NEXT:      } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
func.func @bf16(%arg0: memref<64x32xbf16>, %arg1: memref<2x32x32xbf16>, %arg2: memref<2xi32>) -> memref<64x32xf32> {
  %c3 = arith.constant 3 : index
  %c64_i64 = arith.constant 64 : i64
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.000000e+00 : bf16
  %c16 = arith.constant 16 : index
  %cst_0 = arith.constant dense<0.000000e+00> : vector<32x32xf32>
  %c0_i64 = arith.constant 0 : i64
  %cst_1 = arith.constant 0.000000e+00 : f32
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 64, 32] : memref<64x32xbf16> into memref<1x1x64x32xbf16>
  %expand_shape_2 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 32, 32] : memref<2x32x32xbf16> into memref<1x2x32x32xbf16>
  %expand_shape_3 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x64x32xf32>
  linalg.fill ins(%cst_1 : f32) outs(%alloc : memref<1x1x64x32xf32>)
  %subview = memref.subview %expand_shape_3[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %0 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %4 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
    %5 = arith.extsi %4 : i32 to i64
    %6 = arith.maxsi %5, %c0_i64 : i64
    %7 = arith.minsi %6, %c64_i64 : i64
    %8 = arith.index_cast %7 : i64 to index
    %9 = arith.subi %c64, %arg4 : index
    %10 = arith.minsi %8, %9 : index
    %11 = arith.addi %arg4, %10 : index
    memref.store %arg4, %alloc_4[%arg3] : memref<2xindex>
    memref.store %11, %alloc_5[%arg3] : memref<2xindex>
    scf.yield %11 : index
  }
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  linalg.fill ins(%c0 : index) outs(%alloc_6 : memref<3xindex>)
  %alloc_7 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  memref.copy %alloc_6, %alloc_7 : memref<3xindex> to memref<3xindex>
  %1 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %4 = memref.load %alloc_4[%arg3] : memref<2xindex>
    %5 = memref.load %alloc_5[%arg3] : memref<2xindex>
    %6 = arith.divui %4, %c32 : index
    %7 = arith.ceildivui %5, %c32 : index
    %8 = arith.cmpi eq, %4, %5 : index
    %9 = arith.select %8, %6, %7 : index
    %10 = scf.for %arg5 = %6 to %9 step %c1 iter_args(%arg6 = %arg4) -> (index) {
      %11 = arith.cmpi ult, %arg6, %c3 : index
      %12 = scf.if %11 -> (index) {
        memref.store %arg3, %alloc_7[%arg6] : memref<3xindex>
        memref.store %arg5, %alloc_6[%arg6] : memref<3xindex>
        %13 = arith.addi %arg6, %c1 : index
        scf.yield %13 : index
      } else {
        scf.yield %arg6 : index
      }
      scf.yield %12 : index
    }
    scf.yield %10 : index
  }
  %c1_8 = arith.constant 1 : index
  %c3_9 = arith.constant 3 : index
  %2 = arith.muli %c1_8, %c3_9 : index
  %c0_10 = arith.constant 0 : index
  %3 = arith.cmpi ne, %2, %c0_10 : index
  scf.if %3 {
    %c1_11 = arith.constant 1 : index
    %c64_12 = arith.constant 64 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %2, %arg10 = %c1_11, %arg11 = %c1_11) threads(%arg6, %arg7, %arg8) in (%arg12 = %c64_12, %arg13 = %c1_11, %arg14 = %c1_11) {
      %4 = arith.remui %arg3, %c3_9 : index
      %5 = arith.divui %arg3, %c3_9 : index
      %6 = arith.cmpi ult, %4, %1 : index
      %7:3 = scf.if %6 -> (index, index, index) {
        %9 = memref.load %alloc_7[%4] : memref<3xindex>
        %10 = memref.load %alloc_6[%4] : memref<3xindex>
        %11 = memref.load %alloc_4[%9] : memref<2xindex>
        %12 = memref.load %alloc_5[%9] : memref<2xindex>
        %13 = arith.muli %10, %c32 : index
        %14 = arith.addi %13, %c32 : index
        %15 = arith.maxsi %13, %11 : index
        %16 = arith.minsi %14, %12 : index
        %17 = arith.subi %16, %15 : index
        %18 = arith.maxsi %17, %c0 : index
        scf.yield %15, %18, %9 : index, index, index
      } else {
        scf.yield %c0, %c0, %c0 : index, index, index
      }
      %subview_13 = memref.subview %alloc[0, 0, %7#0, 0] [1, 1, %7#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
      %8 = arith.cmpi sgt, %7#1, %c0 : index
      scf.if %8 {
        %9 = scf.for %arg15 = %c0 to %c32 step %c16 iter_args(%arg16 = %cst_0) -> (vector<32x32xf32>) {
          %10 = vector.transfer_read %expand_shape[%c0, %c0, %7#0, %arg15], %cst : memref<1x1x64x32xbf16>, vector<32x16xbf16>
          %11 = vector.transfer_read %expand_shape_2[%c0, %7#2, %arg15, %c0], %cst {in_bounds = [false, true]} : memref<1x2x32x32xbf16>, vector<16x32xbf16>
          %12 = arith.extf %10 : vector<32x16xbf16> to vector<32x16xf32>
          %13 = arith.extf %11 : vector<16x32xbf16> to vector<16x32xf32>
          %14 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %12, %13, %arg16 : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
          scf.yield %14 : vector<32x32xf32>
        }
        vector.transfer_write %9, %subview_13[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  }
  %collapse_shape = memref.collapse_shape %alloc [[0, 1, 2], [3]] : memref<1x1x64x32xf32> into memref<64x32xf32>
  return %collapse_shape : memref<64x32xf32>
}

// -----

// k = 16, one step of the tile: the tile program has no contraction loop,
// and accumulates into init (the result's old values, read as the block's
// initial accumulator). The staged loop then runs once, from zero, and
// init is added to its block after it, where the epilogue reads it.
// CHECK-LABEL: func.func @once(
// CHECK-DAG:     %[[ZERO:[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : vector<32x32xf32>
// CHECK:           gpu.launch
// CHECK:             scf.if %{{.+}} {
// CHECK:               %[[INIT:[a-z0-9_]+]] = vector.transfer_read %[[OUT:[a-z0-9_]+]][%c0{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}}], %{{.+}} {in_bounds = [false, true]} : memref<?x32xf32, strided<[32, 1], offset: ?>>, vector<32x32xf32>
// CHECK:               %[[BLOCK:[a-z0-9_]+]] = scf.for %{{.+}} = %[[LB:c0(_[0-9]+)?]] to %[[ONE:c1(_[0-9]+)?]] step %[[ONE]] iter_args(%[[ACC:[a-z0-9]+]] = %[[ZERO]]) -> (vector<32x32xf32>) {
// CHECK:                 vector.contract {{.+}} : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
// CHECK:               } {gmm.pipeline_stages = 2 : i64}
// CHECK-NEXT:          %[[SUM:[a-z0-9_]+]] = arith.addf %[[BLOCK]], %[[INIT]] : vector<32x32xf32>
// CHECK-NEXT:          vector.transfer_write %[[SUM]], %[[OUT]][%c0{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}}] {in_bounds = [false, true]} : vector<32x32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NOT:           vector.contract
// CHECK:               gpu.terminator
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @once(%arg0: memref<64x16xbf16>, %arg1: memref<2x16x32xbf16>, %arg2: memref<2xi32>, %arg3: memref<64x32xf32>) -> memref<64x32xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c64_i64 = arith.constant 64 : i64
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : bf16
  %c0_i64 = arith.constant 0 : i64
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 64, 16] : memref<64x16xbf16> into memref<1x1x64x16xbf16>
  %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 16, 32] : memref<2x16x32xbf16> into memref<1x2x16x32xbf16>
  %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
  %expand_shape_3 = memref.expand_shape %arg3 [[0, 1, 2], [3]] output_shape [1, 1, 64, 32] : memref<64x32xf32> into memref<1x1x64x32xf32>
  %subview = memref.subview %expand_shape_2[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %0 = scf.for %arg4 = %c0 to %c2 step %c1 iter_args(%arg5 = %c0) -> (index) {
    %4 = memref.load %subview[%arg4] : memref<2xi32, strided<[1]>>
    %5 = arith.extsi %4 : i32 to i64
    %6 = arith.maxsi %5, %c0_i64 : i64
    %7 = arith.minsi %6, %c64_i64 : i64
    %8 = arith.index_cast %7 : i64 to index
    %9 = arith.subi %c64, %arg5 : index
    %10 = arith.minsi %8, %9 : index
    %11 = arith.addi %arg5, %10 : index
    memref.store %arg5, %alloc[%arg4] : memref<2xindex>
    memref.store %11, %alloc_4[%arg4] : memref<2xindex>
    scf.yield %11 : index
  }
  %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  linalg.fill ins(%c0 : index) outs(%alloc_5 : memref<3xindex>)
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  memref.copy %alloc_5, %alloc_6 : memref<3xindex> to memref<3xindex>
  %1 = scf.for %arg4 = %c0 to %c2 step %c1 iter_args(%arg5 = %c0) -> (index) {
    %4 = memref.load %alloc[%arg4] : memref<2xindex>
    %5 = memref.load %alloc_4[%arg4] : memref<2xindex>
    %6 = arith.divui %4, %c32 : index
    %7 = arith.ceildivui %5, %c32 : index
    %8 = arith.cmpi eq, %4, %5 : index
    %9 = arith.select %8, %6, %7 : index
    %10 = scf.for %arg6 = %6 to %9 step %c1 iter_args(%arg7 = %arg5) -> (index) {
      %11 = arith.cmpi ult, %arg7, %c3 : index
      %12 = scf.if %11 -> (index) {
        memref.store %arg4, %alloc_6[%arg7] : memref<3xindex>
        memref.store %arg6, %alloc_5[%arg7] : memref<3xindex>
        %13 = arith.addi %arg7, %c1 : index
        scf.yield %13 : index
      } else {
        scf.yield %arg7 : index
      }
      scf.yield %12 : index
    }
    scf.yield %10 : index
  }
  %c1_7 = arith.constant 1 : index
  %c3_8 = arith.constant 3 : index
  %2 = arith.muli %c1_7, %c3_8 : index
  %c0_9 = arith.constant 0 : index
  %c1_10 = arith.constant 1 : index
  %3 = arith.cmpi ne, %2, %c0_9 : index
  scf.if %3 {
    %c64_11 = arith.constant 64 : index
    gpu.launch blocks(%arg4, %arg5, %arg6) in (%arg10 = %2, %arg11 = %c1_10, %arg12 = %c1_10) threads(%arg7, %arg8, %arg9) in (%arg13 = %c64_11, %arg14 = %c1_10, %arg15 = %c1_10) {
      %4 = arith.remui %arg4, %c3_8 : index
      %5 = arith.divui %arg4, %c3_8 : index
      %6 = arith.cmpi ult, %4, %1 : index
      %7:3 = scf.if %6 -> (index, index, index) {
        %9 = memref.load %alloc_6[%4] : memref<3xindex>
        %10 = memref.load %alloc_5[%4] : memref<3xindex>
        %11 = memref.load %alloc[%9] : memref<2xindex>
        %12 = memref.load %alloc_4[%9] : memref<2xindex>
        %13 = arith.muli %10, %c32 : index
        %14 = arith.addi %13, %c32 : index
        %15 = arith.maxsi %13, %11 : index
        %16 = arith.minsi %14, %12 : index
        %17 = arith.subi %16, %15 : index
        %18 = arith.maxsi %17, %c0 : index
        scf.yield %15, %18, %9 : index, index, index
      } else {
        scf.yield %c0, %c0, %c0 : index, index, index
      }
      %subview_12 = memref.subview %expand_shape_3[0, 0, %7#0, 0] [1, 1, %7#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
      %8 = arith.cmpi sgt, %7#1, %c0 : index
      scf.if %8 {
        %9 = vector.transfer_read %expand_shape[%c0, %c0, %7#0, %c0], %cst_0 {in_bounds = [false, true]} : memref<1x1x64x16xbf16>, vector<32x16xbf16>
        %10 = vector.transfer_read %expand_shape_1[%c0, %7#2, %c0, %c0], %cst_0 {in_bounds = [true, true]} : memref<1x2x16x32xbf16>, vector<16x32xbf16>
        %11 = arith.extf %9 : vector<32x16xbf16> to vector<32x16xf32>
        %12 = arith.extf %10 : vector<16x32xbf16> to vector<16x32xf32>
        %13 = vector.transfer_read %subview_12[%c0, %c0], %cst {in_bounds = [false, true]} : memref<?x32xf32, strided<[32, 1], offset: ?>>, vector<32x32xf32>
        %14 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %11, %12, %13 : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
        vector.transfer_write %14, %subview_12[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  }
  return %arg3 : memref<64x32xf32>
}
