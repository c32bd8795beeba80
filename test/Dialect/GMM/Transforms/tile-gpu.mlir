// RUN: gmm-opt %s -split-input-file -gmm-tile -canonicalize -cse | FileCheck %s

// The register-block tile program of a GPU configuration (what
// gmm-map-to-gpu maps onto blocks, warps and shared memory), with 8 x 32
// tiles and k steps of 8 written on the ops (the GPU heuristic's 128 x 128
// blocks would make the checks unreadable; gmm-tile checks only the tile
// bounds, so sizes no CUDA block takes still show the program's shape);
// the CPU's packed program is in tile-cpu.mlir.

// Mode 1, 8 x 32 tiles, k step 8: a schedule for the
// only row of group sizes, then a forall over (n-tile, visit). A visit
// reads its rows from the schedule, anchors its 8 x 32 block at the first
// row of its group inside the m-tile, contracts over k, and writes only the
// rows of its group (the slice has `rows` rows; the block write is masked).

// CHECK-LABEL: func.func @mode1
// CHECK-SAME:    %[[LHS:[a-z0-9]+]]: tensor<1x1x20x10xf32>, %[[RHS:[a-z0-9]+]]: tensor<1x3x10x37xf32>, %[[GS:[a-z0-9]+]]: tensor<1x1x3xi32>
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[C10:.+]] = arith.constant 10 : index
// CHECK-DAG:     %[[C20:.+]] = arith.constant 20 : index
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG:     %[[C37:.+]] = arith.constant 37 : index
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// No fill of the result: fill visits after the scheduled ones zero the
// rows that no visit covers, [0, P) and [S, 20), ceil(20 / 8) + 1 = 4 of
// them; a fill visit has no k steps.
// CHECK-NOT:     linalg.fill
// CHECK:         %[[EMPTY:.+]] = tensor.empty() : tensor<1x1x20x37xf32>
// CHECK:         %[[ROW:.+]] = tensor.extract_slice %[[GS]][0, 0, 0] [1, 1, 3] [1, 1, 1] : tensor<1x1x3xi32> to tensor<3xi32>
// CHECK:         %[[NV:.+]], %[[GIDS:.+]], %[[TIDS:.+]], %[[STARTS:.+]], %[[ENDS:.+]] = gmm.tile_schedule %[[ROW]] extent(%[[C20]]) local_groups(%[[C3]]) tile_size = 8
// CHECK:         %[[MAXV:.+]] = tensor.dim %[[GIDS]], %[[C0]]
// CHECK:         %[[ALL:.+]] = arith.addi %[[MAXV]], %[[C4]] : index
// CHECK:         scf.forall (%[[NT:.+]], %[[V:.+]]) in (2, %[[ALL]]) shared_outs(%[[OUT:.+]] = %[[EMPTY]])
// CHECK:           %[[VALID:.+]] = arith.cmpi ult, %[[V]], %[[NV]] : index
// CHECK:           %[[KEND:.+]] = arith.select %[[VALID]], %[[C10]], %[[C0]] : index
// CHECK:           %[[R:.+]]:3 = scf.if %[[VALID]] -> (index, index, index)
// CHECK:             %[[G:.+]] = tensor.extract %[[GIDS]][%[[V]]]
// CHECK:             %[[T:.+]] = tensor.extract %[[TIDS]][%[[V]]]
// CHECK:             %[[S:.+]] = tensor.extract %[[STARTS]][%[[G]]]
// CHECK:             %[[E:.+]] = tensor.extract %[[ENDS]][%[[G]]]
// CHECK:             %[[T0:.+]] = arith.muli %[[T]], %[[C8]]
// CHECK:             %[[T1:.+]] = arith.addi %[[T0]], %[[C8]]
// CHECK:             %[[FIRST:.+]] = arith.maxsi %[[T0]], %[[S]]
// CHECK:             %[[LAST:.+]] = arith.minsi %[[T1]], %[[E]]
// CHECK:             %[[DIFF:.+]] = arith.subi %[[LAST]], %[[FIRST]]
// CHECK:             %[[ROWS:.+]] = arith.maxsi %[[DIFF]], %[[C0]]
// CHECK:             scf.yield %[[FIRST]], %[[ROWS]], %[[G]]
// CHECK:           } else {
// A fill visit (at or after the lists' size): P is the first visit's group
// start and S the last visit's group end (both 20 without visits).
// CHECK:             %[[ISFILL:.+]] = arith.cmpi uge, %[[V]], %[[MAXV]] : index
// CHECK:             %[[FR:.+]]:2 = scf.if %[[ISFILL]] -> (index, index) {
// CHECK:               %[[ANY:.+]] = arith.cmpi sgt, %[[NV]], %[[C0]] : index
// CHECK:               %[[PS:.+]]:2 = scf.if %[[ANY]] -> (index, index) {
// CHECK:                 %[[G0:.+]] = tensor.extract %[[GIDS]][%[[C0]]]
// CHECK:                 %[[NVM1:.+]] = arith.subi %[[NV]], %[[C1]] : index
// CHECK:                 %[[GL:.+]] = tensor.extract %[[GIDS]][%[[NVM1]]]
// CHECK:                 %[[P:.+]] = tensor.extract %[[STARTS]][%[[G0]]]
// CHECK:                 %[[SUF:.+]] = tensor.extract %[[ENDS]][%[[GL]]]
// CHECK:                 scf.yield %[[P]], %[[SUF]]
// CHECK:               } else {
// CHECK:                 scf.yield %[[C20]], %[[C20]]
// CHECK:               %[[F:.+]] = arith.subi %[[V]], %[[MAXV]] : index
// CHECK:               %[[PT:.+]] = arith.ceildivsi %[[PS]]#0, %[[C8]] : index
// CHECK:               %[[INP:.+]] = arith.cmpi slt, %[[F]], %[[PT]] : index
// CHECK:               %[[J:.+]] = arith.subi %[[F]], %[[PT]] : index
// CHECK:               %[[PSTART:.+]] = arith.muli %[[F]], %[[C8]] : index
// CHECK:               %[[JT:.+]] = arith.muli %[[J]], %[[C8]] : index
// CHECK:               %[[SSTART:.+]] = arith.addi %[[PS]]#1, %[[JT]] : index
// CHECK:               %[[FSTART:.+]] = arith.select %[[INP]], %[[PSTART]], %[[SSTART]] : index
// CHECK:               %[[LIMIT:.+]] = arith.select %[[INP]], %[[PS]]#0, %[[C20]] : index
// CHECK:               %[[LEFT:.+]] = arith.subi %[[LIMIT]], %[[FSTART]] : index
// CHECK:               %[[UPTO:.+]] = arith.minsi %[[LEFT]], %[[C8]] : index
// CHECK:               %[[FROWS:.+]] = arith.maxsi %[[UPTO]], %[[C0]] : index
// CHECK:               scf.yield %[[FSTART]], %[[FROWS]]
// CHECK:             } else {
// CHECK:               scf.yield %[[C0]], %[[C0]]
// CHECK:             scf.yield %[[FR]]#0, %[[FR]]#1, %[[C0]]
// CHECK:           %[[N0:.+]] = arith.muli %[[NT]], %[[C32]]
// CHECK:           %[[NREM:.+]] = arith.subi %[[C37]], %[[N0]]
// CHECK:           %[[COLS:.+]] = arith.minsi %[[NREM]], %[[C32]]
// CHECK:           %[[SLICE:.+]] = tensor.extract_slice %[[OUT]][0, 0, %[[R]]#0, %[[N0]]] [1, 1, %[[R]]#1, %[[COLS]]] [1, 1, 1, 1] : tensor<1x1x20x37xf32> to tensor<?x?xf32>
// CHECK:           %[[HAS:.+]] = arith.cmpi sgt, %[[R]]#1, %[[C0]]
// CHECK:           %[[BLOCK:.+]] = scf.if %[[HAS]] -> (tensor<?x?xf32>)
// CHECK:             %[[ACC:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[KEND]] step %[[C8]] iter_args(%[[A:.+]] = %[[ZERO]]) -> (vector<8x32xf32>)
// CHECK:               %[[X:.+]] = vector.transfer_read %[[LHS]][%[[C0]], %[[C0]], %[[R]]#0, %[[K]]]{{.*}} : tensor<1x1x20x10xf32>, vector<8x8xf32>
// CHECK:               %[[W:.+]] = vector.transfer_read %[[RHS]][%[[C0]], %[[R]]#2, %[[K]], %[[N0]]]{{.*}} : tensor<1x3x10x37xf32>, vector<8x32xf32>
// CHECK:               %[[NEXT:.+]] = vector.contract {{.*}} %[[X]], %[[W]], %[[A]] : vector<8x8xf32>, vector<8x32xf32> into vector<8x32xf32>
// CHECK:               scf.yield %[[NEXT]]
// CHECK:             %[[WR:.+]] = vector.transfer_write %[[ACC]], %[[SLICE]][%[[C0]], %[[C0]]] : vector<8x32xf32>, tensor<?x?xf32>
// CHECK:             scf.yield %[[WR]]
// CHECK:           } else {
// CHECK:             scf.yield %[[SLICE]]
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %[[BLOCK]] into %[[OUT]][0, 0, %[[R]]#0, %[[N0]]] [1, 1, %[[R]]#1, %[[COLS]]] [1, 1, 1, 1]
// The tile loop carries the configuration for gmm-map-to-gpu, and is
// mapped to CUDA blocks (n-tiles along y, visits along x).
// CHECK:         } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [8, 32, 8], warps = [1, 1], stages = 2>, mapping = [#gpu.block<y>, #gpu.block<x>]}
func.func @mode1(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [8, 32, 8], warps = [1, 1], stages = 2>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

// 2 x 4 tiles with k steps of 3; rhs stored [B, G, N, K] is read
// transposed, with no copy; init is read back and accumulated.

// CHECK-LABEL: func.func @mode1_transposed_rhs_init
// CHECK-SAME:    %[[RHS:[a-z0-9]+]]: tensor<2x4x6x5xbf16>, %{{.+}}: tensor<2x3x4xi64>, %[[INIT:[a-z0-9]+]]: tensor<2x3x7x6xf32>
// CHECK:         scf.for {{.*}} iter_args(%{{.+}} = %[[INIT]])
// CHECK:           gmm.tile_schedule {{.*}} tile_size = 2
// CHECK:           vector.transfer_read {{.*}} : tensor<2x3x7x5xbf16>, vector<2x3xbf16>
// CHECK:           vector.transfer_read %[[RHS]]{{.*}}permutation_map = #{{.*}} : tensor<2x4x6x5xbf16>, vector<3x4xbf16>
// CHECK:           arith.extf {{.*}} : vector<2x3xbf16> to vector<2x3xf32>
// CHECK:           arith.extf {{.*}} : vector<3x4xbf16> to vector<3x4xf32>
// CHECK:           vector.contract
// CHECK:           %[[OLD:.+]] = vector.transfer_read %{{.+}} : tensor<?x?xf32>, vector<2x4xf32>
// CHECK:           arith.addf %{{.+}}, %[[OLD]] : vector<2x4xf32>
func.func @mode1_transposed_rhs_init(%lhs: tensor<2x3x7x5xbf16>, %rhs: tensor<2x4x6x5xbf16>, %gs: tensor<2x3x4xi64>, %init: tensor<2x3x7x6xf32>) -> tensor<2x3x7x6xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs init(%init : tensor<2x3x7x6xf32>) dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [2, 4, 3], warps = [1, 1], stages = 2>} : tensor<2x3x7x5xbf16>, tensor<2x4x6x5xbf16>, tensor<2x3x4xi64> -> tensor<2x3x7x6xf32>
  return %0 : tensor<2x3x7x6xf32>
}

