//===- CudaRuntime.cpp - MLIR's mgpu* runtime over the CUDA driver --------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The mgpu* entry points that MLIR 22 emits, and the C++ helpers of
// gmm/Runtime/CudaRuntime.h, over the driver table of CudaDriver.h. See the
// header for the behaviour on errors and without a driver.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runtime/CudaRuntime.h"

#include "CudaDriver.h"

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <unistd.h>
#include <unordered_set>

using namespace gmm::cuda;

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

constexpr const char *kPrefix = "gmm-cuda-runtime: error: ";

/// Print (as MLIR's own CUDA runtime wrappers do), unless
/// GMM_CUDA_RUNTIME_ON_ERROR=abort asks for Abort.
GmmCudaErrorMode initialErrorMode() {
  const char *mode = std::getenv("GMM_CUDA_RUNTIME_ON_ERROR");
  return mode && std::string(mode) == "abort" ? GmmCudaErrorMode::Abort
                                              : GmmCudaErrorMode::Print;
}

std::atomic<GmmCudaErrorMode> errorMode{initialErrorMode()};

/// Set when an error was printed in Print mode: the process's exit status is
/// then 1 (see exitWithFailure).
std::atomic<bool> printedError{false};

/// The sticky error last printed in Print mode, or CUDA_SUCCESS.
std::atomic<CUresult> printedStickyError{CUDA_SUCCESS};

/// Whether `result` is an error that the context keeps (a kernel's fault, on
/// a GPU and on gmm's simulated GPU alike): every later driver call returns
/// it too, and says nothing new.
bool isStickyError(CUresult result) {
  switch (result) {
  case 700: // CUDA_ERROR_ILLEGAL_ADDRESS
  case 702: // CUDA_ERROR_LAUNCH_TIMEOUT
  case 710: // CUDA_ERROR_ASSERT
  case 714: // CUDA_ERROR_HARDWARE_STACK_ERROR
  case 715: // CUDA_ERROR_ILLEGAL_INSTRUCTION
  case 716: // CUDA_ERROR_MISALIGNED_ADDRESS
  case 717: // CUDA_ERROR_INVALID_ADDRESS_SPACE
  case 718: // CUDA_ERROR_INVALID_PC
  case 719: // CUDA_ERROR_LAUNCH_FAILED
    return true;
  default:
    return false;
  }
}

/// At process exit (the library is never unloaded: -z nodelete), after the
/// exit handlers and static destructors of the program and its libraries
/// have run: a program that printed a CUDA error in Print mode exits with
/// status 1, whatever status it exits with, so that a script running it
/// (mlir-runner, a test) sees the failure. Abort mode aborts instead;
/// Record mode leaves the status to the program.
__attribute__((destructor)) void exitWithFailure() {
  if (!printedError.load())
    return;
  std::fflush(nullptr);
  _exit(1);
}

/// The error kept in Record mode. Never destroyed (see getDriverState).
struct RecordedError {
  std::mutex mutex;
  bool present = false;
  std::string message;
  std::string detail;
  unsigned suppressed = 0;
};
RecordedError &getRecordedError() {
  static RecordedError *recorded = new RecordedError();
  return *recorded;
}

/// Where the failures of one operation go: through the error mode (an mgpu*
/// entry point), or to the caller's `why` (a C++ helper).
class Reporter {
public:
  /// For the mgpu* entry point `entry`.
  explicit Reporter(const char *entry) : entry(entry) {}
  /// For a helper that returns its failure in `why` (which may be null).
  Reporter(const char *entry, std::string *why)
      : entry(entry), why(why), toCaller(true) {}

  /// Reports `message` (one line), followed by `detail` (any number of lines,
  /// e.g. a JIT log) where it goes to stderr. `result` is the driver's error
  /// behind it, if any: in Print mode, a sticky error (isStickyError) is
  /// printed once, not again by every later call that returns it.
  void fail(const std::string &message, const std::string &detail = "",
            CUresult result = CUDA_SUCCESS) const;

  /// Reports `call` failing with `result`; returns whether it succeeded.
  bool check(CUresult result, const char *call) const {
    if (result == CUDA_SUCCESS)
      return true;
    fail(std::string(call) + " failed: " + describeError(result), "", result);
    return false;
  }

  /// Like check(), but accepts CUDA_ERROR_DEINITIALIZED: destroying things
  /// from global destructors after the driver shut down is not an error.
  bool checkRelease(CUresult result, const char *call) const {
    return result == CUDA_ERROR_DEINITIALIZED || check(result, call);
  }

  /// The driver, or null after reporting why there is none.
  const Driver *driver() const {
    const DriverState &state = getDriverState();
    if (!state.driver)
      fail(state.failure);
    return state.driver;
  }

private:
  const char *entry;
  std::string *why = nullptr;
  bool toCaller = false;
};

