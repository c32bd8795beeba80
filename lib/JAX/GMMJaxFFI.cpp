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
// Every buffer is checked against the compiled function's signature (count,
// element type, rank, static sizes) before the call: a direct
// jax.ffi.ffi_call with other buffers gets an error, not a call that reads
// or writes past them. Errors (a module that does not verify or compile,
// buffers that do not match, a call that aborts) are returned to XLA as FFI
// errors with gmm's message, which JAX raises as a
// Python exception. gmm_jax_verify() lets gmm.jax check a module at trace
// time, so that bad shapes or dimension numbers fail where the user called.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/JitRunner.h"
#include "gmm/Runner/ModuleCache.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/Support/Error.h"

#include "xla/ffi/api/ffi.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ffi = xla::ffi;
using gmm::runner::DType;
using gmm::runner::JitFunction;
using gmm::runner::ModuleCache;
using gmm::runner::TensorSpec;

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

/// The element type of an XLA buffer as gmm names it; std::nullopt for
/// those no gmm function takes.
std::optional<DType> getDType(ffi::DataType type) {
  switch (type) {
  case ffi::DataType::F16:
    return DType::F16;
  case ffi::DataType::BF16:
    return DType::BF16;
  case ffi::DataType::F32:
    return DType::F32;
  case ffi::DataType::F64:
    return DType::F64;
  case ffi::DataType::S32:
    return DType::I32;
  case ffi::DataType::S64:
    return DType::I64;
  default:
    return std::nullopt;
  }
}

/// Checks that `buffer` (`what`: "operand 1", "result 0") can be passed as
/// `spec`: the same element type and rank, and its static sizes.
template <typename Buffer>
ffi::Error checkBuffer(const Buffer &buffer, const TensorSpec &spec,
                       const std::string &what) {
  auto dimensions = buffer.dimensions();
  std::string shape;
  for (size_t d = 0; d < dimensions.size(); ++d)
    shape += (d ? "x" : "") + std::to_string(dimensions[d]);
  std::optional<DType> type = getDType(buffer.element_type());
  bool matches =
      type && *type == spec.type && dimensions.size() == spec.shape.size();
  for (size_t d = 0; matches && d < dimensions.size(); ++d)
    matches =
        dimensions[d] >= 0 && (spec.shape[d] == mlir::ShapedType::kDynamic ||
                               spec.shape[d] == dimensions[d]);
  if (matches)
    return ffi::Error::Success();
  std::string element =
      type ? gmm::runner::toString(*type)
           : "XLA type " +
                 std::to_string(static_cast<int>(buffer.element_type()));
  return ffi::Error::InvalidArgument(
      "gmm: " + what + " of the call is a " +
      (shape.empty() ? std::string("scalar") : shape) + " buffer of " +
      element + ", but the compiled function takes " + spec.typeName);
}

ffi::Error raggedDot(std::string_view module, ffi::RemainingArgs arguments,
                     ffi::RemainingRets results) {
  llvm::Expected<JitFunction *> function = getCache().getOrCompile(
      llvm::StringRef(module.data(), module.size()), kEntry);
  if (!function)
    return ffi::Error::InvalidArgument("gmm: " +
                                       llvm::toString(function.takeError()));
  // The module's function takes the operands, then a memref per result,
  // and returns nothing (gmm.jax writes it so).
  const gmm::runner::FunctionSignature &signature = (*function)->getSignature();
  size_t expected = signature.arguments.size();
  if (!signature.results.empty() ||
      arguments.size() + results.size() != expected)
    return ffi::Error::InvalidArgument(
        "gmm: the call has " + std::to_string(arguments.size()) +
        " operands and " + std::to_string(results.size()) +
        " results, but the compiled function takes " +
        std::to_string(expected) + " buffers (operands, then results)" +
        (signature.results.empty() ? "" : " and returns values"));
  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < arguments.size(); ++i) {
    auto buffer = arguments.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return buffer.error();
    if (signature.arguments[i].isMemRef)
      return ffi::Error::InvalidArgument(
          "gmm: operand " + std::to_string(i) +
          " of the call would be written by the compiled function (" +
          signature.arguments[i].typeName +
          "), but XLA's operands are read-only");
    if (ffi::Error error = checkBuffer(*buffer, signature.arguments[i],
                                       "operand " + std::to_string(i));
        error.failure())
      return error;
    descriptors.push_back(describe(*buffer));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    auto buffer = results.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return buffer.error();
    const TensorSpec &spec = signature.arguments[arguments.size() + i];
    if (!spec.isMemRef)
      return ffi::Error::InvalidArgument(
          "gmm: result " + std::to_string(i) +
          " of the call would be written into an operand of the compiled "
          "function (" +
          spec.typeName + ")");
    if (ffi::Error error =
            checkBuffer(**buffer, spec, "result " + std::to_string(i));
        error.failure())
      return error;
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

/// gmm.jax's front door (RaggedDotCall.h): the module, result shape, mode
/// and free dimensions of the ragged dot call that the JSON `request`
/// describes, as JSON in `out` (at most `size` bytes), and 0; else 1 with
/// the op verifier's first error there.
__attribute__((visibility("default"))) int
gmm_jax_signature(const char *request, char *out, size_t size) {
  llvm::Expected<std::string> answer = getCache().describeCall(request);
  if (!answer) {
    copyMessage(llvm::toString(answer.takeError()), out, size);
    return 1;
  }
  if (answer->size() >= size) {
    copyMessage("the answer needs " + std::to_string(answer->size() + 1) +
                    " bytes, more than the " + std::to_string(size) + " given",
                out, size);
    return 1;
  }
  copyMessage(*answer, out, size);
  return 0;
}

/// The kernel configuration that the handler's pipeline chooses for each
/// ragged dot of `module`, and why (KernelConfigReport::format, one report
/// after the other): 0 with the text in `out`, else 1 with the error there
/// (at most `size` bytes either way).
__attribute__((visibility("default"))) int
gmm_jax_kernel_config(const char *module, char *out, size_t size) {
  llvm::Expected<std::vector<gmm::runner::KernelConfigReport>> reports =
      getCache().describeKernelConfigs(module);
  if (!reports) {
    copyMessage(llvm::toString(reports.takeError()), out, size);
    return 1;
  }
  std::string text;
  for (const gmm::runner::KernelConfigReport &report : *reports)
    text += report.format() + "\n";
  copyMessage(text, out, size);
  return 0;
}

/// How many modules the handler has compiled in this process.
__attribute__((visibility("default"))) size_t gmm_jax_num_compilations() {
  return getCache().getNumCompilations();
}

} // extern "C"
