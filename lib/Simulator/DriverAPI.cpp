//===- DriverAPI.cpp - The CUDA driver API over the simulated device ------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// libgmm_cuda_sim.so exports the CUDA driver entry points (under the
// versioned names cuda.h maps to) so that a program that loads a CUDA
// driver with dlopen, gmm_cuda_runtime among them, runs on the simulated
// device when pointed at this library (GMM_CUDA_DRIVER_LIBRARY).
//
// Work submitted to streams is queued and runs at the next synchronizing
// call (stream/event/context synchronize, synchronous copies, frees), in
// submission order, which every stream order and event dependency allows.
// A host that reads results without synchronizing sees stale data, as it
// could on a GPU. Asynchronous copies with the caller's pageable host memory
// behave as the driver's do: the source is staged before the call returns,
// a copy to pageable memory completes before it returns. A failed launch (a
// finding of the checks) is a sticky error of the context, like an illegal
// address on a GPU: every later call returns it. gmmSimGetErrorDetail()
// gives the one-line description of the last call's failure (the finding,
// for a sticky error), which gmm_cuda_runtime appends to its error messages.
//
// Every pointer and size a call is given is untrusted, as the driver treats
// them: sizes combine with checked arithmetic; a device pointer must lie,
// with the whole range it names, in a live allocation of the device
// (device, managed, pinned or registered host memory, a module variable),
// else the call fails with CUDA_ERROR_INVALID_VALUE; the caller's pageable
// host memory (a host-side argument, or any pointer of the unified-address
// copies outside the device's ranges) is copied through the kernel, so that
// an unmapped page is an error instead of a crash.
//
// Environment: GMM_SIM_ARCH, GMM_SIM_CHECKS, GMM_SIM_THREADS, GMM_SIM_TRACE
// (Options::fromEnvironment), GMM_SIM_STATS=1 (driver call counts on
// stderr at exit), GMM_SIM_REPORT=1 (findings on stderr as they happen).
//
//===----------------------------------------------------------------------===//

#include "gmm/Simulator/Simulator.h"
#include "gmm/Simulator/TensorMap.h"

#include "gmm/Support/CudaDriverABI.h"

#include "DeviceModel.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <sstream>
#include <sys/uio.h>
#include <unistd.h>
#include <vector>

using namespace gmm::cuda;
using gmm::sim::Device;
using gmm::sim::FindingKind;
using gmm::sim::Kernel;
using gmm::sim::LaunchConfig;
using gmm::sim::LaunchResult;
using gmm::sim::LoadedModule;
using gmm::sim::Options;

// Handles: the driver's opaque structs (declared by CudaDriverABI.h).
namespace gmm {
namespace cuda {
struct CUctx_st {
  int device = 0;
  bool primary = false;
};
struct CUfunc_st;
struct CUmod_st {
  std::unique_ptr<LoadedModule> module;
  std::vector<std::unique_ptr<CUfunc_st>> functions;
};
struct CUfunc_st {
  Kernel *kernel = nullptr;
  CUmod_st *module = nullptr;
};
struct CUstream_st {
  unsigned flags = 0;
};
struct CUevent_st {
  unsigned flags = 0;
  bool recorded = false;
};
} // namespace cuda
} // namespace gmm

namespace {

// CUresult values beyond those CudaDriverABI.h declares (cuda.h's values).
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kFileNotFound = 301;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kIllegalAddress = 700;
constexpr CUresult kLaunchTimeout = 702;
constexpr CUresult kAssert = 710;
constexpr CUresult kHostAlreadyRegistered = 712;
constexpr CUresult kHostNotRegistered = 713;
constexpr CUresult kMisaligned = 716;
constexpr CUresult kLaunchFailed = 719;
constexpr CUresult kNotSupported = 801;

struct ErrorText {
  CUresult code;
  const char *name;
  const char *text;
};
constexpr ErrorText kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {710, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

/// Counters of driver calls (GMM_SIM_STATS).
struct Stats {
  std::atomic<uint64_t> launches{0}, allocations{0}, frees{0}, copies{0},
      memsets{0}, synchronizations{0}, streamsCreated{0}, eventsRecorded{0},
      modulesLoaded{0};
  /// What the kernels executed, and the host time it took.
  std::atomic<uint64_t> warpInstructions{0}, threadInstructions{0};
  std::atomic<uint64_t> simulationNanoseconds{0};
};

/// A queued operation of a stream.
struct Op {
  enum Kind {
    Launch,
    Copy,
    Memset,
    Free,
    RecordEvent,
    WaitEvent
  } kind = Launch;
  CUstream stream = nullptr;
  // Launch
  CUfunc_st *function = nullptr;
  LaunchConfig config;
  std::vector<uint8_t> params;
  // Copy / Memset / Free (dst)
  uint64_t dst = 0, src = 0, bytes = 0;
  uint32_t value = 0;
  unsigned width = 1;
  // Copy: the staged source (a copy of pageable host memory made when the
  // copy was queued), used instead of `src` when set.
  std::unique_ptr<uint8_t[]> staged;
  // RecordEvent
  CUevent_st *event = nullptr;
};

struct SimDriver {
  std::mutex mutex;
  bool initialized = false;
  std::string initError;
  CUresult initResult = CUDA_SUCCESS;
  std::unique_ptr<Device> device;
  CUctx_st primary;
  bool primaryRetained = false;
  std::set<CUctx_st *> contexts;
  std::set<CUmod_st *> modules;
  std::set<CUfunc_st *> functions;
  std::set<CUstream_st *> streams;
  std::set<CUevent_st *> events;
  std::deque<Op> queue;
  CUresult sticky = CUDA_SUCCESS;
  /// The detail of the last call's failure, and of the sticky error.
  std::string detail, stickyDetail;
  bool report = false;
  Stats stats;
};

SimDriver &driver() {
  // Never destroyed: calls may come from global destructors.
  static SimDriver *d = new SimDriver();
  return *d;
}

/// The calling thread's stack of current contexts. Trivially destructible,
/// so that it is still there when global destructors run: a library that
/// unloads its modules at exit (as gmm-aot's do) pushes and pops contexts
/// after the C++ runtime has destroyed the thread's other thread_local
/// objects.
struct ContextStack {
  static constexpr size_t kCapacity = 256;
  CUctx_st *entries[kCapacity];
  size_t size;

  bool empty() const { return size == 0; }
  CUctx_st *&back() { return entries[size - 1]; }
  /// False when the stack is full (deeper than any program nests).
  bool push(CUctx_st *context) {
    if (size == kCapacity)
      return false;
    entries[size++] = context;
    return true;
  }
  void pop() { --size; }
  void remove(CUctx_st *context) {
    size_t kept = 0;
    for (size_t i = 0; i < size; ++i)
      if (entries[i] != context)
        entries[kept++] = entries[i];
    size = kept;
  }
};
thread_local ContextStack contextStack;

CUctx_st *currentContext() {
  return contextStack.empty() ? nullptr : contextStack.back();
}

void printStats() {
  Stats &s = driver().stats;
  std::fprintf(stderr,
               "gmm-sim stats: %llu launches, %llu allocations, %llu frees, "
               "%llu copies, %llu memsets, %llu synchronizations, %llu "
               "streams created, %llu events recorded, %llu modules "
               "loaded\n",
               static_cast<unsigned long long>(s.launches.load()),
               static_cast<unsigned long long>(s.allocations.load()),
               static_cast<unsigned long long>(s.frees.load()),
               static_cast<unsigned long long>(s.copies.load()),
               static_cast<unsigned long long>(s.memsets.load()),
               static_cast<unsigned long long>(s.synchronizations.load()),
               static_cast<unsigned long long>(s.streamsCreated.load()),
               static_cast<unsigned long long>(s.eventsRecorded.load()),
               static_cast<unsigned long long>(s.modulesLoaded.load()));
  double seconds = s.simulationNanoseconds.load() * 1e-9;
  std::fprintf(stderr,
               "gmm-sim stats: %llu warp instructions (%llu thread "
               "instructions) in %.3f s of simulation: %.3g warp "
               "instructions/s\n",
               static_cast<unsigned long long>(s.warpInstructions.load()),
               static_cast<unsigned long long>(s.threadInstructions.load()),
               seconds,
               seconds > 0 ? s.warpInstructions.load() / seconds : 0.0);
}

/// Records a failure's detail for gmmSimGetErrorDetail.
CUresult failWith(SimDriver &d, CUresult code, const std::string &detail) {
  d.detail = detail;
  if (d.report && !detail.empty())
    std::fprintf(stderr, "gmm-sim: %s\n", detail.c_str());
  return code;
}

/// Makes `code` the context's sticky error, with `detail`.
CUresult failSticky(SimDriver &d, CUresult code, const std::string &detail) {
  d.sticky = code;
  d.stickyDetail = detail;
  return failWith(d, code, detail);
}

/// Starts a call (the caller holds the mutex): the detail describes this
/// call's failure only, so a failure that sets none leaves none (never the
/// text of an earlier one); under a sticky error it is the sticky error's.
void beginCall(SimDriver &d) {
  if (d.sticky != CUDA_SUCCESS)
    d.detail = d.stickyDetail;
  else if (d.initialized && d.initResult != CUDA_SUCCESS)
    d.detail = d.initError;
  else
    d.detail.clear();
}

std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%llx",
                static_cast<unsigned long long>(value));
  return buffer;
}