void Reporter::fail(const std::string &message, const std::string &detail,
                    CUresult result) const {
  if (toCaller) {
    if (why)
      *why = message;
    return;
  }
  GmmCudaErrorMode mode = errorMode.load();
  if (mode == GmmCudaErrorMode::Print) {
    printedError.store(true);
    // The context keeps a kernel's fault: the calls after the one that
    // reported it fail with it too, and are not printed again.
    if (isStickyError(result) && printedStickyError.exchange(result) == result)
      return;
  }
  std::string line = std::string(kPrefix) + entry + ": " + message + "\n";
  if (!detail.empty()) {
    line += detail;
    if (detail.back() != '\n')
      line += '\n';
  }
  if (mode != GmmCudaErrorMode::Record) {
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    if (mode == GmmCudaErrorMode::Abort)
      std::abort();
    return;
  }
  RecordedError &recorded = getRecordedError();
  std::lock_guard<std::mutex> lock(recorded.mutex);
  if (recorded.present) {
    ++recorded.suppressed;
    return;
  }
  recorded.present = true;
  recorded.message = std::string(entry) + ": " + message;
  recorded.detail = detail;
  recorded.suppressed = 0;
}

//===----------------------------------------------------------------------===//
// Devices and contexts
//===----------------------------------------------------------------------===//

/// The calling thread's default device (mgpuSetDefaultDevice).
thread_local int32_t defaultDevice = 0;

/// The primary contexts retained so far, by ordinal. Retained once and
/// never released: the driver releases them at process exit.
constexpr int kMaxDevices = 64;
std::atomic<CUcontext> primaryContexts[kMaxDevices];

std::mutex &getContextMutex() {
  static std::mutex *mutex = new std::mutex();
  return *mutex;
}

/// The primary context of device `ordinal`, or null after reporting why not.
CUcontext getPrimaryContext(const Driver &d, int ordinal,
                            const Reporter &report) {
  const DriverState &state = getDriverState();
  if (ordinal < 0 || ordinal >= state.deviceCount || ordinal >= kMaxDevices) {
    report.fail("invalid device ordinal " + std::to_string(ordinal) + " (" +
                std::to_string(state.deviceCount) + " CUDA device" +
                (state.deviceCount == 1 ? "" : "s") + ")");
    return nullptr;
  }
  if (CUcontext context = primaryContexts[ordinal].load())
    return context;
  std::lock_guard<std::mutex> lock(getContextMutex());
  if (CUcontext context = primaryContexts[ordinal].load())
    return context;
  CUdevice device = 0;
  CUcontext context = nullptr;
  if (!report.check(d.cuDeviceGet(&device, ordinal), "cuDeviceGet") ||
      !report.check(d.cuDevicePrimaryCtxRetain(&context, device),
                    "cuDevicePrimaryCtxRetain"))
    return nullptr;
  primaryContexts[ordinal].store(context);
  return context;
}

/// Makes the primary context of the calling thread's default device current
/// for its lifetime, and restores the previous one afterwards.
class ScopedContext {
public:
  /// What to do when the driver has already shut down (global destructors of
  /// JIT-compiled code run at process exit): Report it as an error, or Skip
  /// quietly (for releasing things, which the shutdown released already).
  enum AtShutdown { Report, Skip };

  ScopedContext(const Driver &d, const Reporter &report,
                AtShutdown atShutdown = Report)
      : d(d) {
    CUcontext current = nullptr;
    CUresult probe = d.cuCtxGetCurrent(&current);
    if (probe == CUDA_ERROR_DEINITIALIZED && atShutdown == Skip)
      return;
    context = getPrimaryContext(d, defaultDevice, report);
    if (!context)
      return;
    if (probe == CUDA_SUCCESS && current == context)
      return;
    if (!report.check(d.cuCtxPushCurrent(context), "cuCtxPushCurrent")) {
      context = nullptr;
      return;
    }
    pushed = true;
  }
  ~ScopedContext() {
    if (pushed) {
      CUcontext popped = nullptr;
      d.cuCtxPopCurrent(&popped);
    }
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

  explicit operator bool() const { return context != nullptr; }
  CUcontext get() const { return context; }

private:
  const Driver &d;
  CUcontext context = nullptr;
  bool pushed = false;
};

/// The shape of the entry points that make one driver call: find the driver
/// (reporting that there is none), stop if there is `nothingToDo`, make the
/// default device's primary context current, make the call and report its
/// failure. With ScopedContext::Skip (destroying, freeing, unregistering) a
/// driver that already shut down is not an error.
template <typename Call>
void callInContext(const char *entry, const char *callName, Call &&call,
                   ScopedContext::AtShutdown atShutdown = ScopedContext::Report,
                   bool nothingToDo = false) {
  Reporter report(entry);
  const Driver *d = report.driver();
  if (!d || nothingToDo)
    return;
  ScopedContext scope(*d, report, atShutdown);
  if (!scope)
    return;
  CUresult result = call(*d);
  if (atShutdown == ScopedContext::Skip)
    report.checkRelease(result, callName);
  else
    report.check(result, callName);
}

/// Like callInContext, for the entry points that create a handle: `call`
/// fills it in; null when anything fails.
template <typename Handle, typename Call>
void *createInContext(const char *entry, const char *callName, Call &&call) {
  Reporter report(entry);
  const Driver *d = report.driver();
  if (!d)
    return nullptr;
  ScopedContext scope(*d, report);
  if (!scope)
    return nullptr;
  Handle handle = nullptr;
  if (!report.check(call(*d, &handle), callName))
    return nullptr;
  return handle;
}

CUdeviceptr toDevicePtr(const void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}
void *fromDevicePtr(CUdeviceptr ptr) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
}

