//===- CudaRuntimeTest.cpp - gmm_cuda_runtime with and without a GPU ------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The first group of tests needs no GPU: they check what the runtime says
// and does without a driver (simulated with GMM_CUDA_DRIVER_LIBRARY in a
// child process where a driver exists), that the toolkit's stub libcuda is
// never taken for a driver, and the error modes. The CudaGpu tests run the
// mgpu* functions on a device and skip themselves where there is none.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runtime/CudaRuntime.h"

#include "gtest/gtest.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr const char *kMissingDriver = "/nonexistent/libcuda.so.1";
constexpr const char *kNoDriverMessage =
    "no CUDA driver \\(/nonexistent/libcuda.so.1 not found\\)";

/// In a death-test child: load `library` instead of libcuda.so.1. The
/// runtime reads the variable once, when it first needs the driver.
void useDriverLibrary(const char *library) {
  setenv("GMM_CUDA_DRIVER_LIBRARY", library, /*overwrite=*/1);
}

/// The CUDA toolkit's stub libcuda.so, or "" when this machine has none.
std::string findStubDriver() {
  std::vector<std::string> candidates;
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(variable))
      candidates.push_back(std::string(root) + "/lib64/stubs/libcuda.so");
  candidates.push_back("/usr/local/cuda/lib64/stubs/libcuda.so");
  candidates.push_back("/usr/local/cuda/targets/x86_64-linux/lib/stubs/"
                       "libcuda.so");
  for (const std::string &candidate : candidates)
    if (access(candidate.c_str(), R_OK) == 0)
      return candidate;
  return "";
}

/// Runs `body` with stderr going to a temporary file and returns what it
/// wrote.
template <typename Body> std::string captureStderr(Body body) {
  char path[] = "/tmp/gmm-runtime-test-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return "<mkstemp failed>";
  std::fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  body();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  lseek(fd, 0, SEEK_SET);
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0)
    text.append(buffer, static_cast<size_t>(n));
  close(fd);
  unlink(path);
  return text;
}

//===----------------------------------------------------------------------===//
// Without a GPU
//===----------------------------------------------------------------------===//

TEST(CudaAvailability, ReasonIsOneLineWhenUnavailable) {
  std::string why = "<untouched>";
  bool available = gmmCudaAvailable(&why);
  if (available) {
    EXPECT_EQ(why, "<untouched>");
    return;
  }
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  EXPECT_NE(why, "<untouched>");
  // Every reason names the driver or the device.
  EXPECT_TRUE(why.find("CUDA driver") != std::string::npos ||
              why.find("CUDA device") != std::string::npos)
      << why;
  // The answer is computed once and stays the same.
  std::string again;
  EXPECT_FALSE(gmmCudaAvailable(&again));
  EXPECT_EQ(again, why);
  EXPECT_FALSE(gmmCudaAvailable());
}

TEST(CudaAvailability, DeviceCountAgreesWithAvailability) {
  EXPECT_EQ(gmmCudaAvailable(), gmmCudaDeviceCount() > 0);
}

TEST(CudaAvailability, DeviceInfoGivesTheReasonWhenUnavailable) {
  std::string reason;
  if (gmmCudaAvailable(&reason))
    GTEST_SKIP() << "a CUDA device is available";
  GmmCudaDeviceInfo info;
  std::string why;
  EXPECT_FALSE(gmmCudaGetDeviceInfo(0, info, &why));
  EXPECT_EQ(why, reason);
}

TEST(CudaAvailability, HelpersFailCleanlyWhenUnavailable) {
  std::string reason;
  if (gmmCudaAvailable(&reason))
    GTEST_SKIP() << "a CUDA device is available";
  std::string why;
  EXPECT_FALSE(gmmCudaSynchronize(&why));
  EXPECT_EQ(why, reason);
  GmmCudaEventTimer timer;
  why.clear();
  EXPECT_FALSE(timer.start(&why));
  EXPECT_EQ(why, reason);
  float ms = -1;
  why.clear();
  EXPECT_FALSE(timer.stop(ms, &why));
  EXPECT_EQ(why, "the timer was not started");
}

