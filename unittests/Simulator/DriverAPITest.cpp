//===- DriverAPITest.cpp - libgmm_cuda_sim.so behind the CUDA driver API --===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The driver entry points as a CUDA program sees them: the device reports
// itself as simulated, work on streams runs at synchronization (a host that
// does not synchronize sees stale data), a failed launch is a sticky error
// whose detail names the finding, device memory is not host memory, and no
// GPU time is ever measured. Every pointer and size is untrusted: wrapping
// sizes, freed, offset and bogus pointers and the wrong kind of memory are
// CUDA_ERROR_INVALID_VALUE, never a crash; asynchronous copies with pageable
// host memory behave as the driver's.
//
//===----------------------------------------------------------------------===//

#include "DriverEntryPoints.h"
#include "StoreKernel.h"
#include "gmm/Simulator/TensorMap.h"

#include "gtest/gtest.h"

#include <cstring>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace gmm::cuda;

namespace {

constexpr int kAttrComputeMajor = 75, kAttrComputeMinor = 76;
constexpr int kAttrSharedOptin = 97, kAttrWarpSize = 10;
constexpr CUresult kInvalidValue = CUDA_ERROR_INVALID_VALUE;
constexpr uint64_t kMax = ~uint64_t(0);

/// Initializes the driver and makes the primary context current.
class SimDriver : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&context, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxPushCurrent_v2(context), CUDA_SUCCESS);
  }
  void TearDown() override {
    gmmSimClearError();
    CUcontext popped = nullptr;
    cuCtxPopCurrent_v2(&popped);
  }
  CUcontext context = nullptr;
};

using gmm::sim::test::kStorePtx;

CUfunction loadStore(CUmodule &module) {
  CUfunction f = nullptr;
  EXPECT_EQ(cuModuleLoadDataEx(&module, kStorePtx, 0, nullptr, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetFunction(&f, module, "store"), CUDA_SUCCESS);
  return f;
}

TEST_F(SimDriver, DescribesASimulatedDevice) {
  int count = 0, value = 0;
  ASSERT_EQ(cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(count, 1);
  char name[128];
  ASSERT_EQ(cuDeviceGetName(name, sizeof(name), 0), CUDA_SUCCESS);
  EXPECT_NE(std::string(name).find("simulated"), std::string::npos) << name;
  ASSERT_EQ(cuDeviceGetAttribute(&value, kAttrComputeMajor, 0), CUDA_SUCCESS);
  EXPECT_EQ(value, 9);
  ASSERT_EQ(cuDeviceGetAttribute(&value, kAttrComputeMinor, 0), CUDA_SUCCESS);
  EXPECT_EQ(value, 0);
  ASSERT_EQ(cuDeviceGetAttribute(&value, kAttrSharedOptin, 0), CUDA_SUCCESS);
  EXPECT_EQ(value, 232448);
  ASSERT_EQ(cuDeviceGetAttribute(&value, kAttrWarpSize, 0), CUDA_SUCCESS);
  EXPECT_EQ(value, 32);
}

TEST_F(SimDriver, WorkRunsAtSynchronization) {
  CUmodule module = nullptr;
  CUfunction f = loadStore(module);
  CUdeviceptr managed = 0;
  ASSERT_EQ(cuMemAllocManaged(&managed, 64, 1), CUDA_SUCCESS);
  auto *host = reinterpret_cast<uint32_t *>(managed);
  host[0] = 7;
  CUstream stream = nullptr;
  ASSERT_EQ(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  uint32_t value = 42;
  void *params[] = {&managed, &value};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, stream, params, nullptr),
            CUDA_SUCCESS);
  // Not synchronized: the kernel has not run.
  EXPECT_EQ(host[0], 7u);
  ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
  EXPECT_EQ(host[0], 42u);
  EXPECT_EQ(host[15], 42u);
  EXPECT_EQ(cuStreamDestroy_v2(stream), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(managed), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}

TEST_F(SimDriver, FailedLaunchIsStickyWithItsFinding) {
  CUmodule module = nullptr;
  CUfunction f = loadStore(module);
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 16), CUDA_SUCCESS);
  uint32_t value = 1;
  void *params[] = {&buffer, &value};
  // 8 threads write 32 bytes into 16: the launch itself succeeds.
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 8, 1, 1, 0, nullptr, params, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), 700); // CUDA_ERROR_ILLEGAL_ADDRESS
  std::string detail = gmmSimGetErrorDetail();
  EXPECT_NE(detail.find("gmm-sim memcheck: out-of-bounds global write of 4 "
                        "bytes"),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find("kernel store, block (0,0,0), thread (4,0,0), PTX "
                        "line 14: st.global.u32"),
            std::string::npos)
      << detail;
  // Sticky: later calls fail too, until the simulator forgets it.
  CUdeviceptr other = 0;
  EXPECT_EQ(cuMemAlloc_v2(&other, 16), 700);
  gmmSimClearError();
  EXPECT_EQ(cuMemAlloc_v2(&other, 16), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(other), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}

