// RUN: gmm-opt %s -split-input-file --gmm-configure="vector-bits=256 threads=1" | FileCheck %s --check-prefix=AVX2
// RUN: gmm-opt %s -split-input-file --gmm-configure="vector-bits=512 threads=1" | FileCheck %s --check-prefix=AVX512
// RUN: gmm-opt %s -split-input-file --gmm-configure="vector-bits=256 tile-m=12 tile-n=32 tile-k=4 micro-m=3 micro-n=8" | FileCheck %s --check-prefix=CPU-OPTS
// RUN: gmm-opt %s -split-input-file --gmm-configure="vector-bits=512 micro-kernel=bf16-dot" | FileCheck %s --check-prefix=DOT
// RUN: gmm-opt %s -split-input-file --gmm-configure="vector-bits=512 micro-kernel=fma threads=1" | FileCheck %s --check-prefix=AVX512
// RUN: gmm-opt %s -split-input-file --gmm-configure="vector-bits=256 threads=64" | FileCheck %s --check-prefix=THREADS
// RUN: gmm-opt %s -split-input-file --gmm-configure="vector-bits=512 threads=4" | FileCheck %s --check-prefix=LARGE4
// RUN: gmm-opt %s -split-input-file --gmm-configure=target=gpu | FileCheck %s --check-prefix=GPU
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu tile-m=32 tile-n=32 tile-k=16" | FileCheck %s --check-prefix=GPU-SMALL
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu tile-m=64 warps-m=1" | FileCheck %s --check-prefix=GPU-OPTS

// gmm-configure attaches a complete #gmm.kernel_config to every ragged dot:
// the op's own fields first, then the options, then the heuristic of the
// target.

// The heuristics: on the CPU a register block of two vectors of lanes and
// as many rows as leave three registers free, and a cache tile of 64 x 32
// register blocks below AVX-512 (32 x 16 with it) with contraction blocks of
// 256 f32 (mode 1 with more than 16 rows per group on average: decode_like
// below has the others); on the GPU a 128 x 128 tile with k steps of 32
// 16-bit elements, 2 x 4 warps, 2 stages.
// AVX2-LABEL: func.func @bf16
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 512, 256], register_block = [6, 16], micro_kernel = fma>}
// With vector-bits given the code may be for another CPU: the heuristic's
// micro-kernel is fma, which every CPU runs. micro-kernel=bf16-dot asks for
// vdpbf16ps on the bf16 ragged dots (configure-host-bf16.mlir has the
// heuristic on a host with AVX512-BF16).
// DOT-LABEL: func.func @bf16
// DOT:          {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = bf16_dot>}
// AVX512-LABEL: func.func @bf16
// AVX512:       {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
// CPU-OPTS-LABEL: func.func @bf16
// CPU-OPTS:     {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [12, 32, 4], register_block = [3, 8], micro_kernel = fma>}
// GPU-LABEL: func.func @bf16
// GPU:          {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 128, 32], warps = [2, 4], stages = 2>}
// A small tile takes fewer warps: 32 x 16 bf16 is 64 copies of 16 bytes
// per operand and step, so two warps.
// GPU-SMALL-LABEL: func.func @bf16
// GPU-SMALL:    {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
// An option left at 0 is the heuristic's; one warp count given, the other
// is the heuristic's.
// GPU-OPTS-LABEL: func.func @bf16
// GPU-OPTS:     {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [64, 128, 32], warps = [1, 4], stages = 2>}
func.func @bf16(%lhs: tensor<1x1x60x10xbf16>, %rhs: tensor<1x3x10x37xbf16>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x60x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> : tensor<1x1x60x10xbf16>, tensor<1x3x10x37xbf16>, tensor<1x1x3xi32> -> tensor<1x1x60x37xf32>
  return %0 : tensor<1x1x60x37xf32>
}

// -----

// For f32 the GPU heuristic takes k steps of 16 (FMA, 4-element copies);
// micro-kernel=bf16-dot leaves ragged dots of other types to fma.
// DOT-LABEL: func.func @f32
// DOT:          {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
// GPU-LABEL: func.func @f32
// GPU:          {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 128, 16], warps = [2, 4], stages = 2>}
func.func @f32(%lhs: tensor<40x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<40x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<40x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<40x3xf32>
  return %0 : tensor<40x3xf32>
}

// -----

