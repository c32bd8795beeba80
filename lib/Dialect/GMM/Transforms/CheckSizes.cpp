//===- CheckSizes.cpp - Run-time checks of dynamic ragged dot sizes -------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-check-sizes: a cf.assert before each gmm.ragged_dot for every pair of
// sizes that must agree (RaggedDotOp::getSizeAgreements) and that the types
// leave open. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMCHECKSIZES
#include "gmm/Dialect/GMM/Transforms/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using namespace mlir::gmm;

namespace {

/// The static size of dimension `dim` of `value`, or kDynamic.
int64_t staticSize(Value value, int64_t dim) {
  return cast<ShapedType>(value.getType()).getDimSize(dim);
}

/// "gmm.ragged_dot at FILE:LINE:COL: ": where a failed check points the
/// user (any other location as MLIR prints it).
std::string describeOp(RaggedDotOp op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "gmm.ragged_dot at ";
  if (auto fileLoc = dyn_cast<FileLineColLoc>(op.getLoc()))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    os << op.getLoc();
  os << ": ";
  return text;
}

void insertChecks(RaggedDotOp op) {
  // Operands that are not ranked tensors are left to the verifier.
  if (!llvm::all_of(op->getOperands(), [](Value value) {
        return isa<RankedTensorType>(value.getType());
      }))
    return;
  OpBuilder builder(op);
  Location loc = op.getLoc();
  llvm::SmallDenseMap<int64_t, Value> constants;
  auto constant = [&](int64_t value) {
    Value &cached = constants[value];
    if (!cached)
      cached = arith::ConstantIndexOp::create(builder, loc, value);
    return cached;
  };
  auto size = [&](Value value, int64_t dim) -> Value {
    int64_t known = staticSize(value, dim);
    if (!ShapedType::isDynamic(known))
      return constant(known);
    return tensor::DimOp::create(builder, loc, value, constant(dim));
  };
  std::string where;
  for (const RaggedDotSizeAgreement &agreement : op.getSizeAgreements()) {
    int64_t first = staticSize(agreement.value, agreement.dim);
    int64_t second = agreement.other
                         ? staticSize(agreement.other, agreement.otherDim)
                         : agreement.otherDim;
    if (!ShapedType::isDynamic(first) && !ShapedType::isDynamic(second))
      continue;
    if (where.empty())
      where = describeOp(op);
    Value a = size(agreement.value, agreement.dim);
    Value b = agreement.other ? size(agreement.other, agreement.otherDim)
                              : constant(second);
    Value equal =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, a, b);
    cf::AssertOp::create(builder, loc, equal,
                         where + agreement.description + " differ");
  }
}

struct GMMCheckSizes
    : public mlir::gmm::impl::GMMCheckSizesBase<GMMCheckSizes> {
  void runOnOperation() override {
    getOperation()->walk([](RaggedDotOp op) { insertChecks(op); });
  }
};

} // namespace
