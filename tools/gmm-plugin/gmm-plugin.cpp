//===- gmm-plugin.cpp - gmm as an mlir-opt dialect and pass plugin --------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Lets an unmodified mlir-opt (Debian's /usr/lib/llvm-22/bin/mlir-opt, or any
// tool built on MlirOptMain) load gmm at run time:
//
//   mlir-opt --load-dialect-plugin=libGMMPlugin.so \
//            --load-pass-plugin=libGMMPlugin.so \
//            --pass-pipeline='builtin.module(convert-gmm-to-loops)' in.mlir
//
// The plugin links the shared libMLIR.so rather than static MLIR libraries,
// so the host tool and the plugin share one MLIR: one pass registry, one set
// of TypeIDs, one MLIRContext implementation.
//
//===----------------------------------------------------------------------===//

#include "gmm/InitGMM.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

/// Entry point for `--load-dialect-plugin`: the gmm dialect with what its
/// passes need, and, as upstream's example plugin does, gmm's passes, so
/// that one option suffices.
extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GMM", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            gmm::registerGMMDialects(*registry);
            gmm::registerGMMPasses();
          }};
}

/// Entry point for `--load-pass-plugin`: gmm's passes and pipelines.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GMMPasses", LLVM_VERSION_STRING,
          []() { gmm::registerGMMPasses(); }};
}
