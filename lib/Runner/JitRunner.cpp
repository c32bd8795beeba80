//===- JitRunner.cpp - JIT-compile and call a function on the CPU ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/JitRunner.h"

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Runtime/CudaRuntime.h"

#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Support/InputFile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <utility>

#include <dlfcn.h>

using namespace mlir;

// From LLVM's OpenMP runtime, which the runner links for the JIT'd code.
extern "C" int omp_get_max_threads(void);
extern "C" int omp_in_parallel(void);

namespace gmm {
namespace runner {

namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// "[?, 32]": a shape with dynamic sizes shown as '?'.
std::string formatSpecShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os, [&](int64_t size) {
    if (ShapedType::isDynamic(size))
      os << "?";
    else
      os << size;
  });
  os << "]";
  return text;
}

/// Reads one argument or result type; `what` is "argument 2" or "result 0".
llvm::Expected<TensorSpec> getTensorSpec(Type type, const llvm::Twine &what,
                                         StringRef funcName) {
  auto unsupported = [&](const llvm::Twine &why) {
    return makeError(what + " of @" + funcName + " has type '" +
                     typeToString(type) + "': " + why);
  };
  TensorSpec spec;
  spec.typeName = typeToString(type);
  Type elementType;
  if (auto tensorType = dyn_cast<RankedTensorType>(type)) {
    if (tensorType.getEncoding())
      return unsupported("tensors with an encoding are not supported");
    spec.shape.assign(tensorType.getShape().begin(),
                      tensorType.getShape().end());
    elementType = tensorType.getElementType();
  } else if (auto memrefType = dyn_cast<MemRefType>(type)) {
    if (!memrefType.getLayout().isIdentity())
      return unsupported("only memrefs with the identity layout are supported");
    if (memrefType.getMemorySpace())
      return unsupported(
          "only memrefs in the default memory space are supported");
    spec.isMemRef = true;
    spec.shape.assign(memrefType.getShape().begin(),
                      memrefType.getShape().end());
    elementType = memrefType.getElementType();
  } else {
    return unsupported("gmm-runner passes only ranked tensors and memrefs");
  }
  std::optional<DType> dtype = getDType(elementType);
  if (!dtype)
    return unsupported("supported element types are f16, bf16, f32, f64, "
                       "i32 and i64");
  spec.type = *dtype;
  return spec;
}

/// The sentinel that MLIR's memref lowering stores as the allocated pointer
/// of memref.get_global buffers, which must not be freed.
constexpr uintptr_t kGlobalSentinel = 0xdeadbeef;

/// The guard mode of the guarded call in progress (a GuardPages value), which
/// the compiled code's allocations follow.
std::atomic<int> activeGuardPages{static_cast<int>(GuardPages::None)};

/// How a call of compiled code ended early, when it did
/// (callCatchingFailures).
struct CallFailure {
  /// The bytes of an allocation that failed, or 0 for an abort.
  size_t bytes = 0;
  /// For an abort: what the code printed with puts() before it (a failed
  /// cf.assert's message).
  std::string message;
};

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

/// Whether `bytes` may be asked of the system at all: more than the machine
/// has is refused before the allocator sees it (a sanitizer's allocator
/// would abort on it).
bool mayAllocate(size_t bytes) {
  static const uint64_t limit = support::getPhysicalMemoryBytes();
  return bytes <= limit;
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

/// The bf16 truncations that LLVM lowers fptrunc to bf16 to on x86 (compiler-
/// rt's and libgcc 13's __truncsfbf2/__truncdfbf2), for the JIT: Debian 12's
/// libgcc predates them. Round to nearest even; NaN stays a quiet NaN.
__bf16 jitTruncSFBF2(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t result;
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    result = static_cast<uint16_t>((bits >> 16) | 0x0040u);
  else
    result = static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16);
  __bf16 out;
  std::memcpy(&out, &result, sizeof(out));
  return out;
}

__bf16 jitTruncDFBF2(double value) {
  // Rounding to f32 first could round twice: round to odd instead, which
  // keeps the second rounding (to 8 bits) correct.
  float narrow = static_cast<float>(value);
  if (std::isfinite(value) && static_cast<double>(narrow) != value) {
    uint32_t bits;
    std::memcpy(&bits, &narrow, sizeof(bits));
    if (!(bits & 1)) {
      bool up = (static_cast<double>(narrow) < value) == (value > 0);
      bits = up ? bits + 1 : bits - 1;
      std::memcpy(&narrow, &bits, sizeof(bits));
    }
  }
  return jitTruncSFBF2(narrow);
}

/// A copy of an argument's bytes: 64-byte aligned on the heap, or in guarded
/// memory.
struct ArgumentBuffer {
  uint8_t *data = nullptr;
  size_t size = 0;