CUresult findingCode(FindingKind kind) {
  switch (kind) {
  case FindingKind::OutOfBounds:
    return kIllegalAddress;
  case FindingKind::Misaligned:
    return kMisaligned;
  case FindingKind::AssertFailed:
    return kAssert;
  case FindingKind::Deadlock:
    return kLaunchTimeout;
  case FindingKind::InvalidLaunch:
    return CUDA_ERROR_INVALID_VALUE;
  default:
    return kLaunchFailed;
  }
}

/// The backing of `bytes` at `address` when they lie in a live allocation
/// of the device, or null.
uint8_t *resolve(SimDriver &d, uint64_t address, uint64_t bytes) {
  return d.device->hostPointer(address, bytes);
}

/// Copies `bytes` from `src` to `dst`. With `untrusted` set, either side is
/// the caller's pageable memory, which may be anything: the copy goes
/// through the kernel (process_vm_readv), which reports an unmapped or
/// unwritable page instead of faulting. False on such a page.
bool copyBytes(uint8_t *dst, const uint8_t *src, uint64_t bytes,
               bool untrusted) {
  if (!untrusted) {
    std::memmove(dst, src, bytes);
    return true;
  }
  while (bytes) {
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(bytes, 1u << 30));
    iovec local{dst, chunk};
    iovec remote{const_cast<uint8_t *>(src), chunk};
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
      // No such system call here (a sandbox): trust the caller.
      std::memmove(dst, src, bytes);
      return true;
    }
    if (n <= 0)
      return false;
    dst += n;
    src += n;
    bytes -= static_cast<uint64_t>(n);
  }
  return true;
}

/// Runs launches together (kernels of different streams may run at once);
/// the first failure becomes the sticky error.
void runLaunches(SimDriver &d, const std::vector<Op *> &ops) {
  std::vector<Device::LaunchRequest> requests;
  for (Op *op : ops)
    requests.push_back({op->function->kernel, op->config, op->params.data()});
  auto start = std::chrono::steady_clock::now();
  std::vector<LaunchResult> results = d.device->launchAll(requests);
  d.stats.simulationNanoseconds +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now() - start)
          .count();
  for (const LaunchResult &result : results) {
    d.stats.warpInstructions += result.warpInstructions;
    d.stats.threadInstructions += result.threadInstructions;
    if (!result.output.empty()) {
      std::fwrite(result.output.data(), 1, result.output.size(), stdout);
      std::fflush(stdout);
    }
    if (!result.assertions.empty()) {
      std::fwrite(result.assertions.data(), 1, result.assertions.size(),
                  stderr);
      std::fflush(stderr);
    }
    if (!result.ok && d.sticky == CUDA_SUCCESS) {
      std::string kind = gmm::sim::findingKindName(result.kind);
      failSticky(d, findingCode(result.kind),
                 "gmm-sim " + kind + ": " + result.message);
    }
  }
}

/// Runs one queued operation; on failure sets the sticky error.
void execute(SimDriver &d, Op &op) {
  switch (op.kind) {
  case Op::Launch:
    runLaunches(d, {&op});
    return;
  case Op::Copy: {
    // Both sides were live allocations (or a staged source) when the copy
    // was queued; a free queued before it may have ended them since.
    uint8_t *dst = resolve(d, op.dst, op.bytes);
    const uint8_t *src =
        op.staged ? op.staged.get() : resolve(d, op.src, op.bytes);
    if (!dst || !src) {
      failSticky(d, kIllegalAddress,
                 "gmm-sim memcheck: copy of " + std::to_string(op.bytes) +
                     " bytes from " + hex(op.src) + " to " + hex(op.dst) +
                     " touches memory outside live allocations");
      return;
    }
    std::memmove(dst, src, op.bytes);
    return;
  }
  case Op::Memset: {
    uint64_t total = 0;
    uint8_t *dst = __builtin_mul_overflow(op.bytes, uint64_t(op.width), &total)
                       ? nullptr
                       : resolve(d, op.dst, total);
    if (!dst) {
      failSticky(d, kIllegalAddress,
                 "gmm-sim memcheck: memset of " + std::to_string(op.bytes) +
                     " " + std::to_string(op.width) + "-byte values at " +
                     hex(op.dst) + " outside live allocations");
      return;
    }
    if (op.width == 1) {
      std::memset(dst, static_cast<int>(op.value & 0xff), total);
      return;
    }
    for (uint64_t i = 0; i < op.bytes; ++i)
      std::memcpy(dst + i * op.width, &op.value, op.width);
    return;
  }
  case Op::Free: {
    std::string error;
    if (!d.device->free(op.dst, error))
      failSticky(d, CUDA_ERROR_INVALID_VALUE, "cuMemFreeAsync: " + error);
    return;
  }
  case Op::RecordEvent:
    op.event->recorded = true;
    return;
  case Op::WaitEvent:
    return;
  }
}

