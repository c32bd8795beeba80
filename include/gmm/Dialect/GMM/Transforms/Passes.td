//===- Passes.td - gmm dialect transformations -------------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_TRANSFORMS_PASSES_TD
#define GMM_DIALECT_GMM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GMMCheckSizes : Pass<"gmm-check-sizes"> {
  let summary = "Check at run time that the dynamic sizes of each gmm.ragged_dot agree";
  let description = [{
    A `gmm.ragged_dot` is defined only when the sizes its dimension numbers
    pair up agree: lhs and rhs batching and contracting dimensions, the rhs
    group dimension and the number of groups (without `group_offset`), the
    prefix of a batched `group_sizes` and the lhs dimensions it indexes, and
    each result dimension (as `init` gives it, or as the result type fixes
    it) and the operand dimension it comes from. The verifier rejects the
    pairs that the types decide; the rest, where a size is dynamic, are only
    known when the program runs, and compiled code that trusted them would
    read out of bounds or compute garbage.

    This pass puts a `cf.assert` before each ragged dot for each such pair:
    `tensor.dim` of both sizes (or the static one as a constant), an
    `arith.cmpi eq`, and a message naming the op's location and both
    dimensions, e.g. `gmm.ragged_dot at "moe.mlir":8:10: lhs contracting
    dimension 1 and rhs contracting dimension 1 differ`. Pairs that are both
    static add nothing, so programs with static shapes are unchanged. gmm's
    pipelines run it first; lowered by `convert-cf-to-llvm`, a failed check
    prints the message and aborts (gmm-runner turns that into its one-line
    error and exit code 1).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def GMMNormalize : Pass<"gmm-normalize"> {
  let summary = "Bring gmm.ragged_dot into the normalized layouts that gmm-tile accepts";
  let description = [{
    Rewrites every `gmm.ragged_dot` with general dimension numbers into one in
    a normalized form (`RaggedDotOp::isNormalized`), surrounded by the
    reshapes and transposes that connect it to the original operands and
    result:

    - mode 1: lhs `[B, X, M, K]`, rhs `[B, G, K, N]` or `[B, G, N, K]`,
      group_sizes `[B, X, g]`, result `[B, X, M, N]`. `B` collapses the
      batching dimensions, `X` the lhs free dimensions other than the ragged
      one (each with its own row of group sizes; a `[g]` vector, or a prefix
      that does not cover `X`, is broadcast: group sizes are small), `K` the
      contracting dimensions and `N` the rhs free dimensions;
    - mode 2: lhs `[B, Kr, Kc, M]` or `[B, M, Kr, Kc]`, rhs `[B, Kr, Kc, N]`
      or `[B, N, Kr, Kc]`, group_sizes `[B, g]`, result `[G, B, M, N]`, with
      `Kr` the ragged contracting dimension and `Kc` the others;
    - mode 3 becomes mode 1 with a single group covering every row: the rhs
      gains a unit group dimension and the group sizes are the row count.

    Operands whose dimensions are already in one of the accepted orders are
    only reshaped (`tensor.expand_shape` / `tensor.collapse_shape`, no copy);
    in particular both rhs layouts (weights stored `[g, k, n]` or
    `[g, n, k]`) and both mode-2 lhs layouts are accepted as they are. Other
    orders get a `linalg.transpose`. A ragged dot that cannot be normalized
    (mode 2 with group sizes that vary along another contracting dimension;
    a prefix contracting dimension of static size 1 does not vary) is left
    unchanged, as is one with a static zero dimension (nothing to tile);
    later pipelines lower them with the reference lowering.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def GMMForwardDestinations : Pass<"gmm-forward-destinations"> {
  let summary = "Materialize collapsed results in expanded views of their "
                "destination buffers";
  let description = [{
    Rewrites `bufferization.materialize_in_destination` of a
    `tensor.collapse_shape` result into a plain buffer (identity layout) so
    that the uncollapsed value is materialized in a `memref.expand_shape`
    view of the same buffer:

    ```mlir
    %c = tensor.collapse_shape %r [[0, 1], [2], [3]]
        : tensor<8x1x64x32xf32> into tensor<8x64x32xf32>
    bufferization.materialize_in_destination %c in restrict writable %out
        : (tensor<8x64x32xf32>, memref<8x64x32xf32>) -> ()
    // becomes
    %view = memref.expand_shape %out [[0, 1], [2], [3]]
        output_shape [8, 1, 64, 32]
        : memref<8x64x32xf32> into memref<8x1x64x32xf32>
    bufferization.materialize_in_destination %r in restrict writable %view
        : (tensor<8x1x64x32xf32>, memref<8x1x64x32xf32>) -> ()
    ```

    gmm-normalize gives a ragged dot unit dimensions that a collapse drops
    again; empty-tensor elimination does not look through the collapse, so
    without this rewrite a result written into an output argument (as
    gmm.jax and embedding compilers call it) is computed in a buffer of its
    own and then copied. gmm's pipelines run it before empty-tensor
    elimination and One-Shot Bufferize.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def GMMConfigure : Pass<"gmm-configure"> {
  let summary = "Choose and check each ragged dot's kernel configuration";
  let description = [{
    Attaches a complete `#gmm.kernel_config` to every `gmm.ragged_dot` as
    its `gmm.kernel_config` attribute, and checks it for the op. This is
    the one place where tile sizes, warps, pipeline stages and the CPU's
    register block are decided; `gmm-tile` and the GPU tile kernel's passes read the
    attribute and nothing else. Each field comes from, in this order:

    1. the op's own `gmm.kernel_config`, which may be partial (for example
       `#gmm.kernel_config<tile = [64, 64, 32]>`); a configuration that
       names the other target is an error, and without a target the fields
       of the other target are dropped;
    2. the pass options (0 leaves a field to the heuristic);
    3. the heuristic for the target and the element type:
       - gpu: a 128 x 128 tile with k steps of 32 for 16-bit inputs (16 for
         f32), 2 stages, and the most warps of 2 x 4, 2 x 2, 1 x 2, 2 x 1
         and 1 x 1 that the tile splits over (2 x 4 for the default tile;
         one warp count given, the other is the heuristic's 2 or 4);
         `mma = wgmma` (the Hopper kernel of gmm-gpu-wgmma-kernel) for the
         16-bit mode-1 ragged dots when the chip is sm_90a and the tile and
         warps asked for are its own, with a 128 x 256 x 64 tile (128 x 128
         x 64 for at most 128 static columns) on 2 x 4 warps (two consumer
         warpgroups) and the most stages (up to 8) that fit in the chip's
         shared memory; else `mma_sync` (the field left out);
       - cpu: a register block of two vectors of lanes and as many rows as
         leave three vector registers free (6 x 16 f32 for AVX2, 14 x 32
         for AVX-512; the width is `vector-bits`, by default the host
         CPU's) and a cache tile of 64 x 32 register blocks below AVX-512
         (384 x 512 on AVX2, which gmm-tile computes in row blocks of 16
         register rows in mode 1) or of 32 x 16 with AVX-512 (448 x 512),
         with contraction blocks of 256 f32 (128 f64) elements; for a
         decode-like mode 1 op (at most 16 rows per group on average, from
         static sizes) visits as wide as the rhs's free columns (rounded up
         to the register block's lanes, at most 2048) with contraction
         blocks of 64 f32 (32 f64) elements, unless that makes fewer
         visits than `threads` (by default the threads this process may
         run on): then visits narrowed to make as many as the threads, if
         they stay at least 1024 columns wide, else the usual tile;
         the micro-kernel `bf16_dot` for bf16 inputs when the code is for
         the host (`vector-bits` = 0), whose vectors are 512 bits, which
         has AVX512-BF16 and whose `vdpbf16ps` does at least the flops of
         its f32 FMAs (a table of the CPUs gmm has measured: Zen 4 and 5
         yes, Sapphire, Emerald and Granite Rapids no; another CPU is
         measured once per process), and the register block and
         contraction block suit it; else `fma`, so that bf16 is never
         slower than converting it to f32.

    Each ragged dot's configuration and why each field has its value (the
    op's, the options' or the heuristic's, and the heuristic's reason) are
    an analysis remark of category `gmm-configure`:
    `gmm-opt --remarks-filter=gmm-configure` prints them (as does
    `gmm-runner --print-config`), e.g.

    ```
    f.mlir:8:10: remark: [Analysis] KernelConfig | Category:gmm-configure | Function=f | config="#gmm.kernel_config<target = gpu, tile = [128, 128, 32], warps = [2, 4], stages = 2>", stages="heuristic: the default", tile="heuristic: 16-bit inputs: two mma k steps per stage", warps="heuristic: the most warps of 2 x 4, 2 x 2, 1 x 2, 2 x 1 and 1 x 1 that the tile splits over in 232448 bytes of shared memory"
    ```

    The target is `cpu` or `gpu` (`cuda`, gmm-runner's name, is `gpu`).

    The check reports, at the op and in terms of the configuration, a tile
    too large for the target, a register block taller than its tile, and
    a `bf16_dot` micro-kernel for inputs other than bf16, lanes that are
    not a multiple of 16 or an odd contraction block, and
    for the GPU an element type without a kernel (f64), `mma = wgmma` on
    a chip other than sm_90a, with inputs other than f16 and bf16, or with
    a tile, warps, stages or shared memory that the wgmma kernel cannot
    have, a tile that does
    not split over the warps and the mma.sync (or FMA) shapes, copies that
    do not spread evenly over the block's threads, a number of stages
    outside 2 to 4, and stages whose shared memory (in either staging
    orientation, rows padded by 16 bytes) exceeds what a block of the
    `chip` can have with the dynamic opt-in (163 KiB on sm_80, 99 KiB on
    sm_86/sm_89, 227 KiB on sm_90), or the 48 KiB every chip gives
    statically when no chip is named. For example:

    ```
    error: 'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [256, 128, 64], warps = [2, 4], stages = 2>: its 2 stages need 110592 bytes of shared memory, more than the 49152 a block gets statically
    ```
  }];
  let options = [
    Option<"target", "target", "::mlir::gmm::KernelTarget",
           /*default=*/"::mlir::gmm::KernelTarget::CPU",
           "What the ragged dots are compiled for",
           [{::llvm::cl::values(
             clEnumValN(::mlir::gmm::KernelTarget::CPU, "cpu",
                        "packed panels and a register block"),
             clEnumValN(::mlir::gmm::KernelTarget::GPU, "gpu",
                        "thread-block tiles for gmm-map-to-gpu"),
             clEnumValN(::mlir::gmm::KernelTarget::GPU, "cuda",
                        "the same as gpu (gmm-runner's --target=cuda)"))}]>,
    Option<"tileM", "tile-m", "int64_t", /*default=*/"0",
           "Rows of a tile visit (0: heuristic)">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"0",
           "Columns of a tile (0: heuristic)">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"0",
           "Contraction block (cpu) or step (gpu) (0: heuristic)">,
    Option<"warpsM", "warps-m", "int64_t", /*default=*/"0",
           "GPU: warps along a tile's rows (0: heuristic)">,
    Option<"warpsN", "warps-n", "int64_t", /*default=*/"0",
           "GPU: warps along a tile's columns (0: heuristic)">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "GPU: k steps staged in shared memory at once (0: heuristic)">,
    Option<"raster", "raster", "int64_t", /*default=*/"0",
           "GPU: visits per raster band, the blocks' order over the tiles "
           "(0: heuristic, 8 for the wgmma kernel, else one band of all "
           "visits)">,
    Option<"microM", "micro-m", "int64_t", /*default=*/"0",
           "CPU: rows of the register block (0: heuristic)">,
    Option<"microN", "micro-n", "int64_t", /*default=*/"0",
           "CPU: accumulator lanes per row of the register block (0: "
           "heuristic)">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "CPU: the vector width the heuristic sizes the register block "
           "for (0: the host CPU's widest, 512 with AVX-512, 256 with AVX2 "
           "and FMA, else 128)">,
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "CPU: the threads that will run the tile visits, which the "
           "heuristic gives a visit each where it can (0: those this "
           "process may run on)">,
    Option<"microKernel", "micro-kernel", "::mlir::gmm::MicroKernelOption",
           /*default=*/"::mlir::gmm::MicroKernelOption::Auto",
           "CPU: how the register block multiplies",
           [{::llvm::cl::values(
             clEnumValN(::mlir::gmm::MicroKernelOption::Auto, "auto",
                        "bf16_dot for bf16 inputs when compiling for the "
                        "host (vector-bits=0), it has AVX-512 and "
                        "AVX512-BF16 and vdpbf16ps is at least as fast as "
                        "f32 FMAs there, else fma"),
             clEnumValN(::mlir::gmm::MicroKernelOption::FMA, "fma",
                        "operands packed as f32 (f64), broadcast FMAs"),
             clEnumValN(::mlir::gmm::MicroKernelOption::BF16Dot, "bf16-dot",
                        "vdpbf16ps on pairs of k for the bf16 ragged dots "
                        "(others: fma)"))}]>,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "GPU: the chip (sm_80, sm_90, ...), whose limit bounds a block's "
           "shared memory (empty: the 48 KiB every chip gives statically)">,
    Option<"mma", "mma", "::mlir::gmm::GPUMmaOption",
           /*default=*/"::mlir::gmm::GPUMmaOption::Auto",
           "GPU: the tile kernel's matrix instruction",
           [{::llvm::cl::values(
             clEnumValN(::mlir::gmm::GPUMmaOption::Auto, "auto",
                        "wgmma for the 16-bit mode-1 ragged dots on sm_90a, "
                        "else mma-sync"),
             clEnumValN(::mlir::gmm::GPUMmaOption::MmaSync, "mma-sync",
                        "the sm_80 kernel: warp-level mma.sync"),
             clEnumValN(::mlir::gmm::GPUMmaOption::Wgmma, "wgmma",
                        "the Hopper kernel: TMA stages and warpgroup "
                        "wgmma (sm_90a)"))}]>
  ];
}

def GMMTile : Pass<"gmm-tile"> {
  let summary = "Tile normalized ragged dots into loops over tile visits";
  let description = [{
    Rewrites each normalized `gmm.ragged_dot` into a tiled program whose
    loops run over *tile visits*:

    - mode 1 (megablox scheme): for each row of group sizes, a
      `gmm.tile_schedule` lists the (group, m-tile) visits; an `scf.forall`
      over (n-tile, visit) computes a `tile_m x tile_n` block of each visit
      with vector contractions over k in steps of `tile_k`, and writes only
      the rows of the visit's group. A tile shared by two groups is visited
      once per group; empty groups are not visited. Rows of no computed group
      keep `init` (or zero);
    - mode 2: an `scf.forall` over (local group, m-tile, n-tile) accumulates
      the group's own k range into its own output slice; an empty group's
      slice is zero (or `init`'s).

    K and N remainders are masked (out-of-bounds reads are padded with zero,
    out-of-bounds writes dropped), so no tile size needs to divide anything.
    Everything about the program's shape comes from the op's complete
    `gmm.kernel_config` (see `gmm-configure`, which attaches it): the
    target, the tile sizes, and the register block (cpu); an op without
    one is an error.

    What a visit computes comes from a visit program
    (`gmm/Dialect/GMM/Transforms/VisitProgram.h`). For `target = cpu` it is
    the CPU backend's (`lib/Codegen/CPU/PackedProgram.cpp`), which the
    backend attaches to the gmm dialect (`registerCPUVisitProgram`, called
    by `registerGMMDialects`); a CPU configuration without one attached is
    an error. That program computes a visit like a BLAS
    block: the tile is a
    cache tile whose accumulators live in a buffer of the visit; for each
    contraction block of `tile_k` the rhs rows are packed into panels of
    `nr` lanes and the lhs rows into panels of `mr` rows (converted to the
    accumulator type, zero past the operands), then a register block of
    `mr x nr` accumulators (one rhs panel row and `mr` broadcast lhs
    elements per step, k unrolled by four) runs over every pair of panels
    (a partial last row panel runs blocks of 4 rows, as many as it needs);
    when a visit is narrower than the rhs's rows (static), the rhs panel
    rows of the next block are prefetched meanwhile. In mode
    1 a visit taller than 16 register rows is computed a row block of 16
    register rows at a time against the one packed rhs block, each row
    block packing its own lhs rows.

    For `target = gpu` the tile is a thread-block tile computed as one
    register block by vector contractions, which `gmm-map-to-gpu` turns into
    one CUDA block per visit and n-tile; the tile loop carries the op's
    configuration (as `gmm.kernel_config`) for it. Without `init`, mode 1's
    result is not filled first: `ceil(M / tile_m) + 1` fill visits after
    the scheduled ones zero the rows that no visit covers (before the first
    visit's group and after the last one's), with an empty k loop. Ops that
    are not normalized are left alone.

    The tiled program runs on the CPU whatever the target: with `target =
    gpu` it is the GPU-shaped program that `gmm-map-to-gpu` maps onto blocks,
    warps and shared memory, and the differential test runs it on the CPU.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMMaterializeMetadata : Pass<"gmm-materialize-metadata"> {
  let summary = "Compute the group metadata of gmm.tile_schedule in the program";
  let description = [{
    Replaces every `gmm.tile_schedule` with the IR that computes it on the
    target at run time, with no host synchronisation: a prefix sum of the
    clamped group sizes (group starts and ends), then one pass over the
    computed groups that appends each non-empty group's tiles to the
    `group_ids` / `tile_ids` arrays and counts the visits. Every store is
    guarded by the static bound, so no group sizes can make it write out of
    bounds.

    With `parallel`, the schedule is instead one `scf.forall` with an
    iteration per group (mapped `#gpu.thread<linear_dim_0>`), for targets where a loop outside a parallel region
    runs on one thread (the GPU, where `gmm-gpu-map-blocks` launches it as
    one kernel of a thread per group). Iteration `i` runs the
    prefix sum over groups `0..i` itself, so it knows group `i`'s bounds and
    the number of visits before it, and writes its bounds and its visits;
    the last iteration writes the visit count. No iteration depends on
    another, so nothing is synchronised. The work is quadratic in the
    number of groups, each iteration's latency linear as in the serial
    prefix sum. Entries of the visit lists past the visit count are left
    unwritten (the op leaves them unspecified), and the visit count is read
    where it is used.
  }];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Compute each schedule in one scf.forall over its groups">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::gpu::GPUDialect"
  ];
}

#endif // GMM_DIALECT_GMM_TRANSFORMS_PASSES_TD
