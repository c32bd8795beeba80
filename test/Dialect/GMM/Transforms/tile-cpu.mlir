// RUN: gmm-opt %s -split-input-file -gmm-configure="vector-bits=256 tile-m=12 tile-n=32 tile-k=4" -gmm-tile -canonicalize -cse | FileCheck %s
// RUN: gmm-opt %s -split-input-file -gmm-configure="vector-bits=256 threads=1" -gmm-tile -canonicalize -cse | FileCheck %s --check-prefix=AVX2
// RUN: gmm-opt %s -split-input-file -gmm-configure="vector-bits=512 threads=1" -gmm-tile -canonicalize -cse | FileCheck %s --check-prefix=AVX512
// RUN: gmm-opt %s -split-input-file -gmm-configure="vector-bits=256 micro-m=3 micro-n=8" -gmm-tile -canonicalize -cse | FileCheck %s --check-prefix=MICRO
// RUN: gmm-opt %s -split-input-file -gmm-configure="vector-bits=256 micro-m=3 micro-n=8" -gmm-tile -canonicalize -cse | FileCheck %s --check-prefix=ATTR

// The CPU's packed program (target=cpu). A visit of tile_m rows and tile_n
// columns accumulates into a buffer of its own, one contraction block of
// tile_k at a time: the block's rhs rows are packed into panels of 16 lanes
// (two ymm registers; zero past the rhs's end, unmasked reads for whole
// vectors), and the visit's lhs rows into row panels of 6 rows (rows past
// the visit repeat its last row); then a 6 x 16 register block runs over
// every (column panel, row panel) pair, k unrolled by 4 with a remainder
// loop: one panel row and one broadcast lhs element per accumulator row and
// step; a partial last row panel runs blocks of 4 rows instead, as many
// as it needs, when they fit in the panel. The last contraction block's
// register blocks write their sums into the visit's slice of the result
// (only its rows and columns), the others into the accumulators. While the
// first row panel of a column panel is multiplied, the same panel rows of
// the next block are prefetched from the rhs's buffer (the visit's 32
// columns are narrower than the rhs's 37; decode_like below has a visit as
// wide as the rhs, which prefetches nothing).