/// Runs every queued operation (the caller holds the mutex). Consecutive
/// launches of different non-default streams run together, as they may on
/// a GPU (a kernel may wait for one in another stream).
CUresult flush(SimDriver &d) {
  ++d.stats.synchronizations;
  while (!d.queue.empty()) {
    if (d.sticky != CUDA_SUCCESS) {
      d.queue.clear();
      break;
    }
    size_t group = 1;
    if (d.queue.front().kind == Op::Launch && d.queue.front().stream) {
      std::set<CUstream> streams = {d.queue.front().stream};
      while (group < d.queue.size() && d.queue[group].kind == Op::Launch &&
             d.queue[group].stream &&
             streams.insert(d.queue[group].stream).second)
        ++group;
    }
    if (group > 1) {
      std::vector<Op> ops(std::make_move_iterator(d.queue.begin()),
                          std::make_move_iterator(d.queue.begin() + group));
      d.queue.erase(d.queue.begin(), d.queue.begin() + group);
      std::vector<Op *> pointers;
      for (Op &op : ops)
        pointers.push_back(&op);
      runLaunches(d, pointers);
      continue;
    }
    Op op = std::move(d.queue.front());
    d.queue.pop_front();
    execute(d, op);
  }
  return d.sticky;
}

/// The common preamble: initialized, no sticky error, and for the calls
/// that act on the current context (allocation, module loading, stream and
/// event creation, context synchronization) a current context. Calls on a
/// handle use the handle's context, as the driver does.
CUresult enter(SimDriver &d, bool needContext = true) {
  beginCall(d);
  if (!d.initialized)
    return kNotInitialized;
  if (d.initResult != CUDA_SUCCESS)
    return d.initResult;
  if (d.sticky != CUDA_SUCCESS)
    return d.sticky;
  if (needContext && !currentContext())
    return failWith(d, kInvalidContext, "no current CUDA context");
  return CUDA_SUCCESS;
}

#define GMM_SIM_ENTER(...)                                                     \
  SimDriver &d = driver();                                                     \
  std::lock_guard<std::mutex> lock(d.mutex);                                   \
  if (CUresult entered = enter(d, ##__VA_ARGS__))                              \
    return entered;

CUresult enqueue(SimDriver &d, Op op) {
  d.queue.push_back(std::move(op));
  return CUDA_SUCCESS;
}

/// cuDeviceGetAttribute's answer (CUdevice_attribute values of cuda.h) for
/// the model of `arch` (DeviceModel.h); 0 for attributes it has no value of.
int deviceAttribute(int attribute, const gmm::sim::Options &options) {
  using namespace gmm::sim::limits;
  const gmm::sim::DeviceModel &model = gmm::sim::deviceModel(options.arch);
  switch (attribute) {
  case 1: // MAX_THREADS_PER_BLOCK
    return kMaxThreadsPerBlock;
  case 2: // MAX_BLOCK_DIM_X
    return kMaxBlockX;
  case 3: // MAX_BLOCK_DIM_Y
    return kMaxBlockY;
  case 4: // MAX_BLOCK_DIM_Z
    return kMaxBlockZ;
  case 5: // MAX_GRID_DIM_X
    return static_cast<int>(kMaxGridX);
  case 6: // MAX_GRID_DIM_Y
    return kMaxGridY;
  case 7: // MAX_GRID_DIM_Z
    return kMaxGridZ;
  case 8: // MAX_SHARED_MEMORY_PER_BLOCK
    return kStaticSharedBytesPerBlock;
  case 9: // TOTAL_CONSTANT_MEMORY
    return kConstantBytes;
  case 10: // WARP_SIZE
    return kWarpSize;
  case 11: // MAX_PITCH
    return kMaxPitch;
  case 12: // MAX_REGISTERS_PER_BLOCK
    return kRegistersPerBlock;
  case 13: // CLOCK_RATE (kHz)
    return static_cast<int>(model.clockKHz);
  case 14: // TEXTURE_ALIGNMENT
    return 512;
  case 15: // GPU_OVERLAP
    return 1;
  case 16: // MULTIPROCESSOR_COUNT
    return static_cast<int>(options.smCount ? options.smCount : model.smCount);
  case 17: // KERNEL_EXEC_TIMEOUT
    return 0;
  case 18: // INTEGRATED
    return 0;
  case 19: // CAN_MAP_HOST_MEMORY
    return 1;
  case 20: // COMPUTE_MODE
    return 0;
  case 31: // CONCURRENT_KERNELS
    return 1;
  case 32: // ECC_ENABLED
    return 0;
  case 36: // MEMORY_CLOCK_RATE (kHz)
    return static_cast<int>(model.memoryClockKHz);
  case 37: // GLOBAL_MEMORY_BUS_WIDTH
    return kMemoryBusBits;
  case 38: // L2_CACHE_SIZE
    return static_cast<int>(model.l2Bytes);
  case 39: // MAX_THREADS_PER_MULTIPROCESSOR
    return kMaxThreadsPerSM;
  case 40: // ASYNC_ENGINE_COUNT
    return 2;
  case 41: // UNIFIED_ADDRESSING
    return 1;
  case 75: // COMPUTE_CAPABILITY_MAJOR
    return static_cast<int>(model.arch / 10);
  case 76: // COMPUTE_CAPABILITY_MINOR
    return static_cast<int>(model.arch % 10);
  case 78: // STREAM_PRIORITIES_SUPPORTED
  case 79: // GLOBAL_L1_CACHE_SUPPORTED
  case 80: // LOCAL_L1_CACHE_SUPPORTED
    return 1;
  case 81: // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
    return static_cast<int>(model.sharedBytesPerSM);
  case 82: // MAX_REGISTERS_PER_MULTIPROCESSOR
    return kRegistersPerSM;
  case 83: // MANAGED_MEMORY
    return 1;
  case 86: // MULTI_GPU_BOARD_GROUP_ID ... and the two below: none
  case 88:
  case 89:
    return 0;
  case 91: // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
    return 1;
  case 95: // COOPERATIVE_LAUNCH
    return 1;
  case 97: // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    return static_cast<int>(model.maxSharedBytesPerBlockOptin);
  case 99: // HOST_REGISTER_SUPPORTED
    return 1;
  case 106: // MAX_BLOCKS_PER_MULTIPROCESSOR
    return kMaxBlocksPerSM;
  case 111: // RESERVED_SHARED_MEMORY_PER_BLOCK
    return kReservedSharedBytesPerBlock;
  case 120: // CLUSTER_LAUNCH
    return 0;
  default:
    return 0;
  }
}

CUresult loadModule(SimDriver &d, CUmodule *result, const void *image,
                    unsigned numOptions, CUjit_option *options, void **values) {
  if (!result || !image)
    return CUDA_ERROR_INVALID_VALUE;
  char *errorLog = nullptr;
  size_t errorLogSize = 0;
  for (unsigned i = 0; i < numOptions && options && values; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      errorLog = static_cast<char *>(values[i]);
    else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      errorLogSize = reinterpret_cast<uintptr_t>(values[i]);
  }
  auto writeLog = [&](const std::string &log) {
    if (errorLog && errorLogSize) {
      size_t n = std::min(log.size(), errorLogSize - 1);
      std::memcpy(errorLog, log.data(), n);
      errorLog[n] = '\0';
    }
  };
  // The image's length is not given: a PTX image is NUL-terminated text,
  // so its magic bytes are compared one at a time, never past a NUL (no
  // magic byte is one).
  const auto *bytes = static_cast<const unsigned char *>(image);
  auto startsWith = [&](const unsigned char (&magic)[4]) {
    for (int i = 0; i < 4; ++i)
      if (bytes[i] != magic[i])
        return false;
    return true;
  };
  static const unsigned char kElf[4] = {0x7f, 'E', 'L', 'F'};
  // The fatbin wrapper's and the fatbin's magic numbers, little-endian.
  static const unsigned char kFatbinWrapper[4] = {0x50, 0xed, 0x55, 0xba};
  static const unsigned char kFatbin[4] = {0xb1, 0x43, 0x62, 0x46};
  if (startsWith(kElf)) {
    std::string log = "the simulated GPU runs PTX, not cubin (compile with "
                      "format=isa)";
    writeLog(log);
    return failWith(d, kInvalidImage, log);
  }
  if (startsWith(kFatbinWrapper) || startsWith(kFatbin)) {
    std::string log = "the simulated GPU runs PTX, not fatbin (compile with "
                      "format=isa)";
    writeLog(log);
    return failWith(d, kInvalidImage, log);
  }
  std::string log;
  std::unique_ptr<LoadedModule> module =
      d.device->load(static_cast<const char *>(image), log);
  if (!module) {
    writeLog(log);
    return failWith(d, kInvalidPtx, log);
  }
  auto *mod = new CUmod_st();
  mod->module = std::move(module);
  d.modules.insert(mod);
  ++d.stats.modulesLoaded;
  *result = mod;
  return CUDA_SUCCESS;
}

CUresult launch(SimDriver &d, CUfunction f, unsigned gx, unsigned gy,
                unsigned gz, unsigned bx, unsigned by, unsigned bz,
                unsigned shared, CUstream stream, void **params, void **extra,
                gmm::sim::Dim3 cluster = {}) {
  if (!f || !d.functions.count(f))
    return failWith(d, kInvalidHandle, "invalid kernel handle");
  if (stream && !d.streams.count(stream))
    return failWith(d, kInvalidHandle, "invalid stream handle");
  const Kernel &kernel = *f->kernel;
  Op op;
  op.kind = Op::Launch;
  op.stream = stream;
  op.function = f;
  op.config.grid = {gx, gy, gz};
  op.config.block = {bx, by, bz};
  op.config.dynamicSharedBytes = shared;
  op.config.cluster = cluster;
  std::string invalid =
      gmm::sim::checkLaunchConfig(*d.device, kernel, op.config);
  if (!invalid.empty())
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    "invalid launch of " + kernel.name() + ": " + invalid);
  op.params.assign(std::max<uint32_t>(kernel.paramBufferBytes(), 1), 0);
  if (params) {
    for (size_t i = 0; i < kernel.params().size(); ++i) {
      const gmm::sim::KernelParam &p = kernel.params()[i];
      if (!params[i])
        return failWith(d, CUDA_ERROR_INVALID_VALUE,
                        "null pointer for kernel parameter " +
                            std::to_string(i) + " of " + kernel.name());
      std::memcpy(op.params.data() + p.offset, params[i], p.size);
    }
  } else if (extra) {
    // CU_LAUNCH_PARAM_BUFFER_POINTER (1), _SIZE (2), _END (0).
    void *buffer = nullptr;
    size_t size = 0;
    for (size_t i = 0; extra[i]; i += 2) {
      if (extra[i] == reinterpret_cast<void *>(1))
        buffer = extra[i + 1];
      else if (extra[i] == reinterpret_cast<void *>(2))
        size = *static_cast<size_t *>(extra[i + 1]);
    }
    if (!buffer || size < kernel.paramBufferBytes())
      return failWith(d, CUDA_ERROR_INVALID_VALUE,
                      "launch parameter buffer too small");
    std::memcpy(op.params.data(), buffer, kernel.paramBufferBytes());
  } else if (kernel.paramBufferBytes()) {
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    "no parameters for kernel " + kernel.name());
  }
  ++d.stats.launches;
  return enqueue(d, std::move(op));
}

} // namespace