  ArgumentBuffer(const std::vector<uint8_t> &bytes, GuardPages mode,
                 llvm::StringRef label) {
    size = bytes.size();
    if (mode == GuardPages::None) {
      size_t rounded = (size + 63) / 64 * 64;
      data = static_cast<uint8_t *>(
          std::aligned_alloc(64, rounded ? rounded : 64));
    } else {
      data = static_cast<uint8_t *>(allocateGuarded(size, mode, label));
    }
    if (data && size)
      std::memcpy(data, bytes.data(), size);
  }
  ArgumentBuffer(ArgumentBuffer &&other)
      : data(std::exchange(other.data, nullptr)), size(other.size) {}
  ArgumentBuffer(const ArgumentBuffer &) = delete;
  ArgumentBuffer &operator=(const ArgumentBuffer &) = delete;
  ~ArgumentBuffer() { jitFree(data); }

  bool contains(const void *p) const {
    auto address = reinterpret_cast<uintptr_t>(p);
    auto begin = reinterpret_cast<uintptr_t>(data);
    return address >= begin && address < begin + std::max<size_t>(size, 1);
  }
};

/// Sets the guard mode of the compiled code's allocations for one call.
class ActiveGuardPages {
public:
  explicit ActiveGuardPages(GuardPages mode)
      : previous(activeGuardPages.exchange(static_cast<int>(mode))) {}
  ~ActiveGuardPages() { activeGuardPages.store(previous); }

private:
  int previous;
};

/// One line for an error of the lowering: "file:3:7: 'math.erf' op was not
/// bufferized". The operation is the one of `module` (the input) at the
/// diagnostic's location, when there is exactly one kind there.
std::string describeDiagnostic(ModuleOp module, Diagnostic &diagnostic) {
  std::string message = diagnostic.str();
  Location loc = diagnostic.getLocation();
  std::optional<OperationName> opName;
  bool ambiguous = false;
  if (!isa<UnknownLoc>(loc))
    module.walk([&](Operation *op) {
      if (op->getLoc() != loc)
        return;
      if (opName && *opName != op->getName())
        ambiguous = true;
      opName = op->getName();
    });
  if (opName && !ambiguous) {
    std::string quoted = "'" + opName->getStringRef().str() + "'";
    if (StringRef(message).starts_with("op "))
      message = quoted + " " + message;
    else if (!StringRef(message).contains(quoted))
      message += " (" + quoted + ")";
  }
  std::string text = formatLocation(loc);
  text += text.empty() ? message : ": " + message;
  // One line, whatever the message is made of.
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

/// Erases the functions of `module` that `entry` does not use, directly or
/// through other functions, so that a function that the pipeline cannot
/// lower fails only the runs that need it.
void removeUnusedFunctions(ModuleOp module, StringRef entry) {
  llvm::SmallPtrSet<Operation *, 8> used;
  llvm::SmallVector<Operation *> worklist;
  if (Operation *root = module.lookupSymbol(entry)) {
    used.insert(root);
    worklist.push_back(root);
  }
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(op);
    if (!uses) {
      // Unknown symbol uses: keep everything.
      return;
    }
    for (const SymbolTable::SymbolUse &use : *uses) {
      Operation *symbol =
          module.lookupSymbol(use.getSymbolRef().getRootReference());
      if (symbol && used.insert(symbol).second)
        worklist.push_back(symbol);
    }
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!used.contains(func))
      func.erase();
}

/// The unranked memref that MLIR's runtime functions take: a rank and a
/// pointer to a ranked descriptor.
struct UnrankedDescriptor {
  int64_t rank;
  void *descriptor;
};