TEST(CudaDeviceInfo, ChipName) {
  GmmCudaDeviceInfo info;
  info.computeCapabilityMajor = 9;
  info.computeCapabilityMinor = 0;
  EXPECT_EQ(info.chip(), "sm_90");
  info.computeCapabilityMajor = 12;
  info.computeCapabilityMinor = 1;
  EXPECT_EQ(info.chip(), "sm_121");
}

TEST(CudaErrorMode, SetReturnsThePreviousMode) {
  GmmCudaErrorMode old = gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
  EXPECT_EQ(old, GmmCudaErrorMode::Print) << "Print is the default";
  EXPECT_EQ(gmmCudaSetErrorMode(old), GmmCudaErrorMode::Record);
}

TEST(CudaErrorMode, NothingToTakeWithoutErrors) {
  std::string message = "<untouched>";
  EXPECT_FALSE(gmmCudaTakeError(&message));
  EXPECT_EQ(message, "<untouched>");
}

TEST(CudaErrorMode, ArgumentErrorsAreReportedBeforeTheDriverIsNeeded) {
  // These fail on their arguments alone, with or without a driver.
  GmmCudaErrorMode old = gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
  std::string printed = captureStderr([] {
    int64_t box[6] = {1, 1, 1, 1, 1, 1};
    int64_t descriptor[3 + 12] = {};
    EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(6, descriptor, 7, 0, 0, 0, 0, box),
              nullptr);
  });
  std::string message;
  EXPECT_TRUE(gmmCudaTakeError(&message));
  EXPECT_EQ(message, "mgpuTensorMapEncodeTiledMemref: TMA descriptors have "
                     "rank 1 to 5, not 6");
  EXPECT_EQ(printed, "") << "Record mode prints nothing";

  printed = captureStderr([] { mgpuMemHostRegisterMemRef(-1, nullptr, 4); });
  EXPECT_TRUE(gmmCudaTakeError(&message));
  EXPECT_EQ(message, "mgpuMemHostRegisterMemRef: invalid memref descriptor "
                     "(negative rank, size or stride)");
  EXPECT_EQ(printed, "");

  printed = captureStderr([] {
    char byte = 0;
    EXPECT_EQ(mgpuModuleLoad(&byte, 0), nullptr);
  });
  EXPECT_TRUE(gmmCudaTakeError(&message));
  EXPECT_EQ(message, "mgpuModuleLoad: empty GPU binary");
  EXPECT_FALSE(gmmCudaTakeError());
  gmmCudaSetErrorMode(old);
}

TEST(CudaErrorMode, EmptyMemRefsNeedNoDriver) {
  // A memref with a zero-size dimension has no memory to register.
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } empty = {nullptr, nullptr, 0, {0, 8}, {8, 1}};
  mgpuMemHostRegisterMemRef(2, &empty, 4);
  mgpuMemHostUnregisterMemRef(2, &empty, 4);
  EXPECT_FALSE(gmmCudaTakeError());
}

TEST(CudaAvailabilityDeathTest, MissingDriverLibrary) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        useDriverLibrary(kMissingDriver);
        std::string why;
        bool available = gmmCudaAvailable(&why);
        std::fprintf(stderr, "[%s] count=%d\n", why.c_str(),
                     gmmCudaDeviceCount());
        std::_Exit(available ? 1 : 0);
      },
      ::testing::ExitedWithCode(0),
      std::string("\\[") + kNoDriverMessage + "\\] count=0");
}

TEST(CudaAvailabilityDeathTest, StubDriverIsRejectedByItsDirectory) {
  std::string stub = findStubDriver();
  if (stub.empty())
    GTEST_SKIP() << "no CUDA toolkit stub libcuda.so on this machine";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        useDriverLibrary(stub.c_str());
        std::string why;
        bool available = gmmCudaAvailable(&why);
        std::fprintf(stderr, "[%s]\n", why.c_str());
        std::_Exit(available ? 1 : 0);
      },
      ::testing::ExitedWithCode(0),
      "\\[no CUDA driver \\(.*stubs/libcuda.so is the CUDA toolkit's stub "
      "library, which is for linking only\\)\\]");
}