//===----------------------------------------------------------------------===//
// Exported entry points
//===----------------------------------------------------------------------===//

#define GMM_SIM_EXPORT extern "C" __attribute__((visibility("default")))

GMM_SIM_EXPORT const char *gmmSimGetErrorDetail() {
  SimDriver &d = driver();
  std::lock_guard<std::mutex> lock(d.mutex);
  // The last call's failure (empty when it set no detail or succeeded);
  // the copy is stable until this thread asks again.
  static thread_local std::string copy;
  copy = d.detail;
  return copy.c_str();
}

/// Forgets a failed launch's sticky error (and the work queued after it), so
/// that a test harness can go on; a real GPU needs a context reset instead.
GMM_SIM_EXPORT void gmmSimClearError() {
  SimDriver &d = driver();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.queue.clear();
  d.sticky = CUDA_SUCCESS;
  d.detail.clear();
  d.stickyDetail.clear();
}

GMM_SIM_EXPORT const char *gmmSimVersion() { return "gmm PTX simulator 1"; }

GMM_SIM_EXPORT CUresult cuInit(unsigned flags) {
  SimDriver &d = driver();
  std::lock_guard<std::mutex> lock(d.mutex);
  beginCall(d);
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (d.initialized)
    return d.initResult;
  d.initialized = true;
  Options options;
  std::string error;
  if (!Options::fromEnvironment(options, error)) {
    d.initResult = CUDA_ERROR_INVALID_VALUE;
    d.initError = error;
    failWith(d, d.initResult, error);
    return d.initResult;
  }
  const char *report = std::getenv("GMM_SIM_REPORT");
  d.report = report && *report && std::strcmp(report, "0") != 0;
  const char *stats = std::getenv("GMM_SIM_STATS");
  if (stats && *stats && std::strcmp(stats, "0") != 0)
    std::atexit(printStats);
  d.device = std::make_unique<Device>(options);
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

/// The entry of kErrors for `error`, or null.
static const ErrorText *findError(CUresult error) {
  for (const ErrorText &e : kErrors)
    if (e.code == error)
      return &e;
  return nullptr;
}

GMM_SIM_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  const ErrorText *e = findError(error);
  *name = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

GMM_SIM_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  if (!text)
    return CUDA_ERROR_INVALID_VALUE;
  const ErrorText *e = findError(error);
  *text = e ? e->text : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

GMM_SIM_EXPORT CUresult cuDeviceGetCount(int *count) {
  GMM_SIM_ENTER(false)
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  GMM_SIM_ENTER(false)
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0)
    return kInvalidDevice;
  *device = 0;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuDeviceGetName(char *name, int length,
                                        CUdevice device) {
  GMM_SIM_ENTER(false)
  if (!name || length <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return kInvalidDevice;
  std::string text = d.device->name();
  std::snprintf(name, static_cast<size_t>(length), "%s", text.c_str());
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute,
                                             CUdevice device) {
  GMM_SIM_ENTER(false)
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return kInvalidDevice;
  *value = deviceAttribute(attribute, d.device->options());
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor,
                                                  CUdevice device) {
  GMM_SIM_ENTER(false)
  if (!major || !minor)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return kInvalidDevice;
  *major = static_cast<int>(d.device->options().arch / 10);
  *minor = static_cast<int>(d.device->options().arch % 10);
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
  GMM_SIM_ENTER(false)
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return kInvalidDevice;
  *bytes = d.device->options().memoryBytes;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context,
                                                 CUdevice device) {
  GMM_SIM_ENTER(false)
  if (!context)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return kInvalidDevice;
  d.primary.primary = true;
  d.primaryRetained = true;
  d.contexts.insert(&d.primary);
  *context = &d.primary;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  GMM_SIM_ENTER(false)
  return device == 0 ? CUDA_SUCCESS : kInvalidDevice;
}

GMM_SIM_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
  SimDriver &d = driver();
  std::lock_guard<std::mutex> lock(d.mutex);
  beginCall(d);
  if (!d.initialized || d.initResult != CUDA_SUCCESS)
    return kNotInitialized;
  if (device != 0)
    return kInvalidDevice;
  // Drops queued work, modules and the sticky error.
  d.queue.clear();
  for (CUmod_st *m : d.modules) {
    for (auto &f : m->functions)
      d.functions.erase(f.get());
    delete m;
  }
  d.modules.clear();
  d.sticky = CUDA_SUCCESS;
  d.detail.clear();
  d.stickyDetail.clear();
  return CUDA_SUCCESS;
}

/// The preamble of the context-stack calls, which work without a current
/// context and under a sticky error.
#define GMM_SIM_BEGIN_CALL                                                     \
  SimDriver &d = driver();                                                     \
  std::lock_guard<std::mutex> lock(d.mutex);                                   \
  beginCall(d);

GMM_SIM_EXPORT CUresult cuCtxGetCurrent(CUcontext *context) {
  GMM_SIM_BEGIN_CALL
  if (!context)
    return CUDA_ERROR_INVALID_VALUE;
  if (!d.initialized)
    return kNotInitialized;
  *context = currentContext();
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  GMM_SIM_BEGIN_CALL
  if (!d.initialized)
    return kNotInitialized;
  if (context && !d.contexts.count(context))
    return kInvalidContext;
  if (contextStack.empty()) {
    if (context && !contextStack.push(context))
      return CUDA_ERROR_INVALID_VALUE;
  } else if (context) {
    contextStack.back() = context;
  } else {
    contextStack.pop();
  }
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext context) {
  GMM_SIM_BEGIN_CALL
  if (!d.initialized)
    return kNotInitialized;
  if (!context || !d.contexts.count(context))
    return kInvalidContext;
  if (!contextStack.push(context))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *context) {
  GMM_SIM_BEGIN_CALL
  if (!d.initialized)
    return kNotInitialized;
  if (contextStack.empty())
    return kInvalidContext;
  if (context)
    *context = contextStack.back();
  contextStack.pop();
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuCtxGetDevice(CUdevice *device) {
  GMM_SIM_ENTER()
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuCtxCreate_v2(CUcontext *context, unsigned,
                                       CUdevice device) {
  GMM_SIM_ENTER(false)
  if (!context)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return kInvalidDevice;
  auto *ctx = new CUctx_st();
  if (!contextStack.push(ctx)) {
    delete ctx;
    return CUDA_ERROR_INVALID_VALUE;
  }
  d.contexts.insert(ctx);
  *context = ctx;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuCtxDestroy_v2(CUcontext context) {
  GMM_SIM_BEGIN_CALL
  if (!context || !d.contexts.count(context) || context == &d.primary)
    return kInvalidContext;
  d.contexts.erase(context);
  contextStack.remove(context);
  delete context;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuCtxSynchronize() {
  GMM_SIM_ENTER()
  return flush(d);
}

GMM_SIM_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                           unsigned numOptions,
                                           CUjit_option *options,
                                           void **values) {
  GMM_SIM_ENTER()
  return loadModule(d, module, image, numOptions, options, values);
}

GMM_SIM_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  GMM_SIM_ENTER()
  return loadModule(d, module, image, 0, nullptr, nullptr);
}

GMM_SIM_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *path) {
  GMM_SIM_ENTER()
  if (!path)
    return CUDA_ERROR_INVALID_VALUE;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return failWith(d, kFileNotFound, std::string("cannot open ") + path);
  std::stringstream buffer;
  buffer << file.rdbuf();
  std::string text = buffer.str();
  return loadModule(d, module, text.c_str(), 0, nullptr, nullptr);
}

GMM_SIM_EXPORT CUresult cuModuleUnload(CUmodule module) {
  GMM_SIM_ENTER(false)
  if (!module || !d.modules.count(module))
    return failWith(d, kInvalidHandle,
                    "cuModuleUnload: invalid or destroyed handle");
  flush(d);
  for (auto &f : module->functions)
    d.functions.erase(f.get());
  d.modules.erase(module);
  delete module;
  return d.sticky;
}

GMM_SIM_EXPORT CUresult cuModuleGetFunction(CUfunction *function,
                                            CUmodule module, const char *name) {
  GMM_SIM_ENTER(false)
  if (!function || !name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!module || !d.modules.count(module))
    return failWith(d, kInvalidHandle,
                    "cuModuleGetFunction: invalid or destroyed handle");
  for (auto &f : module->functions)
    if (f->kernel->name() == name) {
      *function = f.get();
      return CUDA_SUCCESS;
    }
  Kernel *kernel = module->module->kernel(name);
  if (!kernel)
    return failWith(d, kNotFound,
                    std::string("no kernel named '") + name +
                        "' in the module");
  auto f = std::make_unique<CUfunc_st>();
  f->kernel = kernel;
  f->module = module;
  *function = f.get();
  d.functions.insert(f.get());
  module->functions.push_back(std::move(f));
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *address,
                                             size_t *bytes, CUmodule module,
                                             const char *name) {
  GMM_SIM_ENTER(false)
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!module || !d.modules.count(module))
    return failWith(d, kInvalidHandle,
                    "cuModuleGetGlobal_v2: invalid or destroyed handle");
  const gmm::sim::ModuleGlobal *global = module->module->global(name);
  if (!global)
    return kNotFound;
  if (address)
    *address = global->address;
  if (bytes)
    *bytes = global->size;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuFuncGetAttribute(int *value, int attribute,
                                           CUfunction function) {
  GMM_SIM_ENTER(false)
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  if (!function || !d.functions.count(function))
    return failWith(d, kInvalidHandle,
                    "cuFuncGetAttribute: invalid or destroyed handle");
  const Kernel &k = *function->kernel;
  switch (attribute) {
  case 0: // MAX_THREADS_PER_BLOCK
    *value = k.maxThreads() ? static_cast<int>(k.maxThreads()) : 1024;
    break;
  case 1: // SHARED_SIZE_BYTES
    *value = static_cast<int>(k.staticSharedBytes());
    break;
  case 3: // LOCAL_SIZE_BYTES
    *value = static_cast<int>(k.localBytes());
    break;
  case 5: // PTX_VERSION
  case 6: // BINARY_VERSION
    *value = static_cast<int>(d.device->options().arch);
    break;
  case 8: // MAX_DYNAMIC_SHARED_SIZE_BYTES
    *value = static_cast<int>(k.maxDynamicSharedBytes);
    break;
  default:
    *value = 0;
    break;
  }
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuFuncSetAttribute(CUfunction function, int attribute,
                                           int value) {
  GMM_SIM_ENTER(false)
  if (!function || !d.functions.count(function))
    return failWith(d, kInvalidHandle,
                    "cuFuncSetAttribute: invalid or destroyed handle");
  Kernel &k = *function->kernel;
  if (attribute == 8) {
    int limit = static_cast<int>(gmm::sim::deviceModel(d.device->options().arch)
                                     .maxSharedBytesPerBlockOptin) -
                static_cast<int>(k.staticSharedBytes());
    if (value < 0 || value > limit)
      return failWith(d, CUDA_ERROR_INVALID_VALUE,
                      "dynamic shared memory of " + std::to_string(value) +
                          " bytes exceeds what the device allows (" +
                          std::to_string(limit) + ")");
    k.maxDynamicSharedBytes = static_cast<uint32_t>(value);
    return CUDA_SUCCESS;
  }
  if (attribute == 9 || attribute == 14 || attribute == 15)
    return CUDA_SUCCESS;
  return CUDA_ERROR_INVALID_VALUE;
}

GMM_SIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                                       unsigned gz, unsigned bx, unsigned by,
                                       unsigned bz, unsigned shared,
                                       CUstream stream, void **params,
                                       void **extra) {
  GMM_SIM_ENTER(false)
  return launch(d, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}

GMM_SIM_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config,
                                         CUfunction f, void **params,
                                         void **extra) {
  GMM_SIM_ENTER(false)
  if (!config || (config->numAttrs && !config->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  gmm::sim::Dim3 cluster;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute &a = config->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      cluster = {a.value.clusterDim.x, a.value.clusterDim.y,
                 a.value.clusterDim.z};
  }
  return launch(d, f, config->gridDimX, config->gridDimY, config->gridDimZ,
                config->blockDimX, config->blockDimY, config->blockDimZ,
                config->sharedMemBytes, config->hStream, params, extra,
                cluster);
}

GMM_SIM_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned flags) {
  GMM_SIM_ENTER()
  if (!stream)
    return CUDA_ERROR_INVALID_VALUE;
  auto *s = new CUstream_st();
  s->flags = flags;
  d.streams.insert(s);
  ++d.stats.streamsCreated;
  *stream = s;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuStreamCreateWithPriority(CUstream *stream,
                                                   unsigned flags, int) {
  return cuStreamCreate(stream, flags);
}

GMM_SIM_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  GMM_SIM_ENTER(false)
  if (!stream || !d.streams.count(stream))
    return failWith(d, kInvalidHandle,
                    "cuStreamDestroy_v2: invalid or destroyed handle");
  // Work already queued still runs (it does not reference the stream).
  d.streams.erase(stream);
  delete stream;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  GMM_SIM_ENTER(false)
  if (stream && !d.streams.count(stream))
    return failWith(d, kInvalidHandle,
                    "cuStreamSynchronize: invalid or destroyed handle");
  return flush(d);
}

GMM_SIM_EXPORT CUresult cuStreamQuery(CUstream stream) {
  GMM_SIM_ENTER(false)
  if (stream && !d.streams.count(stream))
    return failWith(d, kInvalidHandle,
                    "cuStreamQuery: invalid or destroyed handle");
  return flush(d);
}

GMM_SIM_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event,
                                          unsigned) {
  GMM_SIM_ENTER(false)
  if ((stream && !d.streams.count(stream)) || !event || !d.events.count(event))
    return failWith(d, kInvalidHandle,
                    "cuStreamWaitEvent: invalid or destroyed handle");
  // The queue runs in submission order, which the wait already respects;
  // the marker keeps the waiting stream's next launch out of a group with
  // the work it waits for.
  Op op;
  op.kind = Op::WaitEvent;
  op.stream = stream;
  return enqueue(d, std::move(op));
}

GMM_SIM_EXPORT CUresult cuEventCreate(CUevent *event, unsigned flags) {
  GMM_SIM_ENTER()
  if (!event)
    return CUDA_ERROR_INVALID_VALUE;
  auto *e = new CUevent_st();
  e->flags = flags;
  d.events.insert(e);
  *event = e;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  GMM_SIM_ENTER(false)
  if (!event || !d.events.count(event))
    return failWith(d, kInvalidHandle,
                    "cuEventDestroy_v2: invalid or destroyed handle");
  // Queued records of it become no-op markers (CUDA allows destroying an
  // event whose record is pending; waits already queued on it still hold,
  // which submission order guarantees here).
  for (Op &op : d.queue)
    if (op.kind == Op::RecordEvent && op.event == event) {
      op.kind = Op::WaitEvent;
      op.event = nullptr;
    }
  d.events.erase(event);
  delete event;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  GMM_SIM_ENTER(false)
  if (!event || !d.events.count(event) || (stream && !d.streams.count(stream)))
    return failWith(d, kInvalidHandle,
                    "cuEventRecord: invalid or destroyed handle");
  Op op;
  op.kind = Op::RecordEvent;
  op.event = event;
  event->recorded = false;
  ++d.stats.eventsRecorded;
  return enqueue(d, std::move(op));
}

GMM_SIM_EXPORT CUresult cuEventSynchronize(CUevent event) {
  GMM_SIM_ENTER(false)
  if (!event || !d.events.count(event)) {
    // The host waits here, and on a GPU the queued work goes on whatever
    // handle it passed: run it, then report the handle. (MLIR 22 lowers
    // async.yield of a !gpu.async.token to a stream where an event belongs,
    // so upstream's async test syncs on a stream handle.)
    if (CUresult drained = flush(d); drained != CUDA_SUCCESS)
      return drained; // the queued work's own error, with its detail
    return failWith(d, kInvalidHandle,
                    "cuEventSynchronize: invalid or destroyed handle");
  }
  return flush(d);
}

GMM_SIM_EXPORT CUresult cuEventQuery(CUevent event) {
  GMM_SIM_ENTER(false)
  if (!event || !d.events.count(event))
    return failWith(d, kInvalidHandle,
                    "cuEventQuery: invalid or destroyed handle");
  return flush(d);
}

GMM_SIM_EXPORT CUresult cuEventElapsedTime_v2(float *milliseconds,
                                              CUevent start, CUevent end) {
  GMM_SIM_ENTER(false)
  if (!milliseconds || !start || !end || !d.events.count(start) ||
      !d.events.count(end))
    return failWith(d, kInvalidHandle,
                    "cuEventElapsedTime_v2: invalid or destroyed handle");
  return failWith(d, kNotSupported,
                  "the simulated GPU does not measure time: no kernel time "
                  "from it is a GPU time");
}

GMM_SIM_EXPORT CUresult cuEventElapsedTime(float *milliseconds, CUevent start,
                                           CUevent end) {
  return cuEventElapsedTime_v2(milliseconds, start, end);
}

// Memory.

static CUresult allocate(SimDriver &d, CUdeviceptr *pointer, size_t bytes) {
  if (!pointer || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::string error;
  uint64_t address = 0;
  if (!d.device->allocate(bytes, address, error))
    return failWith(d, kOutOfMemory, error);
  ++d.stats.allocations;
  *pointer = address;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  GMM_SIM_ENTER()
  return allocate(d, pointer, bytes);
}

// Stream-ordered allocation: the memory is allocated at once (earlier than
// the stream reaches the allocation, which no program can tell apart), and
// freed when the stream reaches the free.
GMM_SIM_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes,
                                        CUstream stream) {
  GMM_SIM_ENTER()
  if (stream && !d.streams.count(stream))
    return failWith(d, kInvalidHandle,
                    "cuMemAllocAsync: invalid or destroyed handle");
  return allocate(d, pointer, bytes);
}

GMM_SIM_EXPORT CUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream stream) {
  GMM_SIM_ENTER(false)
  if (stream && !d.streams.count(stream))
    return failWith(d, kInvalidHandle,
                    "cuMemFreeAsync: invalid or destroyed handle");
  if (!pointer)
    return CUDA_SUCCESS;
  // What the queue will free must be an allocation that nothing queued
  // frees already.
  bool pending = false;
  for (const Op &op : d.queue)
    pending |= op.kind == Op::Free && op.dst == pointer;
  if (pending || !d.device->isAllocationStart(pointer))
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    "cuMemFreeAsync: " + hex(pointer) +
                        (pending ? " is freed already (a free of it is queued)"
                                 : " is not the start of a live device or "
                                   "managed allocation"));
  Op op;
  op.kind = Op::Free;
  op.stream = stream;
  op.dst = pointer;
  ++d.stats.frees;
  return enqueue(d, std::move(op));
}