// CHECK-LABEL: func.func @mode1
// CHECK-SAME:    %[[LHS:[a-z0-9]+]]: tensor<1x1x60x10xf32>, %[[RHS:[a-z0-9]+]]: tensor<1x3x10x37xf32>
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C6:.+]] = arith.constant 6 : index
// CHECK-DAG:     %[[C10:.+]] = arith.constant 10 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[C37:.+]] = arith.constant 37 : index
// CHECK-DAG:     %[[ZV:.+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK:         %[[RHSBUF:.+]] = bufferization.to_buffer %[[RHS]] read_only : tensor<1x3x10x37xf32> to memref<1x3x10x37xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK:         %[[LHSBUF:.+]] = bufferization.to_buffer %[[LHS]] read_only : tensor<1x1x60x10xf32> to memref<1x1x60x10xf32, strided<[?, ?, ?, ?], offset: ?>>
// CHECK:         linalg.fill
// CHECK:         gmm.tile_schedule {{.*}} tile_size = 12
// CHECK:         scf.forall (%[[NT:.+]], %[[V:.+]]) in (2, %{{.+}}) shared_outs(%[[OUT:.+]] = %{{.+}})
// CHECK:           %[[R:.+]]:3 = scf.if
// CHECK:           %[[N0:.+]] = arith.muli %[[NT]], %{{.+}}
// CHECK:           %[[SLICE:.+]] = tensor.extract_slice %[[OUT]][0, 0, %[[R]]#0, %[[N0]]] [1, 1, %[[R]]#1, %[[COLS:.+]]] [1, 1, 1, 1]
// CHECK:           %[[RP:.+]] = arith.ceildivsi %[[R]]#1, %[[C6]]
// CHECK:           %[[CP:.+]] = arith.ceildivsi %[[COLS]], %[[C16]]
// The visit's buffers are allocations of its own (bufferization.alloc_tensor,
// which CSE does not merge when two have one shape). The packed panels are
// a row longer than the contraction block, so that panels are not a
// multiple of 4 KiB apart.
// CHECK:           %[[PANELS:.+]] = bufferization.alloc_tensor() : tensor<2x5x16xf32>
// The accumulators are not zero-filled: the first contraction block's
// register blocks start from zero.
// CHECK:           %[[ACC0:.+]] = bufferization.alloc_tensor() : tensor<2x12x16xf32>
// CHECK-NOT:       linalg.fill
// CHECK:           %[[ROWS0:.+]] = bufferization.alloc_tensor() : tensor<2x6x16xf32>
// CHECK:           %[[HAS:.+]] = arith.cmpi sgt, %[[R]]#1, %{{.+}}
// CHECK:           %[[KEND:.+]] = arith.select %[[HAS]], %[[C10]], %{{.+}}
// CHECK:           %[[K:.+]]:4 = scf.for %[[K0:.+]] = %{{.+}} to %[[KEND]] step %[[C4]] iter_args(%{{.+}} = %[[PANELS]], %{{.+}} = %[[ACC0]], %{{.+}} = %[[ROWS0]], %{{.+}} = %[[SLICE]])
// CHECK:             %[[LEFT:.+]] = arith.subi %[[C10]], %[[K0]]
// CHECK:             %[[COUNT:.+]] = arith.minsi %[[LEFT]], %[[C4]]
// CHECK:             %[[PACKED:.+]] = scf.for %[[KK:.+]] = %{{.+}} to %[[COUNT]]
// CHECK:               scf.for %[[JP:.+]] = %{{.+}} to %[[CP]]
// CHECK:                 memref.prefetch %[[RHSBUF]]{{.*}}, read, locality<3>, data
// CHECK:                 %[[WHOLE:.+]] = arith.cmpi sle, %{{.+}}, %[[C37]]
// CHECK:                 %[[ROW:.+]] = scf.if %[[WHOLE]] -> (vector<16xf32>)
// CHECK:                   vector.transfer_read %[[RHS]]{{.*}} {in_bounds = [true]} : tensor<1x3x10x37xf32>, vector<16xf32>
// CHECK:                 } else {
// CHECK:                   vector.transfer_read %[[RHS]]{{.*}}, %{{.+}} : tensor<1x3x10x37xf32>, vector<16xf32>
// CHECK:                 vector.transfer_write %[[ROW]], %{{.+}}[%[[JP]], %[[KK]], %{{.+}}] {in_bounds = [true]} : vector<16xf32>, tensor<2x5x16xf32>
// CHECK:             %[[FIRSTK:.+]] = arith.cmpi eq, %[[K0]], %c0
// The last contraction block is the one that reaches the end of k.
// CHECK:             %[[LASTK:.+]] = arith.cmpi eq, %[[COUNT]], %[[LEFT]]
// The visit's 12 rows are one row block (at most 16 panels): its lhs rows
// are packed once per contraction block, with no loop over row blocks.
// CHECK:             %[[LP:.+]] = scf.for
// CHECK:               scf.for
// CHECK:                 arith.divui %{{.+}}, %[[C6]]
// CHECK:                 arith.remui %{{.+}}, %[[C6]]
// Each chunk prefetches the same columns of the row 32 ahead (clamped to
// the visit's last row): every lhs row is a new page for the hardware
// prefetcher.
// CHECK:                 %[[AT:.+]] = arith.minsi %{{.+}}, %[[LAST:.+]] : index
// CHECK:                 %[[AHEAD:.+]] = arith.addi %[[AT]], %c32
// CHECK:                 %[[PROW:.+]] = arith.minsi %[[AHEAD]], %[[LAST]]
// CHECK:                 memref.prefetch %[[LHSBUF]][%c0, %c0, %[[PROW]], %{{.+}}], read, locality<3>, data
// CHECK:                 vector.transfer_read %[[LHS]]{{.*}} {in_bounds = [true]} : tensor<1x1x60x10xf32>, vector<16xf32>
// CHECK:                 vector.transfer_read %[[LHS]]{{.*}}, %{{.+}} : tensor<1x1x60x10xf32>, vector<16xf32>
// CHECK:                 vector.transfer_write {{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<2x6x16xf32>
// CHECK:             %[[UNROLLED:.+]] = arith.subi %[[COUNT]], %{{.+}}
// The visit's rows: whole panels of 6, then the rows after them in 4-row
// blocks when they fit in a panel (else as one more whole panel); or, when
// that computes fewer rows (7 or 8 rows: 4 + 4 rather than 6 + 4), the last
// whole panel's rows join the 4-row blocks.
// CHECK-DAG:           %[[PANELS:.+]] = arith.ceildivui %[[R]]#1, %[[C6]]
// CHECK-DAG:           %[[FULL:.+]] = arith.divui %[[R]]#1, %[[C6]]
// CHECK-DAG:           %[[REM:.+]] = arith.remui %[[R]]#1, %[[C6]]
// CHECK-DAG:           %[[BLOCKS:.+]] = arith.ceildivui %[[REM]], %[[C4]]
// CHECK-DAG:           %[[TAILROWS:.+]] = arith.muli %[[BLOCKS]], %[[C4]]
// CHECK-DAG:           %[[FITS:.+]] = arith.cmpi ule, %[[TAILROWS]], %[[C6]]
// CHECK-DAG:           %[[EXTRA:.+]] = arith.select %[[FITS]], %[[TAILROWS]], %[[C6]]
// CHECK-DAG:           %[[REM6:.+]] = arith.addi %[[REM]], %[[C6]]
// CHECK-DAG:           %[[STOLEN:.+]] = arith.ceildivui %[[REM6]], %[[C4]]
// CHECK-DAG:           %[[ANYFULL:.+]] = arith.cmpi ne, %[[FULL]], %c0
// CHECK-DAG:           %[[STOLENROWS:.+]] = arith.muli %[[STOLEN]], %[[C4]]
// CHECK-DAG:           %[[KEPTROWS:.+]] = arith.addi %[[EXTRA]], %[[C6]]
// CHECK-DAG:           %[[FEWER:.+]] = arith.cmpi ult, %[[STOLENROWS]], %[[KEPTROWS]]
// CHECK-DAG:           %[[STEAL:.+]] = arith.andi %[[ANYFULL]], %[[FEWER]]
// CHECK-DAG:           %[[KEPT:.+]] = arith.select %[[FITS]], %[[BLOCKS]], %c0
// CHECK-DAG:           %[[TAIL:.+]] = arith.select %[[STEAL]], %[[STOLEN]], %[[KEPT]]
// CHECK-DAG:           %[[LESS:.+]] = arith.subi %[[FULL]], %c1
// CHECK-DAG:           %[[NOSTEAL:.+]] = arith.select %[[FITS]], %[[FULL]], %[[PANELS]]
// CHECK-DAG:           %[[WHOLE:.+]] = arith.select %[[STEAL]], %[[LESS]], %[[NOSTEAL]]
// The last contraction block, when it has at most 64 steps (the writes of
// the result bound it), runs its register blocks rows first: each row panel
// across the column panels, then each 4-row block across them; the nest
// that runs columns first then runs no iterations, and the other way round
// in the other blocks.
// CHECK-DAG:           %[[FEW:.+]] = arith.cmpi ule, %[[COUNT]], %c64
// CHECK-DAG:           %[[ROWSFIRST:.+]] = arith.andi %[[LASTK]], %[[FEW]]
// CHECK-DAG:           %[[RPANELS:.+]] = arith.select %[[ROWSFIRST]], %[[WHOLE]], %c0
// CHECK-DAG:           %[[RTAILS:.+]] = arith.select %[[ROWSFIRST]], %[[TAIL]], %c0
// CHECK:               %[[RDONE:.+]]:2 = scf.for %{{.+}} = %c0 to %[[RPANELS]] step %{{.+}} iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<2x12x16xf32>, tensor<?x?xf32>)
// CHECK-NEXT:            scf.for %{{.+}} = %c0 to %[[CP]] step %{{.+}} iter_args
// CHECK:                 scf.if %[[LASTK]] -> (tensor<2x12x16xf32>, tensor<?x?xf32>) {
// CHECK:               %[[TDONE:.+]]:2 = scf.for %{{.+}} = %c0 to %[[RTAILS]] step %{{.+}} iter_args(%{{.+}} = %[[RDONE]]#0, %{{.+}} = %[[RDONE]]#1) -> (tensor<2x12x16xf32>, tensor<?x?xf32>)
// CHECK:                 scf.for %{{.+}} = %c0 to %[[CP]] step %{{.+}} iter_args
// CHECK:               %[[CPANELS:.+]] = arith.select %[[ROWSFIRST]], %c0, %[[CP]]
// The column panels carry the accumulators and the visit's slice.
// CHECK-NEXT:          scf.for %[[JP2:.+]] = %{{.+}} to %[[CPANELS]] step %{{.+}} iter_args(%[[ACCJ:.+]] = %[[TDONE]]#0, %[[OUTJ:.+]] = %[[TDONE]]#1) -> (tensor<2x12x16xf32>, tensor<?x?xf32>)
// CHECK-DAG:             %[[ANYWHOLE:.+]] = arith.cmpi ne, %[[WHOLE]], %c0
// The accumulators are stored column panel by column panel: row r of
// column panel JP2 is [JP2, r, 0].
// CHECK:                 scf.if %[[ANYWHOLE]] -> (tensor<2x12x16xf32>, tensor<?x?xf32>) {
// CHECK-NEXT:              %[[START:.+]]:6 = scf.if %[[FIRSTK]] -> (vector<16xf32>,
// CHECK-NEXT:                scf.yield %[[ZV]], %[[ZV]], %[[ZV]], %[[ZV]], %[[ZV]], %[[ZV]] :
// CHECK-NEXT:              } else {
// CHECK-NEXT:                vector.transfer_read %{{.+}}[%[[JP2]], %c0{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}}], %{{.+}} {in_bounds = [true]} : tensor<2x12x16xf32>, vector<16xf32>
// CHECK-NEXT:                vector.transfer_read %{{.+}}[%[[JP2]], %c1{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}}], %{{.+}} {in_bounds = [true]} : tensor<2x12x16xf32>, vector<16xf32>
// CHECK-COUNT-4:             vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<2x12x16xf32>, vector<16xf32>
// CHECK:                   %[[MAIN:.+]]:6 = scf.for %{{.+}} = %{{.+}} to %[[UNROLLED]] step %[[C4]] iter_args(%{{.+}} = %[[START]]#0,
// CHECK:                     vector.transfer_read %[[PACKED]]{{.*}} {in_bounds = [true]} : tensor<2x5x16xf32>, vector<16xf32>
// CHECK:                     memref.prefetch %[[RHSBUF]]
// CHECK:                     %[[X:.+]] = tensor.extract %[[LP]]
// CHECK:                     %[[BX:.+]] = vector.broadcast %[[X]] : f32 to vector<16xf32>
// CHECK:                     vector.fma %[[BX]], %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK-COUNT-23:            vector.fma
// CHECK:                   %[[REST:.+]]:6 = scf.for %{{.+}} = %[[UNROLLED]] to %[[COUNT]] step %{{.+}} iter_args(%{{.+}} = %[[MAIN]]#0,
// CHECK-COUNT-6:             vector.fma
// In the last contraction block the sums go into the slice, rows 0 .. 5 of
// the block at column JP2 * 16, as one 6 x 16 transfer whose rows past the
// slice are dropped: its lanes unmasked when the column panel lies inside
// the slice, masked when it crosses the slice's last column.
// CHECK:                   scf.if %[[LASTK]] -> (tensor<2x12x16xf32>, tensor<?x?xf32>) {
// CHECK-DAG:                 %[[OCOL:.+]] = arith.muli %[[JP2]], %[[C16]]
// CHECK-DAG:                 %[[OEND:.+]] = arith.addi %[[OCOL]], %[[C16]]
// CHECK-DAG:                 %[[INSIDE:.+]] = arith.cmpi sle, %[[OEND]], %[[COLS]]
// CHECK:                     scf.if %[[INSIDE]] -> (tensor<?x?xf32>) {
// CHECK:                       vector.transfer_write %{{.+}}, %[[OUTJ]][%c0{{(_[0-9]+)?}}, %[[OCOL]]] {in_bounds = [false, true]} : vector<6x16xf32>, tensor<?x?xf32>
// CHECK:                     } else {
// CHECK:                       vector.transfer_write %{{.+}}, %[[OUTJ]][%c0{{(_[0-9]+)?}}, %[[OCOL]]] : vector<6x16xf32>, tensor<?x?xf32>
// CHECK:                     scf.yield %[[ACCJ]], %{{.+}} : tensor<2x12x16xf32>, tensor<?x?xf32>
// The other blocks leave them in the accumulators.
// CHECK-NEXT:              } else {
// CHECK-NEXT:                vector.transfer_write %[[REST]]#0, %[[ACCJ]]{{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<2x12x16xf32>
// CHECK-COUNT-5:             vector.transfer_write {{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<2x12x16xf32>
// CHECK-NEXT:                scf.yield %{{.+}}, %[[OUTJ]] : tensor<2x12x16xf32>, tensor<?x?xf32>
// The other whole row panels: the same register block without prefetches.
// CHECK:                   scf.for %{{.+}} = %c1{{(_[0-9]+)?}} to %[[WHOLE]]
// CHECK-COUNT-6:             vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<2x12x16xf32>, vector<16xf32>
// CHECK:                     scf.for %{{.+}} = %{{.+}} to %[[UNROLLED]] step %[[C4]]
// CHECK-NOT:                   memref.prefetch
// CHECK-COUNT-24:              vector.fma
// CHECK:                     scf.for %{{.+}} = %[[UNROLLED]] to %[[COUNT]]
// The 4-row blocks, rows 4t .. 4t + 3 after the WHOLE panels: row i of
// the block is lhs row panel WHOLE + (4t + i) / 6, row (4t + i) % 6.
// CHECK:                   scf.for %[[T:.+]] = %c0{{(_[0-9]+)?}} to %[[TAIL]]
// CHECK-DAG:                 %[[FIRST:.+]] = arith.muli %[[T]], %[[C4]]
// CHECK-DAG:                 %[[BASE:.+]] = arith.muli %[[WHOLE]], %[[C6]]
// CHECK-DAG:                 %[[TROW:.+]] = arith.addi %[[BASE]], %[[FIRST]]
// CHECK-DAG:                 %[[P0:.+]] = arith.divui %[[FIRST]], %[[C6]]
// CHECK-DAG:                 %[[IP0:.+]] = arith.addi %[[WHOLE]], %[[P0]]
// CHECK-DAG:                 %[[I0:.+]] = arith.remui %[[FIRST]], %[[C6]]
// CHECK-DAG:                 %[[TROW1:.+]] = arith.addi %[[TROW]], %c1
// CHECK-DAG:                 %[[FIRST1:.+]] = arith.addi %[[FIRST]], %c1
// CHECK-DAG:                 %[[P1:.+]] = arith.divui %[[FIRST1]], %[[C6]]
// CHECK-DAG:                 %[[IP1:.+]] = arith.addi %[[WHOLE]], %[[P1]]
// CHECK-DAG:                 %[[I1:.+]] = arith.remui %[[FIRST1]], %[[C6]]
// CHECK-COUNT-4:             vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<2x12x16xf32>, vector<16xf32>
// CHECK:                     scf.for %{{.+}} = %{{.+}} to %[[UNROLLED]] step %[[C4]]
// CHECK-NOT:                   memref.prefetch
// CHECK:                       tensor.extract %[[LP]][%[[IP0]], %[[I0]], %{{.+}}]
// CHECK:                       tensor.extract %[[LP]][%[[IP1]], %[[I1]], %{{.+}}]
// CHECK-COUNT-15:              vector.fma
// CHECK:                     scf.for %{{.+}} = %[[UNROLLED]] to %[[COUNT]]
// CHECK-COUNT-4:               vector.fma
// CHECK:                     scf.if %[[LASTK]]
// CHECK:                       vector.transfer_write %{{.+}}, %{{.+}}[%[[TROW]], %{{.+}}] {in_bounds = [false, true]} : vector<4x16xf32>, tensor<?x?xf32>
// CHECK:                       vector.transfer_write %{{.+}}, %{{.+}}[%[[TROW]], %{{.+}}] : vector<4x16xf32>, tensor<?x?xf32>
// CHECK:                     } else {
// CHECK-NEXT:                  vector.transfer_write %{{.+}}, %{{.+}}[%[[JP2]], %[[TROW]], %c0{{(_[0-9]+)?}}] {in_bounds = [true]} : vector<16xf32>, tensor<2x12x16xf32>
// CHECK-COUNT-3:               vector.transfer_write {{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<2x12x16xf32>
// Without a whole panel the tail's blocks are the first and prefetch.
// CHECK:                 } else {
// CHECK-NEXT:              scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %[[TAIL]]
// CHECK-COUNT-4:             vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<2x12x16xf32>, vector<16xf32>
// CHECK:                     scf.for %{{.+}} = %{{.+}} to %[[UNROLLED]] step %[[C4]]
// CHECK:                       memref.prefetch %[[RHSBUF]]
// No pass copies the accumulators out after the last block (k is not
// empty here, so nothing is zero-filled either): the contraction loop's
// slice is the visit's result.
// CHECK-NOT:       vector.transfer_read %[[K]]#1
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %[[K]]#3 into %[[OUT]][0, 0, %[[R]]#0, %[[N0]]] [1, 1, %[[R]]#1, %[[COLS]]]