// The op's own fields win over the options, which win over the heuristic;
// the heuristic tile is sized by the register block (64 x 32 of them, or
// 32 x 16 with AVX-512); a configuration without a target takes the
// pipeline's, and the other target's fields are dropped.
// AVX2-LABEL: func.func @partial
// AVX2:         {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [320, 768, 256], register_block = [5, 24], micro_kernel = fma>}
// CPU-OPTS-LABEL: func.func @partial
// CPU-OPTS:     {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [12, 32, 4], register_block = [5, 24], micro_kernel = fma>}
// GPU-LABEL: func.func @partial
// GPU:          {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [128, 128, 16], warps = [2, 4], stages = 2>}
func.func @partial(%lhs: tensor<40x4xf32>, %rhs: tensor<2x4x3xf32>, %gs: tensor<2xi32>) -> tensor<40x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<register_block = [5, 24]>} : tensor<40x4xf32>, tensor<2x4x3xf32>, tensor<2xi32> -> tensor<40x3xf32>
  return %0 : tensor<40x3xf32>
}

// -----

// Every field the op gives is kept, whatever the options say.
// AVX2-LABEL: func.func @given
// AVX2:         {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [64, 64, 32], register_block = [4, 8], micro_kernel = fma>}
// CPU-OPTS-LABEL: func.func @given
// CPU-OPTS:     {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [64, 64, 32], register_block = [4, 8], micro_kernel = fma>}
// GPU-LABEL: func.func @given
// GPU:          {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [64, 64, 32], warps = [2, 2], stages = 2>}
// GPU-OPTS-LABEL: func.func @given
// GPU-OPTS:     {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [64, 64, 32], warps = [2, 2], stages = 2>}
func.func @given(%lhs: tensor<16x4xf16>, %rhs: tensor<2x4x3xf16>, %gs: tensor<2xi32>) -> tensor<16x3xf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], warps = [2, 2], stages = 2, register_block = [4, 8]>} : tensor<16x4xf16>, tensor<2x4x3xf16>, tensor<2xi32> -> tensor<16x3xf16>
  return %0 : tensor<16x3xf16>
}

// -----

// The op's micro-kernel wins over the option, and the option applies to
// the op's other given fields.
// DOT-LABEL: func.func @micro_kernel_given
// DOT:          gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
// DOT:          gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [64, 64, 32], register_block = [2, 32], micro_kernel = bf16_dot>}
func.func @micro_kernel_given(%lhs: tensor<40x4xbf16>, %rhs: tensor<2x4x3xbf16>, %gs: tensor<2xi32>) -> (tensor<40x3xf32>, tensor<40x3xf32>) {
  %a = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<micro_kernel = fma>} : tensor<40x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<40x3xf32>
  %b = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], register_block = [2, 32]>} : tensor<40x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<40x3xf32>
  return %a, %b : tensor<40x3xf32>, tensor<40x3xf32>
}

// -----

// Mode 2's visits are tiles of a group's [k, n] result, accumulated over
// its rows: the same large visits below AVX-512 whatever the groups' rows
// (here 512 per group, 64 per group, and rows not known).
// AVX2-LABEL: func.func @weight_gradient
// AVX2-COUNT-3:  gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 512, 256], register_block = [6, 16], micro_kernel = fma>}
// AVX512-LABEL: func.func @weight_gradient
// AVX512-COUNT-3: {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
func.func @weight_gradient(%x: tensor<1024x4xf32>, %dy: tensor<1024x3xf32>, %gs: tensor<2xi32>,
                           %x16: tensor<1024x4xf32>, %dy16: tensor<1024x3xf32>, %gs16: tensor<16xi32>,
                           %xd: tensor<?x4xf32>, %dyd: tensor<?x3xf32>)
    -> (tensor<2x4x3xf32>, tensor<16x4x3xf32>, tensor<2x4x3xf32>) {
  %a = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0], rhs_group_dimensions = []> : tensor<1024x4xf32>, tensor<1024x3xf32>, tensor<2xi32> -> tensor<2x4x3xf32>
  %b = gmm.ragged_dot %x16, %dy16, %gs16 dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0], rhs_group_dimensions = []> : tensor<1024x4xf32>, tensor<1024x3xf32>, tensor<16xi32> -> tensor<16x4x3xf32>
  %c = gmm.ragged_dot %xd, %dyd, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0], rhs_group_dimensions = []> : tensor<?x4xf32>, tensor<?x3xf32>, tensor<2xi32> -> tensor<2x4x3xf32>
  return %a, %b, %c : tensor<2x4x3xf32>, tensor<16x4x3xf32>, tensor<2x4x3xf32>
}

// -----

