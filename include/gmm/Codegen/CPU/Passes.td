//===- Passes.td - gmm CPU code generation passes ----------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The CPU backend's passes after gmm-tile: they work on the CPU tile
// program (packed visits and register blocks) on its way to LLVM, as the
// passes of include/gmm/Codegen/GPU/Passes.td do for the GPU's.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CODEGEN_CPU_PASSES_TD
#define GMM_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GMMCPUEmulateBF16Dot : Pass<"gmm-cpu-emulate-bf16-dot"> {
  let summary = "Compute x86vector.avx512.dot (vdpbf16ps) with f32 FMAs, for CPUs without AVX512-BF16";
  let description = [{
    Rewrites every `x86vector.avx512.dot %acc, %a, %b` (the `bf16_dot`
    micro-kernel's `vdpbf16ps`) into portable vector code with the
    instruction's results: `a` and `b` are extended to f32 and split into
    their even and odd elements (`vector.deinterleave`), and lane `i`
    becomes `fma(a[2i], b[2i], fma(a[2i+1], b[2i+1], acc[i]))`, the order
    in which AVX512-BF16 adds the two products (each product of two bf16
    values is exact in f32, so only the two additions round, as in the
    instruction). The instruction flushes denormal inputs and results to
    zero, which the emulation does not.

    The `bf16_dot` code (its packing of interleaved pairs of k, its
    micro-kernel) then runs on any CPU, more slowly than the `fma`
    micro-kernel: it is for testing that code where the instruction is
    missing (`gmm-to-cpu{emulate-bf16-dot}`; the differential test uses
    it on such CPUs), not for speed.

    ```mlir
    %d = x86vector.avx512.dot %acc, %a, %b : vector<32xbf16> -> vector<16xf32>
    // becomes
    %wa = arith.extf %a : vector<32xbf16> to vector<32xf32>
    %wb = arith.extf %b : vector<32xbf16> to vector<32xf32>
    %ae, %ao = vector.deinterleave %wa : vector<32xf32> -> vector<16xf32>
    %be, %bo = vector.deinterleave %wb : vector<32xf32> -> vector<16xf32>
    %odd = vector.fma %ao, %bo, %acc : vector<16xf32>
    %d = vector.fma %ae, %be, %odd : vector<16xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMCPUStreamResults : Pass<"gmm-cpu-stream-results"> {
  let summary = "Write large results with streaming (non-temporal) stores";
  let description = [{
    Makes the tile visits' whole-vector stores into a large result
    non-temporal: a store that would first read its cache line from memory
    (to own it) and later write it back goes to memory directly, and
    writing the result costs one pass over memory instead of two. A weight
    gradient (mode 2) writes a `[g, k, n]` result, 1.6 GB in f32 for a
    Qwen3-like layer (128 experts of 2048 x 1536), from only a few rows per
    group: writing it bounds its time.

    A store streams when it is a `vector.transfer_write` on a memref, of
    one dimension, in bounds and unmasked, along the memref's contiguous
    last dimension, of a power of two bytes, at least 16; when it is
    inside a parallel loop (`omp.loop_nest`, or `scf.parallel` without
    OpenMP: in `gmm-to-cpu`, the loops over tile visits); and when the
    buffer it writes (through views) is defined outside that loop, statically
    shaped and at least `min-bytes` large: the result, not one of the
    visit's own buffers (packed panels, accumulators). A dynamically shaped
    result does not stream. A streaming store must be aligned to its size
    (a vector wider than 64 bytes, AVX-512's registers, is stored a register
    at a time, each aligned to 64 bytes), which the buffer's address decides
    at run time: such a store becomes
    a check of its address and a `vector.store` with `nontemporal = true`
    and that alignment when it holds, a plain `vector.store` when it does
    not. Streaming stores are weakly ordered, so every loop body with one
    ends with a sequentially consistent fence (`llvm.fence seq_cst`,
    `mfence` on x86).

    Runs after `convert-vector-to-scf` has unrolled the transfers to one
    dimension. `min-bytes = 0` streams nothing.

    A result of 16-bit floats (bf16, f16) needs `x86-register-bits` to
    stream on x86: LLVM 22's X86 backend has no non-temporal store pattern
    for bf16 or f16 vectors (it selects a plain `vmovaps` and drops the
    flag) and folds a bitcast to integers back into such a store. With the
    option (the width of the host's vector registers: 128, 256 or 512), each
    register-wide piece of such a store is bitcast to integers and passed
    through an empty `llvm.inline_asm` (`"=v,0"`: the same register in and
    out, no instruction), which LLVM cannot look through, before its
    `nontemporal` store; the backend then selects `vmovntps` (or
    `vmovntdq`). 0 (the default, and right for targets other than x86)
    keeps such stores' `nontemporal` flag alone. The option works around
    LLVM 22 and can go once its X86 backend streams such stores itself.

    ```mlir
    vector.transfer_write %v, %slice[%i, %j] {in_bounds = [true]}
        : vector<16xf32>, memref<?x?xf32, strided<[1536, 1], offset: ?>>
    // becomes
    %aligned = ... (%base + 4 * (%offset + %i * 1536 + %j)) % 64 == 0 ...
    scf.if %aligned {
      vector.store %v, %slice[%i, %j] {alignment = 64 : i64, nontemporal = true}
          : memref<?x?xf32, strided<[1536, 1], offset: ?>>, vector<16xf32>
    } else {
      vector.store %v, %slice[%i, %j]
          : memref<?x?xf32, strided<[1536, 1], offset: ?>>, vector<16xf32>
    }
    ...
    llvm.fence seq_cst
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "uint64_t", /*default=*/"16777216",
           "Stream stores into results of at least this many bytes (0: none)">,
    Option<"x86RegisterBits", "x86-register-bits", "int64_t", /*default=*/"0",
           "On x86, the vector register width (128, 256 or 512) by which "
           "16-bit float stores are passed through an empty inline-asm "
           "barrier so that LLVM selects a streaming store (0: none)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GMMCPUScheduleVisits : Pass<"gmm-cpu-schedule-visits"> {
  let summary = "Hand out the visit loops' iterations to OpenMP threads one at a time";
  let description = [{
    Gives every `omp.wsloop` without a schedule clause `schedule(dynamic)`
    (chunks of one iteration): each thread takes the next iteration when
    it is done with its last one. In `gmm-to-cpu` (after
    `convert-scf-to-openmp`) these loops are the parallel loops over a
    ragged dot's tile visits, whose iterations differ in work: a group's
    last visit has fewer rows, and a weight gradient's visits (mode 2)
    contract over their group's rows, so their work follows the group
    sizes. Without a schedule clause the OpenMP runtime splits the
    iterations statically into one contiguous range per thread, and a
    thread whose range holds the larger groups finishes last while the
    others wait. A visit takes from tens of microseconds to milliseconds,
    so taking one from the runtime at a time costs little.

    A loop that already has a schedule keeps it.

    ```mlir
    omp.wsloop {
      omp.loop_nest (%v) : index = (%c0) to (%visits) step (%c1) { ... }
    }
    // becomes
    omp.wsloop schedule(dynamic) {
      omp.loop_nest (%v) : index = (%c0) to (%visits) step (%c1) { ... }
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::omp::OpenMPDialect"
  ];
}

#endif // GMM_CODEGEN_CPU_PASSES_TD
