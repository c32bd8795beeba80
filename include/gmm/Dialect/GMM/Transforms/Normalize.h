//===- Normalize.h - normalized layouts of gmm.ragged_dot -------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_TRANSFORMS_NORMALIZE_H
#define GMM_DIALECT_GMM_TRANSFORMS_NORMALIZE_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace gmm {
class RaggedDotOp;

/// Replaces `op` by reshapes/transposes of its operands, a gmm.ragged_dot in
/// a normalized form (`RaggedDotOp::isNormalized`) and the reshape/transpose
/// of its result back to `op`'s result type; returns the new ragged dot.
/// Fails, leaving `op` untouched, when `op` is already normalized or cannot
/// be normalized (see the gmm-normalize pass description).
FailureOr<RaggedDotOp> normalizeRaggedDot(RewriterBase &rewriter,
                                          RaggedDotOp op);

/// Adds the pattern that applies normalizeRaggedDot to every ragged dot.
void populateGMMNormalizePatterns(RewritePatternSet &patterns);

} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_TRANSFORMS_NORMALIZE_H