/// The allocations made in stream order (cuMemAllocAsync), which
/// mgpuMemFree frees in stream order too; everything else is freed with
/// cuMemFree, which waits for the work that may use it.
struct StreamOrderedAllocations {
  std::mutex mutex;
  std::unordered_set<void *> pointers;
};
StreamOrderedAllocations &streamOrdered() {
  static auto *allocations = new StreamOrderedAllocations();
  return *allocations;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Loads a module from `data` with the JIT options `options`/`values`
/// (followed by the error log options added here).
void *loadModule(const char *entry, const void *data, CUjit_option *options,
                 void **values, unsigned numOptions) {
  Reporter report(entry);
  const Driver *d = report.driver();
  if (!d)
    return nullptr;
  if (!data) {
    report.fail("no GPU binary (null pointer)");
    return nullptr;
  }
  ScopedContext scope(*d, report);
  if (!scope)
    return nullptr;
  constexpr size_t kLogSize = 16384;
  static thread_local char errorLog[kLogSize];
  errorLog[0] = '\0';
  CUjit_option allOptions[8];
  void *allValues[8];
  unsigned n = 0;
  for (; n < numOptions && n < 6; ++n) {
    allOptions[n] = options[n];
    allValues[n] = values[n];
  }
  allOptions[n] = CU_JIT_ERROR_LOG_BUFFER;
  allValues[n++] = errorLog;
  allOptions[n] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
  allValues[n++] = reinterpret_cast<void *>(static_cast<uintptr_t>(kLogSize));
  CUmodule module = nullptr;
  CUresult result =
      d->cuModuleLoadDataEx(&module, data, n, allOptions, allValues);
  if (result != CUDA_SUCCESS) {
    errorLog[kLogSize - 1] = '\0';
    report.fail("cuModuleLoadDataEx failed: " + describeError(result), errorLog,
                result);
    return nullptr;
  }
  return module;
}

bool validLaunchDim(intptr_t value) {
  return value >= 1 && static_cast<uintmax_t>(value) <= UINT_MAX;
}

/// Checks the launch dimensions and raises the kernel's dynamic shared memory
/// limit to `sharedMemBytes` when needed (above 48 KiB minus its static
/// shared memory, kernels must opt in).
bool prepareLaunch(const Driver &d, const Reporter &report, CUfunction f,
                   const intptr_t grid[3], const intptr_t block[3],
                   int32_t sharedMemBytes) {
  if (!f) {
    report.fail("no kernel function (null handle)");
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    if (!validLaunchDim(grid[i]) || !validLaunchDim(block[i])) {
      char buffer[256];
      std::snprintf(
          buffer, sizeof(buffer),
          "invalid launch dimensions: grid (%jd, %jd, %jd), block "
          "(%jd, %jd, %jd)",
          static_cast<intmax_t>(grid[0]), static_cast<intmax_t>(grid[1]),
          static_cast<intmax_t>(grid[2]), static_cast<intmax_t>(block[0]),
          static_cast<intmax_t>(block[1]), static_cast<intmax_t>(block[2]));
      report.fail(buffer);
      return false;
    }
  }
  if (sharedMemBytes < 0) {
    report.fail("negative dynamic shared memory size " +
                std::to_string(sharedMemBytes));
    return false;
  }
  if (sharedMemBytes == 0)
    return true;
  int limit = 0;
  if (!report.check(
          d.cuFuncGetAttribute(
              &limit, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f),
          "cuFuncGetAttribute"))
    return false;
  if (sharedMemBytes <= limit)
    return true;
  CUresult result = d.cuFuncSetAttribute(
      f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sharedMemBytes);
  if (result == CUDA_SUCCESS)
    return true;
  // Say what the device allows.
  int staticBytes = 0, optin = 0;
  CUdevice device = 0;
  d.cuFuncGetAttribute(&staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  if (d.cuDeviceGet(&device, defaultDevice) == CUDA_SUCCESS)
    d.cuDeviceGetAttribute(
        &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
  report.fail("cannot give the kernel " + std::to_string(sharedMemBytes) +
                  " bytes of dynamic shared memory (it has " +
                  std::to_string(staticBytes) +
                  " bytes of static shared memory; the device allows " +
                  std::to_string(optin) +
                  " bytes per block): " + describeError(result),
              "", result);
  return false;
}

//===----------------------------------------------------------------------===//
// Host memory of memref descriptors
//===----------------------------------------------------------------------===//

/// The start and byte extent of the elements of a ranked memref descriptor
/// (allocated, aligned, offset, sizes[rank], strides[rank]). The extent spans
/// the first to the last element; it is 0 for an empty memref. Returns false
/// for a negative stride or rank.
bool getMemRefExtent(int64_t rank, void *descriptor, int64_t elementSize,
                     char *&start, uint64_t &bytes) {
  struct Header {
    char *allocated;
    char *aligned;
    int64_t offset;
  };
  if (rank < 0 || elementSize <= 0 || !descriptor)
    return false;
  auto *header = static_cast<Header *>(descriptor);
  auto *sizes = reinterpret_cast<int64_t *>(header + 1);
  int64_t *strides = sizes + rank;
  start = header->aligned + header->offset * elementSize;
  uint64_t lastElement = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] < 0 || strides[i] < 0)
      return false;
    if (sizes[i] == 0) {
      bytes = 0;
      return true;
    }
    lastElement +=
        static_cast<uint64_t>(sizes[i] - 1) * static_cast<uint64_t>(strides[i]);
  }
  bytes = (lastElement + 1) * static_cast<uint64_t>(elementSize);
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// C++ helpers
//===----------------------------------------------------------------------===//

bool gmmCudaAvailable(std::string *why) {
  const DriverState &state = getDriverState();
  if (!state.driver && why)
    *why = state.failure;
  return state.driver != nullptr;
}

int gmmCudaDeviceCount() { return getDriverState().deviceCount; }

/// Whether gmmCudaUseSimulator chose sm_90a.
static bool &archSpecificSimulator() {
  static bool chosen = false;
  return chosen;
}

bool gmmCudaUseSimulator(const std::string &chip, const std::string &checks,
                         std::string *why) {
  auto fail = [&](const std::string &message) {
    if (why)
      *why = message;
    return false;
  };
  if (!chip.empty() && chip != "sm_80" && chip != "sm_90" && chip != "sm_90a")
    return fail("the simulated GPU is an sm_80, sm_90 or sm_90a device, not '" +
                chip + "'");
  if (isDriverLoaded())
    return fail("a CUDA driver is already loaded");
  std::string library = findSimulatorLibrary(why);
  if (library.empty())
    return false;
  setenv("GMM_CUDA_DRIVER_LIBRARY", library.c_str(), 1);
  // sm_90a is an sm_90 device (compute capability 9.0, as a GPU reports)
  // for which code is compiled with the architecture-specific features
  // (wgmma, setmaxnreg): GmmCudaDeviceInfo::chip() says so.
  if (!chip.empty())
    setenv("GMM_SIM_ARCH", chip == "sm_90a" ? "sm_90" : chip.c_str(), 1);
  archSpecificSimulator() = chip == "sm_90a";
  if (!checks.empty())
    setenv("GMM_SIM_CHECKS", checks.c_str(), 1);
  return true;
}

std::string GmmCudaDeviceInfo::chip() const {
  std::string name = "sm_" + std::to_string(computeCapabilityMajor) +
                     std::to_string(computeCapabilityMinor);
  if (archSpecificSimulator() && name == "sm_90")
    name += "a";
  return name;
}

bool gmmCudaGetDeviceInfo(int ordinal, GmmCudaDeviceInfo &info,
                          std::string *why) {
  Reporter report("gmmCudaGetDeviceInfo", why);
  const Driver *d = report.driver();
  if (!d)
    return false;
  const DriverState &state = getDriverState();
  if (ordinal < 0 || ordinal >= state.deviceCount) {
    report.fail("invalid device ordinal " + std::to_string(ordinal));
    return false;
  }
  CUdevice device = 0;
  if (!report.check(d->cuDeviceGet(&device, ordinal), "cuDeviceGet"))
    return false;
  GmmCudaDeviceInfo result;
  result.ordinal = ordinal;
  char name[256] = {0};
  size_t totalBytes = 0;
  if (!report.check(d->cuDeviceGetName(name, sizeof(name) - 1, device),
                    "cuDeviceGetName") ||
      !report.check(d->cuDeviceTotalMem(&totalBytes, device),
                    "cuDeviceTotalMem") ||
      !report.check(d->cuDriverGetVersion(&result.driverVersion),
                    "cuDriverGetVersion"))
    return false;
  result.name = name;
  result.totalMemoryBytes = totalBytes;
  result.simulated = getDriverState().simulated;
  struct {
    int attribute;
    int *value;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
       &result.computeCapabilityMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
       &result.computeCapabilityMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &result.multiProcessorCount},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &result.maxSharedMemoryPerBlockOptin},
  };
  for (auto &attribute : attributes)
    if (!report.check(d->cuDeviceGetAttribute(attribute.value,
                                              attribute.attribute, device),
                      "cuDeviceGetAttribute"))
      return false;
  info = std::move(result);
  return true;
}