// The heuristic for 256-bit vectors (20 rows per group on average, more
// than a decode-like op's 16): 6 x 16 register blocks, visits of 384 rows
// and 512 columns, contraction blocks of 256. The rhs block is packed
// once per contraction block, then the visit's rows run a row block of 96
// (16 panels) at a time: the lhs rows of a row block are packed (into a
// buffer of one row block), and its register blocks accumulate into the
// visit's rows m0 + ip * 6 + i.
// AVX2-LABEL: func.func @mode1
// AVX2-DAG:     %[[C96:.+]] = arith.constant 96 : index
// AVX2:         gmm.tile_schedule {{.*}} tile_size = 384
// AVX2:         %[[RHSP:.+]] = bufferization.alloc_tensor() : tensor<32x257x16xf32>
// AVX2:         %[[ACC0:.+]] = bufferization.alloc_tensor() : tensor<32x384x16xf32>
// AVX2:         %[[LHSP:.+]] = bufferization.alloc_tensor() : tensor<16x6x256xf32>
// AVX2:         scf.for %[[K0:.+]] = %c0{{(_[0-9]+)?}} to %{{.+}} step %c256 iter_args(%{{.+}} = %[[RHSP]], %{{.+}} = %[[ACC0]], %{{.+}} = %[[LHSP]], %[[SLICE:[a-z0-9_]+]] = %{{.+}}) -> ({{.*}}, tensor<?x37xf32>)
// AVX2:           scf.for
// AVX2:             vector.transfer_write {{.*}} : vector<16xf32>, tensor<32x257x16xf32>
// AVX2:           scf.for %[[M0:.+]] = %c0{{(_[0-9]+)?}} to %[[PACKED:.+]] step %[[C96]] iter_args(%[[ACC:.+]] = %{{.+}}, %{{.+}} = %[[SLICE]], %{{.+}} = %{{.+}}) -> (tensor<32x384x16xf32>, tensor<?x37xf32>, tensor<16x6x256xf32>)
// AVX2:             scf.for
// AVX2:               vector.transfer_write {{.*}} : vector<16xf32>, tensor<16x6x256xf32>
// AVX2:             scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %{{.+}} step %c1{{(_[0-9]+)?}} iter_args(%{{.+}} = %[[ACC]], %{{.+}} = %{{.+}}) -> (tensor<32x384x16xf32>, tensor<?x37xf32>)
// AVX2:               %[[FIRSTROW:.+]] = arith.addi %[[M0]], %{{.+}} : index
// AVX2-COUNT-6:       vector.transfer_read {{.*}} : tensor<32x384x16xf32>, vector<16xf32>
// AVX2-NOT:           vector.transfer_read {{.*}} : tensor<32x384x16xf32>, vector<16xf32>
// AVX2:               scf.for

