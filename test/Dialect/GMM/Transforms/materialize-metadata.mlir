// RUN: gmm-opt %s -split-input-file -gmm-materialize-metadata -canonicalize -cse | FileCheck %s

// The schedule becomes: a prefix sum of the clamped sizes (starts and ends,
// start + min(size, extent - start), which cannot overflow), then one loop
// over the computed groups [max(offset, 0), min(offset + local, g)) that
// appends each non-empty group's tiles, every store guarded by the bound
// min(ceil(extent / tile) + min(local, extent) - 1, extent) = 3.

// CHECK-LABEL: func.func @schedule
// CHECK-SAME:    %[[GS:[a-z0-9]+]]: tensor<3xi32>, %[[OFF:[a-z0-9]+]]: index
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[Z64:.+]] = arith.constant 0 : i64
// CHECK-DAG:     %[[E64:.+]] = arith.constant 8 : i64
// CHECK:         %[[FIRST:.+]] = arith.maxsi %[[OFF]], %[[C0]] : index
// CHECK:         %[[PAST:.+]] = arith.cmpi sgt, %[[OFF]], %[[C1]] : index
// CHECK:         %[[OPLUS:.+]] = arith.addi %[[OFF]], %[[C2]] : index
// CHECK:         %[[SEL:.+]] = arith.select %[[PAST]], %[[C3]], %[[OPLUS]] : index
// CHECK:         %[[LAST:.+]] = arith.maxsi %[[SEL]], %[[FIRST]] : index
// CHECK:         %[[B:.+]]:3 = scf.for %[[G:.+]] = %[[C0]] to %[[C3]] step %[[C1]] iter_args(%[[ACCUM:.+]] = %[[C0]], %[[ST:.+]] = %{{.+}}, %[[EN:.+]] = %{{.+}}) -> (index, tensor<?xindex>, tensor<?xindex>)
// CHECK:           %[[S:.+]] = tensor.extract %[[GS]][%[[G]]] : tensor<3xi32>
// CHECK:           %[[S64:.+]] = arith.extsi %[[S]] : i32 to i64
// CHECK:           %[[POS:.+]] = arith.maxsi %[[S64]], %[[Z64]] : i64
// CHECK:           %[[CL:.+]] = arith.minsi %[[POS]], %[[E64]] : i64
// CHECK:           %[[SI:.+]] = arith.index_cast %[[CL]] : i64 to index
// CHECK:           %[[ROOM:.+]] = arith.subi %[[C8]], %[[ACCUM]] : index
// CHECK:           %[[TAKE:.+]] = arith.minsi %[[SI]], %[[ROOM]] : index
// CHECK:           %[[END:.+]] = arith.addi %[[ACCUM]], %[[TAKE]] : index
// CHECK:           %[[ST2:.+]] = tensor.insert %[[ACCUM]] into %[[ST]][%[[G]]]
// CHECK:           %[[EN2:.+]] = tensor.insert %[[END]] into %[[EN]][%[[G]]]
// CHECK:           scf.yield %[[END]], %[[ST2]], %[[EN2]]
// CHECK:         %[[V:.+]]:3 = scf.for %[[GR:.+]] = %[[FIRST]] to %[[LAST]] step %[[C1]] iter_args(%[[CNT:.+]] = %[[C0]],
// CHECK:           %[[START:.+]] = tensor.extract %[[B]]#1[%[[GR]]]
// CHECK:           %[[STOP:.+]] = tensor.extract %[[B]]#2[%[[GR]]]
// CHECK:           %[[T0:.+]] = arith.divui %[[START]], %[[C4]] : index
// CHECK:           %[[T1:.+]] = arith.ceildivui %[[STOP]], %[[C4]] : index
// CHECK:           %[[EMPTY:.+]] = arith.cmpi eq, %[[START]], %[[STOP]] : index
// CHECK:           %[[TEND:.+]] = arith.select %[[EMPTY]], %[[T0]], %[[T1]] : index
// CHECK:           scf.for %[[T:.+]] = %[[T0]] to %[[TEND]] step %[[C1]] iter_args(%[[N:[a-z0-9_]+]] = %[[CNT]],
// CHECK:             %[[FITS:.+]] = arith.cmpi ult, %[[N]], %[[C3]] : index
// CHECK:             scf.if %[[FITS]]
// CHECK:               tensor.insert %[[GR]] into %{{.+}}[%[[N]]] : tensor<3xindex>
// CHECK:               tensor.insert %[[T]] into %{{.+}}[%[[N]]] : tensor<3xindex>
// CHECK:               arith.addi %[[N]], %[[C1]] : index
// CHECK:         return %[[V]]#0, %{{.+}}, %{{.+}}, %[[B]]#1, %[[B]]#2
func.func @schedule(%gs: tensor<3xi32>, %off: index) -> (index, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>) {
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%c8) local_groups(%c2) offset(%off) tile_size = 4 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  return %n, %g, %t, %s, %e : index, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
}