GmmCudaErrorMode gmmCudaSetErrorMode(GmmCudaErrorMode mode) {
  return errorMode.exchange(mode);
}

bool gmmCudaTakeError(std::string *message, std::string *detail) {
  RecordedError &recorded = getRecordedError();
  std::lock_guard<std::mutex> lock(recorded.mutex);
  if (!recorded.present)
    return false;
  if (message) {
    *message = recorded.message;
    if (recorded.suppressed)
      *message += " (and " + std::to_string(recorded.suppressed) +
                  " more error" + (recorded.suppressed == 1 ? "" : "s") + ")";
  }
  if (detail)
    *detail = recorded.detail;
  recorded.present = false;
  recorded.message.clear();
  recorded.detail.clear();
  recorded.suppressed = 0;
  return true;
}

bool gmmCudaClearDeviceError() {
  const Driver *d = getDriverState().driver;
  if (!d || !d->gmmSimClearError)
    return false;
  d->gmmSimClearError();
  return true;
}

bool gmmCudaSynchronize(std::string *why) {
  Reporter report("gmmCudaSynchronize", why);
  const Driver *d = report.driver();
  if (!d)
    return false;
  ScopedContext scope(*d, report);
  return scope && report.check(d->cuCtxSynchronize(), "cuCtxSynchronize");
}

