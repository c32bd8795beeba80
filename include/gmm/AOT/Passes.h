//===- Passes.h - ahead-of-time compilation passes --------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_AOT_PASSES_H
#define GMM_AOT_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace gmm {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "gmm/AOT/Passes.h.inc"

} // namespace gmm
} // namespace mlir

#endif // GMM_AOT_PASSES_H
