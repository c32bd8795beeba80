//===- GuardedMemory.cpp - Buffers next to inaccessible pages -------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Every live buffer has a slot in a fixed table that the SIGSEGV handler
// scans without locks (a handler may run on any thread, including an OpenMP
// worker of the compiled code, and must not take a lock). Writers serialize
// on a mutex; every field is an atomic so that the handler's reads are not
// data races. The table size bounds the number of live guarded buffers;
// past it allocateGuarded() returns nullptr, as malloc does when it runs out.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/GuardedMemory.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__linux__) && defined(__x86_64__)
#include <ucontext.h>
#endif

using namespace gmm::runner;

namespace {

constexpr size_t kNumSlots = 8192;
constexpr size_t kLabelSize = 120;

struct Slot {
  /// The whole mapping (guard pages included); 0 when the slot is free.
  std::atomic<uintptr_t> mapBegin{0};
  std::atomic<uintptr_t> mapEnd{0};
  /// The buffer handed out.
  std::atomic<uintptr_t> dataBegin{0};
  std::atomic<uintptr_t> dataEnd{0};
  std::atomic<char> label[kLabelSize];
};

Slot slots[kNumSlots];
std::mutex slotMutex;
/// One past the highest slot ever used, so that scans stay short.
std::atomic<size_t> slotsInUse{0};
/// The number of live buffers: releaseGuarded() of an ordinary pointer,
/// which the runner's free() calls for every buffer, takes no lock while
/// there are none.
std::atomic<size_t> liveBuffers{0};

size_t getPageSize() {
  static const size_t pageSize = [] {
    long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<size_t>(size) : size_t(4096);
  }();
  return pageSize;
}

/// The slot whose mapping contains `address`, or nullptr. Lock-free.
Slot *findSlot(uintptr_t address) {
  size_t used = slotsInUse.load(std::memory_order_acquire);
  for (size_t i = 0; i < used; ++i) {
    uintptr_t begin = slots[i].mapBegin.load(std::memory_order_acquire);
    if (begin && address >= begin &&
        address < slots[i].mapEnd.load(std::memory_order_relaxed))
      return &slots[i];
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// The fault handler
//===----------------------------------------------------------------------===//

struct sigaction previousAction;

/// A fixed buffer that async-signal-safe code appends to.
struct Message {
  char text[512];
  size_t size = 0;

  void append(const char *s) {
    while (*s && size + 1 < sizeof(text))
      text[size++] = *s++;
  }
  void append(int64_t value) {
    char digits[24];
    int n = 0;
    uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value)
                                   : static_cast<uint64_t>(value);
    do {
      digits[n++] = static_cast<char>('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude);
    if (value < 0)
      append("-");
    while (n > 0 && size + 1 < sizeof(text))
      text[size++] = digits[--n];
  }
  void appendHex(uintptr_t value) {
    append("0x");
    char digits[20];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[value % 16];
      value /= 16;
    } while (value);
    while (n > 0 && size + 1 < sizeof(text))
      text[size++] = digits[--n];
  }
};

/// Restores the default action, so that returning from the handler
/// re-executes the faulting instruction and the process dies by `signal`.
void dieBy(int signal) {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
}

void onFault(int signal, siginfo_t *info, void *context) {
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  Slot *slot = findSlot(address);
  if (slot) {
    uintptr_t dataBegin = slot->dataBegin.load(std::memory_order_relaxed);
    uintptr_t dataEnd = slot->dataEnd.load(std::memory_order_relaxed);
    Message message;
    message.append(program_invocation_short_name);
    message.append(": error: compiled code ");
    const char *access = "accessed";
#if defined(__linux__) && defined(__x86_64__)
    // Bit 1 of the page-fault error code is set for writes.
    if (context) {
      auto *ucontext = static_cast<ucontext_t *>(context);
      access = ucontext->uc_mcontext.gregs[REG_ERR] & 2 ? "wrote" : "read";
    }
#endif
    message.append(access);
    message.append(" out of bounds: byte ");
    message.append(static_cast<int64_t>(address - dataBegin));
    message.append(" of ");
    char label[kLabelSize];
    for (size_t i = 0; i < kLabelSize; ++i)
      label[i] = slot->label[i].load(std::memory_order_relaxed);
    label[kLabelSize - 1] = 0;
    message.append(label);
    message.append(", which has ");
    message.append(static_cast<int64_t>(dataEnd - dataBegin));
    message.append(" bytes (guard page at ");
    message.appendHex(address & ~(uintptr_t(getPageSize()) - 1));
    message.append(")\n");
    ssize_t ignored = write(STDERR_FILENO, message.text, message.size);
    (void)ignored;
    // Die by the signal, whatever handler was installed before: a fault in
    // compiled code is a compiler bug, not something to recover from.
    dieBy(signal);
    return;
  }
  // Not ours: hand it to the previous handler.
  if ((previousAction.sa_flags & SA_SIGINFO) && previousAction.sa_sigaction) {
    previousAction.sa_sigaction(signal, info, context);
    return;
  }
  if (previousAction.sa_handler != SIG_DFL &&
      previousAction.sa_handler != SIG_IGN) {
    previousAction.sa_handler(signal);
    return;
  }
  dieBy(signal);
}

} // namespace

//===----------------------------------------------------------------------===//
// Public functions
//===----------------------------------------------------------------------===//

const char *gmm::runner::toString(GuardPages mode) {
  switch (mode) {
  case GuardPages::None:
    return "none";
  case GuardPages::End:
    return "end";
  case GuardPages::Start:
    return "start";
  }
  return "none";
}

std::optional<GuardPages> gmm::runner::parseGuardPages(llvm::StringRef name) {
  for (GuardPages mode : {GuardPages::None, GuardPages::End, GuardPages::Start})
    if (name == toString(mode))
      return mode;
  return std::nullopt;
}

void *gmm::runner::allocateGuarded(size_t size, GuardPages mode,
                                   llvm::StringRef label) {
  size_t page = getPageSize();
  size_t dataPages = size / page + (size % page != 0);
  if (dataPages > SIZE_MAX / page - 2)
    return nullptr;
  size_t mapSize = (dataPages + 2) * page;
  void *map =
      mmap(nullptr, mapSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return nullptr;
  auto begin = reinterpret_cast<uintptr_t>(map);
  if (dataPages && mprotect(reinterpret_cast<void *>(begin + page),
                            dataPages * page, PROT_READ | PROT_WRITE) != 0) {
    munmap(map, mapSize);
    return nullptr;
  }
  uintptr_t backGuard = begin + (dataPages + 1) * page;
  uintptr_t data = mode == GuardPages::Start ? begin + page : backGuard - size;

  std::lock_guard<std::mutex> lock(slotMutex);
  size_t used = slotsInUse.load(std::memory_order_relaxed);
  size_t index = 0;
  while (index < used && slots[index].mapBegin.load(std::memory_order_relaxed))
    ++index;
  if (index == kNumSlots) {
    munmap(map, mapSize);
    return nullptr;
  }
  Slot &slot = slots[index];
  slot.mapEnd.store(begin + mapSize, std::memory_order_relaxed);
  slot.dataBegin.store(data, std::memory_order_relaxed);
  slot.dataEnd.store(data + size, std::memory_order_relaxed);
  size_t length = std::min(label.size(), kLabelSize - 1);
  for (size_t i = 0; i < kLabelSize; ++i)
    slot.label[i].store(i < length ? label[i] : 0, std::memory_order_relaxed);
  slot.mapBegin.store(begin, std::memory_order_release);
  liveBuffers.fetch_add(1, std::memory_order_release);
  if (index == used)
    slotsInUse.store(used + 1, std::memory_order_release);
  return reinterpret_cast<void *>(data);
}

bool gmm::runner::releaseGuarded(void *pointer) {
  if (!pointer || liveBuffers.load(std::memory_order_acquire) == 0)
    return false;
  auto address = reinterpret_cast<uintptr_t>(pointer);
  uintptr_t begin = 0, end = 0;
  {
    std::lock_guard<std::mutex> lock(slotMutex);
    size_t used = slotsInUse.load(std::memory_order_relaxed);
    for (size_t i = 0; i < used; ++i) {
      Slot &slot = slots[i];
      if (!slot.mapBegin.load(std::memory_order_relaxed) ||
          slot.dataBegin.load(std::memory_order_relaxed) != address)
        continue;
      begin = slot.mapBegin.load(std::memory_order_relaxed);
      end = slot.mapEnd.load(std::memory_order_relaxed);
      slot.mapBegin.store(0, std::memory_order_release);
      liveBuffers.fetch_sub(1, std::memory_order_relaxed);
      break;
    }
  }
  if (!begin)
    return false;
  munmap(reinterpret_cast<void *>(begin), end - begin);
  return true;
}

bool gmm::runner::isGuarded(const void *pointer) {
  auto address = reinterpret_cast<uintptr_t>(pointer);
  Slot *slot = findSlot(address);
  return slot && address >= slot->dataBegin.load(std::memory_order_relaxed) &&
         address < slot->dataEnd.load(std::memory_order_relaxed);
}

void gmm::runner::installGuardFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_sigaction = onFault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previousAction);
  });
}