GmmCudaEventTimer::~GmmCudaEventTimer() {
  const Driver *d = getDriverState().driver;
  if (!d)
    return;
  if (startEvent)
    d->cuEventDestroy(static_cast<CUevent>(startEvent));
  if (stopEvent)
    d->cuEventDestroy(static_cast<CUevent>(stopEvent));
}

bool GmmCudaEventTimer::start(std::string *why) {
  Reporter report("GmmCudaEventTimer::start", why);
  const Driver *d = report.driver();
  if (!d)
    return false;
  ScopedContext scope(*d, report);
  if (!scope)
    return false;
  for (void **event : {&startEvent, &stopEvent}) {
    if (*event)
      continue;
    CUevent created = nullptr;
    if (!report.check(d->cuEventCreate(&created, CU_EVENT_DEFAULT),
                      "cuEventCreate"))
      return false;
    *event = created;
  }
  return report.check(
      d->cuEventRecord(static_cast<CUevent>(startEvent), nullptr),
      "cuEventRecord");
}

bool GmmCudaEventTimer::stop(float &milliseconds, std::string *why) {
  Reporter report("GmmCudaEventTimer::stop", why);
  if (!startEvent || !stopEvent) {
    report.fail("the timer was not started");
    return false;
  }
  const Driver *d = report.driver();
  if (!d)
    return false;
  ScopedContext scope(*d, report);
  if (!scope)
    return false;
  auto *start = static_cast<CUevent>(startEvent);
  auto *stop = static_cast<CUevent>(stopEvent);
  return report.check(d->cuEventRecord(stop, nullptr), "cuEventRecord") &&
         report.check(d->cuEventSynchronize(stop), "cuEventSynchronize") &&
         report.check(d->cuEventElapsedTime(&milliseconds, start, stop),
                      "cuEventElapsedTime");
}

//===----------------------------------------------------------------------===//
// The mgpu* entry points
//===----------------------------------------------------------------------===//