// Managed memory is accessible up to its 256-byte allocation granularity (a
// GPU maps it in pages and does not fault just past the requested size);
// past the granularity memcheck reports the access. Device memory keeps its
// exact bounds (FailedLaunchIsStickyWithItsFinding).
TEST_F(SimDriver, ManagedMemoryHasItsAllocationGranularity) {
  CUmodule module = nullptr;
  CUfunction f = loadStore(module);
  CUdeviceptr managed = 0;
  ASSERT_EQ(cuMemAllocManaged(&managed, 4, 1), CUDA_SUCCESS);
  uint32_t value = 5;
  void *params[] = {&managed, &value};
  // 64 threads write the 256 bytes of the granularity: no finding.
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS) << gmmSimGetErrorDetail();
  auto *host = reinterpret_cast<uint32_t *>(managed);
  EXPECT_EQ(host[0], 5u);
  EXPECT_EQ(host[1], 5u);
  EXPECT_EQ(host[63], 5u);
  // The 65th thread writes past it.
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 65, 1, 1, 0, nullptr, params, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), 700); // CUDA_ERROR_ILLEGAL_ADDRESS
  std::string detail = gmmSimGetErrorDetail();
  EXPECT_NE(detail.find("thread (64,0,0)"), std::string::npos) << detail;
  gmmSimClearError();
  EXPECT_EQ(cuMemFree_v2(managed), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}

