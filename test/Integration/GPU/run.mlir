// The CPU integration tests' hand-computed cases, and random problems
// checked against the C++ reference, run on the GPU (gmm-to-ptx for the
// device's SM, libgmm_cuda_runtime): on a real device where there is one,
// else on gmm's simulated GPU with all its checks on (test/lit.cfg.py).

// REQUIRES: cuda-device
// Exact small cases: the same expected output as on the CPU.
// RUN: gmm-runner %S/../CPU/empty-groups.mlir %cuda_target --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:nan,nan,nan,nan,1,0,0,1,nan,nan,nan,nan,2,0,0,3,nan,nan,nan,nan \
// RUN:   --values=2:0,3,0,5,0 --print --check | FileCheck %S/../CPU/empty-groups.mlir
// RUN: gmm-runner %S/../CPU/negative.mlir %cuda_target --values=0:1,0,0,1,1,1,2,1,1,2,3,0 \
// RUN:   --values=1:1,0,0,1,0,1,1,0,2,0,0,3 --values=2:2,-1,3 --print --check \
// RUN:   | FileCheck %S/../CPU/negative.mlir
// RUN: gmm-runner %S/../CPU/mode2.mlir %cuda_target --values=0:1,0,0,1,1,1,2,0,0,1,nan,nan \
// RUN:   --values=1:1,2,3,4,1,0,0,1,2,2,nan,nan --values=2:2,0,3 --print --check \
// RUN:   | FileCheck %S/../CPU/mode2.mlir
// RUN: gmm-runner %S/../CPU/group-offset.mlir -e mode1 %cuda_target --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:0,1,1,0,2,0,0,3 --values=2:2,3,1,2 --group-offset=1 \
// RUN:   --print --check | FileCheck %S/../CPU/group-offset.mlir --check-prefix=MODE1
// RUN: gmm-runner %S/../CPU/init.mlir -e mode1 %cuda_target --values=0:1,0,0,1,1,1,2,1,1,2,3,0,0,3,1,-1 \
// RUN:   --values=1:1,0,0,1,2,0,0,3 --values=2:2,3 \
// RUN:   --values=3:100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100 \
// RUN:   --print --check | FileCheck %S/../CPU/init.mlir --check-prefix=MODE1

// Block-sized problems, random data, several group size patterns: bf16
// (tensor cores), f16 with transposed weights, offset and init, f32 (FMA),
// mode 2.
// RUN: gmm-runner %s -e bf16 %cuda_target --seed=1 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %s -e bf16 %cuda_target --seed=2 --group-sizes=uniform --check | FileCheck %s
// RUN: gmm-runner %s -e bf16 %cuda_target --seed=3 --group-sizes=0,300,0,0,1,299 --check | FileCheck %s
// RUN: gmm-runner %s -e bf16 %cuda_target --seed=4 --group-sizes=-5,700,-2147483648,3,2,1 --check | FileCheck %s
// RUN: gmm-runner %S/../../../examples/expert_parallel.mlir %cuda_target --seed=5 --group-sizes=skewed --group-offset=3 --check | FileCheck %s
// RUN: gmm-runner %S/../../../examples/moe_weight_grad.mlir %cuda_target --seed=6 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %S/../../../examples/moe_forward.mlir %cuda_target --seed=7 --group-sizes=skewed --check --repeat=3 | FileCheck %s --check-prefixes=CHECK,%time_check
// CHECK: check: PASS
// TIME-GPU: time: median {{.*}} on the GPU
// TIME-SIM: time: not measured: 3 runs on the simulated GPU, which measures no GPU time
// TIME-SIM-NOT: median

func.func @bf16(%lhs: tensor<600x200xbf16>, %rhs: tensor<6x200x300xbf16>, %gs: tensor<6xi32>) -> tensor<600x300xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<600x200xbf16>, tensor<6x200x300xbf16>, tensor<6xi32> -> tensor<600x300xbf16>
  return %0 : tensor<600x300xbf16>
}

// Regressions found by running the kernels on the simulated GPU:
// - mode 2 with the lhs as [k, m] (the weight gradient x^T dy of a bf16
//   MoE layer): its tile is read with ldmatrix.x4.trans, whose registers
//   came in the wrong order for mma.sync (rows 8-15 of every warp tile were
//   wrong);
// - a rhs with no local groups (a dynamic size of 0): the tile kernel's
//   grid was 0 blocks, an invalid launch.
// RUN: gmm-runner %s -e wgrad %cuda_target --seed=8 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %s -e no_local_groups %cuda_target --seed=9 --group-sizes=4,6 --group-offset=1 \
// RUN:   --arg-shape=1:0x8x16 --check | FileCheck %s

func.func @wgrad(%x: tensor<300x96xbf16>, %dy: tensor<300x80xbf16>, %gs: tensor<6xi32>) -> tensor<6x96x80xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<300x96xbf16>, tensor<300x80xbf16>, tensor<6xi32> -> tensor<6x96x80xf32>
  return %0 : tensor<6x96x80xf32>
}

func.func @no_local_groups(%lhs: tensor<10x8xf16>, %rhs: tensor<?x8x16xf16>, %gs: tensor<2xi32>, %off: tensor<1xi32>) -> tensor<10x16xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<1xi32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<10x8xf16>, tensor<?x8x16xf16>, tensor<2xi32> -> tensor<10x16xf32>
  return %0 : tensor<10x16xf32>
}
