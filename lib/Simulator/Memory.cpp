//===- Memory.cpp - State spaces, generic addresses and memory checks ----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Every load, store, atomic and asynchronous copy of a kernel goes through
// accessMemory(): it resolves the state space (generic addresses fall into
// the shared window, the local window or global memory), checks alignment
// and bounds against the live allocations (memcheck), and for shared
// memory keeps a shadow byte per byte that finds races between warps
// within a barrier interval (racecheck), reads of bytes nothing wrote
// (initcheck) and reads of cp.async destinations before their wait.
//
//===----------------------------------------------------------------------===//

#include "DeviceModel.h"
#include "Launch.h"

#include <cinttypes>
#include <cstdio>
#include <sys/mman.h>

using namespace gmm::sim;

const char *gmm::sim::allocationKindName(Allocation::Kind kind) {
  switch (kind) {
  case Allocation::Device:
    return "device";
  case Allocation::Managed:
    return "managed";
  case Allocation::HostRegistered:
    return "registered host";
  case Allocation::HostAllocated:
    return "pinned host";
  case Allocation::ModuleGlobal:
    return "module .global";
  case Allocation::ModuleConst:
    return "module .const";
  }
  return "?";
}

const AddressWindows &gmm::sim::getAddressWindows() {
  static const AddressWindows windows = [] {
    AddressWindows w;
    auto reserve = [](uint64_t bytes) -> uint64_t {
      void *p = mmap(nullptr, bytes, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED)
        return 0;
      return reinterpret_cast<uintptr_t>(p);
    };
    w.sharedBase = reserve(AddressWindows::kSharedSize);
    w.localBase = reserve(AddressWindows::kLocalSize);
    w.paramBase = reserve(AddressWindows::kParamSize);
    return w;
  }();
  return windows;
}

Space gmm::sim::classifyGeneric(uint64_t address) {
  const AddressWindows &w = getAddressWindows();
  if (address - w.sharedBase < AddressWindows::kSharedSize)
    return Space::Shared;
  if (address - w.localBase < AddressWindows::kLocalSize)
    return Space::Local;
  if (address - w.paramBase < AddressWindows::kParamSize)
    return Space::Param;
  return Space::Global;
}

uint64_t gmm::sim::toGeneric(Space space, uint64_t address) {
  const AddressWindows &w = getAddressWindows();
  switch (space) {
  case Space::Shared:
    return w.sharedBase + address;
  case Space::Local:
    return w.localBase + address;
  case Space::Param:
    return w.paramBase + address;
  default:
    return address;
  }
}

uint64_t gmm::sim::fromGeneric(Space space, uint64_t address) {
  const AddressWindows &w = getAddressWindows();
  switch (space) {
  case Space::Shared:
    return address - w.sharedBase;
  case Space::Local:
    return address - w.localBase;
  case Space::Param:
    return address - w.paramBase;
  default:
    return address;
  }
}

namespace {

std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%" PRIx64, value);
  return buffer;
}

const char *accessName(Access access) {
  switch (access) {
  case Access::Read:
    return "read";
  case Access::Write:
    return "write";
  case Access::Atomic:
    return "atomic";
  }
  return "?";
}

std::string describeThread(const ExecState &state, uint32_t thread) {
  const LaunchConfig &config = state.launch.config;
  unsigned x = thread % config.block.x;
  unsigned y = (thread / config.block.x) % config.block.y;
  unsigned z = thread / (config.block.x * config.block.y);
  return "thread (" + std::to_string(x) + "," + std::to_string(y) + "," +
         std::to_string(z) + ")";
}

