//===- JitRunner.h - JIT-compile and call a function ------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Compiles one func.func of a module with a pass pipeline that ends in the
// LLVM dialect, JIT-compiles it with mlir::ExecutionEngine and calls it with
// HostTensors, on the CPU or (JitOptions::cuda) with its kernels on a CUDA
// device, real or simulated. lib/Runner/RunnerInternals.h says which file
// does which part.
//
// Calling convention. The entry gets `llvm.emit_c_interface`, and
// `_mlir_ciface_<name>` is called through ExecutionEngine::invokePacked:
// every argument is passed as a pointer to a memref descriptor
// {allocated, aligned, offset, sizes[rank], strides[rank]} built over a copy
// of the argument's bytes (allocated = aligned = data, offset 0, row-major
// strides; rank 0 has no sizes or strides). Results come back in a struct of
// descriptors whose buffers the compiled code allocated with malloc; they are
// copied out (honouring offset and strides) and released with
// free(allocated), except for a buffer that the code returned from one of the
// arguments, which is left alone.
//
// Tensor arguments have value semantics: the compiled code may update them in
// place (one-shot bufferization treats function arguments as writable), so
// every call works on copies and the caller's tensors never change. Memref
// arguments are the way a function returns values by writing into its
// arguments: their contents after the call are returned as additional
// outputs, after the results.
//
// Runtime functions: the compiled code may call malloc, calloc,
// aligned_alloc and free (provided by the runner, see below), memcpy
// (resolved in the host process) and memrefCopy (strided copies, provided by
// the runner); other runtime libraries are not loaded.
//
// Guard pages (JitOptions::guardPages, GuardedMemory.h). AddressSanitizer
// does not see JIT-compiled code, so for tests a call can place every
// argument buffer in guarded memory, where the first byte read or written
// past its end (GuardPages::End) or before its start (GuardPages::Start)
// faults and is reported with the argument's name. The compiled code's own
// allocations (memref.alloc, hence its results and temporaries) go through
// the runner's malloc, which places them in guarded memory the same way
// during a guarded call; but memref.alloc with an alignment over-allocates
// by the alignment and rounds the start up, so on those buffers an access up
// to alignment - 1 bytes past the end (End) can go unnoticed, and one before
// the start (Start) is caught only when it leaves the rounding slack.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_JITRUNNER_H
#define GMM_RUNNER_JITRUNNER_H

#include "gmm/Runner/GuardedMemory.h"
#include "gmm/Runner/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
class OpPassManager;
class PassManager;
} // namespace mlir

namespace gmm {
namespace runner {

/// "file.mlir:3:7": the first file location in `loc` (which may be fused,
/// named or a call site); empty when there is none.
std::string formatLocation(mlir::Location loc);

/// The DType of an MLIR element type; std::nullopt when gmm-runner cannot
/// pass it (index, i8, complex, ...).
std::optional<DType> getDType(mlir::Type type);

/// One argument or result of the entry: a ranked tensor or memref.
struct TensorSpec {
  /// A memref (the callee writes into it) rather than a tensor.
  bool isMemRef = false;
  DType type = DType::F32;
  /// Static sizes, mlir::ShapedType::kDynamic for dynamic ones.
  llvm::SmallVector<int64_t> shape;
  /// The MLIR type as written, e.g. "tensor<?x32xf16>".
  std::string typeName;

