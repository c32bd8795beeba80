// RUN: gmm-opt %s -split-input-file --gmm-to-cpu --mlir-print-ir-after=gmm-cpu-schedule-visits 2>&1 >/dev/null | FileCheck %s
// RUN: gmm-opt %s -split-input-file --gmm-to-cpu="parallel=false" --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=SERIAL

// gmm-to-cpu runs the visits of a ragged dot on OpenMP threads, one visit
// at a time per thread (schedule(dynamic)): a weight gradient's visits
// contract over their group's rows, so their work follows the group sizes.
// The visit loop is the only parallel loop of the function. Without
// parallel=true there is no OpenMP loop and the pass does not run.

// CHECK-LABEL: func.func @mode2
// CHECK:         omp.parallel {
// CHECK-NEXT:      omp.wsloop schedule(dynamic) {
// CHECK-NEXT:        omp.loop_nest
// CHECK-NOT:     omp.wsloop
// CHECK:         return

// SERIAL-NOT:    gmm-cpu-schedule-visits
// SERIAL-NOT:    omp.wsloop
// SERIAL:        IR Dump After {{.+}} (convert-vector-to-llvm)
// SERIAL-NOT:    gmm-cpu-schedule-visits
// SERIAL-NOT:    omp.wsloop
// SERIAL:        llvm.func @mode2
func.func @mode2(%x: tensor<64x32xf32>, %dy: tensor<64x48xf32>, %gs: tensor<4xi32>) -> tensor<4x32x48xf32> {
  %r = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<64x32xf32>, tensor<64x48xf32>, tensor<4xi32> -> tensor<4x32x48xf32>
  return %r : tensor<4x32x48xf32>
}
