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

/// The short index and vector builders of the tile programs (gmm-tile and
/// the CPU's packed visit program), in a namespace of their own so that
/// their short names do not meet other files' helpers.
namespace tiling {

/// An index constant.
Value cst(OpBuilder &b, Location loc, int64_t v);

/// The extent of dimension `d` of a ranked tensor, as an index.
Value dim(OpBuilder &b, Location loc, Value tensor, int64_t d);

/// min and max of two signed indices.
Value minIdx(OpBuilder &b, Location loc, Value x, Value y);
Value maxIdx(OpBuilder &b, Location loc, Value x, Value y);

/// `v` with its floating-point elements converted to `elementType` (f64 to
/// bf16 through f32, which has an inline lowering).
Value convertVector(OpBuilder &b, Location loc, Value v, Type elementType);

/// Adds the block's current values (when accumulating into init) and writes
/// `acc` into `slice` at `indices` (by default its origin), converted to its
/// element type; rows and columns past the slice are dropped, except along
/// the dimensions that `inBounds` declares inside it.
Value writeBlock(OpBuilder &b, Location loc, Value acc, Value slice,
                 bool accumulate, ValueRange indices = {},
                 ArrayRef<bool> inBounds = {false, false});

} // namespace tiling
} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_TRANSFORMS_UTILS_H