/// The shadow checks of one shared access.
bool checkShared(ExecState &state, int lane, uint32_t offset, unsigned size,
                 Access access) {
  const Checks &checks = state.launch.options.checks;
  if (!checks.racecheck && !checks.initcheck)
    return true;
  Block &block = state.block;
  uint32_t tid = state.threadIndex(lane);
  uint32_t warp = tid / 32;
  uint32_t epoch = block.epoch;
  for (uint32_t i = offset; i < offset + size; ++i) {
    ShadowByte &sb = block.shadow[i];
    bool writtenThisBlock = sb.writeEpoch >= block.baseEpoch;
    if (access != Access::Write) {
      // A read (or the read half of an atomic).
      if (writtenThisBlock && (sb.writeFlags & kShadowPending)) {
        bool bulk = sb.writeFlags & kShadowBulk;
        state.fail(FindingKind::AsyncCopyHazard, lane,
                   "shared " + std::string(accessName(access)) + " of byte " +
                       std::to_string(i) + ", the destination of a " +
                       (bulk ? "cp.async.bulk.tensor" : "cp.async") + " of " +
                       describeThread(state, sb.writer) +
                       " that has not completed (missing " +
                       (bulk ? "wait on its mbarrier's phase"
                             : "cp.async.wait_group/wait_all, or the wait on "
                               "the mbarrier of a cp.async.mbarrier.arrive,") +
                       " before it)");
        return false;
      }
      if (checks.initcheck && !writtenThisBlock && access == Access::Read) {
        state.fail(FindingKind::UninitializedRead, lane,
                   "shared read of " + std::to_string(size) +
                       " bytes at offset " + std::to_string(offset) +
                       ": byte " + std::to_string(i) +
                       " was never written by this block");
        return false;
      }
      if (checks.racecheck && writtenThisBlock && sb.writeEpoch == epoch &&
          sb.writer / 32 != warp && !(sb.writeFlags & kShadowRemote) &&
          !(access == Access::Atomic && (sb.writeFlags & kShadowAtomic))) {
        bool async = sb.writeFlags & kShadowAsync;
        state.fail(FindingKind::SharedRace, lane,
                   "shared-memory race: " + std::string(accessName(access)) +
                       " of byte " + std::to_string(i) + " that " +
                       describeThread(state, sb.writer) +
                       (async ? " received by cp.async" : " wrote") +
                       " since the last barrier" +
                       (async ? " (missing bar.sync after "
                                "cp.async.wait_group)"
                              : " (missing bar.sync between them)"));
        return false;
      }
    }
    if (access != Access::Read) {
      if (writtenThisBlock && (sb.writeFlags & kShadowPending)) {
        state.fail(FindingKind::AsyncCopyHazard, lane,
                   "shared " + std::string(accessName(access)) + " of byte " +
                       std::to_string(i) + ", the destination of a " +
                       ((sb.writeFlags & kShadowBulk) ? "cp.async.bulk.tensor"
                                                      : "cp.async") +
                       " of " + describeThread(state, sb.writer) +
                       " that has not completed");
        return false;
      }
      if (checks.racecheck) {
        if (writtenThisBlock && sb.writeEpoch == epoch &&
            sb.writer / 32 != warp && !(sb.writeFlags & kShadowRemote) &&
            !(access == Access::Atomic && (sb.writeFlags & kShadowAtomic)) &&
            access != Access::Read) {
          state.fail(FindingKind::SharedRace, lane,
                     "shared-memory race: " + std::string(accessName(access)) +
                         " of byte " + std::to_string(i) + " that " +
                         describeThread(state, sb.writer) +
                         " wrote since the last barrier (missing bar.sync "
                         "between them)");
          return false;
        }
        if (sb.readEpoch == epoch && sb.readEpoch >= block.baseEpoch &&
            ((sb.readFlags & kShadowMultiReaders) || sb.reader / 32 != warp)) {
          state.fail(FindingKind::SharedRace, lane,
                     "shared-memory race: " + std::string(accessName(access)) +
                         " of byte " + std::to_string(i) + " that " +
                         describeThread(state, sb.reader) +
                         " read since the last barrier (missing bar.sync "
                         "between them)");
          return false;
        }
      }
      sb.writeEpoch = epoch;
      sb.writer = static_cast<uint16_t>(tid);
      sb.writeFlags =
          (access == Access::Atomic ? kShadowAtomic : 0) | kShadowGeneric;
      sb.writerFences = block.proxyFences[tid];
    }
    if (access == Access::Read && checks.racecheck) {
      if (sb.readEpoch == epoch) {
        if (sb.reader / 32 != warp)
          sb.readFlags |= kShadowMultiReaders;
      } else {
        sb.readEpoch = epoch;
        sb.reader = static_cast<uint16_t>(tid);
        sb.readFlags = 0;
      }
    }
  }
  return true;
}

