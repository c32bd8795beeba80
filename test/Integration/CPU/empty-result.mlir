// A result without columns has nothing to compute, however many rows it
// has: no metadata is sized by its rows (#15, class 13: lhs [2^40, 0] made
// the CPU pipeline allocate 2^37 visit entries and write through the null
// pointer that malloc returned; INT64_MAX rows asked for more than 2^63
// bytes). Each run succeeds at once, on the CPU and on the GPU path.

// RUN: gmm-runner %s --arg-shape=0:1099511627776x0 --arg-shape=1:2x0x0 --values=2:0,0 --output=0:%t.tera.npy
// RUN: head -c 128 %t.tera.npy | FileCheck %s --check-prefix=TERA
// TERA: 'shape': (1099511627776, 0)
// RUN: gmm-runner %s --arg-shape=0:9223372036854775807x0 --arg-shape=1:2x0x0 --values=2:0,0 --output=0:%t.max.npy
// RUN: head -c 128 %t.max.npy | FileCheck %s --check-prefix=MAX
// MAX: 'shape': (9223372036854775807, 0)
// RUN: gmm-runner %s --arg-shape=0:1099511627776x0 --arg-shape=1:2x0x0 --values=2:0,0 %cuda_target --output=0:%t.gpu.npy
// RUN: head -c 128 %t.gpu.npy | FileCheck %s --check-prefix=TERA

func.func @main(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?x?xf32>, %gs: tensor<?xi32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x?xf32>, tensor<?x?x?xf32>, tensor<?xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