TEST(CudaAvailabilityDeathTest, StubDriverIsRejectedByCuInit) {
  // The stub under the driver's own name, outside a `stubs` directory (as
  // some container images install it): cuInit says it is a stub.
  std::string stub = findStubDriver();
  if (stub.empty())
    GTEST_SKIP() << "no CUDA toolkit stub libcuda.so on this machine";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        char dir[] = "/tmp/gmm-runtime-stub-XXXXXX";
        if (!mkdtemp(dir))
          std::_Exit(2);
        std::string link = std::string(dir) + "/libcuda.so.1";
        if (symlink(stub.c_str(), link.c_str()) != 0)
          std::_Exit(3);
        useDriverLibrary(link.c_str());
        std::string why;
        bool available = gmmCudaAvailable(&why);
        std::fprintf(stderr, "[%s]\n", why.c_str());
        unlink(link.c_str());
        rmdir(dir);
        std::_Exit(available ? 1 : 0);
      },
      ::testing::ExitedWithCode(0),
      "\\[no CUDA driver \\(/tmp/gmm-runtime-stub-.*/libcuda.so.1 is the CUDA "
      "toolkit's stub library, which is for linking only\\)\\]");
}

/// Each mgpu* function that needs the driver, called with harmless arguments.
struct EntryPoint {
  const char *name;
  void (*call)();
};

const EntryPoint kEntryPoints[] = {
    {"mgpuModuleLoad",
     [] {
       static char cubin[16];
       mgpuModuleLoad(cubin, sizeof(cubin));
     }},
    {"mgpuModuleLoadJIT",
     [] {
       static char ptx[] = "";
       mgpuModuleLoadJIT(ptx, 2);
     }},
    {"mgpuModuleUnload",
     [] {
       static char module;
       mgpuModuleUnload(&module);
     }},
    {"mgpuModuleGetFunction", [] { mgpuModuleGetFunction(nullptr, "k"); }},
    {"mgpuLaunchKernel",
     [] {
       mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr,
                        0);
     }},
    {"mgpuLaunchClusterKernel",
     [] {
       mgpuLaunchClusterKernel(nullptr, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, nullptr,
                               nullptr, nullptr);
     }},
    {"mgpuStreamCreate", [] { mgpuStreamCreate(); }},
    {"mgpuStreamDestroy",
     [] {
       static char stream;
       mgpuStreamDestroy(&stream);
     }},
    {"mgpuStreamSynchronize", [] { mgpuStreamSynchronize(nullptr); }},
    {"mgpuStreamWaitEvent", [] { mgpuStreamWaitEvent(nullptr, nullptr); }},
    {"mgpuEventCreate", [] { mgpuEventCreate(); }},
    {"mgpuEventDestroy",
     [] {
       static char event;
       mgpuEventDestroy(&event);
     }},
    {"mgpuEventSynchronize", [] { mgpuEventSynchronize(nullptr); }},
    {"mgpuEventRecord", [] { mgpuEventRecord(nullptr, nullptr); }},
    {"mgpuMemAlloc", [] { mgpuMemAlloc(64, nullptr, 0); }},
    {"mgpuMemFree",
     [] {
       static char memory;
       mgpuMemFree(&memory, nullptr);
     }},
    {"mgpuMemcpy",
     [] {
       static char a[4], b[4];
       mgpuMemcpy(a, b, sizeof(a), nullptr);
     }},
    {"mgpuMemset32",
     [] {
       static uint32_t a[4];
       mgpuMemset32(a, 0, 4, nullptr);
     }},
    {"mgpuMemset16",
     [] {
       static uint16_t a[4];
       mgpuMemset16(a, 0, 4, nullptr);
     }},
    {"mgpuMemHostRegisterMemRef",
     [] {
       static float data[8];
       struct {
         float *allocated, *aligned;
         int64_t offset, sizes[1], strides[1];
       } memref = {data, data, 0, {8}, {1}};
       mgpuMemHostRegisterMemRef(1, &memref, sizeof(float));
     }},
    {"mgpuMemHostUnregisterMemRef",
     [] {
       static float data[8];
       struct {
         float *allocated, *aligned;
         int64_t offset, sizes[1], strides[1];
       } memref = {data, data, 0, {8}, {1}};
       mgpuMemHostUnregisterMemRef(1, &memref, sizeof(float));
     }},
    {"mgpuTensorMapEncodeTiledMemref",
     [] {
       static float data[64];
       struct {
         float *allocated, *aligned;
         int64_t offset, sizes[2], strides[2];
       } memref = {data, data, 0, {8, 8}, {8, 1}};
       int64_t box[2] = {8, 8};
       mgpuTensorMapEncodeTiledMemref(2, &memref, 7, 0, 0, 0, 0, box);
     }},
    {"mgpuMemHostRegister",
     [] {
       static char data[64];
       mgpuMemHostRegister(data, sizeof(data));
     }},
    {"mgpuMemHostUnregister",
     [] {
       static char data[64];
       mgpuMemHostUnregister(data);
     }},
};

