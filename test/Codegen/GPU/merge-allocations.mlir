// RUN: gmm-opt %s -split-input-file -allow-unregistered-dialect --gmm-gpu-merge-allocations -cse | FileCheck %s
// RUN: gmm-opt %s -split-input-file -allow-unregistered-dialect --gmm-gpu-merge-allocations=workspace-argument=1 -cse | FileCheck %s --check-prefix=WS

// gmm-gpu-merge-allocations: the temporaries of a block (freed in it) become
// views of one byte buffer at 256-byte aligned offsets, sized where the
// first was allocated and freed where the last one was; a buffer that is
// returned stays as it is.


// CHECK-LABEL: func.func @metadata(
// CHECK-SAME:    %[[G:[a-z0-9]+]]: index, %[[BOUND:[a-z0-9]+]]: index
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// Starts: 8 * g bytes at 0; the visit ids at O1 = align(8 g).
// CHECK:         %[[B0:.+]] = arith.muli %[[G]], %[[C8]] : index
// CHECK-NEXT:    %[[C255:.+]] = arith.constant 255 : index
// CHECK-DAG:     %[[U0:.+]] = arith.addi %[[B0]], %[[C255]] : index
// CHECK-DAG:     %[[D0:.+]] = arith.divui %[[U0]], %[[C256]] : index
// CHECK-DAG:     %[[O1:.+]] = arith.muli %[[D0]], %[[C256]] : index
// 8 * bound bytes at O1; the count at O2 = align(O1 + 8 bound).
// CHECK-DAG:     %[[B1:.+]] = arith.muli %[[BOUND]], %[[C8]] : index
// CHECK-DAG:     %[[E1:.+]] = arith.addi %[[O1]], %[[B1]] : index
// CHECK-DAG:     %[[U1:.+]] = arith.addi %[[E1]], %[[C255]] : index
// CHECK-DAG:     %[[D1:.+]] = arith.divui %[[U1]], %[[C256]] : index
// CHECK-DAG:     %[[O2:.+]] = arith.muli %[[D1]], %[[C256]] : index
// 3 i32 (12 bytes, folded) at O2; the total is align(O2 + 12).
// CHECK:         %[[C12:.+]] = arith.constant 12 : index
// CHECK-DAG:     %[[E2:.+]] = arith.addi %[[O2]], %[[C12]] : index
// CHECK-DAG:     %[[U2:.+]] = arith.addi %[[E2]], %[[C255]] : index
// CHECK-DAG:     %[[D2:.+]] = arith.divui %[[U2]], %[[C256]] : index
// CHECK-DAG:     %[[TOTAL:.+]] = arith.muli %[[D2]], %[[C256]] : index
// CHECK:         %[[BUF:.+]] = gpu.alloc  (%[[TOTAL]]) : memref<?xi8>
// CHECK-NEXT:    %[[V0:.+]] = memref.view %[[BUF]][%[[C0]]][%[[G]]] : memref<?xi8> to memref<?xindex>
// CHECK-NEXT:    %[[OUT:.+]] = gpu.alloc  () : memref<16xf32>
// CHECK-NEXT:    %[[V1:.+]] = memref.view %[[BUF]][%[[O1]]][%[[BOUND]]] : memref<?xi8> to memref<?xindex>
// CHECK-NEXT:    %[[V2:.+]] = memref.view %[[BUF]][%[[O2]]][] : memref<?xi8> to memref<3xi32>
// CHECK-NEXT:    gpu.launch
// CHECK:           memref.store %{{.+}}, %[[V0]]
// CHECK:           memref.store %{{.+}}, %[[V1]]
// CHECK:           memref.store %{{.+}}, %[[V2]]
// CHECK:           memref.store %{{.+}}, %[[OUT]]
// CHECK:         }
// CHECK-NEXT:    gpu.dealloc  %[[BUF]] : memref<?xi8>
// CHECK-NEXT:    return %[[OUT]] : memref<16xf32>
// With workspace-argument the function takes the caller's workspace last:
// the entry block's first group lives in it when it is large enough, else
// in an allocation that is freed after the last use; @metadata_workspace_bytes
// computes the same total from the same arguments.
// WS-LABEL: func.func @metadata(
// WS-SAME:    %[[G:[a-z0-9]+]]: index, %[[BOUND:[a-z0-9]+]]: index, %[[WS:[a-z0-9]+]]: memref<?xi8> {gmm.workspace}) -> memref<16xf32>
// WS:         %[[DIM:.+]] = memref.dim %[[WS]], %{{.+}} : memref<?xi8>
// WS-NEXT:    %[[FITS:.+]] = arith.cmpi uge, %[[DIM]], %[[TOTAL:[^ ]+]] : index
// WS-NEXT:    %[[BUF:.+]] = scf.if %[[FITS]] -> (memref<?xi8>) {
// WS-NEXT:      scf.yield %[[WS]] : memref<?xi8>
// WS-NEXT:    } else {
// WS-NEXT:      %[[OWN:.+]] = gpu.alloc  (%[[TOTAL]]) : memref<?xi8>
// WS-NEXT:      scf.yield %[[OWN]] : memref<?xi8>
// WS-NEXT:    }
// WS-NEXT:    memref.view %[[BUF]][%{{.+}}][%[[G]]] : memref<?xi8> to memref<?xindex>
// WS:         gpu.launch
// WS:         %[[TRUE:.+]] = arith.constant true
// WS-NEXT:    %[[ALLOCATED:.+]] = arith.xori %[[FITS]], %[[TRUE]] : i1
// WS-NEXT:    scf.if %[[ALLOCATED]] {
// WS-NEXT:      gpu.dealloc  %[[BUF]] : memref<?xi8>
// WS-NEXT:    }
// WS-NEXT:    return
// WS-LABEL: func.func @metadata_workspace_bytes(
// WS-SAME:    %[[G2:[a-z0-9]+]]: index, %[[BOUND2:[a-z0-9]+]]: index) -> index attributes {gmm.workspace_size_of = @metadata}
// WS:         arith.muli %[[G2]], %{{.+}} : index
// WS:         arith.muli %[[BOUND2]], %{{.+}} : index
// WS:         %[[C12:.+]] = arith.constant 12 : index
// WS:         %[[T2:.+]] = arith.muli %{{.+}}, %{{.+}} : index
// WS-NEXT:    return %[[T2]] : index
func.func @metadata(%g: index, %bound: index) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %f = arith.constant 1.0 : f32
  %starts = gpu.alloc (%g) : memref<?xindex>
  %out = gpu.alloc () : memref<16xf32>
  %ids = gpu.alloc (%bound) : memref<?xindex>
  %count = gpu.alloc () : memref<3xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%i = %c1, %j = %c1, %k = %c1) {
    memref.store %c0, %starts[%c0] : memref<?xindex>
    memref.store %c0, %ids[%c0] : memref<?xindex>
    memref.store %one, %count[%c0] : memref<3xi32>
    memref.store %f, %out[%c0] : memref<16xf32>
    gpu.terminator
  }
  gpu.dealloc %ids : memref<?xindex>
  gpu.dealloc %starts : memref<?xindex>
  gpu.dealloc %count : memref<3xi32>
  return %out : memref<16xf32>
}