// Mode 1 with at most 16 rows per group on average (static sizes) is
// decode-like: its visits span the rhs's whole rows (the free columns
// rounded up to the register block's lanes, at most 2048) with contraction
// blocks of 64 f32. Here 16 rows per group (32 x 4, 2 groups; 70 columns),
// 17 (the usual tile), a transposed rhs of 5000 columns (2048), rows not
// known (the usual tile), and batched groups of 8 rows with 3 x 40 free rhs
// columns (120). (With threads=1 one visit is enough; threads=64 is below.)
// AVX2-LABEL: func.func @decode_like
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 80, 64], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 512, 256], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 2048, 64], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 512, 256], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 128, 64], register_block = [6, 16], micro_kernel = fma>}
// AVX512-LABEL: func.func @decode_like
// AVX512:       gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 96, 64], register_block = [14, 32], micro_kernel = fma>}
// AVX512:       gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
// AVX512:       gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 2048, 64], register_block = [14, 32], micro_kernel = fma>}
// AVX512:       gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
// AVX512:       gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 128, 64], register_block = [14, 32], micro_kernel = fma>}
func.func @decode_like(%lhs: tensor<32x4xf32>, %rhs: tensor<2x4x70xf32>, %gs: tensor<2xi32>,
                       %lhs17: tensor<34x4xf32>, %rhsT: tensor<2x5000x4xf32>,
                       %lhsd: tensor<?x4xf32>,
                       %lhsb: tensor<2x16x4xf32>, %rhsb: tensor<2x2x4x3x40xf32>, %gsb: tensor<2x2xi32>)
    -> (tensor<32x70xf32>, tensor<34x70xf32>, tensor<32x5000xf32>, tensor<?x70xf32>, tensor<2x16x3x40xf32>) {
  %a = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<32x4xf32>, tensor<2x4x70xf32>, tensor<2xi32> -> tensor<32x70xf32>
  %b = gmm.ragged_dot %lhs17, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<34x4xf32>, tensor<2x4x70xf32>, tensor<2xi32> -> tensor<34x70xf32>
  %c = gmm.ragged_dot %lhs, %rhsT, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<32x4xf32>, tensor<2x5000x4xf32>, tensor<2xi32> -> tensor<32x5000xf32>
  %d = gmm.ragged_dot %lhsd, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x4xf32>, tensor<2x4x70xf32>, tensor<2xi32> -> tensor<?x70xf32>
  %e = gmm.ragged_dot %lhsb, %rhsb, %gsb dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]> : tensor<2x16x4xf32>, tensor<2x2x4x3x40xf32>, tensor<2x2xi32> -> tensor<2x16x3x40xf32>
  return %a, %b, %c, %d, %e : tensor<32x70xf32>, tensor<34x70xf32>, tensor<32x5000xf32>, tensor<?x70xf32>, tensor<2x16x3x40xf32>
}

// -----

// A decode-like op's visits are narrowed when they are fewer than the
// threads (threads=64 here), to make as many, down to 1024 columns; below
// that the op takes the usual tile. 64 groups of 8 rows with 1536 columns
// make 64 visits (whole rows); 32 groups with 2048 columns, 64 visits of
// 1024; 8 groups with 14336 columns, 8 x 7 visits of 2048 narrowed to 8 x 8
// of 1792; 16 groups with 2048 columns would need 512 (the usual tile);
// columns not known, one visit per group: 64 groups take 2048, 16 the usual
// tile. The others' test runs with threads=1: one visit is enough.
// THREADS-LABEL: func.func @decode_like_threads
// THREADS:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 1536, 64], register_block = [6, 16], micro_kernel = fma>}
// THREADS:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 1024, 64], register_block = [6, 16], micro_kernel = fma>}
// THREADS:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 1792, 64], register_block = [6, 16], micro_kernel = fma>}
// THREADS:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 512, 256], register_block = [6, 16], micro_kernel = fma>}
// THREADS:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 2048, 64], register_block = [6, 16], micro_kernel = fma>}
// THREADS:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 512, 256], register_block = [6, 16], micro_kernel = fma>}
// AVX2-LABEL: func.func @decode_like_threads
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 1536, 64], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 2048, 64], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 2048, 64], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 2048, 64], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 2048, 64], register_block = [6, 16], micro_kernel = fma>}
// AVX2:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 2048, 64], register_block = [6, 16], micro_kernel = fma>}
func.func @decode_like_threads(%x64: tensor<512x16xf32>, %w64: tensor<64x16x1536xf32>, %gs64: tensor<64xi32>,
                               %x32: tensor<256x16xf32>, %w32: tensor<32x16x2048xf32>, %gs32: tensor<32xi32>,
                               %x8: tensor<64x16xf32>, %w8: tensor<8x16x14336xf32>, %gs8: tensor<8xi32>,
                               %x16: tensor<128x16xf32>, %w16: tensor<16x16x2048xf32>, %gs16: tensor<16xi32>,
                               %w64d: tensor<64x16x?xf32>, %w16d: tensor<16x16x?xf32>)
    -> (tensor<512x1536xf32>, tensor<256x2048xf32>, tensor<64x14336xf32>, tensor<128x2048xf32>, tensor<512x?xf32>, tensor<128x?xf32>) {
  %a = gmm.ragged_dot %x64, %w64, %gs64 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x16xf32>, tensor<64x16x1536xf32>, tensor<64xi32> -> tensor<512x1536xf32>
  %b = gmm.ragged_dot %x32, %w32, %gs32 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<256x16xf32>, tensor<32x16x2048xf32>, tensor<32xi32> -> tensor<256x2048xf32>
  %c = gmm.ragged_dot %x8, %w8, %gs8 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x16xf32>, tensor<8x16x14336xf32>, tensor<8xi32> -> tensor<64x14336xf32>
  %d = gmm.ragged_dot %x16, %w16, %gs16 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<128x16xf32>, tensor<16x16x2048xf32>, tensor<16xi32> -> tensor<128x2048xf32>
  %e = gmm.ragged_dot %x64, %w64d, %gs64 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x16xf32>, tensor<64x16x?xf32>, tensor<64xi32> -> tensor<512x?xf32>
  %f = gmm.ragged_dot %x16, %w16d, %gs16 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<128x16xf32>, tensor<16x16x?xf32>, tensor<16xi32> -> tensor<128x?xf32>
  return %a, %b, %c, %d, %e, %f : tensor<512x1536xf32>, tensor<256x2048xf32>, tensor<64x14336xf32>, tensor<128x2048xf32>, tensor<512x?xf32>, tensor<128x?xf32>
}

