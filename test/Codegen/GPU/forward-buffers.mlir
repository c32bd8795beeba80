// gmm-gpu-forward-buffers: buffers that scf.for / scf.if hand back unchanged
// are replaced by the buffers themselves, and the copies of a buffer onto
// itself that this reveals are dropped. Loops and branches that may hand back
// another buffer are left alone.

// RUN: gmm-opt %s -split-input-file --gmm-gpu-forward-buffers | FileCheck %s

// CHECK-LABEL: func.func @loop(
// CHECK-SAME:      %[[OUT:[a-z0-9]+]]: memref<?xf32>
// CHECK:         scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[OUT]]) -> (memref<?xf32>) {
// CHECK-NEXT:      memref.store %{{.+}}, %[[OUT]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:      scf.yield %[[OUT]] : memref<?xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     memref.copy
// CHECK-NEXT:    return %[[OUT]] : memref<?xf32>
func.func @loop(%out: memref<?xf32>, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %out) -> (memref<?xf32>) {
    memref.store %f, %b[%i] : memref<?xf32>
    scf.yield %b : memref<?xf32>
  }
  memref.copy %r, %out : memref<?xf32> to memref<?xf32>
  return %r : memref<?xf32>
}

// -----

// Both branches hand back the same buffer through casts: the result is the
// buffer, cast once before the branch.
// CHECK-LABEL: func.func @branch(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: memref<4xf32>
// CHECK-NEXT:    %[[CAST:.+]] = memref.cast %[[A]] : memref<4xf32> to memref<?xf32>
// CHECK-NEXT:    scf.if
// CHECK:         return %[[CAST]] : memref<?xf32>
func.func @branch(%a: memref<4xf32>, %c: i1) -> memref<?xf32> {
  %r = scf.if %c -> (memref<?xf32>) {
    %x = memref.cast %a : memref<4xf32> to memref<?xf32>
    scf.yield %x : memref<?xf32>
  } else {
    %y = memref.cast %a : memref<4xf32> to memref<?xf32>
    scf.yield %y : memref<?xf32>
  }
  return %r : memref<?xf32>
}

// -----

// A copy onto the buffer a cast of it came from is a self-copy.
// CHECK-LABEL: func.func @self_copy(
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @self_copy(%a: memref<4xf32>) {
  %x = memref.cast %a : memref<4xf32> to memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<4xf32>
  return
}

// -----

// Different buffers in the two branches: left alone.
// CHECK-LABEL: func.func @different(
// CHECK:         %[[R:.+]] = scf.if
// CHECK:         return %[[R]] : memref<4xf32>
func.func @different(%a: memref<4xf32>, %b: memref<4xf32>, %c: i1) -> memref<4xf32> {
  %r = scf.if %c -> (memref<4xf32>) {
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %b : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A loop that swaps its buffers hands back either one: left alone, and so is
// the copy between them.
// CHECK-LABEL: func.func @swap(
// CHECK:         %[[R:.+]]:2 = scf.for
// CHECK-NEXT:      scf.yield %[[Y:.+]], %[[X:.+]] : memref<4xf32>, memref<4xf32>
// CHECK:         memref.copy %[[R]]#0, %[[R]]#1
// CHECK-NEXT:    return %[[R]]#0 : memref<4xf32>
func.func @swap(%a: memref<4xf32>, %b: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (memref<4xf32>, memref<4xf32>) {
    scf.yield %y, %x : memref<4xf32>, memref<4xf32>
  }
  memref.copy %r#0, %r#1 : memref<4xf32> to memref<4xf32>
  return %r#0 : memref<4xf32>
}
