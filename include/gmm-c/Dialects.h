//===- Dialects.h - C API for the gmm dialect ---------------------*- C -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_C_DIALECTS_H
#define GMM_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The gmm dialect's handle: mlirGetDialectHandle__gmm__(). Use it with
/// mlirDialectHandleRegisterDialect / mlirDialectHandleInsertDialect /
/// mlirDialectHandleLoadDialect to register or load the gmm dialect alone.
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(GMM, gmm);

/// Adds to `registry` the gmm dialect, the dialects a gmm module and the
/// output of gmm's lowerings are written in (arith, func, linalg, scf,
/// tensor) and every upstream interface model gmm's pipelines need
/// (bufferization and its analyses, value bounds, tiling, deallocation,
/// conversion to LLVM, translation to LLVM IR), so that every pipeline of
/// gmm runs in a context that registers only gmm. A null registry is left
/// alone. The C++ equivalent is mlir::gmm::registerGMMDialects.
MLIR_CAPI_EXPORTED void mlirGMMRegisterDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif // GMM_C_DIALECTS_H
