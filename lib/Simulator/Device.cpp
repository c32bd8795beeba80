//===- Device.cpp - The simulated device: memory, modules, launches -------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Device memory lives in a reserved range of the host's address space that
// is never mapped: a device pointer dereferenced on the host faults, as on a
// real GPU, and kernels reach the separately allocated backing through the
// allocation map. Freed ranges are reused only when the range is used up,
// so that a use after free is an access to no allocation. New allocations
// are filled with 0xff bytes (NaN, -1), so that code that forgets to
// initialize memory computes visibly wrong results.
//
// A launch runs its blocks on worker threads; each worker reuses one Block.
// The first finding in block order wins, so reports are deterministic.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"
#include "DeviceModel.h"
#include "Launch.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace gmm::sim;

const char *gmm::sim::findingKindName(FindingKind kind) {
  switch (kind) {
  case FindingKind::OutOfBounds:
    return "memcheck";
  case FindingKind::Misaligned:
  case FindingKind::TmaMisuse:
    return "memcheck";
  case FindingKind::SharedRace:
    return "racecheck";
  case FindingKind::AsyncCopyHazard:
  case FindingKind::WgmmaHazard:
    return "racecheck";
  case FindingKind::UninitializedRead:
    return "initcheck";
  case FindingKind::BarrierDivergence:
  case FindingKind::CollectiveDivergence:
  case FindingKind::Deadlock:
  case FindingKind::MbarrierMisuse:
    return "synccheck";
  case FindingKind::Trap:
    return "trap";
  case FindingKind::AssertFailed:
    return "assert";
  case FindingKind::Unsupported:
    return "unsupported";
  case FindingKind::InvalidLaunch:
    return "launch";
  }
  return "?";
}

bool Checks::parse(std::string_view text, Checks &checks, std::string &error) {
  Checks result;
  if (text == "all" || text.empty()) {
    checks = result;
    return true;
  }
  result.memcheck = result.racecheck = result.initcheck = result.synccheck =
      false;
  if (text == "none") {
    checks = result;
    return true;
  }
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view name = text.substr(0, comma);
    if (name == "memcheck")
      result.memcheck = true;
    else if (name == "racecheck")
      result.racecheck = true;
    else if (name == "initcheck")
      result.initcheck = true;
    else if (name == "synccheck")
      result.synccheck = true;
    else {
      error = "unknown check '" + std::string(name) +
              "' (expected all, none, or a list of memcheck, racecheck, "
              "initcheck, synccheck)";
      return false;
    }
    if (comma == std::string_view::npos)
      break;
    text.remove_prefix(comma + 1);
  }
  checks = result;
  return true;
}