/// MLIR's memref lowering calls `memrefCopy` for a memref.copy between
/// buffers that are not both contiguous (a tile copied into a subview, for
/// example). Upstream it lives in libmlir_c_runner_utils, which the runner
/// does not load; this is the same strided copy.
void copyMemRef(int64_t elementSize, UnrankedDescriptor *source,
                UnrankedDescriptor *target) {
  int64_t rank = source->rank;
  auto *src = static_cast<const int64_t *>(source->descriptor);
  auto *dst = static_cast<const int64_t *>(target->descriptor);
  auto *srcData = reinterpret_cast<const char *>(src[1]);
  auto *dstData = reinterpret_cast<char *>(dst[1]);
  const int64_t *sizes = src + 3;
  const int64_t *srcStrides = src + 3 + rank;
  const int64_t *dstStrides = dst + 3 + rank;
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] <= 0)
      return;
  llvm::SmallVector<int64_t> position(rank, 0);
  int64_t srcOffset = src[2], dstOffset = dst[2];
  while (true) {
    std::memcpy(dstData + dstOffset * elementSize,
                srcData + srcOffset * elementSize, elementSize);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      srcOffset += srcStrides[d];
      dstOffset += dstStrides[d];
      if (++position[d] < sizes[d])
        break;
      srcOffset -= srcStrides[d] * sizes[d];
      dstOffset -= dstStrides[d] * sizes[d];
      position[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// A function that the runner defines for the compiled code.
struct RunnerSymbol {
  StringRef name;
  void *address;
};

/// The runner's definitions for the compiled code, which win over the
/// process's. The allocation functions are the runner's so that guarded
/// calls can place the code's buffers in guarded memory too, and so that an
/// allocation failure ends the call with an error.
llvm::ArrayRef<RunnerSymbol> getRunnerSymbols() {
  static const RunnerSymbol symbols[] = {
      {"memrefCopy", reinterpret_cast<void *>(&copyMemRef)},
      {"malloc", reinterpret_cast<void *>(&jitMalloc)},
      {"calloc", reinterpret_cast<void *>(&jitCalloc)},
      {"aligned_alloc", reinterpret_cast<void *>(&jitAlignedAlloc)},
      {"free", reinterpret_cast<void *>(&jitFree)},
      {"__truncsfbf2", reinterpret_cast<void *>(&jitTruncSFBF2)},
      {"__truncdfbf2", reinterpret_cast<void *>(&jitTruncDFBF2)},
      {"puts", reinterpret_cast<void *>(&jitPuts)},
      {"abort", reinterpret_cast<void *>(&jitAbort)},
  };
  return symbols;
}

/// Makes the OpenMP runtime that the runner links visible to the JIT's
/// process-wide symbol lookup (dlsym on the global scope). It is there when
/// the runner is part of a program, but not when a library holding the
/// runner is loaded with RTLD_LOCAL (Python's ctypes and extension modules,
/// as the JAX FFI handler is): the compiled code's __kmpc_* calls would not
/// resolve. Promotes only that runtime to the global scope.
void makeOpenMPRuntimeGlobal() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&omp_get_max_threads), &info) ||
        !info.dli_fname)
      return;
    // Adds a reference that is never dropped: the runtime stays loaded.
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  });
}

/// Every external function that the lowered module calls must be the
/// runner's or the process's: one error naming the first that is neither,
/// before the JIT would report it in lines of its own.
llvm::Error checkExternalSymbols(ModuleOp module, StringRef entry) {
  // The process's own symbols, as the JIT sees them (dlsym).
  static const bool processLoaded =
      !llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
  (void)processLoaded;
  for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = function.getName();
    if (!function.isExternal() || name.starts_with("llvm.") ||
        SymbolTable::symbolKnownUseEmpty(function, module))
      continue;
    if (llvm::any_of(getRunnerSymbols(), [&](const RunnerSymbol &symbol) {
          return symbol.name == name;
        }))
      continue;
    if (llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name.str()))
      continue;
    return makeError(llvm::formatv("@{0} calls '{1}', which neither the module "
                                   "nor gmm-runner's process defines",
                                   entry, name)
                         .str());
  }
  return llvm::Error::success();
}

/// The x86 instructions that the lowered module's intrinsics need must be
/// the host CPU's: the bf16_dot micro-kernel's vdpbf16ps
/// (llvm.x86.avx512bf16.*) on a CPU without AVX512-BF16 would otherwise
/// stop LLVM's instruction selection with a fatal error.
llvm::Error checkHostFeatures(ModuleOp module, StringRef entry) {
  static const struct {
    StringRef prefix, feature, what;
  } kNeeds[] = {{"llvm.x86.avx512bf16.", "avx512bf16", "AVX512-BF16"},
                {"llvm.x86.avx512.", "avx512f", "AVX-512"}};
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::optional<std::string> missing;
  module.walk([&](LLVM::CallIntrinsicOp call) {
    StringRef name = call.getIntrin();
    for (const auto &need : kNeeds)
      if (name.starts_with(need.prefix) && !features.lookup(need.feature)) {
        missing = llvm::formatv("@{0} uses {1} ('{2}'), which this CPU does "
                                "not have; compile it for this CPU (the cpu "
                                "pipeline's micro-kernel=fma or its "
                                "heuristic)",
                                entry, need.what, name)
                      .str();
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (missing)
    return makeError(*missing);
  return llvm::Error::success();
}

/// Copies the memref described by `desc` (allocated, aligned, offset,
/// sizes, strides) into a HostTensor of `spec`'s type.
llvm::Expected<HostTensor> copyOut(const int64_t *desc, const TensorSpec &spec,
                                   unsigned index) {
  size_t rank = spec.shape.size();
  auto *aligned = reinterpret_cast<const uint8_t *>(desc[1]);
  int64_t offset = desc[2];
  llvm::ArrayRef<int64_t> sizes(desc + 3, rank);
  llvm::ArrayRef<int64_t> strides(desc + 3 + rank, rank);
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 ||
        (!ShapedType::isDynamic(spec.shape[d]) && sizes[d] != spec.shape[d]))
      return makeError(llvm::formatv("result {0} ({1}) came back with shape "
                                     "{2}",
                                     index, spec.typeName, formatShape(sizes)));
  }
  HostTensor tensor = HostTensor::zeros(spec.type, sizes);
  int64_t count = tensor.getNumElements();
  if (count < 0)
    return makeError(llvm::formatv("result {0} ({1}) came back with shape {2}",
                                   index, spec.typeName, formatShape(sizes)));
  if (count > 0 && !aligned)
    return makeError(llvm::formatv("result {0} ({1}) came back without data",
                                   index, spec.typeName));
  size_t width = getByteWidth(spec.type);
  llvm::SmallVector<int64_t> position(rank, 0);
  int64_t source = offset;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(tensor.bytes.data() + i * width, aligned + source * width,
                width);
    // Advance the row-major position and the strided source offset.
    for (size_t d = rank; d-- > 0;) {
      source += strides[d];
      if (++position[d] < sizes[d])
        break;
      source -= strides[d] * sizes[d];
      position[d] = 0;
    }
  }
  return tensor;
}
} // namespace