// A host wait on a bad event handle fails, but the queued work runs, as it
// would on a GPU (upstream MLIR's async test waits on a stream handle).
TEST_F(SimDriver, EventSynchronizeOnABadHandleStillDrainsTheQueue) {
  CUmodule module = nullptr;
  CUfunction f = loadStore(module);
  CUdeviceptr managed = 0;
  ASSERT_EQ(cuMemAllocManaged(&managed, 64, 1), CUDA_SUCCESS);
  CUstream stream = nullptr;
  ASSERT_EQ(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  uint32_t value = 9;
  void *params[] = {&managed, &value};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, stream, params, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cuEventSynchronize(reinterpret_cast<CUevent>(stream)),
            400); // CUDA_ERROR_INVALID_HANDLE
  EXPECT_NE(std::string(gmmSimGetErrorDetail()).find("cuEventSynchronize"),
            std::string::npos);
  EXPECT_EQ(reinterpret_cast<uint32_t *>(managed)[15], 9u);
  gmmSimClearError();
  EXPECT_EQ(cuStreamDestroy_v2(stream), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(managed), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}

// CUDA allows destroying an event whose record is still queued (MLIR's
// gpu-to-llvm does so right after making another stream wait for it): the
// record is dropped and the queue runs cleanly.
TEST_F(SimDriver, DestroyingAnEventWithAQueuedRecord) {
  CUmodule module = nullptr;
  CUfunction f = loadStore(module);
  CUdeviceptr managed = 0;
  ASSERT_EQ(cuMemAllocManaged(&managed, 64, 1), CUDA_SUCCESS);
  CUstream first = nullptr, second = nullptr;
  ASSERT_EQ(cuStreamCreate(&first, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&second, 0), CUDA_SUCCESS);
  uint32_t value = 3;
  void *params[] = {&managed, &value};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, first, params, nullptr),
            CUDA_SUCCESS);
  CUevent event = nullptr;
  ASSERT_EQ(cuEventCreate(&event, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(event, first), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(second, event, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(event), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(second), CUDA_SUCCESS)
      << gmmSimGetErrorDetail();
  EXPECT_EQ(reinterpret_cast<uint32_t *>(managed)[15], 3u);
  EXPECT_EQ(cuStreamDestroy_v2(first), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy_v2(second), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(managed), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}

TEST_F(SimDriver, PtxErrorsReachTheJitLog) {
  CUmodule module = nullptr;
  char log[512] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
  std::string ptx = kStorePtx;
  ptx.replace(ptx.find("st.global.u32"), 13, "st.global.zz.u32");
  EXPECT_EQ(cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values),
            218); // CUDA_ERROR_INVALID_PTX
  EXPECT_EQ(std::string(log), "ptx line 14: unsupported modifier .zz in "
                              "'st.global.zz.u32' (function 'store')");
  const char cubin[] = "\x7f"
                       "ELF....";
  EXPECT_EQ(cuModuleLoadDataEx(&module, cubin, 0, nullptr, nullptr),
            200); // CUDA_ERROR_INVALID_IMAGE
}

TEST_F(SimDriver, MeasuresNoTime) {
  CUevent start = nullptr, stop = nullptr;
  ASSERT_EQ(cuEventCreate(&start, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&stop, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(start, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(stop, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(stop), CUDA_SUCCESS);
  float ms = -1;
  EXPECT_EQ(cuEventElapsedTime_v2(&ms, start, stop),
            801); // CUDA_ERROR_NOT_SUPPORTED
  EXPECT_EQ(ms, -1.0f);
  EXPECT_NE(std::string(gmmSimGetErrorDetail()).find("does not measure time"),
            std::string::npos);
}

TEST_F(SimDriver, CopiesAndMemsets) {
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  uint32_t in[16], out[16];
  for (uint32_t i = 0; i < 16; ++i)
    in[i] = i * 3;
  ASSERT_EQ(cuMemcpyHtoD_v2(buffer, in, sizeof(in)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async(buffer + 8, 0xabcd, 2, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(out, buffer, sizeof(out)), CUDA_SUCCESS);
  for (uint32_t i = 0; i < 16; ++i)
    EXPECT_EQ(out[i], i == 2 || i == 3 ? 0xabcdu : i * 3);
  // Past the allocation: refused when the driver can tell.
  EXPECT_EQ(cuMemcpyHtoD_v2(buffer + 32, in, sizeof(in)),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
}

TEST_F(SimDriver, DeviceMemoryIsNotHostMemory) {
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        volatile uint32_t *p = reinterpret_cast<uint32_t *>(buffer);
        (void)*p;
      },
      "");
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
}

//===----------------------------------------------------------------------===//
// Untrusted pointers and sizes
//===----------------------------------------------------------------------===//

CUdeviceptr address(const void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

// count * width of the typed memsets must not wrap before the bounds check
// (2^62 + 1 words are 4 bytes, wrapped, and the memset ran for 2^62 words).
TEST_F(SimDriver, TypedMemsetSizesDoNotWrap) {
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD32_v2(buffer, 7, (uint64_t(1) << 62) + 1), kInvalidValue);
  EXPECT_EQ(cuMemsetD16_v2(buffer, 7, (uint64_t(1) << 63) + 2), kInvalidValue);
  EXPECT_EQ(cuMemsetD32Async(buffer, 7, (uint64_t(1) << 62) + 4, nullptr),
            kInvalidValue);
  EXPECT_EQ(cuMemsetD16Async(buffer, 7, kMax, nullptr), kInvalidValue);
  EXPECT_EQ(cuMemsetD8_v2(buffer, 7, kMax), kInvalidValue);
  // Nothing was queued or run: the context is fine.
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS) << gmmSimGetErrorDetail();
  EXPECT_EQ(cuMemsetD32_v2(buffer, 7, 16), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
}

// A copy's size near 2^64 must not wrap the offset-plus-size bounds check.
TEST_F(SimDriver, CopySizesNearTwoToThe64AreInvalid) {
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  std::vector<uint8_t> host(64, 1);
  for (uint64_t bytes : {kMax, kMax - 15, uint64_t(1) << 63}) {
    EXPECT_EQ(cuMemcpyDtoD_v2(buffer + 16, buffer, bytes), kInvalidValue);
    EXPECT_EQ(cuMemcpyHtoD_v2(buffer + 16, host.data(), bytes), kInvalidValue);
    EXPECT_EQ(cuMemcpyDtoH_v2(host.data(), buffer + 16, bytes), kInvalidValue);
    EXPECT_EQ(cuMemcpy(buffer + 16, buffer, bytes), kInvalidValue);
    EXPECT_EQ(cuMemcpyDtoDAsync_v2(buffer + 16, buffer, bytes, nullptr),
              kInvalidValue);
    EXPECT_EQ(cuMemcpyHtoDAsync_v2(buffer, host.data(), bytes, nullptr),
              kInvalidValue);
    EXPECT_EQ(cuMemcpyAsync(buffer + 16, buffer, bytes, nullptr),
              kInvalidValue);
  }
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS) << gmmSimGetErrorDetail();
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
}

// Registering host memory: a size that wraps past 2^64 passed the overlap
// check (base + size); a range that covers the device's memory or pages
// that are not mapped is not host memory either.
TEST_F(SimDriver, HostRegisterRefusesRangesThatAreNotHostMemory) {
  std::vector<uint8_t> host(4096, 0);
  uint8_t *p = host.data();
  EXPECT_EQ(cuMemHostRegister_v2(p, kMax - address(p) + 2, 0), kInvalidValue);
  EXPECT_EQ(cuMemHostRegister_v2(p, kMax, 0), kInvalidValue);
  EXPECT_EQ(cuMemHostRegister_v2(p, uint64_t(1) << 62, 0), kInvalidValue);
  EXPECT_EQ(cuMemHostRegister_v2(reinterpret_cast<void *>(0x10), 16, 0),
            kInvalidValue);
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostRegister_v2(reinterpret_cast<void *>(buffer + 128), 16, 0),
            kInvalidValue);
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
  // An unmapped page.
  long page = sysconf(_SC_PAGESIZE);
  void *gap =
      mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gap, MAP_FAILED);
  EXPECT_EQ(cuMemHostRegister_v2(gap, 16, 0), kInvalidValue);
  munmap(gap, page);
  // None of them was registered.
  ASSERT_EQ(cuMemHostRegister_v2(p, host.size(), 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostRegister_v2(p + 64, 64, 0),
            712); // CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
  EXPECT_EQ(cuMemHostUnregister(p), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostUnregister(p),
            713); // CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
}

// Freed managed memory is not memory any more, on either side of a copy
// (it was taken for host memory and read and written after its free), and
// its pages are gone.
TEST_F(SimDriver, FreedManagedMemoryIsNotAccessible) {
  CUdeviceptr managed = 0;
  ASSERT_EQ(cuMemAllocManaged(&managed, 64, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(managed), CUDA_SUCCESS);
  uint8_t host[64] = {0};
  EXPECT_EQ(cuMemcpyHtoD_v2(managed, host, 64), kInvalidValue);
  EXPECT_EQ(cuMemcpyDtoH_v2(host, managed, 64), kInvalidValue);
  EXPECT_EQ(cuMemcpy(managed, address(host), 64), kInvalidValue);
  EXPECT_EQ(cuMemcpy(address(host), managed, 64), kInvalidValue);
  EXPECT_EQ(cuMemcpyAsync(address(host), managed, 64, nullptr), kInvalidValue);
  EXPECT_EQ(
      cuMemcpyHtoD_v2(address(host), reinterpret_cast<void *>(managed), 64),
      kInvalidValue);
  EXPECT_EQ(cuMemsetD8_v2(managed, 1, 64), kInvalidValue);
  EXPECT_EQ(cuMemFree_v2(managed), kInvalidValue);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS) << gmmSimGetErrorDetail();
  // A kernel's store to it is a finding.
  CUmodule module = nullptr;
  CUfunction f = loadStore(module);
  uint32_t value = 1;
  void *params[] = {&managed, &value};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), 700); // CUDA_ERROR_ILLEGAL_ADDRESS
  gmmSimClearError();
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        volatile uint8_t *p = reinterpret_cast<uint8_t *>(managed);
        (void)*p;
      },
      "");
}