// For 512-bit vectors: 14 x 32 (28 zmm accumulators), visits of 448 x 512
// in row blocks of 224 (16 panels), each packed into a buffer of one row
// block.
// AVX512-LABEL: func.func @mode1
// AVX512:         gmm.tile_schedule {{.*}} tile_size = 448
// AVX512:         bufferization.alloc_tensor() : tensor<16x257x32xf32>
// AVX512:         bufferization.alloc_tensor() : tensor<16x448x32xf32>
// AVX512:         bufferization.alloc_tensor() : tensor<16x14x256xf32>
// AVX512:         scf.for %{{.+}} = %c0{{(_[0-9]+)?}} to %{{.+}} step %c224{{(_[0-9]+)?}} iter_args({{.*}}) -> (tensor<16x448x32xf32>, tensor<?x37xf32>, tensor<16x14x256xf32>)
// AVX512-COUNT-14: vector.transfer_read {{.*}} : tensor<16x448x32xf32>, vector<32xf32>
// AVX512:         scf.for

// A register block of the options' size: 3 x 8; the default cache tiles
// are sized from it (192 x 256 for 256-bit vectors: row blocks of 16 panels
// of 3 rows).
// MICRO-LABEL: func.func @mode1
// MICRO:         gmm.tile_schedule {{.*}} tile_size = 192
// MICRO:         bufferization.alloc_tensor() : tensor<32x257x8xf32>
// MICRO:         bufferization.alloc_tensor() : tensor<32x192x8xf32>
// MICRO:         bufferization.alloc_tensor() : tensor<16x3x256xf32>
// MICRO-COUNT-3: vector.transfer_read {{.*}} : tensor<32x192x8xf32>, vector<8xf32>
// MICRO:         scf.for
// MICRO-COUNT-12: vector.fma {{.*}} : vector<8xf32>
func.func @mode1(%lhs: tensor<1x1x60x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x60x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x60x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x60x37xf32>
  return %0 : tensor<1x1x60x37xf32>
}

