//===- Passes.td - gmm GPU code generation passes ----------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The passes between the bufferized tile program and PTX, in the order the
// gmm-map-to-gpu and gmm-to-ptx pipelines run them (docs/Lowering.md).
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CODEGEN_GPU_PASSES_TD
#define GMM_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GMMGPUForwardBuffers : Pass<"gmm-gpu-forward-buffers",
                                "::mlir::func::FuncOp"> {
  let summary = "Forward the buffers that loops and branches hand back "
                "unchanged to the buffers themselves";
  let description = [{
    The first step of the GPU mapping, right after One-Shot Bufferize. The
    bufferized tile program carries buffers through `scf.for` iter_args and
    `scf.if` results that only ever hand back the buffer they were given
    (possibly through `memref.cast`). This pass replaces every such result
    and iter_arg by the buffer itself (cast back to the old type where the
    types differ), erases the `memref.copy` ops whose source and target are
    then the same buffer (the `gmm-map-to-gpu` pipeline canonicalizes
    afterwards, which folds the casts this leaves). Afterwards no buffer value
    flows out of a loop or branch that only passes it through, so the tile
    loops can become kernels and the host never receives a buffer from
    device code (branches that pick one of several buffers stay, for
    `gmm-gpu-partition-host` to follow).

    Example:

    ```mlir
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %out) -> (memref<?xf32>) {
      ... writes %b ...
      scf.yield %b : memref<?xf32>
    }
    memref.copy %r, %out : memref<?xf32> to memref<?xf32>
    ```

    becomes the loop writing `%out` directly, with no result and no copy.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def GMMGPUMapBlocks : Pass<"gmm-gpu-map-blocks", "::mlir::func::FuncOp"> {
  let summary = "Map each outermost forall onto a gpu.launch of its iterations";
  let description = [{
    Runs after `gmm-tile` (of GPU configurations), `gmm-materialize-metadata`,
    One-Shot Bufferize and `gmm-gpu-forward-buffers`. Every outermost
    `scf.forall` must be normalized and without outputs.

    A forall without a `gmm.kernel_config` (the group metadata of
    `gmm-materialize-metadata{parallel}`, or any parallel loop) becomes a
    `gpu.launch` of one thread per iteration, in blocks of 128 threads, the
    linear thread id delinearized into the induction variables and the body
    guarded by `id < iterations`. The launch carries
    `gmm.kernel = "metadata"` and is named (its `function` attribute, which
    `gpu-kernel-outlining` gives the kernel and its module) `<f>_metadata`,
    after its function `f`.

    A tile forall carries the complete GPU `gmm.kernel_config` that
    `gmm-tile` put there (a CPU configuration is an error). It becomes a
    `gpu.launch` with one block per iteration (the grid is the product of
    the forall's bounds, the last dimension fastest) and the configuration's
    warps as threads, under an `scf.if` that skips an empty grid (a launch of
    no blocks is invalid: a ragged dot whose rhs holds no local groups has
    no visit). The block id is delinearized into the forall's induction
    variables and the forall body is cloned as it is: the schedule lookups,
    the visit's rows, the empty-visit branch, the block contraction and its
    write. The launch carries `gmm.kernel = "tile"` and the configuration,
    for `gmm-gpu-promote-operands`, and is named after its function and its
    configuration: `<f>_tile_<m>x<n>x<k>_w<rows>x<cols>_s<stages>`.

    Upstream's block mapping (`mapForallToBlocksImpl`, a transform-dialect
    utility) maps each forall dimension to a grid dimension of an existing
    launch; here the grid is one linear dimension, since the visit count
    bound can exceed the 65535 blocks of grid dimensions y and z.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def GMMGPUWgmmaKernel : Pass<"gmm-gpu-wgmma-kernel", "::mlir::func::FuncOp"> {
  let summary = "Build the Hopper tile kernel (TMA, mbarriers, wgmma) of "
                "each tile kernel configured with mma = wgmma";
  let description = [{
    Rewrites the block program of each tile kernel that gmm-gpu-map-blocks
    launched with a `#gmm.kernel_config` of `mma = wgmma` (sm_90a) into the
    Hopper kernel, warp-specialized over three warpgroups (384 threads):

    - before the launch, on the host, one TMA tensor map per operand
      (`nvgpu.tma.create.descriptor`, 128-byte swizzle, zero fill out of
      bounds): the lhs in boxes of 128 rows x 64 k, the rhs in boxes of 64
      k x 64 columns of one group;
    - a ring of `stages` stages in dynamic shared memory, each with a full
      and an empty mbarrier;
    - warpgroup 2, the producer: its first thread waits for a stage to be
      empty, arms its full barrier with the stage's bytes
      (`nvgpu.mbarrier.arrive.expect_tx`) and issues the TMA loads of the
      next k step (`nvgpu.tma.async.load`: one lhs box, tile n / 64 rhs
      boxes);
    - warpgroups 0 and 1, the consumers, each own 64 rows of the 128-row
      tile: they wait for a stage to be full, multiply it with
      `nvgpu.warpgroup.mma` (wgmma m64nNk16 from shared-memory descriptors,
      one group left in flight) and release the stage of the step before;
    - the epilogue: for an f32 result, each consumer thread stores its
      accumulator fragments from its registers, a pair of columns at a
      time, to the rows and columns of the tile that belong to the visit
      (unchecked where the whole tile does; element stores for a view
      whose start is not pair-aligned); for a 16-bit result, once both
      consumers are done (a named barrier of their 256 threads), the f32
      accumulators go to shared memory (reusing the stages, rows padded by
      4 elements) and from there, converted, to the visit's rows and
      columns in 16-byte stores (element stores for a view that does not
      start and end on 16-byte boundaries).

    The tile kernel must have the form gmm-gpu-map-blocks gives a mode-1
    ragged dot: a k loop from 0 in steps of tile k whose only iteration
    argument is a zero block, contracting a `tile m x k` read of the lhs at
    [..., row, k] with a `k x tile n` read of the rhs at [..., group, k,
    column] (static shapes, 16-bit elements, rows of whole 16-byte chunks,
    both reads in the memref's own order), the block then written (converted
    or not) to one 2-D view. A tile kernel of another form (the weight
    gradient, transposed weights, dynamic shapes, rows that TMA cannot
    address) keeps the sm_80 kernel: its configuration becomes `mma =
    mma_sync` with 2 stages, and the pass says why in a remark at the
    launch.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMGPUPromoteOperands : Pass<"gmm-gpu-promote-operands",
                                  "::mlir::func::FuncOp"> {
  let summary = "Stage each tile kernel's operand tiles in shared memory, "
                "multi-buffered";
  let description = [{
    The first of the three passes that build a tile kernel (then
    `gmm-gpu-stage-epilogue` and `gmm-gpu-distribute-warps`). For every
    `gpu.launch` that carries a `gmm.kernel_config` (made by
    `gmm-gpu-map-blocks`), whose body holds one (m, k) x (k, n) -> (m, n)
    `vector.contract` of (masked, extended) `vector.transfer_read`s of
    buffers, in a k loop of constant step or alone:

    - the lhs and rhs tiles get the configuration's `stages` (2 to 4) stages
      in one workgroup buffer (a workgroup attribution of the launch up to
      48 KiB, `gpu.dynamic_shared_memory` with the launch's
      `dynamic_shared_memory_size` above), sized for the epilogue's staging
      as well. Rows of 16-bit tiles that are a power of two of at least two
      16-byte chunks are stored unpadded and their views marked
      `gmm.swizzle` (for `gmm-gpu-swizzle-shared-memory`); other rows are
      padded by 16 bytes. Each tile is stored in its source's orientation
      and read through a transposing view when needed;
    - the contraction loop runs over steps j and copies step j into stage
      j mod `stages`, spread over the block's threads, before a
      `gpu.barrier`: operands whose rows are 16-byte aligned and contiguous
      as 16-byte chunks, each a 1-D `vector.transfer_read` masked by a
      `vector.create_mask` of the elements inside the operand and the
      group's k range, and a `vector.transfer_write` into the stage
      (`gmm-gpu-async-copies` makes them `cp.async`); other operands element
      by element, zeros past the ends. Then the block's contraction of the
      stage (one `vector.contract` of the whole staged tiles, into a
      tile_m x tile_n f32 block that starts from zero) and a barrier. The
      loop is marked `gmm.pipeline_stages` for `gmm-gpu-pipeline-stages`,
      and is correct as it is, unpipelined;
    - an initial accumulator (the block's `init`, folded into the tile
      program's contraction) is added to the loop's result instead.

    The configuration is checked again against the contraction and the
    launch (the IR may have been written by hand); a mismatch is an error
    before anything is rewritten. The configuration stays on the launch for
    the two passes after it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMGPUStageEpilogue : Pass<"gmm-gpu-stage-epilogue",
                                "::mlir::func::FuncOp"> {
  let summary = "Write each tile kernel's block through shared memory, one "
                "warp row at a time";
  let description = [{
    The second of the three passes that build a tile kernel (after
    `gmm-gpu-promote-operands`, before `gmm-gpu-distribute-warps`). In each
    `gpu.launch` carrying a `gmm.kernel_config`, the block that the staged
    contraction loop accumulates reaches the result through the tile
    program's epilogue (elementwise ops: add `init`, convert to the result
    type) and one 2-D `vector.transfer_write` of the visit's rows. That
    write becomes, after draining the copies (`nvvm.cp.async.wait.group 0`
    and a barrier, since the staging reuses the stages' bytes), for each
    warp row of the tile (tile_m / warps_m rows): a block-level
    `vector.transfer_write` of those rows of the block into an f32 view of
    the workgroup buffer (rows padded by 4 elements), a barrier, every
    thread's replay of the epilogue on 4-element row chunks of the view,
    each written masked to the result (so rows of other groups and columns
    past n are never written), and a barrier.

    An epilogue that is not elementwise ops and reads of the written block
    is an error before anything is rewritten.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMGPUDistributeWarps : Pass<"gmm-gpu-distribute-warps",
                                  "::mlir::func::FuncOp"> {
  let summary = "Share each tile kernel's block contraction among its warps";
  let description = [{
    The last of the three passes that build a tile kernel (after
    `gmm-gpu-promote-operands` and `gmm-gpu-stage-epilogue`). In each
    `gpu.launch` carrying a `gmm.kernel_config`, the staged contraction
    loop's block accumulator becomes the configuration's warps' own:

    - for f16 and bf16 inputs each warp accumulates its warp tile
      (tile_m / warps_m x tile_n / warps_n) as 16 x 8 f32 fragments with
      m16n8k16 `vector.contract`s of sub-blocks of the stage's workgroup
      views (`gmm-gpu-vector-to-mma-sync` turns them into `nvgpu.ldmatrix`
      and `nvgpu.mma.sync`);
    - for f32 inputs each lane of a warp (4 x 8 lanes) accumulates a block
      of the warp tile with `vector.outerproduct`s of a staged column and
      row (`gmm-gpu-lower-kernel-vectors` turns them into FMAs);
    - the epilogue's staging of warp row p becomes the writes of their
      fragments by the warps of that row (`scf.if` on the warp's row).

    The configuration is then spent and removed from the launch; constants
    are folded and hoisted, which the vector lowering relies on.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMGPUAsyncCopies : Pass<"gmm-gpu-async-copies"> {
  let summary = "Turn the global-to-shared vector copies of each gpu.launch "
                "into cp.async groups (upstream's createAsyncGroups)";
  let description = [{
    Runs upstream's `nvgpu::createAsyncGroups` on every `gpu.launch`: a 1-D
    `vector.transfer_write` into workgroup memory of a contiguous 1-D
    `vector.transfer_read` (or `vector.load`) of global memory, of 4, 8 or
    16 bytes, becomes an `nvgpu.device_async_copy` (`cp.async`, L1 bypassed
    for 16 bytes). A read masked by a `vector.create_mask` copies the mask's
    leading elements and zero-fills the rest. Each run of such copies,
    separated only by ops without memory effects and global reads, is
    committed as one `nvgpu.device_async_create_group` and waited for
    (`nvgpu.device_async_wait`, all groups) right after it. The replaced
    reads and masks are erased.

    Example: `gmm-gpu-promote-operands`'s staging of one bf16 chunk,

    ```mlir
    %m = vector.create_mask %avail : vector<8xi1>
    %v = vector.transfer_read %lhs[%r, %c], %zero, %m {in_bounds = [true]}
    vector.transfer_write %v, %stage[%s, %o, %i] {in_bounds = [true]}
    ```

    becomes
    `nvgpu.device_async_copy %lhs[%r, %c], %stage[%s, %o, %i], 8, %avail
    {bypassL1}`, then a group and a wait.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::nvgpu::NVGPUDialect"
  ];
}

def GMMGPUPipelineStages : Pass<"gmm-gpu-pipeline-stages"> {
  let summary = "Software-pipeline each staged contraction loop so that its "
                "copies run stages - 1 steps ahead of its math";
  let description = [{
    Each `scf.for` marked `gmm.pipeline_stages = s` (`gmm-gpu-promote-operands`'s
    contraction loop, after `gmm-gpu-async-copies`) is split at its first
    `gpu.barrier`: the ops before it copy step j into stage j mod s, the
    rest compute step j. Upstream's `scf::pipelineForLoop` then issues the
    copies of steps 0 .. s - 2 before the loop and, in iteration j, those
    of step j + s - 1 before computing step j, with the epilogue not peeled:

    - the copy part of a step past the loop's end still runs, predicated:
      an `nvgpu.device_async_copy` reads no element (`select` of its source
      elements) and zero-fills, a `memref.store` is skipped, ops that only
      read, the group commits and the waits run as they are, so that every
      iteration commits the same number of groups;
    - each `nvgpu.device_async_wait` waits until at most `(s - 1) * g`
      groups are in flight, `g` being the groups a step commits: step j's
      copies are then complete;
    - pure ops of the copy part that the compute part uses (the stage
      index) are recomputed after the barrier, so the loop carries nothing
      but its own results.

    An op of the copy part that cannot be predicated (another write) or a
    value of the copy part the compute part cannot recompute is an error
    before the loop is changed. `s = 1` only removes the mark.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def GMMGPUVectorToMmaSync : Pass<"gmm-gpu-vector-to-mma-sync"> {
  let summary = "Convert the warp contractions of each gpu.launch to "
                "nvgpu.ldmatrix and nvgpu.mma.sync, bf16 kept bf16";
  let description = [{
    For every `gpu.launch` whose `vector.contract`s have 16-bit operands,
    runs upstream's vector-to-nvgpu conversion
    (`convertVectorToNVVMCompatibleMMASync`, after
    `populatePrepareVectorToMMAPatterns`), which turns m16n8k16
    contractions of `vector.transfer_read`s from workgroup memory into
    `nvgpu.ldmatrix` and `nvgpu.mma.sync`. Three MLIR 22 gaps are filled
    around that call, each in one place and each a workaround to delete on
    the LLVM upgrade that closes it:

    - the conversion sizes fragments with `nvgpu::getMmaSyncRegisterType`,
      which knows f16 but not bf16 (the registers are the same, two 16-bit
      values each). For the length of the call, the reads feeding bf16
      contractions use f16 twins of their `memref.view`s; right after it the
      `nvgpu.ldmatrix` ops move back to the bf16 views and their fragments,
      shuffles and slices become bf16 again, so `nvgpu.mma.sync` is typed
      bf16 and nothing f16 is left;
    - the conversion takes scalar index `arith` ops under the launch for
      matrix ops and fails on them; they are rewritten to the `index`
      dialect first;
    - its `ldmatrix.x4.trans` of a transposed A operand delivers the four
      8x8 blocks k-major, where `mma.sync` wants them m-major; the middle
      two registers are swapped with a `vector.shuffle`.

    Launches without 16-bit contractions are left alone. A contraction the
    conversion cannot handle is an error at its launch.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::index::IndexDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMGPUSwizzleSharedMemory : Pass<"gmm-gpu-swizzle-shared-memory"> {
  let summary = "Swizzle the unpadded shared-memory stages of each kernel "
                "so that ldmatrix and cp.async are free of bank conflicts";
  let description = [{
    `gmm-gpu-promote-operands` stores the rows of a staged 16-bit tile unpadded when
    they are a power of two of at least two 16-byte chunks, and marks the
    stage's workgroup view `gmm.swizzle`. This pass permutes the 16-byte
    chunk of every access to such a view by its row: chunk `c` of row `r`
    is stored at chunk `c xor ((r / rowsPerLine) mod min(chunksPerRow, 8))`,
    where `rowsPerLine` is how many rows share a 128-byte line (1 for rows of
    128 bytes or more). The eight rows one `ldmatrix` 8x8 matrix reads, and
    the eight chunks a quarter warp's `cp.async` writes, then fall in eight
    distinct 16-byte bank groups, as the 16-byte pad per row did, without
    the pad.

    It runs after `gmm-gpu-vector-to-mma-sync`, when the view's readers are
    `nvgpu.ldmatrix` and its writers `nvgpu.device_async_copy` or
    `memref.store` (element-wise staging; `memref.load` is accepted too):
    each touches one chunk of a row at most. Any other access to a marked view is an error, reported before
    anything is rewritten. Upstream's `nvgpu-optimize-shared-memory`
    (`nvgpu::optimizeSharedMemoryReadsAndWrites`) does the same for
    `memref.alloc`s but refuses any parent op holding a `memref.subview`,
    which every tile kernel holds (the output rows of its visit).

    Example (rows of 32 bf16, two rows per line): the `cp.async` into
    `[%s, %r, %c]` writes `[%s, %r, %c xor (((%r >> 1) & 3) << 3)]`, and
    every `ldmatrix` of the view reads through the same permutation.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def GMMGPULowerKernelVectors : Pass<"gmm-gpu-lower-kernel-vectors"> {
  let summary = "Lower what is left of the vector dialect in each "
                "gpu.launch to 1-D loads, stores and FMAs";
  let description = [{
    `convert-gpu-to-nvvm` lowers 1-D vector loads and stores in every
    address space but not `vector.contract` or n-D transfers. This pass
    lowers, inside every `gpu.launch`, contractions and outer products to
    FMAs, transposes element-wise, and transfers (fully unrolled) to 1-D
    masked loads and stores, with upstream's vector lowering patterns, applied
    to the vector ops and what they become only (the rest of a tensor-core
    kernel is not revisited). A
    transfer or contraction left afterwards is an error at its launch.
    It runs after `gmm-gpu-vector-to-mma-sync`, which has consumed the
    16-bit contractions.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMGPUPartitionHost : Pass<"gmm-gpu-partition-host",
                               "::mlir::ModuleOp"> {
  let summary = "Keep the host away from device memory: gpu allocations, "
                "copies and memsets, and single-thread kernels for the rest";
  let description = [{
    The last step of the GPU mapping. Outside the existing `gpu.launch`
    ops, every function is made safe for device memory, with synchronous
    gpu ops (`gmm-gpu-async-host` later puts them on one stream):

    - `memref.alloc`/`alloca` become `gpu.alloc`, freed at the end of their
      block unless returned (the buffer is followed through views, casts,
      selects and loop and branch results; one allocated in a loop or
      branch that leaves it is an error); `memref.dealloc` becomes
      `gpu.dealloc`; a
      `memref.get_global` gets a device copy;
    - `linalg.fill` of 16- or 32-bit elements on a contiguous buffer becomes
      `gpu.memset`, contiguous `memref.copy` `gpu.memcpy`;
    - every remaining run of ops that touches memory (reference loops for
      what could not be tiled, reading a group offset) becomes a single-thread
      `gpu.launch` (`gmm.kernel = "serial"`, named `<f>_serial` after its
      function). Scalars such a kernel computes
      for later kernels (the visit count) pass through one-element device
      buffers, so the host never reads device memory and never waits for
      the metadata; a device value the host itself needs is an error.
      Pure ops and `cf.assert` on host values stay on the host; calls stay
      on the host, their callees are mapped on their own.

    Function bodies must be one block (structured control flow). The module
    becomes a `gpu.container_module`.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def GMMGPUMergeAllocations : Pass<"gmm-gpu-merge-allocations",
                                  "::mlir::ModuleOp"> {
  let summary = "Allocate a function's temporary device buffers as views of "
                "one device allocation";
  let description = [{
    Runs after `gmm-gpu-partition-host`. The temporary device buffers of a
    host block (each a synchronous `gpu.alloc` of int, float or index
    elements with an identity layout, freed by a `gpu.dealloc` in the same
    block, so not returned) become `memref.view`s of one `gpu.alloc` of
    bytes: each at an offset aligned to 256 bytes (the driver's own
    alignment), sized on the host where the first of them was allocated.
    A buffer joins the current group when its dynamic sizes are defined
    before the group's first allocation, and starts a new group otherwise.
    The merged buffer is freed where the last of its members was. Index
    elements count 8 bytes (the NVPTX data layout).

    For one ragged dot this turns the five group-metadata buffers (group
    starts and ends, visit groups and tiles, the visit count) into one
    allocation and one free.

    With `workspace-argument`, each function `@f` takes a last argument
    `memref<?xi8>` (marked `gmm.workspace`), the caller's workspace: the
    entry block's first group is placed in it when it is large enough (else
    allocated as above, and freed), and `@f_workspace_bytes`, a new function
    with `@f`'s arguments (marked `gmm.workspace_size_of`), returns the bytes
    it needs, computed from the arguments' shapes as `@f` computes them. A
    caller that passes an empty workspace gets the allocation.
  }];
  let options = [
    Option<"workspaceArgument", "workspace-argument", "bool",
           /*default=*/"false",
           "Each function takes its caller's workspace as a last argument; "
           "@f_workspace_bytes says its size">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def GMMGPUShareKernels : Pass<"gmm-gpu-share-kernels", "::mlir::ModuleOp"> {
  let summary = "Keep one gpu.module per class of identical kernel modules";
  let description = [{
    `gpu-kernel-outlining` gives every `gpu.launch` a `gpu.module` of its
    own, so a program with many identical ragged dots (one per layer of a
    model, the same shapes, types and kernel configuration) carries one copy
    of each kernel per ragged dot, and the NVVM lowering and LLVM's PTX
    backend compile every copy. This pass, run right after outlining, keeps
    the first module of each class of equal modules and points every
    `gpu.launch_func` of the others at it; the others are erased.

    Two modules are equal when their attributes (targets included) agree
    apart from the module's name and their ops agree one by one: a symbol
    (a kernel) up to its name, its body region by `OperationEquivalence`
    (locations ignored), any other op fully. A module referenced by anything
    other than a `gpu.launch_func` of one of its kernels is left alone.

    Then each kept module that holds one kernel gives that kernel its own
    name, which the symbol table made unique (outlining two launches named
    `f_tile_..` gives modules `f_tile_..` and `f_tile_.._0` whose kernels are
    both `f_tile_..`), so that no two kernels of a program share a name in
    the PTX, a trace or a profile.

    Example: after outlining two identical launches,

    ```mlir
    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.launch_func @g_kernel::@g_kernel ...
    gpu.module @f_kernel { gpu.func @f_kernel(...) kernel { BODY } }
    gpu.module @g_kernel { gpu.func @g_kernel(...) kernel { BODY } }
    ```

    becomes

    ```mlir
    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.module @f_kernel { gpu.func @f_kernel(...) kernel { BODY } }
    ```
  }];
}

def GMMGPUAsyncHost : Pass<"gmm-gpu-async-host", "::mlir::ModuleOp"> {
  let summary = "Put a function's device allocations, copies, memsets, "
                "frees and launches on one stream";
  let description = [{
    `gmm-gpu-partition-host` leaves the host's side of a ragged dot as synchronous
    gpu ops, and `gpu-to-llvm` gives each synchronous op a stream of its
    own, created, synchronized and destroyed around it. This pass makes them
    asynchronous and chains them on one token, so that `gpu-to-llvm` puts
    all of a function's device work on one stream, created at its first gpu
    op, and the host waits once, before the function returns:

    - a gpu op implementing `gpu::AsyncOpInterface` without a token
      (`gpu.alloc`, `gpu.dealloc`, `gpu.memcpy`, `gpu.memset`,
      `gpu.launch_func`, `gpu.launch`) is rebuilt with a token result and
      the chain's last token as its only dependency;
    - the bodies of `scf.if` and `scf.for` continue the chain from the token
      they start with, unless something in them has host side effects (a
      wait there would end the stream that the ops after them still use).
      No token is yielded out of them, because
      `gpu-to-llvm` lowers a wait on a token that arrives through a block
      argument as an event wait: the ops after them depend on the token
      from before, and the ops inside, on the same stream, are ordered
      before them;
    - any other op with side effects (a call, a host memory access) first
      waits for the chain, which then starts again, and any other op with
      gpu ops in its regions gets a chain per block; side-effect-free ops
      and `cf.assert` do not wait;
    - every block waits for its chain before its terminator, except the
      bodies that continue an outer chain.

    Example:

    ```mlir
    %m = gpu.alloc () : memref<4xf32>
    gpu.memset %m, %zero : memref<4xf32>, f32
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.dealloc %m : memref<4xf32>
    return
    ```

    becomes

    ```mlir
    %t0 = gpu.wait async
    %m, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
    %t2 = gpu.memset async [%t1] %m, %zero : memref<4xf32>, f32
    %t3 = gpu.launch_func async [%t2] @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    %t4 = gpu.dealloc async [%t3] %m : memref<4xf32>
    gpu.wait [%t4]
    return
    ```

    With `caller-stream`, the function runs on its caller's stream instead
    and does not wait for it: it takes the stream as a last argument of
    type `!gpu.async.token` (marked `gmm.stream`; `gpu-to-llvm` makes it the
    `CUstream` pointer, which every async op then uses as its stream), its
    chains start from that argument, and no `gpu.wait` is emitted. The
    caller synchronizes before it reads the results. A call of a function
    of the module passes the stream on and does not wait (the callee
    enqueues its work on the same stream). Any other op that would make the
    host wait inside the function (a call of an external function, a host
    memory access) is an error: a caller's stream cannot be waited for with
    `gpu.wait`, which `gpu-to-llvm` lowers to an event wait on anything but
    a stream it created.

    Upstream's `gpu-async-region` threads tokens the same way within a block
    but is not used: it starts a new chain (stream) in every block and waits
    at the block's end, so every `scf.for` iteration and `scf.if` branch with
    a launch creates a stream and synchronizes (and the host waits before
    the loop or branch); it waits before `cf.assert`; and it cannot start
    from a caller's stream. This pass can go once upstream's continues a
    chain through `scf` bodies and starts it from a function argument.
  }];
  let options = [
    Option<"callerStream", "caller-stream", "bool", /*default=*/"false",
           "Run on the stream the caller passes as the last argument and "
           "do not wait for it">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GMMGPULowerBF16MmaSync : Pass<"gmm-gpu-lower-bf16-mma-sync"> {
  let summary = "Lower bf16 nvgpu.mma.sync to nvvm.mma.sync";
  let description = [{
    `nvgpu.mma.sync` accepts bf16 operands, but MLIR 22's
    `convert-nvgpu-to-nvvm` cannot lower them: it infers the PTX type of an
    A or B operand from its element type (`getNvvmMmaType`) and knows f16,
    tf32 and the integer types but not bf16 ("failed to deduce operand PTX
    types"). Later MLIR deduces bf16 there (llvm/llvm-project#194203,
    "[mlir][NVGPUToNVVM] Support BF16 mma.sync lowering"); this pass is a
    workaround, to delete on the LLVM upgrade that has it. It runs before
    `convert-nvgpu-to-nvvm` and lowers every `nvgpu.mma.sync` with bf16 A
    and B operands (and an f32 accumulator, the only one PTX has for
    bf16) to `nvvm.mma.sync` typed bf16: each row of an A or B fragment
    (two bf16) is one 32-bit register, each accumulator element one f32.
    Other `nvgpu.mma.sync` ops are left to `convert-nvgpu-to-nvvm`.

    Example:

    ```mlir
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]}
        : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    ```

    becomes an `nvvm.mma.sync` on the four A registers, two B registers and
    four accumulator values, `multiplicandAPtxType` and
    `multiplicandBPtxType` bf16, whose four results are gathered back into a
    `vector<2x2xf32>`.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMGPUWritePTX : Pass<"gmm-gpu-write-ptx", "::mlir::ModuleOp"> {
  let summary = "Write the PTX of each gpu.binary to a file";
  let description = [{
    After `gpu-module-to-binary{format=isa}`, every kernel module's PTX is a
    string in a `gpu.binary`. This pass writes each one to
    `<directory>/<binary name>.<chip>.ptx` (the directory is created when
    missing) and leaves the IR unchanged, so the PTX can be read, diffed or
    assembled with `ptxas -v`. The `gmm-to-ptx` pipeline runs it when given
    `ptx-dir=<directory>`.
  }];
  let options = [
    Option<"directory", "directory", "std::string", /*default=*/"\".\"",
           "Where to write the .ptx files">
  ];
}

#endif // GMM_CODEGEN_GPU_PASSES_TD
