//===- Pipelines.h - named gmm pass pipelines -------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Named pipelines are sequences of registered passes, assembled here and only
// here. Each is available in gmm-opt as `--<name>` and from C++ through its
// build function.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_PIPELINES_PIPELINES_H
#define GMM_PIPELINES_PIPELINES_H

#include "gmm/Dialect/GMM/IR/GMMAttrs.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <string>

namespace mlir {
class OpPassManager;

namespace gmm {

/// The options both tiled pipelines (`Derived`: CPUPipelineOptions,
/// GPUPipelineOptions) declare alike and hand to gmm-configure: the tile's
/// sizes.
template <typename Derived>
struct TiledPipelineOptions : public PassPipelineOptions<Derived> {
  template <typename T> using Option = ::mlir::detail::PassOptions::Option<T>;

  /// Tile sizes (m, n, k); 0 leaves the choice to gmm-configure's heuristic.
  Option<int64_t> tileM{*this, "tile-m",
                        llvm::cl::desc("Rows of a tile (0: heuristic)"),
                        llvm::cl::init(0)};
  Option<int64_t> tileN{*this, "tile-n",
                        llvm::cl::desc("Columns of a tile (0: heuristic)"),
                        llvm::cl::init(0)};
  Option<int64_t> tileK{
      *this, "tile-k",
      llvm::cl::desc("Contraction block (cpu) or step (gpu) (0: heuristic)"),
      llvm::cl::init(0)};

protected:
  TiledPipelineOptions() = default;
};

/// Options of the tiled CPU pipeline: the same struct is `gmm-to-cpu`'s
/// command-line options and what C++ callers set (`options.tileM = 64`).
struct CPUPipelineOptions : public TiledPipelineOptions<CPUPipelineOptions> {
  CPUPipelineOptions() = default;
  /// Copies the values (pass options themselves are not copyable).
  CPUPipelineOptions(const CPUPipelineOptions &other) : CPUPipelineOptions() {
    copyOptionValuesFrom(other);
  }
  CPUPipelineOptions &operator=(const CPUPipelineOptions &other) {
    copyOptionValuesFrom(other);
    return *this;
  }

  /// The register block (rows, accumulator lanes per row); 0 leaves the
  /// choice to gmm-configure's heuristic for the host CPU's vector width.
  Option<int64_t> microM{
      *this, "micro-m",
      llvm::cl::desc("Rows of the CPU register block (0: heuristic)"),
      llvm::cl::init(0)};
  Option<int64_t> microN{*this, "micro-n",
                         llvm::cl::desc("Accumulator lanes per row of the CPU "
                                        "register block (0: heuristic)"),
                         llvm::cl::init(0)};
  /// How the register block multiplies: gmm-configure's heuristic, fma, or
  /// vdpbf16ps on pairs of k for the bf16 ragged dots.
  Option<MicroKernelOption> microKernel{
      *this, "micro-kernel",
      llvm::cl::desc("How the CPU register block multiplies: auto (the "
                     "heuristic: bf16-dot for bf16 inputs on a host with "
                     "AVX512-BF16), fma, or bf16-dot (for the bf16 ragged "
                     "dots)"),
      llvm::cl::init(MicroKernelOption::Auto),
      llvm::cl::values(
          clEnumValN(MicroKernelOption::Auto, "auto", "the heuristic"),
          clEnumValN(MicroKernelOption::FMA, "fma",
                     "operands packed as f32 (f64), broadcast FMAs"),
          clEnumValN(MicroKernelOption::BF16Dot, "bf16-dot",
                     "vdpbf16ps on pairs of k for bf16 inputs"))};
  /// Compute the bf16_dot micro-kernel's vdpbf16ps with f32 FMAs
  /// (gmm-cpu-emulate-bf16-dot), so that its code runs on CPUs without
  /// AVX512-BF16: for testing it there, slower than the fma micro-kernel.
  Option<bool> emulateBF16Dot{
      *this, "emulate-bf16-dot",
      llvm::cl::desc("Compute the bf16-dot micro-kernel's vdpbf16ps with f32 "
                     "FMAs (the same results), so that it runs on CPUs "
                     "without AVX512-BF16 (for testing; slower than fma)"),
      llvm::cl::init(false)};
  /// Results of at least this many bytes are written with streaming stores
  /// (gmm-cpu-stream-results); 0 streams none.
  Option<uint64_t> streamMinBytes{
      *this, "stream-min-bytes",
      llvm::cl::desc("Write results of at least this many bytes with "
                     "streaming (non-temporal) stores (0: never)"),
      llvm::cl::init(uint64_t(16) << 20)};
  /// What the ragged dots are configured for: GPU runs the GPU-shaped tile
  /// program (block tiles, foralls mapped to blocks) on the CPU, as the
  /// differential test does to cover what gmm-map-to-gpu maps.
  Option<KernelTarget> tileTarget{
      *this, "tile-target",
      llvm::cl::desc("What the ragged dots are configured for: cpu, or gpu "
                     "for the GPU-shaped tile program"),
      llvm::cl::init(KernelTarget::CPU),
      llvm::cl::values(clEnumValN(KernelTarget::CPU, "cpu", "the CPU program"),
                       clEnumValN(KernelTarget::GPU, "gpu",
                                  "the GPU-shaped program, run on the CPU"))};
  /// Run the tile visits on OpenMP threads (the runtime decides how many,
  /// e.g. OMP_NUM_THREADS); otherwise on one thread.
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("Run tile visits on OpenMP threads"),
                        llvm::cl::init(true)};
};

/// `gmm-to-cpu`: the optimized CPU path. gmm-normalize, gmm-tile,
/// gmm-materialize-metadata (ragged dots that cannot be normalized fall back
/// to convert-gmm-to-loops), bufferization, scf.forall -> OpenMP, vector
/// micro-kernels lowered to LLVM vector code (contractions as outer products),
/// then the LLVM dialect. The JIT needs the OpenMP runtime (libomp) when
/// `parallel` is set.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Options of the GPU pipeline: the same struct is `gmm-to-ptx`'s
/// command-line options and what C++ callers set (`options.chip = "sm_80"`).
struct GPUPipelineOptions : public TiledPipelineOptions<GPUPipelineOptions> {
  GPUPipelineOptions() = default;
  /// Copies the values (pass options themselves are not copyable).
  GPUPipelineOptions(const GPUPipelineOptions &other) : GPUPipelineOptions() {
    copyOptionValuesFrom(other);
  }
  GPUPipelineOptions &operator=(const GPUPipelineOptions &other) {
    copyOptionValuesFrom(other);
    return *this;
  }