bool Options::fromEnvironment(Options &options, std::string &error) {
  if (const char *arch = std::getenv("GMM_SIM_ARCH"); arch && *arch) {
    std::string value = arch;
    if (value.rfind("sm_", 0) == 0)
      value = value.substr(3);
    if (value == "80")
      options.arch = 80;
    else if (value == "90" || value == "90a")
      options.arch = 90;
    else {
      error = "GMM_SIM_ARCH=" + std::string(arch) +
              ": the simulator models sm_80 and sm_90";
      return false;
    }
  }
  if (const char *checks = std::getenv("GMM_SIM_CHECKS"); checks && *checks)
    if (!Checks::parse(checks, options.checks, error)) {
      error = "GMM_SIM_CHECKS: " + error;
      return false;
    }
  if (const char *threads = std::getenv("GMM_SIM_THREADS");
      threads && *threads) {
    char *end = nullptr;
    long n = std::strtol(threads, &end, 10);
    if (*end || n < 0 || n > 1024) {
      error = "GMM_SIM_THREADS=" + std::string(threads) +
              ": expected a number of threads (0: one per core)";
      return false;
    }
    options.threads = static_cast<unsigned>(n);
  }
  if (const char *sms = std::getenv("GMM_SIM_SMS"); sms && *sms) {
    char *end = nullptr;
    long n = std::strtol(sms, &end, 10);
    if (*end || n < 1 || n > 1024) {
      error = "GMM_SIM_SMS=" + std::string(sms) +
              ": expected a number of multiprocessors from 1 to 1024";
      return false;
    }
    options.smCount = static_cast<unsigned>(n);
  }
  if (const char *timeout = std::getenv("GMM_SIM_TIMEOUT");
      timeout && *timeout) {
    char *end = nullptr;
    long n = std::strtol(timeout, &end, 10);
    if (*end || n <= 0 || n > 86400) {
      error = "GMM_SIM_TIMEOUT=" + std::string(timeout) +
              ": expected a number of seconds (1 to 86400)";
      return false;
    }
    options.timeoutSeconds = static_cast<unsigned>(n);
  }
  if (const char *trace = std::getenv("GMM_SIM_TRACE"); trace && *trace) {
    // kernel:block:thread
    std::string value = trace;
    size_t a = value.find(':'), b = a == std::string::npos
                                        ? std::string::npos
                                        : value.find(':', a + 1);
    if (b == std::string::npos) {
      error = "GMM_SIM_TRACE=" + value +
              ": expected KERNEL:BLOCK:THREAD (linear indices; KERNEL may "
              "be empty)";
      return false;
    }
    options.traceKernel = value.substr(0, a);
    char *end = nullptr;
    options.traceBlock = std::strtoll(value.c_str() + a + 1, &end, 10);
    bool ok = end == value.c_str() + b;
    options.traceThread = std::strtoll(value.c_str() + b + 1, &end, 10);
    ok &= *end == '\0' && options.traceBlock >= 0 && options.traceThread >= 0;
    if (!ok) {
      error = "GMM_SIM_TRACE=" + value + ": expected KERNEL:BLOCK:THREAD";
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Kernel and LoadedModule
//===----------------------------------------------------------------------===//

Kernel::Kernel(std::unique_ptr<Program> program) : prog(std::move(program)) {
  for (const ParamInfo &param : prog->params)
    paramList.push_back({param.name, param.offset, param.size});
  uint32_t limit = limits::kStaticSharedBytesPerBlock;
  maxDynamicSharedBytes =
      prog->staticSharedBytes < limit ? limit - prog->staticSharedBytes : 0;
}
Kernel::~Kernel() = default;
const std::string &Kernel::name() const { return prog->name; }
uint32_t Kernel::paramBufferBytes() const { return prog->paramBufferBytes; }
uint32_t Kernel::staticSharedBytes() const { return prog->staticSharedBytes; }
uint32_t Kernel::localBytes() const { return prog->localBytes; }
unsigned Kernel::maxThreads() const {
  if (prog->reqntid[0])
    return prog->reqntid[0] * prog->reqntid[1] * prog->reqntid[2];
  if (prog->maxntid[0])
    return prog->maxntid[0] * prog->maxntid[1] * prog->maxntid[2];
  return 0;
}

Kernel *LoadedModule::kernel(std::string_view name) {
  for (auto &k : kernelList)
    if (k->name() == name)
      return k.get();
  return nullptr;
}

const ModuleGlobal *LoadedModule::global(std::string_view name) const {
  for (const ModuleGlobal &g : globals)
    if (g.name == name)
      return &g;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

namespace {

/// A reserved range of the address space, handed out by a bump pointer;
/// freed ranges are reused only when the bump pointer reaches the end, so
/// that a use after free touches no allocation for as long as possible.
struct AddressRange {
  uint64_t base = 0, size = 0, bump = 0;
  std::vector<std::pair<uint64_t, uint64_t>> freeRanges;

  /// Reserves `bytes` of address space (PROT_NONE), or four times less
  /// down to 16 GiB when the host refuses.
  void reserve(uint64_t bytes) {
    size = bytes;
    void *p = mmap(nullptr, size, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      size = uint64_t(1) << 34;
      p = mmap(nullptr, size, PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    base = p == MAP_FAILED ? 0 : reinterpret_cast<uintptr_t>(p);
    if (!base)
      size = 0;
  }
  void release() {
    if (base)
      munmap(reinterpret_cast<void *>(base), size);
  }
  bool contains(uint64_t address) const { return address - base < size; }
  /// Whether [address, address + bytes) meets the range (no wrap-around:
  /// the caller checked it).
  bool overlaps(uint64_t address, uint64_t bytes) const {
    return size && address < base + size && base < address + bytes;
  }
  /// `bytes` of the range, or 0.
  uint64_t take(uint64_t bytes) {
    if (bytes <= size - bump) {
      uint64_t address = base + bump;
      bump += bytes;
      return address;
    }
    for (auto it = freeRanges.begin(); it != freeRanges.end(); ++it) {
      if (it->second < bytes)
        continue;
      uint64_t address = it->first;
      it->first += bytes;
      it->second -= bytes;
      if (!it->second)
        freeRanges.erase(it);
      return address;
    }
    return 0;
  }
  void give(uint64_t address, uint64_t bytes) {
    freeRanges.emplace_back(address, bytes);
  }
};

uint64_t pageSize() {
  static const uint64_t size = [] {
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? static_cast<uint64_t>(page) : uint64_t(4096);
  }();
  return size;
}

/// `bytes` rounded up to whole pages (`bytes` is at most the reserve size).
uint64_t roundPages(uint64_t bytes) {
  uint64_t page = pageSize();
  return (std::max<uint64_t>(bytes, 1) + page - 1) / page * page;
}

/// Addresses below this are the null page(s) that no mapping may use.
constexpr uint64_t kNullPages = uint64_t(1) << 16;

/// Whether [address, address + bytes) is mapped readable and writable in
/// this process (what pinning it would need). True when /proc/self/maps
/// cannot be read.
bool isMappedReadWrite(uint64_t address, uint64_t bytes) {
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return true;
  uint64_t covered = address, end = address + bytes;
  char line[256];
  bool ok = false;
  while (std::fgets(line, sizeof(line), maps)) {
    // The address range and permissions start the line; skip the rest of a
    // long one (a long path).
    if (!std::strchr(line, '\n')) {
      int c;
      while ((c = std::fgetc(maps)) != EOF && c != '\n') {
      }
    }
    unsigned long long low = 0, high = 0;
    char perms[8] = {0};
    if (std::sscanf(line, "%llx-%llx %7s", &low, &high, perms) != 3)
      continue;
    // Lines are sorted by address.
    if (high <= covered)
      continue;
    if (low > covered || perms[0] != 'r' || perms[1] != 'w')
      break;
    covered = high;
    if (covered >= end) {
      ok = true;
      break;
    }
  }
  std::fclose(maps);
  return ok;
}

} // namespace

struct Device::Impl {
  std::mutex mutex;
  MemoryMap memory;
  /// The reserved device address range (cuMemAlloc memory), and the one of
  /// managed and pinned host memory, whose pages are mapped while allocated.
  AddressRange deviceRange, hostRange;
  uint64_t used = 0;

  /// Whether [base, base + size) (which does not wrap) meets an allocation.
  bool overlapsAllocation(uint64_t base, uint64_t size) const {
    auto next = memory.allocations.lower_bound(base);
    if (next != memory.allocations.end() && next->first < base + size)
      return true;
    if (next != memory.allocations.begin()) {
      auto prev = std::prev(next);
      if (prev->first + std::max<uint64_t>(prev->second.size, 1) > base)
        return true;
    }
    return false;
  }

  /// The device or managed allocation that starts at `address` (what
  /// cuMemFree frees), or the end of the map.
  std::map<uint64_t, Allocation>::iterator findFreeable(uint64_t address) {
    auto it = memory.allocations.find(address);
    if (it != memory.allocations.end() &&
        it->second.kind != Allocation::Device &&
        it->second.kind != Allocation::Managed)
      return memory.allocations.end();
    return it;
  }

  bool addRange(uint64_t base, uint64_t size, uint8_t *host,
                Allocation::Kind kind) {
    // Refuse overlaps (e.g. registering host memory twice).
    if (overlapsAllocation(base, std::max<uint64_t>(size, 1)))
      return false;
    Allocation a;
    a.base = base;
    a.size = size;
    a.host = host;
    a.kind = kind;
    memory.allocations[base] = a;
    return true;
  }

  /// Whether [address, address + bytes) (which does not wrap) meets address
  /// space that only the device hands out: its reserved ranges and the
  /// generic-address windows of shared and local memory.
  bool touchesReserved(uint64_t address, uint64_t bytes) const {
    const AddressWindows &w = getAddressWindows();
    auto meets = [&](uint64_t base, uint64_t size) {
      return size && address < base + size && base < address + bytes;
    };
    return deviceRange.overlaps(address, bytes) ||
           hostRange.overlaps(address, bytes) ||
           meets(w.sharedBase, AddressWindows::kSharedSize) ||
           meets(w.localBase, AddressWindows::kLocalSize);
  }

  /// Makes `bytes` of zeroed pages of the host range accessible; 0 when it
  /// is full. (mprotect and madvise rather than mmap: the pages come and go
  /// without new mappings, and AddressSanitizer does not touch the shadow of
  /// every range the bump pointer passes.)
  uint64_t mapHostPages(uint64_t bytes) {
    uint64_t length = roundPages(bytes);
    uint64_t address = hostRange.take(length);
    if (!address)
      return 0;
    if (mprotect(reinterpret_cast<void *>(address), length,
                 PROT_READ | PROT_WRITE) != 0) {
      hostRange.give(address, length);
      return 0;
    }
    return address;
  }
  /// Drops the pages of a managed or pinned allocation (they read as zeros
  /// when the range is reused) and makes them inaccessible: a host access
  /// after the free faults. The range is reused late.
  void unmapHostPages(uint64_t address, uint64_t bytes) {
    uint64_t length = roundPages(bytes);
    madvise(reinterpret_cast<void *>(address), length, MADV_DONTNEED);
    mprotect(reinterpret_cast<void *>(address), length, PROT_NONE);
    hostRange.give(address, length);
  }
};

static uint64_t defaultMemoryBytes(uint64_t requested) {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0) {
    uint64_t half = static_cast<uint64_t>(pages) * pageSize / 2;
    return std::min(requested, half);
  }
  return requested;
}

Device::Device(const Options &options)
    : opts(options), impl(std::make_unique<Impl>()) {
  opts.memoryBytes = defaultMemoryBytes(opts.memoryBytes);
  // Reserve four times the memory size: freed ranges are reused late.
  impl->deviceRange.reserve(opts.memoryBytes * 4);
  impl->hostRange.reserve(opts.memoryBytes * 4);
  getAddressWindows();
}

Device::~Device() {
  for (auto &[base, a] : impl->memory.allocations)
    if (a.kind == Allocation::Device || a.kind == Allocation::ModuleGlobal ||
        a.kind == Allocation::ModuleConst)
      std::free(a.host);
  // Managed and pinned host memory go with their range.
  impl->deviceRange.release();
  impl->hostRange.release();
}

std::string Device::name() const {
  return "gmm simulated GPU (sm_" + std::to_string(opts.arch) +
         ", PTX simulator)";
}

bool Device::allocate(uint64_t bytes, uint64_t &address, std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (bytes > opts.memoryBytes ||
      roundAllocation(bytes) > opts.memoryBytes - impl->used) {
    error = "out of device memory (" + std::to_string(bytes) +
            " bytes requested, " +
            std::to_string(opts.memoryBytes - impl->used) + " free)";
    return false;
  }
  uint64_t size = roundAllocation(bytes);
  uint64_t base = impl->deviceRange.take(size);
  auto *host = base ? static_cast<uint8_t *>(std::malloc(size)) : nullptr;
  if (!base || !host) {
    std::free(host);
    if (base)
      impl->deviceRange.give(base, size);
    error = "out of device memory (the host could not back " +
            std::to_string(bytes) + " bytes)";
    return false;
  }
  std::memset(host, 0xff, size);
  impl->addRange(base, bytes, host, Allocation::Device);
  impl->used += size;
  address = base;
  return true;
}

bool Device::allocateManaged(uint64_t bytes, uint64_t &address,
                             std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (bytes > opts.memoryBytes ||
      roundAllocation(bytes) > opts.memoryBytes - impl->used) {
    error = "out of device memory (" + std::to_string(bytes) +
            " bytes of managed memory requested)";
    return false;
  }
  uint64_t size = roundAllocation(bytes);
  uint64_t base = impl->mapHostPages(size);
  if (!base) {
    error = "out of host memory for " + std::to_string(bytes) +
            " bytes of managed memory";
    return false;
  }
  // Managed memory is host memory that the hardware maps in whole pages, so
  // a kernel that reads a little past the requested size does not fault on
  // a GPU (upstream MLIR's alloc-host-shared test does so). It is
  // accessible up to its 256-byte allocation granularity here too; device
  // memory (cuMemAlloc, what gmm's kernels use) keeps the exact bounds.
  impl->addRange(base, size, reinterpret_cast<uint8_t *>(base),
                 Allocation::Managed);
  impl->used += size;
  address = base;
  return true;
}

bool Device::free(uint64_t address, std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->findFreeable(address);
  if (it == impl->memory.allocations.end()) {
    error = "not the start of a live device or managed allocation";
    return false;
  }
  Allocation a = it->second;
  impl->memory.allocations.erase(it);
  uint64_t size = roundAllocation(a.size);
  impl->used -= size;
  if (a.kind == Allocation::Device) {
    std::free(a.host);
    impl->deviceRange.give(a.base, size);
  } else {
    impl->unmapHostPages(a.base, a.size);
  }
  return true;
}

bool Device::allocateHost(uint64_t bytes, void *&pointer, std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  uint64_t base =
      bytes && bytes <= impl->hostRange.size ? impl->mapHostPages(bytes) : 0;
  if (!base) {
    error = "out of host memory for " + std::to_string(bytes) +
            " bytes of pinned host memory";
    return false;
  }
  impl->addRange(base, bytes, reinterpret_cast<uint8_t *>(base),
                 Allocation::HostAllocated);
  pointer = reinterpret_cast<void *>(static_cast<uintptr_t>(base));
  return true;
}

bool Device::freeHost(void *pointer, std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->memory.allocations.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == impl->memory.allocations.end() ||
      it->second.kind != Allocation::HostAllocated) {
    error = "not the start of live pinned host memory (cuMemAllocHost or "
            "cuMemHostAlloc)";
    return false;
  }
  Allocation a = it->second;
  impl->memory.allocations.erase(it);
  impl->unmapHostPages(a.base, a.size);
  return true;
}

Device::Registration Device::registerHost(void *pointer, uint64_t bytes,
                                          std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto base = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer));
  uint64_t end = 0;
  if (!bytes || __builtin_add_overflow(base, bytes, &end) ||
      base < kNullPages) {
    char at[32];
    std::snprintf(at, sizeof(at), "0x%llx",
                  static_cast<unsigned long long>(base));
    error = "cannot register " + std::to_string(bytes) + " bytes at " + at +
            ": not a range of host memory";
    return Registration::Invalid;
  }
  // Pinned and managed memory (in the device's reserved ranges) is mapped
  // for the device already; any other range there is not host memory.
  const Allocation *inside = impl->memory.find(base);
  bool withinAllocation =
      inside && bytes <= inside->size - (base - inside->base);
  if (impl->touchesReserved(base, bytes) && !withinAllocation) {
    error = "cannot register host memory that overlaps the device's memory";
    return Registration::Invalid;
  }
  if (impl->overlapsAllocation(base, bytes)) {
    error = "host memory already registered (or overlapping an allocation)";
    return Registration::AlreadyRegistered;
  }
  if (!isMappedReadWrite(base, bytes)) {
    error = "cannot register " + std::to_string(bytes) +
            " bytes of host memory: not all of it is mapped readable and "
            "writable";
    return Registration::Invalid;
  }
  impl->addRange(base, bytes, static_cast<uint8_t *>(pointer),
                 Allocation::HostRegistered);
  return Registration::Registered;
}

bool Device::unregisterHost(void *pointer, std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->memory.allocations.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == impl->memory.allocations.end() ||
      it->second.kind != Allocation::HostRegistered) {
    error = "host memory not registered";
    return false;
  }
  impl->memory.allocations.erase(it);
  return true;
}

Device::ResolvedRange Device::resolve(uint64_t address, uint64_t bytes) const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  ResolvedRange range;
  uint64_t end = 0;
  if (address < kNullPages || __builtin_add_overflow(address, bytes, &end))
    return range;
  if (const Allocation *a = impl->memory.find(address)) {
    uint64_t offset = address - a->base;
    if (bytes > a->size - std::min(offset, a->size))
      return range;
    range.kind = MemoryKind::Allocated;
    range.pointer = a->host + offset;
    return range;
  }
  // Freed or never allocated device memory, or a window of the device.
  if (impl->touchesReserved(address, std::max<uint64_t>(bytes, 1)))
    return range;
  range.kind = MemoryKind::Pageable;
  range.pointer = reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(address));
  return range;
}