uint8_t *accessGlobal(ExecState &state, int lane, uint64_t address,
                      unsigned size, Access access, bool isConst) {
  const Allocation *a = static_cast<const Allocation *>(state.lastAllocation);
  if (!a || address - a->base >= a->size ||
      address - a->base + size > a->size) {
    a = state.launch.memory.find(address);
    if (!a || address - a->base + size > a->size) {
      // Without memcheck, an access past the end of a device allocation
      // but inside its granularity (kAllocationGranularity) reads and
      // writes the backing
      // (as on a GPU, where it does not fault); anything else still fails,
      // since there is no memory behind it.
      if (!state.launch.options.checks.memcheck) {
        const Allocation *owner =
            a ? a : state.launch.memory.nearestBelow(address);
        if (owner && owner->kind == Allocation::Device &&
            address - owner->base + size <= roundAllocation(owner->size))
          return owner->host + (address - owner->base);
      }
      std::string what = std::string("out-of-bounds ") +
                         (isConst ? "const " : "global ") + accessName(access) +
                         " of " + std::to_string(size) + " bytes at " +
                         hex(address);
      if (a) {
        what += ": " + std::to_string(address - a->base + size - a->size) +
                " bytes past the end of the " + std::to_string(a->size) +
                "-byte " + allocationKindName(a->kind) + " allocation at " +
                hex(a->base);
      } else if (const Allocation *below =
                     state.launch.memory.nearestBelow(address)) {
        uint64_t end = below->base + below->size;
        what += address >= end ? ": " + std::to_string(address - end) +
                                     " bytes past the end of the " +
                                     std::to_string(below->size) + "-byte " +
                                     allocationKindName(below->kind) +
                                     " allocation at " + hex(below->base)
                               : ": not in any live allocation";
      } else {
        what += address < 4096 ? ": a null pointer"
                               : ": not in any live allocation";
      }
      state.fail(FindingKind::OutOfBounds, lane, what);
      return nullptr;
    }
    state.lastAllocation = a;
  }
  if (access != Access::Read && a->kind == Allocation::ModuleConst) {
    state.fail(FindingKind::OutOfBounds, lane,
               std::string(accessName(access)) + " of " + std::to_string(size) +
                   " bytes at " + hex(address) +
                   " in .const memory, which kernels cannot write");
    return nullptr;
  }
  return a->host + (address - a->base);
}

} // namespace

