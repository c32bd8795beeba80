//===- TargetDescription.cpp - what gmm knows of its targets --------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/Transforms/TargetDescription.h"

#include "gmm/Dialect/GMM/IR/KernelConfigRules.h"
#include "gmm/Support/X86Peak.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <chrono>
#include <memory>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

using namespace mlir;
using namespace mlir::gmm;

//===----------------------------------------------------------------------===//
// GPU chips
//===----------------------------------------------------------------------===//

namespace {

/// The version of "sm_<version><suffix>", or std::nullopt.
std::optional<unsigned> smVersion(StringRef chip, StringRef *suffix = nullptr) {
  unsigned version = 0;
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, version))
    return std::nullopt;
  if (suffix)
    *suffix = chip;
  return version;
}

/// The NVPTX chips gmm's kernels run on: those LLVM knows, sm_80 and newer.
/// `known` says whether LLVM knows `chip` at all.
SmallVector<std::string> supportedChips(StringRef chip, bool &known) {
  static llvm::once_flag initialized;
  llvm::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
  });
  known = false;
  SmallVector<std::string> chips;
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return chips;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!info)
    return chips;
  for (const llvm::SubtargetSubTypeKV &processor :
       info->getAllProcessorDescriptions()) {
    StringRef name = processor.Key;
    known |= name == chip;
    std::optional<unsigned> version = smVersion(name);
    if (version && *version >= kMinSMVersion)
      chips.push_back(name.str());
  }
  // In the order of the architectures: sm_80, ..., sm_90, sm_90a, sm_100.
  auto key = [](StringRef chip) {
    StringRef suffix;
    unsigned version = smVersion(chip, &suffix).value_or(0);
    return std::make_pair(version, suffix);
  };
  llvm::sort(chips, [&](const std::string &a, const std::string &b) {
    return key(a) < key(b);
  });
  return chips;
}

} // namespace

std::optional<GPUChipFacts> mlir::gmm::getGPUChipFacts(StringRef chip) {
  std::optional<unsigned> version = smVersion(chip);
  if (!version)
    return std::nullopt;
  for (const GPUChipFacts &facts : kGPUChips)
    if (facts.smVersion == *version)
      return facts;
  return std::nullopt;
}

bool mlir::gmm::isArchSpecificChip(StringRef chip) {
  StringRef suffix;
  return smVersion(chip, &suffix) && suffix == "a";
}

bool mlir::gmm::chipHasWgmma(StringRef chip) {
  std::optional<GPUChipFacts> facts = getGPUChipFacts(chip);
  return facts && facts->hasWgmma && isArchSpecificChip(chip);
}

int64_t mlir::gmm::maxSharedBytesPerBlock(StringRef chip) {
  std::optional<GPUChipFacts> facts = getGPUChipFacts(chip);
  return facts ? facts->maxSharedBytesPerBlock : kStaticSharedBytes;
}

LogicalResult mlir::gmm::verifyGPUChip(
    StringRef chip, function_ref<LogicalResult(const Twine &)> errorHandler) {
  bool known = false;
  SmallVector<std::string> chips = supportedChips(chip, known);
  if (chips.empty())
    return errorHandler("LLVM's NVPTX back end is not available");
  if (llvm::is_contained(chips, chip))
    return success();
  std::string list = llvm::join(chips, ", ");
  if (chip.empty())
    return errorHandler("no GPU chip given; gmm's kernels run on " + list);
  if (known)
    return errorHandler("chip '" + chip +
                        "' is not supported: gmm's kernels use cp.async and "
                        "bf16 mma.sync, which need sm_80 or newer (" +
                        list + ")");
  return errorHandler("unknown chip '" + chip + "'; gmm's kernels run on " +
                      list);
}

//===----------------------------------------------------------------------===//
// The host CPU
//===----------------------------------------------------------------------===//

const HostCPUFacts &mlir::gmm::getHostCPUFacts() {
  static const HostCPUFacts facts = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    HostCPUFacts result;
    result.name = llvm::sys::getHostCPUName().str();
    // 256-bit blocks need FMA (AVX alone would turn vector.fma into calls).
    result.vectorBits = features.lookup("avx512f") ? 512
                        : features.lookup("avx2") && features.lookup("fma")
                            ? 256
                            : 128;
    result.hasAVX512BF16 = features.lookup("avx512bf16");
    return result;
  }();
  return facts;
}

