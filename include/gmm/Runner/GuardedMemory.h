//===- GuardedMemory.h - Buffers next to inaccessible pages -----*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// AddressSanitizer does not instrument JIT-compiled code, so out-of-bounds
// accesses by the code that gmm's pipelines generate go unnoticed in an ASan
// build. Guarded memory catches them in any build: every buffer gets its own
// mapping with an inaccessible (PROT_NONE) page on each side, and the buffer
// is placed so that its end (GuardPages::End) or its start
// (GuardPages::Start) touches one of them. The first byte read or written
// past that edge faults; a SIGSEGV handler then prints one line naming the
// buffer and the byte offset, and the process dies by SIGSEGV.
//
// The price is two system calls and at least three pages per buffer, so this
// is for tests (gmm-runner --guard-pages, gmm-difftest --guard-pages), not
// for timing.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_GUARDEDMEMORY_H
#define GMM_RUNNER_GUARDEDMEMORY_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace gmm {
namespace runner {

/// Where buffers are placed relative to the inaccessible pages.
enum class GuardPages {
  /// Ordinary heap memory.
  None,
  /// The buffer ends where an inaccessible page begins: accesses past its
  /// end fault from the first byte on. Its start is aligned to its size's
  /// largest power-of-two divisor (up to 64), so buffers of elements keep
  /// the element alignment.
  End,
  /// The buffer starts right after an inaccessible page (page-aligned):
  /// accesses before its start fault.
  Start,
};

/// "none", "end" or "start".
const char *toString(GuardPages mode);
/// The mode called `name` ("none", "end", "start"), or std::nullopt.
std::optional<GuardPages> parseGuardPages(llvm::StringRef name);

/// Allocates `size` bytes of guarded memory placed as `mode` says (End when
/// `mode` is None). `label` names the buffer in fault reports ("argument 1
/// (tensor<4x8xf32>)"); it is copied. Returns nullptr when the memory cannot
/// be mapped. A zero-size buffer is a pointer to the inaccessible page.
void *allocateGuarded(size_t size, GuardPages mode, llvm::StringRef label);

/// Unmaps a buffer of allocateGuarded() and returns true; returns false, and
/// does nothing, for any other pointer.
bool releaseGuarded(void *pointer);

/// True when `pointer` lies in a live buffer of allocateGuarded() (its data,
/// not its guard pages).
bool isGuarded(const void *pointer);

/// Installs, once per process, the SIGSEGV handler that reports faults in
/// guard pages (other faults go to the handler that was there before).
void installGuardFaultHandler();

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_GUARDEDMEMORY_H