  /// The SM the kernels are compiled for (sm_80, sm_90, ...).
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target SM, e.g. sm_80 or sm_90"),
                           llvm::cl::init("sm_90")};
  /// PTX features, e.g. "+ptx80"; empty lets LLVM pick for the chip.
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features, e.g. +ptx80 (empty: LLVM's default)"),
      llvm::cl::init("")};
  /// What gpu-module-to-binary embeds: "isa" (PTX text, no CUDA install
  /// needed), "bin" (cubin) or "fatbin"; the latter two run ptxas.
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Embedded object: isa (PTX), bin (cubin) or fatbin"),
      llvm::cl::init("isa")};
  /// LLVM optimization level for the kernels.
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level"),
                            llvm::cl::init(3)};
  /// Warps per block along the tile's rows and columns, and the k steps
  /// staged in shared memory at once; 0 leaves the choice to
  /// gmm-configure's heuristic.
  Option<int64_t> warpsM{
      *this, "warps-m",
      llvm::cl::desc("Warps along a tile's rows (0: heuristic)"),
      llvm::cl::init(0)};
  Option<int64_t> warpsN{
      *this, "warps-n",
      llvm::cl::desc("Warps along a tile's columns (0: heuristic)"),
      llvm::cl::init(0)};
  Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("k steps staged in shared memory at once (0: heuristic)"),
      llvm::cl::init(0)};
  /// Visits per raster band: the order of the blocks over the tiles (0:
  /// gmm-configure's heuristic).
  Option<int64_t> raster{
      *this, "raster",
      llvm::cl::desc("Visits per raster band, the blocks' order over the "
                     "tiles (0: heuristic)"),
      llvm::cl::init(0)};
  /// The tile kernel's matrix instruction: gmm-configure's heuristic (wgmma
  /// for 16-bit mode-1 ragged dots on sm_90a), mma.sync, or wgmma.
  Option<GPUMmaOption> mma{
      *this, "mma",
      llvm::cl::desc("The tile kernel's matrix instruction: auto (wgmma for "
                     "the 16-bit mode-1 ragged dots on sm_90a, else "
                     "mma-sync), mma-sync or wgmma (sm_90a)"),
      llvm::cl::init(GPUMmaOption::Auto),
      llvm::cl::values(
          clEnumValN(GPUMmaOption::Auto, "auto", "the heuristic"),
          clEnumValN(GPUMmaOption::MmaSync, "mma-sync",
                     "the sm_80 kernel: warp-level mma.sync"),
          clEnumValN(GPUMmaOption::Wgmma, "wgmma",
                     "the Hopper kernel: TMA and wgmma (sm_90a)"))};
  /// Whether each function runs on its caller's stream (a last argument,
  /// see gmm-gpu-async-host) and returns without waiting for it.
  Option<bool> callerStream{
      *this, "caller-stream",
      llvm::cl::desc("Run each function on the CUDA stream its caller "
                     "passes as the last argument, without waiting for it"),
      llvm::cl::init(false)};
  /// Whether each function `@f` takes its caller's workspace (a last
  /// memref<?xi8> before the stream) for its temporaries; the module gets
  /// `@f_workspace_bytes` with `@f`'s arguments, which returns its size.
  Option<bool> workspaceArgument{
      *this, "workspace-argument",
      llvm::cl::desc("Each function takes its caller's workspace as an "
                     "argument; @f_workspace_bytes returns its size"),
      llvm::cl::init(false)};
  /// When set, the PTX of every kernel module is written to this directory.
  Option<std::string> ptxDir{
      *this, "ptx-dir",
      llvm::cl::desc("Write each kernel module's PTX to this directory"),
      llvm::cl::init("")};
};

