//===- RuntimeSymbols.cpp - what the compiled code links against ----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The functions the runner defines for the compiled code (its allocation
// functions, puts and abort from CallGuard.cpp, memrefCopy and the bf16
// truncations Debian 12's libgcc lacks), and the checks that every other
// function it calls resolves in the process and that its x86 intrinsics are
// the host's.
//
//===----------------------------------------------------------------------===//

#include "RunnerInternals.h"

#include "gmm/Dialect/GMM/Transforms/TargetDescription.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <mutex>

#include <dlfcn.h>

using namespace mlir;

namespace gmm {
namespace runner {
namespace detail {

namespace {
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

} // namespace

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
  // The host's facts as gmm-configure reads them (TargetDescription.h).
  const mlir::gmm::HostCPUFacts &host = mlir::gmm::getHostCPUFacts();
  const struct {
    StringRef prefix, what;
    bool present;
  } kNeeds[] = {{"llvm.x86.avx512bf16.", "AVX512-BF16", host.hasAVX512BF16},
                {"llvm.x86.avx512.", "AVX-512", host.vectorBits >= 512}};
  std::optional<std::string> missing;
  module.walk([&](LLVM::CallIntrinsicOp call) {
    StringRef name = call.getIntrin();
    for (const auto &need : kNeeds)
      if (name.starts_with(need.prefix) && !need.present) {
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

} // namespace detail
} // namespace runner
} // namespace gmm
