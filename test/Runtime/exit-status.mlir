// A kernel's fault reaches the exit status: libgmm_cuda_runtime prints the
// failure once (the later calls that return the same sticky error, freeing
// and unloading, print nothing) and, having printed an error, makes the
// process exit with status 1 at its end, so that a script running the
// program fails. This lives in the runtime, not the simulator: it holds on
// a real GPU as on gmm's simulated GPU. (A device-side assertion faults on
// both; an out-of-bounds write may not on a GPU.)

// REQUIRES: cuda-device
// RUN: mlir-opt %s --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_60 cubin-features=+ptx60" -o %t.mlir
// RUN: %cuda_env not mlir-runner %t.mlir -e fails --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --implicit-check-not=gmm-cuda-runtime
// The same program with an assertion that holds exits with status 0.
// RUN: %cuda_env mlir-runner %t.mlir -e holds --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=HOLDS --allow-empty

// CHECK: Assertion `thread 0 fails` failed.
// CHECK: gmm-cuda-runtime: error: mgpuStreamSynchronize: cuStreamSynchronize failed: CUDA_ERROR_ASSERT (device-side assert triggered)
// HOLDS-NOT: {{.}}

module attributes {gpu.container_module} {
  func.func @fails() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch async [%t0] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %ok = arith.cmpi ne, %tx, %c0 : index
      cf.assert %ok, "thread 0 fails"
      gpu.terminator
    }
    gpu.wait [%t1]
    return
  }

  func.func @holds() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch async [%t0] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
      %c2_ = arith.constant 2 : index
      %ok = arith.cmpi ult, %tx, %c2_ : index
      cf.assert %ok, "every thread passes"
      gpu.terminator
    }
    gpu.wait [%t1]
    return
  }
}
