//===- Passes.td - gmm conversion passes -------------------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CONVERSION_PASSES_TD
#define GMM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGMMToLoops : Pass<"convert-gmm-to-loops"> {
  let summary = "Lower gmm.ragged_dot directly to scf loops on tensors";
  let description = [{
    The reference lowering: every `gmm.ragged_dot` (any mode, batch
    dimensions, batched group sizes, group offset, init, any supported element
    type, static or dynamic shapes) becomes a nest of `scf.for` loops over the
    result elements that computes DESIGN.md's semantics literally:

    - mode 1: each result row finds its group by scanning the clamped group
      bounds; a row in no computed group keeps `init` (or zero), otherwise the
      dot product over the contracting dimensions uses that group's rhs;
    - mode 2: each output slice `i` sums the ragged contracting dimension over
      `[start_j, end_j)` of global group `j = offset + i` only;
    - mode 3: a plain batched dot.

    Products are accumulated in f32 (f64 for f64 inputs), added to `init`'s
    element when given, and converted once to the result element type.
    Group sizes are clamped (negative sizes count as zero, bounds saturate at
    the ragged extent), so no group sizes make the code access memory out of
    bounds. The output is destination-passing-style tensor IR (`tensor.empty`,
    `linalg.fill`, `scf.for` with `tensor.insert`) that One-Shot Bufferize
    turns into in-place loops.

    It is simple rather than fast: the optimized pipelines are checked against
    it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ConvertCHLOToGMM : Pass<"convert-chlo-to-gmm"> {
  let summary = "Import JAX's chlo.ragged_dot as gmm.ragged_dot";
  let description = [{
    Rewrites what JAX emits for `jax.lax.ragged_dot(_general)` into
    `gmm.ragged_dot`, in modules parsed with unregistered dialects allowed
    (gmm does not depend on StableHLO):

    - `"chlo.ragged_dot"(%lhs, %rhs, %group_sizes)` in generic form, with its
      `ragged_dot_dimension_numbers = #chlo.ragged_dot<...>` and
      `precision_config` properties (or attributes, in older text);
    - `"stablehlo.composite"(...)` whose `name` is `"chlo.ragged_dot"`, with
      the same attributes under `composite_attributes`: what `jax.export`
      writes for a GPU platform (JAX 0.10). Its decomposition function, and
      the private functions only it called, are removed once nothing else
      uses them;
    - `"stablehlo.custom_call"(...)` whose `call_target_name` is
      `"chlo.ragged_dot"`, with the attributes under `mhlo.attributes`: what
      JAX 0.8 wrote. It must be a plain call: no side effect, backend
      configuration, called computations, layouts or aliases.

    `ragged_dot_dimension_numbers` may be `#chlo.ragged_dot<...>`, a
    dictionary of the six lists, or, as jax.export writes it, an array of
    six dense i64 tensors in the order lhs batching, rhs batching, lhs
    contracting, rhs contracting, lhs ragged, rhs group.
    `precision_config` entries may be `#chlo<precision X>` or strings.
    `python/gmm/jax_export.py` prints what jax.export writes in MLIR's
    generic form, which gmm's tools parse.

    The result type is kept (the preferred element type). Every other op is
    left alone. Attributes the import does not understand, and dimension
    numbers that gmm.ragged_dot's verifier rejects, are errors with the
    location of the offending op.
  }];
  let dependentDialects = ["::mlir::gmm::GMMDialect"];
}

def GMMMapToGPU : Pass<"gmm-map-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Map the bufferized tile program onto CUDA blocks, warps and "
                "shared memory";
  let description = [{
    Runs after `gmm-tile` (of GPU configurations), `gmm-materialize-metadata` and
    One-Shot Bufferize. For every outermost `scf.forall` over tile visits
    (one per ragged dot and batch row) it builds a `gpu.launch`:

    - one block per forall iteration; the grid is the forall's static visit
      bound times the n-tiles, and blocks past the run-time visit count take
      the tile program's own empty branch and exit at once;
    - the block's contraction loop is rebuilt around a workgroup buffer of
      the configuration's `stages` stages (2 to 4; a static workgroup
      attribution up to 48 KiB, `gpu.dynamic_shared_memory` with the launch's
      `dynamic_shared_memory_size` above, which the runtime opts the kernel
      into): the lhs and rhs tiles of
      step i + stages - 1 are copied with `nvgpu.device_async_copy` (16-byte
      cp.async, zero-filled past the operands' ends and the group's k range)
      while step i is computed from its stage; operands whose rows are not
      16-byte aligned, or not contiguous, are staged with element-wise loads
      instead;
    - the configuration's warps share the tile. For f16 and bf16 inputs
      each warp accumulates m16n8k16 `vector.contract`s in f32, which
      upstream's vector-to-nvgpu conversion (run by this pass) turns into
      `nvgpu.ldmatrix` and `nvgpu.mma.sync`, typed bf16 for bf16 inputs
      (`gmm-lower-bf16-mma-sync` lowers those to NVVM). f32 inputs use
      FMAs: each lane owns a block of the warp tile;
    - the epilogue goes through shared memory one warp row at a time and
      replays the tile program's epilogue (add `init`, convert to the result
      type, masked write) on 4-element chunks, so rows of other groups and
      columns past n are never written.

    The rest of the function is made safe for device memory (with
    synchronous gpu ops, which `gmm-async-host` later puts on one stream):
    allocations become `gpu.alloc` (freed at the end of their block unless
    returned),
    fills of 16/32-bit elements `gpu.memset`, contiguous copies
    `gpu.memcpy`, and every remaining run of ops that touches memory (the
    group metadata, reference loops for what could not be tiled) becomes a
    single-thread kernel. Scalars such a kernel computes for later kernels
    (the visit count) pass through one-element device buffers, so the host
    never reads device memory and never waits for the metadata.
  }];
  let options = [
    Option<"convertMma", "convert-mma", "bool", /*default=*/"true",
           "Convert the warp contractions to nvgpu.ldmatrix and "
           "nvgpu.mma.sync (off: "
           "leave the m16n8k16 vector.contracts, for inspection)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::index::IndexDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMShareKernels : Pass<"gmm-share-kernels", "::mlir::ModuleOp"> {
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

def GMMAsyncHost : Pass<"gmm-async-host", "::mlir::func::FuncOp"> {
  let summary = "Put a function's device allocations, copies, memsets, "
                "frees and launches on one stream";
  let description = [{
    `gmm-map-to-gpu` leaves the host's side of a ragged dot as synchronous
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
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GMMLowerBF16MmaSync : Pass<"gmm-lower-bf16-mma-sync"> {
  let summary = "Lower bf16 nvgpu.mma.sync to nvvm.mma.sync";
  let description = [{
    `nvgpu.mma.sync` accepts bf16 operands, but MLIR 22's
    `convert-nvgpu-to-nvvm` cannot lower them: it infers the PTX type of an
    operand from its element type and knows f16, tf32 and the integer types
    but not bf16 ("failed to deduce operand PTX types"). This pass, run
    before `convert-nvgpu-to-nvvm`, lowers every `nvgpu.mma.sync` with bf16
    A and B operands (and an f32 accumulator, the only one PTX has for
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

def GMMWritePTX : Pass<"gmm-write-ptx", "::mlir::ModuleOp"> {
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

#endif // GMM_CONVERSION_PASSES_TD
