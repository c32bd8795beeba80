//===- DeviceCall.cpp - a call on a CUDA device ---------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// JitFunction::callOnDevice: the arguments are copied to device memory, the
// function runs on a stream of the call's own (or of its caller's), and the
// results and memref arguments are copied back; CUDA errors become errors
// of the call (the runtime's record mode).
//
//===----------------------------------------------------------------------===//

#include "RunnerInternals.h"

#include "gmm/Runtime/CudaRuntime.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace gmm {
namespace runner {

using namespace detail;

namespace {
/// Elements from the aligned pointer that a strided descriptor reaches.
int64_t descriptorSpan(const int64_t *desc, size_t rank) {
  int64_t last = desc[2];
  for (size_t d = 0; d < rank; ++d) {
    if (desc[3 + d] <= 0)
      return 0;
    last += (desc[3 + d] - 1) * desc[3 + rank + d];
  }
  return last + 1;
}

/// Device memory for one call; freed with the object.
struct DeviceBuffers {
  std::vector<std::pair<void *, size_t>> buffers;
  void *stream = nullptr;
  ~DeviceBuffers() {
    for (auto [pointer, size] : buffers)
      mgpuMemFree(pointer, nullptr);
    if (stream)
      mgpuStreamDestroy(stream);
  }
  bool owns(const void *p) const {
    return llvm::any_of(buffers, [&](const std::pair<void *, size_t> &b) {
      auto begin = reinterpret_cast<uintptr_t>(b.first);
      auto address = reinterpret_cast<uintptr_t>(p);
      return b.first && address >= begin &&
             address - begin < std::max<size_t>(b.second, 1);
    });
  }
};

llvm::Error takeCudaError(StringRef what) {
  std::string message;
  if (gmmCudaTakeError(&message))
    return makeError(what.str() + ": " + message);
  return llvm::Error::success();
}
} // namespace

llvm::Expected<std::vector<HostTensor>>
JitFunction::callOnDevice(llvm::ArrayRef<HostTensor> arguments,
                          double *seconds) {
  const std::vector<TensorSpec> &argSpecs = signature.arguments;
  // Failures become errors of this call rather than aborting the process.
  gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
  (void)gmmCudaTakeError();
  DeviceBuffers device;
  device.stream = mgpuStreamCreate();
  std::vector<std::vector<int64_t>> descriptors;
  for (const HostTensor &argument : arguments) {
    size_t size = argument.bytes.size();
    void *pointer = mgpuMemAlloc(size, nullptr, /*isHostShared=*/0);
    if (size && !pointer)
      break;
    device.buffers.push_back({pointer, size});
    mgpuMemcpy(pointer, const_cast<uint8_t *>(argument.bytes.data()), size,
               device.stream);
    descriptors.push_back(denseDescriptor(pointer, argument.shape));
  }
  mgpuStreamSynchronize(device.stream);
  if (llvm::Error error = takeCudaError("copying the arguments to the GPU"))
    return std::move(error);

  // The function runs on this call's stream (the "cuda" pipeline compiles
  // with caller-stream) or on its own, which it waits for; either way the
  // call's wall time covers the work on the device.
  llvm::Expected<std::vector<int64_t>> words =
      invokeOnDescriptors(descriptors, seconds, device.stream);
  if (!words)
    return words.takeError();
  std::vector<int64_t> &resultStorage = *words;
  std::vector<size_t> offsets = resultOffsets(signature);
  if (llvm::Error error = takeCudaError("running @" + signature.name))
    return std::move(error);

  // Results: copy each device buffer to the host, then read it as usual.
  std::vector<HostTensor> outputs;
  llvm::SmallVector<void *> freed;
  for (auto [i, spec] : llvm::enumerate(signature.results)) {
    int64_t *desc = resultStorage.data() + offsets[i];
    size_t rank = spec.shape.size();
    size_t width = getByteWidth(spec.type);
    std::vector<uint8_t> staging(descriptorSpan(desc, rank) * width);
    mgpuMemcpy(staging.data(), reinterpret_cast<void *>(desc[1]),
               staging.size(), device.stream);
    mgpuStreamSynchronize(device.stream);
    if (llvm::Error error = takeCudaError("copying the results back"))
      return std::move(error);
    std::vector<int64_t> host(desc, desc + 3 + 2 * rank);
    host[0] = host[1] = reinterpret_cast<int64_t>(staging.data());
    llvm::Expected<HostTensor> tensor = copyOut(host.data(), spec, i);
    if (!tensor)
      return tensor.takeError();
    outputs.push_back(std::move(*tensor));
    auto *allocated = reinterpret_cast<void *>(desc[0]);
    if (allocated && !device.owns(allocated) &&
        !llvm::is_contained(freed, allocated)) {
      freed.push_back(allocated);
      mgpuMemFree(allocated, nullptr);
    }
  }
  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    if (!spec.isMemRef)
      continue;
    HostTensor tensor = arguments[i];
    mgpuMemcpy(tensor.bytes.data(), device.buffers[i].first,
               tensor.bytes.size(), device.stream);
    mgpuStreamSynchronize(device.stream);
    outputs.push_back(std::move(tensor));
  }
  if (llvm::Error error = takeCudaError("copying the results back"))
    return std::move(error);
  return outputs;
}

} // namespace runner
} // namespace gmm