GMM_SIM_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes,
                                          unsigned) {
  GMM_SIM_ENTER()
  if (!pointer || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::string error;
  uint64_t address = 0;
  if (!d.device->allocateManaged(bytes, address, error))
    return failWith(d, kOutOfMemory, error);
  ++d.stats.allocations;
  *pointer = address;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  GMM_SIM_ENTER(false)
  if (!pointer)
    return CUDA_SUCCESS;
  // cuMemFree waits for the work that may use the memory.
  if (CUresult r = flush(d))
    return r;
  std::string error;
  if (!d.device->free(pointer, error))
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    "cuMemFree: " + hex(pointer) + ": " + error);
  ++d.stats.frees;
  return CUDA_SUCCESS;
}

static CUresult allocateHost(SimDriver &d, void **pointer, size_t bytes,
                             const char *call) {
  if (!pointer || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::string error;
  void *host = nullptr;
  if (!d.device->allocateHost(bytes, host, error))
    return failWith(d, kOutOfMemory, std::string(call) + ": " + error);
  ++d.stats.allocations;
  *pointer = host;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  GMM_SIM_ENTER()
  return allocateHost(d, pointer, bytes, "cuMemAllocHost");
}

GMM_SIM_EXPORT CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned) {
  GMM_SIM_ENTER()
  return allocateHost(d, pointer, bytes, "cuMemHostAlloc");
}

