//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The table of CUDA driver functions that gmm_cuda_runtime calls, which
// loadCudaDriver() resolves with dlsym, over the driver's types and
// constants (gmm/Support/CudaDriverABI.h). Where cuda.h maps a name to a
// versioned symbol (cuMemAlloc -> cuMemAlloc_v2) the table resolves the
// versioned one, as code compiled against cuda.h would.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_RUNTIME_CUDADRIVER_H
#define GMM_LIB_RUNTIME_CUDADRIVER_H

#include "gmm/Support/CudaDriverABI.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gmm {
namespace cuda {

/// The driver functions gmm_cuda_runtime calls. The members marked optional
/// are null when the driver predates them; the others are always resolved.
struct Driver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **string);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuCtxGetCurrent)(CUcontext *context);
  CUresult (*cuCtxPushCurrent)(CUcontext context);
  CUresult (*cuCtxPopCurrent)(CUcontext *context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, CUjit_option *options,
                                 void **optionValues);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuFuncGetAttribute)(int *value, int attribute,
                                 CUfunction function);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedMemBytes, CUstream stream,
                             void **params, void **extra);
  /// Optional (CUDA 11.8).
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config,
                               CUfunction function, void **params,
                               void **extra);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *ptr, size_t bytes, unsigned flags);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  /// Optional (CUDA 11.2): stream-ordered allocation and free.
  CUresult (*cuMemAllocAsync)(CUdeviceptr *ptr, size_t bytes, CUstream stream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr ptr, CUstream stream);
  CUresult (*cuMemcpyAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                            CUstream stream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemsetD16Async)(CUdeviceptr dst, unsigned short value,
                               size_t count, CUstream stream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned value, size_t count,
                               CUstream stream);
  CUresult (*cuMemHostRegister)(void *ptr, size_t bytes, unsigned flags);
  CUresult (*cuMemHostUnregister)(void *ptr);
  /// Optional (CUDA 12.0).
  CUresult (*cuTensorMapEncodeTiled)(
      CUtensorMap *map, int dataType, uint32_t rank, void *globalAddress,
      const uint64_t *globalDim, const uint64_t *globalStrides,
      const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
      int swizzle, int l2Promotion, int oobFill);
  /// Optional, only in gmm's simulated GPU (libgmm_cuda_sim.so): the one-line
  /// description of its last failure (a finding of its checks), and its
  /// version (present: the device is simulated).
  const char *(*gmmSimGetErrorDetail)();
  const char *(*gmmSimVersion)();
  /// Forgets the sticky error of a failed launch (simulated GPU only).
  void (*gmmSimClearError)();
};

/// The outcome of loading and initializing the driver, once per process.
struct DriverState {
  /// Set when the driver loaded, initialized and has devices.
  const Driver *driver = nullptr;
  /// Otherwise the one-line reason.
  std::string failure;
  int deviceCount = 0;
  /// The library that was loaded (its path when known).
  std::string libraryPath;
  /// Whether the driver is gmm's simulated GPU.
  bool simulated = false;
};

/// Loads the driver on the first call (thread-safe) and returns the outcome.
/// The state lives until the process ends.
const DriverState &getDriverState();

/// Whether getDriverState() has run (the driver library is chosen).
bool isDriverLoaded();

/// libgmm_cuda_sim.so next to this library, or empty with `why` set.
std::string findSimulatorLibrary(std::string *why);

/// "CUDA_ERROR_INVALID_VALUE (invalid argument)"; works without a driver.
std::string describeError(CUresult error);

} // namespace cuda
} // namespace gmm

#endif // GMM_LIB_RUNTIME_CUDADRIVER_H
