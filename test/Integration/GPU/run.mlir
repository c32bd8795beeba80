// The CPU integration tests' hand-computed cases, and random problems
// checked against the C++ reference, run on the GPU (gmm-to-ptx for the
// device's SM, libgmm_cuda_runtime). Skipped without a CUDA device.

// REQUIRES: cuda-device
// Exact small cases: the same expected output as on the CPU.
// RUN: gmm-runner %S/../CPU/empty-groups.mlir --target=cuda --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:nan,nan,nan,nan,1,0,0,1,nan,nan,nan,nan,2,0,0,3,nan,nan,nan,nan \
// RUN:   --values=2:0,3,0,5,0 --print --check | FileCheck %S/../CPU/empty-groups.mlir
// RUN: gmm-runner %S/../CPU/negative.mlir --target=cuda --values=0:1,0,0,1,1,1,2,1,1,2,3,0 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,2,0,0,3 --values=2:2,-1,3 --print --check \
// RUN:   | FileCheck %S/../CPU/negative.mlir
// RUN: gmm-runner %S/../CPU/mode2.mlir --target=cuda --values=0:1,0,0,1,1,1,2,0,0,1,nan,nan \
// RUN:   --values=1:1,2,3,4,1,0,0,1,2,2,nan,nan --values=2:2,0,3 --print --check \
// RUN:   | FileCheck %S/../CPU/mode2.mlir
// RUN: gmm-runner %S/../CPU/group-offset.mlir -e mode1 --target=cuda --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:0,1,1,0,2,0,0,3 --values=2:2,3,1,2 --group-offset=1 \
// RUN:   --print --check | FileCheck %S/../CPU/group-offset.mlir --check-prefix=MODE1
// RUN: gmm-runner %S/../CPU/init.mlir -e mode1 --target=cuda --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3 --values=2:2,3 \
// RUN:   --values=3:100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100 \
// RUN:   --print --check | FileCheck %S/../CPU/init.mlir --check-prefix=MODE1

// Block-sized problems, random data, several group size patterns: bf16
// (tensor cores), f16 with transposed weights, offset and init, f32 (FMA),
// mode 2.
// RUN: gmm-runner %s -e bf16 --target=cuda --seed=1 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %s -e bf16 --target=cuda --seed=2 --group-sizes=uniform --check | FileCheck %s
// RUN: gmm-runner %s -e bf16 --target=cuda --seed=3 --group-sizes=0,300,0,0,1,299 --check | FileCheck %s
// RUN: gmm-runner %s -e bf16 --target=cuda --seed=4 --group-sizes=-5,700,-2147483648,3,2,1 --check | FileCheck %s
// RUN: gmm-runner %S/../../../examples/expert_parallel.mlir --target=cuda --seed=5 --group-sizes=skewed --group-offset=3 --check | FileCheck %s
// RUN: gmm-runner %S/../../../examples/moe_weight_grad.mlir --target=cuda --seed=6 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %S/../../../examples/moe_forward.mlir --target=cuda --seed=7 --group-sizes=skewed --check --repeat=3 | FileCheck %s --check-prefixes=CHECK,TIME
// CHECK: check: PASS
// TIME: time: median {{.*}} on the GPU

func.func @bf16(%lhs: tensor<600x200xbf16>, %rhs: tensor<6x200x300xbf16>, %gs: tensor<6xi32>) -> tensor<600x300xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<600x200xbf16>, tensor<6x200x300xbf16>, tensor<6xi32> -> tensor<600x300xbf16>
  return %0 : tensor<600x300xbf16>
}
