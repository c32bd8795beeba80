//===- GMMJaxFFI.cpp - gmm's ragged dot as an XLA FFI handler ------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// libgmm_jax_ffi.so, loaded by the Python package gmm.jax (python/gmm/jax.py)
// with ctypes and registered with jax.ffi.register_ffi_target for the CPU.
//
// gmm.jax describes each ragged dot as a small gmm module (one func.func
// @ragged_dot whose inputs are the call's operands as tensors and whose last
// argument is a memref for the result) and passes its text as the string
// attribute `module` of the FFI call. The handler compiles that text with
// the `cpu` pipeline on first use (ModuleCache: compiled once per module
// text, i.e. per shapes, dtypes, dimension numbers and tile sizes) and calls
// the compiled function on XLA's buffers directly: every operand and the
// result are dense row-major buffers (XLA's default CPU layout), passed as
// memref descriptors without copies.
//
// Errors (a module that does not verify or compile, a call that aborts) are
// returned to XLA as FFI errors with gmm's message, which JAX raises as a
// Python exception. gmm_jax_verify() lets gmm.jax check a module at trace
// time, so that bad shapes or dimension numbers fail where the user called.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/JitRunner.h"
#include "gmm/Runner/ModuleCache.h"

#include "llvm/Support/Error.h"

#include "xla/ffi/api/ffi.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ffi = xla::ffi;
using gmm::runner::JitFunction;
using gmm::runner::ModuleCache;

namespace {

ModuleCache &getCache() {
  // Never destroyed: XLA may call the handler from its threads while the
  // process exits.
  static ModuleCache *cache = new ModuleCache();
  return *cache;
}

/// The entry function of every module that gmm.jax writes.
constexpr const char *kEntry = "ragged_dot";

/// The memref descriptor of an XLA buffer.
template <typename Buffer> std::vector<int64_t> describe(const Buffer &buffer) {
  auto dimensions = buffer.dimensions();
  std::vector<int64_t> shape(dimensions.begin(), dimensions.end());
  return gmm::runner::denseDescriptor(buffer.untyped_data(), shape);
}

ffi::Error raggedDot(std::string_view module, ffi::RemainingArgs arguments,
                     ffi::RemainingRets results) {
  llvm::Expected<JitFunction *> function = getCache().getOrCompile(
      llvm::StringRef(module.data(), module.size()), kEntry);
  if (!function)
    return ffi::Error::InvalidArgument("gmm: " +
                                       llvm::toString(function.takeError()));
  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < arguments.size(); ++i) {
    auto buffer = arguments.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return buffer.error();
    descriptors.push_back(describe(*buffer));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    auto buffer = results.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return buffer.error();
    descriptors.push_back(describe(**buffer));
  }
  llvm::Expected<std::vector<int64_t>> called =
      (*function)->invokeOnDescriptors(descriptors);
  if (!called)
    return ffi::Error::Internal("gmm: " + llvm::toString(called.takeError()));
  return ffi::Error::Success();
}

/// Copies `message` into `buffer` of `size` bytes, NUL-terminated.
void copyMessage(const std::string &message, char *buffer, size_t size) {
  if (!buffer || !size)
    return;
  size_t length = std::min(message.size(), size - 1);
  std::memcpy(buffer, message.data(), length);
  buffer[length] = '\0';
}

} // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(GmmRaggedDot, raggedDot,
                              ffi::Ffi::Bind()
                                  .Attr<std::string_view>("module")
                                  .RemainingArgs()
                                  .RemainingRets());

extern "C" {

/// Parses and verifies `module`: 0 when it is valid, else 1 with the first
/// error in `error` (at most `size` bytes).
__attribute__((visibility("default"))) int
gmm_jax_verify(const char *module, char *error, size_t size) {
  if (llvm::Error failed = getCache().verify(module)) {
    copyMessage(llvm::toString(std::move(failed)), error, size);
    return 1;
  }
  return 0;
}

/// How many modules the handler has compiled in this process.
__attribute__((visibility("default"))) size_t gmm_jax_num_compilations() {
  return getCache().getNumCompilations();
}

} // extern "C"
