//===- Passes.cpp - C API for gmm's passes and pipelines ------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm-c/Passes.h"
#include "gmm/InitGMM.h"
#include "gmm/Pipelines/Pipelines.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

void mlirGMMRegisterPasses(void) { mlir::gmm::registerGMMPasses(); }

MlirLogicalResult
mlirGMMBuildReferenceToLLVMPipeline(MlirOpPassManager passManager) {
  auto error = [](const llvm::Twine &message) {
    llvm::errs() << "error: " << message << "\n";
    return mlir::failure();
  };
  if (!passManager.ptr) {
    (void)error("mlirGMMBuildReferenceToLLVMPipeline: the pass manager is "
                "null");
    return mlirLogicalResultFailure();
  }
  mlir::OpPassManager &pm = *unwrap(passManager);
  if (mlir::failed(
          mlir::gmm::verifyPipelineAnchor(pm, "gmm-reference-to-llvm", error)))
    return mlirLogicalResultFailure();
  mlir::gmm::buildReferenceToLLVMPipeline(pm);
  return mlirLogicalResultSuccess();
}