// -----

// bf16 operands, rhs stored [B, G, N, K] and init: the op's tile sizes win
// (4 x 8 x 3, so a register block of 4 rows); the panels are read along
// the rhs's n dimension (a permuted, masked read), converted to f32 when
// packed, and not prefetched; the lhs rows are converted when packed too,
// and prefetched from the lhs's buffer (the only one).
// A masked read (the operand's last vector) is widened through its bits,
// the unmasked one by arith.extf, each inside its branch, so that no bf16
// vector leaves a branch. The store adds init's values.

// CHECK-LABEL: func.func @mode1_transposed_rhs_init
// CHECK-SAME:    %[[LHS:[a-z0-9]+]]: tensor<2x3x7x5xbf16>, %[[RHS:[a-z0-9]+]]: tensor<2x4x6x5xbf16>, %{{.+}}: tensor<2x3x4xi64>, %[[INIT:[a-z0-9]+]]: tensor<2x3x7x6xf32>
// CHECK-DAG:     %[[SIXTEEN:.+]] = arith.constant dense<16> : vector<16xi32>
// CHECK:         %[[LHSBUF:.+]] = bufferization.to_buffer %[[LHS]] read_only
// CHECK-NOT:     memref.prefetch
// CHECK:         scf.for {{.*}} iter_args(%{{.+}} = %[[INIT]])
// CHECK:           gmm.tile_schedule {{.*}} tile_size = 4
// CHECK:           bufferization.alloc_tensor() : tensor<1x4x16xf32>
// CHECK:           bufferization.alloc_tensor() : tensor<1x4x16xf32>
// CHECK-NOT:       memref.prefetch
// CHECK:           %[[W:.+]] = vector.transfer_read %[[RHS]]{{.*}} {permutation_map = #{{.*}}} : tensor<2x4x6x5xbf16>, vector<16xbf16>
// CHECK-NEXT:      %[[WBITS:.+]] = arith.bitcast %[[W]] : vector<16xbf16> to vector<16xi16>
// CHECK-NEXT:      %[[WWIDE:.+]] = arith.extui %[[WBITS]] : vector<16xi16> to vector<16xi32>
// CHECK-DAG:       %[[WHIGH:.+]] = arith.shli %[[WWIDE]], %[[SIXTEEN]] : vector<16xi32>
// CHECK:           arith.bitcast %[[WHIGH]] : vector<16xi32> to vector<16xf32>
// CHECK:           memref.prefetch %[[LHSBUF]]
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      arith.cmpi sle
// CHECK-NEXT:      scf.if %{{.+}} -> (vector<16xf32>) {
// CHECK-NEXT:        %[[A:.+]] = vector.transfer_read %[[LHS]]{{.*}} {in_bounds = [true]} : tensor<2x3x7x5xbf16>, vector<16xbf16>
// CHECK-NEXT:        %[[AWIDE:.+]] = arith.extf %[[A]] : vector<16xbf16> to vector<16xf32>
// CHECK-NEXT:        scf.yield %[[AWIDE]] : vector<16xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[AM:.+]] = vector.transfer_read %[[LHS]]{{.*}} : tensor<2x3x7x5xbf16>, vector<16xbf16>
// CHECK-NEXT:        %[[ABITS:.+]] = arith.bitcast %[[AM]] : vector<16xbf16> to vector<16xi16>
// CHECK-NEXT:        %[[AMWIDE:.+]] = arith.extui %[[ABITS]] : vector<16xi16> to vector<16xi32>
// CHECK-DAG:         %[[AHIGH:.+]] = arith.shli %[[AMWIDE]], %[[SIXTEEN]] : vector<16xi32>
// CHECK:             %[[AF32:.+]] = arith.bitcast %[[AHIGH]] : vector<16xi32> to vector<16xf32>
// CHECK-NEXT:        scf.yield %[[AF32]] : vector<16xf32>
// CHECK:           vector.transfer_write {{.*}} : vector<16xf32>, tensor<1x4x16xf32>
// Nothing of the rhs is prefetched, so no row panel is peeled off for
// prefetches: one register block, whose rows are those of the row panel
// loop.
// CHECK-NOT:       memref.prefetch
// CHECK-COUNT-4:   vector.transfer_read %{{.+}}[%c0{{(_[0-9]+)?}}, %{{.+}}, %c0{{(_[0-9]+)?}}], %{{.+}} : tensor<1x4x16xf32>, vector<16xf32>
// The last block adds init's values to the sums and writes them back (the
// 6 columns cross the first column panel's end: masked).
// CHECK:           %[[OLD:.+]] = vector.transfer_read %[[SLICE:.+]][%[[ROW:[^,]+]], %c0{{(_[0-9]+)?}}], %{{.+}} : tensor<?x6xf32>, vector<4x16xf32>
// CHECK:           %[[NEW:.+]] = arith.addf %{{.+}}, %[[OLD]] : vector<4x16xf32>
// CHECK:           vector.transfer_write %[[NEW]], %[[SLICE]][%[[ROW]], %c0{{(_[0-9]+)?}}] : vector<4x16xf32>, tensor<?x6xf32>
func.func @mode1_transposed_rhs_init(%lhs: tensor<2x3x7x5xbf16>, %rhs: tensor<2x4x6x5xbf16>, %gs: tensor<2x3x4xi64>, %init: tensor<2x3x7x6xf32>) -> tensor<2x3x7x6xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs init(%init : tensor<2x3x7x6xf32>) dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<tile = [4, 8, 3]>} : tensor<2x3x7x5xbf16>, tensor<2x4x6x5xbf16>, tensor<2x3x4xi64> -> tensor<2x3x7x6xf32>
  return %0 : tensor<2x3x7x6xf32>
}

