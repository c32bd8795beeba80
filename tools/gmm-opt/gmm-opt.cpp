//===- gmm-opt.cpp - mlir-opt with the gmm dialect and passes -------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Conversion/Passes.h"
#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::gmm::registerGMMConversionPasses();
  mlir::gmm::registerGMMPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::gmm::GMMDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "gmm optimizer driver: ragged dot for MLIR\n", registry));
}
