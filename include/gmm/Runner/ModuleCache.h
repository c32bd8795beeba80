//===- ModuleCache.h - Compile a module once, call it many times -*- C++
//-*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What every caller of the JIT shares (gmm-runner, gmm-difftest, the
// fuzzers, the benchmarks, the JAX FFI handler): the dialects that gmm's
// pipelines need, parsing module text with its first error on one line, and
// compiling it.
//
// ModuleCache: "compile this ragged dot and call it on these buffers", for
// callers that hand gmm the same module text over and over (the JAX FFI handler
// gets it as an attribute of every call): the text is parsed, verified, lowered
// and JIT-compiled on first use and the compiled function is kept, keyed by the
// text, the entry and the pipeline. Thread-safe: compilations are serialised
// on the cache's own MLIRContext, calls of compiled functions run
// concurrently.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_MODULECACHE_H
#define GMM_RUNNER_MODULECACHE_H

#include "gmm/Runner/JitRunner.h"
#include "gmm/Runner/KernelConfigs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <memory>
#include <mutex>

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace gmm {
namespace runner {

/// Adds what a module that gmm's pipelines lower needs: every upstream
/// dialect and extension (the bufferization models of the tiled IR, vector,
/// OpenMP, GPU, ...) and gmm's dialect and models.
void registerRunnerDialects(mlir::DialectRegistry &registry);

/// A context with registerRunnerDialects()' dialects.
std::unique_ptr<mlir::MLIRContext> createRunnerContext();

/// Parses and verifies `text`; locations name it `name`. The error is the
/// first diagnostic on one line ("name:3:7: error: ...").
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
parseModuleText(mlir::MLIRContext &context, llvm::StringRef text,
                llvm::StringRef name = "module");

/// parseModuleText, then JitFunction::compile of `entry` with `pipeline`.
llvm::Expected<std::unique_ptr<JitFunction>>
compileModuleText(mlir::MLIRContext &context, llvm::StringRef text,
                  llvm::StringRef entry, PipelineBuilder pipeline,
                  const JitOptions &options = {},
                  llvm::StringRef name = "module");

class ModuleCache {
public:
  ModuleCache();
  ~ModuleCache();

  /// The function `entry` of `moduleText`, lowered with the pipeline named
  /// `pipeline` (getPipelines()) and JIT-compiled on first use; the same
  /// function on later calls with the same arguments. Errors say which step
  /// failed and why, in one line: "<text>:3:7: error: ..." for a module that
  /// does not parse or verify. A failed compilation is not kept.
  llvm::Expected<JitFunction *> getOrCompile(llvm::StringRef moduleText,
                                             llvm::StringRef entry,
                                             llvm::StringRef pipeline = "cpu");

  /// Parses and verifies `moduleText` without compiling it (the check a
  /// caller makes before committing to a module): its first error, as
  /// getOrCompile() would report it.
  llvm::Error verify(llvm::StringRef moduleText);

  /// The kernel configuration of each ragged dot of `moduleText` as the
  /// pipeline named `pipeline` chooses it, and why (gmm-configure's
  /// remarks), from lowering a copy of the module with it; nothing is
  /// compiled or kept. Errors as getOrCompile's.
  llvm::Expected<std::vector<KernelConfigReport>>
  describeKernelConfigs(llvm::StringRef moduleText,
                        llvm::StringRef pipeline = "cpu");

  /// describeRaggedDotCallJSON (RaggedDotCall.h) in the cache's context:
  /// the module, result shape, mode and free dimensions of one ragged dot
  /// call described in JSON, or the op verifier's first error.
  llvm::Expected<std::string> describeCall(llvm::StringRef jsonRequest);

  /// How many modules were compiled (cache misses that succeeded).
  size_t getNumCompilations();

private:
  std::mutex mutex;
  std::unique_ptr<mlir::MLIRContext> context;
  llvm::StringMap<std::unique_ptr<JitFunction>> compiled;
};

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_MODULECACHE_H
