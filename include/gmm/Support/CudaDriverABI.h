//===- CudaDriverABI.h - the CUDA driver API's types and values -*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The few CUDA driver types, constants and structs that gmm's CUDA runtime
// (lib/Runtime, which loads the driver with dlsym) and gmm's simulated
// driver (lib/Simulator/DriverAPI.cpp, which is one) share, declared here so
// that neither needs CUDA's headers. Values and layouts are those of cuda.h
// (checked against CUDA 13.0's); the driver keeps them stable across
// versions.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_SUPPORT_CUDADRIVERABI_H
#define GMM_SUPPORT_CUDADRIVERABI_H

#include <cstddef>
#include <cstdint>

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

} // namespace cuda
} // namespace gmm

#endif // GMM_SUPPORT_CUDADRIVERABI_H