// Freed pinned host memory likewise.
TEST_F(SimDriver, FreedPinnedHostMemoryIsNotAccessible) {
  void *pinned = nullptr;
  ASSERT_EQ(cuMemAllocHost_v2(&pinned, 64), CUDA_SUCCESS);
  std::memset(pinned, 3, 64);
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD_v2(buffer, pinned, 64), CUDA_SUCCESS);
  CUdeviceptr mapped = 0;
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&mapped, pinned, 0), CUDA_SUCCESS);
  EXPECT_EQ(mapped, address(pinned));
  ASSERT_EQ(cuMemFreeHost(pinned), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD_v2(buffer, pinned, 64), kInvalidValue);
  EXPECT_EQ(cuMemcpyDtoH_v2(pinned, buffer, 64), kInvalidValue);
  EXPECT_EQ(cuMemcpyHtoDAsync_v2(buffer, pinned, 64, nullptr), kInvalidValue);
  EXPECT_EQ(cuMemcpyDtoHAsync_v2(pinned, buffer, 64, nullptr), kInvalidValue);
  EXPECT_EQ(cuMemcpy(address(pinned), buffer, 64), kInvalidValue);
  EXPECT_EQ(cuMemsetD8_v2(address(pinned), 0, 64), kInvalidValue);
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&mapped, pinned, 0), kInvalidValue);
  EXPECT_EQ(cuMemFreeHost(pinned), kInvalidValue);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS) << gmmSimGetErrorDetail();
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
}

