// gmm-gpu-map-blocks: each tile forall that carries a GPU kernel
// configuration becomes a gpu.launch of its iterations (one block each, the
// last forall dimension fastest) with the configuration's warps, under an
// scf.if that skips an empty grid; the forall body is cloned as it is and
// the launch carries the configuration for the tile kernel's passes. Input: the
// @bf16 program of tile-kernel.mlir before gmm-gpu-map-blocks. Errors are in
// tile-kernel-invalid.mlir.

// RUN: gmm-opt %s -split-input-file --gmm-gpu-map-blocks | FileCheck %s

// CHECK-LABEL: func.func @bf16(
// CHECK-NOT:     scf.forall
// CHECK:         %[[GRID:.+]] = arith.muli %{{.+}}, %[[THREE:c3(_[0-9]+)?]] : index
// CHECK:         %[[C1:.+]] = arith.constant 1 : index
// CHECK:         %[[ANY:.+]] = arith.cmpi ne, %[[GRID]], %{{.+}} : index
// CHECK-NEXT:    scf.if %[[ANY]] {
// CHECK-NEXT:      %[[NT:.+]] = arith.constant 64 : index
// CHECK:           gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[GRID]], %{{.+}} = %[[C1]], %{{.+}} = %[[C1]]) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[NT]], %{{.+}} = %[[C1]], %{{.+}} = %[[C1]]) function(@bf16_tile_32x32x16_w1x2_s2) {
// The visit (last dimension) is the block id modulo its 3 iterations, the
// n-tile the quotient; the body follows unchanged, contraction included.
// CHECK-DAG:         %[[VISIT:.+]] = arith.remui %[[BX]], %[[THREE]] : index
// CHECK-DAG:         %{{.+}} = arith.divui %[[BX]], %[[THREE]] : index
// CHECK:             arith.cmpi ult, %[[VISIT]], %{{.+}} : index
// CHECK:             scf.for
// CHECK:               vector.contract
// CHECK:             vector.transfer_write
// CHECK:             gpu.terminator
// CHECK-NEXT:      } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
// CHECK-NEXT:    }
// CHECK-NOT:     scf.forall
// CHECK:         return



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

// A forall without a kernel configuration (the group metadata of
// gmm-materialize-metadata{parallel}) becomes a launch of one thread per
// iteration in blocks of 128: ceil(6 * %n / 128) blocks, the linear thread
// id guarded by the iteration count and delinearized (last dimension
// fastest).

// CHECK-LABEL: func.func @threads(
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<6x?xindex>, %[[N:[a-z0-9]+]]: index
// CHECK:         %[[C6:.+]] = arith.constant 6 : index
// CHECK:         %[[COUNT:.+]] = arith.muli %[[C6]], %[[N]] : index
// CHECK:         %[[C128:.+]] = arith.constant 128 : index
// CHECK:         %[[GRID:.+]] = arith.ceildivui %[[COUNT]], %[[C128]] : index
// CHECK:         %[[ANY:.+]] = arith.cmpi ne, %[[GRID]], %{{.+}} : index
// CHECK-NEXT:    scf.if %[[ANY]] {
// CHECK:           gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[GRID]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%[[TX:[a-z0-9]+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %{{c128.*}},
// CHECK-DAG:         %[[BASE:.+]] = arith.muli %[[BX]], %[[C128]] : index
// CHECK-DAG:         %[[ID:.+]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-DAG:         %[[IN:.+]] = arith.cmpi ult, %[[ID]], %[[COUNT]] : index
// CHECK:             scf.if %[[IN]] {
// CHECK-DAG:           %[[J:.+]] = arith.remui %[[ID]], %[[N]] : index
// CHECK-DAG:           %[[I:.+]] = arith.divui %[[ID]], %[[N]] : index
// CHECK:               memref.store %[[J]], %[[OUT]][%[[I]], %[[J]]] : memref<6x?xindex>
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.terminator
// CHECK-NEXT:      } {gmm.kernel = "metadata"}
// CHECK-NOT:     scf.forall
func.func @threads(%out: memref<6x?xindex>, %n: index) {
  scf.forall (%i, %j) in (6, %n) {
    memref.store %j, %out[%i, %j] : memref<6x?xindex>
  }
  return
}

// -----

// A raster band of 2 visits over 3 column tiles x 5 visits: the block id's
// place in the 15 tiles, its band (6 tiles each), the band's first visit
// and width (2, or the 1 left in the last band), the visit fastest within
// the band and the column tile the quotient. The kernel's name says the
// band.
// CHECK-LABEL: func.func @raster(
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{.+}}, %{{.+}}) in {{.+}} function(@raster_tile_32x32x16_w1x2_s2_r2) {
// CHECK:           %[[PLANE:.+]] = arith.muli %[[C3:c3(_[0-9]+)?]], %[[C5:c5(_[0-9]+)?]] : index
// CHECK:           %[[IN:.+]] = arith.remui %[[BX]], %[[PLANE]] : index
// CHECK:           %[[R:.+]] = arith.constant 2 : index
// CHECK:           %[[BANDSIZE:.+]] = arith.muli %[[R]], %[[C3]] : index
// CHECK:           %[[BAND:.+]] = arith.divui %[[IN]], %[[BANDSIZE]] : index
// CHECK:           %[[INBAND:.+]] = arith.remui %[[IN]], %[[BANDSIZE]] : index
// CHECK:           %[[FIRST:.+]] = arith.muli %[[BAND]], %[[R]] : index
// CHECK:           %[[LEFT:.+]] = arith.subi %[[C5]], %[[FIRST]] : index
// CHECK:           %[[WIDTH:.+]] = arith.minui %[[R]], %[[LEFT]] : index
// CHECK:           %[[OFF:.+]] = arith.remui %[[INBAND]], %[[WIDTH]] : index
// CHECK:           %[[VISIT:.+]] = arith.addi %[[FIRST]], %[[OFF]] : index
// CHECK:           %[[COL:.+]] = arith.divui %[[INBAND]], %[[WIDTH]] : index
// CHECK:           memref.store %[[COL]], %{{.+}}[%[[COL]], %[[VISIT]]] : memref<3x5xindex>
// CHECK:           gpu.terminator
// CHECK-NEXT:    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2, raster = 2>}
func.func @raster(%out: memref<3x5xindex>) {
  scf.forall (%c, %v) in (3, 5) {
    memref.store %c, %out[%c, %v] : memref<3x5xindex>
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2, raster = 2>}
  return
}