std::string formatLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    auto fileLoc = dyn_cast<FileLineColLoc>(inner);
    if (!fileLoc)
      return WalkResult::advance();
    text = llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(),
                         fileLoc.getLine(), fileLoc.getColumn())
               .str();
    return WalkResult::interrupt();
  });
  return text;
}

std::optional<DType> getDType(Type type) {
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.isUnsigned())
      return std::nullopt;
    if (intType.getWidth() == 32)
      return DType::I32;
    if (intType.getWidth() == 64)
      return DType::I64;
  }
  return std::nullopt;
}

bool TensorSpec::hasDynamicDims() const {
  return llvm::any_of(shape, ShapedType::isDynamic);
}

std::string TensorSpec::describe(llvm::ArrayRef<int64_t> actualShape) const {
  std::string text = isMemRef ? "memref<" : "tensor<";
  for (int64_t size : actualShape)
    text += std::to_string(size) + "x";
  return text + toString(type) + ">";
}

llvm::Expected<FunctionSignature> getFunctionSignature(func::FuncOp func) {
  FunctionSignature signature;
  signature.name = func.getSymName().str();
  FunctionType type = func.getFunctionType();
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    llvm::Expected<TensorSpec> spec =
        getTensorSpec(input, "argument " + llvm::Twine(i), signature.name);
    if (!spec)
      return spec.takeError();
    signature.arguments.push_back(std::move(*spec));
  }
  for (auto [i, output] : llvm::enumerate(type.getResults())) {
    llvm::Expected<TensorSpec> spec =
        getTensorSpec(output, "result " + llvm::Twine(i), signature.name);
    if (!spec)
      return spec.takeError();
    signature.results.push_back(std::move(*spec));
  }
  return signature;
}

llvm::Expected<func::FuncOp> lookupEntryFunction(ModuleOp module,
                                                 StringRef name) {
  llvm::SmallVector<func::FuncOp> defined;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      defined.push_back(func);
  std::string names;
  llvm::raw_string_ostream os(names);
  llvm::interleaveComma(defined, os,
                        [&](func::FuncOp f) { os << "@" << f.getSymName(); });

  if (!name.empty()) {
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.getSymName() != name)
        continue;
      if (func.isExternal())
        return makeError("@" + name + " is a declaration without a body");
      return func;
    }
    if (defined.empty())
      return makeError("no function @" + name +
                       " (the module defines no func.func)");
    return makeError("no function @" + name + " (functions: " + names + ")");
  }
  if (defined.empty())
    return makeError("the module defines no func.func to run");
  if (defined.size() > 1)
    return makeError(llvm::formatv("the module defines {0} functions ({1}); "
                                   "choose one with --entry",
                                   defined.size(), names)
                         .str());
  return defined.front();
}

