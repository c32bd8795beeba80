// RUN: gmm-opt %s -split-input-file -gmm-materialize-metadata=parallel -canonicalize -cse | FileCheck %s

// gmm-materialize-metadata{parallel}: one scf.forall with an iteration per
// group, a thread each (the mapping also keeps canonicalization from inlining
// one iteration into the host code). Iteration %i runs the clamped prefix sum over groups 0..%i itself
// (start + min(size, extent - start), as the serial form), counting the
// visits of the computed groups [max(offset, 0), min(offset + local, g))
// among them, and writes group %i's start and end, its visits at
// [visit start, visit end) clamped to the lists (bound 3), and, as the last
// iteration, the visit count; the count is read where it is used.

// CHECK-LABEL: func.func @schedule
// CHECK-SAME:    %[[GS:[a-z0-9]+]]: tensor<3xi32>, %[[OFF:[a-z0-9]+]]: index
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK:         %[[FIRST:.+]] = arith.maxsi %[[OFF]], %[[C0]] : index
// CHECK:         %[[LAST:.+]] = arith.maxsi %{{.+}}, %[[FIRST]] : index
// CHECK:         %[[E3:.+]] = tensor.empty() : tensor<3xindex>
// CHECK:         %[[E1:.+]] = tensor.empty() : tensor<1xindex>
// CHECK:         %[[F:.+]]:5 = scf.forall (%[[I:.+]]) in (3) shared_outs(%[[ST:.+]] = %[[E3]], %[[EN:.+]] = %[[E3]], %[[GI:.+]] = %[[E3]], %[[TI:.+]] = %[[E3]], %[[NV:.+]] = %[[E1]]) -> (tensor<3xindex>, tensor<3xindex>, tensor<3xindex>, tensor<3xindex>, tensor<1xindex>) {
// CHECK:           %[[ISG:.+]] = arith.cmpi ult, %[[I]], %[[C3]] : index
// CHECK:           %[[IP1:.+]] = arith.addi %[[I]], %[[C1]] : index
// CHECK:           %[[UPTO:.+]] = arith.select %[[ISG]], %[[IP1]], %[[C0]] : index
// CHECK:           %[[P:.+]]:4 = scf.for %[[J:.+]] = %[[C0]] to %[[UPTO]] step %[[C1]] iter_args(%{{.+}} = %[[C0]], %[[END:.+]] = %[[C0]], %{{.+}} = %[[C0]], %[[VEND:.+]] = %[[C0]]) -> (index, index, index, index) {
// CHECK:             tensor.extract %[[GS]][%[[J]]] : tensor<3xi32>
// CHECK:             %[[ROOM:.+]] = arith.subi %[[C8]], %[[END]] : index
// CHECK:             %[[TAKE:.+]] = arith.minsi %{{.+}}, %[[ROOM]] : index
// CHECK:             %[[NEND:.+]] = arith.addi %[[END]], %[[TAKE]] : index
// CHECK:             %[[T0:.+]] = arith.divui %[[END]], %[[C4]] : index
// CHECK:             %[[T1:.+]] = arith.ceildivui %[[NEND]], %[[C4]] : index
// CHECK:             %[[EMPTY:.+]] = arith.cmpi eq, %[[END]], %[[NEND]] : index
// CHECK:             %[[TEND:.+]] = arith.select %[[EMPTY]], %[[T0]], %[[T1]] : index
// CHECK:             %[[TILES:.+]] = arith.subi %[[TEND]], %[[T0]] : index
// CHECK:             %[[GE:.+]] = arith.cmpi sge, %[[J]], %[[FIRST]] : index
// CHECK:             %[[LT:.+]] = arith.cmpi slt, %[[J]], %[[LAST]] : index
// CHECK:             %[[COMP:.+]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:             %[[MINE:.+]] = arith.select %[[COMP]], %[[TILES]], %[[C0]] : index
// CHECK:             %[[NVEND:.+]] = arith.addi %[[VEND]], %[[MINE]] : index
// CHECK:             scf.yield %[[END]], %[[NEND]], %[[VEND]], %[[NVEND]] : index, index, index, index
// CHECK:           %[[ONE:.+]] = arith.select %[[ISG]], %[[C1]], %[[C0]] : index
// CHECK:           %[[S0:.+]] = tensor.extract_slice %[[ST]][%[[I]]] [%[[ONE]]] [1]
// CHECK:           %[[W0:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[ONE]] step %[[C1]] iter_args(%[[A:.+]] = %[[S0]])
// CHECK-NEXT:        tensor.insert %[[P]]#0 into %[[A]][%[[K]]]
// CHECK:           %[[S1:.+]] = tensor.extract_slice %[[EN]][%[[I]]] [%[[ONE]]] [1]
// CHECK:           %[[W1:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[ONE]] step %[[C1]] iter_args(%[[A:.+]] = %[[S1]])
// CHECK-NEXT:        tensor.insert %[[P]]#1 into %[[A]][%[[K]]]
// CHECK:           %[[VS:.+]] = arith.minsi %[[P]]#2, %[[C3]] : index
// CHECK:           %[[VE:.+]] = arith.minsi %[[P]]#3, %[[C3]] : index
// CHECK:           %[[CNT:.+]] = arith.subi %[[VE]], %[[VS]] : index
// CHECK:           %[[FT:.+]] = arith.divui %[[P]]#0, %[[C4]] : index
// CHECK:           %[[S2:.+]] = tensor.extract_slice %[[GI]][%[[VS]]] [%[[CNT]]] [1]
// CHECK:           %[[W2:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[CNT]] step %[[C1]] iter_args(%[[A:.+]] = %[[S2]])
// CHECK-NEXT:        tensor.insert %[[I]] into %[[A]][%[[K]]]
// CHECK:           %[[S3:.+]] = tensor.extract_slice %[[TI]][%[[VS]]] [%[[CNT]]] [1]
// CHECK:           %[[W3:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[CNT]] step %[[C1]] iter_args(%[[A:.+]] = %[[S3]])
// CHECK-NEXT:        %[[TILE:.+]] = arith.addi %[[FT]], %[[K]] : index
// CHECK-NEXT:        tensor.insert %[[TILE]] into %[[A]][%[[K]]]
// CHECK:           %[[ISLAST:.+]] = arith.cmpi eq, %[[I]], %[[C2]] : index
// CHECK:           %[[ONEL:.+]] = arith.select %[[ISLAST]], %[[C1]], %[[C0]] : index
// CHECK:           %[[S4:.+]] = tensor.extract_slice %[[NV]][0] [%[[ONEL]]] [1]
// CHECK:           %[[W4:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[ONEL]] step %[[C1]] iter_args(%[[A:.+]] = %[[S4]])
// CHECK-NEXT:        tensor.insert %[[VE]] into %[[A]][%[[K]]]
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[W0]] into %[[ST]][%[[I]]] [%[[ONE]]] [1]
// CHECK-NEXT:        tensor.parallel_insert_slice %[[W1]] into %[[EN]][%[[I]]] [%[[ONE]]] [1]
// CHECK-NEXT:        tensor.parallel_insert_slice %[[W2]] into %[[GI]][%[[VS]]] [%[[CNT]]] [1]
// CHECK-NEXT:        tensor.parallel_insert_slice %[[W3]] into %[[TI]][%[[VS]]] [%[[CNT]]] [1]
// CHECK-NEXT:        tensor.parallel_insert_slice %[[W4]] into %[[NV]][0] [%[[ONEL]]] [1]
// CHECK-NEXT:      }
// CHECK-NEXT:    } {mapping = [#gpu.thread<linear_dim_0>]}
// CHECK:         %[[N:.+]] = tensor.extract %[[F]]#4[%[[C0]]] : tensor<1xindex>
// CHECK:         return %[[N]],
func.func @schedule(%gs: tensor<3xi32>, %off: index) -> (index, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>) {
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%c8) local_groups(%c2) offset(%off) tile_size = 4 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  return %n, %g, %t, %s, %e : index, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
}

