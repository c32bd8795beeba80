//===- Simulator.h - A functional simulator of an NVIDIA GPU ----*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm's simulated GPU: it loads PTX and runs kernels on the CPU with the
// semantics of the PTX ISA (warps of 32 lanes with per-lane program
// counters, shared memory, barriers, cp.async, ldmatrix, mma.sync), and
// checks what compute-sanitizer checks on a real GPU: out-of-bounds and
// misaligned accesses, shared-memory races, cp.async hazards, reads of
// uninitialized shared memory, divergent barriers and warp-collective
// instructions. It models what a kernel computes, not how long it takes.
//
// libgmm_cuda_sim.so puts this device behind the CUDA driver API
// (DriverAPI.cpp), so that unchanged host code runs on it; tests use this
// C++ interface directly. docs/Simulator.md describes both.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_SIMULATOR_SIMULATOR_H
#define GMM_SIMULATOR_SIMULATOR_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gmm {
namespace sim {

/// What a check found. Each kind belongs to one checker.
enum class FindingKind {
  // memcheck
  OutOfBounds,
  Misaligned,
  // racecheck
  SharedRace,
  AsyncCopyHazard,
  /// A wgmma accumulator or register-A operand written while the
  /// operation is in flight, or descriptors that differ between threads.
  WgmmaHazard,
  // initcheck
  UninitializedRead,
  // synccheck
  BarrierDivergence,
  CollectiveDivergence,
  Deadlock,
  /// An mbarrier used before mbarrier.init, more arrivals than a phase
  /// expects, a transaction count that goes below zero once every arrival
  /// is in, counts out of range.
  MbarrierMisuse,
  /// A TMA copy with a tensor map that is not one, coordinates of another
  /// rank, a shared-memory box not aligned to its swizzle pattern, a
  /// multicast to CTAs that do not exist, or a bulk store still reading
  /// shared memory when its block exits.
  TmaMisuse,
  // Not checks: the kernel itself stopped.
  Trap,
  AssertFailed,
  /// The kernel did something the simulator does not model.
  Unsupported,
  /// A launch the device refuses (limits, parameters).
  InvalidLaunch,
};
const char *findingKindName(FindingKind kind);

/// The checks that are on (all by default).
struct Checks {
  bool memcheck = true;
  bool racecheck = true;
  bool initcheck = true;
  bool synccheck = true;
  /// "all", "none" or a comma-separated list of check names; false with
  /// `error` set on an unknown name.
  static bool parse(std::string_view text, Checks &checks, std::string &error);
};

struct Options {
  /// Compute capability as major * 10 + minor: 80 or 90.
  unsigned arch = 90;
  Checks checks;
  /// Worker threads that run blocks in parallel (0: one per core).
  unsigned threads = 0;
  /// Device memory the device reports and allows (bytes).
  uint64_t memoryBytes = uint64_t(16) << 30;
  /// A launch that runs longer than this (host seconds) fails: an endless
  /// loop, or a wait that nothing ends.
  unsigned timeoutSeconds = 300;
  /// Multiprocessors the device reports (%nsmid, the driver's
  /// MULTIPROCESSOR_COUNT); 0: the chip's (108 for sm_80, 132 for sm_90).
  /// Persistent kernels size their grid by it: fewer SMs, fewer blocks.
  unsigned smCount = 0;
  /// Trace every instruction of one thread to stderr: kernel name (empty:
  /// any), linear block index and thread index in the block (-1: none).
  std::string traceKernel;
  int64_t traceBlock = -1;
  int64_t traceThread = -1;
  /// Reads GMM_SIM_ARCH, GMM_SIM_CHECKS, GMM_SIM_THREADS, GMM_SIM_TIMEOUT,
  /// GMM_SIM_SMS and GMM_SIM_TRACE (kernel:block:thread). False with `error`
  /// set on a bad value.
  static bool fromEnvironment(Options &options, std::string &error);
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// One kernel parameter of a loaded kernel.
struct KernelParam {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
};

struct Program;
class LoadedModule;

/// A kernel of a loaded module.
class Kernel {
public:
  const std::string &name() const;
  const std::vector<KernelParam> &params() const { return paramList; }
  /// Bytes of the parameter buffer a launch passes.
  uint32_t paramBufferBytes() const;
  uint32_t staticSharedBytes() const;
  /// Per-thread local memory.
  uint32_t localBytes() const;
  /// .maxntid / .reqntid product, 0 when absent.
  unsigned maxThreads() const;
  /// The dynamic shared memory the kernel may use (cuFuncSetAttribute;
  /// the constructor sets what the device gives without the opt-in).
  uint32_t maxDynamicSharedBytes = 0;

