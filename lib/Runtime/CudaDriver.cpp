//===- CudaDriver.cpp - Loading the CUDA driver with dlopen ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

using namespace gmm::cuda;

namespace {

/// The default library: the driver's soname. The toolkit's stub is named
/// libcuda.so (and lives in a `stubs` directory), so the default never finds
/// it; a stub reached through GMM_CUDA_DRIVER_LIBRARY or a misplaced
/// libcuda.so.1 is recognized by its directory or by cuInit's
/// CUDA_ERROR_STUB_LIBRARY.
constexpr const char *kDriverSoname = "libcuda.so.1";

/// Names of the errors a driver-less process may need to describe, for when
/// cuGetErrorName/cuGetErrorString are not available.
struct KnownError {
  CUresult code;
  const char *name;
  const char *description;
};
constexpr KnownError kKnownErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

/// Describes `error` with the driver's names when `driver` is not null, and
/// with the simulated GPU's account of it where it gives one.
std::string describeWith(const Driver *driver, CUresult error) {
  if (driver) {
    const char *name = nullptr, *description = nullptr;
    driver->cuGetErrorName(error, &name);
    driver->cuGetErrorString(error, &description);
    std::string detail;
    if (driver->gmmSimGetErrorDetail && error != CUDA_SUCCESS)
      if (const char *text = driver->gmmSimGetErrorDetail(); text && *text)
        detail = std::string(": ") + text;
    if (name && description)
      return std::string(name) + " (" + description + ")" + detail;
  }
  for (const KnownError &known : kKnownErrors)
    if (known.code == error)
      return std::string(known.name) + " (" + known.description + ")";
  return "CUDA error " + std::to_string(error);
}

/// Resolves `name`, or else `fallback` when given, into `fn`.
template <typename Fn>
bool resolve(void *library, Fn &fn, const char *name,
             const char *fallback = nullptr) {
  void *symbol = dlsym(library, name);
  if (!symbol && fallback)
    symbol = dlsym(library, fallback);
  fn = reinterpret_cast<Fn>(symbol);
  return symbol != nullptr;
}

/// The path of the object `library` was loaded from, or `name`.
std::string loadedPath(void *library, const char *name) {
  struct link_map *map = nullptr;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name &&
      *map->l_name)
    return map->l_name;
  return name;
}

bool isInStubsDirectory(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return false;
  std::string dir = path.substr(0, slash);
  size_t parent = dir.rfind('/');
  std::string last = parent == std::string::npos ? dir : dir.substr(parent + 1);
  return last == "stubs";
}

