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
// GPU time is ever measured.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Runtime/CudaDriver.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>

using namespace gmm::cuda;

extern "C" {
CUresult cuInit(unsigned);
CUresult cuDeviceGetCount(int *);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetName(char *, int, CUdevice);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxPushCurrent_v2(CUcontext);
CUresult cuCtxPopCurrent_v2(CUcontext *);
CUresult cuCtxSynchronize();
CUresult cuModuleLoadDataEx(CUmodule *, const void *, unsigned, CUjit_option *,
                            void **);
CUresult cuModuleUnload(CUmodule);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, CUstream, void **,
                        void **);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamDestroy_v2(CUstream);
CUresult cuStreamSynchronize(CUstream);
CUresult cuEventCreate(CUevent *, unsigned);
CUresult cuEventRecord(CUevent, CUstream);
CUresult cuEventSynchronize(CUevent);
CUresult cuEventDestroy_v2(CUevent);
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned);
CUresult cuEventElapsedTime_v2(float *, CUevent, CUevent);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemAllocManaged(CUdeviceptr *, size_t, unsigned);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemsetD32Async(CUdeviceptr, unsigned, size_t, CUstream);
const char *gmmSimGetErrorDetail();
void gmmSimClearError();
}

namespace {

constexpr int kAttrComputeMajor = 75, kAttrComputeMinor = 76;
constexpr int kAttrSharedOptin = 97, kAttrWarpSize = 10;

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

/// A kernel that stores `value` to the word at `pointer` + 4 * tid.
constexpr const char *kStorePtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry store(.param .u64 pointer, .param .u32 value)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd0, [pointer];
  ld.param.u32 %r0, [value];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r0;
  ret;
}
)";

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

} // namespace