llvm::Error checkArgument(const TensorSpec &spec, const HostTensor &value,
                          unsigned index) {
  std::string what =
      llvm::formatv("argument {0} ({1})", index, spec.typeName).str();
  if (!value.isConsistent())
    return makeError(
        what + ": the value has " + llvm::Twine(value.bytes.size()) +
        " bytes, which does not fit shape " + formatShape(value.shape));
  if (value.type != spec.type)
    return makeError(what + " expects " + toString(spec.type) +
                     " elements, got " + toString(value.type));
  if (value.shape.size() != spec.shape.size())
    return makeError(what + " expects rank " + llvm::Twine(spec.shape.size()) +
                     ", got shape " + formatShape(value.shape));
  for (size_t d = 0; d < spec.shape.size(); ++d)
    if (!ShapedType::isDynamic(spec.shape[d]) &&
        spec.shape[d] != value.shape[d])
      return makeError(what + " expects shape " + formatSpecShape(spec.shape) +
                       ", got " + formatShape(value.shape));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

llvm::ArrayRef<PipelineInfo> getPipelines() {
  // lib/Pipelines' catalogue, with the GPU pipelines compiling for the
  // chip of the CUDA device that runs the code.
  static const std::vector<PipelineInfo> pipelines = [] {
    std::vector<PipelineInfo> result;
    for (const mlir::gmm::PipelineDescription &description :
         mlir::gmm::getPipelineCatalogue()) {
      auto build = description.build;
      bool gpu = description.gpu;
      result.push_back({description.name, description.description,
                        [build, gpu](OpPassManager &pm) {
                          std::string chip;
                          GmmCudaDeviceInfo info;
                          if (gpu && gmmCudaAvailable() &&
                              gmmCudaGetDeviceInfo(0, info))
                            chip = info.chip();
                          build(pm, chip);
                        },
                        gpu});
    }
    return result;
  }();
  return pipelines;
}

int getNumThreads() { return omp_get_max_threads(); }

const PipelineInfo *lookupPipeline(StringRef name) {
  for (const PipelineInfo &info : getPipelines())
    if (name == info.name)
      return &info;
  return nullptr;
}

llvm::Expected<const PipelineInfo *> findPipeline(StringRef name) {
  if (const PipelineInfo *info = lookupPipeline(name))
    return info;
  std::string names;
  for (const PipelineInfo &info : getPipelines())
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  return makeError("unknown --pipeline=" + name.str() +
                   " (available: " + names + ")");
}

//===----------------------------------------------------------------------===//
// JitFunction
//===----------------------------------------------------------------------===//

JitFunction::~JitFunction() = default;

llvm::Expected<std::unique_ptr<JitFunction>>
JitFunction::compile(ModuleOp module, StringRef entry, PipelineBuilder pipeline,
                     const JitOptions &options) {
  MLIRContext *context = module.getContext();
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  context->appendDialectRegistry(registry);

  llvm::Expected<func::FuncOp> func = lookupEntryFunction(module, entry);
  if (!func)
    return func.takeError();
  std::unique_ptr<JitFunction> result(new JitFunction());
  llvm::Expected<FunctionSignature> signature = getFunctionSignature(*func);
  if (!signature)
    return signature.takeError();
  result->signature = std::move(*signature);
  StringRef name = result->signature.name;

  OwningOpRef<ModuleOp> clone = module.clone();
  removeUnusedFunctions(*clone, name);
  auto clonedFunc = clone->lookupSymbol<func::FuncOp>(name);
  clonedFunc.setPublic();
  clonedFunc->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(context));

  PassManager pm(context, ModuleOp::getOperationName());
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return makeError("configuring the pass manager failed");
  if (pipeline)
    pipeline(pm);
  else
    mlir::gmm::buildReferenceToLLVMPipeline(pm);
  // The cuda pipeline compiles for the device's chip: one that gmm's
  // kernels cannot run on is refused before instruction selection would
  // stop the process on it.
  GmmCudaDeviceInfo device;
  if (options.cuda && gmmCudaAvailable() && gmmCudaGetDeviceInfo(0, device)) {
    std::string chipError;
    if (failed(mlir::gmm::verifyGPUChip(device.chip(),
                                        [&](const llvm::Twine &message) {
                                          chipError = message.str();
                                          return failure();
                                        })))
      return makeError(llvm::formatv("cannot run @{0} on CUDA device 0 ({1}): "
                                     "{2}",
                                     name, device.name, chipError)
                           .str());
  }
  std::optional<std::string> firstError;
  LogicalResult lowered = success();
  {
    std::optional<ScopedDiagnosticHandler> fold;
    if (options.foldDiagnostics)
      fold.emplace(context, [&](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
            !firstError)
          firstError = describeDiagnostic(module, diagnostic);
        return success();
      });
    lowered = pm.run(*clone);
  }
  if (failed(lowered))
    return makeError("cannot lower @" + name + " to the LLVM dialect" +
                     (firstError ? ": " + *firstError : std::string()));
  // gmm-gpu-merge-allocations{workspace-argument} added a workspace
  // argument and the function that sizes it.
  if (clone->lookupSymbol<LLVM::LLVMFuncOp>(
          (name + mlir::gmm::kWorkspaceBytesSuffix).str()))
    result->workspaceArgument = true;
  // gmm-async-host{caller-stream} added the stream as the last argument.
  if (auto lowered = clone->lookupSymbol<LLVM::LLVMFuncOp>(name);
      lowered && lowered.getNumArguments() &&
      lowered.getArgAttr(lowered.getNumArguments() - 1,
                         mlir::gmm::kStreamAttrName))
    result->streamArgument = true;

  if (options.cuda) {
    std::string why;
    if (!gmmCudaAvailable(&why))
      return makeError("cannot run @" + name + " on CUDA: " + why);
  }

  static std::once_flag initTarget;
  std::call_once(initTarget, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });

  unsigned optLevel = std::min(options.optLevel, 3u);
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(optLevel);
  engineOptions.enableGDBNotificationListener = false;
  // GMM_JIT_PERF=1 registers the compiled code with LLVM's perf listener
  // (a jitdump for `perf inject --jit`; see bench/README.md).
  engineOptions.enablePerfNotificationListener =
      getenv("GMM_JIT_PERF") != nullptr;
  makeOpenMPRuntimeGlobal();
  if (llvm::Error error = checkExternalSymbols(*clone, name))
    return std::move(error);
  if (llvm::Error error = checkHostFeatures(*clone, name))
    return std::move(error);
  auto engine = ExecutionEngine::create(*clone, engineOptions);
  if (!engine)
    return makeError("JIT compilation of @" + name +
                     " failed: " + llvm::toString(engine.takeError()));
  result->engine = std::move(*engine);
  result->guardPages = options.guardPages;
  result->cuda = options.cuda;
  result->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const RunnerSymbol &symbol : getRunnerSymbols())
      symbols[interner(symbol.name)] = {
          llvm::orc::ExecutorAddr::fromPtr(symbol.address),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return result;
}

