//===- GMMToLoops.cpp - reference lowering of gmm.ragged_dot --------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Lowers gmm.ragged_dot to scf loops on tensors that compute the semantics of
// docs/Semantics.md element by element. The code is written for clarity and
// for being obviously in bounds for any group sizes, not for speed: it is the
// reference that the tiled pipelines are compared with.
//
//===----------------------------------------------------------------------===//

#include "gmm/Conversion/GMMToLoops/GMMToLoops.h"
#include "gmm/Conversion/Passes.h"
#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_CONVERTGMMTOLOOPS
#include "gmm/Conversion/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using namespace mlir::gmm;

namespace {

/// Converts a float between f16/bf16/f32/f64.
Value convertFloat(OpBuilder &b, Location loc, Value value, Type type) {
  unsigned from = value.getType().getIntOrFloatBitWidth();
  unsigned to = type.getIntOrFloatBitWidth();
  if (value.getType() == type)
    return value;
  if (from < to)
    return arith::ExtFOp::create(b, loc, type, value);
  if (from > to) {
    // f64 -> bf16 has no LLVM lowering without a runtime helper (only the
    // f32 -> bf16 truncation is expanded inline), so go through f32. The
    // double rounding is at most one bf16 ulp off in rare ties.
    if (type.isBF16() && from == 64)
      value = arith::TruncFOp::create(b, loc, b.getF32Type(), value);
    return arith::TruncFOp::create(b, loc, type, value);
  }
  // f16 <-> bf16: go through f32.
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  return arith::TruncFOp::create(b, loc, type, wide);
}

/// Everything the loop bodies need, computed once before the loops.
struct RaggedDotLowering {
  // Op accessors are not const; the lowering only reads through them.
  mutable RaggedDotOp op;
  RaggedDotMode mode;
  Type accType;
  SmallVector<int64_t> lhsFreeDims, rhsFreeDims;
  int64_t numBatch;
  Value lhs, rhs, groupSizes;
  /// Extent of the ragged lhs dimension, number of groups, local groups.
  Value extent, numGroups, numLocalGroups;
  /// The group offset as an index (0 without one).
  Value offset;
  SmallVector<Value> contractSizes;

