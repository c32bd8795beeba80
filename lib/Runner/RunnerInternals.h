//===- RunnerInternals.h - what the runner's files share --------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runner: the pieces of the JIT runner that its files share.
// JitRunner.cpp compiles and calls (JitFunction), CallGuard.cpp ends a call
// of compiled code early and releases what it allocated, RuntimeSymbols.cpp
// is what the compiled code links against, DeviceCall.cpp marshals a call
// on a CUDA device.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_RUNNER_RUNNERINTERNALS_H
#define GMM_LIB_RUNNER_RUNNERINTERNALS_H

#include "gmm/Runner/GuardedMemory.h"
#include "gmm/Runner/JitRunner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// From LLVM's OpenMP runtime, which the runner links for the JIT'd code.
extern "C" int omp_get_max_threads(void);
extern "C" int omp_in_parallel(void);

namespace gmm {
namespace runner {
namespace detail {

llvm::Error makeError(const llvm::Twine &message);

//===----------------------------------------------------------------------===//
// CallGuard.cpp
//===----------------------------------------------------------------------===//

/// How a call of compiled code ended early, when it did
/// (callCatchingFailures).
struct CallFailure {
  /// The bytes of an allocation that failed, or 0 for an abort.
  size_t bytes = 0;
  /// For an abort: what the code printed with puts() before it (a failed
  /// cf.assert's message).
  std::string message;
};

/// Calls a packed entry point of compiled code; how it ended early, or
/// std::nullopt when it returned. Whatever the code allocated and did not
/// free is released when it ends early (unless another call overlapped it).
std::optional<CallFailure> callCatchingFailures(void (*entry)(void **),
                                                void **arguments);

/// The compiled code's malloc, calloc, aligned_alloc and free: guarded
/// memory during a guarded call (ActiveGuardPages), the heap otherwise; an
/// allocation that fails ends the call.
void *jitMalloc(size_t size);
void *jitCalloc(size_t count, size_t size);
void *jitAlignedAlloc(size_t alignment, size_t size);
void jitFree(void *pointer);

/// The compiled code's puts() and abort(): a failed cf.assert prints its
/// message and aborts, which ends the call with that message.
int jitPuts(const char *text);
[[noreturn]] void jitAbort();

/// Sets the guard mode of the compiled code's allocations for one call.
class ActiveGuardPages {
public:
  explicit ActiveGuardPages(GuardPages mode);
  ~ActiveGuardPages();
  ActiveGuardPages(const ActiveGuardPages &) = delete;
  ActiveGuardPages &operator=(const ActiveGuardPages &) = delete;

private:
  int previous;
};

//===----------------------------------------------------------------------===//
// RuntimeSymbols.cpp
//===----------------------------------------------------------------------===//

/// A function that the runner defines for the compiled code.
struct RunnerSymbol {
  llvm::StringRef name;
  void *address;
};

/// The runner's definitions for the compiled code, which win over the
/// process's.
llvm::ArrayRef<RunnerSymbol> getRunnerSymbols();

/// Makes the OpenMP runtime that the runner links visible to the JIT's
/// process-wide symbol lookup.
void makeOpenMPRuntimeGlobal();

/// Every external function that the lowered module calls must be the
/// runner's or the process's.
llvm::Error checkExternalSymbols(mlir::ModuleOp module, llvm::StringRef entry);

/// The x86 instructions that the lowered module's intrinsics need must be
/// the host CPU's.
llvm::Error checkHostFeatures(mlir::ModuleOp module, llvm::StringRef entry);

//===----------------------------------------------------------------------===//
// JitRunner.cpp
//===----------------------------------------------------------------------===//

/// Copies the memref described by `desc` (allocated, aligned, offset,
/// sizes, strides) into a HostTensor of `spec`'s type.
llvm::Expected<HostTensor> copyOut(const int64_t *desc, const TensorSpec &spec,
                                   unsigned index);

/// Where each result's descriptor starts in invokeOnDescriptors' words.
std::vector<size_t> resultOffsets(const FunctionSignature &signature);

//===----------------------------------------------------------------------===//
// ModuleCache.cpp
//===----------------------------------------------------------------------===//

/// Keeps the first error that `context` reports while it lives, on one line,
/// and swallows the diagnostics: "name:3:7: error: ..." where the IR came
/// from text (`located`), the message alone where gmm built it for a
/// caller (RaggedDotCall.cpp), whose location is the caller's own.
class FirstError {
public:
  explicit FirstError(mlir::MLIRContext &context, bool located = true);

  /// The first error, or `otherwise` when there was none, as an llvm::Error.
  llvm::Error take(llvm::StringRef otherwise);

private:
  std::optional<std::string> message;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace detail
} // namespace runner
} // namespace gmm

#endif // GMM_LIB_RUNNER_RUNNERINTERNALS_H
