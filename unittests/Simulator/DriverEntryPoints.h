//===- DriverEntryPoints.h - The simulator's driver API, declared -*- C++
//-*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver entry points that libgmm_cuda_sim.so exports
// (lib/Simulator/DriverAPI.cpp), declared for the code that calls them
// directly, linked against the simulator: the driver-API unit tests
// (DriverAPITest.cpp) and the driver-API fuzzer (fuzz/gmm-fuzz-driver.cpp).
// The types are the driver API's (gmm/Support/CudaDriverABI.h).
//
//===----------------------------------------------------------------------===//

#ifndef GMM_UNITTESTS_SIMULATOR_DRIVERENTRYPOINTS_H
#define GMM_UNITTESTS_SIMULATOR_DRIVERENTRYPOINTS_H

#include "gmm/Support/CudaDriverABI.h"

#include <cstddef>
#include <cstdint>

extern "C" {
gmm::cuda::CUresult cuInit(unsigned);
gmm::cuda::CUresult cuDeviceGetCount(int *);
gmm::cuda::CUresult cuDeviceGet(gmm::cuda::CUdevice *, int);
gmm::cuda::CUresult cuDeviceGetName(char *, int, gmm::cuda::CUdevice);
gmm::cuda::CUresult cuDeviceGetAttribute(int *, int, gmm::cuda::CUdevice);
gmm::cuda::CUresult cuDevicePrimaryCtxRetain(gmm::cuda::CUcontext *,
                                             gmm::cuda::CUdevice);
gmm::cuda::CUresult cuCtxPushCurrent_v2(gmm::cuda::CUcontext);
gmm::cuda::CUresult cuCtxPopCurrent_v2(gmm::cuda::CUcontext *);
gmm::cuda::CUresult cuCtxSynchronize();
gmm::cuda::CUresult cuModuleLoadDataEx(gmm::cuda::CUmodule *, const void *,
                                       unsigned, gmm::cuda::CUjit_option *,
                                       void **);
gmm::cuda::CUresult cuModuleUnload(gmm::cuda::CUmodule);
gmm::cuda::CUresult cuModuleGetFunction(gmm::cuda::CUfunction *,
                                        gmm::cuda::CUmodule, const char *);
gmm::cuda::CUresult cuLaunchKernel(gmm::cuda::CUfunction, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, unsigned,
                                   unsigned, gmm::cuda::CUstream, void **,
                                   void **);
gmm::cuda::CUresult cuStreamCreate(gmm::cuda::CUstream *, unsigned);
gmm::cuda::CUresult cuStreamDestroy_v2(gmm::cuda::CUstream);
gmm::cuda::CUresult cuStreamSynchronize(gmm::cuda::CUstream);
gmm::cuda::CUresult cuEventCreate(gmm::cuda::CUevent *, unsigned);
gmm::cuda::CUresult cuEventRecord(gmm::cuda::CUevent, gmm::cuda::CUstream);
gmm::cuda::CUresult cuEventSynchronize(gmm::cuda::CUevent);
gmm::cuda::CUresult cuEventDestroy_v2(gmm::cuda::CUevent);
gmm::cuda::CUresult cuStreamWaitEvent(gmm::cuda::CUstream, gmm::cuda::CUevent,
                                      unsigned);
gmm::cuda::CUresult cuEventElapsedTime_v2(float *, gmm::cuda::CUevent,
                                          gmm::cuda::CUevent);
gmm::cuda::CUresult cuMemAlloc_v2(gmm::cuda::CUdeviceptr *, size_t);
gmm::cuda::CUresult cuMemAllocManaged(gmm::cuda::CUdeviceptr *, size_t,
                                      unsigned);
gmm::cuda::CUresult cuMemFree_v2(gmm::cuda::CUdeviceptr);
gmm::cuda::CUresult cuMemcpyHtoD_v2(gmm::cuda::CUdeviceptr, const void *,
                                    size_t);
gmm::cuda::CUresult cuMemcpyDtoH_v2(void *, gmm::cuda::CUdeviceptr, size_t);
gmm::cuda::CUresult cuMemcpyDtoD_v2(gmm::cuda::CUdeviceptr,
                                    gmm::cuda::CUdeviceptr, size_t);
gmm::cuda::CUresult cuMemcpy(gmm::cuda::CUdeviceptr, gmm::cuda::CUdeviceptr,
                             size_t);
gmm::cuda::CUresult cuMemcpyAsync(gmm::cuda::CUdeviceptr,
                                  gmm::cuda::CUdeviceptr, size_t,
                                  gmm::cuda::CUstream);
gmm::cuda::CUresult cuMemcpyHtoDAsync_v2(gmm::cuda::CUdeviceptr, const void *,
                                         size_t, gmm::cuda::CUstream);
gmm::cuda::CUresult cuMemcpyDtoHAsync_v2(void *, gmm::cuda::CUdeviceptr, size_t,
                                         gmm::cuda::CUstream);
gmm::cuda::CUresult cuMemcpyDtoDAsync_v2(gmm::cuda::CUdeviceptr,
                                         gmm::cuda::CUdeviceptr, size_t,
                                         gmm::cuda::CUstream);
gmm::cuda::CUresult cuMemsetD8_v2(gmm::cuda::CUdeviceptr, unsigned char,
                                  size_t);
gmm::cuda::CUresult cuMemsetD16_v2(gmm::cuda::CUdeviceptr, unsigned short,
                                   size_t);
gmm::cuda::CUresult cuMemsetD32_v2(gmm::cuda::CUdeviceptr, unsigned, size_t);
gmm::cuda::CUresult cuMemsetD16Async(gmm::cuda::CUdeviceptr, unsigned short,
                                     size_t, gmm::cuda::CUstream);
gmm::cuda::CUresult cuMemsetD32Async(gmm::cuda::CUdeviceptr, unsigned, size_t,
                                     gmm::cuda::CUstream);
gmm::cuda::CUresult cuMemAllocHost_v2(void **, size_t);
gmm::cuda::CUresult cuMemFreeHost(void *);
gmm::cuda::CUresult cuMemHostRegister_v2(void *, size_t, unsigned);
gmm::cuda::CUresult cuMemHostUnregister(void *);
gmm::cuda::CUresult cuMemHostGetDevicePointer_v2(gmm::cuda::CUdeviceptr *,
                                                 void *, unsigned);
gmm::cuda::CUresult cuMemFreeAsync(gmm::cuda::CUdeviceptr, gmm::cuda::CUstream);
gmm::cuda::CUresult cuModuleLoadData(gmm::cuda::CUmodule *, const void *);
// Weak: the test of cuMemHostAlloc says so when the library lacks it.
gmm::cuda::CUresult cuMemHostAlloc(void **, size_t, unsigned)
    __attribute__((weak));
gmm::cuda::CUresult cuTensorMapEncodeTiled(gmm::cuda::CUtensorMap *, int,
                                           uint32_t, void *, const uint64_t *,
                                           const uint64_t *, const uint32_t *,
                                           const uint32_t *, int, int, int,
                                           int);
const char *gmmSimGetErrorDetail();
void gmmSimClearError();
gmm::cuda::CUresult cuMemAllocAsync(gmm::cuda::CUdeviceptr *, size_t,
                                    gmm::cuda::CUstream);
gmm::cuda::CUresult cuMemGetInfo_v2(size_t *, size_t *);
gmm::cuda::CUresult cuMemsetD8Async(gmm::cuda::CUdeviceptr, unsigned char,
                                    size_t, gmm::cuda::CUstream);
}

#endif // GMM_UNITTESTS_SIMULATOR_DRIVERENTRYPOINTS_H
