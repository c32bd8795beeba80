//===- RunnerPipelines.cpp - the pipelines the runner offers --------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// lib/Pipelines' catalogue as the runner offers it: the GPU pipelines
// compile for the chip of the CUDA device that runs the code.
//
//===----------------------------------------------------------------------===//

#include "RunnerInternals.h"

#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Runtime/CudaRuntime.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace gmm {
namespace runner {

using detail::makeError;

llvm::ArrayRef<PipelineInfo> getPipelines() {
  // lib/Pipelines' catalogue, with the GPU pipelines compiling for the
  // chip of the CUDA device that runs the code.
  static const std::vector<PipelineInfo> pipelines = [] {
    std::vector<PipelineInfo> result;
    for (const mlir::gmm::PipelineDescription &description :
         mlir::gmm::getPipelineCatalogue()) {
      auto build = description.build;
      bool gpu = description.gpu;
      result.push_back({description.name, description.description,
                        [build, gpu](OpPassManager &pm) {
                          std::string chip;
                          GmmCudaDeviceInfo info;
                          if (gpu && gmmCudaAvailable() &&
                              gmmCudaGetDeviceInfo(0, info))
                            chip = info.chip();
                          build(pm, chip);
                        },
                        gpu});
    }
    return result;
  }();
  return pipelines;
}

int getNumThreads() { return omp_get_max_threads(); }

const PipelineInfo *lookupPipeline(StringRef name) {
  for (const PipelineInfo &info : getPipelines())
    if (name == info.name)
      return &info;
  return nullptr;
}

llvm::Expected<const PipelineInfo *> findPipeline(StringRef name) {
  if (const PipelineInfo *info = lookupPipeline(name))
    return info;
  std::string names;
  for (const PipelineInfo &info : getPipelines())
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  return makeError("unknown --pipeline=" + name.str() +
                   " (available: " + names + ")");
}

} // namespace runner
} // namespace gmm