// -----

// With a dynamic number of groups there is at least one iteration, so that
// the visit count of no groups (0) is written too; the count is read inside
// the loop that uses it.

// CHECK-LABEL: func.func @dynamic_groups
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK:         %[[G:.+]] = tensor.dim %{{.+}}, %[[C0]] : tensor<?xi32>
// CHECK:         %[[ITER:.+]] = arith.maxsi %[[G]], %[[C1]] : index
// Only the count is used: canonicalization drops the other outputs.
// CHECK:         %[[F:.+]] = scf.forall (%{{.+}}) in (%[[ITER]]) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<1xindex>)
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[C0]]) -> (index) {
// CHECK-NEXT:      %[[N:.+]] = tensor.extract %[[F]][%[[C0]]] : tensor<1xindex>
// CHECK-NEXT:      arith.addi %[[ACC]], %[[N]] : index
func.func @dynamic_groups(%gs: tensor<?xi32>, %extent: index, %steps: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%c4) tile_size = 16 : tensor<?xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  %sum = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %c0) -> (index) {
    %next = arith.addi %acc, %n : index
    scf.yield %next : index
  }
  return %sum : index
}

// -----

// Only the bounds are used (mode 2): two outputs, no visit counting.

// CHECK-LABEL: func.func @bounds_only
// CHECK:         scf.forall (%{{.+}}) in (%{{.+}}) shared_outs(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<?xindex>, tensor<?xindex>)
// CHECK:           scf.for {{.*}} -> (index, index)
// CHECK-NOT:         arith.divui
// CHECK:             scf.yield
// CHECK-COUNT-2:   tensor.parallel_insert_slice
// CHECK-NOT:       tensor.parallel_insert_slice
// CHECK:         return
func.func @bounds_only(%gs: tensor<?xi64>, %extent: index) -> (tensor<?xindex>, tensor<?xindex>) {
  %c4 = arith.constant 4 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%c4) tile_size = 16 : tensor<?xi64> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  return %s, %e : tensor<?xindex>, tensor<?xindex>
}
