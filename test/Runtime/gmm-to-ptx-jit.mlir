// A gmm-to-ptx module is a complete host program: mlir-runner translates it
// (gpu.binary, gpu.launch_func), resolves every mgpu* call from
// libgmm_cuda_runtime.so and runs it. Without a driver (forced, so that the
// test means the same on a GPU machine) the first runtime call, the PTX
// module load of a global constructor, stops with the runtime's one line.

// RUN: gmm-opt %s --gmm-to-ptx=chip=sm_80 \
// RUN: | env GMM_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 GMM_CUDA_RUNTIME_ON_ERROR=abort not --crash mlir-runner \
// RUN:   --entry-point-result=void --shared-libs=%gmm_cuda_runtime 2>&1 | FileCheck %s

// CHECK: gmm-cuda-runtime: error: mgpuModuleLoadJIT: no CUDA driver ({{.*}}/nonexistent/libcuda.so.1{{.*}})

func.func @f(%lhs: tensor<64x32xbf16>, %rhs: tensor<4x32x48xbf16>, %gs: tensor<4xi32>) -> tensor<64x48xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x32xbf16>, tensor<4x32x48xbf16>, tensor<4xi32> -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// Constants are copied to device memory before the call.
func.func @main() {
  %lhs = arith.constant dense<1.0> : tensor<64x32xbf16>
  %rhs = arith.constant dense<1.0> : tensor<4x32x48xbf16>
  %gs = arith.constant dense<[16, 16, 16, 16]> : tensor<4xi32>
  %0 = call @f(%lhs, %rhs, %gs) : (tensor<64x32xbf16>, tensor<4x32x48xbf16>, tensor<4xi32>) -> tensor<64x48xf32>
  return
}
