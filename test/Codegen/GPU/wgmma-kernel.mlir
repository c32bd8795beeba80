// gmm-gpu-wgmma-kernel alone: each tile kernel configured with mma = wgmma
// (the gpu.launch gmm-gpu-map-blocks made) becomes the Hopper kernel, or
// keeps the sm_80 kernel with a remark when its block program has another
// form. Inputs: one mode-1 gmm.ragged_dot each, through (module wrapper dropped)
//   gmm-opt --gmm-normalize --gmm-configure="target=gpu chip=sm_90a" --gmm-tile --gmm-materialize-metadata --canonicalize --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse --gmm-gpu-forward-buffers --canonicalize --gmm-gpu-map-blocks
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-wgmma-kernel | FileCheck %s

// bf16 x bf16 -> bf16, k = 128, n = 192 (one 256-column tile): 128 x 256
// x 64 tiles in 4 stages of 48 KiB.
// Before the launch, on the host: a tensor map per operand, the lhs in
// boxes of 128 rows x 64 k, the rhs in boxes of 64 k x 64 columns of one
// group, each handed to the kernel as a pointer.
// CHECK-LABEL: func.func @bf16(
// CHECK:         %[[LHS:.+]] = memref.expand_shape %arg0
// CHECK:         %[[RHS:.+]] = memref.expand_shape %arg1
// CHECK:         %[[LCAST:.+]] = memref.cast %[[LHS]] : memref<1x1x256x128xbf16> to memref<*xbf16>
// CHECK:         %[[LMAP:.+]] = nvgpu.tma.create.descriptor %[[LCAST]] box[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : memref<*xbf16> -> <tensor = memref<1x1x128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         %[[RCAST:.+]] = memref.cast %[[RHS]] : memref<1x2x128x192xbf16> to memref<*xbf16>
// CHECK:         %[[RMAP:.+]] = nvgpu.tma.create.descriptor %[[RCAST]] box[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : memref<*xbf16> -> <tensor = memref<1x1x64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK-DAG:     %[[LPTR:.+]] = builtin.unrealized_conversion_cast %[[LMAP]] : {{.+}} to !llvm.ptr
// CHECK-DAG:     %[[RPTR:.+]] = builtin.unrealized_conversion_cast %[[RMAP]] : {{.+}} to !llvm.ptr
// CHECK-DAG:     %[[THREADS:.+]] = arith.constant 384 : index
// CHECK-DAG:     %[[SMEM:.+]] = arith.constant 197760 : i32
// Three warpgroups; the 4 stages (196608 bytes) and 1152 bytes to align them.
// CHECK:         gpu.launch blocks({{.+}}) in ({{.+}}) threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %[[THREADS]], {{.+}}) dynamic_shared_memory_size %[[SMEM]] function(@bf16_tile_128x256x64_w2x4_s4_wgmma) {
// CHECK-DAG:       %[[KLMAP:.+]] = builtin.unrealized_conversion_cast %[[LPTR]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x1x128x64xbf16
// CHECK-DAG:       %[[KRMAP:.+]] = builtin.unrealized_conversion_cast %[[RPTR]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<1x1x64x64xbf16
// The visit's rows, its group, and the block's view of the result.
// CHECK:           %[[VISIT:[a-z0-9_]+]]:3 = scf.if
// CHECK:           %[[OUT:[a-z0-9_]+]] = memref.subview %{{.+}}[0, 0, %[[VISIT]]#0, 0] [1, 1, %[[VISIT]]#1, 192]
// CHECK:           scf.if
// A full and an empty mbarrier per stage; thread 0 sets them up: a full
// barrier waits for the producer's one arrival (and the stage's bytes), an
// empty one for one arrival per consumer warpgroup; then a fence makes
// them visible to the copy engine.
// CHECK:             %[[FULL:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK:             %[[EMPTY:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK:               nvgpu.mbarrier.init %[[FULL]][%{{.+}}], %c1{{(_[0-9]+)?}} :
// CHECK:               nvgpu.mbarrier.init %[[EMPTY]][%{{.+}}], %c2{{(_[0-9]+)?}} :
// CHECK:               nvgpu.mbarrier.init %[[FULL]][%{{.+}}], %c1{{(_[0-9]+)?}} :
// CHECK:               nvgpu.mbarrier.init %[[EMPTY]][%{{.+}}], %c2{{(_[0-9]+)?}} :
// CHECK:               nvgpu.mbarrier.init %[[FULL]][%{{.+}}], %c1{{(_[0-9]+)?}} :
// CHECK:               nvgpu.mbarrier.init %[[EMPTY]][%{{.+}}], %c2{{(_[0-9]+)?}} :
// CHECK:               nvgpu.mbarrier.init %[[FULL]][%{{.+}}], %c1{{(_[0-9]+)?}} :
// CHECK:               nvgpu.mbarrier.init %[[EMPTY]][%{{.+}}], %c2{{(_[0-9]+)?}} :
// CHECK:               nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:               nvgpu.tma.prefetch.descriptor %[[KLMAP]]
// CHECK:               nvgpu.tma.prefetch.descriptor %[[KRMAP]]
// CHECK:             gpu.barrier
// CHECK:             %[[BUF:.+]] = gpu.dynamic_shared_memory
// CHECK:             %[[STEPS:.+]] = arith.ceildivui %{{.+}}, %c64{{(_[0-9]+)?}} : index
// CHECK:             %[[WG:.+]] = arith.divui %[[TX]], %c128{{(_[0-9]+)?}} : index
// CHECK:             %[[PRODUCER:.+]] = arith.cmpi eq, %[[WG]], %c2{{(_[0-9]+)?}} : index
// CHECK:             scf.if %[[PRODUCER]] {
// The producer, thread 256: waits for the stage's consumers (from the
// second round on), arms the full barrier with 16 KiB + 4 x 8 KiB and
// loads one lhs box and four rhs boxes (columns 0, 64, 128, 192).
// CHECK:               %[[ISSUER:.+]] = arith.cmpi eq, %[[TX]], %c256{{(_[0-9]+)?}} : index
// CHECK:               scf.if %[[ISSUER]] {
// Step kt refills stage kt % 4 once its round's consumers released it:
// from the second round on, it waits for the empty barrier's phase of the
// round before, parity (kt / 4 - 1) % 2.
// CHECK:                 scf.for %[[KT:.+]] = %{{.+}} to %[[STEPS]] step
// CHECK:                   %[[PS:.+]] = arith.remui %[[KT]], %c4{{(_[0-9]+)?}} : index
// CHECK:                   %[[REFILL:.+]] = arith.cmpi uge, %[[KT]], %c4{{(_[0-9]+)?}} : index
// CHECK:                   scf.if %[[REFILL]] {
// CHECK:                     %[[ROUND:.+]] = arith.divui %[[KT]], %c4{{(_[0-9]+)?}} : index
// CHECK:                     %[[PAR:.+]] = arith.remui %[[ROUND]], %c2{{(_[0-9]+)?}} : index
// CHECK:                     %[[FLIP:.+]] = arith.xori %[[PAR]], %c1{{(_[0-9]+)?}} : index
// CHECK:                     %[[BIT:.+]] = arith.index_cast %[[FLIP]] : index to i1
// CHECK:                     nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%[[PS]]], %[[BIT]], %{{.+}} :
// CHECK:                   }
// CHECK:                   nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%[[PS]]], %c49152
// CHECK:                   nvgpu.tma.async.load %[[KLMAP]][%{{.+}}, %[[VISIT]]#0, %{{.+}}, %{{.+}}], %[[FULL]][%{{.+}}] to %{{.+}} : {{.+}} -> memref<1x1x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-4:           nvgpu.tma.async.load %[[KRMAP]][%{{.+}}, %{{.+}}, %[[VISIT]]#2, %{{.+}}], %[[FULL]]
// CHECK:             } else {
// The consumers, warpgroups 0 and 1: a 64 x 256 f32 accumulator each.
// CHECK:               %[[DESCMAP:.+]] = builtin.unrealized_conversion_cast %[[KRMAP]] : {{.+}} to !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:               %[[INIT:.+]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x256xf32>>
// Step kt waits for stage kt % 4's round of the full barrier, parity
// (kt / 4) % 2.
// CHECK:               %[[ACC:.+]] = scf.for %[[CKT:[a-z0-9_]+]] = %{{.+}} to %[[STEPS]] step %{{.+}} iter_args(%[[A:.+]] = %[[INIT]])
// CHECK:                 %[[CS:.+]] = arith.remui %[[CKT]], %c4{{(_[0-9]+)?}} : index
// CHECK:                 %[[CROUND:.+]] = arith.divui %[[CKT]], %c4{{(_[0-9]+)?}} : index
// CHECK:                 %[[CPAR:.+]] = arith.remui %[[CROUND]], %c2{{(_[0-9]+)?}} : index
// CHECK:                 %[[CBIT:.+]] = arith.index_cast %[[CPAR]] : index to i1
// CHECK:                 nvgpu.mbarrier.try_wait.parity %[[FULL]][%[[CS]]], %[[CBIT]], %{{.+}} :
// CHECK:                 %[[ADESC:.+]] = nvgpu.warpgroup.generate.descriptor %{{.+}}, %[[KLMAP]] : memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK:                 %[[BDESC:.+]] = nvgpu.warpgroup.generate.descriptor %{{.+}}, %[[DESCMAP]] : memref<64x256xbf16, #gpu.address_space<workgroup>>
// CHECK:                 %[[D:.+]] = nvgpu.warpgroup.mma %[[ADESC]], %[[BDESC]], %[[A]] {transposeB}
// With one group in flight, step kt - 1 is done: the first thread of each
// consumer warpgroup releases its stage.
// CHECK:                 %[[AFTER:.+]] = arith.cmpi ugt, %[[CKT]], %c0{{(_[0-9]+)?}} : index
// CHECK:                 %[[LANE:.+]] = arith.remui %[[TX]], %c128{{(_[0-9]+)?}} : index
// CHECK:                 %[[LEAD:.+]] = arith.cmpi eq, %[[LANE]], %c0{{(_[0-9]+)?}} : index
// CHECK:                 %[[RELEASE:.+]] = arith.andi %[[AFTER]], %[[LEAD]] : i1
// CHECK:                 scf.if %[[RELEASE]] {
// CHECK:                   %[[PREV:.+]] = arith.subi %[[CKT]], %c1{{(_[0-9]+)?}} : index
// CHECK:                   %[[PREVS:.+]] = arith.remui %[[PREV]], %c4{{(_[0-9]+)?}} : index
// CHECK:                   nvgpu.mbarrier.arrive %[[EMPTY]][%[[PREVS]]]
// CHECK:                 }
// CHECK:                 scf.yield %[[D]]
// The epilogue: f32 rows of 260 through shared memory, then 8-element
// (16-byte) bf16 chunks of the visit's rows to the result.
// CHECK:               nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:               nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
// CHECK:               %[[STAGING:.+]] = memref.view %[[BUF]][%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x260xf32, #gpu.address_space<workgroup>>
// CHECK:               %[[FIRST:.+]] = memref.subview %[[STAGING]][0, 0] [64, 256] [1, 1]
// CHECK:               nvgpu.warpgroup.mma.store %[[ACC]], %[[FIRST]]
// CHECK:               nvvm.barrier
// Whole 16-byte chunks where the view starts on a 16-byte boundary and the
// chunk ends inside its columns, else element stores bounded by them.
// CHECK:               %{{.+}}, %[[OFFSET:.+]], %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[OUT]]
// CHECK:               %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:               %[[BYTES:.+]] = arith.muli %[[OFFSET]], %c2{{(_[0-9]+)?}} : index
// CHECK:               %[[ADDR:.+]] = arith.addi %[[PTR]], %[[BYTES]] : index
// CHECK:               %[[MIS:.+]] = arith.remui %[[ADDR]], %c16{{(_[0-9]+)?}} : index
// CHECK:               %[[ALIGNED:.+]] = arith.cmpi eq, %[[MIS]], %c0{{(_[0-9]+)?}} : index
// CHECK:               scf.for %[[I:.+]] = %[[TX]] to %c4096{{(_[0-9]+)?}} step %c256{{(_[0-9]+)?}} {
// CHECK:                 %[[R:.+]] = arith.divui %[[I]], %c32{{(_[0-9]+)?}} : index
// CHECK:                 %[[V:.+]] = vector.load %[[STAGING]][%[[R]], %{{.+}}] {alignment = 16 : i64} : memref<128x260xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK:                 %[[T:.+]] = arith.truncf %[[V]] : vector<8xf32> to vector<8xbf16>
// CHECK:                 %[[WHOLE:.+]] = arith.andi %[[ALIGNED]], %{{.+}} : i1
// CHECK:                 scf.if %[[WHOLE]] {
// CHECK:                   vector.store %[[T]], %[[OUT]][%{{.+}}, %{{.+}}] {alignment = 16 : i64}
// CHECK:                 } else {
// CHECK-COUNT-8:             memref.store %{{.+}}, %[[OUT]][%{{.+}}, %{{.+}}] : memref<?x192xbf16
// CHECK-NOT:       vector.contract
// CHECK-NOT:       vector.transfer_write
// The configuration is gone: the sm_80 passes leave the kernel alone.
// CHECK:         } {gmm.kernel = "tile"}
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @bf16(%arg0: memref<256x128xbf16>, %arg1: memref<2x128x192xbf16>, %arg2: memref<2xi32>) -> memref<256x192xbf16> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c256_i64 = arith.constant 256 : i64
  %cst = arith.constant 0.000000e+00 : bf16
  %c64 = arith.constant 64 : index
  %cst_0 = arith.constant dense<0.000000e+00> : vector<128x256xf32>
  %c0_i64 = arith.constant 0 : i64
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 256, 128] : memref<256x128xbf16> into memref<1x1x256x128xbf16>
  %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 128, 192] : memref<2x128x192xbf16> into memref<1x2x128x192xbf16>
  %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x256x192xbf16>
  %subview = memref.subview %expand_shape_2[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %0 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %4 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
    %5 = arith.extsi %4 : i32 to i64
    %6 = arith.maxsi %5, %c0_i64 : i64
    %7 = arith.minsi %6, %c256_i64 : i64
    %8 = arith.index_cast %7 : i64 to index
    %9 = arith.subi %c256, %arg4 : index
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
    %6 = arith.divui %4, %c128 : index
    %7 = arith.ceildivui %5, %c128 : index
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
  %c6 = arith.constant 6 : index
  %2 = arith.muli %c1_7, %c6 : index
  %c0_8 = arith.constant 0 : index
  %c1_9 = arith.constant 1 : index
  %3 = arith.cmpi ne, %2, %c0_8 : index
  scf.if %3 {
    %c256_10 = arith.constant 256 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %2, %arg10 = %c1_9, %arg11 = %c1_9) threads(%arg6, %arg7, %arg8) in (%arg12 = %c256_10, %arg13 = %c1_9, %arg14 = %c1_9) function(@bf16_tile_128x256x64_w2x4_s4_wgmma) {
      %4 = arith.remui %arg3, %c6 : index
      %5 = arith.divui %arg3, %c6 : index
      %6 = arith.cmpi ult, %4, %1 : index
      %7 = arith.select %6, %c128, %c0 : index
      %8:3 = scf.if %6 -> (index, index, index) {
        %10 = memref.load %alloc_6[%4] : memref<3xindex>
        %11 = memref.load %alloc_5[%4] : memref<3xindex>
        %12 = memref.load %alloc_3[%10] : memref<2xindex>
        %13 = memref.load %alloc_4[%10] : memref<2xindex>
        %14 = arith.muli %11, %c128 : index
        %15 = arith.addi %14, %c128 : index
        %16 = arith.maxsi %14, %12 : index
        %17 = arith.minsi %15, %13 : index
        %18 = arith.subi %17, %16 : index
        %19 = arith.maxsi %18, %c0 : index
        scf.yield %16, %19, %10 : index, index, index
      } else {
        %10 = arith.cmpi uge, %4, %c3 : index
        %11:2 = scf.if %10 -> (index, index) {
          %12 = arith.cmpi sgt, %1, %c0 : index
          %13:2 = scf.if %12 -> (index, index) {
            %26 = memref.load %alloc_6[%c0] : memref<3xindex>
            %27 = arith.subi %1, %c1 : index
            %28 = memref.load %alloc_6[%27] : memref<3xindex>
            %29 = memref.load %alloc_3[%26] : memref<2xindex>
            %30 = memref.load %alloc_4[%28] : memref<2xindex>
            scf.yield %29, %30 : index, index
          } else {
            scf.yield %c256, %c256 : index, index
          }
          %14 = arith.subi %4, %c3 : index
          %15 = arith.ceildivsi %13#0, %c128 : index
          %16 = arith.cmpi slt, %14, %15 : index
          %17 = arith.subi %14, %15 : index
          %18 = arith.muli %14, %c128 : index
          %19 = arith.muli %17, %c128 : index
          %20 = arith.addi %13#1, %19 : index
          %21 = arith.select %16, %18, %20 : index
          %22 = arith.select %16, %13#0, %c256 : index
          %23 = arith.subi %22, %21 : index
          %24 = arith.minsi %23, %c128 : index
          %25 = arith.maxsi %24, %c0 : index
          scf.yield %21, %25 : index, index
        } else {
          scf.yield %c0, %c0 : index, index
        }
        scf.yield %11#0, %11#1, %c0 : index, index, index
      }
      %subview_11 = memref.subview %alloc[0, 0, %8#0, 0] [1, 1, %8#1, 192] [1, 1, 1, 1] : memref<1x1x256x192xbf16> to memref<?x192xbf16, strided<[192, 1], offset: ?>>
      %9 = arith.cmpi sgt, %8#1, %c0 : index
      scf.if %9 {
        %10 = scf.for %arg15 = %c0 to %7 step %c64 iter_args(%arg16 = %cst_0) -> (vector<128x256xf32>) {
          %12 = vector.transfer_read %expand_shape[%c0, %c0, %8#0, %arg15], %cst : memref<1x1x256x128xbf16>, vector<128x64xbf16>
          %13 = vector.transfer_read %expand_shape_1[%c0, %8#2, %arg15, %c0], %cst : memref<1x2x128x192xbf16>, vector<64x256xbf16>
          %14 = arith.extf %12 : vector<128x64xbf16> to vector<128x64xf32>
          %15 = arith.extf %13 : vector<64x256xbf16> to vector<64x256xf32>
          %16 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %14, %15, %arg16 : vector<128x64xf32>, vector<64x256xf32> into vector<128x256xf32>
          scf.yield %16 : vector<128x256xf32>
        }
        %11 = arith.truncf %10 : vector<128x256xf32> to vector<128x256xbf16>
        vector.transfer_write %11, %subview_11[%c0, %c0] : vector<128x256xbf16>, memref<?x192xbf16, strided<[192, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma>}
  }
  %collapse_shape = memref.collapse_shape %alloc [[0, 1, 2], [3]] : memref<1x1x256x192xbf16> into memref<256x192xbf16>
  return %collapse_shape : memref<256x192xbf16>
}


// -----

// Weights [g, n, k]: the rhs is read transposed; the sm_80 kernel, in 2
// stages, with its name.
// CHECK-LABEL: func.func @transposed(
// CHECK-NOT:     nvgpu.
// CHECK:         gpu.launch {{.+}} function(@transposed_tile_128x256x64_w2x4_s2) {
// CHECK:           vector.contract
// CHECK:         } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 2>}
#map = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @transposed(%arg0: memref<256x128xbf16>, %arg1: memref<2x192x128xbf16>, %arg2: memref<2xi32>) -> memref<256x192xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c256_i64 = arith.constant 256 : i64
  %cst = arith.constant 0.000000e+00 : bf16
  %c64 = arith.constant 64 : index
  %cst_0 = arith.constant dense<0.000000e+00> : vector<128x256xf32>
  %c0_i64 = arith.constant 0 : i64
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 256, 128] : memref<256x128xbf16> into memref<1x1x256x128xbf16>
  %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 192, 128] : memref<2x192x128xbf16> into memref<1x2x192x128xbf16>
  %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x256x192xf32>
  %subview = memref.subview %expand_shape_2[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %0 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %4 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
    %5 = arith.extsi %4 : i32 to i64
    %6 = arith.maxsi %5, %c0_i64 : i64
    %7 = arith.minsi %6, %c256_i64 : i64
    %8 = arith.index_cast %7 : i64 to index
    %9 = arith.subi %c256, %arg4 : index
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
    %6 = arith.divui %4, %c128 : index
    %7 = arith.ceildivui %5, %c128 : index
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
  %c6 = arith.constant 6 : index
  %2 = arith.muli %c1_7, %c6 : index
  %c0_8 = arith.constant 0 : index
  %c1_9 = arith.constant 1 : index
  %3 = arith.cmpi ne, %2, %c0_8 : index
  scf.if %3 {
    %c256_10 = arith.constant 256 : index
    // expected-remark @below {{the wgmma kernel does not apply (an operand is read transposed (k-major weights)): the sm_80 kernel runs it}}
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %2, %arg10 = %c1_9, %arg11 = %c1_9) threads(%arg6, %arg7, %arg8) in (%arg12 = %c256_10, %arg13 = %c1_9, %arg14 = %c1_9) function(@transposed_tile_128x256x64_w2x4_s4_wgmma) {
      %4 = arith.remui %arg3, %c6 : index
      %5 = arith.divui %arg3, %c6 : index
      %6 = arith.cmpi ult, %4, %1 : index
      %7 = arith.select %6, %c128, %c0 : index
      %8:3 = scf.if %6 -> (index, index, index) {
        %10 = memref.load %alloc_6[%4] : memref<3xindex>
        %11 = memref.load %alloc_5[%4] : memref<3xindex>
        %12 = memref.load %alloc_3[%10] : memref<2xindex>
        %13 = memref.load %alloc_4[%10] : memref<2xindex>
        %14 = arith.muli %11, %c128 : index
        %15 = arith.addi %14, %c128 : index
        %16 = arith.maxsi %14, %12 : index
        %17 = arith.minsi %15, %13 : index
        %18 = arith.subi %17, %16 : index
        %19 = arith.maxsi %18, %c0 : index
        scf.yield %16, %19, %10 : index, index, index
      } else {
        %10 = arith.cmpi uge, %4, %c3 : index
        %11:2 = scf.if %10 -> (index, index) {
          %12 = arith.cmpi sgt, %1, %c0 : index
          %13:2 = scf.if %12 -> (index, index) {
            %26 = memref.load %alloc_6[%c0] : memref<3xindex>
            %27 = arith.subi %1, %c1 : index
            %28 = memref.load %alloc_6[%27] : memref<3xindex>
            %29 = memref.load %alloc_3[%26] : memref<2xindex>
            %30 = memref.load %alloc_4[%28] : memref<2xindex>
            scf.yield %29, %30 : index, index
          } else {
            scf.yield %c256, %c256 : index, index
          }
          %14 = arith.subi %4, %c3 : index
          %15 = arith.ceildivsi %13#0, %c128 : index
          %16 = arith.cmpi slt, %14, %15 : index
          %17 = arith.subi %14, %15 : index
          %18 = arith.muli %14, %c128 : index
          %19 = arith.muli %17, %c128 : index
          %20 = arith.addi %13#1, %19 : index
          %21 = arith.select %16, %18, %20 : index
          %22 = arith.select %16, %13#0, %c256 : index
          %23 = arith.subi %22, %21 : index
          %24 = arith.minsi %23, %c128 : index
          %25 = arith.maxsi %24, %c0 : index
          scf.yield %21, %25 : index, index
        } else {
          scf.yield %c0, %c0 : index, index
        }
        scf.yield %11#0, %11#1, %c0 : index, index, index
      }
      %subview_11 = memref.subview %alloc[0, 0, %8#0, 0] [1, 1, %8#1, 192] [1, 1, 1, 1] : memref<1x1x256x192xf32> to memref<?x192xf32, strided<[192, 1], offset: ?>>
      %9 = arith.cmpi sgt, %8#1, %c0 : index
      scf.if %9 {
        %10 = scf.for %arg15 = %c0 to %7 step %c64 iter_args(%arg16 = %cst_0) -> (vector<128x256xf32>) {
          %11 = vector.transfer_read %expand_shape[%c0, %c0, %8#0, %arg15], %cst : memref<1x1x256x128xbf16>, vector<128x64xbf16>
          %12 = vector.transfer_read %expand_shape_1[%c0, %8#2, %c0, %arg15], %cst {permutation_map = #map} : memref<1x2x192x128xbf16>, vector<64x256xbf16>
          %13 = arith.extf %11 : vector<128x64xbf16> to vector<128x64xf32>
          %14 = arith.extf %12 : vector<64x256xbf16> to vector<64x256xf32>
          %15 = vector.contract {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %13, %14, %arg16 : vector<128x64xf32>, vector<64x256xf32> into vector<128x256xf32>
          scf.yield %15 : vector<128x256xf32>
        }
        vector.transfer_write %10, %subview_11[%c0, %c0] : vector<128x256xf32>, memref<?x192xf32, strided<[192, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma>}
  }
  %collapse_shape = memref.collapse_shape %alloc [[0, 1, 2], [3]] : memref<1x1x256x192xf32> into memref<256x192xf32>
  return %collapse_shape : memref<256x192xf32>
}


// -----

// An init: the block is added to it before the write.
// CHECK-LABEL: func.func @init(
// CHECK-NOT:     nvgpu.
// CHECK:         gpu.launch {{.+}} function(@init_tile_128x256x64_w2x4_s2) {
// CHECK:           vector.contract
// CHECK:         } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 2>}
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @init(%arg0: memref<256x128xf16>, %arg1: memref<2x128x192xf16>, %arg2: memref<2xi32>, %arg3: memref<256x192xf32>) -> memref<256x192xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c256_i64 = arith.constant 256 : i64
  %c256 = arith.constant 256 : index
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f16
  %c64 = arith.constant 64 : index
  %cst_1 = arith.constant dense<0.000000e+00> : vector<128x256xf32>
  %c0_i64 = arith.constant 0 : i64
  %c128 = arith.constant 128 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 256, 128] : memref<256x128xf16> into memref<1x1x256x128xf16>
  %expand_shape_2 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 128, 192] : memref<2x128x192xf16> into memref<1x2x128x192xf16>
  %expand_shape_3 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
  %expand_shape_4 = memref.expand_shape %arg3 [[0, 1, 2], [3]] output_shape [1, 1, 256, 192] : memref<256x192xf32> into memref<1x1x256x192xf32>
  %subview = memref.subview %expand_shape_3[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %0 = scf.for %arg4 = %c0 to %c2 step %c1 iter_args(%arg5 = %c0) -> (index) {
    %4 = memref.load %subview[%arg4] : memref<2xi32, strided<[1]>>
    %5 = arith.extsi %4 : i32 to i64
    %6 = arith.maxsi %5, %c0_i64 : i64
    %7 = arith.minsi %6, %c256_i64 : i64
    %8 = arith.index_cast %7 : i64 to index
    %9 = arith.subi %c256, %arg5 : index
    %10 = arith.minsi %8, %9 : index
    %11 = arith.addi %arg5, %10 : index
    memref.store %arg5, %alloc[%arg4] : memref<2xindex>
    memref.store %11, %alloc_5[%arg4] : memref<2xindex>
    scf.yield %11 : index
  }
  %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  linalg.fill ins(%c0 : index) outs(%alloc_6 : memref<3xindex>)
  %alloc_7 = memref.alloc() {alignment = 64 : i64} : memref<3xindex>
  memref.copy %alloc_6, %alloc_7 : memref<3xindex> to memref<3xindex>
  %1 = scf.for %arg4 = %c0 to %c2 step %c1 iter_args(%arg5 = %c0) -> (index) {
    %4 = memref.load %alloc[%arg4] : memref<2xindex>
    %5 = memref.load %alloc_5[%arg4] : memref<2xindex>
    %6 = arith.divui %4, %c128 : index
    %7 = arith.ceildivui %5, %c128 : index
    %8 = arith.cmpi eq, %4, %5 : index
    %9 = arith.select %8, %6, %7 : index
    %10 = scf.for %arg6 = %6 to %9 step %c1 iter_args(%arg7 = %arg5) -> (index) {
      %11 = arith.cmpi ult, %arg7, %c3 : index
      %12 = scf.if %11 -> (index) {
        memref.store %arg4, %alloc_7[%arg7] : memref<3xindex>
        memref.store %arg6, %alloc_6[%arg7] : memref<3xindex>
        %13 = arith.addi %arg7, %c1 : index
        scf.yield %13 : index
      } else {
        scf.yield %arg7 : index
      }
      scf.yield %12 : index
    }
    scf.yield %10 : index
  }
  %c1_8 = arith.constant 1 : index
  %c3_9 = arith.constant 3 : index
  %2 = arith.muli %c1_8, %c3_9 : index
  %c0_10 = arith.constant 0 : index
  %c1_11 = arith.constant 1 : index
  %3 = arith.cmpi ne, %2, %c0_10 : index
  scf.if %3 {
    %c256_12 = arith.constant 256 : index
    // expected-remark @below {{the wgmma kernel does not apply (the block is added to an init (accumulation)): the sm_80 kernel runs it}}
    gpu.launch blocks(%arg4, %arg5, %arg6) in (%arg10 = %2, %arg11 = %c1_11, %arg12 = %c1_11) threads(%arg7, %arg8, %arg9) in (%arg13 = %c256_12, %arg14 = %c1_11, %arg15 = %c1_11) function(@init_tile_128x256x64_w2x4_s4_wgmma) {
      %4 = arith.remui %arg4, %c3_9 : index
      %5 = arith.divui %arg4, %c3_9 : index
      %6 = arith.cmpi ult, %4, %1 : index
      %7:3 = scf.if %6 -> (index, index, index) {
        %9 = memref.load %alloc_7[%4] : memref<3xindex>
        %10 = memref.load %alloc_6[%4] : memref<3xindex>
        %11 = memref.load %alloc[%9] : memref<2xindex>
        %12 = memref.load %alloc_5[%9] : memref<2xindex>
        %13 = arith.muli %10, %c128 : index
        %14 = arith.addi %13, %c128 : index
        %15 = arith.maxsi %13, %11 : index
        %16 = arith.minsi %14, %12 : index
        %17 = arith.subi %16, %15 : index
        %18 = arith.maxsi %17, %c0 : index
        scf.yield %15, %18, %9 : index, index, index
      } else {
        scf.yield %c0, %c0, %c0 : index, index, index
      }
      %subview_13 = memref.subview %expand_shape_4[0, 0, %7#0, 0] [1, 1, %7#1, 192] [1, 1, 1, 1] : memref<1x1x256x192xf32> to memref<?x192xf32, strided<[192, 1], offset: ?>>
      %8 = arith.cmpi sgt, %7#1, %c0 : index
      scf.if %8 {
        %9 = scf.for %arg16 = %c0 to %c128 step %c64 iter_args(%arg17 = %cst_1) -> (vector<128x256xf32>) {
          %12 = vector.transfer_read %expand_shape[%c0, %c0, %7#0, %arg16], %cst_0 : memref<1x1x256x128xf16>, vector<128x64xf16>
          %13 = vector.transfer_read %expand_shape_2[%c0, %7#2, %arg16, %c0], %cst_0 : memref<1x2x128x192xf16>, vector<64x256xf16>
          %14 = arith.extf %12 : vector<128x64xf16> to vector<128x64xf32>
          %15 = arith.extf %13 : vector<64x256xf16> to vector<64x256xf32>
          %16 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %14, %15, %arg17 : vector<128x64xf32>, vector<64x256xf32> into vector<128x256xf32>
          scf.yield %16 : vector<128x256xf32>
        }
        %10 = vector.transfer_read %subview_13[%c0, %c0], %cst : memref<?x192xf32, strided<[192, 1], offset: ?>>, vector<128x256xf32>
        %11 = arith.addf %9, %10 : vector<128x256xf32>
        vector.transfer_write %11, %subview_13[%c0, %c0] : vector<128x256xf32>, memref<?x192xf32, strided<[192, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma>}
  }
  return %arg3 : memref<256x192xf32>
}


// -----

// k = 100: rows of 200 bytes, which TMA's 16-byte strides cannot step.
// CHECK-LABEL: func.func @odd_k(
// CHECK-NOT:     nvgpu.
// CHECK:         gpu.launch {{.+}} function(@odd_k_tile_128x256x64_w2x4_s2) {
// CHECK:           vector.contract
// CHECK:         } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 2>}
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @odd_k(%arg0: memref<256x100xbf16>, %arg1: memref<2x100x192xbf16>, %arg2: memref<2xi32>) -> memref<256x192xf32> {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c256_i64 = arith.constant 256 : i64
  %cst = arith.constant 0.000000e+00 : bf16
  %c64 = arith.constant 64 : index
  %cst_0 = arith.constant dense<0.000000e+00> : vector<128x256xf32>
  %c0_i64 = arith.constant 0 : i64
  %c128 = arith.constant 128 : index
  %c100 = arith.constant 100 : index
  %c256 = arith.constant 256 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 256, 100] : memref<256x100xbf16> into memref<1x1x256x100xbf16>
  %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 100, 192] : memref<2x100x192xbf16> into memref<1x2x100x192xbf16>
  %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x256x192xf32>
  %subview = memref.subview %expand_shape_2[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %0 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %4 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
    %5 = arith.extsi %4 : i32 to i64
    %6 = arith.maxsi %5, %c0_i64 : i64
    %7 = arith.minsi %6, %c256_i64 : i64
    %8 = arith.index_cast %7 : i64 to index
    %9 = arith.subi %c256, %arg4 : index
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
    %6 = arith.divui %4, %c128 : index
    %7 = arith.ceildivui %5, %c128 : index
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
  %c6 = arith.constant 6 : index
  %2 = arith.muli %c1_7, %c6 : index
  %c0_8 = arith.constant 0 : index
  %c1_9 = arith.constant 1 : index
  %3 = arith.cmpi ne, %2, %c0_8 : index
  scf.if %3 {
    %c256_10 = arith.constant 256 : index
    // expected-remark @below {{the wgmma kernel does not apply (an operand's rows are not whole 16-byte chunks (TMA's strides)): the sm_80 kernel runs it}}
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %2, %arg10 = %c1_9, %arg11 = %c1_9) threads(%arg6, %arg7, %arg8) in (%arg12 = %c256_10, %arg13 = %c1_9, %arg14 = %c1_9) function(@odd_k_tile_128x256x64_w2x4_s4_wgmma) {
      %4 = arith.remui %arg3, %c6 : index
      %5 = arith.divui %arg3, %c6 : index
      %6 = arith.cmpi ult, %4, %1 : index
      %7 = arith.select %6, %c100, %c0 : index
      %8:3 = scf.if %6 -> (index, index, index) {
        %10 = memref.load %alloc_6[%4] : memref<3xindex>
        %11 = memref.load %alloc_5[%4] : memref<3xindex>
        %12 = memref.load %alloc_3[%10] : memref<2xindex>
        %13 = memref.load %alloc_4[%10] : memref<2xindex>
        %14 = arith.muli %11, %c128 : index
        %15 = arith.addi %14, %c128 : index
        %16 = arith.maxsi %14, %12 : index
        %17 = arith.minsi %15, %13 : index
        %18 = arith.subi %17, %16 : index
        %19 = arith.maxsi %18, %c0 : index
        scf.yield %16, %19, %10 : index, index, index
      } else {
        %10 = arith.cmpi uge, %4, %c3 : index
        %11:2 = scf.if %10 -> (index, index) {
          %12 = arith.cmpi sgt, %1, %c0 : index
          %13:2 = scf.if %12 -> (index, index) {
            %26 = memref.load %alloc_6[%c0] : memref<3xindex>
            %27 = arith.subi %1, %c1 : index
            %28 = memref.load %alloc_6[%27] : memref<3xindex>
            %29 = memref.load %alloc_3[%26] : memref<2xindex>
            %30 = memref.load %alloc_4[%28] : memref<2xindex>
            scf.yield %29, %30 : index, index
          } else {
            scf.yield %c256, %c256 : index, index
          }
          %14 = arith.subi %4, %c3 : index
          %15 = arith.ceildivsi %13#0, %c128 : index
          %16 = arith.cmpi slt, %14, %15 : index
          %17 = arith.subi %14, %15 : index
          %18 = arith.muli %14, %c128 : index
          %19 = arith.muli %17, %c128 : index
          %20 = arith.addi %13#1, %19 : index
          %21 = arith.select %16, %18, %20 : index
          %22 = arith.select %16, %13#0, %c256 : index
          %23 = arith.subi %22, %21 : index
          %24 = arith.minsi %23, %c128 : index
          %25 = arith.maxsi %24, %c0 : index
          scf.yield %21, %25 : index, index
        } else {
          scf.yield %c0, %c0 : index, index
        }
        scf.yield %11#0, %11#1, %c0 : index, index, index
      }
      %subview_11 = memref.subview %alloc[0, 0, %8#0, 0] [1, 1, %8#1, 192] [1, 1, 1, 1] : memref<1x1x256x192xf32> to memref<?x192xf32, strided<[192, 1], offset: ?>>
      %9 = arith.cmpi sgt, %8#1, %c0 : index
      scf.if %9 {
        %10 = scf.for %arg15 = %c0 to %7 step %c64 iter_args(%arg16 = %cst_0) -> (vector<128x256xf32>) {
          %11 = vector.transfer_read %expand_shape[%c0, %c0, %8#0, %arg15], %cst : memref<1x1x256x100xbf16>, vector<128x64xbf16>
          %12 = vector.transfer_read %expand_shape_1[%c0, %8#2, %arg15, %c0], %cst : memref<1x2x100x192xbf16>, vector<64x256xbf16>
          %13 = arith.extf %11 : vector<128x64xbf16> to vector<128x64xf32>
          %14 = arith.extf %12 : vector<64x256xbf16> to vector<64x256xf32>
          %15 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %13, %14, %arg16 : vector<128x64xf32>, vector<64x256xf32> into vector<128x256xf32>
          scf.yield %15 : vector<128x256xf32>
        }
        vector.transfer_write %10, %subview_11[%c0, %c0] : vector<128x256xf32>, memref<?x192xf32, strided<[192, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma>}
  }
  %collapse_shape = memref.collapse_shape %alloc [[0, 1, 2], [3]] : memref<1x1x256x192xf32> into memref<256x192xf32>
  return %collapse_shape : memref<256x192xf32>
}


// -----

// A dynamic token count.
// CHECK-LABEL: func.func @dynamic(
// CHECK-NOT:     nvgpu.
// CHECK:         gpu.launch {{.+}} function(@dynamic_tile_128x256x64_w2x4_s2) {
// CHECK:           vector.contract
// CHECK:         } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 2>}
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @dynamic(%arg0: memref<?x128xbf16>, %arg1: memref<2x128x192xbf16>, %arg2: memref<2xi32>) -> memref<?x192xf32> {
  %cst = arith.constant 0.000000e+00 : bf16
  %c64 = arith.constant 64 : index
  %cst_0 = arith.constant dense<0.000000e+00> : vector<128x256xf32>
  %c1152921504606846975 = arith.constant 1152921504606846975 : index
  %c0_i64 = arith.constant 0 : i64
  %c128 = arith.constant 128 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %dim = memref.dim %arg0, %c0 : memref<?x128xbf16>
  %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, %dim, 128] : memref<?x128xbf16> into memref<1x1x?x128xbf16>
  %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 128, 192] : memref<2x128x192xbf16> into memref<1x2x128x192xbf16>
  %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
  %dim_3 = memref.dim %expand_shape, %c2 : memref<1x1x?x128xbf16>
  %alloc = memref.alloc(%dim_3) {alignment = 64 : i64} : memref<1x1x?x192xf32>
  %subview = memref.subview %expand_shape_2[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
  %0 = arith.maxsi %dim_3, %c0 : index
  %1 = arith.index_cast %0 : index to i64
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
  %2 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %19 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
    %20 = arith.extsi %19 : i32 to i64
    %21 = arith.maxsi %20, %c0_i64 : i64
    %22 = arith.minsi %21, %1 : i64
    %23 = arith.index_cast %22 : i64 to index
    %24 = arith.subi %0, %arg4 : index
    %25 = arith.minsi %23, %24 : index
    %26 = arith.addi %arg4, %25 : index
    memref.store %arg4, %alloc_4[%arg3] : memref<2xindex>
    memref.store %26, %alloc_5[%arg3] : memref<2xindex>
    scf.yield %26 : index
  }
  %3 = arith.ceildivsi %0, %c128 : index
  %4 = arith.minsi %0, %c2 : index
  %5 = arith.subi %4, %c1 : index
  %6 = arith.subi %0, %5 : index
  %7 = arith.cmpi sgt, %3, %6 : index
  %8 = arith.addi %3, %5 : index
  %9 = arith.select %7, %0, %8 : index
  %10 = arith.cmpi sle, %3, %c0 : index
  %11 = arith.select %10, %c0, %9 : index
  %12 = arith.minsi %11, %c1152921504606846975 : index
  %alloc_6 = memref.alloc(%12) {alignment = 64 : i64} : memref<?xindex>
  linalg.fill ins(%c0 : index) outs(%alloc_6 : memref<?xindex>)
  %alloc_7 = memref.alloc(%12) {alignment = 64 : i64} : memref<?xindex>
  memref.copy %alloc_6, %alloc_7 : memref<?xindex> to memref<?xindex>
  %alloc_8 = memref.alloc(%12) {alignment = 64 : i64} : memref<?xindex>
  memref.copy %alloc_6, %alloc_8 : memref<?xindex> to memref<?xindex>
  %13 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
    %19 = memref.load %alloc_4[%arg3] : memref<2xindex>
    %20 = memref.load %alloc_5[%arg3] : memref<2xindex>
    %21 = arith.divui %19, %c128 : index
    %22 = arith.ceildivui %20, %c128 : index
    %23 = arith.cmpi eq, %19, %20 : index
    %24 = arith.select %23, %21, %22 : index
    %25 = scf.for %arg5 = %21 to %24 step %c1 iter_args(%arg6 = %arg4) -> (index) {
      %26 = arith.cmpi ult, %arg6, %12 : index
      %27 = scf.if %26 -> (index) {
        memref.store %arg3, %alloc_7[%arg6] : memref<?xindex>
        memref.store %arg5, %alloc_8[%arg6] : memref<?xindex>
        %28 = arith.addi %arg6, %c1 : index
        scf.yield %28 : index
      } else {
        scf.yield %arg6 : index
      }
      scf.yield %27 : index
    }
    scf.yield %25 : index
  }
  %14 = arith.ceildivsi %dim_3, %c128 : index
  %15 = arith.addi %14, %c1 : index
  %16 = arith.addi %12, %15 : index
  %c1_9 = arith.constant 1 : index
  %17 = arith.muli %c1_9, %16 : index
  %c0_10 = arith.constant 0 : index
  %c1_11 = arith.constant 1 : index
  %18 = arith.cmpi ne, %17, %c0_10 : index
  scf.if %18 {
    %c256 = arith.constant 256 : index
    // expected-remark @below {{the wgmma kernel does not apply (an operand has a dynamic shape or a strided layout): the sm_80 kernel runs it}}
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %17, %arg10 = %c1_11, %arg11 = %c1_11) threads(%arg6, %arg7, %arg8) in (%arg12 = %c256, %arg13 = %c1_11, %arg14 = %c1_11) function(@dynamic_tile_128x256x64_w2x4_s4_wgmma) {
      %19 = arith.remui %arg3, %16 : index
      %20 = arith.divui %arg3, %16 : index
      %21 = arith.cmpi ult, %19, %13 : index
      %22 = arith.select %21, %c128, %c0 : index
      %23:3 = scf.if %21 -> (index, index, index) {
        %25 = memref.load %alloc_7[%19] : memref<?xindex>
        %26 = memref.load %alloc_8[%19] : memref<?xindex>
        %27 = memref.load %alloc_4[%25] : memref<2xindex>
        %28 = memref.load %alloc_5[%25] : memref<2xindex>
        %29 = arith.muli %26, %c128 : index
        %30 = arith.addi %29, %c128 : index
        %31 = arith.maxsi %29, %27 : index
        %32 = arith.minsi %30, %28 : index
        %33 = arith.subi %32, %31 : index
        %34 = arith.maxsi %33, %c0 : index
        scf.yield %31, %34, %25 : index, index, index
      } else {
        %25 = arith.cmpi uge, %19, %12 : index
        %26:2 = scf.if %25 -> (index, index) {
          %27 = arith.cmpi sgt, %13, %c0 : index
          %28:2 = scf.if %27 -> (index, index) {
            %41 = memref.load %alloc_7[%c0] : memref<?xindex>
            %42 = arith.subi %13, %c1 : index
            %43 = memref.load %alloc_7[%42] : memref<?xindex>
            %44 = memref.load %alloc_4[%41] : memref<2xindex>
            %45 = memref.load %alloc_5[%43] : memref<2xindex>
            scf.yield %44, %45 : index, index
          } else {
            scf.yield %dim_3, %dim_3 : index, index
          }
          %29 = arith.subi %19, %12 : index
          %30 = arith.ceildivsi %28#0, %c128 : index
          %31 = arith.cmpi slt, %29, %30 : index
          %32 = arith.subi %29, %30 : index
          %33 = arith.muli %29, %c128 : index
          %34 = arith.muli %32, %c128 : index
          %35 = arith.addi %28#1, %34 : index
          %36 = arith.select %31, %33, %35 : index
          %37 = arith.select %31, %28#0, %dim_3 : index
          %38 = arith.subi %37, %36 : index
          %39 = arith.minsi %38, %c128 : index
          %40 = arith.maxsi %39, %c0 : index
          scf.yield %36, %40 : index, index
        } else {
          scf.yield %c0, %c0 : index, index
        }
        scf.yield %26#0, %26#1, %c0 : index, index, index
      }
      %subview_12 = memref.subview %alloc[0, 0, %23#0, 0] [1, 1, %23#1, 192] [1, 1, 1, 1] : memref<1x1x?x192xf32> to memref<?x192xf32, strided<[192, 1], offset: ?>>
      %24 = arith.cmpi sgt, %23#1, %c0 : index
      scf.if %24 {
        %25 = scf.for %arg15 = %c0 to %22 step %c64 iter_args(%arg16 = %cst_0) -> (vector<128x256xf32>) {
          %26 = vector.transfer_read %expand_shape[%c0, %c0, %23#0, %arg15], %cst : memref<1x1x?x128xbf16>, vector<128x64xbf16>
          %27 = vector.transfer_read %expand_shape_1[%c0, %23#2, %arg15, %c0], %cst : memref<1x2x128x192xbf16>, vector<64x256xbf16>
          %28 = arith.extf %26 : vector<128x64xbf16> to vector<128x64xf32>
          %29 = arith.extf %27 : vector<64x256xbf16> to vector<64x256xf32>
          %30 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %28, %29, %arg16 : vector<128x64xf32>, vector<64x256xf32> into vector<128x256xf32>
          scf.yield %30 : vector<128x256xf32>
        }
        vector.transfer_write %25, %subview_12[%c0, %c0] : vector<128x256xf32>, memref<?x192xf32, strided<[192, 1], offset: ?>>
      }
      gpu.terminator
    } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma>}
  }
  %collapse_shape = memref.collapse_shape %alloc [[0, 1, 2], [3]] : memref<1x1x?x192xf32> into memref<?x192xf32>
  return %collapse_shape : memref<?x192xf32>
}

// -----

// An f32 result: the epilogue stores straight from the registers. Thread t
// of consumer c holds rows 64 c + 16 (t / 32 % 4) + t % 32 / 4 (+ 8) and
// columns 2 (t % 4) + 8 i (+ 1) of the accumulator, stored a pair (8
// bytes) at a time, with no shared memory and no barrier; pairs are
// aligned where the view's start is.
// CHECK-LABEL: func.func @f32_result(
// CHECK:         gpu.launch blocks({{.+}}) in ({{.+}}) threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in {{.+}} function(@f32_result_tile_128x256x64_w2x4_s4_wgmma_r8) {
// CHECK:           %[[VISIT:[a-z0-9_]+]]:3 = scf.if
// CHECK:           %[[OUT:[a-z0-9_]+]] = memref.subview %{{.+}}[0, 0, %[[VISIT]]#0, 0] [1, 1, %[[VISIT]]#1, 192]
// CHECK:             %[[WG:.+]] = arith.divui %[[TX]], %c128{{(_[0-9]+)?}} : index
// CHECK:               %[[ACC:.+]] = scf.for
// CHECK:               nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:           nvvm.barrier
// CHECK-NOT:           nvgpu.warpgroup.mma.store
// CHECK:               %{{.+}}, %[[OFFSET:.+]], %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[OUT]]
// CHECK:               %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:               %[[BYTES:.+]] = arith.muli %[[OFFSET]], %c4{{(_[0-9]+)?}} : index
// CHECK:               %[[ADDR:.+]] = arith.addi %[[PTR]], %[[BYTES]] : index
// CHECK:               %[[MIS:.+]] = arith.remui %[[ADDR]], %c8{{(_[0-9]+)?}} : index
// CHECK:               %[[ALIGNED:.+]] = arith.cmpi eq, %[[MIS]], %c0{{(_[0-9]+)?}} : index
// CHECK:               %[[LANE:.+]] = arith.remui %[[TX]], %c32{{(_[0-9]+)?}} : index
// CHECK:               %[[W:.+]] = arith.divui %[[TX]], %c32{{(_[0-9]+)?}} : index
// CHECK:               %[[WARP:.+]] = arith.remui %[[W]], %c4{{(_[0-9]+)?}} : index
// CHECK:               %[[CROWS:.+]] = arith.muli %[[WG]], %c64{{(_[0-9]+)?}} : index
// CHECK:               %[[WROWS:.+]] = arith.muli %[[WARP]], %c16{{(_[0-9]+)?}} : index
// CHECK:               %[[LROW:.+]] = arith.divui %[[LANE]], %c4{{(_[0-9]+)?}} : index
// CHECK:               %[[R1:.+]] = arith.addi %[[WROWS]], %[[LROW]] : index
// CHECK:               %[[ROW:.+]] = arith.addi %[[CROWS]], %[[R1]] : index
// CHECK:               %[[LCOL:.+]] = arith.remui %[[LANE]], %c4{{(_[0-9]+)?}} : index
// CHECK:               %[[COL:.+]] = arith.muli %[[LCOL]], %c2{{(_[0-9]+)?}} : index
// CHECK:               %[[FRAGS:.+]] = builtin.unrealized_conversion_cast %[[ACC]] : !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>> to !llvm.struct<(struct<(f32, {{.+}})>)>
// CHECK:               %[[VALUES:.+]] = llvm.extractvalue %[[FRAGS]][0]
// CHECK:               %[[E0:.+]] = llvm.extractvalue %[[VALUES]][0]
// CHECK:               %[[E1:.+]] = llvm.extractvalue %[[VALUES]][1]
// CHECK:               %[[P0:.+]] = vector.from_elements %[[E0]], %[[E1]] : vector<2xf32>
// CHECK:               %[[E2:.+]] = llvm.extractvalue %[[VALUES]][2]
// CHECK:               %[[E3:.+]] = llvm.extractvalue %[[VALUES]][3]
// CHECK:               %[[P1:.+]] = vector.from_elements %[[E2]], %[[E3]] : vector<2xf32>
// CHECK:               %[[E4:.+]] = llvm.extractvalue %[[VALUES]][4]
// CHECK:               %[[E5:.+]] = llvm.extractvalue %[[VALUES]][5]
// CHECK:               %[[P2:.+]] = vector.from_elements %[[E4]], %[[E5]] : vector<2xf32>
// CHECK-COUNT-61:      vector.from_elements
// CHECK-NOT:           vector.from_elements
// The whole block inside the view (here never: 192 columns): unchecked.
// CHECK:               %[[ROWSIN:.+]] = arith.cmpi sle, %c128{{(_[0-9]+)?}}, %[[VISIT]]#1 : index
// CHECK:               %[[COLSIN:.+]] = arith.cmpi sle, %c256{{(_[0-9]+)?}}, %c192{{(_[0-9]+)?}} : index
// CHECK:               %[[IN:.+]] = arith.andi %[[ROWSIN]], %[[COLSIN]] : i1
// CHECK:               %[[FAST:.+]] = arith.andi %[[ALIGNED]], %[[IN]] : i1
// CHECK:               scf.if %[[FAST]] {
// CHECK:                 vector.store %[[P0]], %[[OUT]][%[[ROW]], %[[COL]]] {alignment = 8 : i64}
// Registers 2 and 3: eight rows further; 4 and 5: eight columns further.
// CHECK:                 %[[ROW8:.+]] = arith.addi %[[ROW]], %c8{{(_[0-9]+)?}} : index
// CHECK:                 vector.store %[[P1]], %[[OUT]][%[[ROW8]], %[[COL]]] {alignment = 8 : i64}
// CHECK:                 %[[COL8:.+]] = arith.addi %[[COL]], %c8{{(_[0-9]+)?}} : index
// CHECK:                 vector.store %[[P2]], %[[OUT]][%[[ROW]], %[[COL8]]] {alignment = 8 : i64}
// CHECK-COUNT-61:        vector.store
// CHECK-NOT:             vector.store
// Else each pair is checked against the view's rows and columns; a view
// whose start is not pair-aligned gets element stores.
// CHECK:               } else {
// CHECK:                 %[[RIN:.+]] = arith.cmpi slt, %[[ROW]], %[[VISIT]]#1 : index
// CHECK:                 %[[CIN:.+]] = arith.cmpi slt, %[[COL]], %c192{{(_[0-9]+)?}} : index
// CHECK:                 %[[INSIDE:.+]] = arith.andi %[[RIN]], %[[CIN]] : i1
// CHECK:                 scf.if %[[INSIDE]] {
// CHECK:                   %[[END:.+]] = arith.addi %[[COL]], %c2{{(_[0-9]+)?}} : index
// CHECK:                   %[[FITS:.+]] = arith.cmpi sle, %[[END]], %c192{{(_[0-9]+)?}} : index
// CHECK:                   %[[PAIR:.+]] = arith.andi %[[ALIGNED]], %[[FITS]] : i1
// CHECK:                   scf.if %[[PAIR]] {
// CHECK:                     vector.store %[[P0]], %[[OUT]][%[[ROW]], %[[COL]]] {alignment = 8 : i64}
// CHECK:                   } else {
// CHECK-COUNT-2:               memref.store %{{.+}}, %[[OUT]][%[[ROW]], %{{.+}}] : memref<?x192xf32
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @f32_result(%arg0: memref<256x128xbf16>, %arg1: memref<2x128x192xbf16>, %arg2: memref<2xi32>) -> memref<256x192xf32> {
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c256_i64 = arith.constant 256 : i64
    %cst = arith.constant 0.000000e+00 : bf16
    %c64 = arith.constant 64 : index
    %cst_0 = arith.constant dense<0.000000e+00> : vector<128x256xf32>
    %c0_i64 = arith.constant 0 : i64
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %expand_shape = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 256, 128] : memref<256x128xbf16> into memref<1x1x256x128xbf16>
    %expand_shape_1 = memref.expand_shape %arg1 [[0, 1], [2], [3]] output_shape [1, 2, 128, 192] : memref<2x128x192xbf16> into memref<1x2x128x192xbf16>
    %expand_shape_2 = memref.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 2] : memref<2xi32> into memref<1x1x2xi32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x256x192xf32>
    %subview = memref.subview %expand_shape_2[0, 0, 0] [1, 1, 2] [1, 1, 1] : memref<1x1x2xi32> to memref<2xi32, strided<[1]>>
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<2xindex>
    %0 = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %c0) -> (index) {
      %4 = memref.load %subview[%arg3] : memref<2xi32, strided<[1]>>
      %5 = arith.extsi %4 : i32 to i64
      %6 = arith.maxsi %5, %c0_i64 : i64
      %7 = arith.minsi %6, %c256_i64 : i64
      %8 = arith.index_cast %7 : i64 to index
      %9 = arith.subi %c256, %arg4 : index
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
      %6 = arith.divui %4, %c128 : index
      %7 = arith.ceildivui %5, %c128 : index
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
    %c6 = arith.constant 6 : index
    %2 = arith.muli %c1_7, %c6 : index
    %c0_8 = arith.constant 0 : index
    %c1_9 = arith.constant 1 : index
    %3 = arith.cmpi ne, %2, %c0_8 : index
    scf.if %3 {
      %c256_10 = arith.constant 256 : index
      gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %2, %arg10 = %c1_9, %arg11 = %c1_9) threads(%arg6, %arg7, %arg8) in (%arg12 = %c256_10, %arg13 = %c1_9, %arg14 = %c1_9) function(@f32_result_tile_128x256x64_w2x4_s4_wgmma_r8) {
        %4 = arith.muli %c1_7, %c6 : index
        %5 = arith.remui %arg3, %4 : index
        %c8 = arith.constant 8 : index
        %6 = arith.muli %c8, %c1_7 : index
        %7 = arith.divui %5, %6 : index
        %8 = arith.remui %5, %6 : index
        %9 = arith.muli %7, %c8 : index
        %10 = arith.subi %c6, %9 : index
        %11 = arith.minui %c8, %10 : index
        %12 = arith.remui %8, %11 : index
        %13 = arith.addi %9, %12 : index
        %14 = arith.divui %8, %11 : index
        %15 = arith.cmpi ult, %13, %1 : index
        %16 = arith.select %15, %c128, %c0 : index
        %17:3 = scf.if %15 -> (index, index, index) {
          %19 = memref.load %alloc_6[%13] : memref<3xindex>
          %20 = memref.load %alloc_5[%13] : memref<3xindex>
          %21 = memref.load %alloc_3[%19] : memref<2xindex>
          %22 = memref.load %alloc_4[%19] : memref<2xindex>
          %23 = arith.muli %20, %c128 : index
          %24 = arith.addi %23, %c128 : index
          %25 = arith.maxsi %23, %21 : index
          %26 = arith.minsi %24, %22 : index
          %27 = arith.subi %26, %25 : index
          %28 = arith.maxsi %27, %c0 : index
          scf.yield %25, %28, %19 : index, index, index
        } else {
          %19 = arith.cmpi uge, %13, %c3 : index
          %20:2 = scf.if %19 -> (index, index) {
            %21 = arith.cmpi sgt, %1, %c0 : index
            %22:2 = scf.if %21 -> (index, index) {
              %35 = memref.load %alloc_6[%c0] : memref<3xindex>
              %36 = arith.subi %1, %c1 : index
              %37 = memref.load %alloc_6[%36] : memref<3xindex>
              %38 = memref.load %alloc_3[%35] : memref<2xindex>
              %39 = memref.load %alloc_4[%37] : memref<2xindex>
              scf.yield %38, %39 : index, index
            } else {
              scf.yield %c256, %c256 : index, index
            }
            %23 = arith.subi %13, %c3 : index
            %24 = arith.ceildivsi %22#0, %c128 : index
            %25 = arith.cmpi slt, %23, %24 : index
            %26 = arith.subi %23, %24 : index
            %27 = arith.muli %23, %c128 : index
            %28 = arith.muli %26, %c128 : index
            %29 = arith.addi %22#1, %28 : index
            %30 = arith.select %25, %27, %29 : index
            %31 = arith.select %25, %22#0, %c256 : index
            %32 = arith.subi %31, %30 : index
            %33 = arith.minsi %32, %c128 : index
            %34 = arith.maxsi %33, %c0 : index
            scf.yield %30, %34 : index, index
          } else {
            scf.yield %c0, %c0 : index, index
          }
          scf.yield %20#0, %20#1, %c0 : index, index, index
        }
        %subview_11 = memref.subview %alloc[0, 0, %17#0, 0] [1, 1, %17#1, 192] [1, 1, 1, 1] : memref<1x1x256x192xf32> to memref<?x192xf32, strided<[192, 1], offset: ?>>
        %18 = arith.cmpi sgt, %17#1, %c0 : index
        scf.if %18 {
          %19 = scf.for %arg15 = %c0 to %16 step %c64 iter_args(%arg16 = %cst_0) -> (vector<128x256xf32>) {
            %20 = vector.transfer_read %expand_shape[%c0, %c0, %17#0, %arg15], %cst : memref<1x1x256x128xbf16>, vector<128x64xbf16>
            %21 = vector.transfer_read %expand_shape_1[%c0, %17#2, %arg15, %c0], %cst : memref<1x2x128x192xbf16>, vector<64x256xbf16>
            %22 = arith.extf %20 : vector<128x64xbf16> to vector<128x64xf32>
            %23 = arith.extf %21 : vector<64x256xbf16> to vector<64x256xf32>
            %24 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %22, %23, %arg16 : vector<128x64xf32>, vector<64x256xf32> into vector<128x256xf32>
            scf.yield %24 : vector<128x256xf32>
          }
          vector.transfer_write %19, %subview_11[%c0, %c0] : vector<128x256xf32>, memref<?x192xf32, strided<[192, 1], offset: ?>>
        }
        gpu.terminator
      } {gmm.kernel = "tile", gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>}
    }
    %collapse_shape = memref.collapse_shape %alloc [[0, 1, 2], [3]] : memref<1x1x256x192xf32> into memref<256x192xf32>
    return %collapse_shape : memref<256x192xf32>
  }
}
