//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The few CUDA driver types, constants and functions gmm_cuda_runtime uses,
// declared here so that the library builds without CUDA's headers, and the
// table of driver functions that loadCudaDriver() resolves with dlsym.
//
// Values and layouts are those of cuda.h (checked against CUDA 13.0's); the
// driver keeps them stable across versions. Where cuda.h maps a name to a
// versioned symbol (cuMemAlloc -> cuMemAlloc_v2) the table resolves the
// versioned one, as code compiled against cuda.h would.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_RUNTIME_CUDADRIVER_H
#define GMM_LIB_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace gmm {
namespace cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;

// CUresult values.
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_DEINITIALIZED = 4;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NOT_SUPPORTED = 801;

// Flags and attributes.
constexpr unsigned CU_STREAM_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 0x1;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_OPTIMIZATION_LEVEL = 7;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5;
constexpr int CU_CLUSTER_SCHEDULING_POLICY_SPREAD = 1;

/// CUlaunchAttribute: an attribute id and a 64-byte value union.
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char raw[64];
    void *alignment;
    struct {
      unsigned x, y, z;
    } clusterDim;
    int clusterSchedulingPolicyPreference;
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute layout");

/// CUlaunchConfig for cuLaunchKernelEx.
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(CUlaunchConfig) == 56 &&
                  offsetof(CUlaunchConfig, hStream) == 32,
              "CUlaunchConfig layout");

/// CUtensorMap: an opaque 128-byte TMA descriptor.
struct alignas(128) CUtensorMap {
  uint64_t opaque[16];
};

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