// A device pointer that is not in a live allocation is refused, never
// dereferenced as a host address (which crashed the process). The unified
// copies (cuMemcpy, cuMemcpyAsync) take pageable host memory too, but none
// is mapped at these addresses.
TEST_F(SimDriver, BogusDevicePointersAreInvalidValues) {
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  uint8_t host[64] = {0};
  const CUdeviceptr unmapped[] = {0,           0x10,
                                  kMax - 7,    uint64_t(1) << 63,
                                  buffer + 64, buffer + (uint64_t(1) << 30)};
  for (CUdeviceptr p : unmapped) {
    EXPECT_EQ(cuMemcpyDtoH_v2(host, p, 8), kInvalidValue) << p;
    EXPECT_EQ(cuMemcpyHtoD_v2(p, host, 8), kInvalidValue) << p;
    EXPECT_EQ(cuMemcpyDtoD_v2(p, buffer, 8), kInvalidValue) << p;
    EXPECT_EQ(cuMemcpyDtoD_v2(buffer, p, 8), kInvalidValue) << p;
    EXPECT_EQ(cuMemcpyHtoDAsync_v2(p, host, 8, nullptr), kInvalidValue) << p;
    EXPECT_EQ(cuMemcpyDtoHAsync_v2(host, p, 8, nullptr), kInvalidValue) << p;
    EXPECT_EQ(cuMemsetD32_v2(p, 0, 2), kInvalidValue) << p;
    EXPECT_EQ(cuMemsetD32Async(p, 0, 2, nullptr), kInvalidValue) << p;
    EXPECT_EQ(cuMemcpy(p, buffer, 8), kInvalidValue) << p;
    EXPECT_EQ(cuMemcpy(address(host), p, 8), kInvalidValue) << p;
    EXPECT_EQ(cuMemcpyAsync(p, address(host), 8, nullptr), kInvalidValue) << p;
    EXPECT_EQ(cuMemFreeAsync(p, nullptr), p ? kInvalidValue : CUDA_SUCCESS)
        << p;
  }
  // Host memory where a device pointer belongs; a pointer (mapped in the
  // host, by chance or not) that is no allocation of the device.
  EXPECT_EQ(cuMemcpyDtoH_v2(host, address(host), 8), kInvalidValue);
  EXPECT_EQ(cuMemsetD8_v2(address(host), 0, 8), kInvalidValue);
  EXPECT_EQ(cuMemcpyDtoH_v2(host, 0xdeadbeef000, 8), kInvalidValue);
  // Ranges that start in the allocation and run past its end.
  EXPECT_EQ(cuMemcpyDtoH_v2(host, buffer + 60, 8), kInvalidValue);
  EXPECT_EQ(cuMemcpy(address(host), buffer + 60, 8), kInvalidValue);
  EXPECT_EQ(cuMemsetD8_v2(buffer + 1, 0, 64), kInvalidValue);
  // Host-side pointers of the explicit copies that no page backs.
  EXPECT_EQ(cuMemcpyHtoD_v2(buffer, reinterpret_cast<void *>(0x10), 8),
            kInvalidValue);
  EXPECT_EQ(
      cuMemcpyDtoH_v2(reinterpret_cast<void *>(uint64_t(1) << 63), buffer, 8),
      kInvalidValue);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS) << gmmSimGetErrorDetail();
  // The detail says which side and why.
  EXPECT_EQ(cuMemcpyDtoD_v2(buffer, 0xdeadbeef000, 8), kInvalidValue);
  EXPECT_NE(std::string(gmmSimGetErrorDetail())
                .find("the source of 8 bytes at 0xdeadbeef000"),
            std::string::npos)
      << gmmSimGetErrorDetail();
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
}