// -----

// With AVX-512, a mode 1 op takes visits of 1024 x 1024 where its static
// shapes make at least 4 of them per thread (counting one per group, up to
// the rows, and at least the rows over 1024): each visit packs the rhs block
// once for its rows and the lhs once for its columns. 8192 rows in 8 groups
// with 1024 columns are 8 visits: large on one thread, not on four (the
// usual tile); 4096 rows in 8 groups too; 4096 rows in 2 groups are 4
// visits, large on one thread only. Rows not known, a weight gradient
// (mode 2) and AVX2 keep the usual tile.
// AVX512-LABEL: func.func @large_visits
// AVX512:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [1024, 1024, 256], register_block = [14, 32], micro_kernel = fma>}
// AVX512:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [1024, 1024, 256], register_block = [14, 32], micro_kernel = fma>}
// AVX512:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [1024, 1024, 256], register_block = [14, 32], micro_kernel = fma>}
// AVX512:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
// AVX512:         gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
// LARGE4-LABEL: func.func @large_visits
// LARGE4-COUNT-5:  gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>}
// AVX2-LABEL: func.func @large_visits
// AVX2-COUNT-5:   gmm.ragged_dot {{.*}} {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [384, 512, 256], register_block = [6, 16], micro_kernel = fma>}
func.func @large_visits(%lhs: tensor<8192x1024xf32>, %rhs: tensor<8x1024x1024xf32>, %gs: tensor<8xi32>,
                        %half: tensor<4096x1024xf32>, %rhs2: tensor<2x1024x1024xf32>, %gs2: tensor<2xi32>,
                        %lhsd: tensor<?x1024xf32>, %dy: tensor<8192x1024xf32>)
    -> (tensor<8192x1024xf32>, tensor<4096x1024xf32>, tensor<4096x1024xf32>, tensor<?x1024xf32>, tensor<8x1024x1024xf32>) {
  %a = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<8192x1024xf32>, tensor<8x1024x1024xf32>, tensor<8xi32> -> tensor<8192x1024xf32>
  %b = gmm.ragged_dot %half, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<4096x1024xf32>, tensor<8x1024x1024xf32>, tensor<8xi32> -> tensor<4096x1024xf32>
  %c = gmm.ragged_dot %half, %rhs2, %gs2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<4096x1024xf32>, tensor<2x1024x1024xf32>, tensor<2xi32> -> tensor<4096x1024xf32>
  %d = gmm.ragged_dot %lhsd, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x1024xf32>, tensor<8x1024x1024xf32>, tensor<8xi32> -> tensor<?x1024xf32>
  %e = gmm.ragged_dot %lhs, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0], rhs_group_dimensions = []> : tensor<8192x1024xf32>, tensor<8192x1024xf32>, tensor<8xi32> -> tensor<8x1024x1024xf32>
  return %a, %b, %c, %d, %e : tensor<8192x1024xf32>, tensor<4096x1024xf32>, tensor<4096x1024xf32>, tensor<?x1024xf32>, tensor<8x1024x1024xf32>
}
