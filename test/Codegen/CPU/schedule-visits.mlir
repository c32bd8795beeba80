// RUN: gmm-opt %s -split-input-file -gmm-cpu-schedule-visits | FileCheck %s

// A parallel loop without a schedule hands out one iteration at a time.

// CHECK-LABEL: func.func @visits
// CHECK:         omp.parallel {
// CHECK-NEXT:      omp.wsloop schedule(dynamic) {
// CHECK-NEXT:        omp.loop_nest (%{{.+}}) : index = (%{{.+}}) to (%{{.+}}) step (%{{.+}}) {
// CHECK-NEXT:          memref.store
func.func @visits(%n: index, %buf: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %f, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A loop with a schedule keeps it, chunk included; every loop of the
// function without one (here the second) is changed.

// CHECK-LABEL: func.func @kept
// CHECK:         omp.wsloop schedule(static = %{{.+}} : i32) {
// CHECK:         omp.wsloop schedule(dynamic) {
// CHECK-NOT:     omp.wsloop
func.func @kept(%n: index, %buf: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %chunk = arith.constant 4 : i32
  %f = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop schedule(static = %chunk : i32) {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %f, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %f, %buf[%i] : memref<?xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