// -----

// Decode-like (20 rows in 3 groups, at most 16 per group on average): one
// visit spans the rhs's 37 columns (48, whole register blocks), contraction
// blocks of 64; the packing reads whole rhs rows (prefetching a few rows
// ahead of itself), the lhs packing prefetches its rows ahead as usual, and
// the register blocks prefetch nothing of the next block.
// AVX2-LABEL: func.func @decode_like
// AVX2-SAME:    %[[LHS:[a-z0-9]+]]: tensor<1x1x20x10xf32>, %[[RHS:[a-z0-9]+]]: tensor<1x3x10x37xf32>
// AVX2:         %[[RHSBUF:.+]] = bufferization.to_buffer %[[RHS]] read_only
// AVX2:         %[[LHSBUF:.+]] = bufferization.to_buffer %[[LHS]] read_only
// AVX2:         gmm.tile_schedule {{.*}} tile_size = 384
// AVX2:         bufferization.alloc_tensor() : tensor<3x65x16xf32>
// AVX2:         bufferization.alloc_tensor() : tensor<3x384x16xf32>
// AVX2:         bufferization.alloc_tensor() : tensor<16x6x64xf32>
// AVX2:         memref.prefetch %[[RHSBUF]]
// AVX2:         vector.transfer_write {{.*}} : vector<16xf32>, tensor<3x65x16xf32>
// AVX2-NOT:     memref.prefetch %[[RHSBUF]]
// AVX2:         memref.prefetch %[[LHSBUF]]
// AVX2:         vector.transfer_write {{.*}} : vector<16xf32>, tensor<16x6x64xf32>
// AVX2-NOT:     memref.prefetch
// AVX2:         vector.fma
// AVX2-NOT:     memref.prefetch
// AVX2:         return
func.func @decode_like(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}