/// Resolves every function of `driver`; returns the first missing required
/// name, or null.
const char *resolveAll(void *lib, Driver &d) {
#define GMM_REQUIRE(member, ...)                                               \
  if (!resolve(lib, d.member, __VA_ARGS__))                                    \
    return #member;
  GMM_REQUIRE(cuInit, "cuInit")
  GMM_REQUIRE(cuDriverGetVersion, "cuDriverGetVersion")
  GMM_REQUIRE(cuGetErrorName, "cuGetErrorName")
  GMM_REQUIRE(cuGetErrorString, "cuGetErrorString")
  GMM_REQUIRE(cuDeviceGetCount, "cuDeviceGetCount")
  GMM_REQUIRE(cuDeviceGet, "cuDeviceGet")
  GMM_REQUIRE(cuDeviceGetName, "cuDeviceGetName")
  GMM_REQUIRE(cuDeviceGetAttribute, "cuDeviceGetAttribute")
  GMM_REQUIRE(cuDeviceTotalMem, "cuDeviceTotalMem_v2")
  GMM_REQUIRE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  GMM_REQUIRE(cuCtxGetCurrent, "cuCtxGetCurrent")
  GMM_REQUIRE(cuCtxPushCurrent, "cuCtxPushCurrent_v2")
  GMM_REQUIRE(cuCtxPopCurrent, "cuCtxPopCurrent_v2")
  GMM_REQUIRE(cuCtxSynchronize, "cuCtxSynchronize")
  GMM_REQUIRE(cuModuleLoadDataEx, "cuModuleLoadDataEx")
  GMM_REQUIRE(cuModuleUnload, "cuModuleUnload")
  GMM_REQUIRE(cuModuleGetFunction, "cuModuleGetFunction")
  GMM_REQUIRE(cuFuncGetAttribute, "cuFuncGetAttribute")
  GMM_REQUIRE(cuFuncSetAttribute, "cuFuncSetAttribute")
  GMM_REQUIRE(cuLaunchKernel, "cuLaunchKernel")
  GMM_REQUIRE(cuStreamCreate, "cuStreamCreate")
  GMM_REQUIRE(cuStreamDestroy, "cuStreamDestroy_v2")
  GMM_REQUIRE(cuStreamSynchronize, "cuStreamSynchronize")
  GMM_REQUIRE(cuStreamWaitEvent, "cuStreamWaitEvent")
  GMM_REQUIRE(cuEventCreate, "cuEventCreate")
  GMM_REQUIRE(cuEventDestroy, "cuEventDestroy_v2")
  GMM_REQUIRE(cuEventRecord, "cuEventRecord")
  GMM_REQUIRE(cuEventSynchronize, "cuEventSynchronize")
  // cuda.h maps cuEventElapsedTime to the _v2 that CUDA 12.8 introduced;
  // older drivers only have the original.
  GMM_REQUIRE(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime")
  GMM_REQUIRE(cuMemAlloc, "cuMemAlloc_v2")
  GMM_REQUIRE(cuMemAllocManaged, "cuMemAllocManaged")
  GMM_REQUIRE(cuMemFree, "cuMemFree_v2")
  GMM_REQUIRE(cuMemcpyAsync, "cuMemcpyAsync")
  GMM_REQUIRE(cuMemcpyHtoD, "cuMemcpyHtoD_v2")
  GMM_REQUIRE(cuMemsetD16Async, "cuMemsetD16Async")
  GMM_REQUIRE(cuMemsetD32Async, "cuMemsetD32Async")
  GMM_REQUIRE(cuMemHostRegister, "cuMemHostRegister_v2")
  GMM_REQUIRE(cuMemHostUnregister, "cuMemHostUnregister")
#undef GMM_REQUIRE
  resolve(lib, d.cuLaunchKernelEx, "cuLaunchKernelEx");
  resolve(lib, d.cuMemAllocAsync, "cuMemAllocAsync");
  resolve(lib, d.cuMemFreeAsync, "cuMemFreeAsync");
  resolve(lib, d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  resolve(lib, d.gmmSimGetErrorDetail, "gmmSimGetErrorDetail");
  resolve(lib, d.gmmSimVersion, "gmmSimVersion");
  resolve(lib, d.gmmSimClearError, "gmmSimClearError");
  return nullptr;
}

DriverState *loadDriver() {
  auto *state = new DriverState();
  const char *override = std::getenv("GMM_CUDA_DRIVER_LIBRARY");
  const char *name = override && *override ? override : kDriverSoname;

  dlerror();
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *error = dlerror();
    if (!error || std::strstr(error, "No such file"))
      state->failure = std::string("no CUDA driver (") + name + " not found)";
    else
      state->failure = std::string("no CUDA driver (cannot load ") + name +
                       ": " + error + ")";
    return state;
  }
  state->libraryPath = loadedPath(lib, name);
  auto fail = [&](std::string reason) {
    state->failure = std::move(reason);
    dlclose(lib);
    return state;
  };
  std::string stubReason = "no CUDA driver (" + state->libraryPath +
                           " is the CUDA toolkit's stub library, which is "
                           "for linking only)";
  if (isInStubsDirectory(state->libraryPath))
    return fail(stubReason);

  auto *driver = new Driver();
  if (const char *missing = resolveAll(lib, *driver)) {
    delete driver;
    return fail("the CUDA driver " + state->libraryPath + " lacks " + missing +
                " (driver too old?)");
  }
  CUresult result = driver->cuInit(0);
  if (result == CUDA_ERROR_STUB_LIBRARY) {
    delete driver;
    return fail(stubReason);
  }
  if (result == CUDA_ERROR_NO_DEVICE) {
    delete driver;
    return fail("no CUDA device");
  }
  auto describe = [&](CUresult error) { return describeWith(driver, error); };
  if (result != CUDA_SUCCESS) {
    std::string reason =
        "CUDA driver initialization failed: cuInit: " + describe(result);
    delete driver;
    return fail(reason);
  }
  int count = 0;
  result = driver->cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS) {
    std::string reason =
        "cannot count CUDA devices: cuDeviceGetCount: " + describe(result);
    delete driver;
    return fail(reason);
  }
  if (count <= 0) {
    delete driver;
    return fail("no CUDA device");
  }
  // Success: the library and the table stay for the life of the process.
  state->driver = driver;
  state->simulated = driver->gmmSimVersion != nullptr;
  state->deviceCount = count;
  return state;
}

std::atomic<bool> driverLoaded{false};

} // namespace

const DriverState &gmm::cuda::getDriverState() {
  // Never destroyed: mgpu* calls may come from global destructors of JIT
  // compiled code (module unloads) after this library's statics are gone.
  static const DriverState *state = [] {
    driverLoaded = true;
    return loadDriver();
  }();
  return *state;
}

bool gmm::cuda::isDriverLoaded() { return driverLoaded.load(); }

std::string gmm::cuda::findSimulatorLibrary(std::string *why) {
  // This library's directory: the build's lib/ or the install's.
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&findSimulatorLibrary), &info) ||
      !info.dli_fname) {
    if (why)
      *why = "cannot locate libgmm_cuda_runtime.so";
    return "";
  }
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string simulator = dir + "/libgmm_cuda_sim.so";
  if (access(simulator.c_str(), R_OK) != 0) {
    if (why)
      *why = "the simulated GPU " + simulator + " is not there";
    return "";
  }
  return simulator;
}

std::string gmm::cuda::describeError(CUresult error) {
  return describeWith(getDriverState().driver, error);
}
