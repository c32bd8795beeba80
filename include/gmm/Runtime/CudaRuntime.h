//===- CudaRuntime.h - The runtime of MLIR's mgpu* calls --------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The shared library gmm_cuda_runtime (libgmm_cuda_runtime.so) implements the
// `mgpu*` C functions that MLIR 22's `gpu-to-llvm` conversion and the
// translation of `gpu.binary`/`gpu.launch_func` to LLVM IR (SelectObjectAttr)
// emit calls to. Debian's MLIR does not ship MLIR's own CUDA runtime wrappers,
// so gmm provides them.
//
// The library uses the CUDA *driver* API only, and loads it at run time with
// dlopen("libcuda.so.1"): it builds and links on machines without CUDA (it
// links nothing but libdl), and every entry point says clearly when there is
// no driver or no device. The CUDA toolkit's stub libcuda (stubs/libcuda.so,
// which is for linking only) is never accepted as a driver.
//
// Tools check gmmCudaAvailable() before they JIT or run GPU code, and refuse
// to run with its reason otherwise. The mgpu* functions have no error return
// (compiled code calls them); what they do on an error depends on the error
// mode (gmmCudaSetErrorMode):
//
//  - GmmCudaErrorMode::Print (the default, as MLIR's own CUDA runtime
//    wrappers do): print one line to stderr and return (handle-returning
//    functions return nullptr). The line names the entry point and the
//    cause, e.g.
//      gmm-cuda-runtime: error: mgpuStreamCreate: no CUDA driver (libcuda.so.1
//      not found)
//    or "...: mgpuLaunchKernel: cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE
//    (invalid argument)"; on gmm's simulated GPU a failed launch's line ends
//    with the finding that failed it. A failed PTX JIT prints the JIT's log
//    after it. Every entry point accepts the null handles a failed one
//    returns, so compiled code runs to its end (with garbage results), as
//    with MLIR's wrappers. A sticky error of the context (a kernel's fault:
//    CUDA_ERROR_ILLEGAL_ADDRESS, _ASSERT, _LAUNCH_FAILED and the like), which
//    every later driver call returns too, is printed once, by the call that
//    met it first. Unlike MLIR's wrappers, a program that printed an error
//    exits with status 1 when it ends (whatever status it exits with; the
//    library's destructor runs after the program's exit handlers and static
//    destructors, flushes stdio and calls _exit(1); the library is never
//    unloaded), so that a script that runs it (mlir-runner on a broken
//    kernel, a test) fails, on a GPU and on gmm's simulated GPU alike.
//  - GmmCudaErrorMode::Abort (GMM_CUDA_RUNTIME_ON_ERROR=abort in the
//    environment): print the same line and abort().
//  - GmmCudaErrorMode::Record: print nothing; keep the first error's line
//    (and its detail, such as a JIT log) for gmmCudaTakeError(), count later
//    ones until it is taken, and return: handle-returning functions return
//    nullptr, the others do nothing more. Compiled code then carries on with
//    null handles, so a caller must treat every result of such a run as
//    garbage and report the error it takes in its own words; it is meant for
//    tools that fail one run with one line and continue (gmm-runner, tests).
//
// Conventions that differ from (or are unspecified by) MLIR's reference
// wrappers, and are relied on by gmm's tools:
//  - Streams are created with CU_STREAM_DEFAULT, i.e. they synchronize with
//    the legacy NULL stream. GmmCudaEventTimer records on the NULL stream and
//    therefore brackets all work of all mgpu streams.
//  - Every entry point works in the primary context of the calling thread's
//    default device (mgpuSetDefaultDevice, per thread, initially 0), made
//    current for the call and restored afterwards.
//  - mgpuMemAlloc with size 0 returns nullptr; mgpuMemFree(nullptr),
//    mgpuModuleUnload(nullptr), mgpuStreamDestroy(nullptr) and
//    mgpuEventDestroy(nullptr) do nothing. Destroy/unload calls ignore
//    CUDA_ERROR_DEINITIALIZED (global destructors running at process exit).
//
// The environment variable GMM_CUDA_DRIVER_LIBRARY names a library to load
// instead of libcuda.so.1 (a path or a soname); tests use it to simulate a
// missing driver and to check that the stub is rejected.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNTIME_CUDARUNTIME_H
#define GMM_RUNTIME_CUDARUNTIME_H

#include <cstddef>
#include <cstdint>
#include <string>

#define GMM_CUDA_RUNTIME_EXPORT __attribute__((visibility("default")))

//===----------------------------------------------------------------------===//
// C++ helpers for tools.
//===----------------------------------------------------------------------===//

