//===- Launch.h - Device memory and the state of a launch -------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_SIMULATOR_LAUNCH_H
#define GMM_LIB_SIMULATOR_LAUNCH_H

#include "Exec.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

namespace gmm {
namespace sim {

/// A range of the device's address space.
struct Allocation {
  enum Kind : uint8_t {
    Device,         // cuMemAlloc: reserved address space + separate backing
    Managed,        // cuMemAllocManaged: host memory, same address
    HostRegistered, // cuMemHostRegister: the caller's host memory
    HostAllocated,  // cuMemAllocHost/cuMemHostAlloc: pinned host memory
    ModuleGlobal,   // a module's .global variable
    ModuleConst,    // a module's .const variable (read-only for kernels)
  };
  uint64_t base = 0;
  uint64_t size = 0;
  uint8_t *host = nullptr;
  Kind kind = Device;
};
const char *allocationKindName(Allocation::Kind kind);

/// The granularity of device and managed allocations (as cudaMalloc's
/// alignment): every allocation's backing is its size rounded up to it.
constexpr uint64_t kAllocationGranularity = 256;
inline uint64_t roundAllocation(uint64_t bytes) {
  return (std::max<uint64_t>(bytes, 1) + kAllocationGranularity - 1) /
         kAllocationGranularity * kAllocationGranularity;
}

/// The generic-address windows of shared and local memory and of kernel
/// parameters (cvta.param, read-only); reserved address space that no host
/// or device allocation can overlap.
struct AddressWindows {
  uint64_t sharedBase = 0;
  uint64_t localBase = 0;
  uint64_t paramBase = 0;
  /// The shared::cluster window: the CTA's own shared memory, then each
  /// rank's (DeviceModel.h's kClusterWindowBytes apart).
  static constexpr uint64_t kSharedSize = (uint64_t(1) << 24) * 17;
  static constexpr uint64_t kLocalSize = uint64_t(1) << 28;
  static constexpr uint64_t kParamSize = uint64_t(1) << 16;
};
const AddressWindows &getAddressWindows();

/// Allocations by base address. Read-only while a launch runs (the device
/// serializes launches and allocation calls).
class MemoryMap {
public:
  const Allocation *find(uint64_t address) const {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin())
      return nullptr;
    --it;
    const Allocation &a = it->second;
    if (address - a.base < std::max<uint64_t>(a.size, 1))
      return &a;
    return nullptr;
  }
  /// The allocation that ends nearest below `address` (for messages).
  const Allocation *nearestBelow(uint64_t address) const {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin())
      return nullptr;
    return &std::prev(it)->second;
  }
  std::map<uint64_t, Allocation> allocations;
};

/// What one launch shares among the workers that run its blocks.
struct LaunchContext {
  const Program &prog;
  const Options &options;
  const MemoryMap &memory;
  const uint8_t *params = nullptr;
  LaunchConfig config;
  uint32_t sharedBytes = 0;
  uint32_t threadsPerBlock = 0;
  uint32_t smCount = 1;
  /// Thread block clusters: dimensions (clusterOf), blocks per cluster,
  /// and whether the launch asked for them (%is_explicit_cluster).
  Dim3 cluster;
  uint32_t clusterSize = 1;
  bool explicitCluster = false;

  /// The first finding, by block order.
  std::mutex mutex;
  bool hasFinding = false;
  uint64_t findingBlock = 0;
  FindingKind findingKind = FindingKind::Unsupported;
  std::string findingMessage;
  /// Tensor maps in global memory that tensormap.replace or
  /// tensormap.cp_fenceproxy modified: address -> version (1, 2, ...).
  std::mutex mapMutex;
  std::map<uint64_t, uint64_t> mapVersions;
  /// Blocks with a higher linear index than this need not run.
  std::atomic<uint64_t> stopAfter{UINT64_MAX};

  LaunchContext(const Program &prog, const Options &options,
                const MemoryMap &memory)
      : prog(prog), options(options), memory(memory) {}
};

/// Sets `block` up as block `linear` of the launch (Scheduler.cpp), reusing
/// its buffers; `epochCounter` is the worker's epoch clock.
void startBlock(LaunchContext &launch, Block &block, uint64_t linear,
                uint32_t &epochCounter);
/// Runs `block` for about `budget` warp instructions; returns true when it
/// finished (all threads exited, or a finding stopped it).
/// A block of a cluster whose threads all wait sets `blocked` and returns
/// false (the cluster's other blocks may release it); the worker calls
/// diagnoseBlock when the whole cluster waits.
bool stepBlock(LaunchContext &launch, Block &block, uint64_t budget,
               uint64_t &warpInstructions, uint64_t &threadInstructions,
               bool *blocked = nullptr);
/// Reports why no thread of `block` can run (a deadlock, a barrier part of
/// the block skips, ...).
void diagnoseBlock(LaunchContext &launch, Block &block);

/// Formats "kernel K, block (x,y,z), thread (x,y,z), PTX line N: opcode".
std::string describeLocation(const ExecState &state, int lane);

} // namespace sim
} // namespace gmm

#endif // GMM_LIB_SIMULATOR_LAUNCH_H