uint8_t *Device::hostPointer(uint64_t address, uint64_t bytes) {
  ResolvedRange range = resolve(address, bytes);
  return range.kind == MemoryKind::Allocated ? range.pointer : nullptr;
}

bool Device::isAllocationStart(uint64_t address) const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->findFreeable(address) != impl->memory.allocations.end();
}

uint64_t Device::usedBytes() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->used;
}

LoadedModule::~LoadedModule() {
  if (!device)
    return;
  std::lock_guard<std::mutex> lock(device->impl->mutex);
  for (const ModuleGlobal &g : globals) {
    auto it = device->impl->memory.allocations.find(g.address);
    if (it == device->impl->memory.allocations.end())
      continue;
    std::free(it->second.host);
    device->impl->memory.allocations.erase(it);
  }
}

std::unique_ptr<LoadedModule> Device::load(std::string_view text,
                                           std::string &log) {
  std::string error;
  std::unique_ptr<ptx::Module> module = ptx::parse(text, error);
  if (!module) {
    log = "ptx " + error;
    return nullptr;
  }
  // The target: sm_XX{a}; a device runs PTX for its architecture or older
  // (the "a" variants only on their own).
  const std::string &target = module->target;
  if (target.rfind("sm_", 0) != 0) {
    log = "ptx: unsupported .target '" + target + "'";
    return nullptr;
  }
  unsigned targetArch = static_cast<unsigned>(std::atoi(target.c_str() + 3));
  bool archSpecific =
      !target.empty() && (target.back() == 'a' || target.back() == 'f');
  if (targetArch > opts.arch || (archSpecific && targetArch != opts.arch)) {
    log = "ptx: the module targets " + target +
          ", which the simulated device (sm_" + std::to_string(opts.arch) +
          ") cannot run";
    return nullptr;
  }
  auto loaded = std::unique_ptr<LoadedModule>(new LoadedModule());
  loaded->device = this;
  GlobalSymbols symbols;
  // Module variables: .global and .const get device memory, .shared an
  // entry that each kernel lays out.
  for (const ptx::Declaration &decl : module->globals) {
    GlobalSymbol symbol;
    uint64_t size = 0;
    unsigned align = 1;
    if (!declarationLayout(decl, size, align, error)) {
      log = "ptx " + error;
      return nullptr;
    }
    symbol.size = size;
    symbol.align = align;
    if (decl.space == "shared") {
      symbol.space = Space::Shared;
      symbol.isExternShared = decl.isExtern || isZeroLengthShared(decl);
      symbols[decl.name] = symbol;
      continue;
    }
    if (decl.space != "global" && decl.space != "const") {
      log = "ptx line " + std::to_string(decl.line) + ": unsupported ." +
            decl.space + " variable '" + decl.name + "' at module scope";
      return nullptr;
    }
    if (decl.isExtern) {
      log = "ptx line " + std::to_string(decl.line) + ": external variable '" +
            decl.name + "' is not defined by the module";
      return nullptr;
    }
    uint64_t address = 0;
    if (!allocate(size, address, error)) {
      log = "ptx line " + std::to_string(decl.line) + ": " + error;
      return nullptr;
    }
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      Allocation &a = impl->memory.allocations[address];
      a.kind = decl.space == "const" ? Allocation::ModuleConst
                                     : Allocation::ModuleGlobal;
      std::memset(a.host, 0, roundAllocation(size));
      impl->used -= roundAllocation(size); // not user device memory
    }
    symbol.space = decl.space == "const" ? Space::Const : Space::Global;
    symbol.address = address;
    symbols[decl.name] = symbol;
    loaded->globals.push_back({decl.name, address, size});
  }
  // Initializers, once every variable has its address.
  for (const ptx::Declaration &decl : module->globals) {
    if (!decl.hasInit || decl.space == "shared")
      continue;
    const GlobalSymbol &symbol = symbols[decl.name];
    uint8_t *host = hostPointer(symbol.address, symbol.size);
    Ty type = parseType(decl.type);
    unsigned width = byteWidth(type);
    for (size_t i = 0; i < decl.init.size(); ++i) {
      const ptx::Declaration::Init &init = decl.init[i];
      uint64_t bits = init.bits;
      if (!init.symbol.empty()) {
        auto it = symbols.find(init.symbol);
        if (it == symbols.end() || it->second.space == Space::Shared) {
          log = "ptx line " + std::to_string(decl.line) +
                ": initializer names unknown or shared symbol '" + init.symbol +
                "'";
          return nullptr;
        }
        bits = it->second.address + init.bits;
      } else if (init.isFloat) {
        double value = init.isDouble ? bitsAs<double>(init.bits)
                                     : bitsAs<float>(init.bits & 0xffffffffu);
        if (type == Ty::F32)
          bits = asBits(static_cast<float>(value)) & 0xffffffffu;
        else if (type == Ty::F64)
          bits = asBits(value);
        else if (type == Ty::F16)
          bits = floatToHalf(static_cast<float>(value), Round::RN);
        else if (type == Ty::BF16)
          bits = floatToBF16(static_cast<float>(value), Round::RN);
      }
      if ((i + 1) * width > symbol.size) {
        log = "ptx line " + std::to_string(decl.line) +
              ": too many initializer values for '" + decl.name + "'";
        return nullptr;
      }
      std::memcpy(host + i * width, &bits, width);
    }
  }
  // Kernels, and every other function for what the JIT would report.
  for (const ptx::Function &fn : module->functions) {
    if (!fn.hasBody)
      continue;
    if (!fn.isEntry) {
      if (!validateFunction(*module, fn, symbols, opts.arch, error)) {
        log = "ptx " + error;
        return nullptr;
      }
      continue;
    }
    auto program = std::make_unique<Program>();
    if (!decodeKernel(*module, fn, symbols, opts.arch, *program, error)) {
      log = "ptx " + error;
      return nullptr;
    }
    loaded->kernelList.push_back(std::make_unique<Kernel>(std::move(program)));
  }
  return loaded;
}