// cuMemFreeHost frees what cuMemAllocHost/cuMemHostAlloc allocated, nothing
// else (it freed memory that was only registered, which the caller owns);
// cuMemHostUnregister unregisters registered ranges only.
TEST_F(SimDriver, FreeHostFreesOnlyPinnedHostMemory) {
  std::vector<uint8_t> registered(256, 5);
  ASSERT_EQ(cuMemHostRegister_v2(registered.data(), registered.size(), 0),
            CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(registered.data()), kInvalidValue);
  EXPECT_EQ(registered[255], 5);
  EXPECT_EQ(cuMemHostUnregister(registered.data()), CUDA_SUCCESS);
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(reinterpret_cast<void *>(buffer)), kInvalidValue);
  int local = 0;
  EXPECT_EQ(cuMemFreeHost(&local), kInvalidValue);
  EXPECT_EQ(cuMemFreeHost(nullptr), kInvalidValue);
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
  void *pinned = nullptr;
  ASSERT_EQ(cuMemAllocHost_v2(&pinned, 100), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostUnregister(pinned),
            713); // CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
  EXPECT_EQ(cuMemHostRegister_v2(pinned, 100, 0),
            712); // CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
  EXPECT_EQ(cuMemFree_v2(address(pinned)), kInvalidValue);
  EXPECT_EQ(cuMemFreeHost(static_cast<char *>(pinned) + 8), kInvalidValue);
  EXPECT_EQ(cuMemFreeHost(pinned), CUDA_SUCCESS);
  ASSERT_TRUE(cuMemHostAlloc) << "libgmm_cuda_sim.so lacks cuMemHostAlloc";
  ASSERT_EQ(cuMemHostAlloc(&pinned, 100, 0), CUDA_SUCCESS);
  static_cast<char *>(pinned)[99] = 1;
  EXPECT_EQ(cuMemFreeHost(pinned), CUDA_SUCCESS);
}

