//===- my-opt.cpp - an opt tool of another compiler, embedding gmm --------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What a compiler that embeds gmm adds to its own driver: the gmm dialect
// (with what gmm's passes need) in its DialectRegistry, and gmm's passes and
// pipelines in the pass registry, next to its own registrations.
//
//===----------------------------------------------------------------------===//

#include "gmm/InitGMM.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  // The embedding compiler's own passes; here two upstream ones.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  // gmm's passes (convert-gmm-to-loops, ...) and pipelines
  // (gmm-reference-to-llvm, ...).
  mlir::gmm::registerGMMPasses();

  mlir::DialectRegistry registry;
  mlir::gmm::registerGMMDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "my-opt: a compiler embedding gmm\n", registry));
}