Dim3 gmm::sim::clusterOf(const Program &prog, const LaunchConfig &config) {
  const Dim3 &c = config.cluster;
  if ((c.x != 1 || c.y != 1 || c.z != 1) || !prog.reqnctapercluster[0])
    return c;
  return {prog.reqnctapercluster[0], std::max(1u, prog.reqnctapercluster[1]),
          std::max(1u, prog.reqnctapercluster[2])};
}

std::string gmm::sim::checkLaunchConfig(const Device &device,
                                        const Kernel &kernel,
                                        const LaunchConfig &config) {
  const Dim3 &b = config.block, &g = config.grid;
  if (!b.x || !b.y || !b.z || !g.x || !g.y || !g.z)
    return "a launch dimension is zero";
  using namespace limits;
  auto triple = [](uint32_t x, uint32_t y, uint32_t z) {
    return "(" + std::to_string(x) + "," + std::to_string(y) + "," +
           std::to_string(z) + ")";
  };
  if (b.x > kMaxBlockX || b.y > kMaxBlockY || b.z > kMaxBlockZ)
    return "block dimensions " + triple(b.x, b.y, b.z) + " exceed " +
           triple(kMaxBlockX, kMaxBlockY, kMaxBlockZ);
  uint64_t threads = uint64_t(b.x) * b.y * b.z;
  if (threads > kMaxThreadsPerBlock)
    return "block of " + std::to_string(threads) + " threads (the limit is " +
           std::to_string(kMaxThreadsPerBlock) + ")";
  if (g.x > kMaxGridX || g.y > kMaxGridY || g.z > kMaxGridZ)
    return "grid dimensions exceed " + triple(kMaxGridX, kMaxGridY, kMaxGridZ);
  const Program &prog = kernel.program();
  if (prog.reqntid[0] && (b.x != prog.reqntid[0] || b.y != prog.reqntid[1] ||
                          b.z != prog.reqntid[2]))
    return "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," +
           std::to_string(b.z) + ") differs from the kernel's .reqntid";
  if (prog.maxntid[0] &&
      threads > uint64_t(prog.maxntid[0]) * prog.maxntid[1] * prog.maxntid[2])
    return "block of " + std::to_string(threads) +
           " threads exceeds the kernel's .maxntid";
  const Dim3 &cc = config.cluster;
  Dim3 cluster = clusterOf(prog, config);
  if (!cluster.x || !cluster.y || !cluster.z)
    return "a cluster dimension is zero";
  if (prog.reqnctapercluster[0] && (cc.x != 1 || cc.y != 1 || cc.z != 1) &&
      (cc.x != prog.reqnctapercluster[0] ||
       cc.y != std::max(1u, prog.reqnctapercluster[1]) ||
       cc.z != std::max(1u, prog.reqnctapercluster[2])))
    return "cluster " + triple(cc.x, cc.y, cc.z) +
           " differs from the kernel's .reqnctapercluster";
  uint64_t clusterSize = uint64_t(cluster.x) * cluster.y * cluster.z;
  if (clusterSize > 1) {
    if (device.options().arch < 90)
      return "thread block clusters need sm_90";
    if (clusterSize > kMaxClusterSize)
      return "cluster of " + std::to_string(clusterSize) +
             " blocks (the limit is " + std::to_string(kMaxClusterSize) + ")";
    if (g.x % cluster.x || g.y % cluster.y || g.z % cluster.z)
      return "grid " + triple(g.x, g.y, g.z) +
             " is not a multiple of the cluster " +
             triple(cluster.x, cluster.y, cluster.z);
  }
  if (config.dynamicSharedBytes > kernel.maxDynamicSharedBytes)
    return std::to_string(config.dynamicSharedBytes) +
           " bytes of dynamic shared memory exceed the kernel's limit of " +
           std::to_string(kernel.maxDynamicSharedBytes) +
           " (raise it with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)";
  // Static shared memory, then dynamic (its alignment padding on sm_90 is
  // the simulator's, not the kernel's).
  uint64_t shared = (uint64_t(prog.staticSharedBytes) + 15) / 16 * 16 +
                    config.dynamicSharedBytes;
  uint32_t optin =
      deviceModel(device.options().arch).maxSharedBytesPerBlockOptin;
  if (shared > optin)
    return std::to_string(shared) +
           " bytes of shared memory per block exceed the device's " +
           std::to_string(optin);
  // The simulator's own memory for the block's registers and local memory.
  uint64_t perWarp = uint64_t(prog.numSlots) * 32 * 8 +
                     uint64_t(prog.localBytes + prog.paramBytes) * 32;
  if (perWarp * ((threads + 31) / 32) > (uint64_t(1) << 32))
    return "a block of this kernel needs more than 4 GiB of simulator memory "
           "(" +
           std::to_string(prog.numSlots) + " registers per thread)";
  if (prog.localBytes > kMaxLocalBytesPerThread)
    return "the kernel needs " + std::to_string(prog.localBytes) +
           " bytes of local memory per thread (the limit is " +
           std::to_string(kMaxLocalBytesPerThread / 1024) + " KiB)";
  return "";
}