// A module image has no length: its magic bytes must not be read past the
// end of a shorter one (these end, NUL included, at a page the host cannot
// read).
TEST_F(SimDriver, ShortImagesAreNotReadPastTheirEnd) {
  long page = sysconf(_SC_PAGESIZE);
  auto *pages =
      static_cast<char *>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(static_cast<void *>(pages), MAP_FAILED);
  ASSERT_EQ(mprotect(pages + page, page, PROT_NONE), 0);
  for (const char *text : {"", "\x7f",
                           "\x7f"
                           "E",
                           "\x7f"
                           "EL",
                           "P", "P\xed",
                           "P\xed"
                           "U",
                           "\xb1"
                           "Cb"}) {
    size_t n = std::strlen(text) + 1;
    char *image = pages + page - n;
    std::memcpy(image, text, n);
    CUmodule module = nullptr;
    EXPECT_NE(cuModuleLoadData(&module, image), CUDA_SUCCESS) << n;
  }
  munmap(pages, 2 * page);
}

//===----------------------------------------------------------------------===//
// Asynchronous copies with pageable memory, error details
//===----------------------------------------------------------------------===//

// The driver stages a pageable source before an asynchronous copy returns:
// the device gets what the memory held at the call, even when it changes or
// is freed before the stream runs.
TEST_F(SimDriver, AsyncCopyFromPageableMemoryIsStagedAtTheCall) {
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  CUstream stream = nullptr;
  ASSERT_EQ(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  std::vector<uint32_t> first(8, 1);
  ASSERT_EQ(cuMemcpyHtoDAsync_v2(buffer, first.data(), 32, stream),
            CUDA_SUCCESS);
  std::fill(first.begin(), first.end(), 2u);
  auto second = std::make_unique<std::vector<uint32_t>>(8, 3);
  ASSERT_EQ(cuMemcpyAsync(buffer + 32, address(second->data()), 32, stream),
            CUDA_SUCCESS);
  second.reset();
  ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS)
      << gmmSimGetErrorDetail();
  uint32_t out[16] = {0};
  ASSERT_EQ(cuMemcpyDtoH_v2(out, buffer, 64), CUDA_SUCCESS);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(out[i], i < 8 ? 1u : 3u) << i;
  EXPECT_EQ(cuStreamDestroy_v2(stream), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
}

// An asynchronous copy to pageable memory completes before it returns (the
// work queued before it included); one to pinned memory stays queued.
TEST_F(SimDriver, AsyncCopyToPageableMemoryCompletesBeforeItReturns) {
  CUmodule module = nullptr;
  CUfunction f = loadStore(module);
  CUdeviceptr buffer = 0;
  ASSERT_EQ(cuMemAlloc_v2(&buffer, 64), CUDA_SUCCESS);
  CUstream stream = nullptr;
  ASSERT_EQ(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  uint32_t value = 42;
  void *params[] = {&buffer, &value};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, stream, params, nullptr),
            CUDA_SUCCESS);
  std::vector<uint32_t> host(16, 0);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(host.data(), buffer, 64, stream),
            CUDA_SUCCESS);
  EXPECT_EQ(host[0], 42u);
  EXPECT_EQ(host[15], 42u);
  std::vector<uint32_t> unified(16, 0);
  value = 43;
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, stream, params, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyAsync(address(unified.data()), buffer, 64, stream),
            CUDA_SUCCESS);
  EXPECT_EQ(unified[15], 43u);
  void *pinned = nullptr;
  ASSERT_EQ(cuMemAllocHost_v2(&pinned, 64), CUDA_SUCCESS);
  std::memset(pinned, 0, 64);
  value = 44;
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, stream, params, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(pinned, buffer, 64, stream), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<uint32_t *>(pinned)[15], 0u);
  ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<uint32_t *>(pinned)[15], 44u);
  EXPECT_EQ(cuMemFreeHost(pinned), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy_v2(stream), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(buffer), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}