class MgpuWithoutDriverDeathTest : public ::testing::TestWithParam<EntryPoint> {
};

TEST_P(MgpuWithoutDriverDeathTest, AbortsWithOneLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const EntryPoint &entry = GetParam();
  EXPECT_EXIT(
      {
        useDriverLibrary(kMissingDriver);
        gmmCudaSetErrorMode(GmmCudaErrorMode::Abort);
        entry.call();
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGABRT),
      std::string("^gmm-cuda-runtime: error: ") + entry.name + ": " +
          kNoDriverMessage + "\n$");
}

TEST_P(MgpuWithoutDriverDeathTest, RecordModeReturnsAndKeepsTheError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const EntryPoint &entry = GetParam();
  EXPECT_EXIT(
      {
        useDriverLibrary(kMissingDriver);
        gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
        entry.call();
        entry.call();
        std::string message;
        bool taken = gmmCudaTakeError(&message);
        bool again = gmmCudaTakeError();
        std::fprintf(stderr, "taken=%d again=%d [%s]\n", taken, again,
                     message.c_str());
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      // Nothing printed; the first call's error kept, the second counted.
      std::string("^taken=1 again=0 \\[") + entry.name + ": " +
          kNoDriverMessage + " \\(and 1 more error\\)\\]\n$");
}

TEST_P(MgpuWithoutDriverDeathTest, PrintModePrintsEachErrorAndReturns) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const EntryPoint &entry = GetParam();
  EXPECT_EXIT(
      {
        useDriverLibrary(kMissingDriver);
        gmmCudaSetErrorMode(GmmCudaErrorMode::Print);
        entry.call();
        entry.call();
        std::fprintf(stderr, "returned\n");
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      std::string("^gmm-cuda-runtime: error: ") + entry.name + ": " +
          kNoDriverMessage + "\ngmm-cuda-runtime: error: " + entry.name + ": " +
          kNoDriverMessage + "\nreturned\n$");
}

INSTANTIATE_TEST_SUITE_P(AllEntryPoints, MgpuWithoutDriverDeathTest,
                         ::testing::ValuesIn(kEntryPoints),
                         [](const ::testing::TestParamInfo<EntryPoint> &info) {
                           return std::string(info.param.name);
                         });

TEST(MgpuTrivialDeathTest, CallsThatNeedNoDriver) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        useDriverLibrary(kMissingDriver);
        mgpuSetDefaultDevice(3);
        mgpuModuleUnload(nullptr);
        mgpuStreamDestroy(nullptr);
        mgpuEventDestroy(nullptr);
        mgpuMemFree(nullptr, nullptr);
        std::fprintf(stderr, "done\n");
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "^done\n$");
}

//===----------------------------------------------------------------------===//
// With a GPU
//===----------------------------------------------------------------------===//

