//===- MaterializeMetadata.cpp - compute gmm.tile_schedule ----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Lowers the abstract tile schedule to loops that compute it where the
// program runs: a prefix sum of the clamped group sizes, then one pass over
// the computed groups appending each non-empty group's tiles; or, with
// `parallel`, one scf.forall whose iteration per group computes its own
// prefix and writes its own bounds and visits.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

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

/// The most entries a visit list may have: INT64_MAX bytes of 64-bit
/// indices.
constexpr int64_t kMaxVisitListSize =
    std::numeric_limits<int64_t>::max() / int64_t(sizeof(int64_t));

/// What both forms of the schedule start from.
struct Schedule {
  TileScheduleOp op;
  Location loc;
  Value c0, c1;
  Value sizes;
  /// The extent, negative counted as 0, as index and as i64.
  Value extent, extent64;
  Value numGroups;
  Value tileSize;
  /// The computed groups [first, last).
  Value first, last;

  /// Creates the values both forms use at `rewriter`'s insertion point.
  Schedule(RewriterBase &rewriter, TileScheduleOp op);

  /// Whether only the group bounds are used (mode 2): no visit lists.
  bool boundsOnly() const {
    TileScheduleOp schedule = op;
    return schedule.getNumVisits().use_empty() &&
           schedule.getGroupIds().use_empty() &&
           schedule.getTileIds().use_empty();
  }

  /// A 1-D index tensor of `like`'s type, whose size is `size` if dynamic.
  Value emptyLike(OpBuilder &b, Value like, Value size) const {
    auto type = cast<RankedTensorType>(like.getType());
    if (type.hasStaticShape())
      return tensor::EmptyOp::create(b, loc, type.getShape(), b.getIndexType());
    return tensor::EmptyOp::create(b, loc, type.getShape(), b.getIndexType(),
                                   ValueRange{size});
  }

  /// Group `i`'s size clamped to [0, extent], as an index.
  Value clampedSize(OpBuilder &b, Value i) const {
    Type i64 = b.getI64Type();
    Value size = tensor::ExtractOp::create(b, loc, sizes, i);
    if (size.getType() != i64)
      size = arith::ExtSIOp::create(b, loc, i64, size);
    Value zero64 = arith::ConstantIntOp::create(b, loc, i64, 0);
    size = arith::MaxSIOp::create(b, loc, size, zero64);
    size = arith::MinSIOp::create(b, loc, size, extent64);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), size);
  }

  /// The end of a group that starts at `start` (at most the extent): start
  /// + min(size, extent - start), a sum that cannot overflow.
  Value groupEnd(OpBuilder &b, Value start, Value size) const {
    Value room = arith::SubIOp::create(b, loc, extent, start);
    return arith::AddIOp::create(b, loc, start,
                                 arith::MinSIOp::create(b, loc, size, room));
  }

  /// The first tile of rows [start, end) and the tile after its last; the
  /// same tile when the group is empty.
  std::pair<Value, Value> tileRange(OpBuilder &b, Value start,
                                    Value end) const {
    Value firstTile = arith::DivUIOp::create(b, loc, start, tileSize);
    Value endTile = arith::CeilDivUIOp::create(b, loc, end, tileSize);
    Value empty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, start, end);
    return {firstTile,
            arith::SelectOp::create(b, loc, empty, firstTile, endTile)};
  }

  /// The size of the visit lists, known before any group size is read
  /// (where the loops run on a device, the host allocates the lists and
  /// cannot read the sizes): each visit holds at least one row of its
  /// group, so there are at most `extent` of them, and at most numTiles +
  /// (non-empty computed groups) - 1 <= numTiles + min(local, extent) - 1;
  /// none without tiles or computed groups. Computed so that nothing
  /// overflows (numTiles + extra is taken only when it is at most the
  /// extent), and capped at the largest index tensor whose bytes a 64-bit
  /// size can count: a bigger one cannot be allocated, and its byte size
  /// would wrap around to a small buffer that the visits overrun. A
  /// hand-written op may give the lists a static size: then that is what
  /// they hold, and the stores stay within it.
  Value visitBound(OpBuilder &b) const {
    int64_t fixed =
        cast<RankedTensorType>(TileScheduleOp(op).getGroupIds().getType())
            .getDimSize(0);
    if (!ShapedType::isDynamic(fixed))
      return cst(b, loc, fixed);
    Value local = TileScheduleOp(op).getNumLocalGroups();
    Value numTiles = arith::CeilDivSIOp::create(b, loc, extent, tileSize);
    Value extra = arith::SubIOp::create(
        b, loc, arith::MinSIOp::create(b, loc, local, extent), c1);
    Value beyond =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, numTiles,
                              arith::SubIOp::create(b, loc, extent, extra));
    Value size = arith::SelectOp::create(
        b, loc, beyond, extent, arith::AddIOp::create(b, loc, numTiles, extra));
    Value nothing = arith::OrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, numTiles, c0),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, local, c0));
    size = arith::SelectOp::create(b, loc, nothing, c0, size);
    return arith::MinSIOp::create(b, loc, size, cst(b, loc, kMaxVisitListSize));
  }

  Value castTo(OpBuilder &b, Value v, Type type) const {
    if (v.getType() == type)
      return v;
    return tensor::CastOp::create(b, loc, type, v);
  }
};

