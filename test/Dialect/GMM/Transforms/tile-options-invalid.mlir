// gmm-tile's options and tile sizes out of range: one diagnostic each, at
// the anchor for an option, at the op for its sizes (#15, class 2).

// A negative size option is an error, not "use the heuristic".
// RUN: not gmm-opt %s --gmm-tile=tile-m=-3 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: gmm-tile: tile-m must be positive, or 0 for the heuristic, got -3{{$}}
// NEGATIVE-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-tile=tile-k=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE-K
// NEGATIVE-K: error: gmm-tile: tile-k must be positive, or 0 for the heuristic, got -1{{$}}
// RUN: not gmm-opt %s --gmm-tile=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: gmm-tile: unknown target 'tpu', expected 'cpu' or 'gpu'{{$}}
// TARGET-NOT: {{.}}

// Sizes that overflowed the GPU mapping's arithmetic.
// RUN: not gmm-opt %s --gmm-tile="target=gpu tile-m=1152921504606846976" 2>&1 | FileCheck %s --check-prefix=GPU-M
// GPU-M: error: 'gmm.ragged_dot' op tile sizes 1152921504606846976x128x16 are too large for a CUDA block (at most 65536 accumulators, tile_m * tile_n, and k steps of at most 1024)
// RUN: not gmm-opt %s --gmm-tile="target=gpu tile-m=2 tile-n=4611686018427387904" 2>&1 | FileCheck %s --check-prefix=GPU-N
// GPU-N: error: 'gmm.ragged_dot' op tile sizes 2x4611686018427387904x16 are too large for a CUDA block
// RUN: not gmm-opt %s --gmm-tile="target=gpu tile-k=1152921504606846976" 2>&1 | FileCheck %s --check-prefix=GPU-K
// GPU-K: error: 'gmm.ragged_dot' op tile sizes 128x128x1152921504606846976 are too large for a CUDA block
// RUN: not gmm-opt %s --gmm-tile="tile-m=4611686018427387904 tile-n=4" 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: error: 'gmm.ragged_dot' op tile sizes 4611686018427387904x4x256 are too large for the CPU cache tiles

// The CPU register block and the vector width it is sized for.
// RUN: not gmm-opt %s --gmm-tile=micro-m=-2 2>&1 | FileCheck %s --check-prefix=MICRO-NEG
// MICRO-NEG: error: gmm-tile: micro-m must be positive, or 0 for the heuristic, got -2{{$}}
// RUN: not gmm-opt %s --gmm-tile="micro-m=65 micro-n=8" 2>&1 | FileCheck %s --check-prefix=MICRO-BIG
// MICRO-BIG: error: gmm-tile: a register block of 65 x 8 is too large (at most 64 rows of 256 lanes){{$}}
// RUN: not gmm-opt %s --gmm-tile=micro-n=257 2>&1 | FileCheck %s --check-prefix=MICRO-LANES
// MICRO-LANES: error: gmm-tile: a register block of 0 x 257 is too large (at most 64 rows of 256 lanes){{$}}
// The largest register block is accepted: the default cache tiles shrink to
// stay within the CPU's bounds (512 x 2048 here), rather than failing on
// tile sizes the user never gave.
// RUN: gmm-opt %s --gmm-tile="micro-m=64 micro-n=256" 2>&1 | FileCheck %s --check-prefix=LARGEST
// LARGEST: gmm.tile_schedule {{.*}} tile_size = 512
// RUN: not gmm-opt %s --gmm-tile=vector-bits=384 2>&1 | FileCheck %s --check-prefix=BITS
// BITS: error: gmm-tile: vector-bits must be 128, 256 or 512, or 0 for the host CPU's, got 384{{$}}
// BITS-NOT: {{.}}

func.func @f(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}