  /// Index of `size` clamped to [0, extent], computed in i64 so that huge or
  /// negative sizes of either width never overflow.
  Value clampedSize(OpBuilder &b, Location loc, ValueRange gsIndices) const {
    Value size = tensor::ExtractOp::create(b, loc, groupSizes, gsIndices);
    Type i64 = b.getI64Type();
    if (size.getType() != i64)
      size = arith::ExtSIOp::create(b, loc, i64, size);
    Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
    Value limit = arith::IndexCastOp::create(b, loc, i64, extent);
    size = arith::MaxSIOp::create(b, loc, size, zero);
    size = arith::MinSIOp::create(b, loc, size, limit);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), size);
  }

  /// The indices of group_sizes' prefix for one lhs element: all batch
  /// indices, then (mode 1) the free lhs indices before the ragged dim or
  /// (mode 2) the contracting indices listed before the ragged one. Empty when
  /// group_sizes is [g] and broadcast.
  SmallVector<Value> groupSizesPrefix(ArrayRef<Value> lhsIndices) const {
    if (cast<RankedTensorType>(groupSizes.getType()).getRank() == 1)
      return {};
    return llvm::map_to_vector(
        getGroupSizesPrefixDims(op.getDimensionNumbers()),
        [&](int64_t d) { return lhsIndices[d]; });
  }

  /// The end of group `i` (at `prefix` of the group sizes) given its start:
  /// start + max(size, 0), saturated at the ragged extent.
  Value groupEnd(OpBuilder &b, Location loc, ArrayRef<Value> prefix, Value i,
                 Value start) const {
    SmallVector<Value> indices(prefix);
    indices.push_back(i);
    return arith::MinSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, start, clampedSize(b, loc, indices)),
        extent);
  }

  /// Mode 1: the global group whose bounds contain ragged index `row`, or -1.
  Value findGroup(OpBuilder &b, Location loc, ArrayRef<Value> prefix,
                  Value row) const {
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    Value none = arith::ConstantIndexOp::create(b, loc, -1);
    auto loop = scf::ForOp::create(
        b, loc, c0, numGroups, c1, ValueRange{c0, none},
        [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
          Value start = args[0], found = args[1];
          Value end = groupEnd(b, loc, prefix, i, start);
          Value inside = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row,
                                    start),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row,
                                    end));
          Value next = arith::SelectOp::create(b, loc, inside, i, found);
          scf::YieldOp::create(b, loc, ValueRange{end, next});
        });
    return loop.getResult(1);
  }

  /// Mode 2: [start, end) of global group `group` (known to be in [0, g)).
  std::pair<Value, Value> groupBounds(OpBuilder &b, Location loc,
                                      ArrayRef<Value> prefix,
                                      Value group) const {
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    Value last = arith::AddIOp::create(b, loc, group, c1);
    auto loop = scf::ForOp::create(
        b, loc, c0, last, c1, ValueRange{c0, c0},
        [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
          Value start = args[1];
          Value end = groupEnd(b, loc, prefix, i, start);
          scf::YieldOp::create(b, loc, ValueRange{start, end});
        });
    return {loop.getResult(0), loop.getResult(1)};
  }

  /// sum over the contracting dims of lhs[lhsIndices] * rhs[rhsIndices], in
  /// the accumulator type. In mode 2 the ragged contracting dim only runs
  /// over the bounds of `group` (global index).
  Value dot(OpBuilder &b, Location loc, SmallVector<Value> lhsIndices,
            SmallVector<Value> rhsIndices, Value group) const {
    auto dims = op.getDimensionNumbers();
    ArrayRef<int64_t> lhsContract = dims.getLhsContractingDimensions();
    ArrayRef<int64_t> rhsContract = dims.getRhsContractingDimensions();
    int64_t ragged = op.getLhsRaggedDimension();
    bool raggedContraction = mode == RaggedDotMode::Contracting;

    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(accType));

    // Loops over the contracting dims, the ragged one excluded in mode 2.
    SmallVector<Value> lbs, ubs, steps;
    SmallVector<size_t> loopDims;
    for (auto [c, d] : llvm::enumerate(lhsContract)) {
      if (raggedContraction && d == ragged)
        continue;
      lbs.push_back(c0);
      ubs.push_back(contractSizes[c]);
      steps.push_back(c1);
      loopDims.push_back(c);
    }

    auto multiplyAdd = [&](OpBuilder &b, Location loc, Value sum) -> Value {
      Value x = tensor::ExtractOp::create(b, loc, lhs, lhsIndices);
      Value y = tensor::ExtractOp::create(b, loc, rhs, rhsIndices);
      Value product =
          arith::MulFOp::create(b, loc, convertFloat(b, loc, x, accType),
                                convertFloat(b, loc, y, accType));
      return arith::AddFOp::create(b, loc, sum, product);
    };

    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, ValueRange{zero},
        [&](OpBuilder &b, Location loc, ValueRange ivs,
            ValueRange args) -> scf::ValueVector {
          for (auto [iv, c] : llvm::zip_equal(ivs, loopDims)) {
            lhsIndices[lhsContract[c]] = iv;
            rhsIndices[rhsContract[c]] = iv;
          }
          if (!raggedContraction)
            return {multiplyAdd(b, loc, args[0])};
          size_t raggedPos =
              llvm::find(lhsContract, ragged) - lhsContract.begin();
          auto [start, end] =
              groupBounds(b, loc, groupSizesPrefix(lhsIndices), group);
          auto inner = scf::ForOp::create(
              b, loc, start, end, c1, ValueRange{args[0]},
              [&](OpBuilder &b, Location loc, Value k, ValueRange inner) {
                lhsIndices[ragged] = k;
                rhsIndices[rhsContract[raggedPos]] = k;
                scf::YieldOp::create(b, loc, multiplyAdd(b, loc, inner[0]));
              });
          return {inner.getResult(0)};
        });
    return nest.results.empty() ? zero : nest.results.front();
  }

  /// Adds `sum` to the current element of `acc` (init's value, or zero) and
  /// stores it converted to the result element type.
  Value store(OpBuilder &b, Location loc, Value acc, ValueRange indices,
              Value sum) const {
    Type resultElementType = op.getType().getElementType();
    Value base = tensor::ExtractOp::create(b, loc, acc, indices);
    Value total =
        arith::AddFOp::create(b, loc, convertFloat(b, loc, base, accType), sum);
    return tensor::InsertOp::create(
        b, loc, convertFloat(b, loc, total, resultElementType), acc, indices);
  }

  /// The loop body for result element `ivs` of the tensor `acc`.
  Value computeElement(OpBuilder &b, Location loc, ValueRange ivs,
                       Value acc) const {
    auto dims = op.getDimensionNumbers();
    int64_t lhsRank = cast<RankedTensorType>(lhs.getType()).getRank();
    int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
    SmallVector<Value> lhsIndices(lhsRank), rhsIndices(rhsRank);

    size_t pos = mode == RaggedDotMode::Contracting ? 1 : 0;
    ValueRange batchIvs = ivs.slice(pos, numBatch);
    for (auto [i, iv] : llvm::enumerate(batchIvs)) {
      lhsIndices[dims.getLhsBatchingDimensions()[i]] = iv;
      rhsIndices[dims.getRhsBatchingDimensions()[i]] = iv;
    }
    pos += numBatch;
    for (int64_t d : lhsFreeDims)
      lhsIndices[d] = ivs[pos++];
    for (int64_t d : rhsFreeDims)
      rhsIndices[d] = ivs[pos++];

    switch (mode) {
    case RaggedDotMode::Batch:
      return store(b, loc, acc, ivs,
                   dot(b, loc, lhsIndices, rhsIndices, Value()));

    case RaggedDotMode::NonContracting: {
      // Row r belongs to global group j; it is computed when j is one of the
      // local groups [offset, offset + G_local).
      Value row = lhsIndices[op.getLhsRaggedDimension()];
      Value group = findGroup(b, loc, groupSizesPrefix(lhsIndices), row);
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
      Value local = arith::SubIOp::create(b, loc, group, offset);
      // j >= offset and (j - offset) < G_local, unsigned so that the
      // difference is exact for any offset; j = -1 (no group) fails the
      // first test only when offset <= -1, and then the second one.
      Value covered = arith::AndIOp::create(
          b, loc,
          arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, group,
                                    c0),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, group,
                                    offset)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, local,
                                numLocalGroups));
      auto ifOp = scf::IfOp::create(
          b, loc, covered,
          [&](OpBuilder &b, Location loc) {
            rhsIndices[*op.getRhsGroupDimension()] = local;
            Value sum = dot(b, loc, lhsIndices, rhsIndices, Value());
            scf::YieldOp::create(b, loc, store(b, loc, acc, ivs, sum));
          },
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, acc);
          });
      return ifOp.getResult(0);
    }

    case RaggedDotMode::Contracting: {
      // Output slice i holds global group j = offset + i, when 0 <= j < g;
      // tested as offset >= -i and offset < g - i, which cannot overflow.
      Value i = ivs[0];
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
      Value low = arith::SubIOp::create(b, loc, c0, i);
      Value high = arith::SubIOp::create(b, loc, numGroups, i);
      Value valid = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, offset, low),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, offset,
                                high));
      auto ifOp = scf::IfOp::create(
          b, loc, valid,
          [&](OpBuilder &b, Location loc) {
            Value group = arith::AddIOp::create(b, loc, offset, i);
            Value sum = dot(b, loc, lhsIndices, rhsIndices, group);
            scf::YieldOp::create(b, loc, store(b, loc, acc, ivs, sum));
          },
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, acc);
          });
      return ifOp.getResult(0);
    }
    }
    llvm_unreachable("unknown mode");
  }
};

} // namespace