// -----

// Only the bounds are used (mode 2): no visit lists are built.

// CHECK-LABEL: func.func @bounds_only
// CHECK:         scf.for
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK-NOT:     scf.for
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @bounds_only(%gs: tensor<?xi64>, %extent: index) -> (tensor<?xindex>, tensor<?xindex>) {
  %c4 = arith.constant 4 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%c4) tile_size = 16 : tensor<?xi64> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  return %s, %e : tensor<?xindex>, tensor<?xindex>
}

// -----

// The visit lists are sized by what can be visited (#15, class 13): at most
// one visit per row, none without rows or computed groups, and nothing in
// the bound can overflow, whatever the extent and local groups (near
// INT64_MAX, ceil(extent / tile) + local - 1 overflowed, and so did the
// prefix sum of the clamped sizes). The bound is capped at 2^60 - 1 entries,
// whose bytes fit in 64 bits (#38, class 8: with an extent near 2^63 the
// lists' byte size wrapped around to a few bytes, which the visits overran).

// CHECK-LABEL: func.func @bound_at_extremes
// CHECK-SAME:    %[[GS:[a-z0-9]+]]: tensor<?xi64>, %[[EXT:[a-z0-9]+]]: index, %[[LOCAL:[a-z0-9]+]]: index
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[CMAX:.+]] = arith.constant 1152921504606846975 : index
// CHECK:         %[[E:.+]] = arith.maxsi %[[EXT]], %[[C0]] : index
// CHECK:         %[[TILES:.+]] = arith.ceildivsi %[[E]], %{{.+}} : index
// CHECK:         %[[MIN:.+]] = arith.minsi %[[LOCAL]], %[[E]] : index
// CHECK:         %[[EXTRA:.+]] = arith.subi %[[MIN]], %[[C1]] : index
// CHECK:         %[[ROOM:.+]] = arith.subi %[[E]], %[[EXTRA]] : index
// CHECK:         %[[BEYOND:.+]] = arith.cmpi sgt, %[[TILES]], %[[ROOM]] : index
// CHECK:         %[[SUM:.+]] = arith.addi %[[TILES]], %[[EXTRA]] : index
// CHECK:         %[[B0:.+]] = arith.select %[[BEYOND]], %[[E]], %[[SUM]] : index
// CHECK:         %[[NOTILES:.+]] = arith.cmpi sle, %[[TILES]], %[[C0]] : index
// CHECK:         %[[NOGROUPS:.+]] = arith.cmpi sle, %[[LOCAL]], %[[C0]] : index
// CHECK:         %[[NONE:.+]] = arith.ori %[[NOTILES]], %[[NOGROUPS]] : i1
// CHECK:         %[[B1:.+]] = arith.select %[[NONE]], %[[C0]], %[[B0]] : index
// CHECK:         %[[BOUND:.+]] = arith.minsi %[[B1]], %[[CMAX]] : index
// CHECK:         tensor.empty(%[[BOUND]]) : tensor<?xindex>
func.func @bound_at_extremes(%gs: tensor<?xi64>, %extent: index, %local: index) -> (index, tensor<?xindex>, tensor<?xindex>) {
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%local) tile_size = 4 : tensor<?xi64> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  return %n, %g, %t : index, tensor<?xindex>, tensor<?xindex>
}

// -----

// Visit lists of a static size (a hand-written op may declare one) hold that
// many visits: every store is guarded by it, whatever the extent.

// CHECK-LABEL: func.func @static_lists
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK:         tensor.empty() : tensor<2xindex>
// CHECK:         scf.for
// CHECK:           scf.for {{.+}} iter_args(%[[N:[a-z0-9_]+]] =
// CHECK:             %[[FITS:.+]] = arith.cmpi ult, %[[N]], %[[C2]] : index
// CHECK:             scf.if %[[FITS]]
func.func @static_lists(%gs: tensor<3xi32>, %extent: index) -> (index, tensor<2xindex>, tensor<2xindex>) {
  %c3 = arith.constant 3 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%c3) tile_size = 4 : tensor<3xi32> -> tensor<2xindex>, tensor<2xindex>, tensor<?xindex>, tensor<?xindex>
  return %n, %g, %t : index, tensor<2xindex>, tensor<2xindex>
}