std::vector<int64_t> denseDescriptor(const void *data,
                                     ArrayRef<int64_t> shape) {
  size_t rank = shape.size();
  std::vector<int64_t> desc(3 + 2 * rank, 0);
  desc[0] = desc[1] = reinterpret_cast<int64_t>(data);
  // Row-major strides, a size of 0 counted as 1 so that they stay distinct.
  // Only a tensor without elements can have strides past int64 (say
  // [0, 2^40, 2^40]); nothing is read through them, and they saturate.
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    desc[3 + d] = shape[d];
    desc[3 + rank + d] = stride;
    if (__builtin_mul_overflow(stride, std::max<int64_t>(shape[d], 1), &stride))
      stride = std::numeric_limits<int64_t>::max();
  }
  return desc;
}

namespace {
/// Elements from the aligned pointer that a strided descriptor reaches.
int64_t descriptorSpan(const int64_t *desc, size_t rank) {
  int64_t last = desc[2];
  for (size_t d = 0; d < rank; ++d) {
    if (desc[3 + d] <= 0)
      return 0;
    last += (desc[3 + d] - 1) * desc[3 + rank + d];
  }
  return last + 1;
}

/// Device memory for one call; freed with the object.
struct DeviceBuffers {
  std::vector<std::pair<void *, size_t>> buffers;
  void *stream = nullptr;
  ~DeviceBuffers() {
    for (auto [pointer, size] : buffers)
      mgpuMemFree(pointer, nullptr);
    if (stream)
      mgpuStreamDestroy(stream);
  }
  bool owns(const void *p) const {
    return llvm::any_of(buffers, [&](const std::pair<void *, size_t> &b) {
      auto begin = reinterpret_cast<uintptr_t>(b.first);
      auto address = reinterpret_cast<uintptr_t>(p);
      return b.first && address >= begin &&
             address - begin < std::max<size_t>(b.second, 1);
    });
  }
};

llvm::Error takeCudaError(StringRef what) {
  std::string message;
  if (gmmCudaTakeError(&message))
    return makeError(what.str() + ": " + message);
  return llvm::Error::success();
}
} // namespace

int64_t JitFunction::workspaceBytes(llvm::ArrayRef<void *> argumentPointers) {
  int64_t bytes = 0;
  llvm::SmallVector<void *> packed;
  llvm::SmallVector<void *> pointers(argumentPointers.begin(),
                                     argumentPointers.end());
  for (void *&pointer : pointers)
    packed.push_back(&pointer);
  packed.push_back(&bytes);
  workspaceEntry(packed.data());
  return bytes;
}

