//===- Utils.h - helpers shared by the gmm transforms -----------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_TRANSFORMS_UTILS_H
#define GMM_DIALECT_GMM_TRANSFORMS_UTILS_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace gmm {

/// acc += lhs * rhs as a vector.contract over lhs [m, k], rhs [k, n] and
/// acc [m, n]: the block contraction of the tile program (gmm-tile) and of
/// the GPU tile kernels (gmm-gpu-promote-operands, gmm-gpu-distribute-warps).
Value buildMatmulContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             Value acc);

} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_TRANSFORMS_UTILS_H