GMM_SIM_EXPORT CUresult cuMemFreeHost(void *pointer) {
  GMM_SIM_ENTER(false)
  if (CUresult r = flush(d))
    return r;
  std::string error;
  if (!d.device->freeHost(pointer, error))
    return failWith(
        d, CUDA_ERROR_INVALID_VALUE,
        "cuMemFreeHost: " + hex(reinterpret_cast<uintptr_t>(pointer)) + ": " +
            error);
  ++d.stats.frees;
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  GMM_SIM_ENTER()
  uint64_t capacity = d.device->options().memoryBytes;
  uint64_t used = d.device->usedBytes();
  if (free)
    *free = capacity - std::min(capacity, used);
  if (total)
    *total = capacity;
  return CUDA_SUCCESS;
}

namespace {

/// What a copy's argument may be: memory of the device (a CUdeviceptr of
/// an explicit direction), or also the caller's pageable host memory (a
/// host-side argument, or either side of a unified-address cuMemcpy).
enum class Side { Device, DeviceOrHost };

/// One side of a copy, resolved.
struct CopySide {
  uint8_t *pointer = nullptr;
  bool pageable = false;
};

/// Resolves one side of a copy of `bytes`; fails with the reason.
CUresult resolveSide(SimDriver &d, const char *call, const char *role,
                     uint64_t address, uint64_t bytes, Side side,
                     CopySide &out) {
  Device::ResolvedRange range = d.device->resolve(address, bytes);
  bool ok = range.kind == Device::MemoryKind::Allocated ||
            (range.kind == Device::MemoryKind::Pageable &&
             side == Side::DeviceOrHost);
  if (!ok)
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    std::string(call) + ": the " + role + " of " +
                        std::to_string(bytes) + " bytes at " + hex(address) +
                        (range.kind == Device::MemoryKind::Pageable
                             ? " is not memory of the device"
                             : " is not in a live allocation of the device"));
  out.pointer = range.pointer;
  out.pageable = range.kind == Device::MemoryKind::Pageable;
  return CUDA_SUCCESS;
}

