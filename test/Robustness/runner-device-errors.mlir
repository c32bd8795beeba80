// gmm-runner on the GPU (or gmm's simulated GPU): a failure in the CUDA
// runtime is reported once, by gmm-runner, as its one line; the runtime
// keeps it (Record mode) instead of printing a line of its own.

// REQUIRES: gmm-runner, cuda-device
// A result of 4 TB from empty inputs: the device allocation fails.
// RUN: not gmm-runner %s %cuda_target -e dynamic_ragged --arg-shape=0:1000000x0 --arg-shape=1:4x0x1000000 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEVICE-ALLOC
// DEVICE-ALLOC: gmm-runner: error: running @dynamic_ragged: mgpuMemAlloc: cuMemAlloc{{(Async)?}} failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory){{.*}}{{$}}
// DEVICE-ALLOC-NOT: {{.}}
// Dynamic sizes that contradict each other fail the call with one line:
// gmm-check-sizes' checks run on the host, before any kernel is launched.
// RUN: not gmm-runner %s %cuda_target -e two_dots --arg-shape=0:8x4 --arg-shape=1:2x4x3 --arg-shape=2:2x5x3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEVICE-SIZES
// DEVICE-SIZES: gmm-runner: error: @two_dots aborted: gmm.ragged_dot at {{.*}}runner-device-errors.mlir:{{[0-9]+}}:8: lhs contracting dimension 1 and rhs contracting dimension 1 differ{{$}}
// DEVICE-SIZES-NOT: {{.}}

func.func @dynamic_ragged(%lhs: tensor<?x?xf32>, %rhs: tensor<4x?x?xf32>,
                          %group_sizes: tensor<4xi32>) -> tensor<?x?xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<4x?x?xf32>, tensor<4xi32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @two_dots(%lhs: tensor<?x?xf32>, %rhs1: tensor<2x?x?xf32>,
                    %rhs2: tensor<2x?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %gs = arith.constant dense<[3, 5]> : tensor<2xi32>
  %0 = gmm.ragged_dot %lhs, %rhs1, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<2x?x?xf32>, tensor<2xi32> -> tensor<?x?xf32>
  %1 = gmm.ragged_dot %lhs, %rhs2, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<?x?xf32>, tensor<2x?x?xf32>, tensor<2xi32> -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}
