// Runs Inputs/add-one.mlir on the GPU (or the simulated GPU) through
// libgmm_cuda_runtime.so. The PTX targets sm_60 so that the driver's JIT can
// run it on any newer device.

// REQUIRES: cuda-device
// RUN: mlir-opt %S/Inputs/add-one.mlir --convert-linalg-to-loops \
// RUN:   --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_60 cubin-features=+ptx60" \
// RUN: | %cuda_env mlir-runner --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// CHECK: [3, 3, 3, 3, 3, 3, 3, 3]