/// Returns true when the CUDA driver loads, initializes and has at least one
/// device. Otherwise returns false and, when `why` is not null, sets it to a
/// one-line reason, e.g. "no CUDA driver (libcuda.so.1 not found)", "no CUDA
/// device", or the driver's error name and description. The result is
/// computed once per process.
GMM_CUDA_RUNTIME_EXPORT bool gmmCudaAvailable(std::string *why = nullptr);

/// The number of CUDA devices; 0 when gmmCudaAvailable() is false.
GMM_CUDA_RUNTIME_EXPORT int gmmCudaDeviceCount();

/// Makes the runtime drive gmm's simulated GPU (libgmm_cuda_sim.so, which
/// sits next to libgmm_cuda_runtime.so; docs/Simulator.md) instead of the
/// CUDA driver, as GMM_CUDA_DRIVER_LIBRARY=<that library> does. `chip`
/// ("sm_80", "sm_90", or "sm_90a": an sm_90 device whose chip() is sm_90a,
/// so that code is compiled with wgmma and setmaxnreg; empty: the default)
/// and `checks` ("all", "none", or a
/// list of memcheck, racecheck, initcheck, synccheck; empty: all) configure
/// it. Call before anything loads the driver; false with `why` set when the
/// library is missing, an option is invalid, or a driver is already loaded.
GMM_CUDA_RUNTIME_EXPORT bool gmmCudaUseSimulator(const std::string &chip,
                                                 const std::string &checks,
                                                 std::string *why = nullptr);

/// What gmm's tools need to know about a device.
struct GMM_CUDA_RUNTIME_EXPORT GmmCudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  int computeCapabilityMajor = 0;
  int computeCapabilityMinor = 0;
  int multiProcessorCount = 0;
  /// The most shared memory a block can opt in to
  /// (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN).
  int maxSharedMemoryPerBlockOptin = 0;
  uint64_t totalMemoryBytes = 0;
  /// cuDriverGetVersion, e.g. 13000 for CUDA 13.0.
  int driverVersion = 0;
  /// Whether the device is gmm's simulated GPU (libgmm_cuda_sim.so): it
  /// computes what a GPU computes but measures no GPU time.
  bool simulated = false;

  /// The NVPTX chip name for the device's compute capability: "sm_90".
  std::string chip() const;
};

/// Describes device `ordinal`. Returns false and sets `why` (when not null)
/// when CUDA is not available or the ordinal is not a device.
GMM_CUDA_RUNTIME_EXPORT bool gmmCudaGetDeviceInfo(int ordinal,
                                                  GmmCudaDeviceInfo &info,
                                                  std::string *why = nullptr);

/// What the mgpu* functions do on an error; see the file comment.
enum class GmmCudaErrorMode { Abort, Record, Print };

/// Sets the error mode for the whole process; returns the previous one.
GMM_CUDA_RUNTIME_EXPORT GmmCudaErrorMode
gmmCudaSetErrorMode(GmmCudaErrorMode mode);

/// In Record mode: returns true and sets `message` (when not null) to the
/// first error recorded since the last call (with the number of later errors
/// appended) and `detail` (when not null) to the lines that Print mode would
/// print after it (a JIT log; usually empty), and forgets it; returns false
/// when there was none.
GMM_CUDA_RUNTIME_EXPORT bool gmmCudaTakeError(std::string *message = nullptr,
                                              std::string *detail = nullptr);

/// On gmm's simulated GPU: forgets the error of a failed launch (a finding
/// of its checks), so that the next launches run; returns true. A real GPU's
/// context stays unusable after a kernel fault: returns false there.
GMM_CUDA_RUNTIME_EXPORT bool gmmCudaClearDeviceError();

/// Waits for all work on the current thread's default device (cuCtxSynchronize
/// in its primary context). Returns false and sets `why` on failure.
GMM_CUDA_RUNTIME_EXPORT bool gmmCudaSynchronize(std::string *why = nullptr);

/// Measures the GPU time of all work issued between start() and stop() on the
/// current thread's default device, with a pair of events recorded on the
/// legacy NULL stream (which every mgpu stream synchronizes with).
class GMM_CUDA_RUNTIME_EXPORT GmmCudaEventTimer {
public:
  GmmCudaEventTimer() = default;
  GmmCudaEventTimer(const GmmCudaEventTimer &) = delete;
  GmmCudaEventTimer &operator=(const GmmCudaEventTimer &) = delete;
  ~GmmCudaEventTimer();

  /// Records the start event. Returns false and sets `why` on failure.
  bool start(std::string *why = nullptr);
  /// Records the stop event, waits for it and sets `milliseconds` to the
  /// time between the two events. Returns false and sets `why` on failure.
  bool stop(float &milliseconds, std::string *why = nullptr);

private:
  void *startEvent = nullptr;
  void *stopEvent = nullptr;
};

