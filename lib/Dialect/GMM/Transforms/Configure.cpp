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

#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMCONFIGURE
#include "gmm/Dialect/GMM/Transforms/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using namespace mlir::gmm;

namespace {

/// The remark that says which configuration `op` got and why: an analysis
/// remark of category gmm-configure (`gmm-opt --remarks-filter=gmm-configure`,
/// `gmm-runner --print-config`), e.g.
///
///   [Analysis] KernelConfig | Category:gmm-configure | Function=f |
///   config="#gmm.kernel_config<target = gpu, ...>", stages=heuristic: ...
void remarkConfig(RaggedDotOp op, KernelConfigAttr config,
                  const ConfigReasons &reasons) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  remark::detail::InFlightRemark remark = remark::analysis(
      op.getLoc(), remark::RemarkOpts::name("KernelConfig")
                       .category(kConfigureRemarkCategory)
                       .function(func ? func.getName() : StringRef()));
  if (!remark)
    return;
  remark << remark::detail::Remark::Arg("config", Attribute(config));
  for (const auto &[field, why] : reasons)
    remark << remark::detail::Remark::Arg(field, why);
}

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
    request.raster = raster;
    request.microM = microM;
    request.microN = microN;
    request.vectorBits = vectorBits;
    request.microKernel = microKernel;
    request.mma = mma;
    request.threads = threads;
    request.chip = chip;
    // Reported at the anchor without printing the whole anchor.
    if (failed(verifyKernelConfigRequest(request, [&](const Twine &message) {
          emitError(getOperation()->getLoc(), "gmm-configure: " + message);
        })))
      return signalPassFailure();
    WalkResult result = getOperation()->walk([&](RaggedDotOp op) {
      ConfigReasons reasons;
      FailureOr<KernelConfigAttr> config =
          configureRaggedDot(op, request, &reasons);
      if (failed(config))
        return WalkResult::interrupt();
      op->setAttr(kKernelConfigAttrName, *config);
      remarkConfig(op, *config, reasons);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
