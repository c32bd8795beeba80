// gmm-gpu-distribute-warps alone: the staged loop's block contraction
// (what gmm-gpu-promote-operands builds) becomes each warp's, and the
// epilogue's staging of each warp row of the block (what
// gmm-gpu-stage-epilogue builds) the writes of those warps' fragments.
// Inputs: that form, written small by hand (the host side, the copies into
// the stages and the epilogue's chunk writes left out or cut short: the
// pass leaves them as they are).
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-distribute-warps | FileCheck %s

// bf16, 32x32x16 tiles on 1x2 warps (64 threads): each warp accumulates
// its 32x16 warp tile as four 16x8 f32 fragments, with m16n8k16
// contractions of 16x16 lhs and 16x8 rhs sub-blocks of the stage (its
// rows from warpM * 32, its columns from warpN * 16); the one warp row
// stages its fragments at (16 i, warpN * 16 + 8 j) (the epilogue writes
// the whole block at once: one warp row).
// CHECK-LABEL: func.func @bf16(
// CHECK-DAG:     %[[ZERO:[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : vector<16x8xf32>
// CHECK:         gpu.launch {{.+}} threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in {{.+}} workgroup(%[[SMEM:[a-z0-9]+]] : memref<4608xi8, #gpu.address_space<workgroup>>) {
// CHECK-DAG:       %[[WARP:[a-z0-9_]+]] = arith.divui %[[TX]], %c32 : index
// CHECK-DAG:       %[[WM:[a-z0-9_]+]] = arith.divui %[[WARP]], %c2 : index
// CHECK-DAG:       %[[WN:[a-z0-9_]+]] = arith.remui %[[WARP]], %c2 : index
// CHECK:           %[[A:[a-z0-9_]+]] = memref.view %[[SMEM]]
// CHECK-NEXT:      %[[B:[a-z0-9_]+]] = memref.view %[[SMEM]]
// CHECK-NEXT:      %[[ACC:[a-z0-9_]+]]:4 = scf.for %[[J:[a-z0-9]+]] = %c0 to %{{.+}} step %c1 iter_args(%[[A0:[a-z0-9]+]] = %[[ZERO]], %[[A1:[a-z0-9]+]] = %[[ZERO]], %[[A2:[a-z0-9]+]] = %[[ZERO]], %[[A3:[a-z0-9]+]] = %[[ZERO]]) -> (vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>) {
// CHECK-DAG:         %[[S:[a-z0-9_]+]] = arith.remui %[[J]], %c2 : index
// CHECK:             gpu.barrier
// CHECK-DAG:         %[[ROW:[a-z0-9_]+]] = arith.muli %[[WM]], %c32 : index
// CHECK-DAG:         %[[COL:[a-z0-9_]+]] = arith.muli %[[WN]], %c16 : index
// CHECK:             %[[X0:[a-z0-9_]+]] = vector.transfer_read %[[A]][%[[S]], %[[ROW]], %c0], %{{.+}} {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
// CHECK-DAG:         %[[ROW1:[a-z0-9_]+]] = arith.addi %[[ROW]], %c16 : index
// CHECK:             %[[X1:[a-z0-9_]+]] = vector.transfer_read %[[A]][%[[S]], %[[ROW1]], %c0], %{{.+}} {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
// CHECK-NEXT:        %[[Y0:[a-z0-9_]+]] = vector.transfer_read %[[B]][%[[S]], %c0, %[[COL]]], %{{.+}} {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
// CHECK-DAG:         %[[COL1:[a-z0-9_]+]] = arith.addi %[[COL]], %c8 : index
// CHECK:             %[[Y1:[a-z0-9_]+]] = vector.transfer_read %[[B]][%[[S]], %c0, %[[COL1]]], %{{.+}} {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
// CHECK-NEXT:        %[[R0:[a-z0-9_]+]] = vector.contract {{.+}} %[[X0]], %[[Y0]], %[[A0]] : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:        %[[R1:[a-z0-9_]+]] = vector.contract {{.+}} %[[X0]], %[[Y1]], %[[A1]] : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:        %[[R2:[a-z0-9_]+]] = vector.contract {{.+}} %[[X1]], %[[Y0]], %[[A2]] : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:        %[[R3:[a-z0-9_]+]] = vector.contract {{.+}} %[[X1]], %[[Y1]], %[[A3]] : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        scf.yield %[[R0]], %[[R1]], %[[R2]], %[[R3]] : vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>, vector<16x8xf32>
// CHECK-NEXT:      } {gmm.pipeline_stages = 2 : i64}
// CHECK-NOT:       vector<32x32xf32>
// CHECK:           %[[C:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:       %[[WCOL:[a-z0-9_]+]] = arith.muli %[[WN]], %c16 : index
// CHECK-DAG:       %[[FIRST:[a-z0-9_]+]] = arith.cmpi eq, %[[WM]], %c0 : index
// CHECK:           scf.if %[[FIRST]] {
// CHECK-NEXT:        vector.transfer_write %[[ACC]]#0, %[[C]][%c0, %[[WCOL]]] {in_bounds = [true, true]} : vector<16x8xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:         %[[WCOL1:[a-z0-9_]+]] = arith.addi %[[WCOL]], %c8 : index
// CHECK:             vector.transfer_write %[[ACC]]#1, %[[C]][%c0, %[[WCOL1]]] {in_bounds = [true, true]}
// CHECK-NEXT:        vector.transfer_write %[[ACC]]#2, %[[C]][%c16, %[[WCOL]]] {in_bounds = [true, true]}
// CHECK-DAG:         %[[WCOL2:[a-z0-9_]+]] = arith.addi %[[WCOL]], %c8 : index
// CHECK:             vector.transfer_write %[[ACC]]#3, %[[C]][%c16, %[[WCOL2]]] {in_bounds = [true, true]}
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// What follows the staging is left as it is.
// CHECK-NEXT:      vector.transfer_read %[[C]][%[[TX]], %c0]
// CHECK-NEXT:      vector.transfer_write
// CHECK-NEXT:      gpu.terminator
// The configuration is spent.
// CHECK-NEXT:    }{{$}}
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @bf16(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    vector.transfer_write %block, %c[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// f32, 32x32x16 tiles on 2x2 warps (128 threads): each lane of a warp's
// 4 x 8 lanes accumulates a 4 x 2 block of its 16x16 warp tile with outer
// products of a staged lhs column (element loads: the lhs is stored
// [rows][k]) and rhs row (a vector load: stored [k][cols]), one per k; the
// two warp rows stage their blocks in turn at the lane's position.
// CHECK-LABEL: func.func @f32_two_warp_rows(
// CHECK-DAG:     %[[ZERO:[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : vector<4x2xf32>
// CHECK:         gpu.launch {{.+}} threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in {{.+}} workgroup(%[[SMEM:[a-z0-9]+]] : memref<9728xi8, #gpu.address_space<workgroup>>) {
// CHECK-DAG:       %[[WARP:[a-z0-9_]+]] = arith.divui %[[TX]], %c32 : index
// CHECK-DAG:       %[[LANE:[a-z0-9_]+]] = arith.remui %[[TX]], %c32 : index
// CHECK-DAG:       %[[WM:[a-z0-9_]+]] = arith.divui %[[WARP]], %c2 : index
// CHECK-DAG:       %[[WN:[a-z0-9_]+]] = arith.remui %[[WARP]], %c2 : index
// CHECK:           %[[A:[a-z0-9_]+]] = memref.view %[[SMEM]]
// CHECK-NEXT:      %[[B:[a-z0-9_]+]] = memref.view %[[SMEM]]
// CHECK-NEXT:      %[[ACC:[a-z0-9_]+]] = scf.for %[[J:[a-z0-9]+]] = %c0 to %{{.+}} step %c1{{(_[0-9]+)?}} iter_args(%[[A0:[a-z0-9]+]] = %[[ZERO]]) -> (vector<4x2xf32>) {
// CHECK-DAG:         %[[S:[a-z0-9_]+]] = arith.remui %[[J]], %c2 : index
// CHECK:             gpu.barrier
// CHECK-DAG:         %[[ROW:[a-z0-9_]+]] = arith.muli %[[WM]], %c16 : index
// CHECK-DAG:         %[[COL:[a-z0-9_]+]] = arith.muli %[[WN]], %c16 : index
// CHECK-DAG:         %[[LR:[a-z0-9_]+]] = arith.divui %[[LANE]], %c8 : index
// CHECK-DAG:         %[[LC:[a-z0-9_]+]] = arith.remui %[[LANE]], %c8 : index
// CHECK-DAG:         %[[LR4:[a-z0-9_]+]] = arith.muli %[[LR]], %c4 : index
// CHECK-DAG:         %[[R0:[a-z0-9_]+]] = arith.addi %[[ROW]], %[[LR4]] : index
// CHECK-DAG:         %[[LC2:[a-z0-9_]+]] = arith.muli %[[LC]], %c2 : index
// CHECK-DAG:         %[[C0:[a-z0-9_]+]] = arith.addi %[[COL]], %[[LC2]] : index
// CHECK:             %[[E0:[a-z0-9_]+]] = memref.load %[[A]][%[[S]], %[[R0]], %c0] : memref<2x32x20xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:         %[[R1:[a-z0-9_]+]] = arith.addi %[[R0]], %c1 : index
// CHECK:             %[[E1:[a-z0-9_]+]] = memref.load %[[A]][%[[S]], %[[R1]], %c0]
// CHECK-DAG:         %[[R2:[a-z0-9_]+]] = arith.addi %[[R0]], %c2 : index
// CHECK:             %[[E2:[a-z0-9_]+]] = memref.load %[[A]][%[[S]], %[[R2]], %c0]
// CHECK-DAG:         %[[R3:[a-z0-9_]+]] = arith.addi %[[R0]], %c3 : index
// CHECK:             %[[E3:[a-z0-9_]+]] = memref.load %[[A]][%[[S]], %[[R3]], %c0]
// CHECK-NEXT:        %[[COLUMN:[a-z0-9_]+]] = vector.from_elements %[[E0]], %[[E1]], %[[E2]], %[[E3]] : vector<4xf32>
// CHECK-NEXT:        %[[LINE:[a-z0-9_]+]] = vector.load %[[B]][%[[S]], %c0, %[[C0]]] : memref<2x16x36xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK-NEXT:        %[[P0:[a-z0-9_]+]] = vector.outerproduct %[[COLUMN]], %[[LINE]], %[[A0]] {kind = #vector.kind<add>} : vector<4xf32>, vector<2xf32>
// CHECK-COUNT-15:    vector.outerproduct
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        scf.yield %{{.+}} : vector<4x2xf32>
// CHECK-NEXT:      } {gmm.pipeline_stages = 2 : i64}
// CHECK-NEXT:      %[[C:[a-z0-9_]+]] = memref.view %[[SMEM]][%c0][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:       %[[WCOL:[a-z0-9_]+]] = arith.muli %[[WN]], %c16 : index
// CHECK-DAG:       %[[TOP:[a-z0-9_]+]] = arith.cmpi eq, %[[WM]], %c0 : index
// CHECK:           scf.if %[[TOP]] {
// CHECK-DAG:         %[[LR:[a-z0-9_]+]] = arith.divui %[[LANE]], %c8 : index
// CHECK-DAG:         %[[LC:[a-z0-9_]+]] = arith.remui %[[LANE]], %c8 : index
// CHECK-DAG:         %[[LR4:[a-z0-9_]+]] = arith.muli %[[LR]], %c4 : index
// CHECK-DAG:         %[[LC2:[a-z0-9_]+]] = arith.muli %[[LC]], %c2 : index
// CHECK-DAG:         %[[WC:[a-z0-9_]+]] = arith.addi %[[WCOL]], %[[LC2]] : index
// CHECK:             vector.transfer_write %[[ACC]], %[[C]][%[[LR4]], %[[WC]]] {in_bounds = [true, true]} : vector<4x2xf32>, memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-DAG:       %[[BOTTOM:[a-z0-9_]+]] = arith.cmpi eq, %[[WM]], %c1{{(_[0-9]+)?}} : index
// CHECK:           scf.if %[[BOTTOM]] {
// CHECK:             vector.transfer_write %[[ACC]], %[[C]][%{{.+}}, %{{.+}}] {in_bounds = [true, true]} : vector<4x2xf32>, memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      gpu.terminator
// CHECK-NEXT:    }{{$}}
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @f32_two_warp_rows(%steps: index) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c5120 = arith.constant 5120 : index
    %a = memref.view %smem[%c0][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<2x32x20xf32, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c5120][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<2x16x36xf32, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : f32
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x20xf32, #gpu.address_space<workgroup>>, vector<32x16xf32>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x36xf32, #gpu.address_space<workgroup>>, vector<16x32xf32>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %c = memref.view %smem[%c0][] : memref<9728xi8, #gpu.address_space<workgroup>> to memref<16x36xf32, #gpu.address_space<workgroup>>
    %top = vector.extract_strided_slice %block {offsets = [0, 0], sizes = [16, 32], strides = [1, 1]} : vector<32x32xf32> to vector<16x32xf32>
    vector.transfer_write %top, %c[%c0, %c0] {in_bounds = [true, true]} : vector<16x32xf32>, memref<16x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %bottom = vector.extract_strided_slice %block {offsets = [16, 0], sizes = [16, 32], strides = [1, 1]} : vector<32x32xf32> to vector<16x32xf32>
    vector.transfer_write %bottom, %c[%c0, %c0] {in_bounds = [true, true]} : vector<16x32xf32>, memref<16x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
  return
}