// -----

// Mode 2 (weight gradient, k-major operands, as the normalized form of
// x^T dy): a forall over (local group, m-tile, n-tile); global group
// offset + i is valid when -i <= offset < g - i; one loop runs over the
// group's k steps only (kr = start + j * tile_k; with Kc = 1 the kc index
// folds away), and contraction indices past the group's end are zeroed in
// both operands.

// CHECK-LABEL: func.func @mode2
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<1x16x1x4xf32>, %[[DY:[a-z0-9]+]]: tensor<1x16x1x3xf32>, %{{.+}}: tensor<1x5xi32>, %[[OFF:[a-z0-9]+]]: tensor<i32>, %[[ACC:[a-z0-9]+]]: tensor<2x1x4x3xbf16>
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C5:.+]] = arith.constant 5 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK:         %[[O:.+]] = tensor.extract %[[OFF]][]
// CHECK:         %[[OI:.+]] = arith.index_cast %[[O]] : i32 to index
// CHECK:         %{{.+}}, %{{.+}}, %{{.+}}, %[[STARTS:.+]], %[[ENDS:.+]] = gmm.tile_schedule %{{.+}} extent(%{{.+}}) local_groups(%{{.+}}) offset(%[[OI]])
// CHECK:         scf.forall (%[[I:.+]], %{{.+}}, %{{.+}}) in (2, 1, 1) shared_outs(%[[OUT:.+]] = %[[ACC]])
// CHECK:           %[[LOW:.+]] = arith.subi %[[C0]], %[[I]]
// CHECK:           %[[GE:.+]] = arith.cmpi sge, %[[OI]], %[[LOW]]
// CHECK:           %[[HIGH:.+]] = arith.subi %[[C5]], %[[I]]
// CHECK:           %[[LT:.+]] = arith.cmpi slt, %[[OI]], %[[HIGH]]
// CHECK:           %[[VALID:.+]] = arith.andi %[[GE]], %[[LT]]
// CHECK:           %[[B:.+]]:2 = scf.if %[[VALID]] -> (index, index)
// CHECK:             %[[G:.+]] = arith.addi %[[OI]], %[[I]]
// CHECK:             tensor.extract %[[STARTS]][%[[G]]]
// CHECK:             tensor.extract %[[ENDS]][%[[G]]]
// CHECK:           %[[SPAN:.+]] = arith.subi %[[B]]#1, %[[B]]#0
// CHECK:           %[[POS:.+]] = arith.maxsi %[[SPAN]], %[[C0]]
// CHECK:           %[[STEPS:.+]] = arith.ceildivsi %[[POS]], %[[C8]]
// CHECK:           scf.for %[[J:.+]] = %[[C0]] to %[[STEPS]] step %{{.+}} iter_args
// CHECK:             %[[JK:.+]] = arith.muli %[[J]], %[[C8]]
// CHECK:             %[[KR:.+]] = arith.addi %[[B]]#0, %[[JK]]
// CHECK:             %[[A:.+]] = vector.transfer_read %[[X]][%[[C0]], %[[KR]], %[[C0]], %[[C0]]]{{.*}} : tensor<1x16x1x4xf32>, vector<8x8xf32>
// CHECK:             %[[W:.+]] = vector.transfer_read %[[DY]][%[[C0]], %[[KR]], %[[C0]], %[[C0]]]{{.*}} : tensor<1x16x1x3xf32>, vector<8x32xf32>
// CHECK:             %[[LEFT:.+]] = arith.subi %[[B]]#1, %[[KR]]
// CHECK:             %[[MA:.+]] = vector.create_mask %{{.+}}, %[[LEFT]] : vector<8x8xi1>
// CHECK:             %[[AM:.+]] = arith.select %[[MA]], %[[A]], %{{.+}} : vector<8x8xi1>, vector<8x8xf32>
// CHECK:             %[[MW:.+]] = vector.create_mask %[[LEFT]], %{{.+}} : vector<8x32xi1>
// CHECK:             %[[WM:.+]] = arith.select %[[MW]], %[[W]], %{{.+}} : vector<8x32xi1>, vector<8x32xf32>
// CHECK:             vector.contract {{.*}} %[[AM]], %[[WM]], %{{.+}} : vector<8x8xf32>, vector<8x32xf32> into vector<8x32xf32>
// CHECK:           arith.extf %{{.+}} : vector<8x32xbf16> to vector<8x32xf32>
// CHECK:           arith.truncf %{{.+}} : vector<8x32xf32> to vector<8x32xbf16>
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[I]], 0, 0, 0] [1, 1, 4, 3]
// CHECK:         } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [8, 32, 8], warps = [1, 1], stages = 2>, mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
func.func @mode2(%x: tensor<1x16x1x4xf32>, %dy: tensor<1x16x1x3xf32>, %gs: tensor<1x5xi32>, %off: tensor<i32>, %acc: tensor<2x1x4x3xbf16>) -> tensor<2x1x4x3xbf16> {
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<i32>) init(%acc : tensor<2x1x4x3xbf16>) dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [8, 32, 8], warps = [1, 1], stages = 2>} : tensor<1x16x1x4xf32>, tensor<1x16x1x3xf32>, tensor<1x5xi32> -> tensor<2x1x4x3xbf16>
  return %0 : tensor<2x1x4x3xbf16>
}

// -----

// Ops that are not normalized are left for gmm-normalize (or the reference
// lowering).

// CHECK-LABEL: func.func @not_normalized
// CHECK-NOT:     scf.forall
// CHECK:         gmm.ragged_dot
func.func @not_normalized(%lhs: tensor<16x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}