/// Resolves both sides of a copy of `bytes`: resolveSide().
CUresult resolveCopy(SimDriver &d, const char *call, uint64_t dst, Side dstSide,
                     uint64_t src, Side srcSide, uint64_t bytes, CopySide &to,
                     CopySide &from) {
  if (CUresult r = resolveSide(d, call, "destination", dst, bytes, dstSide, to))
    return r;
  return resolveSide(d, call, "source", src, bytes, srcSide, from);
}

CUresult copyBetween(SimDriver &d, const char *call, const CopySide &to,
                     const CopySide &from, uint64_t bytes) {
  if (!copyBytes(to.pointer, from.pointer, bytes, to.pageable || from.pageable))
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    std::string(call) + ": the host memory of the copy of " +
                        std::to_string(bytes) +
                        " bytes is not mapped (or not writable)");
  return CUDA_SUCCESS;
}

/// A synchronous copy: after the queued work, at once.
CUresult copyNow(SimDriver &d, const char *call, uint64_t dst, Side dstSide,
                 uint64_t src, Side srcSide, uint64_t bytes) {
  if (CUresult r = flush(d))
    return r;
  ++d.stats.copies;
  if (!bytes)
    return CUDA_SUCCESS;
  CopySide to, from;
  if (CUresult r =
          resolveCopy(d, call, dst, dstSide, src, srcSide, bytes, to, from))
    return r;
  return copyBetween(d, call, to, from, bytes);
}

/// Pageable sources up to this size are staged for an asynchronous copy;
/// larger ones are copied at once, after the queued work.
constexpr uint64_t kMaxStagedBytes = uint64_t(256) << 20;

/// An asynchronous copy: queued on `stream` between the device's memory,
/// as the driver does: a pageable source is staged before the call returns
/// (the device sees what it holds now), a copy to pageable memory completes
/// before the call returns.
CUresult copyLater(SimDriver &d, const char *call, uint64_t dst, Side dstSide,
                   uint64_t src, Side srcSide, uint64_t bytes,
                   CUstream stream) {
  if (stream && !d.streams.count(stream))
    return failWith(d, kInvalidHandle,
                    std::string(call) + ": invalid or destroyed handle");
  if (!bytes)
    return CUDA_SUCCESS;
  // An invalid range is an error now, where the driver can tell.
  CopySide to, from;
  if (CUresult r =
          resolveCopy(d, call, dst, dstSide, src, srcSide, bytes, to, from))
    return r;
  if (to.pageable || (from.pageable && bytes > kMaxStagedBytes))
    return copyNow(d, call, dst, dstSide, src, srcSide, bytes);
  Op op;
  op.kind = Op::Copy;
  op.stream = stream;
  op.dst = dst;
  op.src = src;
  op.bytes = bytes;
  if (from.pageable) {
    op.staged.reset(new (std::nothrow) uint8_t[bytes]);
    if (!op.staged)
      return copyNow(d, call, dst, dstSide, src, srcSide, bytes);
    CopySide staging{op.staged.get(), false};
    if (CUresult r = copyBetween(d, call, staging, from, bytes))
      return r;
  }
  ++d.stats.copies;
  return enqueue(d, std::move(op));
}

uint64_t hostAddress(const void *p) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}

} // namespace

