//===- CHLOToGMM.h - import chlo.ragged_dot as gmm.ragged_dot ---*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CONVERSION_CHLOTOGMM_CHLOTOGMM_H
#define GMM_CONVERSION_CHLOTOGMM_CHLOTOGMM_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace gmm {

/// Returns true if `op` is something the import handles: an (unregistered)
/// `chlo.ragged_dot`, or a `stablehlo.composite` named "chlo.ragged_dot".
bool isCHLORaggedDot(Operation *op);

/// Replaces `op`, which must satisfy isCHLORaggedDot, by an equivalent
/// gmm.ragged_dot with the same operands and result type. Emits an error at
/// `op` and returns failure (leaving the IR unchanged) when its attributes are
/// not understood or gmm.ragged_dot's verifier rejects them.
LogicalResult importCHLORaggedDot(RewriterBase &rewriter, Operation *op);

/// Adds the pattern that applies importCHLORaggedDot to every op satisfying
/// isCHLORaggedDot. A failed import only makes the pattern not match; the
/// convert-chlo-to-gmm pass instead walks the ops itself and fails on the
/// first error.
void populateCHLOToGMMPatterns(RewritePatternSet &patterns);

} // namespace gmm
} // namespace mlir

#endif // GMM_CONVERSION_CHLOTOGMM_CHLOTOGMM_H
