//===- Passes.h - C API for gmm's passes and pipelines ------------*- C -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_C_PASSES_H
#define GMM_C_PASSES_H

#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers gmm's passes (convert-gmm-to-loops, convert-chlo-to-gmm, ...)
/// and named pipelines (gmm-reference-to-llvm, ...) with the global pass
/// registry, so that mlirParsePassPipeline and mlirOpPassManagerAddPipeline
/// accept them by name. Safe to call more than once. The C++ equivalent is
/// mlir::gmm::registerGMMPasses.
MLIR_CAPI_EXPORTED void mlirGMMRegisterPasses(void);

/// Appends gmm's reference CPU pipeline (gmm-reference-to-llvm: gmm to loops,
/// bufferization, conversion to the LLVM dialect) to `passManager`, which
/// must be anchored on builtin.module (or on any operation). Anchored
/// elsewhere (nested under func.func, say), or null, it appends nothing,
/// prints a one-line error to stderr and returns failure.
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirGMMBuildReferenceToLLVMPipeline(MlirOpPassManager passManager);

#ifdef __cplusplus
}
#endif

#endif // GMM_C_PASSES_H
