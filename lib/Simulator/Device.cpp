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
#include "Launch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace gmm::sim;

const char *gmm::sim::findingKindName(FindingKind kind) {
  switch (kind) {
  case FindingKind::OutOfBounds:
    return "memcheck";
  case FindingKind::Misaligned:
    return "memcheck";
  case FindingKind::SharedRace:
    return "racecheck";
  case FindingKind::AsyncCopyHazard:
    return "racecheck";
  case FindingKind::UninitializedRead:
    return "initcheck";
  case FindingKind::BarrierDivergence:
  case FindingKind::CollectiveDivergence:
  case FindingKind::Deadlock:
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
  uint32_t limit = 48 * 1024;
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

struct Device::Impl {
  std::mutex mutex;
  MemoryMap memory;
  /// The reserved device address range and its bump pointer.
  uint64_t reserveBase = 0, reserveSize = 0, bump = 0;
  std::vector<std::pair<uint64_t, uint64_t>> freeRanges;
  uint64_t used = 0;

  bool addRange(uint64_t base, uint64_t size, uint8_t *host,
                Allocation::Kind kind) {
    // Refuse overlaps (e.g. registering host memory twice).
    auto next = memory.allocations.lower_bound(base);
    if (next != memory.allocations.end() && next->first < base + size)
      return false;
    if (next != memory.allocations.begin()) {
      auto prev = std::prev(next);
      if (prev->first + std::max<uint64_t>(prev->second.size, 1) > base)
        return false;
    }
    Allocation a;
    a.base = base;
    a.size = size;
    a.host = host;
    a.kind = kind;
    memory.allocations[base] = a;
    return true;
  }

  uint64_t reserveAddress(uint64_t size) {
    if (bump + size <= reserveSize) {
      uint64_t address = reserveBase + bump;
      bump += size;
      return address;
    }
    for (auto it = freeRanges.begin(); it != freeRanges.end(); ++it) {
      if (it->second < size)
        continue;
      uint64_t address = it->first;
      it->first += size;
      it->second -= size;
      if (!it->second)
        freeRanges.erase(it);
      return address;
    }
    return 0;
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
  impl->reserveSize = opts.memoryBytes * 4;
  void *p = mmap(nullptr, impl->reserveSize, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    impl->reserveSize = uint64_t(1) << 34;
    p = mmap(nullptr, impl->reserveSize, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  impl->reserveBase = p == MAP_FAILED ? 0 : reinterpret_cast<uintptr_t>(p);
  if (!impl->reserveBase)
    impl->reserveSize = 0;
  getAddressWindows();
}

Device::~Device() {
  for (auto &[base, a] : impl->memory.allocations)
    if (a.kind == Allocation::Device || a.kind == Allocation::ModuleGlobal ||
        a.kind == Allocation::ModuleConst)
      std::free(a.host);
    else if (a.kind == Allocation::Managed)
      std::free(a.host);
  if (impl->reserveBase)
    munmap(reinterpret_cast<void *>(impl->reserveBase), impl->reserveSize);
}

std::string Device::name() const {
  return "gmm simulated GPU (sm_" + std::to_string(opts.arch) +
         ", PTX simulator)";
}

bool Device::allocate(uint64_t bytes, uint64_t &address, std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  uint64_t size = roundAllocation(bytes);
  if (bytes > opts.memoryBytes || impl->used + size > opts.memoryBytes) {
    error = "out of device memory (" + std::to_string(bytes) +
            " bytes requested, " +
            std::to_string(opts.memoryBytes - impl->used) + " free)";
    return false;
  }
  uint64_t base = impl->reserveAddress(size);
  auto *host = static_cast<uint8_t *>(std::malloc(size));
  if (!base || !host) {
    std::free(host);
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
  uint64_t size = roundAllocation(bytes);
  if (bytes > opts.memoryBytes || impl->used + size > opts.memoryBytes) {
    error = "out of device memory (" + std::to_string(bytes) +
            " bytes of managed memory requested)";
    return false;
  }
  void *host = nullptr;
  if (posix_memalign(&host, 256, size) != 0 || !host) {
    error = "out of host memory for " + std::to_string(bytes) +
            " bytes of managed memory";
    return false;
  }
  std::memset(host, 0, size);
  auto base = reinterpret_cast<uintptr_t>(host);
  // Managed memory is host memory that the hardware maps in whole pages, so
  // a kernel that reads a little past the requested size does not fault on
  // a GPU (upstream MLIR's alloc-host-shared test does so). It is
  // accessible up to its 256-byte allocation granularity here too; device
  // memory (cuMemAlloc, what gmm's kernels use) keeps the exact bounds.
  impl->addRange(base, size, static_cast<uint8_t *>(host), Allocation::Managed);
  impl->used += size;
  address = base;
  return true;
}

bool Device::free(uint64_t address, std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->memory.allocations.find(address);
  if (it == impl->memory.allocations.end() ||
      (it->second.kind != Allocation::Device &&
       it->second.kind != Allocation::Managed)) {
    error = "not the start of a device allocation";
    return false;
  }
  Allocation a = it->second;
  impl->memory.allocations.erase(it);
  uint64_t size = roundAllocation(a.size);
  impl->used -= size;
  std::free(a.host);
  if (a.kind == Allocation::Device)
    impl->freeRanges.emplace_back(a.base, size);
  return true;
}

bool Device::registerHost(void *pointer, uint64_t bytes, std::string &error) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto base = reinterpret_cast<uintptr_t>(pointer);
  if (!impl->addRange(base, bytes, static_cast<uint8_t *>(pointer),
                      Allocation::HostRegistered)) {
    error = "host memory already registered (or overlapping device memory)";
    return false;
  }
  return true;
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

uint8_t *Device::hostPointer(uint64_t address, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (const Allocation *a = impl->memory.find(address)) {
    if (address - a->base + bytes > a->size)
      return nullptr;
    return a->host + (address - a->base);
  }
  if (address - impl->reserveBase < impl->reserveSize)
    return nullptr; // freed or never allocated device memory
  return reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(address));
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
      symbol.isExternShared = decl.isExtern;
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

static unsigned maxSharedOptin(unsigned arch) {
  return arch >= 90 ? 232448 : 166912;
}

std::string gmm::sim::checkLaunchConfig(const Device &device,
                                        const Kernel &kernel,
                                        const LaunchConfig &config) {
  const Dim3 &b = config.block, &g = config.grid;
  if (!b.x || !b.y || !b.z || !g.x || !g.y || !g.z)
    return "a launch dimension is zero";
  if (b.x > 1024 || b.y > 1024 || b.z > 64)
    return "block dimensions (" + std::to_string(b.x) + "," +
           std::to_string(b.y) + "," + std::to_string(b.z) +
           ") exceed (1024,1024,64)";
  uint64_t threads = uint64_t(b.x) * b.y * b.z;
  if (threads > 1024)
    return "block of " + std::to_string(threads) +
           " threads (the limit is 1024)";
  if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    return "grid dimensions exceed (2147483647,65535,65535)";
  const Program &prog = kernel.program();
  if (prog.reqntid[0] && (b.x != prog.reqntid[0] || b.y != prog.reqntid[1] ||
                          b.z != prog.reqntid[2]))
    return "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," +
           std::to_string(b.z) + ") differs from the kernel's .reqntid";
  if (prog.maxntid[0] &&
      threads > uint64_t(prog.maxntid[0]) * prog.maxntid[1] * prog.maxntid[2])
    return "block of " + std::to_string(threads) +
           " threads exceeds the kernel's .maxntid";
  if (config.dynamicSharedBytes > kernel.maxDynamicSharedBytes)
    return std::to_string(config.dynamicSharedBytes) +
           " bytes of dynamic shared memory exceed the kernel's limit of " +
           std::to_string(kernel.maxDynamicSharedBytes) +
           " (raise it with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)";
  uint64_t shared =
      uint64_t(prog.dynamicSharedOffset) + config.dynamicSharedBytes;
  if (shared > maxSharedOptin(device.options().arch))
    return std::to_string(shared) +
           " bytes of shared memory per block exceed the device's " +
           std::to_string(maxSharedOptin(device.options().arch));
  // The simulator's own memory for the block's registers and local memory.
  uint64_t perWarp = uint64_t(prog.numSlots) * 32 * 8 +
                     uint64_t(prog.localBytes + prog.paramBytes) * 32;
  if (perWarp * ((threads + 31) / 32) > (uint64_t(1) << 32))
    return "a block of this kernel needs more than 4 GiB of simulator memory "
           "(" +
           std::to_string(prog.numSlots) + " registers per thread)";
  if (prog.localBytes > 512 * 1024)
    return "the kernel needs " + std::to_string(prog.localBytes) +
           " bytes of local memory per thread (the limit is 512 KiB)";
  return "";
}

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
    context->smCount = opts.arch >= 90 ? 132 : 108;
    blockCounts[i] =
        uint64_t(r.config.grid.x) * r.config.grid.y * r.config.grid.z;
    contexts[i] = std::move(context);
  }
  // The blocks to run: one launch's in order, or several launches'
  // interleaved so that they make progress together.
  std::vector<std::pair<uint32_t, uint64_t>> order;
  uint64_t total = 0;
  for (uint64_t count : blockCounts)
    total += count;
  bool single = requests.size() == 1;
  if (!single) {
    uint64_t most = *std::max_element(blockCounts.begin(), blockCounts.end());
    for (uint64_t b = 0; b < most; ++b)
      for (uint32_t l = 0; l < requests.size(); ++l)
        if (b < blockCounts[l])
          order.emplace_back(l, b);
  }
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
      threadCounts(requests.size());
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(opts.timeoutSeconds);
  std::atomic<bool> timedOut{false};
  auto work = [&] {
    // Blocks resident on this worker, stepped in turn: a block that waits
    // for another (or for another kernel) lets it run.
    struct Resident {
      uint32_t launch;
      std::unique_ptr<Block> block;
    };
    std::vector<Resident> resident;
    std::vector<std::unique_ptr<Block>> spare;
    uint32_t epochClock = 0;
    std::vector<uint64_t> warps(requests.size(), 0),
        threads(requests.size(), 0);
    constexpr size_t kMaxResident = 8;
    constexpr uint64_t kSlice = 1 << 16;
    bool exhausted = false;
    while (true) {
      // Admit a new block while there is room (always when none runs).
      while (!exhausted && resident.empty()) {
        uint64_t i = next.fetch_add(1);
        if (i >= total) {
          exhausted = true;
          break;
        }
        auto [l, b] = single ? std::make_pair(uint32_t(0), i) : order[i];
        LaunchContext *context = contexts[l].get();
        if (!context || b > context->stopAfter.load())
          continue;
        std::unique_ptr<Block> block;
        if (!spare.empty()) {
          block = std::move(spare.back());
          spare.pop_back();
        } else {
          block = std::make_unique<Block>();
        }
        startBlock(*context, *block, b, epochClock);
        resident.push_back({l, std::move(block)});
      }
      if (resident.empty())
        break;
      bool anyFinished = false;
      for (size_t r = 0; r < resident.size();) {
        Resident &res = resident[r];
        LaunchContext &context = *contexts[res.launch];
        bool finished = stepBlock(context, *res.block, kSlice,
                                  warps[res.launch], threads[res.launch]);
        if (!finished && std::chrono::steady_clock::now() > deadline) {
          timedOut = true;
          std::lock_guard<std::mutex> guard(context.mutex);
          if (!context.hasFinding || res.block->linear < context.findingBlock) {
            context.hasFinding = true;
            context.findingBlock = res.block->linear;
            context.findingKind = FindingKind::Deadlock;
            context.findingMessage =
                "kernel " + context.prog.name + " did not finish within " +
                std::to_string(opts.timeoutSeconds) +
                " s of simulation (block " + std::to_string(res.block->linear) +
                " still runs): an endless loop, or threads that wait for "
                "something that never happens (GMM_SIM_TIMEOUT sets the "
                "limit)";
            context.stopAfter.store(res.block->linear);
          }
          finished = true;
        }
        if (!finished) {
          ++r;
          continue;
        }
        anyFinished = true;
        Block &block = *res.block;
        if (!block.output.empty() || !block.assertions.empty()) {
          std::lock_guard<std::mutex> guard(outputMutex);
          outputs[{res.launch, block.linear}] = {std::move(block.output),
                                                 std::move(block.assertions)};
        }
        spare.push_back(std::move(res.block));
        resident.erase(resident.begin() + static_cast<long>(r));
      }
      // A block that did not finish in its slice may wait for another one:
      // admit one more next time round.
      if (!anyFinished && !exhausted && resident.size() < kMaxResident) {
        uint64_t i = next.fetch_add(1);
        if (i < total) {
          auto [l, b] = single ? std::make_pair(uint32_t(0), i) : order[i];
          LaunchContext *context = contexts[l].get();
          if (context && b <= context->stopAfter.load()) {
            auto block = std::make_unique<Block>();
            startBlock(*context, *block, b, epochClock);
            resident.push_back({l, std::move(block)});
          }
        } else {
          exhausted = true;
        }
      }
    }
    for (size_t l = 0; l < requests.size(); ++l) {
      warpCounts[l] += warps[l];
      threadCounts[l] += threads[l];
    }
  };
  if (workers <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < workers; ++i)
      pool.emplace_back(work);
    for (std::thread &t : pool)
      t.join();
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
    if (context.hasFinding) {
      result.ok = false;
      result.kind = context.findingKind;
      result.message = context.findingMessage;
    }
  }
  (void)timedOut;
  return results;
}