  explicit Kernel(std::unique_ptr<Program> program);
  ~Kernel();
  const Program &program() const { return *prog; }

private:
  std::unique_ptr<Program> prog;
  std::vector<KernelParam> paramList;
};

/// A module variable (.global / .const).
struct ModuleGlobal {
  std::string name;
  uint64_t address = 0;
  uint64_t size = 0;
};

class Device;

class LoadedModule {
public:
  ~LoadedModule();
  Kernel *kernel(std::string_view name);
  const ModuleGlobal *global(std::string_view name) const;
  const std::vector<std::unique_ptr<Kernel>> &kernels() const {
    return kernelList;
  }

private:
  friend class Device;
  Device *device = nullptr;
  std::vector<std::unique_ptr<Kernel>> kernelList;
  std::vector<ModuleGlobal> globals;
};

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamicSharedBytes = 0;
  /// Thread block cluster dimensions (sm_90; cuLaunchKernelEx's
  /// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION). 1 x 1 x 1 takes the kernel's
  /// .reqnctapercluster, if it has one.
  Dim3 cluster;
};

struct LaunchResult {
  bool ok = true;
  FindingKind kind = FindingKind::Unsupported;
  /// One line: what, where (kernel, block, thread, PTX line, address).
  std::string message;
  /// What device-side printf wrote, in block order.
  std::string output;
  /// The messages of failed device-side assertions.
  std::string assertions;
  /// Warp instructions executed (one per warp and instruction).
  uint64_t warpInstructions = 0;
  /// Thread instructions executed (one per lane).
  uint64_t threadInstructions = 0;
};

struct Allocation;

/// The simulated device: memory, modules, launches. Thread-safe: calls are
/// serialized.
class Device {
public:
  explicit Device(const Options &options);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  const Options &options() const { return opts; }
  /// "gmm simulated GPU (sm_90, PTX simulator)".
  std::string name() const;

  // Memory. Device addresses of cuMemAlloc memory are reserved address space
  // that the host cannot dereference (as on a real GPU); managed and
  // registered host memory has the same address on both sides. Managed and
  // pinned host memory live in a second reserved range of the device: freed,
  // their pages are unmapped, and the range is reused late, so that a use
  // after free touches no allocation (and faults on the host).
  bool allocate(uint64_t bytes, uint64_t &address, std::string &error);
  bool allocateManaged(uint64_t bytes, uint64_t &address, std::string &error);
  /// Frees a device or managed allocation (`address` is its start).
  bool free(uint64_t address, std::string &error);
  /// Pinned host memory (cuMemAllocHost), freed with freeHost only.
  bool allocateHost(uint64_t bytes, void *&pointer, std::string &error);
  bool freeHost(void *pointer, std::string &error);
  enum class Registration { Registered, AlreadyRegistered, Invalid };
  /// Registers the caller's host memory: Invalid when the range wraps,
  /// touches the device's reserved ranges or is not readable and writable
  /// host memory; AlreadyRegistered when it overlaps an allocation.
  Registration registerHost(void *pointer, uint64_t bytes, std::string &error);
  /// Unregisters a range that registerHost registered (`pointer` its start).
  bool unregisterHost(void *pointer, std::string &error);

  /// What [address, address + bytes) is to the device.
  enum class MemoryKind {
    /// Not memory anyone may touch: the range wraps, starts in the null
    /// page, or lies in the device's reserved ranges outside a live
    /// allocation (freed or never allocated), or runs past its allocation.
    Invalid,
    /// Inside one live allocation (device, managed, pinned or registered
    /// host memory, a module variable): `pointer` is its backing.
    Allocated,
    /// Not the device's: the caller's (pageable) host memory, at `pointer`.
    Pageable,
  };
  struct ResolvedRange {
    MemoryKind kind = MemoryKind::Invalid;
    uint8_t *pointer = nullptr;
  };
  ResolvedRange resolve(uint64_t address, uint64_t bytes) const;
  /// The backing of [address, address + bytes) when it lies in one live
  /// allocation (MemoryKind::Allocated); null otherwise.
  uint8_t *hostPointer(uint64_t address, uint64_t bytes);
  /// Whether `address` is the start of a live device or managed allocation
  /// (what free accepts).
  bool isAllocationStart(uint64_t address) const;
  /// Device memory in use and free, as reported to the driver API.
  uint64_t usedBytes() const;

  /// Parses and decodes PTX; null with a message naming the PTX line on
  /// failure (an instruction or modifier the simulator does not implement
  /// is such a failure).
  std::unique_ptr<LoadedModule> load(std::string_view ptx, std::string &log);

  /// Runs `kernel` to completion. `params` is its parameter buffer
  /// (Kernel::paramBufferBytes bytes, laid out as Kernel::params).
  LaunchResult launch(const Kernel &kernel, const LaunchConfig &config,
                      const void *params);

  /// Runs several launches at once (kernels of different streams): their
  /// blocks take turns, so a kernel may wait for another.
  struct LaunchRequest {
    const Kernel *kernel;
    LaunchConfig config;
    const void *params;
  };
  std::vector<LaunchResult>
  launchAll(const std::vector<LaunchRequest> &requests);

  struct Impl;

private:
  friend class LoadedModule;
  Options opts;
  std::unique_ptr<Impl> impl;
};

/// Checks a launch configuration against the device limits; empty when
/// valid, else the reason.
std::string checkLaunchConfig(const Device &device, const Kernel &kernel,
                              const LaunchConfig &config);

/// The cluster dimensions a launch runs with: the configuration's, or the
/// kernel's .reqnctapercluster when the configuration gives none.
Dim3 clusterOf(const Program &prog, const LaunchConfig &config);

} // namespace sim
} // namespace gmm

#endif // GMM_SIMULATOR_SIMULATOR_H
