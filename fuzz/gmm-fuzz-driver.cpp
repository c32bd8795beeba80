//===- gmm-fuzz-driver.cpp - libFuzzer target: the simulated GPU's driver -===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The input is a program of CUDA driver calls to gmm's simulated GPU (the
// code of libgmm_cuda_sim.so, linked in): allocations of every kind, frees,
// registrations, copies in every direction (synchronous, asynchronous,
// unified), memsets, launches, streams, events and module loads, with
// hostile arguments: sizes near 2^64 and sizes that wrap when multiplied,
// pointers that are freed, offset past their allocation, bogus or null,
// host memory where device memory belongs, destroyed or made-up handles,
// module images shorter than their magic bytes. The simulator must answer
// every call with a result, never crash (AddressSanitizer and
// UndefinedBehaviorSanitizer catch the rest), and must never report success
// for a copy or memset of a size of 2^63 or more, or one whose device side
// was freed.
//
// Like a real program, the fuzzer only passes host memory that it owns as
// host memory, in sizes that fit it: the driver trusts the caller's
// pageable host memory (as the CUDA driver does). Everything else it gets
// is untrusted.
//
//===----------------------------------------------------------------------===//

#include "../unittests/Simulator/DriverEntryPoints.h"
#include "../unittests/Simulator/StoreKernel.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace gmm::cuda;