  bool hasDynamicDims() const;
  /// The type with `actualShape` in place of the dynamic sizes, e.g.
  /// "tensor<64x32xf16>".
  std::string describe(llvm::ArrayRef<int64_t> actualShape) const;
};

/// The arguments and results of the entry function.
struct FunctionSignature {
  std::string name;
  std::vector<TensorSpec> arguments;
  std::vector<TensorSpec> results;
};

/// Reads the signature of `func`; an error names the first argument or
/// result whose type gmm-runner cannot pass.
llvm::Expected<FunctionSignature> getFunctionSignature(mlir::func::FuncOp func);

/// The func.func named `name` in `module`, or, when `name` is empty, its only
/// func.func with a body. Errors list the functions that exist.
llvm::Expected<mlir::func::FuncOp> lookupEntryFunction(mlir::ModuleOp module,
                                                       llvm::StringRef name);

/// Checks that `value` can be passed as argument `index` of type `spec`: the
/// same element type and rank, and the static sizes. Dynamic sizes accept any
/// size.
llvm::Error checkArgument(const TensorSpec &spec, const HostTensor &value,
                          unsigned index);

/// Adds a pipeline that lowers a module to the LLVM dialect.
/// The row-major memref descriptor {allocated, aligned, offset, sizes...,
/// strides...} of a dense buffer of `shape` at `data` (host or device), as
/// JitFunction::invokeOnDescriptors takes it.
std::vector<int64_t> denseDescriptor(const void *data,
                                     llvm::ArrayRef<int64_t> shape);

using PipelineBuilder = std::function<void(mlir::OpPassManager &)>;

/// A pipeline of lib/Pipelines' catalogue (mlir::gmm::getPipelineCatalogue)
/// as callers of the JIT use it: gmm-runner's --pipeline, the benchmarks,
/// the fuzzers, the differential test, ModuleCache.
struct PipelineInfo {
  const char *name;
  const char *description;
  PipelineBuilder build;
  /// The compiled code runs on a CUDA GPU: compile and call it with
  /// JitOptions::cuda.
  bool cuda = false;
};

/// The catalogue's pipelines, in its order (the first one is the default);
/// GPU pipelines compile for the chip of CUDA device 0 when there is one.
llvm::ArrayRef<PipelineInfo> getPipelines();
/// The pipeline called `name`, or nullptr.
const PipelineInfo *lookupPipeline(llvm::StringRef name);
/// lookupPipeline, or an error "unknown --pipeline=NAME (available: ...)".
llvm::Expected<const PipelineInfo *> findPipeline(llvm::StringRef name);

/// The number of threads code compiled by the `cpu` pipeline runs on (the
/// OpenMP runtime's choice: OMP_NUM_THREADS, else the number of cores).
int getNumThreads();

/// How the JIT compiles.
struct JitOptions {
  /// LLVM optimisation level (0-3) of the IR optimiser and code generator.
  unsigned optLevel = 3;
  /// Called on the pass manager before the pipeline runs, e.g. with
  /// mlir::applyPassManagerCLOptions to honour --mlir-print-ir-after-all.
  std::function<mlir::LogicalResult(mlir::PassManager &)> configurePassManager;
  /// When set, the first error that the lowering reports becomes part of
  /// the error that compile() returns (one line: location, operation and
  /// message) and no lowering diagnostic reaches the context's handler; when
  /// cleared, they all go to the context's handler.
  bool foldDiagnostics = true;
  /// Where call() places the argument buffers and the compiled code's own
  /// allocations; JitFunction::setGuardPages() changes it between calls.
  GuardPages guardPages = GuardPages::None;
  /// Run on the GPU: the pipeline emits mgpu* calls (gmm-to-ptx), compile()
  /// checks gmmCudaAvailable() before it creates the ExecutionEngine, and
  /// call() places the arguments in device memory and copies results back.
  bool cuda = false;
};

/// The entry function of a module, lowered and JIT-compiled, ready to call.
class JitFunction {
public:
  /// Clones `module`, marks the entry `llvm.emit_c_interface`, runs
  /// `pipeline` (mlir::gmm::buildReferenceToLLVMPipeline when empty) and
  /// JIT-compiles the result. The module's context must have what the
  /// pipeline needs registered (gmm-runner registers every upstream dialect
  /// and extension, which includes the bufferization models); the LLVM IR
  /// translations are added here. The returned error says which step failed
  /// and, with JitOptions::foldDiagnostics, why.
  static llvm::Expected<std::unique_ptr<JitFunction>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          PipelineBuilder pipeline = {}, const JitOptions &options = {});

  ~JitFunction();

  const FunctionSignature &getSignature() const { return signature; }

  /// Where the following calls place their buffers. Guarded calls are for
  /// tests: they must not run concurrently with other guarded calls (the
  /// compiled code's malloc follows the mode of the call that started last;
  /// every mode is correct, only the placement differs).
  void setGuardPages(GuardPages mode) { guardPages = mode; }
  GuardPages getGuardPages() const { return guardPages; }

  /// Checks `arguments` against the signature and calls the function. Returns
  /// the results followed by the memref arguments as they are after the
  /// call. When `seconds` is given it receives the time the call itself
  /// took (copying arguments and results is not counted).
  llvm::Expected<std::vector<HostTensor>>
  call(llvm::ArrayRef<HostTensor> arguments, double *seconds = nullptr);

  /// Calls the compiled function on ready-made memref descriptors (the
  /// argument buffers may be device pointers, e.g. for benchmarks that keep
  /// their data on the GPU). Each argument descriptor is {allocated, aligned,
  /// offset, sizes..., strides...}; the result descriptors come back in the
  /// same layout, concatenated in result order, and the caller owns their
  /// buffers (for --target=cuda results, free them with mgpuMemFree).
  /// `seconds`, when given, receives the time of the call. A function
  /// compiled to run on its caller's stream (gmm-to-ptx{caller-stream}, as
  /// the "cuda" pipeline is) gets `stream`, or a stream of its own when
  /// null; either way the call returns once the stream has finished.
  llvm::Expected<std::vector<int64_t>>
  invokeOnDescriptors(std::vector<std::vector<int64_t>> &arguments,
                      double *seconds = nullptr, void *stream = nullptr);

  /// Whether the compiled function takes its caller's CUDA stream.
  bool takesStream() const { return streamArgument; }
  /// Whether the compiled function takes a workspace (gmm-to-ptx
  /// {workspace-argument}, as the "cuda" pipeline is); invokeOnDescriptors
  /// then sizes it with `@f_workspace_bytes`, allocates it on the call's
  /// stream and frees it after the call.
  bool takesWorkspace() const { return workspaceArgument; }

private:
  JitFunction() = default;

  FunctionSignature signature;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  /// The packed entry point (and the workspace's size function), looked up
  /// (after the engine's initialisation) by the first call, once even when
  /// calls run concurrently.
  std::once_flag entryOnce;
  void (*entry)(void **) = nullptr;
  std::string entryError;
  GuardPages guardPages = GuardPages::None;
  bool cuda = false;
  /// The lowered function's last argument is the caller's stream.
  bool streamArgument = false;
  /// The lowered function takes a workspace (before the stream), sized by
  /// `@<name>_workspace_bytes`, looked up with the entry.
  bool workspaceArgument = false;
  void (*workspaceEntry)(void **) = nullptr;

  /// The workspace bytes for a call on `argumentPointers` (descriptors).
  int64_t workspaceBytes(llvm::ArrayRef<void *> argumentPointers);

  llvm::Expected<std::vector<HostTensor>>
  callOnDevice(llvm::ArrayRef<HostTensor> arguments, double *seconds);
};

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_JITRUNNER_H
