//===- GMMAttrs.td - gmm attribute definitions -------------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_GMMATTRS_TD
#define GMM_DIALECT_GMM_IR_GMMATTRS_TD

include "gmm/Dialect/GMM/IR/GMMDialect.td"

def GMM_RaggedDotDimensionNumbersAttr
    : GMM_Attr<"RaggedDotDimensionNumbers", "ragged_dot"> {
  let summary = "Dimension numbers of a ragged dot, as in CHLO";
  let description = [{
    The six dimension lists of a ragged dot, with the same names and meaning
    as CHLO's `#chlo.ragged_dot` (and XLA's `RaggedDotDimensionNumbers`):

    - `lhs_batching_dimensions` / `rhs_batching_dimensions`: batch dimensions,
      paired in order;
    - `lhs_contracting_dimensions` / `rhs_contracting_dimensions`: summed
      dimensions, paired in order;
    - `lhs_ragged_dimensions`: exactly one lhs dimension that `group_sizes`
      splits into groups. Whether it is a free, a contracting or a batching
      dimension decides the op's mode (1, 2 or 3);
    - `rhs_group_dimensions`: the rhs dimension that indexes the groups'
      weights; exactly one in mode 1, none in modes 2 and 3.

    Syntax: `key = [d0, d1, ...]` pairs separated by commas, in any order.
    Lists that are empty may be left out; the printer leaves them out and
    writes the keys in the order above. A key given twice, or a key that is
    not one of the six, is an error.

    Example:

    ```mlir
    #gmm.ragged_dot<lhs_contracting_dimensions = [1],
                    rhs_contracting_dimensions = [1],
                    lhs_ragged_dimensions = [0],
                    rhs_group_dimensions = [0]>
    ```

    Whether the lists fit the operands (ranks, sizes, distinctness) is checked
    by the op that carries the attribute, since only it knows the operand
    types.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "lhs batching dimensions">:$lhsBatchingDimensions,
    ArrayRefParameter<"int64_t", "rhs batching dimensions">:$rhsBatchingDimensions,
    ArrayRefParameter<"int64_t", "lhs contracting dimensions">:$lhsContractingDimensions,
    ArrayRefParameter<"int64_t", "rhs contracting dimensions">:$rhsContractingDimensions,
    ArrayRefParameter<"int64_t", "lhs ragged dimensions">:$lhsRaggedDimensions,
    ArrayRefParameter<"int64_t", "rhs group dimensions">:$rhsGroupDimensions
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The lhs's free dimensions, ascending: those of an lhs of rank
    /// `lhsRank` that are neither batching nor contracting (the ragged
    /// dimension of mode 1 is one of them).
    ::llvm::SmallVector<int64_t> getLhsFreeDimensions(int64_t lhsRank) const;
    /// The rhs's free dimensions, ascending: those of an rhs of rank
    /// `rhsRank` that are neither batching, contracting nor group
    /// dimensions. They are the result's last dimensions, in this order.
    ::llvm::SmallVector<int64_t> getRhsFreeDimensions(int64_t rhsRank) const;
  }];
}