// -----

// The op's register block wins over the options (and, like the options,
// sizes the default cache tiles: 5 x 24 gives visits of 320 x 768 for
// 256-bit vectors, in row blocks of 80; the packed lhs rows are 256 rounded
// up to whole vectors of 24 lanes).

// ATTR-LABEL: func.func @register_block_attribute
// ATTR:         gmm.tile_schedule {{.*}} tile_size = 320
// ATTR:         bufferization.alloc_tensor() : tensor<32x257x24xf32>
// ATTR:         bufferization.alloc_tensor() : tensor<32x320x24xf32>
// ATTR:         bufferization.alloc_tensor() : tensor<16x5x264xf32>
// ATTR-COUNT-5: vector.transfer_read {{.*}} : tensor<32x320x24xf32>, vector<24xf32>
// ATTR:         scf.for
func.func @register_block_attribute(%lhs: tensor<1x1x60x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x60x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<register_block = [5, 24]>} : tensor<1x1x60x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x60x37xf32>
  return %0 : tensor<1x1x60x37xf32>
}

// -----

// Mode 2, two groups of 8 rows on average (the large visits of 64 x 32
// register blocks, 384 x 512, as in mode 1): no zero fill of the result
// (every local group's slice is written); for each index of the other contracting dimensions, blocks of
// the group's rows [start, end) in steps of tile_k, each packing both
// operands (the lhs along its free dimension into panels of 6 rows), then
// the micro-kernel reads its lhs elements from the lhs panels. Both packings
// prefetch the row 8 ahead (clamped to the group's last row) from the
// operands' buffers.