namespace {

constexpr uint64_t kMax = ~uint64_t(0);
/// Allocations that succeed are at most this large (larger requests are
/// hostile ones that must fail: the simulator backs what it allocates).
constexpr uint64_t kMaxAllocation = 1 << 16;
/// The fuzzer's own pageable host memory, which every legal copy fits.
constexpr uint64_t kScratchBytes = 2 * kMaxAllocation;
constexpr unsigned kMaxOps = 64;

using gmm::sim::test::kStorePtx;

[[noreturn]] void finding(const char *what, const char *call, uint64_t a,
                          uint64_t b) {
  std::fprintf(stderr,
               "gmm-fuzz-driver: FINDING: %s: %s (0x%llx, 0x%llx): %s\n", call,
               what, static_cast<unsigned long long>(a),
               static_cast<unsigned long long>(b), gmmSimGetErrorDetail());
  std::abort();
}

/// What stays across inputs: the context, the store kernel, host memory.
struct Process {
  CUfunction store = nullptr;
  uint8_t *scratch = nullptr;
  /// A page nothing can read or write.
  uint8_t *guard = nullptr;
};

Process &process() {
  static Process *p = [] {
    auto *p = new Process();
    // One worker, one second per launch: fuzzing wants many short runs.
    setenv("GMM_SIM_THREADS", "1", 1);
    setenv("GMM_SIM_TIMEOUT", "1", 1);
    CUcontext context = nullptr;
    CUmodule module = nullptr;
    if (cuInit(0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&context, 0) != CUDA_SUCCESS ||
        cuCtxPushCurrent_v2(context) != CUDA_SUCCESS ||
        cuModuleLoadData(&module, kStorePtx) != CUDA_SUCCESS ||
        cuModuleGetFunction(&p->store, module, "store") != CUDA_SUCCESS) {
      std::fprintf(stderr, "gmm-fuzz-driver: cannot set up the driver: %s\n",
                   gmmSimGetErrorDetail());
      std::abort();
    }
    p->scratch = static_cast<uint8_t *>(std::calloc(kScratchBytes, 1));
    long page = sysconf(_SC_PAGESIZE);
    void *guard = mmap(nullptr, static_cast<size_t>(page), PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p->guard = guard == MAP_FAILED ? nullptr : static_cast<uint8_t *>(guard);
    return p;
  }();
  return *p;
}

/// The input, read as a stream of bytes (zeros once it is used up).
class Input {
public:
  Input(const uint8_t *data, size_t size) : data(data), size(size) {}
  bool empty() const { return size == 0; }
  uint8_t byte() {
    if (!size)
      return 0;
    --size;
    return *data++;
  }
  uint64_t bytes(unsigned n) {
    uint64_t value = 0;
    for (unsigned i = 0; i < n; ++i)
      value |= uint64_t(byte()) << (8 * i);
    return value;
  }
  bool flag() { return byte() & 1; }

private:
  const uint8_t *data;
  size_t size;
};

/// Memory the fuzzer made the driver give it (or gave the driver).
struct Slot {
  enum Kind { Device, Managed, Pinned, Registered } kind = Device;
  uint64_t address = 0;
  uint64_t bytes = 0;
  /// Allocated (or registered); not yet freed or unregistered.
  bool live = true;
  /// Freed by a stream-ordered free (which a sticky error may have dropped
  /// from the queue): not known to be freed.
  bool pendingFree = false;
  /// Registered: the fuzzer's buffer, kept until the input ends.
  std::unique_ptr<uint8_t[]> buffer;
};

/// A pointer argument, and what the fuzzer knows of it.
struct Pointer {
  uint64_t address = 0;
  /// Derived from a slot that is freed for sure (or unregistered): as a
  /// device pointer it must be refused, unless a live slot covers it.
  bool freed = false;
  /// The fuzzer's own pageable memory of this many bytes (0: not).
  uint64_t pageableBytes = 0;
};

class Program {
public:
  explicit Program(Input &in) : in(in), p(process()) {}
  ~Program() { cleanUp(); }

  void run() {
    for (unsigned i = 0; i < kMaxOps && !in.empty(); ++i)
      step();
  }

private:
  Input &in;
  Process &p;
  std::vector<Slot> slots;
  std::vector<CUstream> streams;
  std::vector<CUevent> events;
  std::vector<CUmodule> modules;
  bool loadedModule = false;

  /// A size: small, fitting a slot, or hostile.
  uint64_t size() {
    switch (in.byte() % 8) {
    case 0:
      return in.byte();
    case 1:
      return in.bytes(2);
    case 2:
      return slots.empty() ? 0 : slots[in.byte() % slots.size()].bytes;
    case 3:
      return kMax - in.byte();
    case 4:
      return (uint64_t(1) << (62 + in.byte() % 2)) + in.byte();
    case 5:
      // Wraps when multiplied by 2 or 4.
      return (kMax >> (1 + in.byte() % 2)) + 1 + in.byte();
    case 6:
      return uint64_t(1) << (in.byte() % 64);
    default:
      return in.bytes(8);
    }
  }

  /// An allocation size: one that succeeds (at most kMaxAllocation), or
  /// one that must fail.
  uint64_t allocationSize() {
    uint64_t bytes = size();
    if (bytes > kMaxAllocation && bytes < (uint64_t(1) << 40))
      bytes = bytes % kMaxAllocation + 1;
    return bytes;
  }

  /// An offset from a slot: inside, at or past its end, before it, far.
  uint64_t offset(const Slot &slot) {
    switch (in.byte() % 6) {
    case 0:
      return 0;
    case 1:
      return slot.bytes ? in.bytes(2) % slot.bytes : 0;
    case 2:
      return slot.bytes - in.byte() % 2;
    case 3:
      return uint64_t(0) - 1 - in.byte();
    case 4:
      return in.bytes(8);
    default:
      return uint64_t(in.byte()) << (in.byte() % 40);
    }
  }

  /// An address that no host memory backs.
  uint64_t unmapped() {
    static const uint64_t kUnmapped[] = {
        0, 0x10, 0x1000, kMax - 7, uint64_t(1) << 63, 0xffff800000000000ull};
    if (in.flag())
      return reinterpret_cast<uintptr_t>(p.guard) + in.byte();
    return kUnmapped[in.byte() % (sizeof(kUnmapped) / sizeof(kUnmapped[0]))];
  }

  /// A device pointer: from a slot (live or freed, at any offset), the
  /// fuzzer's host memory, or bogus. The driver must touch no memory
  /// through it but the device's live allocations.
  Pointer devicePointer() {
    Pointer ptr;
    switch (in.byte() % 8) {
    case 0:
    case 1:
    case 2:
    case 3: {
      if (slots.empty())
        break;
      const Slot &slot = slots[in.byte() % slots.size()];
      ptr.address = slot.address + offset(slot);
      ptr.freed = !slot.live && !slot.pendingFree;
      return ptr;
    }
    case 4:
      ptr.address = reinterpret_cast<uintptr_t>(p.scratch);
      return ptr;
    case 5:
      ptr.address = in.bytes(8);
      return ptr;
    default:
      break;
    }
    ptr.address = unmapped();
    return ptr;
  }

  /// A pointer that the driver may take for the caller's host memory (a
  /// host-side argument, either side of a unified copy) of `bytes`: memory
  /// of the device (live or freed slots, at offsets that stay in the
  /// device's ranges or in a registration), the fuzzer's own memory where
  /// `bytes` fit it, or unmapped addresses. (A program that passes other
  /// memory corrupts itself, as with any driver.)
  Pointer hostPointer(uint64_t bytes) {
    Pointer ptr;
    switch (in.byte() % 6) {
    case 0:
    case 1:
    case 2: {
      if (slots.empty())
        break;
      const Slot &slot = slots[in.byte() % slots.size()];
      if (slot.kind == Slot::Registered) {
        // Inside the buffer: registered, or the fuzzer's own.
        uint64_t off = slot.bytes ? in.bytes(2) % slot.bytes : 0;
        ptr.address = slot.address + off;
        if (!slot.live)
          ptr.pageableBytes = slot.bytes - off;
      } else {
        // In the allocation, at its end or just past it: the device's.
        ptr.address = slot.address + in.bytes(2) % (slot.bytes + 4096);
        ptr.freed = !slot.live && !slot.pendingFree;
      }
      break;
    }
    case 3:
      ptr.address = reinterpret_cast<uintptr_t>(p.scratch);
      ptr.pageableBytes = kScratchBytes;
      break;
    default:
      ptr.address = unmapped();
      return ptr;
    }
    if (slots.empty() && !ptr.address)
      ptr.address = unmapped();
    if (ptr.pageableBytes && bytes > ptr.pageableBytes) {
      ptr.address = unmapped();
      ptr.pageableBytes = 0;
    }
    return ptr;
  }

  /// Whether some live slot covers `address` (managed memory up to its
  /// 256-byte granularity).
  bool covered(uint64_t address) const {
    for (const Slot &slot : slots) {
      uint64_t extent =
          slot.kind == Slot::Managed
              ? (std::max<uint64_t>(slot.bytes, 1) + 255) / 256 * 256
              : slot.bytes;
      if ((slot.live || slot.pendingFree) && address - slot.address < extent)
        return true;
    }
    return false;
  }

  CUstream stream() {
    switch (in.byte() % 4) {
    case 0:
      return nullptr;
    case 1:
      return reinterpret_cast<CUstream>(uintptr_t(in.bytes(8)));
    default:
      return streams.empty() ? nullptr : streams[in.byte() % streams.size()];
    }
  }

  CUevent event() {
    if (events.empty() || in.byte() % 4 == 0)
      return reinterpret_cast<CUevent>(uintptr_t(in.bytes(8)));
    return events[in.byte() % events.size()];
  }

  /// The checks of a copy or memset of `bytes` whose device side is `dst`
  /// (and `src`, for device-to-device copies; null otherwise).
  void expectRefused(CUresult result, const char *call, uint64_t bytes,
                     const Pointer &dst, const Pointer *src = nullptr) {
    if (result != CUDA_SUCCESS)
      return;
    if (bytes >= (uint64_t(1) << 63))
      finding("a copy or memset of 2^63 bytes or more succeeded", call,
              dst.address, bytes);
    // A freed range may be reused by a module's variables once the
    // device's address range is used up: only without module loads.
    if (!bytes || loadedModule)
      return;
    if (dst.freed && !covered(dst.address))
      finding("succeeded on freed memory", call, dst.address, bytes);
    if (src && src->freed && !covered(src->address))
      finding("succeeded on freed memory", call, src->address, bytes);
  }

  void addSlot(Slot::Kind kind, uint64_t address, uint64_t bytes) {
    Slot slot;
    slot.kind = kind;
    slot.address = address;
    slot.bytes = bytes;
    slots.push_back(std::move(slot));
  }

  /// Marks what a successful free or unregistration ended.
  void ended(uint64_t address, bool pending = false) {
    for (Slot &slot : slots)
      if (slot.live && slot.address == address) {
        slot.live = false;
        slot.pendingFree = pending;
        return;
      }
  }

  void step() {
    switch (in.byte() % 20) {
    case 0: {
      CUdeviceptr address = 0;
      uint64_t bytes = allocationSize();
      if ((in.flag()
               ? cuMemAlloc_v2(&address, bytes)
               : cuMemAllocAsync(&address, bytes, stream())) == CUDA_SUCCESS)
        addSlot(Slot::Device, address, bytes);
      return;
    }
    case 1: {
      CUdeviceptr address = 0;
      uint64_t bytes = allocationSize();
      if (cuMemAllocManaged(&address, bytes, 1) == CUDA_SUCCESS)
        addSlot(Slot::Managed, address, bytes);
      return;
    }
    case 2: {
      void *host = nullptr;
      uint64_t bytes = allocationSize();
      if ((in.flag() ? cuMemAllocHost_v2(&host, bytes)
                     : cuMemHostAlloc(&host, bytes, in.byte())) == CUDA_SUCCESS)
        addSlot(Slot::Pinned, reinterpret_cast<uintptr_t>(host), bytes);
      return;
    }
    case 3: {
      // The fuzzer's buffer, registered with its size, part of it, a
      // hostile size or from a hostile pointer.
      uint64_t bytes = in.bytes(2) % 4096 + 1;
      std::unique_ptr<uint8_t[]> buffer(new uint8_t[bytes]());
      uint64_t registered = bytes;
      auto *start = buffer.get();
      switch (in.byte() % 4) {
      case 0:
        break;
      case 1:
        registered = bytes - in.byte() % bytes;
        break;
      case 2: {
        // Sizes that cannot be host memory the fuzzer owns: past 2^47, or
        // wrapping.
        uint64_t hostile = size();
        if (hostile < (uint64_t(1) << 47))
          hostile = kMax - hostile;
        registered = hostile;
        break;
      }
      default: {
        // Memory of the device, the fuzzer's own or unmapped.
        registered = in.byte() + 1;
        Pointer other = hostPointer(registered);
        start = reinterpret_cast<uint8_t *>(uintptr_t(other.address));
        buffer.reset();
        CUresult r = cuMemHostRegister_v2(start, registered, 0);
        if (r == CUDA_SUCCESS && !other.pageableBytes)
          finding("registered memory that is not host memory", "register",
                  other.address, registered);
        if (r == CUDA_SUCCESS)
          cuMemHostUnregister(start);
        return;
      }
      }
      CUresult r = cuMemHostRegister_v2(start, registered, 0);
      if (r == CUDA_SUCCESS && registered > bytes)
        finding("registered a range past the memory it starts in", "register",
                reinterpret_cast<uintptr_t>(start), registered);
      if (r == CUDA_SUCCESS) {
        Slot slot;
        slot.kind = Slot::Registered;
        slot.address = reinterpret_cast<uintptr_t>(start);
        slot.bytes = registered;
        slot.buffer = std::move(buffer);
        slots.push_back(std::move(slot));
      }
      return;
    }
    case 4: {
      Pointer ptr = devicePointer();
      if (cuMemFree_v2(ptr.address) == CUDA_SUCCESS)
        ended(ptr.address);
      return;
    }
    case 5: {
      Pointer ptr = devicePointer();
      if (cuMemFreeAsync(ptr.address, stream()) == CUDA_SUCCESS)
        ended(ptr.address, true);
      return;
    }
    case 6: {
      Pointer ptr = devicePointer();
      if (cuMemFreeHost(reinterpret_cast<void *>(uintptr_t(ptr.address))) ==
          CUDA_SUCCESS)
        ended(ptr.address);
      return;
    }
    case 7: {
      Pointer ptr = devicePointer();
      if (cuMemHostUnregister(reinterpret_cast<void *>(
              uintptr_t(ptr.address))) == CUDA_SUCCESS) {
        ended(ptr.address);
      }
      return;
    }
    case 8: {
      uint64_t bytes = size();
      Pointer dst = devicePointer(), src = hostPointer(bytes);
      void *host = reinterpret_cast<void *>(uintptr_t(src.address));
      CUresult r =
          in.flag() ? cuMemcpyHtoD_v2(dst.address, host, bytes)
                    : cuMemcpyHtoDAsync_v2(dst.address, host, bytes, stream());
      expectRefused(r, "cuMemcpyHtoD", bytes, dst);
      return;
    }
    case 9: {
      uint64_t bytes = size();
      Pointer src = devicePointer(), dst = hostPointer(bytes);
      void *host = reinterpret_cast<void *>(uintptr_t(dst.address));
      CUresult r =
          in.flag() ? cuMemcpyDtoH_v2(host, src.address, bytes)
                    : cuMemcpyDtoHAsync_v2(host, src.address, bytes, stream());
      expectRefused(r, "cuMemcpyDtoH", bytes, src);
      return;
    }
    case 10: {
      uint64_t bytes = size();
      Pointer dst = devicePointer(), src = devicePointer();
      CUresult r = in.flag() ? cuMemcpyDtoD_v2(dst.address, src.address, bytes)
                             : cuMemcpyDtoDAsync_v2(dst.address, src.address,
                                                    bytes, stream());
      expectRefused(r, "cuMemcpyDtoD", bytes, dst, &src);
      return;
    }
    case 11: {
      uint64_t bytes = size();
      Pointer dst = hostPointer(bytes), src = hostPointer(bytes);
      CUresult r =
          in.flag() ? cuMemcpy(dst.address, src.address, bytes)
                    : cuMemcpyAsync(dst.address, src.address, bytes, stream());
      expectRefused(r, "cuMemcpy", bytes, dst, &src);
      return;
    }
    case 12: {
      Pointer dst = devicePointer();
      uint64_t count = size();
      uint32_t value = static_cast<uint32_t>(in.bytes(4));
      bool async = in.flag();
      CUstream s = async ? stream() : nullptr;
      CUresult r = CUDA_SUCCESS;
      unsigned width = 1u << (in.byte() % 3);
      switch (width) {
      case 1:
        r = async ? cuMemsetD8Async(dst.address, value, count, s)
                  : cuMemsetD8_v2(dst.address, value, count);
        break;
      case 2:
        r = async ? cuMemsetD16Async(dst.address, value, count, s)
                  : cuMemsetD16_v2(dst.address, value, count);
        break;
      default:
        r = async ? cuMemsetD32Async(dst.address, value, count, s)
                  : cuMemsetD32_v2(dst.address, value, count);
        break;
      }
      uint64_t bytes = 0;
      if (__builtin_mul_overflow(count, uint64_t(width), &bytes))
        bytes = kMax;
      expectRefused(r, "cuMemset", bytes, dst);
      return;
    }
    case 13: {
      Pointer target = devicePointer();
      uint32_t value = static_cast<uint32_t>(in.bytes(4));
      void *params[] = {&target.address, &value};
      unsigned threads = in.byte() % 64 + 1, blocks = in.byte() % 4 + 1;
      cuLaunchKernel(p.store, blocks, 1, 1, threads, 1, 1, 0, stream(), params,
                     nullptr);
      return;
    }
    case 14: {
      switch (in.byte() % 4) {
      case 0: {
        CUstream s = nullptr;
        if (cuStreamCreate(&s, 0) == CUDA_SUCCESS)
          streams.push_back(s);
        return;
      }
      case 1: {
        if (streams.empty())
          return;
        size_t i = in.byte() % streams.size();
        if (cuStreamDestroy_v2(streams[i]) == CUDA_SUCCESS)
          streams.erase(streams.begin() + static_cast<long>(i));
        return;
      }
      case 2:
        cuStreamSynchronize(stream());
        return;
      default:
        cuStreamWaitEvent(stream(), event(), 0);
        return;
      }
    }
    case 15: {
      switch (in.byte() % 4) {
      case 0: {
        CUevent e = nullptr;
        if (cuEventCreate(&e, 0) == CUDA_SUCCESS)
          events.push_back(e);
        return;
      }
      case 1:
        cuEventRecord(event(), stream());
        return;
      case 2:
        cuEventSynchronize(event());
        return;
      default: {
        if (events.empty())
          return;
        size_t i = in.byte() % events.size();
        if (cuEventDestroy_v2(events[i]) == CUDA_SUCCESS)
          events.erase(events.begin() + static_cast<long>(i));
        return;
      }
      }
    }
    case 16:
      if (in.flag())
        cuCtxSynchronize();
      else
        gmmSimClearError();
      return;
    case 17: {
      // A module image: a few bytes of the input (magic numbers among
      // them), NUL-terminated as PTX is, at the end of a heap block.
      static const char *const kPrefixes[] = {"",
                                              "\x7f",
                                              "\x7f"
                                              "E",
                                              "\x7f"
                                              "EL",
                                              "\x7f"
                                              "ELF",
                                              "P\xed"
                                              "U",
                                              "\xb1"
                                              "Cb",
                                              ".version 8.0\n.target sm_80\n"};
      std::string text = kPrefixes[in.byte() % 8];
      unsigned n = in.byte() % 16;
      for (unsigned i = 0; i < n; ++i)
        if (char c = static_cast<char>(in.byte()))
          text += c;
      std::unique_ptr<char[]> image(new char[text.size() + 1]);
      std::memcpy(image.get(), text.c_str(), text.size() + 1);
      CUmodule module = nullptr;
      if (cuModuleLoadData(&module, image.get()) == CUDA_SUCCESS) {
        modules.push_back(module);
        loadedModule = true;
      }
      return;
    }
    case 18: {
      if (modules.empty() || in.flag()) {
        cuModuleUnload(reinterpret_cast<CUmodule>(uintptr_t(in.bytes(8))));
        return;
      }
      size_t i = in.byte() % modules.size();
      if (cuModuleUnload(modules[i]) == CUDA_SUCCESS)
        modules.erase(modules.begin() + static_cast<long>(i));
      return;
    }
    default: {
      Pointer ptr = devicePointer();
      CUdeviceptr mapped = 0;
      cuMemHostGetDevicePointer_v2(
          &mapped, reinterpret_cast<void *>(uintptr_t(ptr.address)), 0);
      size_t free = 0, total = 0;
      cuMemGetInfo_v2(&free, &total);
      return;
    }
    }
  }

  /// Leaves the driver as the input found it: no error, no queued work,
  /// nothing allocated, registered or created.
  void cleanUp() {
    cuCtxSynchronize();
    gmmSimClearError();
    for (Slot &slot : slots) {
      // A stream-ordered free that a sticky error dropped from the queue
      // left its allocation live.
      if (slot.pendingFree)
        cuMemFree_v2(slot.address);
      if (!slot.live)
        continue;
      CUresult r = CUDA_SUCCESS;
      switch (slot.kind) {
      case Slot::Device:
      case Slot::Managed:
        r = cuMemFree_v2(slot.address);
        break;
      case Slot::Pinned:
        r = cuMemFreeHost(reinterpret_cast<void *>(uintptr_t(slot.address)));
        break;
      case Slot::Registered:
        r = cuMemHostUnregister(
            reinterpret_cast<void *>(uintptr_t(slot.address)));
        break;
      }
      if (r != CUDA_SUCCESS)
        finding("cannot release a live allocation", "clean-up", slot.address,
                slot.bytes);
    }
    for (CUstream s : streams)
      cuStreamDestroy_v2(s);
    for (CUevent e : events)
      cuEventDestroy_v2(e);
    for (CUmodule m : modules)
      cuModuleUnload(m);
    if (cuCtxSynchronize() != CUDA_SUCCESS)
      finding("the context is not clean after clean-up", "cuCtxSynchronize", 0,
              0);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Input in(data, size);
  Program program(in);
  program.run();
  return 0;
}