/// Two kernels, from llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_60:
///   add_one(float *p, int n):    p[i] += 1 for i = global thread id < n
///   use_shared(int *p, int w):   thread 0 stores 42 to word w-1 of the
///                                dynamic shared memory; after a barrier,
///                                thread t stores that word + t to p[t].
constexpr const char kPtx[] = R"ptx(
.version 6.0
.target sm_60
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry add_one(
  .param .u64 .ptr .global .align 1 add_one_param_0,
  .param .u32 add_one_param_1
)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.b32 %r1, [add_one_param_1];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra $L__BB0_2;
  ld.param.b64 %rd2, [add_one_param_0];
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd1, %rd2, %rd3;
  ld.global.b32 %r6, [%rd1];
  add.rn.f32 %r7, %r6, 0f3F800000;
  st.global.b32 [%rd1], %r7;
$L__BB0_2:
  ret;
}
.visible .entry use_shared(
  .param .u64 .ptr .global .align 1 use_shared_param_0,
  .param .u32 use_shared_param_1
)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<7>;
  ld.param.b64 %rd2, [use_shared_param_0];
  mov.u32 %r1, %tid.x;
  ld.param.b32 %r2, [use_shared_param_1];
  add.s32 %r3, %r2, -1;
  mul.wide.s32 %rd3, %r3, 4;
  mov.b64 %rd4, dyn;
  add.s64 %rd1, %rd4, %rd3;
  setp.ne.b32 %p1, %r1, 0;
  @%p1 bra $L__BB1_2;
  st.shared.b32 [%rd1], 42;
$L__BB1_2:
  bar.sync 0;
  ld.shared.b32 %r4, [%rd1];
  add.s32 %r5, %r4, %r1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.b32 [%rd6], %r5;
  ret;
}
)ptx";

class CudaGpu : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!gmmCudaAvailable(&why))
      GTEST_SKIP() << "no GPU: " << why;
    ASSERT_TRUE(gmmCudaGetDeviceInfo(0, info, &why)) << why;
  }
  void TearDown() override {
    std::string message;
    EXPECT_FALSE(gmmCudaTakeError(&message)) << message;
  }

  /// Loads kPtx (a copy: the JIT wants writable-or-not NUL-terminated text).
  void *loadKernels() {
    static std::string ptx = kPtx;
    return mgpuModuleLoadJIT(ptx.data(), 3);
  }

  GmmCudaDeviceInfo info;
};

TEST_F(CudaGpu, DeviceInfo) {
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.computeCapabilityMajor, 5);
  EXPECT_GT(info.multiProcessorCount, 0);
  EXPECT_GT(info.totalMemoryBytes, 0u);
  EXPECT_GE(info.maxSharedMemoryPerBlockOptin, 48 * 1024);
  EXPECT_GT(info.driverVersion, 0);
  EXPECT_EQ(info.chip().rfind("sm_", 0), 0u);
  GmmCudaDeviceInfo other;
  std::string why;
  EXPECT_FALSE(gmmCudaGetDeviceInfo(gmmCudaDeviceCount(), other, &why));
  EXPECT_NE(why.find("invalid device ordinal"), std::string::npos) << why;
}

TEST_F(CudaGpu, AllocCopySet) {
  constexpr size_t n = 1000;
  void *stream = mgpuStreamCreate();
  ASSERT_NE(stream, nullptr);
  auto *device = static_cast<float *>(mgpuMemAlloc(n * 4, stream, 0));
  ASSERT_NE(device, nullptr);
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i)
    host[i] = static_cast<float>(i);
  mgpuMemcpy(device, host.data(), n * 4, stream);
  // Overwrite elements [10, 20) with 2.0f and the halves of [20, 22) with 1.
  float two = 2.0f;
  uint32_t bits;
  std::memcpy(&bits, &two, 4);
  mgpuMemset32(device + 10, bits, 10, stream);
  mgpuMemset16(device + 20, 0x3f80, 4, stream);
  std::vector<float> back(n, -1.0f);
  mgpuMemcpy(back.data(), device, n * 4, stream);
  mgpuStreamSynchronize(stream);
  for (size_t i = 0; i < n; ++i) {
    float expected = static_cast<float>(i);
    if (i >= 10 && i < 20)
      expected = 2.0f;
    if (i == 20 || i == 21) {
      uint32_t word = 0x3f803f80u;
      std::memcpy(&expected, &word, 4);
    }
    ASSERT_EQ(back[i], expected) << "at " << i;
  }
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, 0), nullptr);
}

