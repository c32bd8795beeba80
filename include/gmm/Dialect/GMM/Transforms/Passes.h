//===- Passes.h - gmm dialect transformations -------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_TRANSFORMS_PASSES_H
#define GMM_DIALECT_GMM_TRANSFORMS_PASSES_H

#include "gmm/Dialect/GMM/IR/GMMAttrs.h"
#include "gmm/Dialect/GMM/IR/GMMDialect.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace gmm {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "gmm/Dialect/GMM/Transforms/Passes.h.inc"

} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_TRANSFORMS_PASSES_H
