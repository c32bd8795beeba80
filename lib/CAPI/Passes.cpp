//===- Passes.cpp - C API for gmm's passes and pipelines ------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm-c/Passes.h"
#include "gmm/InitGMM.h"
#include "gmm/Pipelines/Pipelines.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassManager.h"

void mlirGMMRegisterPasses(void) { mlir::gmm::registerGMMPasses(); }

void mlirGMMBuildReferenceToLLVMPipeline(MlirOpPassManager passManager) {
  mlir::gmm::buildReferenceToLLVMPipeline(*unwrap(passManager));
}