namespace {

/// The order in which the blocks of launches that run together start:
/// block 0 of each launch (in launch order), then block 1 of each launch
/// that has one, and so on. Index i's block is computed, not looked up, so
/// that the order takes no memory however many blocks there are.
class BlockOrder {
public:
  explicit BlockOrder(const std::vector<uint64_t> &counts) : counts(counts) {
    // Phases: between two consecutive distinct block counts, the launches
    // with more blocks take turns, one block each.
    std::vector<uint64_t> ends;
    for (uint64_t count : counts)
      if (count)
        ends.push_back(count);
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    uint64_t firstBlock = 0, start = 0;
    for (uint64_t end : ends) {
      Phase phase;
      phase.start = start;
      phase.firstBlock = firstBlock;
      for (uint32_t l = 0; l < counts.size(); ++l)
        if (counts[l] >= end)
          phase.launches.push_back(l);
      uint64_t length = 0;
      if (__builtin_mul_overflow(end - firstBlock,
                                 uint64_t(phase.launches.size()), &length) ||
          __builtin_add_overflow(start, length, &start))
        start = UINT64_MAX; // more blocks than anything runs
      phases.push_back(std::move(phase));
      firstBlock = end;
      if (start == UINT64_MAX)
        break;
    }
    totalBlocks = start;
  }

