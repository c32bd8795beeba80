// The tile kernel's three passes together, gmm-gpu-promote-operands,
// gmm-gpu-stage-epilogue and gmm-gpu-distribute-warps: the block contraction
// of each tile kernel (the gpu.launch gmm-gpu-map-blocks made) is rebuilt
// (shared-memory stages, warp math, epilogue); the host ops around it stay.
// Each pass alone, from its own input, is in promote-operands.mlir,
// stage-epilogue.mlir and distribute-warps.mlir. Inputs: one mode-1
// gmm.ragged_dot each, through (module wrapper dropped)
//   gmm-opt --gmm-normalize --gmm-configure="target=gpu tile-m=32 tile-n=32 tile-k=16 [stages=3]" --gmm-tile --gmm-materialize-metadata --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse --gmm-gpu-forward-buffers --canonicalize --gmm-gpu-map-blocks
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-promote-operands --gmm-gpu-stage-epilogue --gmm-gpu-distribute-warps | FileCheck %s
// What the later passes do is not done here: no ldmatrix or mma.sync (that
// is gmm-gpu-vector-to-mma-sync), no device allocations, copies or memsets
// (gmm-gpu-partition-host), and no tile forall is left.
// RUN: gmm-opt %s -split-input-file --gmm-gpu-promote-operands --gmm-gpu-stage-epilogue --gmm-gpu-distribute-warps | FileCheck %s --check-prefix=LATER
// LATER-NOT: nvgpu.ldmatrix
// LATER-NOT: nvgpu.mma.sync
// LATER-NOT: gpu.alloc
// LATER-NOT: gpu.dealloc
// LATER-NOT: gpu.memset
// LATER-NOT: gpu.memcpy
// LATER-NOT: scf.forall
// LATER-NOT: gmm.kernel_config
// bf16 inputs, f32 result, 32x32x16 tiles: gmm-configure's 1x2 warps (64
// threads), two stages of the 32 x 16 lhs and 16 x 32 rhs bf16 tiles, rows
// unpadded and marked for gmm-gpu-swizzle-shared-memory (2048 + 2048 bytes;
// the epilogue's 32 x 36 f32 takes 4608), m16n8k16 contractions per warp.
// CHECK-LABEL: func.func @bf16(
// The host side stays as it is: the result buffer, the group bounds and the
// visit schedule are host allocations and host loops.
// CHECK:         %[[LHS:[a-z0-9_]+]] = memref.expand_shape %arg0
// CHECK-NEXT:    %[[RHS:[a-z0-9_]+]] = memref.expand_shape %arg1
// CHECK:         %[[OUT:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x64x32xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.+}} : f32) outs(%[[OUT]] : memref<1x1x64x32xf32>)
// CHECK:         %[[STARTS:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
// CHECK-NEXT:    %[[ENDS:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
// CHECK-NEXT:    scf.for
// CHECK:           memref.store %{{.+}}, %[[STARTS]][%{{.+}}] : memref<2xindex>
// CHECK-NEXT:      memref.store %{{.+}}, %[[ENDS]][%{{.+}}] : memref<2xindex>
// CHECK:         %[[TILES:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
// CHECK-NEXT:    linalg.fill ins(%{{.+}} : index) outs(%[[TILES]] : memref<3xindex>)
// CHECK-NEXT:    %[[GROUPS:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
// CHECK-NEXT:    memref.copy %[[TILES]], %[[GROUPS]] : memref<3xindex> to memref<3xindex>
// CHECK:         %[[VISITS:[a-z0-9_]+]] = scf.for
// CHECK:           scf.for
// CHECK:             memref.store
// One block per forall iteration (1 x 3), none when there are none.
// CHECK:         %[[GRID:[a-z0-9_]+]] = arith.muli %{{.+}}, %c3{{(_[0-9]+)?}} : index
// CHECK:         %[[ANY:[a-z0-9_]+]] = arith.cmpi ne, %[[GRID]], %c0{{(_[0-9]+)?}} : index
// CHECK-NEXT:    scf.if %[[ANY]] {
// CHECK:           %[[NT:[a-z0-9_]+]] = arith.constant 64 : index
// CHECK-NEXT:      gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[GRID]], %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}) threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[NT]], %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}) workgroup(%[[SMEM:[a-z0-9]+]] : memref<4608xi8, #gpu.address_space<workgroup>>) {
// The last forall dimension is the block id modulo its 3 iterations; blocks
// past the host's visit count take the tile program's empty branch.
// CHECK:             %[[VISIT:[a-z0-9_]+]] = arith.remui %[[BX]], %c3{{(_[0-9]+)?}} : index
// CHECK:             arith.cmpi ult, %[[VISIT]], %[[VISITS]] : index
// CHECK-NEXT:        %[[ROWS:[a-z0-9_]+]]:3 = scf.if
// CHECK-NEXT:          memref.load %[[GROUPS]][%[[VISIT]]] : memref<3xindex>
// CHECK-NEXT:          memref.load %[[TILES]][%[[VISIT]]] : memref<3xindex>
// CHECK:             %[[BLOCK:[a-z0-9_]+]] = memref.subview %[[OUT]][0, 0, %[[ROWS]]#0, 0] [1, 1, %[[ROWS]]#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-DAG:         %[[NONEMPTY:[a-z0-9_]+]] = arith.cmpi sgt, %[[ROWS]]#1, %c0{{(_[0-9]+)?}} : index
// CHECK:             scf.if %[[NONEMPTY]] {
// CHECK-NEXT:          %[[A:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:          %[[B:[a-z0-9_]+]] = memref.view %[[SMEM]][%c2048{{(_[0-9]+)?}}][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
// The contraction loop, unpipelined and marked for gmm-gpu-pipeline-stages:
// iteration j copies step j into stage j % 2 as 8-bf16 (16-byte) chunks,
// each a transfer_read masked by the elements inside the operand (and the
// group's k range) and a transfer_write into the stage (gmm-gpu-async-copies
// makes them cp.async), then a barrier, the math, a barrier.
// CHECK-NEXT:          %[[ACC:[a-z0-9_]+]]:4 = scf.for %[[J:[a-z0-9]+]] = %c0{{(_[0-9]+)?}} to %c2{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args(%[[ACC0:[a-z0-9]+]] = %[[ZERO:[a-z0-9_]+]], %[[ACC1:[a-z0-9]+]] = %[[ZERO]], %[[ACC2:[a-z0-9]+]] = %[[ZERO]], %[[ACC3:[a-z0-9]+]] = %[[ZERO]]) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>) {
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
// Each warp: a 32 x 16 sub-tile, two 16x16 lhs and two 16x8 rhs fragments.
// CHECK:                 %[[A0:[a-z0-9_]+]] = vector.transfer_read %[[A]][%[[S]], %{{.+}}, %c0{{(_[0-9]+)?}}], %{{.+}} {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
// CHECK:                 %[[A1:[a-z0-9_]+]] = vector.transfer_read %[[A]][%[[S]], %{{.+}}, %c0{{(_[0-9]+)?}}], %{{.+}} {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
// CHECK-NEXT:            %[[B0:[a-z0-9_]+]] = vector.transfer_read %[[B]][%[[S]], %c0{{(_[0-9]+)?}}, %{{.+}}], %{{.+}} {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
// CHECK:                 %[[B1:[a-z0-9_]+]] = vector.transfer_read %[[B]][%[[S]], %c0{{(_[0-9]+)?}}, %{{.+}}], %{{.+}} {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
// CHECK-NEXT:            %[[R0:[a-z0-9_]+]] = vector.contract {{.+}}kind = #vector.kind<add>} %[[A0]], %[[B0]], %[[ACC0]] : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:            %[[R1:[a-z0-9_]+]] = vector.contract {{.+}}kind = #vector.kind<add>} %[[A0]], %[[B1]], %[[ACC1]] : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:            %[[R2:[a-z0-9_]+]] = vector.contract {{.+}}kind = #vector.kind<add>} %[[A1]], %[[B0]], %[[ACC2]] : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:            %[[R3:[a-z0-9_]+]] = vector.contract {{.+}}kind = #vector.kind<add>} %[[A1]], %[[B1]], %[[ACC3]] : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:            gpu.barrier
// CHECK-NEXT:            scf.yield %[[R0]], %[[R1]], %[[R2]], %[[R3]] : vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>
// CHECK-NEXT:          } {gmm.pipeline_stages = 2 : i64}
// The old block contraction (32x16 x 16x32 in f32) is gone.
// CHECK-NOT:           vector<32x32xf32>
// Epilogue: drain the copies (cp.async once gmm-gpu-async-copies has run,
// and the last steps' are still in flight once pipelined), the fragments go to a 32 x (32 + 4) f32 view
// of the same buffer, then 4-element chunks of the visit's rows only are
// written with masked (not in_bounds) writes: 256 chunks, 4 per thread.
// CHECK:               nvvm.cp.async.wait.group 0
// CHECK-NEXT:          gpu.barrier
// CHECK-NEXT:          %[[C:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
// CHECK:               scf.if
// CHECK-NEXT:            vector.transfer_write %[[ACC]]#0, %[[C]][%c0{{(_[0-9]+)?}}, %{{.+}}] {in_bounds = [true, true]} : vector<16x8xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
// CHECK:                 vector.transfer_write %[[ACC]]#1, %[[C]]
// CHECK:                 vector.transfer_write %[[ACC]]#2, %[[C]][%c16{{(_[0-9]+)?}}, %{{.+}}]
// CHECK:                 vector.transfer_write %[[ACC]]#3, %[[C]][%c16{{(_[0-9]+)?}}, %{{.+}}] {in_bounds = [true, true]} : vector<16x8xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// CHECK:               %[[ROW:[a-z0-9_]+]] = arith.divui %[[TX]], %c8{{(_[0-9]+)?}} : index
// CHECK:               %[[IN:[a-z0-9_]+]] = arith.cmpi slt, %[[ROW]], %[[ROWS]]#1 : index
// CHECK-NEXT:          scf.if %[[IN]] {
// CHECK-NEXT:            %[[CHUNK:[a-z0-9_]+]] = vector.transfer_read %[[C]][%[[ROW]], %{{.+}}], %{{.+}} {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
// CHECK-NEXT:            vector.transfer_write %[[CHUNK]], %[[BLOCK]][%[[ROW]], %{{.+}}] : vector<1x4xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:          }
// CHECK-COUNT-3:         vector.transfer_write %{{.+}}, %[[BLOCK]][%{{.+}}, %{{.+}}] : vector<1x4xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NOT:             vector.transfer_write
// CHECK:               gpu.barrier
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.terminator
// CHECK-NEXT:      } {gmm.kernel = "tile"}
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[RES:[a-z0-9_]+]] = memref.collapse_shape %[[OUT]]
// CHECK-NEXT:    return %[[RES]] : memref<64x32xf32>
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