TEST_F(CudaGpu, HostSharedMemory) {
  auto *shared = static_cast<int *>(mgpuMemAlloc(64 * 4, nullptr, 1));
  ASSERT_NE(shared, nullptr);
  void *stream = mgpuStreamCreate();
  mgpuMemset32(shared, 7, 64, stream);
  mgpuStreamSynchronize(stream);
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(shared[i], 7);
  shared[3] = 9;
  std::vector<int> back(64);
  mgpuMemcpy(back.data(), shared, 64 * 4, stream);
  mgpuStreamSynchronize(stream);
  EXPECT_EQ(back[3], 9);
  mgpuStreamDestroy(stream);
  mgpuMemFree(shared, nullptr);
}

TEST_F(CudaGpu, EventsOrderStreams) {
  void *first = mgpuStreamCreate();
  void *second = mgpuStreamCreate();
  void *event = mgpuEventCreate();
  ASSERT_NE(event, nullptr);
  auto *device = static_cast<uint32_t *>(mgpuMemAlloc(1 << 20, nullptr, 0));
  mgpuMemset32(device, 5, (1 << 20) / 4, first);
  mgpuEventRecord(event, first);
  mgpuStreamWaitEvent(second, event);
  uint32_t value = 0;
  mgpuMemcpy(&value, device + 1000, 4, second);
  mgpuEventSynchronize(event);
  mgpuStreamSynchronize(second);
  EXPECT_EQ(value, 5u);
  mgpuEventDestroy(event);
  mgpuMemFree(device, nullptr);
  mgpuStreamDestroy(first);
  mgpuStreamDestroy(second);
}

TEST_F(CudaGpu, JitLoadAndLaunch) {
  void *module = loadKernels();
  ASSERT_NE(module, nullptr);
  void *function = mgpuModuleGetFunction(module, "add_one");
  ASSERT_NE(function, nullptr);
  constexpr int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = static_cast<float>(i);
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(n * 4, stream, 0);
  mgpuMemcpy(device, host.data(), n * 4, stream);
  int count = n;
  void *params[] = {&device, &count};
  mgpuLaunchKernel(function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream,
                   params, nullptr, 2);
  mgpuMemcpy(host.data(), device, n * 4, stream);
  mgpuStreamSynchronize(stream);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(host[i], static_cast<float>(i + 1)) << "at " << i;
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);
}

TEST_F(CudaGpu, DynamicSharedMemoryAbove48KiB) {
  int bytes = 96 * 1024;
  if (info.maxSharedMemoryPerBlockOptin < bytes)
    GTEST_SKIP() << "the device allows " << info.maxSharedMemoryPerBlockOptin
                 << " bytes of shared memory per block";
  void *module = loadKernels();
  void *function = mgpuModuleGetFunction(module, "use_shared");
  ASSERT_NE(function, nullptr);
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(128 * 4, stream, 0);
  int words = bytes / 4;
  void *params[] = {&device, &words};
  mgpuLaunchKernel(function, 1, 1, 1, 128, 1, 1, bytes, stream, params, nullptr,
                   2);
  std::vector<int> host(128);
  mgpuMemcpy(host.data(), device, 128 * 4, stream);
  mgpuStreamSynchronize(stream);
  for (int t = 0; t < 128; ++t)
    ASSERT_EQ(host[t], 42 + t) << "thread " << t;
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);
}

