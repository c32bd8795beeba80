// Without a CUDA driver, every mgpu* call of a compiled GPU program prints
// one clear line, from the first (the module load in a global constructor)
// on, and returns, as MLIR's own runtime wrappers do: the program runs to its
// end without its GPU work, and then exits with status 1 (it printed an
// error), so that a script that runs it sees the failure. With
// GMM_CUDA_RUNTIME_ON_ERROR=abort the first error aborts. The missing driver
// is simulated with GMM_CUDA_DRIVER_LIBRARY, so this runs the same with or
// without a GPU.

// RUN: mlir-opt %S/Inputs/add-one.mlir --convert-linalg-to-loops \
// RUN:   --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_60 cubin-features=+ptx60" \
// RUN:   -o %t.mlir
// RUN: env GMM_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   not mlir-runner %t.mlir --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   2>&1 | FileCheck %s
// RUN: env GMM_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 GMM_CUDA_RUNTIME_ON_ERROR=abort \
// RUN:   not --crash mlir-runner %t.mlir --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   2>&1 | FileCheck %s --check-prefix=ABORT

// CHECK: gmm-cuda-runtime: error: mgpuModuleLoadJIT: no CUDA driver (/nonexistent/libcuda.so.1 not found)
// CHECK: gmm-cuda-runtime: error: mgpuStreamCreate: no CUDA driver (/nonexistent/libcuda.so.1 not found)
// The kernel never ran: the host buffer keeps its 2s.
// CHECK: [2, 2, 2, 2, 2, 2, 2, 2]

// ABORT: gmm-cuda-runtime: error: mgpuModuleLoadJIT: no CUDA driver (/nonexistent/libcuda.so.1 not found)
// ABORT-NOT: gmm-cuda-runtime
// ABORT-NOT: [2, 2