// f32 inputs with init, 32x32x16 tiles: 2x2 warps (128 threads), two stages
// of 32 x (16 + 4) and 16 x (32 + 4) f32 (5120 + 4608 bytes), 4-element
// cp.async chunks; each lane accumulates a 4x2 block with outer products (no
// warp contraction), and the epilogue adds the init block, read from the
// result buffer itself, before the masked write. Two warp rows: two
// epilogue phases of 16 rows each.
// CHECK-LABEL: func.func @f32_init(
// CHECK-SAME:      %{{.+}}: memref<64x32xf32>, %{{.+}}: memref<2x32x32xf32>, %{{.+}}: memref<2xi32>, %[[INIT:[a-z0-9_]+]]: memref<64x32xf32>)
// CHECK:         %[[LHS:[a-z0-9_]+]] = memref.expand_shape %arg0
// CHECK-NEXT:    %[[RHS:[a-z0-9_]+]] = memref.expand_shape %arg1
// CHECK:         %[[OUT:[a-z0-9_]+]] = memref.expand_shape %[[INIT]]
// CHECK:         memref.alloc() {alignment = 64 : i64} : memref<2xindex>
// CHECK:         memref.copy
// CHECK-NEXT:    %[[VISITS:[a-z0-9_]+]] = scf.for
// CHECK:         %[[ANY:[a-z0-9_]+]] = arith.cmpi ne, %[[GRID:[a-z0-9_]+]], %c0{{(_[0-9]+)?}} : index
// CHECK-NEXT:    scf.if %[[ANY]] {
// CHECK:           %[[NT:[a-z0-9_]+]] = arith.constant 128 : index
// CHECK-NEXT:      gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[GRID]], %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}) threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[NT]], %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}) workgroup(%[[SMEM:[a-z0-9]+]] : memref<9728xi8, #gpu.address_space<workgroup>>) {
// CHECK:             %[[LANE:[a-z0-9_]+]] = arith.remui %[[TX]], %c32{{(_[0-9]+)?}} : index
// CHECK:             %[[WM:[a-z0-9_]+]] = arith.divui %{{.+}}, %c2{{(_[0-9]+)?}} : index
// CHECK:             arith.cmpi ult, %{{.+}}, %[[VISITS]] : index
// CHECK-NEXT:        %[[ROWS:[a-z0-9_]+]]:3 = scf.if
// CHECK:             %[[BLOCK:[a-z0-9_]+]] = memref.subview %[[OUT]][0, 0, %[[ROWS]]#0, 0] [1, 1, %[[ROWS]]#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK:             scf.if
// CHECK-NEXT:          %[[A:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<2x32x20xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          %[[B:[a-z0-9_]+]] = memref.view %[[SMEM]][%c5120{{(_[0-9]+)?}}][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<2x16x36xf32, #gpu.address_space<workgroup>>
// 4-element (16-byte) f32 chunks, staged the same way.
// CHECK-NEXT:          %[[ACC:[a-z0-9_]+]] = scf.for %[[J:[a-z0-9]+]] = %c0{{(_[0-9]+)?}} to %c2{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args(%[[ACC0:[a-z0-9]+]] = %{{[a-z0-9_]+}}) -> (vector<4x2xf32>) {
// CHECK-DAG:             %[[S:[a-z0-9_]+]] = arith.remui %[[J]], %c2{{(_[0-9]+)?}} : index
// CHECK:                 %[[AV:[a-z0-9_]+]] = vector.transfer_read %[[LHS]][{{.+}}], %{{.+}}, %{{.+}} {in_bounds = [true]} : memref<1x1x64x32xf32>, vector<4xf32>
// CHECK-NEXT:            vector.transfer_write %[[AV]], %[[A]][%[[S]], %{{.+}}, %{{.+}}] {in_bounds = [true]} : vector<4xf32>, memref<2x32x20xf32, #gpu.address_space<workgroup>>
// CHECK:                 %[[BV:[a-z0-9_]+]] = vector.transfer_read %[[RHS]][{{.+}}], %{{.+}}, %{{.+}} {in_bounds = [true]} : memref<1x2x32x32xf32>, vector<4xf32>
// CHECK-NEXT:            vector.transfer_write %[[BV]], %[[B]][%[[S]], %{{.+}}, %{{.+}}] {in_bounds = [true]} : vector<4xf32>, memref<2x16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:            gpu.barrier
// CHECK-NOT:             vector.contract
// A column of the lane's 4 lhs rows (element loads from the [rows][k]
// stage) times a row of its 2 rhs columns (one vector load), 16 times.
// CHECK:                 memref.load %[[A]][%[[S]], %{{.+}}, %c0{{(_[0-9]+)?}}] : memref<2x32x20xf32, #gpu.address_space<workgroup>>
// CHECK:                 %[[COL:[a-z0-9_]+]] = vector.from_elements %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK-NEXT:            %[[ROW0:[a-z0-9_]+]] = vector.load %[[B]][%[[S]], %c0{{(_[0-9]+)?}}, %{{.+}}] : memref<2x16x36xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK-NEXT:            %[[P0:[a-z0-9_]+]] = vector.outerproduct %[[COL]], %[[ROW0]], %[[ACC0]] {kind = #vector.kind<add>} : vector<4xf32>, vector<2xf32>
// CHECK-COUNT-14:        vector.outerproduct
// CHECK:                 %[[P15:[a-z0-9_]+]] = vector.outerproduct %{{.+}}, %{{.+}}, %{{.+}} {kind = #vector.kind<add>} : vector<4xf32>, vector<2xf32>
// CHECK-NOT:             vector.contract
// CHECK-NEXT:            gpu.barrier
// CHECK-NEXT:            scf.yield %[[P15]] : vector<4x2xf32>
// CHECK-NEXT:          } {gmm.pipeline_stages = 2 : i64}
// CHECK-NEXT:          nvvm.cp.async.wait.group 0
// CHECK-NEXT:          gpu.barrier
// CHECK-NEXT:          %[[C:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<16x36xf32, #gpu.address_space<workgroup>>
// Warp row 0: its lanes' blocks to shared memory, then rows 0-15 of the
// tile, init added, each thread one chunk.
// CHECK:               %[[PH0:[a-z0-9_]+]] = arith.cmpi eq, %[[WM]], %c0{{(_[0-9]+)?}} : index
// CHECK-NEXT:          scf.if %[[PH0]] {
// CHECK:                 vector.transfer_write %[[ACC]], %[[C]][%{{.+}}, %{{.+}}] {in_bounds = [true, true]} : vector<4x2xf32>, memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// CHECK-DAG:           %[[R0:[a-z0-9_]+]] = arith.divui %[[TX]], %c8{{(_[0-9]+)?}} : index
// CHECK:               %[[IN0:[a-z0-9_]+]] = arith.cmpi slt, %[[R0]], %[[ROWS]]#1 : index
// CHECK-NEXT:          scf.if %[[IN0]] {
// CHECK-NEXT:            %[[X0:[a-z0-9_]+]] = vector.transfer_read %[[C]][%[[R0]], %[[C0:[a-z0-9_]+]]], %{{.+}} {in_bounds = [true, true]} : memref<16x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
// CHECK-NEXT:            %[[I0:[a-z0-9_]+]] = vector.transfer_read %[[BLOCK]][%[[R0]], %[[C0]]], %{{.+}} : memref<?x32xf32, strided<[32, 1], offset: ?>>, vector<1x4xf32>
// CHECK-NEXT:            %[[Y0:[a-z0-9_]+]] = arith.addf %[[X0]], %[[I0]] : vector<1x4xf32>
// CHECK-NEXT:            vector.transfer_write %[[Y0]], %[[BLOCK]][%[[R0]], %[[C0]]] : vector<1x4xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// Warp row 1: rows 16-31 of the tile.
// CHECK-DAG:           %[[PH1:[a-z0-9_]+]] = arith.cmpi eq, %[[WM]], %c1{{(_[0-9]+)?}} : index
// CHECK:               scf.if %[[PH1]] {
// CHECK:                 vector.transfer_write %[[ACC]], %[[C]][%{{.+}}, %{{.+}}] {in_bounds = [true, true]} : vector<4x2xf32>, memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// CHECK-DAG:           %[[R1:[a-z0-9_]+]] = arith.divui %[[TX]], %c8{{(_[0-9]+)?}} : index
// CHECK:               %[[ROW1:[a-z0-9_]+]] = arith.addi %[[R1]], %c16{{(_[0-9]+)?}} : index
// CHECK-DAG:           %[[IN1:[a-z0-9_]+]] = arith.cmpi slt, %[[ROW1]], %[[ROWS]]#1 : index
// CHECK:               scf.if %[[IN1]] {
// CHECK-NEXT:            %[[X1:[a-z0-9_]+]] = vector.transfer_read %[[C]][%[[R1]], %[[C1:[a-z0-9_]+]]]
// CHECK-NEXT:            %[[I1:[a-z0-9_]+]] = vector.transfer_read %[[BLOCK]][%[[ROW1]], %[[C1]]]
// CHECK-NEXT:            %[[Y1:[a-z0-9_]+]] = arith.addf %[[X1]], %[[I1]] : vector<1x4xf32>
// CHECK-NEXT:            vector.transfer_write %[[Y1]], %[[BLOCK]][%[[ROW1]], %[[C1]]] : vector<1x4xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.terminator
// CHECK-NEXT:      } {gmm.kernel = "tile"}
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[INIT]] : memref<64x32xf32>
func.func @f32_init(%arg0: memref<64x32xf32>, %arg1: memref<2x32x32xf32>, %arg2: memref<2xi32>, %arg3: memref<64x32xf32>) -> memref<64x32xf32> {
  %c3 = arith.constant 3 : index
  %c64_i64 = arith.constant 64 : i64
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.000000e+00 : f32
  %c16 = arith.constant 16 : index
  %cst_0 = arith.constant dense<0.000000e+00> : vector<32x32xf32>
  %c0_i64 = arith.constant 0 : i64
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 64, 32] : memref<64x32xf32> into memref<1x1x64x32xf32>
  %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 32, 32] : memref<2x32x32xf32> into memref<1x2x32x32xf32>
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
  %3 = arith.cmpi ne, %2, %c0_9 : index
  scf.if %3 {
    %c1_10 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch blocks(%arg4, %arg5, %arg6) in (%arg10 = %2, %arg11 = %c1_10, %arg12 = %c1_10) threads(%arg7, %arg8, %arg9) in (%arg13 = %c128, %arg14 = %c1_10, %arg15 = %c1_10) {
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
      %subview_11 = memref.subview %expand_shape_3[0, 0, %7#0, 0] [1, 1, %7#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
      %8 = arith.cmpi sgt, %7#1, %c0 : index
      scf.if %8 {
        %9 = scf.for %arg16 = %c0 to %c32 step %c16 iter_args(%arg17 = %cst_0) -> (vector<32x32xf32>) {
          %12 = vector.transfer_read %expand_shape[%c0, %c0, %7#0, %arg16], %cst : memref<1x1x64x32xf32>, vector<32x16xf32>
          %13 = vector.transfer_read %expand_shape_1[%c0, %7#2, %arg16, %c0], %cst {in_bounds = [false, true]} : memref<1x2x32x32xf32>, vector<16x32xf32>
          %14 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %12, %13, %arg17 : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
          scf.yield %14 : vector<32x32xf32>
        }
        %10 = vector.transfer_read %subview_11[%c0, %c0], %cst {in_bounds = [false, true]} : memref<?x32xf32, strided<[32, 1], offset: ?>>, vector<32x32xf32>
        %11 = arith.addf %9, %10 : vector<32x32xf32>
        vector.transfer_write %11, %subview_11[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
  }
  return %arg3 : memref<64x32xf32>
}

// -----

// Three stages (stages=3) of the bf16 tiles: 3 x 32 x 16 and 3 x 16 x 32
// bf16 (3072 + 3072 = 6144 bytes), rows unpadded; iteration j stages step
// j into stage j % 3, and the loop is marked for 3 pipeline stages
// (pipeline-stages.mlir starts from it). The bf16 result is converted in
// the epilogue.
// CHECK-LABEL: func.func @three_stages(
// CHECK:         %[[LHS:[a-z0-9_]+]] = memref.expand_shape %arg0
// CHECK-NEXT:    %[[RHS:[a-z0-9_]+]] = memref.expand_shape %arg1
// CHECK:         %[[OUT:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x64x32xbf16>
// CHECK:         gpu.launch blocks({{.+}}) threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %c64{{(_[0-9]+)?}}, {{.+}}) workgroup(%[[SMEM:[a-z0-9]+]] : memref<6144xi8, #gpu.address_space<workgroup>>) {
// CHECK:             %[[ROWS:[a-z0-9_]+]]:3 = scf.if
// CHECK:             %[[BLOCK:[a-z0-9_]+]] = memref.subview %[[OUT]][0, 0, %[[ROWS]]#0, 0] [1, 1, %[[ROWS]]#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
// CHECK:             %[[A:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {gmm.swizzle} : memref<6144xi8, #gpu.address_space<workgroup>> to memref<3x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[B:[a-z0-9_]+]] = memref.view %[[SMEM]][%c3072{{(_[0-9]+)?}}][] {gmm.swizzle} : memref<6144xi8, #gpu.address_space<workgroup>> to memref<3x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[ACC:[a-z0-9_]+]]:4 = scf.for %[[J:[a-z0-9]+]] = %c0{{(_[0-9]+)?}} to %c4{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args({{.+}}) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>) {
// CHECK-DAG:           %[[S:[a-z0-9_]+]] = arith.remui %[[J]], %c3{{(_[0-9]+)?}} : index
// CHECK:               vector.transfer_write %{{.+}}, %[[A]][%[[S]], {{.+}} : vector<8xbf16>, memref<3x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:               vector.transfer_write %{{.+}}, %[[B]][%[[S]], {{.+}} : vector<8xbf16>, memref<3x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:          gpu.barrier
// CHECK-COUNT-2:         vector.transfer_read %[[A]][%[[S]], {{.+}} : memref<3x32x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
// CHECK-COUNT-2:         vector.transfer_read %[[B]][%[[S]], {{.+}} : memref<3x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
// CHECK-COUNT-4:         vector.contract {{.+}} : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:            gpu.barrier
// CHECK-NEXT:            scf.yield
// CHECK-NEXT:          } {gmm.pipeline_stages = 3 : i64}
// CHECK-NEXT:          nvvm.cp.async.wait.group 0
// CHECK-NEXT:          gpu.barrier
// CHECK-NEXT:          %[[C:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] : memref<6144xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
// CHECK:               vector.transfer_write %[[ACC]]#0, %[[C]]
// CHECK:               scf.if
// CHECK-NEXT:            %[[X:[a-z0-9_]+]] = vector.transfer_read %[[C]]{{.+}} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
// CHECK-NEXT:            %[[Y:[a-z0-9_]+]] = arith.truncf %[[X]] : vector<1x4xf32> to vector<1x4xbf16>
// CHECK-NEXT:            vector.transfer_write %[[Y]], %[[BLOCK]][%{{.+}}, %{{.+}}] : vector<1x4xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
// CHECK-COUNT-3:         vector.transfer_write %{{.+}}, %[[BLOCK]][%{{.+}}, %{{.+}}] : vector<1x4xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
// CHECK:             } {gmm.kernel = "tile"}
func.func @three_stages(%arg0: memref<64x64xbf16>, %arg1: memref<2x64x32xbf16>, %arg2: memref<2xi32>) -> memref<64x32xbf16> {
  %c3 = arith.constant 3 : index
  %c64_i64 = arith.constant 64 : i64
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant dense<0.000000e+00> : vector<32x32xf32>
  %c0_i64 = arith.constant 0 : i64
  %cst_0 = arith.constant 0.000000e+00 : bf16
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 64, 64] : memref<64x64xbf16> into memref<1x1x64x64xbf16>
  %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 64, 32] : memref<2x64x32xbf16> into memref<1x2x64x32xbf16>
  %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x64x32xbf16>
  linalg.fill ins(%cst_0 : bf16) outs(%alloc : memref<1x1x64x32xbf16>)
  %subview = memref.subview %expand_shape_2[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %0 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %4 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
    %5 = arith.extsi %4 : i32 to i64
    %6 = arith.maxsi %5, %c0_i64 : i64
    %7 = arith.minsi %6, %c64_i64 : i64
    %8 = arith.index_cast %7 : i64 to index
    %9 = arith.subi %c64, %arg4 : index
    %10 = arith.minsi %8, %9 : index
    %11 = arith.addi %arg4, %10 : index
    memref.store %arg4, %alloc_3[%arg3] : memref<2xindex>
    memref.store %11, %alloc_4[%arg3] : memref<2xindex>
    scf.yield %11 : index
  }
  %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  linalg.fill ins(%c0 : index) outs(%alloc_5 : memref<3xindex>)
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  memref.copy %alloc_5, %alloc_6 : memref<3xindex> to memref<3xindex>
  %1 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %4 = memref.load %alloc_3[%arg3] : memref<2xindex>
    %5 = memref.load %alloc_4[%arg3] : memref<2xindex>
    %6 = arith.divui %4, %c32 : index
    %7 = arith.ceildivui %5, %c32 : index
    %8 = arith.cmpi eq, %4, %5 : index
    %9 = arith.select %8, %6, %7 : index
    %10 = scf.for %arg5 = %6 to %9 step %c1 iter_args(%arg6 = %arg4) -> (index) {
      %11 = arith.cmpi ult, %arg6, %c3 : index
      %12 = scf.if %11 -> (index) {
        memref.store %arg3, %alloc_6[%arg6] : memref<3xindex>
        memref.store %arg5, %alloc_5[%arg6] : memref<3xindex>
        %13 = arith.addi %arg6, %c1 : index
        scf.yield %13 : index
      } else {
        scf.yield %arg6 : index
      }
      scf.yield %12 : index
    }
    scf.yield %10 : index
  }
  %c1_7 = arith.constant 1 : index
  %c3_8 = arith.constant 3 : index
  %2 = arith.muli %c1_7, %c3_8 : index
  %c0_9 = arith.constant 0 : index
  %3 = arith.cmpi ne, %2, %c0_9 : index
  scf.if %3 {
    %c1_10 = arith.constant 1 : index
    %c64_11 = arith.constant 64 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %2, %arg10 = %c1_10, %arg11 = %c1_10) threads(%arg6, %arg7, %arg8) in (%arg12 = %c64_11, %arg13 = %c1_10, %arg14 = %c1_10) {
      %4 = arith.remui %arg3, %c3_8 : index
      %5 = arith.divui %arg3, %c3_8 : index
      %6 = arith.cmpi ult, %4, %1 : index
      %7:3 = scf.if %6 -> (index, index, index) {
        %9 = memref.load %alloc_6[%4] : memref<3xindex>
        %10 = memref.load %alloc_5[%4] : memref<3xindex>
        %11 = memref.load %alloc_3[%9] : memref<2xindex>
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
      %subview_12 = memref.subview %alloc[0, 0, %7#0, 0] [1, 1, %7#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
      %8 = arith.cmpi sgt, %7#1, %c0 : index
      scf.if %8 {
        %9 = scf.for %arg15 = %c0 to %c64 step %c16 iter_args(%arg16 = %cst) -> (vector<32x32xf32>) {
          %11 = vector.transfer_read %expand_shape[%c0, %c0, %7#0, %arg15], %cst_0 : memref<1x1x64x64xbf16>, vector<32x16xbf16>
          %12 = vector.transfer_read %expand_shape_1[%c0, %7#2, %arg15, %c0], %cst_0 {in_bounds = [false, true]} : memref<1x2x64x32xbf16>, vector<16x32xbf16>
          %13 = arith.extf %11 : vector<32x16xbf16> to vector<32x16xf32>
          %14 = arith.extf %12 : vector<16x32xbf16> to vector<16x32xf32>
          %15 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %13, %14, %arg16 : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
          scf.yield %15 : vector<32x32xf32>
        }
        %10 = arith.truncf %9 : vector<32x32xf32> to vector<32x32xbf16>
        vector.transfer_write %10, %subview_12[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 3>}
  }
  %collapse_shape = memref.collapse_shape %alloc [[0, 1, 2], [3]] : memref<1x1x64x32xbf16> into memref<64x32xbf16>
  return %collapse_shape : memref<64x32xbf16>
}
