// RUN: gmm-opt %s --gmm-to-cpu="parallel=false" --mlir-print-ir-after=gmm-configure 2>&1 >/dev/null | FileCheck %s --check-prefix=SERIAL

// Without OpenMP (parallel=false) gmm-to-cpu configures its ragged dots for
// one thread: one decode-like visit is enough, and it spans the rhs's 2048
// columns whatever the host's threads (with OpenMP, the host's: two of them
// would narrow it to 1024 columns, two visits).

// SERIAL-LABEL: func.func @one_group
// SERIAL:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [{{[0-9]+}}, 2048, 64], register_block = [{{[0-9]+}}, {{[0-9]+}}], micro_kernel = fma>}
func.func @one_group(%x: tensor<8x16xf32>, %w: tensor<1x16x2048xf32>, %gs: tensor<1xi32>) -> tensor<8x2048xf32> {
  %r = gmm.ragged_dot %x, %w, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<8x16xf32>, tensor<1x16x2048xf32>, tensor<1xi32> -> tensor<8x2048xf32>
  return %r : tensor<8x2048xf32>
}