// AVX2-LABEL: func.func @mode2
// AVX2-SAME:    %[[X:[a-z0-9]+]]: tensor<1x16x1x4xf32>, %[[DY:[a-z0-9]+]]: tensor<1x16x1x3xf32>
// AVX2-DAG:     %[[C256:.+]] = arith.constant 256 : index
// AVX2-DAG:     %[[DYBUF:.+]] = bufferization.to_buffer %[[DY]] read_only
// AVX2-DAG:     %[[XBUF:.+]] = bufferization.to_buffer %[[X]] read_only
// AVX2-NOT:     linalg.fill
// AVX2:         %[[DEST:.+]] = tensor.empty() : tensor<2x1x4x3xf32>
// AVX2-NOT:     linalg.fill
// AVX2:         scf.forall (%{{.+}}) in (2) shared_outs(%{{.+}} = %[[DEST]])
// AVX2:           %[[B:.+]]:2 = scf.if
// AVX2:           bufferization.alloc_tensor() : tensor<64x257x6xf32>
// AVX2:           bufferization.alloc_tensor() : tensor<32x257x16xf32>
// AVX2:           bufferization.alloc_tensor() : tensor<32x384x16xf32>
// AVX2-NOT:       linalg.fill
// AVX2:           scf.for %{{.+}} = %[[B]]#0 to %[[B]]#1 step %[[C256]]
// AVX2:             %[[LP:.+]] = scf.for %[[KK:.+]] = %c0{{(_[0-9]+)?}} to
// AVX2:               %[[ROW:.+]] = arith.addi %{{.+}}, %[[KK]]
// AVX2:               %[[AHEAD:.+]] = arith.addi %[[ROW]], %c8
// AVX2:               %[[AT:.+]] = arith.minsi %[[AHEAD]], %{{.+}}
// AVX2-NEXT:          memref.prefetch %[[XBUF]][%{{.+}}, %[[AT]], %{{.+}}, %{{.+}}], read, locality<3>, data
// AVX2:               vector.transfer_read %[[X]]{{.*}} : tensor<1x16x1x4xf32>, vector<6xf32>
// AVX2:             scf.for
// AVX2:               memref.prefetch %[[DYBUF]]
// AVX2:               vector.transfer_read %[[DY]]{{.*}} : tensor<1x16x1x3xf32>, vector<16xf32>
// AVX2:             scf.for
// AVX2:               tensor.extract %[[LP]]{{.*}} : tensor<64x257x6xf32>
func.func @mode2(%x: tensor<1x16x1x4xf32>, %dy: tensor<1x16x1x3xf32>, %gs: tensor<1x5xi32>, %off: tensor<i32>) -> tensor<2x1x4x3xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<i32>) dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [1]> : tensor<1x16x1x4xf32>, tensor<1x16x1x3xf32>, tensor<1x5xi32> -> tensor<2x1x4x3xf32>
  return %0 : tensor<2x1x4x3xf32>
}