// gmmSimGetErrorDetail describes the last call's failure: one that sets no
// detail leaves none (it returned the previous failure's text).
TEST_F(SimDriver, AFailureWithoutDetailLeavesNoEarlierText) {
  CUevent start = nullptr;
  ASSERT_EQ(cuEventCreate(&start, 0), CUDA_SUCCESS);
  float ms = 0;
  EXPECT_EQ(cuEventElapsedTime_v2(&ms, start, start), 801);
  EXPECT_NE(std::string(gmmSimGetErrorDetail()).find("does not measure time"),
            std::string::npos);
  EXPECT_EQ(cuMemAlloc_v2(nullptr, 16), kInvalidValue);
  EXPECT_EQ(std::string(gmmSimGetErrorDetail()), "");
  EXPECT_EQ(cuMemFree_v2(0x10), kInvalidValue);
  EXPECT_NE(std::string(gmmSimGetErrorDetail()).find("cuMemFree"),
            std::string::npos);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(std::string(gmmSimGetErrorDetail()), "");
  EXPECT_EQ(cuEventDestroy_v2(start), CUDA_SUCCESS);
}

TEST_F(SimDriver, TensorMapsAreCheckedAndEncoded) {
  CUdeviceptr tensor = 0;
  ASSERT_EQ(cuMemAlloc_v2(&tensor, 64 * 64 * 4), CUDA_SUCCESS);
  CUtensorMap map;
  uint64_t dims[2] = {64, 64}, strides[1] = {256};
  uint32_t box[2] = {32, 8}, elementStrides[2] = {1, 1};
  // FLOAT32, rank 2, no interleave, no swizzle, no L2 promotion, zero fill.
  EXPECT_EQ(cuTensorMapEncodeTiled(&map, 7, 2, reinterpret_cast<void *>(tensor),
                                   dims, strides, box, elementStrides, 0, 0, 0,
                                   0),
            CUDA_SUCCESS)
      << gmmSimGetErrorDetail();
  gmm::sim::TensorMap decoded;
  ASSERT_TRUE(gmm::sim::decodeTensorMap(&map, decoded));
  EXPECT_EQ(decoded.globalAddress, tensor);
  // A stride that is not a multiple of 16 bytes.
  uint64_t badStrides[1] = {260};
  EXPECT_EQ(cuTensorMapEncodeTiled(&map, 7, 2, reinterpret_cast<void *>(tensor),
                                   dims, badStrides, box, elementStrides, 0, 0,
                                   0, 0),
            kInvalidValue);
  EXPECT_NE(std::string(gmmSimGetErrorDetail())
                .find("cuTensorMapEncodeTiled: globalStrides[0] = 260 must be "
                      "a multiple of 16"),
            std::string::npos)
      << gmmSimGetErrorDetail();
  // Valid, but an interleaved layout the simulator does not model.
  uint64_t dims3[3] = {64, 8, 8}, strides3[2] = {256, 2048};
  uint32_t box3[3] = {4, 8, 8}, elementStrides3[3] = {1, 1, 1};
  EXPECT_EQ(cuTensorMapEncodeTiled(&map, 7, 3, reinterpret_cast<void *>(tensor),
                                   dims3, strides3, box3, elementStrides3, 1, 0,
                                   0, 0),
            CUresult(801));
  EXPECT_EQ(cuMemFree_v2(tensor), CUDA_SUCCESS);
}

} // namespace