int64_t mlir::gmm::hostVectorBits() { return getHostCPUFacts().vectorBits; }

std::optional<bool> mlir::gmm::bf16DotIsFastOn(StringRef cpu) {
  // The cores where vdpbf16ps does more flops than vfmadd231ps (Zen 4 and
  // 5) and where it does fewer (Sapphire Rapids, issue #39); Emerald and
  // Granite Rapids share Sapphire Rapids' cores' BF16 unit. Measurements:
  // bench/README.md, "Why the heuristics are what they are".
  return llvm::StringSwitch<std::optional<bool>>(cpu)
      .Cases({"znver4", "znver5"}, true)
      .Cases({"sapphirerapids", "emeraldrapids", "graniterapids",
              "graniterapids-d"},
             false)
      .Default(std::nullopt);
}

namespace {

/// bf16_dot is chosen where vdpbf16ps does at least this share of the flops
/// of f32 FMAs (the fma micro-kernel's conversion of bf16 to f32 costs a
/// little more than nothing).
constexpr double kBF16DotMinSpeedup = 1.0;

#if defined(__x86_64__)

/// Rounds of each measurement (about 0.3 ms).
constexpr uint64_t kRounds = 100'000;

/// Flops per second of kRounds rounds of `rounds` (gmm::support's
/// fmaAvx512Rounds or dotBF16Avx512Rounds), whose instruction does `flops`
/// flops (16 FMAs: 32; 32 bf16 products and sums: 64).
double rate(float (*rounds)(uint64_t), double flops) {
  auto start = std::chrono::steady_clock::now();
  volatile float keep = rounds(kRounds);
  (void)keep;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return flops * ::gmm::support::kPeakChains * kRounds /
         std::max(seconds, 1e-9);
}
#endif

/// The host's decision, made once per process: whether it has AVX512-BF16
/// and the bf16_dot micro-kernel beats converting to f32, and why.
struct HostBF16Dot {
  bool prefers = false;
  std::string why;
};

HostBF16Dot decideHostBF16Dot() {
  const HostCPUFacts &host = getHostCPUFacts();
  if (!host.hasAVX512BF16)
    return {false, "the host has no AVX512-BF16 (vdpbf16ps)"};
  StringRef cpu = host.name;
  if (std::optional<bool> fast = bf16DotIsFastOn(cpu))
    return {*fast, (Twine("vdpbf16ps on ") + cpu + " is " +
                    (*fast ? "faster" : "slower") + " than f32 FMAs")
                       .str()};
  // A CPU the table does not know: measured.
  std::optional<double> speedup = measureBF16DotSpeedup();
  if (!speedup)
    return {false, "vdpbf16ps is not measured on this architecture"};
  return {*speedup >= kBF16DotMinSpeedup,
          llvm::formatv("vdpbf16ps measured at {0:F2} times the flops of f32 "
                        "FMAs on {1}",
                        *speedup, cpu)
              .str()};
}

/// Whether the host CPU runs the bf16_dot micro-kernel rather than fma.
const HostBF16Dot &hostBF16Dot() {
  static const HostBF16Dot decision = decideHostBF16Dot();
  return decision;
}

} // namespace

std::optional<double> mlir::gmm::measureBF16DotSpeedup() {
#if defined(__x86_64__)
  if (!getHostCPUFacts().hasAVX512BF16)
    return std::nullopt;
  // Both instructions' rates, the best of three short runs each (about two
  // milliseconds in all).
  double fma = 0, dot = 0;
  for (int run = 0; run < 3; ++run) {
    fma = std::max(fma, rate(::gmm::support::fmaAvx512Rounds, 32));
    dot = std::max(dot, rate(::gmm::support::dotBF16Avx512Rounds, 64));
  }
  return dot / fma;
#else
  return std::nullopt;
#endif
}

bool mlir::gmm::hostPrefersBF16Dot(std::string *why) {
  if (why)
    *why = hostBF16Dot().why;
  return hostBF16Dot().prefers;
}
