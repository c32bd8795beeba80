//===- GMMAttrs.h - gmm attributes ------------------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_GMMATTRS_H
#define GMM_DIALECT_GMM_IR_GMMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include <optional>

namespace mlir {
namespace gmm {
/// What a ragged dot is compiled for.
enum class KernelTarget : uint8_t { CPU, GPU };

/// "cpu" or "gpu".
StringRef stringifyKernelTarget(KernelTarget target);
} // namespace gmm
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "gmm/Dialect/GMM/IR/GMMAttrs.h.inc"

#endif // GMM_DIALECT_GMM_IR_GMMATTRS_H
