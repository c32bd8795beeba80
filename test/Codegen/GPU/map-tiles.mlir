// gmm-gpu-map-tiles alone: each tile forall becomes a gpu.launch (cp.async
// stages, warp math, epilogue); the host ops around it stay. Inputs: one
// mode-1 gmm.ragged_dot each, through (module wrapper dropped)
//   gmm-opt --gmm-normalize --gmm-configure="target=gpu tile-m=32 tile-n=32 tile-k=16 [stages=3]" --gmm-tile --gmm-materialize-metadata --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse --gmm-gpu-forward-buffers --canonicalize

// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-map-tiles | FileCheck %s
// What the later passes do is not done here: no ldmatrix or mma.sync (that
// is gmm-gpu-vector-to-mma-sync), no device allocations, copies or memsets
// (gmm-gpu-partition-host), and no tile forall is left.
// RUN: gmm-opt %s -split-input-file --gmm-gpu-map-tiles | FileCheck %s --check-prefix=LATER
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
// CHECK-NEXT:      %[[NT:[a-z0-9_]+]] = arith.constant 64 : index
// CHECK-NEXT:      gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[GRID]], %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}) threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[NT]], %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}) workgroup(%[[SMEM:[a-z0-9]+]] : memref<4608xi8, #gpu.address_space<workgroup>>) {
// The last forall dimension is the block id modulo its 3 iterations; blocks
// past the host's visit count take the tile program's empty branch.
// CHECK-NEXT:        %[[VISIT:[a-z0-9_]+]] = arith.remui %[[BX]], %c3{{(_[0-9]+)?}} : index
// CHECK:             arith.cmpi ult, %[[VISIT]], %[[VISITS]] : index
// CHECK-NEXT:        %[[ROWS:[a-z0-9_]+]]:3 = scf.if
// CHECK-NEXT:          memref.load %[[GROUPS]][%[[VISIT]]] : memref<3xindex>
// CHECK-NEXT:          memref.load %[[TILES]][%[[VISIT]]] : memref<3xindex>
// CHECK:             %[[BLOCK:[a-z0-9_]+]] = memref.subview %[[OUT]][0, 0, %[[ROWS]]#0, 0] [1, 1, %[[ROWS]]#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:        %[[NONEMPTY:[a-z0-9_]+]] = arith.cmpi sgt, %[[ROWS]]#1, %c0{{(_[0-9]+)?}} : index
// CHECK-NEXT:        scf.if %[[NONEMPTY]] {
// CHECK-NEXT:          %[[A:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:          %[[B:[a-z0-9_]+]] = memref.view %[[SMEM]][%c2048{{(_[0-9]+)?}}][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
// Prologue: step 0 into stage 0, 8 bf16 (16 bytes) per cp.async, no wait.
// CHECK:               %[[CA:[a-z0-9_]+]] = nvgpu.device_async_copy %[[LHS]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}], %[[A]][%c0{{(_[0-9]+)?}}, %{{.+}}, %{{.+}}], 8, %{{.+}} {bypassL1} : memref<1x1x64x32xbf16> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:               %[[CB:[a-z0-9_]+]] = nvgpu.device_async_copy %[[RHS]][%{{.+}}, %[[ROWS]]#2, %{{.+}}, %{{.+}}], %[[B]][%c0{{(_[0-9]+)?}}, %{{.+}}, %{{.+}}], 8, %{{.+}} {bypassL1} : memref<1x2x32x32xbf16> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:          nvgpu.device_async_create_group %[[CA]], %[[CB]]
// CHECK-NEXT:          %[[ACC:[a-z0-9_]+]]:4 = scf.for %[[J:[a-z0-9]+]] = %c0{{(_[0-9]+)?}} to %c2{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args(%[[ACC0:[a-z0-9]+]] = %[[ZERO:[a-z0-9_]+]], %[[ACC1:[a-z0-9]+]] = %[[ZERO]], %[[ACC2:[a-z0-9]+]] = %[[ZERO]], %[[ACC3:[a-z0-9]+]] = %[[ZERO]]) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>) {
// Step j + 1 goes to stage (j + 1) % 2 while stage j % 2 is computed.
// CHECK-NEXT:            %[[S:[a-z0-9_]+]] = arith.remui %[[J]], %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT:            %[[NEXT:[a-z0-9_]+]] = arith.addi %[[J]], %c1{{(_[0-9]+)?}} : index
// CHECK:                 %[[NS:[a-z0-9_]+]] = arith.remui %[[NEXT]], %c2{{(_[0-9]+)?}} : index
// CHECK:                 %[[NA:[a-z0-9_]+]] = nvgpu.device_async_copy %[[LHS]][{{.+}}], %[[A]][%[[NS]], %{{.+}}, %{{.+}}], 8, %{{.+}} {bypassL1}
// CHECK:                 %[[NB:[a-z0-9_]+]] = nvgpu.device_async_copy %[[RHS]][{{.+}}], %[[B]][%[[NS]], %{{.+}}, %{{.+}}], 8, %{{.+}} {bypassL1}
// CHECK-NEXT:            %[[G:[a-z0-9_]+]] = nvgpu.device_async_create_group %[[NA]], %[[NB]]
// CHECK-NEXT:            nvgpu.device_async_wait %[[G]] {numGroups = 1 : i32}
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
// CHECK-NEXT:          }
// The old block contraction (32x16 x 16x32 in f32) is gone.
// CHECK-NOT:           vector<32x32xf32>
// Epilogue: drain the copies, the fragments go to a 32 x (32 + 4) f32 view
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

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
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
    %2 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
    %3 = arith.extsi %2 : i32 to i64
    %4 = arith.maxsi %3, %c0_i64 : i64
    %5 = arith.minsi %4, %c64_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.subi %c64, %arg4 : index
    %8 = arith.minsi %6, %7 : index
    %9 = arith.addi %arg4, %8 : index
    memref.store %arg4, %alloc_4[%arg3] : memref<2xindex>
    memref.store %9, %alloc_5[%arg3] : memref<2xindex>
    scf.yield %9 : index
  }
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  linalg.fill ins(%c0 : index) outs(%alloc_6 : memref<3xindex>)
  %alloc_7 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  memref.copy %alloc_6, %alloc_7 : memref<3xindex> to memref<3xindex>
  %1 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %2 = memref.load %alloc_4[%arg3] : memref<2xindex>
    %3 = memref.load %alloc_5[%arg3] : memref<2xindex>
    %4 = arith.divui %2, %c32 : index
    %5 = arith.ceildivui %3, %c32 : index
    %6 = arith.cmpi eq, %2, %3 : index
    %7 = arith.select %6, %4, %5 : index
    %8 = scf.for %arg5 = %4 to %7 step %c1 iter_args(%arg6 = %arg4) -> (index) {
      %9 = arith.cmpi ult, %arg6, %c3 : index
      %10 = scf.if %9 -> (index) {
        memref.store %arg3, %alloc_7[%arg6] : memref<3xindex>
        memref.store %arg5, %alloc_6[%arg6] : memref<3xindex>
        %11 = arith.addi %arg6, %c1 : index
        scf.yield %11 : index
      } else {
        scf.yield %arg6 : index
      }
      scf.yield %10 : index
    }
    scf.yield %8 : index
  }
  scf.forall (%arg3, %arg4) in (1, 3) {
    %2 = arith.cmpi ult, %arg4, %1 : index
    %3:3 = scf.if %2 -> (index, index, index) {
      %5 = memref.load %alloc_7[%arg4] : memref<3xindex>
      %6 = memref.load %alloc_6[%arg4] : memref<3xindex>
      %7 = memref.load %alloc_4[%5] : memref<2xindex>
      %8 = memref.load %alloc_5[%5] : memref<2xindex>
      %9 = arith.muli %6, %c32 : index
      %10 = arith.addi %9, %c32 : index
      %11 = arith.maxsi %9, %7 : index
      %12 = arith.minsi %10, %8 : index
      %13 = arith.subi %12, %11 : index
      %14 = arith.maxsi %13, %c0 : index
      scf.yield %11, %14, %5 : index, index, index
    } else {
      scf.yield %c0, %c0, %c0 : index, index, index
    }
    %subview_8 = memref.subview %alloc[0, 0, %3#0, 0] [1, 1, %3#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    %4 = arith.cmpi sgt, %3#1, %c0 : index
    scf.if %4 {
      %5 = scf.for %arg5 = %c0 to %c32 step %c16 iter_args(%arg6 = %cst_0) -> (vector<32x32xf32>) {
        %6 = vector.transfer_read %expand_shape[%c0, %c0, %3#0, %arg5], %cst : memref<1x1x64x32xbf16>, vector<32x16xbf16>
        %7 = vector.transfer_read %expand_shape_2[%c0, %3#2, %arg5, %c0], %cst {in_bounds = [false, true]} : memref<1x2x32x32xbf16>, vector<16x32xbf16>
        %8 = arith.extf %6 : vector<32x16xbf16> to vector<32x16xf32>
        %9 = arith.extf %7 : vector<16x32xbf16> to vector<16x32xf32>
        %10 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %8, %9, %arg6 : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
        scf.yield %10 : vector<32x32xf32>
      }
      vector.transfer_write %5, %subview_8[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
    }
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>, mapping = [#gpu.block<y>, #gpu.block<x>]}
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
// CHECK-NEXT:      %[[NT:[a-z0-9_]+]] = arith.constant 128 : index
// CHECK-NEXT:      gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[GRID]], %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}) threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[NT]], %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}, %{{[a-z0-9]+}} = %c1{{(_[0-9]+)?}}) workgroup(%[[SMEM:[a-z0-9]+]] : memref<9728xi8, #gpu.address_space<workgroup>>) {
// CHECK:             %[[LANE:[a-z0-9_]+]] = arith.remui %[[TX]], %c32{{(_[0-9]+)?}} : index
// CHECK:             %[[WM:[a-z0-9_]+]] = arith.divui %{{.+}}, %c2{{(_[0-9]+)?}} : index
// CHECK:             arith.cmpi ult, %{{.+}}, %[[VISITS]] : index
// CHECK-NEXT:        %[[ROWS:[a-z0-9_]+]]:3 = scf.if
// CHECK:             %[[BLOCK:[a-z0-9_]+]] = memref.subview %[[OUT]][0, 0, %[[ROWS]]#0, 0] [1, 1, %[[ROWS]]#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK:             scf.if
// CHECK-NEXT:          %[[A:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<2x32x20xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          %[[B:[a-z0-9_]+]] = memref.view %[[SMEM]][%c5120{{(_[0-9]+)?}}][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<2x16x36xf32, #gpu.address_space<workgroup>>
// CHECK:               nvgpu.device_async_copy %[[LHS]][{{.+}}], %[[A]][%c0{{(_[0-9]+)?}}, %{{.+}}, %{{.+}}], 4, %{{.+}} {bypassL1} : memref<1x1x64x32xf32> to memref<2x32x20xf32, #gpu.address_space<workgroup>>
// CHECK:               nvgpu.device_async_copy %[[RHS]][{{.+}}], %[[B]][%c0{{(_[0-9]+)?}}, %{{.+}}, %{{.+}}], 4, %{{.+}} {bypassL1} : memref<1x2x32x32xf32> to memref<2x16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          nvgpu.device_async_create_group
// CHECK-NEXT:          %[[ACC:[a-z0-9_]+]] = scf.for %[[J:[a-z0-9]+]] = %c0{{(_[0-9]+)?}} to %c2{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args(%[[ACC0:[a-z0-9]+]] = %{{[a-z0-9_]+}}) -> (vector<4x2xf32>) {
// CHECK-NEXT:            %[[S:[a-z0-9_]+]] = arith.remui %[[J]], %c2{{(_[0-9]+)?}} : index
// CHECK:                 nvgpu.device_async_copy %[[LHS]]
// CHECK:                 nvgpu.device_async_copy %[[RHS]]
// CHECK-NEXT:            %[[G:[a-z0-9_]+]] = nvgpu.device_async_create_group
// CHECK-NEXT:            nvgpu.device_async_wait %[[G]] {numGroups = 1 : i32}
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
// CHECK-NEXT:          }
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
// CHECK-NEXT:          %[[R0:[a-z0-9_]+]] = arith.divui %[[TX]], %c8{{(_[0-9]+)?}} : index
// CHECK:               %[[IN0:[a-z0-9_]+]] = arith.cmpi slt, %[[R0]], %[[ROWS]]#1 : index
// CHECK-NEXT:          scf.if %[[IN0]] {
// CHECK-NEXT:            %[[X0:[a-z0-9_]+]] = vector.transfer_read %[[C]][%[[R0]], %[[C0:[a-z0-9_]+]]], %{{.+}} {in_bounds = [true, true]} : memref<16x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
// CHECK-NEXT:            %[[I0:[a-z0-9_]+]] = vector.transfer_read %[[BLOCK]][%[[R0]], %[[C0]]], %{{.+}} : memref<?x32xf32, strided<[32, 1], offset: ?>>, vector<1x4xf32>
// CHECK-NEXT:            %[[Y0:[a-z0-9_]+]] = arith.addf %[[X0]], %[[I0]] : vector<1x4xf32>
// CHECK-NEXT:            vector.transfer_write %[[Y0]], %[[BLOCK]][%[[R0]], %[[C0]]] : vector<1x4xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// Warp row 1: rows 16-31 of the tile.
// CHECK-NEXT:          %[[PH1:[a-z0-9_]+]] = arith.cmpi eq, %[[WM]], %c1{{(_[0-9]+)?}} : index
// CHECK-NEXT:          scf.if %[[PH1]] {
// CHECK:                 vector.transfer_write %[[ACC]], %[[C]][%{{.+}}, %{{.+}}] {in_bounds = [true, true]} : vector<4x2xf32>, memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// CHECK-NEXT:          %[[R1:[a-z0-9_]+]] = arith.divui %[[TX]], %c8{{(_[0-9]+)?}} : index
// CHECK:               %[[ROW1:[a-z0-9_]+]] = arith.addi %[[R1]], %c16{{(_[0-9]+)?}} : index
// CHECK-NEXT:          %[[IN1:[a-z0-9_]+]] = arith.cmpi slt, %[[ROW1]], %[[ROWS]]#1 : index
// CHECK-NEXT:          scf.if %[[IN1]] {
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

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
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
    %2 = memref.load %subview[%arg4] : memref<2xi32, strided<[1]>>
    %3 = arith.extsi %2 : i32 to i64
    %4 = arith.maxsi %3, %c0_i64 : i64
    %5 = arith.minsi %4, %c64_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.subi %c64, %arg5 : index
    %8 = arith.minsi %6, %7 : index
    %9 = arith.addi %arg5, %8 : index
    memref.store %arg5, %alloc[%arg4] : memref<2xindex>
    memref.store %9, %alloc_4[%arg4] : memref<2xindex>
    scf.yield %9 : index
  }
  %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  linalg.fill ins(%c0 : index) outs(%alloc_5 : memref<3xindex>)
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  memref.copy %alloc_5, %alloc_6 : memref<3xindex> to memref<3xindex>
  %1 = scf.for %arg4 = %c0 to %c2 step %c1 iter_args(%arg5 = %c0) -> (index) {
    %2 = memref.load %alloc[%arg4] : memref<2xindex>
    %3 = memref.load %alloc_4[%arg4] : memref<2xindex>
    %4 = arith.divui %2, %c32 : index
    %5 = arith.ceildivui %3, %c32 : index
    %6 = arith.cmpi eq, %2, %3 : index
    %7 = arith.select %6, %4, %5 : index
    %8 = scf.for %arg6 = %4 to %7 step %c1 iter_args(%arg7 = %arg5) -> (index) {
      %9 = arith.cmpi ult, %arg7, %c3 : index
      %10 = scf.if %9 -> (index) {
        memref.store %arg4, %alloc_6[%arg7] : memref<3xindex>
        memref.store %arg6, %alloc_5[%arg7] : memref<3xindex>
        %11 = arith.addi %arg7, %c1 : index
        scf.yield %11 : index
      } else {
        scf.yield %arg7 : index
      }
      scf.yield %10 : index
    }
    scf.yield %8 : index
  }
  scf.forall (%arg4, %arg5) in (1, 3) {
    %2 = arith.cmpi ult, %arg5, %1 : index
    %3:3 = scf.if %2 -> (index, index, index) {
      %5 = memref.load %alloc_6[%arg5] : memref<3xindex>
      %6 = memref.load %alloc_5[%arg5] : memref<3xindex>
      %7 = memref.load %alloc[%5] : memref<2xindex>
      %8 = memref.load %alloc_4[%5] : memref<2xindex>
      %9 = arith.muli %6, %c32 : index
      %10 = arith.addi %9, %c32 : index
      %11 = arith.maxsi %9, %7 : index
      %12 = arith.minsi %10, %8 : index
      %13 = arith.subi %12, %11 : index
      %14 = arith.maxsi %13, %c0 : index
      scf.yield %11, %14, %5 : index, index, index
    } else {
      scf.yield %c0, %c0, %c0 : index, index, index
    }
    %subview_7 = memref.subview %expand_shape_3[0, 0, %3#0, 0] [1, 1, %3#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    %4 = arith.cmpi sgt, %3#1, %c0 : index
    scf.if %4 {
      %5 = scf.for %arg6 = %c0 to %c32 step %c16 iter_args(%arg7 = %cst_0) -> (vector<32x32xf32>) {
        %8 = vector.transfer_read %expand_shape[%c0, %c0, %3#0, %arg6], %cst : memref<1x1x64x32xf32>, vector<32x16xf32>
        %9 = vector.transfer_read %expand_shape_1[%c0, %3#2, %arg6, %c0], %cst {in_bounds = [false, true]} : memref<1x2x32x32xf32>, vector<16x32xf32>
        %10 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %8, %9, %arg7 : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
        scf.yield %10 : vector<32x32xf32>
      }
      %6 = vector.transfer_read %subview_7[%c0, %c0], %cst {in_bounds = [false, true]} : memref<?x32xf32, strided<[32, 1], offset: ?>>, vector<32x32xf32>
      %7 = arith.addf %5, %6 : vector<32x32xf32>
      vector.transfer_write %7, %subview_7[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xf32>, memref<?x32xf32, strided<[32, 1], offset: ?>>
    }
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>, mapping = [#gpu.block<y>, #gpu.block<x>]}
  return %arg3 : memref<64x32xf32>
}

// -----

// Three stages (stages=3) of the bf16 tiles: 3 x 32 x 16 and 3 x 16 x 32
// bf16 (3072 + 3072 = 6144 bytes), rows unpadded. The prologue fills stages 0 and 1
// without waiting; iteration j copies step j + 2 into stage (j + 2) % 3 and
// waits for all but the newest 2 groups. The bf16 result is converted in
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
// CHECK-NOT:           nvgpu.device_async_wait
// CHECK:               nvgpu.device_async_copy %[[LHS]][{{.+}}], %[[A]][%c0{{(_[0-9]+)?}}, {{.+}} : memref<1x1x64x64xbf16> to memref<3x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:               nvgpu.device_async_copy %[[RHS]][{{.+}}], %[[B]][%c0{{(_[0-9]+)?}}, {{.+}} : memref<1x2x64x32xbf16> to memref<3x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:          nvgpu.device_async_create_group
// CHECK-NOT:           nvgpu.device_async_wait
// Step 1 (k = 16) into stage 1.
// CHECK:               nvgpu.device_async_copy %[[LHS]][{{.+}}], %[[A]][%c1{{(_[0-9]+)?}}, {{.+}} : memref<1x1x64x64xbf16> to memref<3x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:               nvgpu.device_async_copy %[[RHS]][{{.+}}], %[[B]][%c1{{(_[0-9]+)?}}, {{.+}} : memref<1x2x64x32xbf16> to memref<3x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:          nvgpu.device_async_create_group
// CHECK-NOT:           nvgpu.device_async_wait
// CHECK-NEXT:          %[[ACC:[a-z0-9_]+]]:4 = scf.for %[[J:[a-z0-9]+]] = %c0{{(_[0-9]+)?}} to %c4{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args({{.+}}) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>) {
// CHECK-NEXT:            %[[S:[a-z0-9_]+]] = arith.remui %[[J]], %c3{{(_[0-9]+)?}} : index
// CHECK-NEXT:            %[[NEXT:[a-z0-9_]+]] = arith.addi %[[J]], %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT:            %[[K:[a-z0-9_]+]] = arith.muli %[[NEXT]], %c16{{(_[0-9]+)?}} : index
// CHECK-NEXT:            %[[NS:[a-z0-9_]+]] = arith.remui %[[NEXT]], %c3{{(_[0-9]+)?}} : index
// CHECK-NEXT:            %[[MORE:[a-z0-9_]+]] = arith.cmpi slt, %[[NEXT]], %c4{{(_[0-9]+)?}} : index
// CHECK:                 %[[NA:[a-z0-9_]+]] = nvgpu.device_async_copy %[[LHS]][{{.+}}], %[[A]][%[[NS]], {{.+}}], 8, %{{.+}} {bypassL1}
// CHECK:                 %[[NB:[a-z0-9_]+]] = nvgpu.device_async_copy %[[RHS]][{{.+}}], %[[B]][%[[NS]], {{.+}}], 8, %{{.+}} {bypassL1}
// CHECK-NEXT:            %[[G:[a-z0-9_]+]] = nvgpu.device_async_create_group %[[NA]], %[[NB]]
// CHECK-NEXT:            nvgpu.device_async_wait %[[G]] {numGroups = 2 : i32}
// CHECK-NEXT:            gpu.barrier
// CHECK-COUNT-2:         vector.transfer_read %[[A]][%[[S]], {{.+}} : memref<3x32x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
// CHECK-COUNT-2:         vector.transfer_read %[[B]][%[[S]], {{.+}} : memref<3x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
// CHECK-COUNT-4:         vector.contract {{.+}} : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:            gpu.barrier
// CHECK-NEXT:            scf.yield
// CHECK-NEXT:          }
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

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
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
    %2 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
    %3 = arith.extsi %2 : i32 to i64
    %4 = arith.maxsi %3, %c0_i64 : i64
    %5 = arith.minsi %4, %c64_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.subi %c64, %arg4 : index
    %8 = arith.minsi %6, %7 : index
    %9 = arith.addi %arg4, %8 : index
    memref.store %arg4, %alloc_3[%arg3] : memref<2xindex>
    memref.store %9, %alloc_4[%arg3] : memref<2xindex>
    scf.yield %9 : index
  }
  %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  linalg.fill ins(%c0 : index) outs(%alloc_5 : memref<3xindex>)
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  memref.copy %alloc_5, %alloc_6 : memref<3xindex> to memref<3xindex>
  %1 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %2 = memref.load %alloc_3[%arg3] : memref<2xindex>
    %3 = memref.load %alloc_4[%arg3] : memref<2xindex>
    %4 = arith.divui %2, %c32 : index
    %5 = arith.ceildivui %3, %c32 : index
    %6 = arith.cmpi eq, %2, %3 : index
    %7 = arith.select %6, %4, %5 : index
    %8 = scf.for %arg5 = %4 to %7 step %c1 iter_args(%arg6 = %arg4) -> (index) {
      %9 = arith.cmpi ult, %arg6, %c3 : index
      %10 = scf.if %9 -> (index) {
        memref.store %arg3, %alloc_6[%arg6] : memref<3xindex>
        memref.store %arg5, %alloc_5[%arg6] : memref<3xindex>
        %11 = arith.addi %arg6, %c1 : index
        scf.yield %11 : index
      } else {
        scf.yield %arg6 : index
      }
      scf.yield %10 : index
    }
    scf.yield %8 : index
  }
  scf.forall (%arg3, %arg4) in (1, 3) {
    %2 = arith.cmpi ult, %arg4, %1 : index
    %3:3 = scf.if %2 -> (index, index, index) {
      %5 = memref.load %alloc_6[%arg4] : memref<3xindex>
      %6 = memref.load %alloc_5[%arg4] : memref<3xindex>
      %7 = memref.load %alloc_3[%5] : memref<2xindex>
      %8 = memref.load %alloc_4[%5] : memref<2xindex>
      %9 = arith.muli %6, %c32 : index
      %10 = arith.addi %9, %c32 : index
      %11 = arith.maxsi %9, %7 : index
      %12 = arith.minsi %10, %8 : index
      %13 = arith.subi %12, %11 : index
      %14 = arith.maxsi %13, %c0 : index
      scf.yield %11, %14, %5 : index, index, index
    } else {
      scf.yield %c0, %c0, %c0 : index, index, index
    }
    %subview_7 = memref.subview %alloc[0, 0, %3#0, 0] [1, 1, %3#1, 32] [1, 1, 1, 1] : memref<1x1x64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %4 = arith.cmpi sgt, %3#1, %c0 : index
    scf.if %4 {
      %5 = scf.for %arg5 = %c0 to %c64 step %c16 iter_args(%arg6 = %cst) -> (vector<32x32xf32>) {
        %7 = vector.transfer_read %expand_shape[%c0, %c0, %3#0, %arg5], %cst_0 : memref<1x1x64x64xbf16>, vector<32x16xbf16>
        %8 = vector.transfer_read %expand_shape_1[%c0, %3#2, %arg5, %c0], %cst_0 {in_bounds = [false, true]} : memref<1x2x64x32xbf16>, vector<16x32xbf16>
        %9 = arith.extf %7 : vector<32x16xbf16> to vector<32x16xf32>
        %10 = arith.extf %8 : vector<16x32xbf16> to vector<16x32xf32>
        %11 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %9, %10, %arg6 : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
        scf.yield %11 : vector<32x32xf32>
      }
      %6 = arith.truncf %5 : vector<32x32xf32> to vector<32x32xbf16>
      vector.transfer_write %6, %subview_7[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    }
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 3>, mapping = [#gpu.block<y>, #gpu.block<x>]}
  %collapse_shape = memref.collapse_shape %alloc [[0, 1, 2], [3]] : memref<1x1x64x32xbf16> into memref<64x32xbf16>
  return %collapse_shape : memref<64x32xbf16>
}
