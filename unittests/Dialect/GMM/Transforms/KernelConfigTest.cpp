//===- KernelConfigTest.cpp - the host's bf16 micro-kernel choice ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-configure gives bf16 ragged dots the bf16_dot micro-kernel only where
// vdpbf16ps is at least as fast as f32 FMAs (issue #39: on a Sapphire
// Rapids Xeon it is half as fast, and bf16_dot made bf16 slower than f32).
// The table of measured CPUs, and the host's decision against it.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

#include <gtest/gtest.h>

using namespace mlir::gmm;

namespace {

TEST(BF16DotRule, MeasuredCPUs) {
  // Zen 4: vdpbf16ps 469 against 234 GFLOP/s of f32 FMAs (gmm-bench-cpu's
  // peak lines); Zen 5: bf16_dot measured faster too.
  EXPECT_EQ(bf16DotIsFastOn("znver4"), std::optional<bool>(true));
  EXPECT_EQ(bf16DotIsFastOn("znver5"), std::optional<bool>(true));
  // Sapphire Rapids: 168 against 340 GFLOP/s; its successors share the
  // unit.
  EXPECT_EQ(bf16DotIsFastOn("sapphirerapids"), std::optional<bool>(false));
  EXPECT_EQ(bf16DotIsFastOn("emeraldrapids"), std::optional<bool>(false));
  EXPECT_EQ(bf16DotIsFastOn("graniterapids"), std::optional<bool>(false));
}

TEST(BF16DotRule, UnknownCPUsAreMeasured) {
  EXPECT_EQ(bf16DotIsFastOn("cooperlake"), std::nullopt);
  EXPECT_EQ(bf16DotIsFastOn("x86-64"), std::nullopt);
  EXPECT_EQ(bf16DotIsFastOn(""), std::nullopt);
}

TEST(BF16DotRule, HostFollowsTheRule) {
  std::string why;
  bool prefers = hostPrefersBF16Dot(&why);
  EXPECT_FALSE(why.empty());
  // The decision is made once: the same on every call.
  EXPECT_EQ(hostPrefersBF16Dot(), prefers);
  if (!llvm::sys::getHostCPUFeatures().lookup("avx512bf16")) {
    EXPECT_FALSE(prefers) << why;
    return;
  }
  llvm::StringRef cpu = llvm::sys::getHostCPUName();
  EXPECT_NE(why.find(cpu.str()), std::string::npos) << why;
  if (std::optional<bool> known = bf16DotIsFastOn(cpu))
    EXPECT_EQ(prefers, *known) << why;
}

// The table's entry for this host, if it has one, agrees with measuring the
// two instructions here (the measurement is what decides for CPUs the
// table does not know). The ratios measured so far are far from 1 (Zen 4:
// 2.0, Sapphire Rapids: 0.5), so a loaded machine does not flip them.
TEST(BF16DotRule, TableAgreesWithMeasurementOnThisHost) {
  std::optional<double> speedup = measureBF16DotSpeedup();
  if (!llvm::sys::getHostCPUFeatures().lookup("avx512bf16")) {
    EXPECT_EQ(speedup, std::nullopt);
    GTEST_SKIP() << "the host has no AVX512-BF16";
  }
  ASSERT_TRUE(speedup.has_value());
  EXPECT_GT(*speedup, 0.0);
  std::optional<bool> known = bf16DotIsFastOn(llvm::sys::getHostCPUName());
  if (!known)
    GTEST_SKIP() << "the table does not know this CPU (measured " << *speedup
                 << ")";
  EXPECT_EQ(*speedup >= 1.0, *known) << "measured " << *speedup;
}

// The chip table (TargetDescription.h) against the CUDA programming guide's
// shared memory per block with the opt-in, and wgmma on sm_90a alone.
TEST(GPUChipFacts, Table) {
  EXPECT_EQ(maxSharedBytesPerBlock("sm_80"), 163 * 1024);
  EXPECT_EQ(maxSharedBytesPerBlock("sm_86"), 99 * 1024);
  EXPECT_EQ(maxSharedBytesPerBlock("sm_89"), 99 * 1024);
  EXPECT_EQ(maxSharedBytesPerBlock("sm_90"), 227 * 1024);
  EXPECT_EQ(maxSharedBytesPerBlock("sm_90a"), 227 * 1024);
  EXPECT_EQ(maxSharedBytesPerBlock("sm_120"), 99 * 1024);
  EXPECT_EQ(kMaxSharedBytesPerBlock, 227 * 1024);
  // No chip, an older or unknown one, or not a chip name: the 48 KiB every
  // chip gives statically.
  for (const char *chip : {"", "sm_75", "sm_999", "sm_", "gfx90a", "sm90"})
    EXPECT_EQ(maxSharedBytesPerBlock(chip), kStaticSharedBytes) << chip;
  EXPECT_TRUE(chipHasWgmma("sm_90a"));
  for (const char *chip : {"sm_90", "sm_80", "sm_100a", "sm_90f", ""})
    EXPECT_FALSE(chipHasWgmma(chip)) << chip;
  EXPECT_TRUE(isArchSpecificChip("sm_100a"));
  EXPECT_FALSE(isArchSpecificChip("sm_100"));
  std::optional<GPUChipFacts> hopper = getGPUChipFacts("sm_90a");
  ASSERT_TRUE(hopper.has_value());
  EXPECT_EQ(hopper->smVersion, 90u);
  EXPECT_TRUE(hopper->widerMmaSyncTile);
  EXPECT_FALSE(getGPUChipFacts("sm_80")->widerMmaSyncTile);
}

// The host's facts agree with LLVM's view of its features.
TEST(HostCPUFacts, AgreeWithLLVM) {
  const HostCPUFacts &host = getHostCPUFacts();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  EXPECT_EQ(host.name, llvm::sys::getHostCPUName().str());
  EXPECT_EQ(host.hasAVX512BF16, features.lookup("avx512bf16"));
  EXPECT_EQ(host.vectorBits, hostVectorBits());
  if (features.lookup("avx512f"))
    EXPECT_EQ(host.vectorBits, 512);
  else if (features.lookup("avx2") && features.lookup("fma"))
    EXPECT_EQ(host.vectorBits, 256);
  else
    EXPECT_EQ(host.vectorBits, 128);
}

} // namespace
