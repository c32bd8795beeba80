//===- GuardedMemoryTest.cpp - Guarded buffers ----------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/GuardedMemory.h"

#include "gtest/gtest.h"

#include <csignal>
#include <cstdint>
#include <cstring>

#include <unistd.h>

using namespace gmm::runner;

namespace {

uintptr_t pageSize() { return static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)); }

TEST(GuardedMemory, EndTouchesThePageAfter) {
  for (size_t size : {size_t(1), size_t(12), size_t(4096), size_t(5000)}) {
    auto *data = static_cast<char *>(
        allocateGuarded(size, GuardPages::End, "test buffer"));
    ASSERT_NE(data, nullptr);
    EXPECT_EQ((reinterpret_cast<uintptr_t>(data) + size) % pageSize(), 0u)
        << size;
    std::memset(data, 7, size);
    EXPECT_TRUE(isGuarded(data));
    EXPECT_TRUE(isGuarded(data + size - 1));
    EXPECT_FALSE(isGuarded(data + size));
    EXPECT_TRUE(releaseGuarded(data));
    EXPECT_FALSE(isGuarded(data));
  }
}

TEST(GuardedMemory, StartTouchesThePageBefore) {
  auto *data =
      static_cast<char *>(allocateGuarded(12, GuardPages::Start, "test"));
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % pageSize(), 0u);
  std::memset(data, 7, 12);
  EXPECT_FALSE(isGuarded(data - 1));
  EXPECT_TRUE(releaseGuarded(data));
}

TEST(GuardedMemory, EndKeepsTheElementAlignment) {
  // Sizes that are multiples of an element size stay aligned to it.
  for (size_t size : {size_t(6), size_t(24), size_t(40), size_t(64)}) {
    void *data = allocateGuarded(size, GuardPages::End, "test");
    ASSERT_NE(data, nullptr);
    size_t alignment = size & -size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % alignment, 0u) << size;
    releaseGuarded(data);
  }
}

TEST(GuardedMemory, ZeroSizeBuffersAreDistinct) {
  void *a = allocateGuarded(0, GuardPages::End, "a");
  void *b = allocateGuarded(0, GuardPages::Start, "b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_FALSE(isGuarded(a));
  EXPECT_TRUE(releaseGuarded(a));
  EXPECT_TRUE(releaseGuarded(b));
}

TEST(GuardedMemory, OtherPointersAreNotReleased) {
  int onStack = 0;
  EXPECT_FALSE(releaseGuarded(&onStack));
  EXPECT_FALSE(releaseGuarded(nullptr));
  void *data = allocateGuarded(8, GuardPages::End, "test");
  // Only the pointer that was handed out releases the buffer.
  EXPECT_FALSE(releaseGuarded(static_cast<char *>(data) + 4));
  EXPECT_TRUE(releaseGuarded(data));
  EXPECT_FALSE(releaseGuarded(data));
}

TEST(GuardedMemory, ImpossibleSizesFail) {
  EXPECT_EQ(allocateGuarded(SIZE_MAX, GuardPages::End, "huge"), nullptr);
  EXPECT_EQ(allocateGuarded(SIZE_MAX - 4096, GuardPages::Start, "huge"),
            nullptr);
}

TEST(GuardedMemory, ModeNames) {
  for (GuardPages mode : {GuardPages::None, GuardPages::End, GuardPages::Start})
    EXPECT_EQ(parseGuardPages(toString(mode)), mode);
  EXPECT_EQ(parseGuardPages("both"), std::nullopt);
}

using GuardedMemoryDeathTest = ::testing::Test;

TEST(GuardedMemoryDeathTest, ReadPastTheEndIsReported) {
  installGuardFaultHandler();
  auto *data = static_cast<volatile char *>(
      allocateGuarded(10, GuardPages::End, "argument 3 (tensor<10xi8>)"));
  EXPECT_EXIT((void)data[10], ::testing::KilledBySignal(SIGSEGV),
              "compiled code read out of bounds: byte 10 of argument 3 "
              "\\(tensor<10xi8>\\), which has 10 bytes");
  releaseGuarded(const_cast<char *>(data));
}

TEST(GuardedMemoryDeathTest, WriteBeforeTheStartIsReported) {
  installGuardFaultHandler();
  auto *data = static_cast<volatile char *>(
      allocateGuarded(10, GuardPages::Start, "a buffer"));
  EXPECT_EXIT(data[-3] = 1, ::testing::KilledBySignal(SIGSEGV),
              "compiled code wrote out of bounds: byte -3 of a buffer, "
              "which has 10 bytes");
  releaseGuarded(const_cast<char *>(data));
}

} // namespace