LogicalResult mlir::gmm::lowerRaggedDotToLoops(RewriterBase &rewriter,
                                               RaggedDotOp op) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto dims = op.getDimensionNumbers();
  RankedTensorType resultType = op.getType();
  auto lhsType = op.getLhs().getType();
  auto rhsType = op.getRhs().getType();

  RaggedDotLowering lowering;
  lowering.op = op;
  lowering.mode = op.getMode();
  lowering.accType = op.getAccumulatorType();
  lowering.lhs = op.getLhs();
  lowering.rhs = op.getRhs();
  lowering.groupSizes = op.getGroupSizes();
  lowering.numBatch = dims.getLhsBatchingDimensions().size();
  lowering.lhsFreeDims = dims.getLhsFreeDimensions(lhsType.getRank());
  lowering.rhsFreeDims = dims.getRhsFreeDimensions(rhsType.getRank());

  auto dimOf = [&](Value tensor, int64_t d) -> Value {
    return getValueOrCreateConstantIndexOp(
        rewriter, loc, tensor::getMixedSize(rewriter, loc, tensor, d));
  };
  lowering.extent = dimOf(op.getLhs(), op.getLhsRaggedDimension());
  lowering.numGroups =
      dimOf(op.getGroupSizes(), op.getGroupSizes().getType().getRank() - 1);
  for (int64_t d : dims.getLhsContractingDimensions())
    lowering.contractSizes.push_back(dimOf(op.getLhs(), d));
  if (std::optional<int64_t> groupDim = op.getRhsGroupDimension())
    lowering.numLocalGroups = dimOf(op.getRhs(), *groupDim);

  if (Value offsetTensor = op.getGroupOffset()) {
    auto offsetType = cast<RankedTensorType>(offsetTensor.getType());
    SmallVector<Value> indices(
        offsetType.getRank(), arith::ConstantIndexOp::create(rewriter, loc, 0));
    Value offset =
        tensor::ExtractOp::create(rewriter, loc, offsetTensor, indices);
    lowering.offset = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(), offset);
  } else {
    lowering.offset = arith::ConstantIndexOp::create(rewriter, loc, 0);
  }

  // The destination: init, or zeros. Every result element that a computed
  // group covers is overwritten; the others keep this value.
  ReifiedRankedShapedTypeDims shapes;
  if (failed(op.reifyResultShapes(rewriter, shapes)))
    return rewriter.notifyMatchFailure(op, "cannot compute the result shape");
  Value dest = op.getInit();
  if (!dest) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, shapes.front(),
                                          resultType.getElementType());
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(resultType.getElementType()));
    dest = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  }

  SmallVector<Value> ubs =
      getValueOrCreateConstantIndexOp(rewriter, loc, shapes.front());
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> lbs(ubs.size(), c0), steps(ubs.size(), c1);
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps, ValueRange{dest},
      [&](OpBuilder &b, Location loc, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        return {lowering.computeElement(b, loc, ivs, args[0])};
      });
  Value result = nest.results.empty() ? dest : nest.results.front();
  if (result.getType() != resultType)
    result = tensor::CastOp::create(rewriter, loc, resultType, result);
  rewriter.replaceOp(op, result);
  return success();
}

namespace {
struct LowerRaggedDotPattern : OpRewritePattern<RaggedDotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RaggedDotOp op,
                                PatternRewriter &rewriter) const override {
    return lowerRaggedDotToLoops(rewriter, op);
  }
};

struct ConvertGMMToLoops
    : public mlir::gmm::impl::ConvertGMMToLoopsBase<ConvertGMMToLoops> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    WalkResult result = getOperation()->walk([&](RaggedDotOp op) {
      if (failed(lowerRaggedDotToLoops(rewriter, op))) {
        op.emitOpError("could not be lowered to loops");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

void mlir::gmm::populateGMMToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerRaggedDotPattern>(patterns.getContext());
}
