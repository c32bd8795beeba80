// gmm-configure's options out of range: one diagnostic each, at the anchor,
// naming the option, before any op is looked at (#15, class 2: sizes near
// 2^62 used to overflow the tiling's arithmetic).

// A negative size is an error, not "use the heuristic".
// RUN: not gmm-opt %s --gmm-configure=tile-m=-3 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: gmm-configure: tile-m = -3 is out of range: 0 (the heuristic) to 4096{{$}}
// NEGATIVE-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-configure=tile-k=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE-K
// NEGATIVE-K: error: gmm-configure: tile-k = -1 is out of range: 0 (the heuristic) to 4096{{$}}
// The target is an enum: cl names the bad value.
// RUN: not gmm-opt %s --gmm-configure=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: for the --target option: Cannot find option named 'tpu'!

// The bounds are the target's: a CUDA block's for target=gpu.
// RUN: not gmm-opt %s --gmm-configure="target=gpu tile-m=1152921504606846976" 2>&1 | FileCheck %s --check-prefix=GPU-M
// GPU-M: error: gmm-configure: tile-m = 1152921504606846976 is out of range: 0 (the heuristic) to 65536{{$}}
// RUN: not gmm-opt %s --gmm-configure="target=gpu tile-k=1152921504606846976" 2>&1 | FileCheck %s --check-prefix=GPU-K
// GPU-K: error: gmm-configure: tile-k = 1152921504606846976 is out of range: 0 (the heuristic) to 1024{{$}}
// RUN: not gmm-opt %s --gmm-configure="target=gpu warps-m=33" 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: error: gmm-configure: warps-m = 33 is out of range: 0 (the heuristic) to 32{{$}}
// RUN: not gmm-opt %s --gmm-configure="target=gpu stages=9" 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: gmm-configure: stages = 9 is out of range: 0 (the heuristic) to 8{{$}}
// RUN: not gmm-opt %s --gmm-configure="tile-m=4611686018427387904 tile-n=4" 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: error: gmm-configure: tile-m = 4611686018427387904 is out of range: 0 (the heuristic) to 4096{{$}}

// The chip is checked as gmm-to-ptx checks it (#38, class 6: chips that
// gmm-to-ptx refuses were configured, with the 48 KiB of no chip).
// RUN: not gmm-opt %s --gmm-configure="target=gpu chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP-OLD
// CHIP-OLD: error: gmm-configure: chip 'sm_75' is not supported: gmm's kernels use cp.async and bf16 mma.sync, which need sm_80 or newer (sm_80, {{.*}}sm_90a{{.*}})
// CHIP-OLD-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-configure="target=gpu chip=sm_99z" 2>&1 | FileCheck %s --check-prefix=CHIP-UNKNOWN
// CHIP-UNKNOWN: error: gmm-configure: unknown chip 'sm_99z'; gmm's kernels run on sm_80, {{.*}}sm_90a{{.*}}
// RUN: not gmm-opt %s -gmm-to-ptx="chip=sm_99z" 2>&1 | FileCheck %s --check-prefix=CHIP-PTX
// CHIP-PTX: unknown chip 'sm_99z'; gmm's kernels run on sm_80, {{.*}}sm_90a{{.*}}

// The threads the CPU heuristic plans visits for.
// RUN: not gmm-opt %s --gmm-configure=threads=-1 2>&1 | FileCheck %s --check-prefix=THREADS-NEG
// THREADS-NEG: error: gmm-configure: threads = -1 is out of range: 0 (the threads this process may run on) to 65536{{$}}
// THREADS-NEG-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-configure=threads=65537 2>&1 | FileCheck %s --check-prefix=THREADS-BIG
// THREADS-BIG: error: gmm-configure: threads = 65537 is out of range: 0 (the threads this process may run on) to 65536{{$}}

// The CPU register block and the vector width it is sized for.
// RUN: not gmm-opt %s --gmm-configure=micro-m=-2 2>&1 | FileCheck %s --check-prefix=MICRO-NEG
// MICRO-NEG: error: gmm-configure: micro-m = -2 is out of range: 0 (the heuristic) to 64{{$}}
// RUN: not gmm-opt %s --gmm-configure="micro-m=65 micro-n=8" 2>&1 | FileCheck %s --check-prefix=MICRO-BIG
// MICRO-BIG: error: gmm-configure: micro-m = 65 is out of range: 0 (the heuristic) to 64{{$}}
// RUN: not gmm-opt %s --gmm-configure=micro-n=257 2>&1 | FileCheck %s --check-prefix=MICRO-LANES
// MICRO-LANES: error: gmm-configure: micro-n = 257 is out of range: 0 (the heuristic) to 256{{$}}
// RUN: not gmm-opt %s --gmm-configure=vector-bits=384 2>&1 | FileCheck %s --check-prefix=BITS
// BITS: error: gmm-configure: vector-bits must be 128, 256 or 512, or 0 for the host CPU's, got 384{{$}}
// BITS-NOT: {{.}}

// The largest register block is accepted: the default cache tile shrinks to
// stay within the CPU's bounds (at most 4096 a side, 2^20 accumulators:
// 256 x 4096 for AVX2's 64 x 32 register blocks and for AVX-512's 32 x
// 16), rather than failing on tile sizes the user never gave.
// RUN: gmm-opt %s --gmm-configure="micro-m=64 micro-n=256 vector-bits=256" 2>&1 | FileCheck %s --check-prefix=LARGEST
// LARGEST: #gmm.kernel_config<target = cpu, tile = [256, 4096, 256], register_block = [64, 256], micro_kernel = fma>
// RUN: gmm-opt %s --gmm-configure="micro-m=64 micro-n=256 vector-bits=512" 2>&1 | FileCheck %s --check-prefix=LARGEST512
// LARGEST512: #gmm.kernel_config<target = cpu, tile = [256, 4096, 256], register_block = [64, 256], micro_kernel = fma>

// The micro-kernel is an enum too.
// RUN: not gmm-opt %s --gmm-configure=micro-kernel=amx 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL: for the --micro-kernel option: Cannot find option named 'amx'!
// Asked for on the command line, bf16_dot is checked like the op's own: an
// odd contraction block cannot be cut into pairs (this op is f32 and takes
// fma, so the bf16 op below is the one refused).
// RUN: not gmm-opt %s -split-input-file --gmm-configure="micro-kernel=bf16-dot tile-k=7" 2>&1 | FileCheck %s --check-prefix=KERNEL-K
// KERNEL-K: error: 'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = cpu, tile = [{{[0-9]+}}, {{[0-9]+}}, 7], register_block = [{{[0-9]+}}, {{[0-9]+}}], micro_kernel = bf16_dot>: the bf16_dot micro-kernel multiplies pairs of contraction steps: the contraction block must be even, not 7

func.func @f(%lhs: tensor<1x1x60x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x60x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x60x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x60x37xf32>
  return %0 : tensor<1x1x60x37xf32>
}

// -----

func.func @bf16(%lhs: tensor<16x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> tensor<16x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}
