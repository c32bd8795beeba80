//===- GMMOps.h - gmm operations --------------------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_GMMOPS_H
#define GMM_DIALECT_GMM_IR_GMMOPS_H

#include "gmm/Dialect/GMM/IR/GMMAttrs.h"
#include "gmm/Dialect/GMM/IR/GMMDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"

#include <string>

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace gmm {

/// The three kinds of ragged dot, named after where the ragged lhs dimension
/// sits. The numbers are the ones used in the docs and in diagnostics.
enum class RaggedDotMode {
  /// Ragged free dimension (m): each row uses its group's rhs.
  NonContracting = 1,
  /// Ragged contracting dimension (k): one output slice per group.
  Contracting = 2,
  /// Ragged batching dimension (b): a plain batched dot.
  Batch = 3,
};

/// "mode 1 (ragged free dimension)" and so on, for diagnostics.
llvm::StringRef describeRaggedDotMode(RaggedDotMode mode);

/// The lhs dimensions that index group_sizes' prefix, in order (CHLO's rule):
/// all lhs batching dimensions, then in mode 1 the lhs free dimensions before
/// the ragged one, in mode 2 the contracting dimensions listed before it; in
/// mode 3 only the batching dimensions listed before it. Expects exactly one
/// lhs ragged dimension.
llvm::SmallVector<int64_t>
getGroupSizesPrefixDims(RaggedDotDimensionNumbersAttr dims);

/// Two sizes that must be equal for a gmm.ragged_dot to be defined: one
/// dimension of an operand and either a dimension of another operand or a
/// static size of the result type. The verifier rejects the pairs it can
/// decide from the types; gmm-check-sizes checks the others at run time.
struct RaggedDotSizeAgreement {
  /// The operand and dimension of the first size.
  Value value;
  int64_t dim;
  /// The operand and dimension of the second size; when `other` is null,
  /// `otherDim` is a static size of the result type.
  Value other;
  int64_t otherDim;
  /// "lhs contracting dimension 1 and rhs contracting dimension 1".
  std::string description;
};

} // namespace gmm
} // namespace mlir

#define GET_OP_CLASSES
#include "gmm/Dialect/GMM/IR/GMMOps.h.inc"

#endif // GMM_DIALECT_GMM_IR_GMMOPS_H
