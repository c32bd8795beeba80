//===- GMMDialect.h - gmm dialect -------------------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_GMMDIALECT_H
#define GMM_DIALECT_GMM_IR_GMMDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "gmm/Dialect/GMM/IR/GMMDialect.h.inc"

#endif // GMM_DIALECT_GMM_IR_GMMDIALECT_H