extern "C" {

void *mgpuModuleLoad(void *data, uint64_t size) {
  if (size == 0) {
    Reporter("mgpuModuleLoad").fail("empty GPU binary");
    return nullptr;
  }
  return loadModule("mgpuModuleLoad", data, nullptr, nullptr, 0);
}

void *mgpuModuleLoadJIT(void *data, int32_t optLevel) {
  int32_t level = optLevel < 0 ? 0 : optLevel > 4 ? 4 : optLevel;
  CUjit_option option = CU_JIT_OPTIMIZATION_LEVEL;
  void *value = reinterpret_cast<void *>(static_cast<uintptr_t>(level));
  return loadModule("mgpuModuleLoadJIT", data, &option, &value, 1);
}

void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  callInContext(
      "mgpuModuleUnload", "cuModuleUnload",
      [&](const Driver &d) {
        return d.cuModuleUnload(static_cast<CUmodule>(module));
      },
      ScopedContext::Skip);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Reporter report("mgpuModuleGetFunction");
  const Driver *d = report.driver();
  if (!d)
    return nullptr;
  if (!module) {
    report.fail(std::string("no module (null handle) to find kernel '") +
                (name ? name : "") + "' in");
    return nullptr;
  }
  CUfunction function = nullptr;
  CUresult result = d->cuModuleGetFunction(
      &function, static_cast<CUmodule>(module), name ? name : "");
  if (result != CUDA_SUCCESS) {
    report.fail(std::string("cuModuleGetFunction failed for kernel '") +
                    (name ? name : "") + "': " + describeError(result),
                "", result);
    return nullptr;
  }
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                      void **params, void **extra, uint64_t /*paramsCount*/) {
  Reporter report("mgpuLaunchKernel");
  const Driver *d = report.driver();
  if (!d)
    return;
  ScopedContext scope(*d, report);
  if (!scope)
    return;
  auto *f = static_cast<CUfunction>(function);
  const intptr_t grid[3] = {gridX, gridY, gridZ};
  const intptr_t block[3] = {blockX, blockY, blockZ};
  if (!prepareLaunch(*d, report, f, grid, block, sharedMemBytes))
    return;
  report.check(d->cuLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY, blockZ,
                                 sharedMemBytes, static_cast<CUstream>(stream),
                                 params, extra),
               "cuLaunchKernel");
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t sharedMemBytes, void *stream,
                             void **params, void **extra) {
  Reporter report("mgpuLaunchClusterKernel");
  const Driver *d = report.driver();
  if (!d)
    return;
  if (!d->cuLaunchKernelEx) {
    report.fail("the CUDA driver lacks cuLaunchKernelEx (cluster launches "
                "need CUDA 12)");
    return;
  }
  ScopedContext scope(*d, report);
  if (!scope)
    return;
  auto *f = static_cast<CUfunction>(function);
  const intptr_t grid[3] = {gridX, gridY, gridZ};
  const intptr_t block[3] = {blockX, blockY, blockZ};
  if (!prepareLaunch(*d, report, f, grid, block, sharedMemBytes))
    return;
  if (!validLaunchDim(clusterX) || !validLaunchDim(clusterY) ||
      !validLaunchDim(clusterZ)) {
    report.fail("invalid cluster dimensions");
    return;
  }
  // Clusters of more than 8 blocks are "non-portable": kernels opt in. (Each
  // dimension is at most UINT_MAX, so the product fits in 128 bits.)
  unsigned __int128 clusterSize = static_cast<unsigned __int128>(clusterX) *
                                  static_cast<uint64_t>(clusterY) *
                                  static_cast<uint64_t>(clusterZ);
  if (clusterSize > 8 &&
      !report.check(
          d->cuFuncSetAttribute(
              f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
          "cuFuncSetAttribute"))
    return;
  CUlaunchAttribute attributes[2] = {};
  attributes[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attributes[0].value.clusterDim.x = static_cast<unsigned>(clusterX);
  attributes[0].value.clusterDim.y = static_cast<unsigned>(clusterY);
  attributes[0].value.clusterDim.z = static_cast<unsigned>(clusterZ);
  attributes[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
  attributes[1].value.clusterSchedulingPolicyPreference =
      CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  CUlaunchConfig config = {};
  config.gridDimX = static_cast<unsigned>(gridX);
  config.gridDimY = static_cast<unsigned>(gridY);
  config.gridDimZ = static_cast<unsigned>(gridZ);
  config.blockDimX = static_cast<unsigned>(blockX);
  config.blockDimY = static_cast<unsigned>(blockY);
  config.blockDimZ = static_cast<unsigned>(blockZ);
  config.sharedMemBytes = static_cast<unsigned>(sharedMemBytes);
  config.hStream = static_cast<CUstream>(stream);
  config.attrs = attributes;
  config.numAttrs = 2;
  report.check(d->cuLaunchKernelEx(&config, f, params, extra),
               "cuLaunchKernelEx");
}

void *mgpuStreamCreate() {
  return createInContext<CUstream>("mgpuStreamCreate", "cuStreamCreate",
                                   [](const Driver &d, CUstream *stream) {
                                     return d.cuStreamCreate(stream,
                                                             CU_STREAM_DEFAULT);
                                   });
}

void mgpuStreamDestroy(void *stream) {
  if (!stream)
    return;
  callInContext(
      "mgpuStreamDestroy", "cuStreamDestroy",
      [&](const Driver &d) {
        return d.cuStreamDestroy(static_cast<CUstream>(stream));
      },
      ScopedContext::Skip);
}

void mgpuStreamSynchronize(void *stream) {
  callInContext("mgpuStreamSynchronize", "cuStreamSynchronize",
                [&](const Driver &d) {
                  return d.cuStreamSynchronize(static_cast<CUstream>(stream));
                });
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  callInContext("mgpuStreamWaitEvent", "cuStreamWaitEvent",
                [&](const Driver &d) {
                  return d.cuStreamWaitEvent(static_cast<CUstream>(stream),
                                             static_cast<CUevent>(event), 0);
                });
}

void *mgpuEventCreate() {
  return createInContext<CUevent>(
      "mgpuEventCreate", "cuEventCreate", [](const Driver &d, CUevent *event) {
        return d.cuEventCreate(event, CU_EVENT_DISABLE_TIMING);
      });
}

void mgpuEventDestroy(void *event) {
  if (!event)
    return;
  callInContext(
      "mgpuEventDestroy", "cuEventDestroy",
      [&](const Driver &d) {
        return d.cuEventDestroy(static_cast<CUevent>(event));
      },
      ScopedContext::Skip);
}

void mgpuEventSynchronize(void *event) {
  callInContext("mgpuEventSynchronize", "cuEventSynchronize",
                [&](const Driver &d) {
                  return d.cuEventSynchronize(static_cast<CUevent>(event));
                });
}

void mgpuEventRecord(void *event, void *stream) {
  callInContext("mgpuEventRecord", "cuEventRecord", [&](const Driver &d) {
    return d.cuEventRecord(static_cast<CUevent>(event),
                           static_cast<CUstream>(stream));
  });
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, uint8_t isHostShared) {
  Reporter report("mgpuMemAlloc");
  const Driver *d = report.driver();
  if (!d || sizeBytes == 0)
    return nullptr;
  ScopedContext scope(*d, report);
  if (!scope)
    return nullptr;
  CUdeviceptr ptr = 0;
  if (isHostShared)
    return report.check(
               d->cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL),
               "cuMemAllocManaged")
               ? fromDevicePtr(ptr)
               : nullptr;
  // On a stream (an async gpu.alloc), allocate in stream order where the
  // driver and device can; CUDA_ERROR_NOT_SUPPORTED (no memory pools) falls
  // back to cuMemAlloc.
  if (stream && d->cuMemAllocAsync) {
    CUresult result =
        d->cuMemAllocAsync(&ptr, sizeBytes, static_cast<CUstream>(stream));
    if (result == CUDA_SUCCESS) {
      StreamOrderedAllocations &ordered = streamOrdered();
      std::lock_guard<std::mutex> lock(ordered.mutex);
      ordered.pointers.insert(fromDevicePtr(ptr));
      return fromDevicePtr(ptr);
    }
    if (result != CUDA_ERROR_NOT_SUPPORTED) {
      report.check(result, "cuMemAllocAsync");
      return nullptr;
    }
  }
  return report.check(d->cuMemAlloc(&ptr, sizeBytes), "cuMemAlloc")
             ? fromDevicePtr(ptr)
             : nullptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  bool ordered = false;
  {
    StreamOrderedAllocations &allocations = streamOrdered();
    std::lock_guard<std::mutex> lock(allocations.mutex);
    ordered = allocations.pointers.erase(ptr) != 0;
  }
  // A stream-ordered allocation is freed when the stream (or, without one,
  // the legacy default stream) reaches this point; any other at once, after
  // the work that may use it.
  callInContext(
      "mgpuMemFree", ordered ? "cuMemFreeAsync" : "cuMemFree",
      [&](const Driver &d) {
        return ordered ? d.cuMemFreeAsync(toDevicePtr(ptr),
                                          static_cast<CUstream>(stream))
                       : d.cuMemFree(toDevicePtr(ptr));
      },
      ScopedContext::Skip);
}

void mgpuMemcpy(void *dst, void *src, uint64_t sizeBytes, void *stream) {
  callInContext(
      "mgpuMemcpy", "cuMemcpyAsync",
      [&](const Driver &d) {
        return d.cuMemcpyAsync(toDevicePtr(dst), toDevicePtr(src), sizeBytes,
                               static_cast<CUstream>(stream));
      },
      ScopedContext::Report, sizeBytes == 0);
}

void mgpuMemset32(void *dst, uint32_t value, uint64_t count, void *stream) {
  callInContext(
      "mgpuMemset32", "cuMemsetD32Async",
      [&](const Driver &d) {
        return d.cuMemsetD32Async(toDevicePtr(dst), value, count,
                                  static_cast<CUstream>(stream));
      },
      ScopedContext::Report, count == 0);
}

void mgpuMemset16(void *dst, uint16_t value, uint64_t count, void *stream) {
  callInContext(
      "mgpuMemset16", "cuMemsetD16Async",
      [&](const Driver &d) {
        return d.cuMemsetD16Async(toDevicePtr(dst), value, count,
                                  static_cast<CUstream>(stream));
      },
      ScopedContext::Report, count == 0);
}

void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  callInContext(
      "mgpuMemHostRegister", "cuMemHostRegister",
      [&](const Driver &d) { return d.cuMemHostRegister(ptr, sizeBytes, 0); },
      ScopedContext::Report, !ptr || sizeBytes == 0);
}

void mgpuMemHostUnregister(void *ptr) {
  callInContext(
      "mgpuMemHostUnregister", "cuMemHostUnregister",
      [&](const Driver &d) { return d.cuMemHostUnregister(ptr); },
      ScopedContext::Skip, !ptr);
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  char *start = nullptr;
  uint64_t bytes = 0;
  if (!getMemRefExtent(rank, descriptor, elementSizeBytes, start, bytes)) {
    Reporter("mgpuMemHostRegisterMemRef")
        .fail("invalid memref descriptor (negative rank, size or stride)");
    return;
  }
  if (bytes == 0)
    return;
  callInContext(
      "mgpuMemHostRegisterMemRef", "cuMemHostRegister",
      [&](const Driver &d) { return d.cuMemHostRegister(start, bytes, 0); });
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  char *start = nullptr;
  uint64_t bytes = 0;
  if (!getMemRefExtent(rank, descriptor, elementSizeBytes, start, bytes)) {
    Reporter("mgpuMemHostUnregisterMemRef")
        .fail("invalid memref descriptor (negative rank, size or stride)");
    return;
  }
  if (bytes == 0)
    return;
  callInContext(
      "mgpuMemHostUnregisterMemRef", "cuMemHostUnregister",
      [&](const Driver &d) { return d.cuMemHostUnregister(start); },
      ScopedContext::Skip);
}

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  Reporter report("mgpuTensorMapEncodeTiledMemref");
  // Element sizes of CUtensorMapDataType UINT8 .. TFLOAT32_FTZ.
  static constexpr int kElementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                          4, 8, 2, 4, 4, 4};
  constexpr int64_t kNumDataTypes =
      sizeof(kElementBytes) / sizeof(kElementBytes[0]);
  if (rank < 1 || rank > 5) {
    report.fail("TMA descriptors have rank 1 to 5, not " +
                std::to_string(rank));
    return nullptr;
  }
  if (dataType < 0 || dataType >= kNumDataTypes) {
    report.fail("unsupported TMA data type " + std::to_string(dataType));
    return nullptr;
  }
  if (!descriptor || !boxDims) {
    report.fail("no memref descriptor or box dimensions");
    return nullptr;
  }
  const Driver *d = report.driver();
  if (!d)
    return nullptr;
  if (!d->cuTensorMapEncodeTiled) {
    report.fail("the CUDA driver lacks cuTensorMapEncodeTiled (TMA needs "
                "CUDA 12)");
    return nullptr;
  }
  // The descriptor lists dimensions outermost first; the driver wants them
  // innermost first, with the byte strides of all but the innermost.
  struct Header {
    char *allocated;
    char *aligned;
    int64_t offset;
  };
  auto *header = static_cast<Header *>(descriptor);
  auto *sizes = reinterpret_cast<int64_t *>(header + 1);
  int64_t *strides = sizes + rank;
  int elementBytes = kElementBytes[dataType];
  uint64_t globalDim[5] = {1, 1, 1, 1, 1}, globalStrides[5] = {0};
  uint32_t boxDim[5] = {1, 1, 1, 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t i = 0; i < rank; ++i) {
    globalDim[i] = static_cast<uint64_t>(sizes[rank - 1 - i]);
    boxDim[i] = static_cast<uint32_t>(boxDims[rank - 1 - i]);
  }
  for (int64_t i = 0; i + 1 < rank; ++i)
    globalStrides[i] =
        static_cast<uint64_t>(strides[rank - 2 - i]) * elementBytes;
  // MLIR's wrappers start at `aligned` and drop the offset; the tensor of a
  // subview starts at its offset.
  char *globalAddress = header->aligned + header->offset * elementBytes;
  ScopedContext scope(*d, report);
  if (!scope)
    return nullptr;
  CUtensorMap map{}; // zeroed: the cache below keys on its bytes
  if (!report.check(
          d->cuTensorMapEncodeTiled(
              &map, static_cast<int>(dataType), static_cast<uint32_t>(rank),
              globalAddress, globalDim, globalStrides, boxDim, elementStrides,
              static_cast<int>(interleave), static_cast<int>(swizzle),
              static_cast<int>(l2Promotion), static_cast<int>(oobFill)),
          "cuTensorMapEncodeTiled"))
    return nullptr;
  // The kernel takes the descriptor by pointer to device memory, which
  // lives until the process ends (as with MLIR's wrappers). A map already
  // copied to the context's memory is used again: a ragged dot called on
  // the same buffers (every step of a training or serving loop) then costs
  // neither an allocation nor a synchronous copy. Past kMaxCachedMaps
  // distinct maps, each new one is copied as MLIR's wrappers do.
  constexpr size_t kMaxCachedMaps = 4096;
  using MapKey = std::pair<CUcontext, std::string>;
  // Never destroyed (as getContextMutex's mutex): JIT-compiled code may
  // call in while the process exits.
  static auto *cacheMutex = new std::mutex;
  static auto *cache = new std::map<MapKey, CUdeviceptr>;
  MapKey key(scope.get(),
             std::string(reinterpret_cast<const char *>(&map), sizeof(map)));
  std::lock_guard<std::mutex> lock(*cacheMutex);
  if (auto it = cache->find(key); it != cache->end())
    return fromDevicePtr(it->second);
  CUdeviceptr deviceMap = 0;
  if (!report.check(d->cuMemAlloc(&deviceMap, sizeof(map)), "cuMemAlloc"))
    return nullptr;
  if (!report.check(d->cuMemcpyHtoD(deviceMap, &map, sizeof(map)),
                    "cuMemcpyHtoD")) {
    d->cuMemFree(deviceMap);
    return nullptr;
  }
  if (cache->size() < kMaxCachedMaps)
    cache->emplace(std::move(key), deviceMap);
  return fromDevicePtr(deviceMap);
}

} // extern "C"