  /// How many blocks there are (saturated at 2^64 - 1).
  uint64_t total() const { return totalBlocks; }

  /// The launch and block of index `i` (< total()).
  std::pair<uint32_t, uint64_t> at(uint64_t i) const {
    if (counts.size() == 1)
      return {0, i};
    size_t p = phases.size() - 1;
    while (p > 0 && i < phases[p].start)
      --p;
    const Phase &phase = phases[p];
    uint64_t offset = i - phase.start, n = phase.launches.size();
    return {phase.launches[offset % n], phase.firstBlock + offset / n};
  }

private:
  struct Phase {
    uint64_t start = 0;      // the index of the phase's first block
    uint64_t firstBlock = 0; // the block index it starts at
    std::vector<uint32_t> launches;
  };
  const std::vector<uint64_t> &counts;
  std::vector<Phase> phases;
  uint64_t totalBlocks = 0;
};

} // namespace

LaunchResult Device::launch(const Kernel &kernel, const LaunchConfig &config,
                            const void *params) {
  return launchAll({{&kernel, config, params}}).front();
}

std::vector<LaunchResult>
Device::launchAll(const std::vector<LaunchRequest> &requests) {
  std::vector<LaunchResult> results(requests.size());
  std::vector<std::unique_ptr<LaunchContext>> contexts(requests.size());
  std::vector<uint64_t> blockCounts(requests.size(), 0);
  std::lock_guard<std::mutex> lock(impl->mutex);
  for (size_t i = 0; i < requests.size(); ++i) {
    const LaunchRequest &r = requests[i];
    std::string invalid = checkLaunchConfig(*this, *r.kernel, r.config);
    if (!invalid.empty()) {
      results[i].ok = false;
      results[i].kind = FindingKind::InvalidLaunch;
      results[i].message =
          "invalid launch of kernel " + r.kernel->name() + ": " + invalid;
      continue;
    }
    const Program &prog = r.kernel->program();
    auto context = std::make_unique<LaunchContext>(prog, opts, impl->memory);
    context->params = static_cast<const uint8_t *>(r.params);
    context->config = r.config;
    context->sharedBytes =
        r.config.dynamicSharedBytes
            ? prog.dynamicSharedOffset + r.config.dynamicSharedBytes
            : prog.staticSharedBytes;
    context->threadsPerBlock =
        r.config.block.x * r.config.block.y * r.config.block.z;
    context->smCount =
        opts.smCount ? opts.smCount : deviceModel(opts.arch).smCount;
    context->cluster = clusterOf(prog, r.config);
    context->clusterSize =
        context->cluster.x * context->cluster.y * context->cluster.z;
    const Dim3 &asked = r.config.cluster;
    context->explicitCluster = prog.explicitCluster ||
                               prog.reqnctapercluster[0] || asked.x != 1 ||
                               asked.y != 1 || asked.z != 1;
    // Units of work: blocks, or whole clusters.
    blockCounts[i] = uint64_t(r.config.grid.x) * r.config.grid.y *
                     r.config.grid.z / context->clusterSize;
    contexts[i] = std::move(context);
  }
  // The blocks to run: one launch's in order, or several launches'
  // interleaved so that they make progress together (computed per index,
  // never listed: a grid may have 2^63 blocks).
  BlockOrder order(blockCounts);
  uint64_t total = order.total();
  unsigned workers = opts.threads
                         ? opts.threads
                         : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(
      std::min<uint64_t>(workers, std::max<uint64_t>(total, 1)));
  std::atomic<uint64_t> next{0};
  std::mutex outputMutex;
  // Output per (launch, block).
  std::map<std::pair<uint32_t, uint64_t>, std::pair<std::string, std::string>>
      outputs;
  std::vector<std::atomic<uint64_t>> warpCounts(requests.size()),
      threadCounts(requests.size()), finishedCounts(requests.size());
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(opts.timeoutSeconds);
  // Set once the launches ran past GMM_SIM_TIMEOUT: no block starts after
  // it, and blocks still running stop with a finding.
  std::atomic<bool> timedOut{false};
  auto expired = [&] {
    if (timedOut.load(std::memory_order_relaxed))
      return true;
    if (std::chrono::steady_clock::now() <= deadline)
      return false;
    timedOut.store(true, std::memory_order_relaxed);
    return true;
  };
  auto work = [&] {
    // Blocks resident on this worker, stepped in turn: a block that waits
    // for another (or for another kernel) lets it run.
    // A block, or the blocks of a cluster (which stay until all of them
    // finish: they may use each other's shared memory).
    struct Resident {
      uint32_t launch;
      std::vector<std::unique_ptr<Block>> blocks;
      std::unique_ptr<Cluster> cluster;
      std::vector<bool> done;
    };
    std::vector<Resident> resident;
    std::vector<std::unique_ptr<Block>> spare;
    uint32_t epochClock = 0;
    std::vector<uint64_t> warps(requests.size(), 0),
        threads(requests.size(), 0), finished(requests.size(), 0);
    constexpr size_t kMaxResident = 8;
    constexpr uint64_t kSlice = 1 << 16;
    bool exhausted = false;
    uint64_t admissions = 0;
    // Starts the next block in order, if any is left and time is too
    // (checked every 16 blocks, and while a block outlives its slice: a
    // launch of many short blocks times out as well as one long block).
    auto admit = [&] {
      while (!exhausted) {
        if ((++admissions % 16 == 0 && expired()) ||
            timedOut.load(std::memory_order_relaxed)) {
          exhausted = true;
          return;
        }
        uint64_t i = next.fetch_add(1);
        if (i >= total) {
          exhausted = true;
          return;
        }
        auto [l, unit] = order.at(i);
        LaunchContext *context = contexts[l].get();
        if (!context)
          continue;
        // The unit's blocks: block `unit`, or the blocks of cluster `unit`
        // by rank (x fastest).
        const Dim3 &g = context->config.grid, &c = context->cluster;
        std::vector<uint64_t> linears;
        if (context->clusterSize == 1) {
          linears.push_back(unit);
        } else {
          uint64_t nx = g.x / c.x, ny = g.y / c.y;
          uint64_t cx = unit % nx, cy = (unit / nx) % ny, cz = unit / (nx * ny);
          for (uint32_t r = 0; r < context->clusterSize; ++r) {
            uint64_t x = cx * c.x + r % c.x, y = cy * c.y + (r / c.x) % c.y,
                     z = cz * c.z + r / (c.x * c.y);
            linears.push_back(x + y * g.x + z * uint64_t(g.x) * g.y);
          }
        }
        if (linears.front() > context->stopAfter.load())
          continue;
        Resident res;
        res.launch = l;
        if (context->clusterSize > 1) {
          res.cluster = std::make_unique<Cluster>();
          Cluster &cl = *res.cluster;
          cl.dims[0] = c.x;
          cl.dims[1] = c.y;
          cl.dims[2] = c.z;
          uint64_t nx = g.x / c.x, ny = g.y / c.y;
          cl.id[0] = static_cast<uint32_t>(unit % nx);
          cl.id[1] = static_cast<uint32_t>((unit / nx) % ny);
          cl.id[2] = static_cast<uint32_t>(unit / (nx * ny));
          cl.count[0] = g.x / c.x;
          cl.count[1] = g.y / c.y;
          cl.count[2] = g.z / c.z;
          cl.isExplicit = context->explicitCluster;
          cl.threads = context->threadsPerBlock * context->clusterSize;
        }
        for (uint32_t r = 0; r < linears.size(); ++r) {
          std::unique_ptr<Block> block;
          if (!spare.empty()) {
            block = std::move(spare.back());
            spare.pop_back();
          } else {
            block = std::make_unique<Block>();
          }
          block->cluster = res.cluster.get();
          block->clusterRank = r;
          if (res.cluster)
            res.cluster->members.push_back(block.get());
          res.blocks.push_back(std::move(block));
        }
        for (uint32_t r = 0; r < linears.size(); ++r)
          startBlock(*context, *res.blocks[r], linears[r], epochClock);
        res.done.assign(linears.size(), false);
        resident.push_back(std::move(res));
        return;
      }
    };
    while (true) {
      // Admit a new block while there is room (always when none runs).
      if (resident.empty())
        admit();
      if (resident.empty())
        break;
      bool anyFinished = false;
      for (size_t r = 0; r < resident.size();) {
        Resident &res = resident[r];
        LaunchContext &context = *contexts[res.launch];
        bool allDone = true, allBlocked = true;
        for (size_t m = 0; m < res.blocks.size(); ++m) {
          if (res.done[m])
            continue;
          Block &member = *res.blocks[m];
          bool blocked = false;
          bool done =
              stepBlock(context, member, kSlice, warps[res.launch],
                        threads[res.launch], res.cluster ? &blocked : nullptr);
          if (!done && expired()) {
            std::lock_guard<std::mutex> guard(context.mutex);
            if (!context.hasFinding || member.linear < context.findingBlock) {
              context.hasFinding = true;
              context.findingBlock = member.linear;
              context.findingKind = FindingKind::Deadlock;
              context.findingMessage =
                  "kernel " + context.prog.name + " did not finish within " +
                  std::to_string(opts.timeoutSeconds) +
                  " s of simulation (block " + std::to_string(member.linear) +
                  " still runs): an endless loop, or threads that wait for "
                  "something that never happens (GMM_SIM_TIMEOUT sets the "
                  "limit)";
              context.stopAfter.store(member.linear);
            }
            done = true;
          }
          res.done[m] = done;
          allDone &= done;
          allBlocked &= done || blocked;
        }
        // Every unfinished block of the cluster waits, no block woke
        // another after it stopped, and no load that a later member issued
        // (a multicast, a copy into another CTA's shared memory) is still
        // to land on one: nothing can release them.
        for (size_t m = 0; m < res.blocks.size() && allBlocked; ++m) {
          const Block &member = *res.blocks[m];
          if (res.done[m])
            continue;
          for (uint32_t w = 0; w < member.numWarps; ++w)
            allBlocked &= member.warps[w].ready == 0;
          for (const BulkCopy &copy : member.bulkCopies)
            allBlocked &= copy.kind != BulkCopy::TensorLoad;
        }
        if (!allDone && allBlocked) {
          // After an earlier block's finding the launch fails anyway:
          // retire the cluster without a second diagnosis.
          for (size_t m = 0; m < res.blocks.size(); ++m)
            if (!res.done[m]) {
              if (context.stopAfter.load() >= res.blocks[m]->linear)
                diagnoseBlock(context, *res.blocks[m]);
              break;
            }
          allDone = true;
        }
        if (!allDone) {
          ++r;
          continue;
        }
        anyFinished = true;
        ++finished[res.launch];
        for (std::unique_ptr<Block> &block : res.blocks) {
          if (!block->output.empty() || !block->assertions.empty()) {
            std::lock_guard<std::mutex> guard(outputMutex);
            outputs[{res.launch, block->linear}] = {
                std::move(block->output), std::move(block->assertions)};
          }
          block->cluster = nullptr;
          spare.push_back(std::move(block));
        }
        resident.erase(resident.begin() + static_cast<long>(r));
      }
      // A block that did not finish in its slice may wait for another one:
      // admit one more next time round.
      if (!anyFinished && resident.size() < kMaxResident)
        admit();
    }
    for (size_t l = 0; l < requests.size(); ++l) {
      warpCounts[l] += warps[l];
      threadCounts[l] += threads[l];
      finishedCounts[l] += finished[l];
    }
  };
  // On a terminal, a launch that runs for more than two seconds shows how
  // many of its blocks have started, on one line of stderr that is erased
  // at the end.
  std::mutex progressMutex;
  std::condition_variable progressDone;
  bool launchesDone = false;
  std::thread progress;
  if (isatty(STDERR_FILENO) && total > 0) {
    std::string name;
    for (const LaunchRequest &r : requests)
      if (r.kernel) {
        name = r.kernel->name();
        break;
      }
    if (requests.size() > 1)
      name += " and " + std::to_string(requests.size() - 1) + " more";
    progress = std::thread([&, name] {
      auto start = std::chrono::steady_clock::now();
      bool shown = false;
      std::unique_lock<std::mutex> lock(progressMutex);
      while (!progressDone.wait_for(lock, std::chrono::milliseconds(250),
                                    [&] { return launchesDone; })) {
        if (std::chrono::steady_clock::now() - start < std::chrono::seconds(2))
          continue;
        uint64_t started = std::min(next.load(), total);
        std::fprintf(stderr,
                     "\r\033[Kgmm-sim: kernel %s: %llu of %llu blocks started",
                     name.c_str(), static_cast<unsigned long long>(started),
                     static_cast<unsigned long long>(total));
        std::fflush(stderr);
        shown = true;
      }
      if (shown) {
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
      }
    });
  }
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < workers; ++i)
      pool.emplace_back(work);
    for (std::thread &t : pool)
      t.join();
  }
  if (progress.joinable()) {
    {
      std::lock_guard<std::mutex> lock(progressMutex);
      launchesDone = true;
    }
    progressDone.notify_all();
    progress.join();
  }
  for (size_t l = 0; l < requests.size(); ++l) {
    if (!contexts[l])
      continue;
    LaunchContext &context = *contexts[l];
    LaunchResult &result = results[l];
    result.warpInstructions = warpCounts[l];
    result.threadInstructions = threadCounts[l];
    for (auto it = outputs.lower_bound({static_cast<uint32_t>(l), 0});
         it != outputs.end() && it->first.first == l; ++it) {
      if (context.hasFinding && it->first.second > context.findingBlock)
        break;
      result.output += it->second.first;
      result.assertions += it->second.second;
    }
    // Timed out before all of its blocks ran (the ones that did all
    // finished within the time): the launch fails all the same.
    if (!context.hasFinding && timedOut.load() &&
        finishedCounts[l] < blockCounts[l]) {
      context.hasFinding = true;
      context.findingBlock = UINT64_MAX;
      context.findingKind = FindingKind::Deadlock;
      context.findingMessage =
          "kernel " + context.prog.name + " did not finish within " +
          std::to_string(opts.timeoutSeconds) + " s of simulation (" +
          std::to_string(finishedCounts[l].load()) + " of " +
          std::to_string(blockCounts[l]) +
          " blocks ran): too many blocks, an endless loop, or blocks that "
          "wait for something that never happens (GMM_SIM_TIMEOUT sets the "
          "limit)";
    }
    if (context.hasFinding) {
      result.ok = false;
      result.kind = context.findingKind;
      result.message = context.findingMessage;
    }
  }
  return results;
}
