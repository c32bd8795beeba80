// The CUDA toolkit's stub libcuda is never taken for a driver, even when it
// is found under the driver's name (libcuda.so.1) on the library path, as
// some container images arrange: its cuInit says it is a stub, and the
// runtime reports that instead of failing in a later call.

// REQUIRES: cuda-stub
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: ln -s %cuda_stub %t.dir/libcuda.so.1
// RUN: mlir-opt %S/Inputs/add-one.mlir --convert-linalg-to-loops \
// RUN:   --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_60 cubin-features=+ptx60" \
// RUN: | env LD_LIBRARY_PATH=%t.dir GMM_CUDA_RUNTIME_ON_ERROR=abort \
// RUN:   not --crash mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN:   2>&1 | FileCheck %s

// CHECK: gmm-cuda-runtime: error: mgpuModuleLoadJIT: no CUDA driver ({{.*}}/libcuda.so.1 is the CUDA toolkit's stub library, which is for linking only)