// -----

// A buffer whose size is computed after the group's first allocation starts
// a group of its own; alone in it, it stays an allocation. Buffers of a
// nested block are grouped in that block.

// CHECK-LABEL: func.func @groups(
// CHECK:         %[[A:.+]] = gpu.alloc  () : memref<64xi8>
// CHECK:         %[[N:.+]] = arith.muli
// CHECK:         %[[B:.+]] = gpu.alloc  (%[[N]]) : memref<?xf16>
// CHECK:         scf.if
// CHECK-DAG:       %[[Z:.+]] = arith.constant 0 : index
// CHECK-DAG:       %[[C256:.+]] = arith.constant 256 : index
// CHECK-DAG:       %[[C512:.+]] = arith.constant 512 : index
// CHECK:           %[[BUF:.+]] = gpu.alloc  (%[[C512]]) : memref<?xi8>
// CHECK-NEXT:      %[[V0:.+]] = memref.view %[[BUF]][%[[Z]]][] : memref<?xi8> to memref<4xf32>
// CHECK-NEXT:      %[[V1:.+]] = memref.view %[[BUF]][%[[C256]]][] : memref<?xi8> to memref<8xi64>
// CHECK-NEXT:      "test.use"(%[[V0]], %[[V1]])
// CHECK-NEXT:      gpu.dealloc  %[[BUF]] : memref<?xi8>
// CHECK-NEXT:    }
// CHECK-NEXT:    "test.use"(%[[A]], %[[B]])
// CHECK-NEXT:    gpu.dealloc  %[[A]] : memref<64xi8>
// CHECK-NEXT:    gpu.dealloc  %[[B]] : memref<?xf16>
// A group of one goes in the workspace too; the nested block's group is
// merged as before.
// WS-LABEL: func.func @groups(
// WS:         scf.if %{{.+}} -> (memref<?xi8>)
// WS:         memref.view %{{.+}} to memref<64xi8>
// WS:         gpu.alloc  (%{{.+}}) : memref<?xf16>
// WS:         scf.if
// WS:           gpu.alloc  (%{{.+}}) : memref<?xi8>
// WS-LABEL: func.func @groups_workspace_bytes(
// WS:         %[[C256:.+]] = arith.constant 256 : index
// WS-NEXT:    return %[[C256]] : index
func.func @groups(%n: index, %flag: i1) {
  %a = gpu.alloc () : memref<64xi8>
  %two = arith.constant 2 : index
  %m = arith.muli %n, %two : index
  %b = gpu.alloc (%m) : memref<?xf16>
  scf.if %flag {
    %c = gpu.alloc () : memref<4xf32>
    %d = gpu.alloc () : memref<8xi64>
    "test.use"(%c, %d) : (memref<4xf32>, memref<8xi64>) -> ()
    gpu.dealloc %c : memref<4xf32>
    gpu.dealloc %d : memref<8xi64>
  }
  "test.use"(%a, %b) : (memref<64xi8>, memref<?xf16>) -> ()
  gpu.dealloc %a : memref<64xi8>
  gpu.dealloc %b : memref<?xf16>
  return
}

