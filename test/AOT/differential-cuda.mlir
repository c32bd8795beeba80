// The differential test through gmm-aot for the GPU (differential.mlir):
// kernels embedded in the library, every call on its caller's stream with a
// workspace, on gmm's simulated GPU with its checks (or the machine's GPU).
// The same sets run on a real GPU from scripts/gpu-check.sh.
//
// REQUIRES: cuda-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: gmm-difftest --pipeline=cuda --seed=64 --configs=40 --emit-module=%t/cuda.mlir
// RUN: gmm-aot %t/cuda.mlir --target=cuda --chip=sm_90 -o %t/libcuda.so
// RUN: %cuda_env gmm-aot-difftest --library=%t/libcuda.so --seed=64 --configs=40 --device=gpu | FileCheck %s
// CHECK: configurations 0..39 of seed 64
// CHECK-NEXT: 40 passed, 0 failed

// Adversarial group sizes: negative, extreme, overflowing, offsets at the
// extremes.
// RUN: gmm-difftest --pipeline=cuda --seed=65 --configs=24 --adversarial --emit-module=%t/adversarial.mlir
// RUN: gmm-aot %t/adversarial.mlir --target=cuda --chip=sm_90 -o %t/libadversarial.so
// RUN: %cuda_env gmm-aot-difftest --library=%t/libadversarial.so --seed=65 --configs=24 --adversarial --device=gpu | FileCheck %s --check-prefix=ADVERSARIAL
// ADVERSARIAL: configurations 0..23 of seed 65
// ADVERSARIAL-NEXT: 24 passed, 0 failed