llvm::Expected<std::vector<int64_t>>
JitFunction::invokeOnDescriptors(std::vector<std::vector<int64_t>> &arguments,
                                 double *seconds, void *stream) {
  if (arguments.size() != signature.arguments.size())
    return makeError(llvm::formatv("@{0} takes {1} arguments, got {2}",
                                   signature.name, signature.arguments.size(),
                                   arguments.size()));
  // The results come back as a struct of descriptors; all fields are 8 bytes
  // wide, so the struct is an array of int64.
  size_t resultWords = 0;
  for (const TensorSpec &spec : signature.results)
    resultWords += 3 + 2 * spec.shape.size();
  std::vector<int64_t> results(std::max<size_t>(resultWords, 1), 0);
  void *resultPointer = results.data();
  std::vector<void *> argumentPointers;
  for (std::vector<int64_t> &desc : arguments)
    argumentPointers.push_back(desc.data());
  llvm::SmallVector<void *> packed;
  if (!signature.results.empty())
    packed.push_back(&resultPointer);
  for (void *&pointer : argumentPointers)
    packed.push_back(&pointer);
  // Global constructors (loading the GPU binary) run once, before the
  // first call; the entry points are looked up then.
  std::call_once(entryOnce, [&] {
    engine->initialize();
    auto lookup = [&](const std::string &name, void (*&function)(void **)) {
      auto found = engine->lookupPacked(name);
      if (found)
        function = *found;
      else
        entryError = llvm::toString(found.takeError());
    };
    lookup("_mlir_ciface_" + signature.name, entry);
    if (workspaceArgument)
      lookup("_mlir_ciface_" + signature.name +
                 mlir::gmm::kWorkspaceBytesSuffix.str(),
             workspaceEntry);
  });
  if (!entry || (workspaceArgument && !workspaceEntry))
    return makeError("calling @" + signature.name + " failed: " + entryError);
  // The caller's stream, or one of this call's own.
  void *ownStream = nullptr;
  if (streamArgument && !stream)
    stream = ownStream = mgpuStreamCreate();
  // The workspace the function asks for, allocated on that stream.
  std::vector<int64_t> workspace;
  void *workspaceData = nullptr;
  if (workspaceArgument) {
    int64_t bytes = workspaceBytes(argumentPointers);
    if (bytes > 0)
      workspaceData = mgpuMemAlloc(bytes, stream, /*isHostShared=*/0);
    workspace = {reinterpret_cast<int64_t>(workspaceData),
                 reinterpret_cast<int64_t>(workspaceData), 0,
                 workspaceData ? bytes : 0, 1};
  }
  void *workspacePointer = workspace.data();
  if (workspaceArgument)
    packed.push_back(&workspacePointer);
  if (streamArgument)
    packed.push_back(&stream);
  auto start = std::chrono::steady_clock::now();
  std::optional<CallFailure> failure =
      callCatchingFailures(entry, packed.data());
  // The function does not wait for the stream; the call's time covers the
  // work on the device.
  if (streamArgument)
    mgpuStreamSynchronize(stream);
  auto stop = std::chrono::steady_clock::now();
  if (workspaceData)
    mgpuMemFree(workspaceData, stream);
  if (ownStream)
    mgpuStreamDestroy(ownStream);
  if (failure && failure->bytes)
    return makeError(
        llvm::formatv("@{0} could not allocate {1} bytes ({2:F1} GiB; the "
                      "machine has {3:F1} GiB of memory)",
                      signature.name, failure->bytes,
                      failure->bytes / support::kBytesPerGiB,
                      support::getPhysicalMemoryBytes() / support::kBytesPerGiB)
            .str());
  if (failure)
    return makeError(
        "@" + signature.name + " aborted" +
        (failure->message.empty() ? std::string() : ": " + failure->message));
  if (seconds)
    *seconds = std::chrono::duration<double>(stop - start).count();
  results.resize(resultWords);
  return results;
}

/// Where each result's descriptor starts in invokeOnDescriptors' words.
static std::vector<size_t> resultOffsets(const FunctionSignature &signature) {
  std::vector<size_t> offsets;
  size_t words = 0;
  for (const TensorSpec &spec : signature.results) {
    offsets.push_back(words);
    words += 3 + 2 * spec.shape.size();
  }
  return offsets;
}

llvm::Expected<std::vector<HostTensor>>
JitFunction::callOnDevice(llvm::ArrayRef<HostTensor> arguments,
                          double *seconds) {
  const std::vector<TensorSpec> &argSpecs = signature.arguments;
  // Failures become errors of this call rather than aborting the process.
  gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
  (void)gmmCudaTakeError();
  DeviceBuffers device;
  device.stream = mgpuStreamCreate();
  std::vector<std::vector<int64_t>> descriptors;
  for (const HostTensor &argument : arguments) {
    size_t size = argument.bytes.size();
    void *pointer = mgpuMemAlloc(size, nullptr, /*isHostShared=*/0);
    if (size && !pointer)
      break;
    device.buffers.push_back({pointer, size});
    mgpuMemcpy(pointer, const_cast<uint8_t *>(argument.bytes.data()), size,
               device.stream);
    descriptors.push_back(denseDescriptor(pointer, argument.shape));
  }
  mgpuStreamSynchronize(device.stream);
  if (llvm::Error error = takeCudaError("copying the arguments to the GPU"))
    return std::move(error);

  // The function runs on this call's stream (the "cuda" pipeline compiles
  // with caller-stream) or on its own, which it waits for; either way the
  // call's wall time covers the work on the device.
  llvm::Expected<std::vector<int64_t>> words =
      invokeOnDescriptors(descriptors, seconds, device.stream);
  if (!words)
    return words.takeError();
  std::vector<int64_t> &resultStorage = *words;
  std::vector<size_t> offsets = resultOffsets(signature);
  if (llvm::Error error = takeCudaError("running @" + signature.name))
    return std::move(error);

  // Results: copy each device buffer to the host, then read it as usual.
  std::vector<HostTensor> outputs;
  llvm::SmallVector<void *> freed;
  for (auto [i, spec] : llvm::enumerate(signature.results)) {
    int64_t *desc = resultStorage.data() + offsets[i];
    size_t rank = spec.shape.size();
    size_t width = getByteWidth(spec.type);
    std::vector<uint8_t> staging(descriptorSpan(desc, rank) * width);
    mgpuMemcpy(staging.data(), reinterpret_cast<void *>(desc[1]),
               staging.size(), device.stream);
    mgpuStreamSynchronize(device.stream);
    if (llvm::Error error = takeCudaError("copying the results back"))
      return std::move(error);
    std::vector<int64_t> host(desc, desc + 3 + 2 * rank);
    host[0] = host[1] = reinterpret_cast<int64_t>(staging.data());
    llvm::Expected<HostTensor> tensor = copyOut(host.data(), spec, i);
    if (!tensor)
      return tensor.takeError();
    outputs.push_back(std::move(*tensor));
    auto *allocated = reinterpret_cast<void *>(desc[0]);
    if (allocated && !device.owns(allocated) &&
        !llvm::is_contained(freed, allocated)) {
      freed.push_back(allocated);
      mgpuMemFree(allocated, nullptr);
    }
  }
  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    if (!spec.isMemRef)
      continue;
    HostTensor tensor = arguments[i];
    mgpuMemcpy(tensor.bytes.data(), device.buffers[i].first,
               tensor.bytes.size(), device.stream);
    mgpuStreamSynchronize(device.stream);
    outputs.push_back(std::move(tensor));
  }
  if (llvm::Error error = takeCudaError("copying the results back"))
    return std::move(error);
  return outputs;
}