// -----

// Not temporaries: a returned buffer, one freed in another block, one with
// a layout, and an asynchronous allocation stay as they are.

// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     memref.view
// CHECK-COUNT-4: gpu.alloc
// CHECK-NOT:     memref.view
// CHECK:         return
// Nothing for the workspace: it needs no bytes.
// WS-LABEL: func.func @kept(
// WS-SAME:    %{{.+}}: i1, %{{.+}}: memref<?xi8> {gmm.workspace}) -> memref<4xf32>
// WS-NOT:     memref.view
// WS-LABEL: func.func @kept_workspace_bytes(
// WS:         %[[C0:.+]] = arith.constant 0 : index
// WS-NEXT:    return %[[C0]] : index
func.func @kept(%flag: i1) -> memref<4xf32> {
  %ret = gpu.alloc () : memref<4xf32>
  %elsewhere = gpu.alloc () : memref<4xf32>
  %strided = gpu.alloc () : memref<4xf32, strided<[2]>>
  %t0 = gpu.wait async
  %async, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
  "test.use"(%elsewhere, %strided, %async) : (memref<4xf32>, memref<4xf32, strided<[2]>>, memref<4xf32>) -> ()
  scf.if %flag {
    gpu.dealloc %elsewhere : memref<4xf32>
  }
  gpu.dealloc %strided : memref<4xf32, strided<[2]>>
  %t2 = gpu.dealloc async [%t1] %async : memref<4xf32>
  gpu.wait [%t2]
  return %ret : memref<4xf32>
}
