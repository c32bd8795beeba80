// Without a CUDA driver, the first mgpu* call of a compiled GPU program (the
// module load in a global constructor) prints one clear line and aborts. The
// missing driver is simulated with GMM_CUDA_DRIVER_LIBRARY, so this runs the
// same with or without a GPU.

// RUN: mlir-opt %S/Inputs/add-one.mlir --convert-linalg-to-loops \
// RUN:   --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_60 cubin-features=+ptx60" \
// RUN: | env GMM_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   not --crash mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   2>&1 | FileCheck %s

// CHECK: gmm-cuda-runtime: error: mgpuModuleLoadJIT: no CUDA driver (/nonexistent/libcuda.so.1 not found)
// CHECK-NOT: [3, 3
