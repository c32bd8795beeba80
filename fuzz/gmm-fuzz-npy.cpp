//===- gmm-fuzz-npy.cpp - libFuzzer target: the .npy reader ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The input is the contents of a .npy file, as gmm-runner --input reads it.
// parseNpy() must either fail with an error or return a tensor whose bytes
// fit its shape; a tensor it returns must survive the conversions that
// gmm-runner applies and a write/read round trip.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/HostTensor.h"
#include "gmm/Runner/Npy.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace gmm::runner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef contents(reinterpret_cast<const char *>(data), size);
  llvm::Expected<HostTensor> tensor = parseNpy(contents, "input.npy");
  if (!tensor) {
    std::string message = llvm::toString(tensor.takeError());
    if (message.empty())
      std::abort();
    return 0;
  }
  if (!tensor->isConsistent()) {
    llvm::errs() << "gmm-fuzz-npy: FINDING: parseNpy returned "
                 << tensor->bytes.size() << " bytes for shape "
                 << formatShape(tensor->shape) << "\n";
    std::abort();
  }
  for (DType type : {DType::F16, DType::BF16, DType::F32, DType::F64,
                     DType::I32, DType::I64}) {
    llvm::Expected<HostTensor> converted = convertTensor(*tensor, type);
    if (!converted)
      llvm::consumeError(converted.takeError());
    else if (!converted->isConsistent())
      std::abort();
  }
  llvm::Expected<HostTensor> again =
      parseNpy(serializeNpy(*tensor), "round-trip.npy");
  if (!again || again->shape != tensor->shape ||
      again->bytes != tensor->bytes || again->type != tensor->type) {
    llvm::errs() << "gmm-fuzz-npy: FINDING: the write/read round trip "
                    "changed the tensor\n";
    std::abort();
  }
  if (tensor->getNumElements() <= 64)
    (void)formatTensor(*tensor);
  return 0;
}