//===----------------------------------------------------------------------===//
// The mgpu* ABI that MLIR 22 emits (checked against Debian's MLIR 22.1.8).
//
// Handles (module, function, stream, event) are the driver's CUmodule,
// CUfunction, CUstream and CUevent; device pointers are CUdeviceptr values.
// `index` arguments are intptr_t (i64); MLIR passes i1/bool as i8.
//===----------------------------------------------------------------------===//

extern "C" {

// Emitted by the translation of gpu.binary (global constructors/destructors
// load and unload each binary) and gpu.launch_func (SelectObjectAttr.cpp).

/// A cubin or fatbin (gpu.binary format bin/fatbin): `size` bytes.
GMM_CUDA_RUNTIME_EXPORT void *mgpuModuleLoad(void *data, uint64_t size);
/// NUL-terminated PTX (gpu.binary format assembly), JIT-compiled at
/// optimization level `optLevel` (the object's "O" property, default 0;
/// clamped to the driver's 0..4).
GMM_CUDA_RUNTIME_EXPORT void *mgpuModuleLoadJIT(void *data, int32_t optLevel);
GMM_CUDA_RUNTIME_EXPORT void mgpuModuleUnload(void *module);
GMM_CUDA_RUNTIME_EXPORT void *mgpuModuleGetFunction(void *module,
                                                    const char *name);
/// `params` points to `paramsCount` pointers to the kernel's arguments.
GMM_CUDA_RUNTIME_EXPORT void
mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                 intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                 int32_t sharedMemBytes, void *stream, void **params,
                 void **extra, uint64_t paramsCount);
/// gpu.launch_func with `clusters in (...)` (sm_90+), through cuLaunchKernelEx.
GMM_CUDA_RUNTIME_EXPORT void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                        void **params, void **extra);

// Emitted by gpu-to-llvm (GPUToLLVMConversion.cpp).

GMM_CUDA_RUNTIME_EXPORT void *mgpuStreamCreate();
GMM_CUDA_RUNTIME_EXPORT void mgpuStreamDestroy(void *stream);
GMM_CUDA_RUNTIME_EXPORT void mgpuStreamSynchronize(void *stream);
GMM_CUDA_RUNTIME_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
GMM_CUDA_RUNTIME_EXPORT void *mgpuEventCreate();
GMM_CUDA_RUNTIME_EXPORT void mgpuEventDestroy(void *event);
GMM_CUDA_RUNTIME_EXPORT void mgpuEventSynchronize(void *event);
GMM_CUDA_RUNTIME_EXPORT void mgpuEventRecord(void *event, void *stream);
/// Device memory, or managed memory (cuMemAllocManaged) when `isHostShared`
/// (gpu.alloc host_shared). Synchronous; `stream` is unused.
GMM_CUDA_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                           uint8_t isHostShared);
/// Synchronous; `stream` is unused.
GMM_CUDA_RUNTIME_EXPORT void mgpuMemFree(void *ptr, void *stream);
/// Copies `sizeBytes` bytes in any direction (unified addressing), ordered on
/// `stream`.
GMM_CUDA_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src,
                                        uint64_t sizeBytes, void *stream);
/// Sets `count` 32-bit (16-bit) elements, ordered on `stream`.
GMM_CUDA_RUNTIME_EXPORT void mgpuMemset32(void *dst, uint32_t value,
                                          uint64_t count, void *stream);
GMM_CUDA_RUNTIME_EXPORT void mgpuMemset16(void *dst, uint16_t value,
                                          uint64_t count, void *stream);
/// Page-locks (unlocks) the dense host memory of a ranked memref descriptor
/// of rank `rank` (gpu.host_register / gpu.host_unregister).
GMM_CUDA_RUNTIME_EXPORT void
mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                          int64_t elementSizeBytes);
GMM_CUDA_RUNTIME_EXPORT void
mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                            int64_t elementSizeBytes);
/// Sets the calling thread's default device. Needs no driver: an invalid
/// ordinal is reported by the next call that uses the device.
GMM_CUDA_RUNTIME_EXPORT void mgpuSetDefaultDevice(int32_t device);

// Emitted by nvgpu-to-nvvm for nvgpu.tma.create.descriptor (NVGPUToNVVM.cpp).

/// Encodes a tiled TMA descriptor (cuTensorMapEncodeTiled) for the ranked
/// memref descriptor `descriptor` of rank 1..5 and box `boxDims` (outermost
/// first), copies it to device memory and returns that device pointer.
GMM_CUDA_RUNTIME_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims);

// Not emitted by MLIR; kept for hand-written code, as in MLIR's wrappers.

GMM_CUDA_RUNTIME_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
GMM_CUDA_RUNTIME_EXPORT void mgpuMemHostUnregister(void *ptr);

} // extern "C"

#endif // GMM_RUNTIME_CUDARUNTIME_H