llvm::Expected<std::vector<HostTensor>>
JitFunction::call(llvm::ArrayRef<HostTensor> arguments, double *seconds) {
  const std::vector<TensorSpec> &argSpecs = signature.arguments;
  if (arguments.size() != argSpecs.size())
    return makeError(llvm::formatv("@{0} takes {1} arguments, got {2}",
                                   signature.name, argSpecs.size(),
                                   arguments.size()));
  for (auto [i, argument] : llvm::enumerate(arguments))
    if (llvm::Error error = checkArgument(argSpecs[i], argument, i))
      return std::move(error);
  if (cuda)
    return callOnDevice(arguments, seconds);

  // Descriptors over copies of the arguments.
  if (guardPages != GuardPages::None)
    installGuardFaultHandler();
  std::vector<ArgumentBuffer> buffers;
  buffers.reserve(arguments.size());
  std::vector<std::vector<int64_t>> descriptors;
  for (auto [i, argument] : llvm::enumerate(arguments)) {
    std::string label =
        llvm::formatv("argument {0} ({1})", i, argSpecs[i].typeName).str();
    buffers.emplace_back(argument.bytes, guardPages, label);
    if (!buffers.back().data)
      return makeError("out of memory copying the arguments");
    descriptors.push_back(denseDescriptor(buffers.back().data, argument.shape));
  }

  std::optional<ActiveGuardPages> guardScope;
  if (guardPages != GuardPages::None)
    guardScope.emplace(guardPages);
  llvm::Expected<std::vector<int64_t>> words =
      invokeOnDescriptors(descriptors, seconds);
  guardScope.reset();
  if (!words)
    return words.takeError();
  std::vector<int64_t> &resultStorage = *words;
  std::vector<size_t> offsets = resultOffsets(signature);

  std::vector<HostTensor> outputs;
  llvm::Error copyError = llvm::Error::success();
  for (auto [i, spec] : llvm::enumerate(signature.results)) {
    llvm::Expected<HostTensor> tensor =
        copyOut(resultStorage.data() + offsets[i], spec, i);
    if (!tensor) {
      copyError = tensor.takeError();
      break;
    }
    outputs.push_back(std::move(*tensor));
  }

  // Release the result buffers, each once, except those that live in an
  // argument (returned arguments) or in a global.
  llvm::SmallVector<void *> freed;
  for (size_t offset : offsets) {
    auto *allocated = reinterpret_cast<void *>(resultStorage[offset]);
    if (!allocated ||
        reinterpret_cast<uintptr_t>(allocated) == kGlobalSentinel ||
        llvm::is_contained(freed, allocated) ||
        llvm::any_of(buffers, [&](const ArgumentBuffer &buffer) {
          return buffer.contains(allocated);
        }))
      continue;
    freed.push_back(allocated);
    jitFree(allocated);
  }
  if (copyError)
    return std::move(copyError);

  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    if (!spec.isMemRef)
      continue;
    HostTensor tensor = arguments[i];
    if (buffers[i].size)
      std::memcpy(tensor.bytes.data(), buffers[i].data, buffers[i].size);
    outputs.push_back(std::move(tensor));
  }
  return outputs;
}

} // namespace runner
} // namespace gmm