Schedule::Schedule(RewriterBase &rewriter, TileScheduleOp op)
    : op(op), loc(op.getLoc()) {
  c0 = cst(rewriter, loc, 0);
  c1 = cst(rewriter, loc, 1);
  sizes = op.getGroupSizes();
  // A negative extent (only a hand-written op can have one) is empty.
  extent = arith::MaxSIOp::create(rewriter, loc, op.getExtent(), c0);
  extent64 =
      arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), extent);
  numGroups = tensor::DimOp::create(rewriter, loc, sizes, 0);
  tileSize = cst(rewriter, loc, op.getTileSize());

  // The computed groups: [offset, offset + local) ∩ [0, g), computed so that
  // no offset overflows.
  Value offset = op.getGroupOffset() ? op.getGroupOffset() : c0;
  Value local = op.getNumLocalGroups();
  first = arith::MaxSIOp::create(rewriter, loc, offset, c0);
  // offset + local saturates: offset > g - local means "past the end".
  Value room = arith::SubIOp::create(rewriter, loc, numGroups, local);
  Value pastEnd = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sgt, offset, room);
  last = arith::SelectOp::create(
      rewriter, loc, pastEnd, numGroups,
      arith::AddIOp::create(rewriter, loc, offset, local));
  last = arith::MaxSIOp::create(rewriter, loc, last, first);
}

