//===- MaterializeMetadata.cpp - compute gmm.tile_schedule ----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Lowers the abstract tile schedule to loops that compute it where the
// program runs: a prefix sum of the clamped group sizes, then one pass over
// the computed groups appending each non-empty group's tiles.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMMATERIALIZEMETADATA
#include "gmm/Dialect/GMM/Transforms/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using namespace mlir::gmm;

namespace {

Value cst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Replaces `op` with the loops that compute its results.
void materialize(RewriterBase &rewriter, TileScheduleOp op) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type index = rewriter.getIndexType();
  Type i64 = rewriter.getI64Type();
  Value c0 = cst(rewriter, loc, 0), c1 = cst(rewriter, loc, 1);
  Value sizes = op.getGroupSizes();
  // A negative extent (only a hand-written op can have one) is empty.
  Value extent = arith::MaxSIOp::create(rewriter, loc, op.getExtent(), c0);
  Value numGroups = tensor::DimOp::create(rewriter, loc, sizes, 0);
  int64_t tile = op.getTileSize();
  Value tileSize = cst(rewriter, loc, tile);

  // Group bounds: the prefix sum of the sizes clamped to [0, extent],
  // saturating at the extent, so no sizes overflow.
  Value extent64 = arith::IndexCastOp::create(rewriter, loc, i64, extent);
  Value zero64 = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
  // A 1-D index tensor of `like`'s type, whose size is `size` if dynamic.
  auto emptyLike = [&](Value like, Value size) -> Value {
    auto type = cast<RankedTensorType>(like.getType());
    if (type.hasStaticShape())
      return tensor::EmptyOp::create(rewriter, loc, type.getShape(), index);
    return tensor::EmptyOp::create(rewriter, loc, type.getShape(), index,
                                   ValueRange{size});
  };
  Value starts = emptyLike(op.getGroupStarts(), numGroups);
  Value ends = emptyLike(op.getGroupEnds(), numGroups);
  auto prefix = scf::ForOp::create(
      rewriter, loc, c0, numGroups, c1, ValueRange{c0, starts, ends},
      [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
        Value size = tensor::ExtractOp::create(b, loc, sizes, i);
        if (size.getType() != i64)
          size = arith::ExtSIOp::create(b, loc, i64, size);
        size = arith::MaxSIOp::create(b, loc, size, zero64);
        size = arith::MinSIOp::create(b, loc, size, extent64);
        size = arith::IndexCastOp::create(b, loc, index, size);
        // start + min(size, extent - start): at most the extent, and no
        // sum that can overflow (start <= extent).
        Value room = arith::SubIOp::create(b, loc, extent, args[0]);
        Value end = arith::AddIOp::create(
            b, loc, args[0], arith::MinSIOp::create(b, loc, size, room));
        Value newStarts = tensor::InsertOp::create(b, loc, args[0], args[1], i);
        Value newEnds = tensor::InsertOp::create(b, loc, end, args[2], i);
        scf::YieldOp::create(b, loc, ValueRange{end, newStarts, newEnds});
      });
  starts = prefix.getResult(1);
  ends = prefix.getResult(2);

  // Mode 2 only needs the bounds: skip the visit lists when nobody reads
  // them.
  if (op.getNumVisits().use_empty() && op.getGroupIds().use_empty() &&
      op.getTileIds().use_empty()) {
    Value noIds = emptyLike(op.getGroupIds(), c0);
    rewriter.replaceOp(op, ValueRange{c0, noIds, noIds, starts, ends});
    return;
  }