TEST_F(CudaGpu, ClusterLaunch) {
  if (info.computeCapabilityMajor < 9)
    GTEST_SKIP() << "thread block clusters need sm_90";
  void *module = loadKernels();
  void *function = mgpuModuleGetFunction(module, "add_one");
  constexpr int n = 4 * 128;
  std::vector<float> host(n, 1.0f);
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(n * 4, stream, 0);
  mgpuMemcpy(device, host.data(), n * 4, stream);
  int count = n;
  void *params[] = {&device, &count};
  mgpuLaunchClusterKernel(function, 2, 1, 1, 4, 1, 1, 128, 1, 1, 0, stream,
                          params, nullptr);
  mgpuMemcpy(host.data(), device, n * 4, stream);
  mgpuStreamSynchronize(stream);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(host[i], 2.0f) << "at " << i;
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);
}

TEST_F(CudaGpu, HostRegisterMemRef) {
  std::vector<float> data(6 * 8);
  struct {
    float *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref = {data.data(), data.data(), 0, {6, 8}, {8, 1}};
  mgpuMemHostRegisterMemRef(2, &memref, sizeof(float));
  mgpuMemHostUnregisterMemRef(2, &memref, sizeof(float));
}

TEST_F(CudaGpu, TensorMapDescriptor) {
  if (info.computeCapabilityMajor < 9)
    GTEST_SKIP() << "TMA needs sm_90";
  void *device = mgpuMemAlloc(64 * 64 * 4, nullptr, 0);
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref = {device, device, 0, {64, 64}, {64, 1}};
  int64_t box[2] = {16, 16};
  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7.
  void *map = mgpuTensorMapEncodeTiledMemref(2, &memref, 7, 0, 0, 0, 0, box);
  EXPECT_NE(map, nullptr);
  mgpuMemFree(map, nullptr);
  mgpuMemFree(device, nullptr);
}

TEST_F(CudaGpu, EventTimerAndSynchronize) {
  GmmCudaEventTimer timer;
  std::string why;
  ASSERT_TRUE(timer.start(&why)) << why;
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(1 << 24, stream, 0);
  mgpuMemset32(device, 1, (1 << 24) / 4, stream);
  float ms = -1;
  ASSERT_TRUE(timer.stop(ms, &why)) << why;
  EXPECT_GE(ms, 0.0f);
  EXPECT_TRUE(gmmCudaSynchronize(&why)) << why;
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
}

TEST_F(CudaGpu, ErrorsInRecordMode) {
  GmmCudaErrorMode old = gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
  std::string message;

  void *module = loadKernels();
  std::string printed = captureStderr(
      [&] { EXPECT_EQ(mgpuModuleGetFunction(module, "nope"), nullptr); });
  EXPECT_TRUE(gmmCudaTakeError(&message));
  EXPECT_NE(message.find("mgpuModuleGetFunction: cuModuleGetFunction failed "
                         "for kernel 'nope': CUDA_ERROR_NOT_FOUND"),
            std::string::npos)
      << message;
  EXPECT_EQ(printed, "");

  void *function = mgpuModuleGetFunction(module, "add_one");
  captureStderr([&] {
    mgpuLaunchKernel(function, 0, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr,
                     0);
  });
  EXPECT_TRUE(gmmCudaTakeError(&message));
  EXPECT_EQ(message, "mgpuLaunchKernel: invalid launch dimensions: grid (0, 1, "
                     "1), block (1, 1, 1)");

  static char garbage[] = ".version 6.0\n.target sm_60\nnot ptx at all\n";
  printed =
      captureStderr([&] { EXPECT_EQ(mgpuModuleLoadJIT(garbage, 0), nullptr); });
  std::string detail;
  EXPECT_TRUE(gmmCudaTakeError(&message, &detail));
  EXPECT_NE(message.find("mgpuModuleLoadJIT: cuModuleLoadDataEx failed: "),
            std::string::npos)
      << message;
  // The JIT log is kept as the detail, not printed.
  EXPECT_EQ(printed, "");
  EXPECT_FALSE(detail.empty());

  mgpuModuleUnload(module);
  gmmCudaSetErrorMode(old);
}

} // namespace
