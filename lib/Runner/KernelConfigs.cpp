//===- KernelConfigs.cpp - the kernel configurations of a compile ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/KernelConfigs.h"

#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Runner/JitRunner.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"

using namespace mlir;

namespace gmm {
namespace runner {

namespace {

/// Keeps gmm-configure's remarks as reports.
class Streamer : public remark::detail::MLIRRemarkStreamerBase {
public:
  explicit Streamer(std::shared_ptr<std::vector<KernelConfigReport>> recorded)
      : recorded(std::move(recorded)) {}

  void streamOptimizationRemark(const remark::detail::Remark &remark) override {
    KernelConfigReport report;
    report.location = formatLocation(remark.getLocation());
    report.function = remark.getFunction().str();
    for (const remark::detail::Remark::Arg &arg : remark.getArgs()) {
      if (arg.key == "config")
        report.config = arg.val;
      else
        report.reasons.emplace_back(arg.key, arg.val);
    }
    recorded->push_back(std::move(report));
  }

private:
  std::shared_ptr<std::vector<KernelConfigReport>> recorded;
};

} // namespace

std::string KernelConfigReport::format() const {
  std::string text = "@" + function + " at " + location + ": " + config;
  for (const auto &[field, why] : reasons)
    text += "\n  " + field + ": " + why;
  return text;
}

KernelConfigRecorder::KernelConfigRecorder(MLIRContext &context)
    : context(context),
      recorded(std::make_shared<std::vector<KernelConfigReport>>()) {
  remark::RemarkCategories categories;
  categories.analysis = mlir::gmm::kConfigureRemarkCategory.str();
  (void)remark::enableOptimizationRemarks(
      context, std::make_unique<Streamer>(recorded),
      std::make_unique<remark::RemarkEmittingPolicyAll>(), categories,
      /*printAsEmitRemarks=*/false);
}

KernelConfigRecorder::~KernelConfigRecorder() {
  context.setRemarkEngine(nullptr);
}

} // namespace runner
} // namespace gmm
