//===- KernelConfigs.h - the kernel configurations of a compile -*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What gmm-configure chose for each ragged dot of a compile, and why, taken
// from its analysis remarks: gmm-runner --print-config and gmm.jax's
// kernel_config() show them.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_KERNELCONFIGS_H
#define GMM_RUNNER_KERNELCONFIGS_H

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace gmm {
namespace runner {

/// One ragged dot's configuration.
struct KernelConfigReport {
  /// Where the op is ("file:8:10"), its function and its #gmm.kernel_config.
  std::string location, function, config;
  /// Per field, where its value came from (mlir::gmm::ConfigReasons).
  std::vector<std::pair<std::string, std::string>> reasons;

  /// "@f at file:8:10: #gmm.kernel_config<...>", then a line
  /// "  field: reason" per field.
  std::string format() const;
};

/// Records gmm-configure's remarks in `context` while it lives: it gives the
/// context a remark engine that keeps them (replacing any other) and removes
/// it when destroyed. Compile with the context meanwhile.
class KernelConfigRecorder {
public:
  explicit KernelConfigRecorder(mlir::MLIRContext &context);
  ~KernelConfigRecorder();
  KernelConfigRecorder(const KernelConfigRecorder &) = delete;
  KernelConfigRecorder &operator=(const KernelConfigRecorder &) = delete;

  /// The ragged dots configured so far, in the order gmm-configure saw them.
  const std::vector<KernelConfigReport> &reports() const { return *recorded; }

private:
  mlir::MLIRContext &context;
  std::shared_ptr<std::vector<KernelConfigReport>> recorded;
};

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_KERNELCONFIGS_H
