//===- CallGuard.cpp - ending a call of compiled code early ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// A call of JIT-compiled code that cannot allocate, or that aborts (a failed
// cf.assert), ends with an error of that call instead of the process: the
// runner's malloc and abort longjmp back to callCatchingFailures, which
// releases what the code allocated. The allocation functions also place the
// code's buffers in guarded memory during a guarded call.
//
//===----------------------------------------------------------------------===//

#include "RunnerInternals.h"

#include "gmm/Support/InputFile.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace gmm {
namespace runner {
namespace detail {

namespace {
/// The guard mode of the guarded call in progress (a GuardPages value), which
/// the compiled code's allocations follow.
std::atomic<int> activeGuardPages{static_cast<int>(GuardPages::None)};

/// Where the call in progress on this thread returns to when it ends early,
/// and why it does. What compiled code prints with puts() during the call
/// is kept in `callOutput` and printed when the call returns.
thread_local std::jmp_buf *callFailureTarget = nullptr;
thread_local CallFailure *callFailure = nullptr;
thread_local std::string *callOutput = nullptr;

/// Releases what allocateForCode() returned.
void releaseForCode(void *pointer) {
  if (!releaseGuarded(pointer))
    std::free(pointer);
}

/// The buffers that compiled code allocated (on any thread) while calls are
/// in progress and has not freed, so that a call that ends early releases
/// them. Calls may run concurrently (the JAX FFI handler is called from
/// several XLA threads), and an OpenMP worker cannot tell which call it
/// allocates for: the set is shared, emptied whenever no call is in
/// progress, and a call that ends early releases it only when no other call
/// overlapped it (its entries are then all its own). An early end that
/// overlapped another call leaves its buffers allocated rather than free
/// another call's.
struct LiveAllocations {
  std::mutex mutex;
  llvm::DenseSet<void *> pointers;
  /// Calls in progress.
  unsigned activeCalls = 0;
  /// Counts the calls that started while another one was in progress.
  uint64_t overlaps = 0;
};

LiveAllocations &getLiveAllocations() {
  static LiveAllocations live;
  return live;
}

void trackAllocation(void *pointer) {
  LiveAllocations &live = getLiveAllocations();
  std::lock_guard<std::mutex> lock(live.mutex);
  if (live.activeCalls && pointer)
    live.pointers.insert(pointer);
}

void untrackAllocation(void *pointer) {
  LiveAllocations &live = getLiveAllocations();
  std::lock_guard<std::mutex> lock(live.mutex);
  if (live.activeCalls)
    live.pointers.erase(pointer);
}

/// Whether this thread may end the call in progress: it made the call and
/// is outside an OpenMP parallel region (no C++ frame lies between the call
/// and here, and no other thread waits on this one).
bool mayEndCall() { return callFailureTarget && !omp_in_parallel(); }

/// Ends the call in progress with `failure`, or, where that is not possible,
/// the process with the same one-line error.
[[noreturn]] void endCall(CallFailure failure) {
  if (mayEndCall()) {
    *callFailure = std::move(failure);
    std::longjmp(*callFailureTarget, 1);
  }
  if (failure.bytes)
    llvm::errs() << "error: the compiled code could not allocate "
                 << failure.bytes << " bytes (on a worker thread: exiting)\n";
  else
    llvm::errs() << "error: the compiled code aborted (on a worker thread: "
                    "exiting)"
                 << (failure.message.empty() ? "" : ": ") << failure.message
                 << "\n";
  std::_Exit(1);
}

/// What the allocation functions do when memory cannot be had. Compiled code
/// does not check what malloc returns, so returning nullptr would make it
/// write through a null pointer.
void *failAllocation(size_t bytes) {
  CallFailure failure;
  failure.bytes = std::max<size_t>(bytes, 1);
  endCall(std::move(failure));
}

/// Whether `bytes` may be asked of the system at all: more than the machine
/// has is refused before the allocator sees it (a sanitizer's allocator
/// would abort on it).
bool mayAllocate(size_t bytes) {
  static const uint64_t limit = support::getPhysicalMemoryBytes();
  return bytes <= limit;
}

/// `bytes` for the compiled code: from `plain` outside guarded calls, in
/// guarded memory during them. A failure ends the call.
template <typename PlainAllocator>
void *allocateForCode(size_t bytes, GuardPages mode, PlainAllocator plain) {
  void *result = nullptr;
  if (mayAllocate(bytes))
    result = mode == GuardPages::None
                 ? plain()
                 : allocateGuarded(bytes, mode,
                                   "a buffer allocated by the compiled code");
  if (!result && bytes)
    failAllocation(bytes);
  trackAllocation(result);
  return result;
}

/// The guard mode of the call in progress.
GuardPages activeMode() {
  return static_cast<GuardPages>(activeGuardPages.load());
}

/// The allocation functions of the compiled code: guarded memory during a
/// guarded call, the heap otherwise. free() tells the two apart, so memory
/// allocated in one mode may be released in another. A failure ends the call
/// (failAllocation).
} // namespace

/// puts() and abort() of the compiled code. A failed cf.assert (such as
/// gmm-check-sizes' checks) prints its message with puts() and aborts: the
/// call ends with that message as its error.
int jitPuts(const char *text) {
  if (!callOutput || !mayEndCall())
    return std::puts(text);
  *callOutput += text;
  *callOutput += '\n';
  return 1;
}

[[noreturn]] void jitAbort() {
  CallFailure failure;
  if (callOutput) {
    llvm::StringRef kept = llvm::StringRef(*callOutput).rtrim('\n');
    size_t lastLine = kept.rfind('\n');
    failure.message =
        (lastLine == llvm::StringRef::npos ? kept
                                           : kept.drop_front(lastLine + 1))
            .str();
  }
  endCall(std::move(failure));
}

/// Calls a packed entry point of compiled code; how it ended early, or
/// std::nullopt when it returned. Nothing with a destructor is created in
/// this frame between setjmp and the end of the call.
std::optional<CallFailure> callCatchingFailures(void (*entry)(void **),
                                                void **arguments) {
  CallFailure failure;
  std::string output;
  std::jmp_buf target;
  std::jmp_buf *outerTarget = callFailureTarget;
  CallFailure *outerFailure = callFailure;
  std::string *outerOutput = callOutput;
  LiveAllocations &live = getLiveAllocations();
  uint64_t overlapsAtStart;
  bool startedAlone;
  {
    std::lock_guard<std::mutex> lock(live.mutex);
    startedAlone = live.activeCalls == 0;
    if (!startedAlone)
      ++live.overlaps;
    overlapsAtStart = live.overlaps;
    ++live.activeCalls;
  }
  callFailureTarget = &target;
  callFailure = &failure;
  callOutput = &output;
  bool ended = setjmp(target) != 0;
  if (!ended)
    entry(arguments);
  callFailureTarget = outerTarget;
  callFailure = outerFailure;
  callOutput = outerOutput;
  llvm::DenseSet<void *> release;
  {
    std::lock_guard<std::mutex> lock(live.mutex);
    // What the code allocated and would have freed or returned, when it is
    // this call's alone.
    if (ended && startedAlone && live.overlaps == overlapsAtStart)
      release = std::move(live.pointers);
    if (--live.activeCalls == 0)
      live.pointers.clear();
  }
  if (ended) {
    for (void *pointer : release)
      releaseForCode(pointer);
    return failure;
  }
  // What the code printed, now that it returned.
  std::fputs(output.c_str(), stdout);
  return std::nullopt;
}

void *jitMalloc(size_t size) {
  return allocateForCode(size, activeMode(), [&] { return std::malloc(size); });
}

void *jitCalloc(size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total))
    return failAllocation(SIZE_MAX);
  // Fresh mappings are zero-filled.
  return allocateForCode(total, activeMode(),
                         [&] { return std::calloc(count, size); });
}

void *jitAlignedAlloc(size_t alignment, size_t size) {
  GuardPages mode = activeMode();
  // Start placement is page-aligned; End placement keeps the alignment when
  // the size is a multiple of it, as aligned_alloc requires.
  if (mode == GuardPages::End && alignment && size % alignment)
    mode = GuardPages::Start;
  return allocateForCode(size, mode,
                         [&] { return std::aligned_alloc(alignment, size); });
}

void jitFree(void *pointer) {
  untrackAllocation(pointer);
  releaseForCode(pointer);
}

ActiveGuardPages::ActiveGuardPages(GuardPages mode)
    : previous(activeGuardPages.exchange(static_cast<int>(mode))) {}

ActiveGuardPages::~ActiveGuardPages() { activeGuardPages.store(previous); }

} // namespace detail
} // namespace runner
} // namespace gmm