/// A shared::cluster address of CTA rank r: (r + 1) * kClusterWindowBytes
/// plus an offset in its shared memory. Another CTA's shared memory is not
/// race- or initialization-checked (its shadow is its own block's).
static uint8_t *accessClusterShared(ExecState &state, int lane,
                                    uint64_t address, unsigned size,
                                    Access access) {
  Cluster &cluster = state.block.clusterState();
  uint64_t rank = address / limits::kClusterWindowBytes - 1;
  uint64_t offset = address % limits::kClusterWindowBytes;
  if (rank >= cluster.members.size()) {
    state.fail(FindingKind::OutOfBounds, lane,
               std::string("shared::cluster ") + accessName(access) +
                   " of CTA rank " + std::to_string(rank) +
                   " in a cluster of " +
                   std::to_string(cluster.members.size()));
    return nullptr;
  }
  uint32_t limit = state.launch.sharedBytes;
  if (offset + size > limit) {
    state.fail(FindingKind::OutOfBounds, lane,
               std::string("out-of-bounds shared::cluster ") +
                   accessName(access) + " of " + std::to_string(size) +
                   " bytes at offset " + std::to_string(offset) +
                   " of CTA rank " + std::to_string(rank) + " (a block has " +
                   std::to_string(limit) + " bytes of shared memory)");
    return nullptr;
  }
  Block *target = cluster.members[rank];
  if (target == &state.block) {
    if (!checkShared(state, lane, static_cast<uint32_t>(offset), size, access))
      return nullptr;
  } else if (access == Access::Read) {
    // Another CTA's bytes that it never wrote: typically a read that no
    // barrier.cluster orders after the owner's writes.
    if (state.launch.options.checks.initcheck)
      for (uint64_t i = offset; i < offset + size; ++i)
        if (target->shadow[i].writeEpoch < target->baseEpoch) {
          state.fail(FindingKind::UninitializedRead, lane,
                     "shared::cluster read of " + std::to_string(size) +
                         " bytes at offset " + std::to_string(offset) +
                         " of CTA rank " + std::to_string(rank) + ": byte " +
                         std::to_string(i) +
                         " was never written by that CTA (a barrier.cluster "
                         "missing between its writes and this read?)");
          return nullptr;
        }
  } else {
    // Initialized for the target's initcheck; not race-checked.
    for (uint64_t i = offset; i < offset + size; ++i) {
      ShadowByte &sb = target->shadow[i];
      sb.writeEpoch = target->epoch;
      sb.writeFlags = kShadowRemote;
    }
  }
  return target->shared.data() + offset;
}

uint8_t *gmm::sim::accessMemory(ExecState &state, int lane, Space space,
                                uint64_t address, unsigned size, Access access,
                                unsigned alignment) {
  if (space == Space::Generic) {
    space = classifyGeneric(address);
    address = fromGeneric(space, address);
  }
  const Checks &checks = state.launch.options.checks;
  if (alignment > 1 && (address & (alignment - 1)) && checks.memcheck) {
    state.fail(
        FindingKind::Misaligned, lane,
        std::string("misaligned ") + spaceName(space) + " " +
            accessName(access) + " of " + std::to_string(size) + " bytes at " +
            (space == Space::Global ? hex(address) : "offset " + hex(address)) +
            " (needs " + std::to_string(alignment) + "-byte alignment)");
    return nullptr;
  }
  switch (space) {
  case Space::Global:
  case Space::Generic:
    return accessGlobal(state, lane, address, size, access, false);
  case Space::Const:
    return accessGlobal(state, lane, address, size, access, true);
  case Space::Shared: {
    uint32_t limit = state.launch.sharedBytes;
    if (address >= limits::kClusterWindowBytes)
      return accessClusterShared(state, lane, address, size, access);
    if (address >= limit || address + size > limit) {
      state.fail(FindingKind::OutOfBounds, lane,
                 std::string("out-of-bounds shared ") + accessName(access) +
                     " of " + std::to_string(size) + " bytes at offset " +
                     std::to_string(static_cast<int64_t>(address)) +
                     " (the block has " + std::to_string(limit) +
                     " bytes of shared memory)");
      return nullptr;
    }
    auto offset = static_cast<uint32_t>(address);
    if (!checkShared(state, lane, offset, size, access))
      return nullptr;
    return state.block.shared.data() + offset;
  }
  case Space::Local: {
    uint32_t limit = state.prog.localBytes;
    if (address >= limit || address + size > limit) {
      state.fail(FindingKind::OutOfBounds, lane,
                 std::string("out-of-bounds local ") + accessName(access) +
                     " of " + std::to_string(size) + " bytes at offset " +
                     std::to_string(static_cast<int64_t>(address)) +
                     " (the thread has " + std::to_string(limit) +
                     " bytes of local memory)");
      return nullptr;
    }
    return state.warp->local.data() + size_t(lane) * limit + address;
  }
  case Space::Param: {
    if (address < kThreadParamBase) {
      uint32_t limit = state.prog.paramBufferBytes;
      if (access != Access::Read) {
        state.fail(FindingKind::OutOfBounds, lane,
                   "write to kernel parameter memory at offset " +
                       std::to_string(address));
        return nullptr;
      }
      if (address + size > limit) {
        state.fail(FindingKind::OutOfBounds, lane,
                   "out-of-bounds parameter read of " + std::to_string(size) +
                       " bytes at offset " + std::to_string(address) +
                       " (the kernel has " + std::to_string(limit) +
                       " bytes of parameters)");
        return nullptr;
      }
      return const_cast<uint8_t *>(state.launch.params) + address;
    }
    uint64_t offset = address - kThreadParamBase;
    uint32_t limit = state.prog.paramBytes;
    if (offset + size > limit) {
      state.fail(FindingKind::OutOfBounds, lane,
                 "out-of-bounds parameter access of " + std::to_string(size) +
                     " bytes");
      return nullptr;
    }
    return state.warp->param.data() + size_t(lane) * limit + offset;
  }
  }
  return nullptr;
}