/// Replaces the schedule with the serial loops that compute its results.
void materializeSerial(RewriterBase &rewriter, const Schedule &s) {
  TileScheduleOp op = s.op;
  Location loc = s.loc;
  Value c0 = s.c0, c1 = s.c1;

  // Group bounds: the prefix sum of the sizes clamped to [0, extent],
  // saturating at the extent, so no sizes overflow.
  Value starts = s.emptyLike(rewriter, op.getGroupStarts(), s.numGroups);
  Value ends = s.emptyLike(rewriter, op.getGroupEnds(), s.numGroups);
  auto prefix = scf::ForOp::create(
      rewriter, loc, c0, s.numGroups, c1, ValueRange{c0, starts, ends},
      [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
        Value end = s.groupEnd(b, args[0], s.clampedSize(b, i));
        Value newStarts = tensor::InsertOp::create(b, loc, args[0], args[1], i);
        Value newEnds = tensor::InsertOp::create(b, loc, end, args[2], i);
        scf::YieldOp::create(b, loc, ValueRange{end, newStarts, newEnds});
      });
  starts = prefix.getResult(1);
  ends = prefix.getResult(2);

  // Mode 2 only needs the bounds: skip the visit lists when nobody reads
  // them.
  if (s.boundsOnly()) {
    Value noIds = s.emptyLike(rewriter, op.getGroupIds(), c0);
    rewriter.replaceOp(op, ValueRange{c0, noIds, noIds, starts, ends});
    return;
  }

  Value bound = s.visitBound(rewriter);
  auto makeIds = [&]() -> Value {
    Value empty = s.emptyLike(rewriter, op.getGroupIds(), bound);
    // Entries past the visit count are unspecified; zero keeps them valid
    // indices for code that reads them speculatively.
    return linalg::FillOp::create(rewriter, loc, c0, empty).getResult(0);
  };
  Value groupIds = makeIds(), tileIds = makeIds();

  auto visits = scf::ForOp::create(
      rewriter, loc, s.first, s.last, c1, ValueRange{c0, groupIds, tileIds},
      [&](OpBuilder &b, Location loc, Value group, ValueRange args) {
        Value start = tensor::ExtractOp::create(b, loc, starts, group);
        Value end = tensor::ExtractOp::create(b, loc, ends, group);
        // Tiles floor(start / tile) .. floor((end - 1) / tile); none when
        // the group is empty.
        auto [firstTile, endTile] = s.tileRange(b, start, end);
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

  rewriter.replaceOp(
      op,
      ValueRange{
          visits.getResult(0),
          s.castTo(rewriter, visits.getResult(1), op.getGroupIds().getType()),
          s.castTo(rewriter, visits.getResult(2), op.getTileIds().getType()),
          s.castTo(rewriter, starts, op.getGroupStarts().getType()),
          s.castTo(rewriter, ends, op.getGroupEnds().getType())});
}

/// Writes `value(k)` at positions [0, count) of the 1-D tensor `slice`.
Value writeRange(OpBuilder &b, Location loc, Value slice, Value count,
                 function_ref<Value(OpBuilder &, Location, Value)> value) {
  Value c0 = cst(b, loc, 0), c1 = cst(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, c0, count, c1, ValueRange{slice},
      [&](OpBuilder &b, Location loc, Value k, ValueRange args) {
        Value next =
            tensor::InsertOp::create(b, loc, value(b, loc, k), args[0], k);
        scf::YieldOp::create(b, loc, next);
      });
  return loop.getResult(0);
}

/// Replaces `op` with one scf.forall over its groups (at least one
/// iteration, so that the visit count is always written).
void materializeParallel(RewriterBase &rewriter, const Schedule &s) {
  TileScheduleOp op = s.op;
  Location loc = s.loc;
  Value c0 = s.c0, c1 = s.c1;
  bool boundsOnly = s.boundsOnly();
  Value bound = boundsOnly ? Value() : s.visitBound(rewriter);

  Value starts = s.emptyLike(rewriter, op.getGroupStarts(), s.numGroups);
  Value ends = s.emptyLike(rewriter, op.getGroupEnds(), s.numGroups);
  SmallVector<Value> outs = {starts, ends};
  if (!boundsOnly) {
    outs.push_back(s.emptyLike(rewriter, op.getGroupIds(), bound));
    outs.push_back(s.emptyLike(rewriter, op.getTileIds(), bound));
    outs.push_back(tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{1},
                                           rewriter.getIndexType()));
  }
  Value iterations = arith::MaxSIOp::create(rewriter, loc, s.numGroups, c1);
  // A thread per iteration; the mapping also keeps canonicalization from
  // inlining a single iteration into the host code.
  ArrayAttr threads = rewriter.getArrayAttr({gpu::GPUThreadMappingAttr::get(
      rewriter.getContext(), gpu::MappingId::LinearDim0)});
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{iterations}, outs, threads);
  {
    OpBuilder::InsertionGuard inside(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    Value i = forall.getInductionVars()[0];
    auto computed = [&](OpBuilder &b, Location loc, Value group) {
      Value from = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                         group, s.first);
      Value to = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, group,
                                       s.last);
      return arith::AndIOp::create(b, loc, from, to);
    };
    // The prefix over groups 0..i: group i's rows [start, end) and the
    // visits of the computed groups before it and up to it.
    Value isGroup = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, i, s.numGroups);
    Value upTo = arith::SelectOp::create(
        rewriter, loc, isGroup, arith::AddIOp::create(rewriter, loc, i, c1),
        c0);
    auto prefix = scf::ForOp::create(
        rewriter, loc, c0, upTo, c1, ValueRange{c0, c0, c0, c0},
        [&](OpBuilder &b, Location loc, Value j, ValueRange args) {
          Value start = args[1], visitStart = args[3];
          Value end = s.groupEnd(b, start, s.clampedSize(b, j));
          Value visitEnd = visitStart;
          if (!boundsOnly) {
            auto [firstTile, endTile] = s.tileRange(b, start, end);
            Value tiles = arith::SubIOp::create(b, loc, endTile, firstTile);
            tiles =
                arith::SelectOp::create(b, loc, computed(b, loc, j), tiles, c0);
            visitEnd = arith::AddIOp::create(b, loc, visitStart, tiles);
          }
          scf::YieldOp::create(b, loc,
                               ValueRange{start, end, visitStart, visitEnd});
        });
    Value start = prefix.getResult(0), end = prefix.getResult(1);
    Value oneIfGroup = arith::SelectOp::create(rewriter, loc, isGroup, c1, c0);
    // Each output's slice as written: the values, where they go, how many.
    SmallVector<std::tuple<Value, Value, Value>> written;
    auto writeAt =
        [&](Value out, Value offset, Value count,
            function_ref<Value(OpBuilder &, Location, Value)> value) {
          auto type = RankedTensorType::get({ShapedType::kDynamic},
                                            rewriter.getIndexType());
          Value slice = tensor::ExtractSliceOp::create(
              rewriter, loc, type, out, ArrayRef<OpFoldResult>{offset},
              ArrayRef<OpFoldResult>{count},
              ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
          written.push_back(
              {writeRange(rewriter, loc, slice, count, value), offset, count});
        };
    auto constant = [](Value v) {
      return [v](OpBuilder &, Location, Value) { return v; };
    };
    ArrayRef<BlockArgument> args = forall.getRegionIterArgs();
    writeAt(args[0], i, oneIfGroup, constant(start));
    writeAt(args[1], i, oneIfGroup, constant(end));
    if (!boundsOnly) {
      // Visits [visitStart, visitEnd), clamped to the lists (always within
      // them by the bound; the clamp keeps every store in bounds whatever
      // the inputs).
      Value visitStart =
          arith::MinSIOp::create(rewriter, loc, prefix.getResult(2), bound);
      Value visitEnd =
          arith::MinSIOp::create(rewriter, loc, prefix.getResult(3), bound);
      Value count = arith::SubIOp::create(rewriter, loc, visitEnd, visitStart);
      Value firstTile =
          arith::DivUIOp::create(rewriter, loc, start, s.tileSize);
      writeAt(args[2], visitStart, count, constant(i));
      writeAt(args[3], visitStart, count,
              [&](OpBuilder &b, Location loc, Value k) -> Value {
                return arith::AddIOp::create(b, loc, firstTile, k);
              });
      // The last iteration's visit end is the count.
      Value isLast = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, i,
          arith::SubIOp::create(rewriter, loc, iterations, c1));
      Value oneIfLast = arith::SelectOp::create(rewriter, loc, isLast, c1, c0);
      writeAt(args[4], c0, oneIfLast, constant(visitEnd));
    }
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    for (auto [slice, out] : llvm::zip_equal(written, args)) {
      auto [values, offset, count] = slice;
      tensor::ParallelInsertSliceOp::create(
          rewriter, loc, values, out, ArrayRef<OpFoldResult>{offset},
          ArrayRef<OpFoldResult>{count},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    }
  }

  Value newStarts =
      s.castTo(rewriter, forall.getResult(0), op.getGroupStarts().getType());
  Value newEnds =
      s.castTo(rewriter, forall.getResult(1), op.getGroupEnds().getType());
  if (boundsOnly) {
    Value noIds = s.emptyLike(rewriter, op.getGroupIds(), c0);
    rewriter.replaceOp(op, ValueRange{c0, noIds, noIds, newStarts, newEnds});
    return;
  }
  // The count is read where it is used, so that a use inside a kernel
  // loads it there.
  Value count = forall.getResult(4);
  for (OpOperand &use :
       llvm::make_early_inc_range(op.getNumVisits().getUses())) {
    rewriter.setInsertionPoint(use.getOwner());
    Value loaded = tensor::ExtractOp::create(rewriter, loc, count, c0);
    rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(loaded); });
  }
  rewriter.setInsertionPoint(op);
  rewriter.replaceOp(op, ValueRange{c0,
                                    s.castTo(rewriter, forall.getResult(2),
                                             op.getGroupIds().getType()),
                                    s.castTo(rewriter, forall.getResult(3),
                                             op.getTileIds().getType()),
                                    newStarts, newEnds});
}

struct GMMMaterializeMetadata
    : public mlir::gmm::impl::GMMMaterializeMetadataBase<
          GMMMaterializeMetadata> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<TileScheduleOp> ops;
    getOperation()->walk([&](TileScheduleOp op) { ops.push_back(op); });
    for (TileScheduleOp op : ops) {
      rewriter.setInsertionPoint(op);
      Schedule schedule(rewriter, op);
      if (parallel)
        materializeParallel(rewriter, schedule);
      else
        materializeSerial(rewriter, schedule);
    }
  }
};

} // namespace
