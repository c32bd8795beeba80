//===- Utils.cpp - helpers shared by the gmm transforms -------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gmm::tiling;

Value mlir::gmm::tiling::cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value mlir::gmm::tiling::dim(OpBuilder &b, Location loc, Value tensor,
                             int64_t d) {
  return getValueOrCreateConstantIndexOp(
      b, loc, tensor::getMixedSize(b, loc, tensor, d));
}

Value mlir::gmm::tiling::minIdx(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}

Value mlir::gmm::tiling::maxIdx(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value mlir::gmm::tiling::convertVector(OpBuilder &b, Location loc, Value v,
                                       Type elementType) {
  auto type = cast<VectorType>(v.getType());
  Type from = type.getElementType();
  if (from == elementType)
    return v;
  auto to = VectorType::get(type.getShape(), elementType);
  if (from.getIntOrFloatBitWidth() < elementType.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  if (from.getIntOrFloatBitWidth() > elementType.getIntOrFloatBitWidth()) {
    // f64 -> bf16 has no inline lowering; go through f32 (see GMMToLoops).
    if (elementType.isBF16() && from.isF64())
      v = arith::TruncFOp::create(
          b, loc, VectorType::get(type.getShape(), b.getF32Type()), v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  Value wide = arith::ExtFOp::create(
      b, loc, VectorType::get(type.getShape(), b.getF32Type()), v);
  return arith::TruncFOp::create(b, loc, to, wide);
}

Value mlir::gmm::tiling::writeBlock(OpBuilder &b, Location loc, Value acc,
                                    Value slice, bool accumulate,
                                    ValueRange indices,
                                    ArrayRef<bool> inBounds) {
  auto sliceType = cast<RankedTensorType>(slice.getType());
  auto accType = cast<VectorType>(acc.getType());
  SmallVector<Value> at(indices);
  if (at.empty())
    at.assign(2, cst(b, loc, 0));
  if (accumulate) {
    Value pad = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(sliceType.getElementType()));
    Value old = vector::TransferReadOp::create(
        b, loc, VectorType::get(accType.getShape(), sliceType.getElementType()),
        slice, at, pad, inBounds);
    acc = arith::AddFOp::create(
        b, loc, acc, convertVector(b, loc, old, accType.getElementType()));
  }
  Value result = convertVector(b, loc, acc, sliceType.getElementType());
  return vector::TransferWriteOp::create(b, loc, result, slice, at, inBounds)
      .getResult();
}

Value mlir::gmm::buildMatmulContraction(OpBuilder &b, Location loc, Value lhs,
                                        Value rhs, Value acc) {
  MLIRContext *ctx = b.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  return vector::ContractionOp::create(
      b, loc, lhs, rhs, acc,
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {k, n}, {m, n}},
      ArrayRef<vector::IteratorType>{vector::IteratorType::parallel,
                                     vector::IteratorType::parallel,
                                     vector::IteratorType::reduction});
}