  // The computed groups: [offset, offset + local) ∩ [0, g), computed so that
  // no offset overflows.
  Value offset = op.getGroupOffset() ? op.getGroupOffset() : c0;
  Value local = op.getNumLocalGroups();
  Value first = arith::MaxSIOp::create(rewriter, loc, offset, c0);
  // offset + local saturates: offset > g - local means "past the end".
  Value room = arith::SubIOp::create(rewriter, loc, numGroups, local);
  Value pastEnd = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sgt, offset, room);
  Value last = arith::SelectOp::create(
      rewriter, loc, pastEnd, numGroups,
      arith::AddIOp::create(rewriter, loc, offset, local));
  last = arith::MaxSIOp::create(rewriter, loc, last, first);

  // The visit arrays hold what can be visited: each visit holds at least
  // one row of its group, so there are at most `extent` of them, and at
  // most numTiles + (non-empty computed groups) - 1 <= numTiles +
  // min(local, extent) - 1; none without tiles or computed groups. Computed
  // so that nothing overflows: numTiles + extra is taken only when it is at
  // most the extent.
  Value numTiles = arith::CeilDivSIOp::create(rewriter, loc, extent, tileSize);
  Value extra = arith::SubIOp::create(
      rewriter, loc, arith::MinSIOp::create(rewriter, loc, local, extent), c1);
  Value beyond = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sgt, numTiles,
      arith::SubIOp::create(rewriter, loc, extent, extra));
  Value bound = arith::SelectOp::create(
      rewriter, loc, beyond, extent,
      arith::AddIOp::create(rewriter, loc, numTiles, extra));
  Value nothing = arith::OrIOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle, numTiles,
                            c0),
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle, local,
                            c0));
  bound = arith::SelectOp::create(rewriter, loc, nothing, c0, bound);
  auto makeIds = [&]() -> Value {
    Value empty = emptyLike(op.getGroupIds(), bound);
    // Entries past the visit count are unspecified; zero keeps them valid
    // indices for code that reads them speculatively.
    return linalg::FillOp::create(rewriter, loc, c0, empty).getResult(0);
  };
  Value groupIds = makeIds(), tileIds = makeIds();

  auto visits = scf::ForOp::create(
      rewriter, loc, first, last, c1, ValueRange{c0, groupIds, tileIds},
      [&](OpBuilder &b, Location loc, Value group, ValueRange args) {
        Value start = tensor::ExtractOp::create(b, loc, starts, group);
        Value end = tensor::ExtractOp::create(b, loc, ends, group);
        // Tiles floor(start / tile) .. floor((end - 1) / tile); none when
        // the group is empty.
        Value firstTile = arith::DivUIOp::create(b, loc, start, tileSize);
        Value endTile = arith::CeilDivUIOp::create(b, loc, end, tileSize);
        Value empty =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, start, end);
        endTile = arith::SelectOp::create(b, loc, empty, firstTile, endTile);
        auto tiles = scf::ForOp::create(
            b, loc, firstTile, endTile, c1, args,
            [&](OpBuilder &b, Location loc, Value t, ValueRange inner) {
              Value count = inner[0];
              // Always true by the bound; the guard keeps every store in
              // bounds whatever the inputs.
              Value fits = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ult, count, bound);
              auto ifOp = scf::IfOp::create(
                  b, loc, fits,
                  [&](OpBuilder &b, Location loc) {
                    Value g = tensor::InsertOp::create(b, loc, group, inner[1],
                                                       count);
                    Value ti =
                        tensor::InsertOp::create(b, loc, t, inner[2], count);
                    Value next = arith::AddIOp::create(b, loc, count, c1);
                    scf::YieldOp::create(b, loc, ValueRange{next, g, ti});
                  },
                  [&](OpBuilder &b, Location loc) {
                    scf::YieldOp::create(b, loc, inner);
                  });
              scf::YieldOp::create(b, loc, ifOp.getResults());
            });
        scf::YieldOp::create(b, loc, tiles.getResults());
      });

  auto castTo = [&](Value v, Type type) -> Value {
    if (v.getType() == type)
      return v;
    return tensor::CastOp::create(rewriter, loc, type, v);
  };
  rewriter.replaceOp(
      op, ValueRange{visits.getResult(0),
                     castTo(visits.getResult(1), op.getGroupIds().getType()),
                     castTo(visits.getResult(2), op.getTileIds().getType()),
                     castTo(starts, op.getGroupStarts().getType()),
                     castTo(ends, op.getGroupEnds().getType())});
}

struct GMMMaterializeMetadata
    : public mlir::gmm::impl::GMMMaterializeMetadataBase<
          GMMMaterializeMetadata> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<TileScheduleOp> ops;
    getOperation()->walk([&](TileScheduleOp op) { ops.push_back(op); });
    for (TileScheduleOp op : ops)
      materialize(rewriter, op);
  }
};

} // namespace