/// gmm.ragged_dot to kernels for NVIDIA GPUs and host code that launches
/// them through the mgpu* runtime ABI (see lib/Runtime), in the LLVM
/// dialect.
void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

/// `gmm-map-to-gpu`: the GPU mapping of a bufferized tile program, as the
/// gmm-to-ptx pipeline runs it: gmm-gpu-forward-buffers, canonicalize,
/// gmm-gpu-map-blocks, gmm-gpu-promote-operands, gmm-gpu-stage-epilogue,
/// gmm-gpu-distribute-warps, gmm-gpu-async-copies,
/// gmm-gpu-pipeline-stages, then (with `convertMma`)
/// gmm-gpu-vector-to-mma-sync, gmm-gpu-lower-kernel-vectors and
/// gmm-gpu-swizzle-shared-memory, then gmm-gpu-partition-host and
/// gmm-gpu-merge-allocations. Without
/// `convertMma` the kernels keep their warp-level vector.contracts, for
/// inspection.
/// `workspaceArgument` is gmm-gpu-merge-allocations' option.
void buildMapToGPUPipeline(OpPassManager &pm, bool convertMma = true,
                           bool workspaceArgument = false);

/// Options of `gmm-map-to-gpu`.
struct MapToGPUPipelineOptions
    : public PassPipelineOptions<MapToGPUPipelineOptions> {
  Option<bool> convertMma{
      *this, "convert-mma",
      llvm::cl::desc("Convert the warp contractions to nvgpu.ldmatrix and "
                     "nvgpu.mma.sync and lower the kernels' other vector "
                     "ops (off: leave them, for inspection)"),
      llvm::cl::init(true)};
};

/// `gmm-reference-to-llvm`: lowers every gmm.ragged_dot directly to loops
/// (convert-gmm-to-loops), bufferizes (function boundaries included, identity
/// layouts), and converts everything to the LLVM dialect. The result is ready
/// for mlir::ExecutionEngine or mlir-translate. This is the reference CPU
/// path that the optimized pipelines are checked against.
void buildReferenceToLLVMPipeline(OpPassManager &pm);

/// Checks the options of buildGPUPipeline (the chip, the format, tile sizes
/// and warp counts in range) before anything is built; reports the first
/// problem through `errorHandler` in the terms of the options.
LogicalResult verifyGPUPipelineOptions(
    const GPUPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler);

/// Checks the options of buildCPUPipeline (tile sizes, tile target).
LogicalResult verifyCPUPipelineOptions(
    const CPUPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler);

/// gmm's pipelines contain module passes (bufferization, GPU outlining, the
/// conversion to the LLVM dialect), so they are built on a pass manager
/// anchored on builtin.module or on any operation. On one anchored
/// elsewhere (say, nested under func.func), this reports so through
/// `errorHandler`, naming `pipeline`, and fails; the build functions above
/// must not be called then (MLIR would stop the process).
LogicalResult
verifyPipelineAnchor(const OpPassManager &pm, StringRef pipeline,
                     function_ref<LogicalResult(const Twine &)> errorHandler);

/// One of gmm's pipelines that lower a module to the LLVM dialect, ready to
/// JIT-compile: the catalogue that gmm-runner's --pipeline, the benchmarks,
/// the fuzzers, the differential test and the JAX FFI handler choose from.
struct PipelineDescription {
  /// The name callers choose it by ("cpu", "reference", "cuda").
  const char *name;
  /// What it does, in a line.
  const char *description;
  /// The code runs on a CUDA GPU (the pipeline emits mgpu* calls).
  bool gpu;
  /// Adds the pipeline with its default options to `pm`; `chip` is the GPU
  /// to compile for (gpu pipelines; empty: GPUPipelineOptions' default).
  void (*build)(OpPassManager &pm, StringRef chip);
};

/// The catalogue, in the order tools list it; the first is the default.
ArrayRef<PipelineDescription> getPipelineCatalogue();

/// Registers every named gmm pipeline with the global pass registry. A
/// pipeline named in a textual pipeline under another operation than
/// builtin.module is a parse error (verifyPipelineAnchor), not an abort.
void registerGMMPipelines();

} // namespace gmm
} // namespace mlir

#endif // GMM_PIPELINES_PIPELINES_H
