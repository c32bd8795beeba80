//===- gmm-opt.cpp - mlir-opt with the gmm dialect and passes -------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/InitGMM.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // gmm-opt is mlir-opt plus gmm: every upstream dialect, extension and pass
  // next to gmm's own. A compiler embedding gmm only needs the two gmm calls.
  mlir::registerAllPasses();
  mlir::gmm::registerGMMPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::gmm::registerGMMDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "gmm optimizer driver: ragged dot for MLIR\n", registry));
}