// cuMemcpy and cuMemcpyAsync infer the direction from the pointers (unified
// addressing): either may be the caller's pageable host memory, as MLIR's
// gpu.memcpy passes it.
GMM_SIM_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src,
                                 size_t bytes) {
  GMM_SIM_ENTER(false)
  return copyNow(d, "cuMemcpy", dst, Side::DeviceOrHost, src,
                 Side::DeviceOrHost, bytes);
}
GMM_SIM_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
                                      size_t bytes, CUstream stream) {
  GMM_SIM_ENTER(false)
  return copyLater(d, "cuMemcpyAsync", dst, Side::DeviceOrHost, src,
                   Side::DeviceOrHost, bytes, stream);
}
GMM_SIM_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src,
                                        size_t bytes) {
  GMM_SIM_ENTER(false)
  return copyNow(d, "cuMemcpyHtoD", dst, Side::Device, hostAddress(src),
                 Side::DeviceOrHost, bytes);
}
GMM_SIM_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src,
                                        size_t bytes) {
  GMM_SIM_ENTER(false)
  return copyNow(d, "cuMemcpyDtoH", hostAddress(dst), Side::DeviceOrHost, src,
                 Side::Device, bytes);
}
GMM_SIM_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src,
                                        size_t bytes) {
  GMM_SIM_ENTER(false)
  return copyNow(d, "cuMemcpyDtoD", dst, Side::Device, src, Side::Device,
                 bytes);
}
GMM_SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src,
                                             size_t bytes, CUstream stream) {
  GMM_SIM_ENTER(false)
  return copyLater(d, "cuMemcpyHtoDAsync", dst, Side::Device, hostAddress(src),
                   Side::DeviceOrHost, bytes, stream);
}
GMM_SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src,
                                             size_t bytes, CUstream stream) {
  GMM_SIM_ENTER(false)
  return copyLater(d, "cuMemcpyDtoHAsync", hostAddress(dst), Side::DeviceOrHost,
                   src, Side::Device, bytes, stream);
}
GMM_SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src,
                                             size_t bytes, CUstream stream) {
  GMM_SIM_ENTER(false)
  return copyLater(d, "cuMemcpyDtoDAsync", dst, Side::Device, src, Side::Device,
                   bytes, stream);
}

static CUresult memsetOp(SimDriver &d, CUdeviceptr dst, uint32_t value,
                         unsigned width, size_t count, CUstream stream,
                         bool async) {
  if (stream && !d.streams.count(stream))
    return failWith(d, kInvalidHandle,
                    "cuMemset*Async: invalid or destroyed handle");
  if (!count)
    return CUDA_SUCCESS;
  if (dst % width)
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    "memset of " + std::to_string(width) + "-byte values at " +
                        hex(dst) + ": misaligned");
  uint64_t total = 0;
  if (__builtin_mul_overflow(uint64_t(count), uint64_t(width), &total) ||
      !resolve(d, dst, total))
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    "memset of " + std::to_string(count) + " " +
                        std::to_string(width) + "-byte values at " + hex(dst) +
                        ": not in a live allocation of the device");
  Op op;
  op.kind = Op::Memset;
  op.stream = stream;
  op.dst = dst;
  op.value = value;
  op.width = width;
  op.bytes = count;
  ++d.stats.memsets;
  if (!async) {
    if (CUresult r = flush(d))
      return r;
    execute(d, op);
    return d.sticky;
  }
  return enqueue(d, std::move(op));
}

GMM_SIM_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value,
                                      size_t count) {
  GMM_SIM_ENTER(false)
  return memsetOp(d, dst, value, 1, count, nullptr, false);
}
GMM_SIM_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short value,
                                       size_t count) {
  GMM_SIM_ENTER(false)
  return memsetOp(d, dst, value, 2, count, nullptr, false);
}
GMM_SIM_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value,
                                       size_t count) {
  GMM_SIM_ENTER(false)
  return memsetOp(d, dst, value, 4, count, nullptr, false);
}
GMM_SIM_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value,
                                        size_t count, CUstream stream) {
  GMM_SIM_ENTER(false)
  return memsetOp(d, dst, value, 1, count, stream, true);
}
GMM_SIM_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value,
                                         size_t count, CUstream stream) {
  GMM_SIM_ENTER(false)
  return memsetOp(d, dst, value, 2, count, stream, true);
}
GMM_SIM_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value,
                                         size_t count, CUstream stream) {
  GMM_SIM_ENTER(false)
  return memsetOp(d, dst, value, 4, count, stream, true);
}

GMM_SIM_EXPORT CUresult cuMemHostRegister_v2(void *pointer, size_t bytes,
                                             unsigned) {
  GMM_SIM_ENTER()
  if (!pointer || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::string error;
  switch (d.device->registerHost(pointer, bytes, error)) {
  case Device::Registration::Registered:
    return CUDA_SUCCESS;
  case Device::Registration::AlreadyRegistered:
    return failWith(d, kHostAlreadyRegistered, "cuMemHostRegister: " + error);
  case Device::Registration::Invalid:
    break;
  }
  return failWith(d, CUDA_ERROR_INVALID_VALUE, "cuMemHostRegister: " + error);
}

GMM_SIM_EXPORT CUresult cuMemHostUnregister(void *pointer) {
  GMM_SIM_ENTER(false)
  if (CUresult r = flush(d))
    return r;
  std::string error;
  if (!d.device->unregisterHost(pointer, error))
    return failWith(d, kHostNotRegistered, "cuMemHostUnregister: " + error);
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *device,
                                                     void *host, unsigned) {
  GMM_SIM_ENTER(false)
  if (!device || !host)
    return CUDA_ERROR_INVALID_VALUE;
  if (!d.device->hostPointer(hostAddress(host), 1))
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    "cuMemHostGetDevicePointer: " + hex(hostAddress(host)) +
                        " is not pinned, registered or managed memory");
  *device = hostAddress(host);
  return CUDA_SUCCESS;
}

GMM_SIM_EXPORT CUresult cuTensorMapEncodeTiled(
    CUtensorMap *tensorMap, int dataType, uint32_t rank, void *globalAddress,
    const uint64_t *globalDim, const uint64_t *globalStrides,
    const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
    int swizzle, int l2Promotion, int oobFill) {
  GMM_SIM_ENTER(false)
  if (d.device->options().arch < 90)
    return failWith(d, kNotSupported,
                    "cuTensorMapEncodeTiled: tensor maps need compute "
                    "capability 9.0 (the simulated device is sm_" +
                        std::to_string(d.device->options().arch) + ")");
  gmm::sim::TiledTensorMapArgs args;
  args.dataType = dataType;
  args.rank = rank;
  args.globalAddress = hostAddress(globalAddress);
  args.interleave = interleave;
  args.swizzle = swizzle;
  args.l2Promotion = l2Promotion;
  args.oobFill = oobFill;
  if (rank >= 1 && rank <= 5) {
    if (!globalDim || !boxDim || !elementStrides ||
        (rank > 1 && !globalStrides))
      return failWith(d, CUDA_ERROR_INVALID_VALUE,
                      "cuTensorMapEncodeTiled: a null array");
    for (uint32_t i = 0; i < rank; ++i) {
      args.globalDim[i] = globalDim[i];
      args.boxDim[i] = boxDim[i];
      args.elementStrides[i] = elementStrides[i];
      if (i + 1 < rank)
        args.globalStrides[i] = globalStrides[i];
    }
  }
  std::string error;
  switch (gmm::sim::encodeTiledTensorMap(args, tensorMap, error)) {
  case gmm::sim::TensorMapError::None:
    return CUDA_SUCCESS;
  case gmm::sim::TensorMapError::Invalid:
    return failWith(d, CUDA_ERROR_INVALID_VALUE,
                    "cuTensorMapEncodeTiled: " + error);
  case gmm::sim::TensorMapError::Unsupported:
    break;
  }
  return failWith(d, kNotSupported, "cuTensorMapEncodeTiled: " + error);
}