bool gmm::sim::markAsyncDestination(ExecState &state, int lane, uint32_t offset,
                                    unsigned size) {
  uint32_t limit = state.launch.sharedBytes;
  if (offset >= limit || uint64_t(offset) + size > limit) {
    state.fail(FindingKind::OutOfBounds, lane,
               "out-of-bounds cp.async destination of " + std::to_string(size) +
                   " bytes at shared offset " + std::to_string(offset) +
                   " (the block has " + std::to_string(limit) +
                   " bytes of shared memory)");
    return false;
  }
  const Checks &checks = state.launch.options.checks;
  if (!checks.racecheck && !checks.initcheck)
    return true;
  // The copy is a write that happens later: check it as a write now (it may
  // race with readers of the old contents), then mark it pending.
  if (!checkShared(state, lane, offset, size, Access::Write))
    return false;
  for (uint32_t i = offset; i < offset + size; ++i)
    state.block.shadow[i].writeFlags = kShadowPending;
  return true;
}

bool gmm::sim::checkAsyncProxyRead(ExecState &state, int lane, uint32_t offset,
                                   unsigned size, const char *reader) {
  if (!state.launch.options.checks.racecheck)
    return true;
  Block &block = state.block;
  for (uint32_t i = offset; i < offset + size && i < block.shadow.size(); ++i) {
    const ShadowByte &sb = block.shadow[i];
    if (sb.writeEpoch < block.baseEpoch || !(sb.writeFlags & kShadowGeneric) ||
        block.proxyFences[sb.writer] != sb.writerFences)
      continue;
    state.fail(FindingKind::SharedRace, lane,
               std::string(reader) + " reads shared byte " + std::to_string(i) +
                   ", which " + describeThread(state, sb.writer) +
                   " wrote through the generic proxy with no "
                   "fence.proxy.async after it (the async proxy may not see "
                   "the write)");
    return false;
  }
  return true;
}

bool gmm::sim::landAsyncCopy(ExecState &state, const AsyncCopy &copy) {
  uint8_t *dst = state.block.shared.data() + copy.dst;
  if (copy.srcSize)
    std::memcpy(dst, copy.src, copy.srcSize);
  if (copy.size > copy.srcSize)
    std::memset(dst + copy.srcSize, 0, copy.size - copy.srcSize);
  const Checks &checks = state.launch.options.checks;
  if (!checks.racecheck && !checks.initcheck)
    return true;
  uint16_t tid = static_cast<uint16_t>(state.warp->index * 32 + copy.lane);
  for (uint32_t i = copy.dst; i < copy.dst + copy.size; ++i) {
    ShadowByte &sb = state.block.shadow[i];
    sb.writeEpoch = state.block.epoch;
    sb.writer = tid;
    sb.writeFlags = kShadowAsync | kShadowGeneric;
    sb.writerFences = state.block.proxyFences[tid];
  }
  return true;
}