def GMM_KernelConfigAttr : GMM_Attr<"KernelConfig", "kernel_config"> {
  let summary = "How one ragged dot is tiled and mapped: the kernel "
                "configuration";
  let description = [{
    The one place where the shape of a ragged dot's compiled code is decided.
    `gmm-configure` attaches a complete configuration to every ragged dot as
    its `gmm.kernel_config` attribute (keeping the fields the op already
    has, then the pipeline's options, then a heuristic for the target and
    the shapes) and verifies it there; `gmm-tile` and the GPU mapping read
    it and nothing else.

    Fields (all optional in the attribute itself; a configuration that
    `gmm-configure` has completed has `target`, `tile` and that target's
    fields):

    - `target`: `cpu` or `gpu`.
    - `tile = [m, n, k]`: the tile of one visit, m rows of one group by n
      columns, and the contraction step (GPU) or block (CPU).
    - `warps = [wm, wn]` (gpu): warps per CUDA block along the tile's rows
      and columns.
    - `stages = s` (gpu): how many k steps of both operand tiles are staged
      in shared memory at once (2 to 4): the copies run that many minus one
      steps ahead of the math.
    - `register_block = [rows, lanes]` (cpu): the micro-kernel's block of
      accumulators.
    - `micro_kernel` (cpu): how the register block multiplies. `fma` (the
      default when the field is absent): the operands are packed converted
      to the accumulator type, and each contraction step is one FMA of a
      broadcast lhs element with a packed rhs row. `bf16_dot`: bf16 operands
      stay bf16 and are packed as pairs of contraction steps, and each
      `vdpbf16ps` (AVX512-BF16, through `x86vector.avx512.dot`) adds two
      steps' products into 16 f32 lanes; it takes bf16 inputs, lanes in
      multiples of 16 and an even `k`, and a CPU with AVX512-BF16 to run.
    - `mma` (gpu): the tile kernel's matrix instruction. `mma_sync` (the
      default when the field is absent): the sm_80 design, warp-level
      `mma.sync` fed by `ldmatrix` from `cp.async` stages, on `warps`
      warps. `wgmma`: the Hopper design (sm_90a), a producer warpgroup whose
      one thread stages both operands with TMA into a ring of `stages`
      128-byte-swizzled shared-memory stages guarded by full and empty
      mbarriers, and `warps[0]` consumer warpgroups that each multiply a
      `tile[0] / warps[0]`-row slice with `wgmma.mma_async`; it takes
      16-bit inputs, `tile = [128, n, 64]` with n a multiple of 64 up to
      256, and `warps = [2, 4]` (two warpgroups of four warps).
    - `raster = r` (gpu): the order in which the kernel's blocks take the
      tiles. The tile loop's last dimension (the visits: row tiles of one
      group) is cut into bands of `r`; the blocks walk one band, every
      column tile of it, before the next, the band's `r` visits fastest,
      so that blocks running at the same time share a few visits' lhs rows
      and a few groups' rhs columns in L2. Absent: one band of all the
      visits (each column tile's visits in turn, the visits fastest).

    Examples:

    ```mlir
    #gmm.kernel_config<target = gpu, tile = [128, 128, 32], warps = [2, 4], stages = 2>
    #gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>
    #gmm.kernel_config<target = cpu, tile = [96, 128, 256], register_block = [6, 16], micro_kernel = fma>
    #gmm.kernel_config<target = cpu, tile = [224, 256, 256], register_block = [14, 32], micro_kernel = bf16_dot>
    #gmm.kernel_config<tile = [64, 64, 32]>   // a partial request, completed by gmm-configure
    ```

    The attribute checks what needs no context: sizes are positive, lists
    have their length, a CPU configuration has no GPU fields and the other
    way round. Whether a configuration fits the op and the target (shared
    memory, the mma and copy shapes, register limits) is checked by
    `gmm-configure`, at the op.
  }];
  let parameters = (ins
    "std::optional<::mlir::gmm::KernelTarget>":$target,
    ArrayRefParameter<"int64_t", "tile sizes m, n, k">:$tile,
    ArrayRefParameter<"int64_t", "warps along rows and columns">:$warps,
    "int64_t":$stages,
    ArrayRefParameter<"int64_t", "register block rows and lanes">:$registerBlock,
    "std::optional<::mlir::gmm::MicroKernel>":$microKernel,
    "std::optional<::mlir::gmm::GPUMma>":$mma,
    "int64_t":$raster
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the configuration names its target and has every field that
    /// target reads.
    bool isComplete() const;
    bool isGPU() const { return getTarget() == ::mlir::gmm::KernelTarget::GPU; }
    int64_t getTileM() const { return getTile()[0]; }
    int64_t getTileN() const { return getTile()[1]; }
    int64_t getTileK() const { return getTile()[2]; }
    /// The CPU's micro-kernel (fma when the field is absent).
    ::mlir::gmm::MicroKernel getMicroKernelOrDefault() const {
      return getMicroKernel().value_or(::mlir::gmm::MicroKernel::FMA);
    }
    /// The GPU's matrix instruction (mma_sync when the field is absent).
    ::mlir::gmm::GPUMma getMmaOrDefault() const {
      return getMma().value_or(::mlir::gmm::GPUMma::MmaSync);
    }
  }];
}

#endif // GMM_DIALECT_GMM_IR_GMMATTRS_TD
