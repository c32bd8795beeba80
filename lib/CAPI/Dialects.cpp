//===- Dialects.cpp - C API for the gmm dialect ---------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm-c/Dialects.h"
#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/InitGMM.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(GMM, gmm, mlir::gmm::GMMDialect)

void mlirGMMRegisterDialects(MlirDialectRegistry registry) {
  // A null registry has nothing to register into.
  if (mlirDialectRegistryIsNull(registry))
    return;
  mlir::gmm::registerGMMDialects(*unwrap(registry));
}
