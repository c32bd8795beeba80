//===- GMMToLoops.h - reference lowering of gmm.ragged_dot ------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CONVERSION_GMMTOLOOPS_GMMTOLOOPS_H
#define GMM_CONVERSION_GMMTOLOOPS_GMMTOLOOPS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace gmm {
class RaggedDotOp;

/// Replaces `op` by scf loops on tensors that compute it element by element.
LogicalResult lowerRaggedDotToLoops(RewriterBase &rewriter, RaggedDotOp op);

/// Adds the pattern that applies lowerRaggedDotToLoops to every ragged dot.
void populateGMMToLoopsPatterns(RewritePatternSet &patterns);

} // namespace gmm
} // namespace mlir

#endif // GMM_CONVERSION_GMMTOLOOPS_GMMTOLOOPS_H
