//===- gmm-fuzz-call.cpp - libFuzzer target: gmm.jax's front door ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The input is a JSON request as gmm.jax sends it to gmm_jax_signature
// (describeRaggedDotCallJSON, gmm/Runner/RaggedDotCall.h): a ragged dot
// call's operand shapes and element types, dimension numbers, result type
// and options. It must either fail with a message or answer with JSON whose
// module parses and verifies where the handler compiles it.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/ModuleCache.h"
#include "gmm/Runner/RaggedDotCall.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace gmm::runner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = createRunnerContext().release();
  llvm::StringRef request(reinterpret_cast<const char *>(data), size);
  llvm::Expected<std::string> answer =
      describeRaggedDotCallJSON(*context, request);
  if (!answer) {
    if (llvm::toString(answer.takeError()).empty())
      std::abort();
    return 0;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(*answer);
  const llvm::json::Object *object = parsed ? parsed->getAsObject() : nullptr;
  std::optional<llvm::StringRef> module =
      object ? object->getString("module") : std::nullopt;
  if (!module || !object->getArray("result_shape") ||
      !object->getInteger("mode")) {
    llvm::errs() << "gmm-fuzz-call: FINDING: malformed answer " << *answer
                 << "\n";
    std::abort();
  }
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> verified =
      parseModuleText(*context, *module, "answer");
  if (!verified) {
    llvm::errs() << "gmm-fuzz-call: FINDING: the answer's module does not "
                    "verify: "
                 << llvm::toString(verified.takeError()) << "\n"
                 << *module << "\n";
    std::abort();
  }
  return 0;
}
