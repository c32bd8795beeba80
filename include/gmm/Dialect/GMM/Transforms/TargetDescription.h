//===- TargetDescription.h - what gmm knows of its targets ----*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The facts about the machines gmm compiles for that its decisions read, in
// one place: a table of the NVIDIA chips (by SM version) and the host CPU
// as LLVM sees it. gmm-configure's heuristics and checks, the pipelines'
// option checks and the runner ask here instead of testing chip names or
// CPU features where they stand.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_TRANSFORMS_TARGETDESCRIPTION_H
#define GMM_DIALECT_GMM_TRANSFORMS_TARGETDESCRIPTION_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace gmm {

//===----------------------------------------------------------------------===//
// GPU chips
//===----------------------------------------------------------------------===//

/// One row of the chip table: what gmm's kernels need to know of an SM
/// version.
struct GPUChipFacts {
  /// 80 for sm_80, 90 for sm_90 and sm_90a, ...
  unsigned smVersion;
  /// The shared memory one block can have with the dynamic opt-in.
  int64_t maxSharedBytesPerBlock;
  /// wgmma.mma_async, in the architecture-specific variant (sm_90a).
  bool hasWgmma;
  /// The mma.sync kernel's 16-bit tile is 128 x 256 rather than 128 x 128
  /// where the result is wide enough (measured on an H200).
  bool widerMmaSyncTile;
};

/// The SM versions gmm knows more of than LLVM's name. Shared memory per
/// block with the opt-in from the CUDA programming guide's table of
/// compute capabilities.
inline constexpr GPUChipFacts kGPUChips[] = {
    // sm, shared bytes per block, wgmma, wider mma.sync tile
    {80, 163 * 1024, false, false},  {86, 99 * 1024, false, false},
    {87, 163 * 1024, false, false},  {89, 99 * 1024, false, false},
    {90, 227 * 1024, true, true},    {100, 227 * 1024, false, false},
    {101, 227 * 1024, false, false}, {103, 227 * 1024, false, false},
    {120, 99 * 1024, false, false},  {121, 99 * 1024, false, false},
};

/// The oldest SM gmm's kernels run on (cp.async and bf16 mma.sync).
constexpr unsigned kMinSMVersion = 80;

/// The row of `chip` ("sm_90a" reads the sm_90 row), or std::nullopt for an
/// empty name, one that is not sm_<version>[a|f], or a version the table
/// does not hold.
std::optional<GPUChipFacts> getGPUChipFacts(StringRef chip);

/// Whether `chip` names the architecture-specific variant ("sm_90a"),
/// whose instructions (wgmma) run on that SM alone.
bool isArchSpecificChip(StringRef chip);

/// The shared memory one block of `chip` can have with the dynamic opt-in
/// (sm_80/sm_87: 163 KiB, sm_86/sm_89/sm_120: 99 KiB, sm_90/sm_100: 227
/// KiB), or kStaticSharedBytes for an empty or unknown chip.
int64_t maxSharedBytesPerBlock(StringRef chip);

/// The most any chip of kGPUChips allows (sm_90's 227 KiB).
constexpr int64_t kMaxSharedBytesPerBlock = [] {
  int64_t most = 0;
  for (const GPUChipFacts &chip : kGPUChips)
    most =
        chip.maxSharedBytesPerBlock > most ? chip.maxSharedBytesPerBlock : most;
  return most;
}();

/// Checks that `chip` (sm_80, sm_90a, ...) is a GPU that gmm's kernels run
/// on: one that LLVM's NVPTX back end knows, sm_80 or newer (the kernels use
/// cp.async and bf16 mma.sync). Otherwise reports, through `errorHandler`,
/// what is wrong and the chips that are supported, and fails.
LogicalResult
verifyGPUChip(StringRef chip,
              function_ref<LogicalResult(const Twine &)> errorHandler);

/// Whether `chip` has wgmma.mma_async (sm_90a).
bool chipHasWgmma(StringRef chip);

//===----------------------------------------------------------------------===//
// The host CPU
//===----------------------------------------------------------------------===//

/// The host CPU as gmm's CPU code generation sees it (the JIT compiles for
/// it), read once per process.
struct HostCPUFacts {
  /// LLVM's name of the CPU (znver5, sapphirerapids, ...).
  std::string name;
  /// The widest vector in bits: 512 with AVX-512, 256 with AVX2 and FMA,
  /// else 128.
  int64_t vectorBits;
  /// vdpbf16ps (AVX512-BF16), which the bf16_dot micro-kernel needs.
  bool hasAVX512BF16;
};
const HostCPUFacts &getHostCPUFacts();

/// The widest vector the host CPU has, in bits (the JIT compiles for it):
/// 512 with AVX-512, 256 with AVX2 and FMA, else 128.
int64_t hostVectorBits();

/// Whether vdpbf16ps on the CPU that LLVM names `cpu` (znver4,
/// sapphirerapids, ...) does at least the flops of f32 FMAs, so that the
/// bf16_dot micro-kernel is faster than converting bf16 to f32 for fma:
/// true or false for the CPUs gmm has measured, nullopt for others.
std::optional<bool> bf16DotIsFastOn(StringRef cpu);

/// The flops of the host's vdpbf16ps over those of its f32 FMAs (512-bit
/// each), measured now on the calling thread (about two milliseconds);
/// nullopt where the host has no AVX512-BF16.
std::optional<double> measureBF16DotSpeedup();

/// Whether gmm-configure's heuristic gives the host's bf16 ragged dots the
/// bf16_dot micro-kernel: the host has AVX512-BF16 and, by
/// bf16DotIsFastOn or else by measuring both instructions once in this
/// process, vdpbf16ps is at least as fast as f32 FMAs. `why` (if given)
/// gets the reason in words.
bool hostPrefersBF16Dot(std::string *why = nullptr);

} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_TRANSFORMS_TARGETDESCRIPTION_H
