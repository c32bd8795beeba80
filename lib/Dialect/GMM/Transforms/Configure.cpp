//===- Configure.cpp - each ragged dot's kernel configuration -------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Attaches a complete, checked #gmm.kernel_config to every gmm.ragged_dot
// (see KernelConfig.h for how it is chosen).
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMCONFIGURE
#include "gmm/Dialect/GMM/Transforms/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using namespace mlir::gmm;

namespace {

struct GMMConfigure : public mlir::gmm::impl::GMMConfigureBase<GMMConfigure> {
  using GMMConfigureBase::GMMConfigureBase;

  void runOnOperation() override {
    KernelConfigRequest request;
    request.target = target;
    request.tileM = tileM;
    request.tileN = tileN;
    request.tileK = tileK;
    request.warpsM = warpsM;
    request.warpsN = warpsN;
    request.stages = stages;
    request.microM = microM;
    request.microN = microN;
    request.vectorBits = vectorBits;
    request.microKernel = microKernel;
    request.threads = threads;
    request.chip = chip;
    // Reported at the anchor without printing the whole anchor.
    if (failed(verifyKernelConfigRequest(request, [&](const Twine &message) {
          emitError(getOperation()->getLoc(), "gmm-configure: " + message);
        })))
      return signalPassFailure();
    WalkResult result = getOperation()->walk([&](RaggedDotOp op) {
      FailureOr<KernelConfigAttr> config = configureRaggedDot(op, request);
      if (failed(config))
        return WalkResult::interrupt();
      op->setAttr(kKernelConfigAttrName, *config);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
