//===- Tile.cpp - tile normalized ragged dots over tile visits ------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-tile: the tile program shared by the CPU and GPU backends, loops over
// tile visits (mode 1 after megablox) with masked reads and writes. See the
// pass description in include/gmm/Dialect/GMM/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"
#include "gmm/Dialect/GMM/Transforms/Utils.h"
#include "gmm/Dialect/GMM/Transforms/VisitProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMTILE
#include "gmm/Dialect/GMM/Transforms/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using namespace mlir::gmm;
using namespace mlir::gmm::tiling;

MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::gmm::CPUVisitProgramInterface)

namespace {

/// The start of tile `tile` of size `size` along a dimension of `extent`, and
/// how many of its entries lie inside the dimension.
std::pair<Value, Value> tileRange(OpBuilder &b, Location loc, Value tile,
                                  Value size, Value extent) {
  Value start = arith::MulIOp::create(b, loc, tile, size);
  Value count =
      minIdx(b, loc, size, arith::SubIOp::create(b, loc, extent, start));
  return {start, count};
}

/// Reads a rows x cols block of the 4-D tensor `source` at `indices`, where
/// vector dim 0 runs along tensor dim `rowDim` and vector dim 1 along
/// `colDim`. Elements past the tensor's end read as zero.
Value readBlock(OpBuilder &b, Location loc, Value source, ValueRange indices,
                int64_t rowDim, int64_t colDim, int64_t rows, int64_t cols) {
  auto type = cast<RankedTensorType>(source.getType());
  MLIRContext *ctx = b.getContext();
  AffineMap map = AffineMap::get(
      type.getRank(), 0,
      {getAffineDimExpr(rowDim, ctx), getAffineDimExpr(colDim, ctx)}, ctx);
  auto vectorType = VectorType::get({rows, cols}, type.getElementType());
  Value pad =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return vector::TransferReadOp::create(b, loc, vectorType, source, indices,
                                        pad, map, ArrayRef<bool>{false, false});
}

/// Zeroes the entries of `block` whose index along `dim` is at or past
/// `limit - start`: along that dim, entry j holds contraction index
/// start + j, and indices from `limit` on belong to another group.
Value maskContraction(OpBuilder &b, Location loc, Value block, int64_t dim,
                      Value start, Value limit) {
  auto type = cast<VectorType>(block.getType());
  Value valid = arith::SubIOp::create(b, loc, limit, start);
  SmallVector<Value> bounds = {cst(b, loc, type.getDimSize(0)),
                               cst(b, loc, type.getDimSize(1))};
  bounds[dim] = valid;
  auto maskType = VectorType::get(type.getShape(), b.getI1Type());
  Value mask = vector::CreateMaskOp::create(b, loc, maskType, bounds);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  return arith::SelectOp::create(b, loc, mask, block, zero);
}

/// gmm-tile's own visit program (the GPU backend maps it onto CUDA blocks,
/// and the CPU runs it in the differential tests): a tile_m x tile_n block of
/// accumulators, one vector contraction per tile_k block of the operands,
/// which read as zeros past their ends.
struct VectorProgram : public VisitProgram {
  RaggedDotOp op;
  TileSizes tiles;
  Type accType;

  VectorProgram(RaggedDotOp op, TileSizes tiles, Type accType)
      : op(op), tiles(tiles), accType(accType) {}

  VectorType accVectorType() const {
    return VectorType::get({tiles.m, tiles.n}, accType);
  }

  Value nonContracting(OpBuilder &b, Location loc,
                       const NonContractingVisit &visit) override;
  Value contracting(OpBuilder &b, Location loc,
                    const ContractingVisit &visit) override;
};

Value VectorProgram::nonContracting(OpBuilder &b, Location loc,
                                    const NonContractingVisit &visit) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  bool rhsTransposed =
      op.getDimensionNumbers().getRhsContractingDimensions().front() == 3;
  bool accumulate = static_cast<bool>(op.getInit());
  Value batch = visit.batch, row = visit.row, rowStart = visit.rowStart;
  Value local = visit.local, colStart = visit.colStart, slice = visit.slice;
  Value kEnd = visit.kEnd;
  Value c0 = cst(b, loc, 0);
  Value hasRows =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, visit.rows, c0);
  auto compute = scf::IfOp::create(
      b, loc, hasRows,
      [&](OpBuilder &b, Location loc) {
        Value zero =
            arith::ConstantOp::create(b, loc, b.getZeroAttr(accVectorType()));
        auto kLoop = scf::ForOp::create(
            b, loc, c0, kEnd, cst(b, loc, tiles.k), ValueRange{zero},
            [&](OpBuilder &b, Location loc, Value k, ValueRange acc) {
              Value a =
                  readBlock(b, loc, lhs, ValueRange{batch, row, rowStart, k}, 2,
                            3, tiles.m, tiles.k);
              Value w = rhsTransposed
                            ? readBlock(b, loc, rhs,
                                        ValueRange{batch, local, colStart, k},
                                        3, 2, tiles.k, tiles.n)
                            : readBlock(b, loc, rhs,
                                        ValueRange{batch, local, k, colStart},
                                        2, 3, tiles.k, tiles.n);
              Value next = buildMatmulContraction(
                  b, loc, convertVector(b, loc, a, accType),
                  convertVector(b, loc, w, accType), acc[0]);
              scf::YieldOp::create(b, loc, next);
            });
        scf::YieldOp::create(
            b, loc, writeBlock(b, loc, kLoop.getResult(0), slice, accumulate));
      },
      [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, slice); });
  return compute.getResult(0);
}

Value VectorProgram::contracting(OpBuilder &b, Location loc,
                                 const ContractingVisit &visit) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  auto dims = op.getDimensionNumbers();
  bool lhsKMajor = dims.getLhsRaggedDimensions().front() == 1;
  bool rhsKMajor = dims.getRhsContractingDimensions().front() == 1;
  bool accumulate = static_cast<bool>(op.getInit());
  Value batch = visit.batch, kStart = visit.kStart, kEnd = visit.kEnd;
  Value numKc = visit.numKc, rowStart = visit.rowStart;
  Value colStart = visit.colStart;
  Value c0 = cst(b, loc, 0), c1 = cst(b, loc, 1);
  Value tileK = cst(b, loc, tiles.k);
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(accVectorType()));
  // The group's k range only: columns of a block past kEnd belong to
  // the next group and are zeroed in both operands. One loop runs over
  // the (kr-step, kc) pairs, kc fastest, so that the GPU mapping finds
  // a single contraction loop to pipeline.
  Value krSteps = arith::CeilDivSIOp::create(
      b, loc, maxIdx(b, loc, arith::SubIOp::create(b, loc, kEnd, kStart), c0),
      tileK);
  Value steps = arith::MulIOp::create(b, loc, krSteps, numKc);
  auto kLoop = scf::ForOp::create(
      b, loc, c0, steps, c1, ValueRange{zero},
      [&](OpBuilder &b, Location loc, Value step, ValueRange acc) {
        Value kr = arith::AddIOp::create(
            b, loc, kStart,
            arith::MulIOp::create(
                b, loc, arith::DivUIOp::create(b, loc, step, numKc), tileK));
        Value kc = arith::RemUIOp::create(b, loc, step, numKc);
        Value a =
            lhsKMajor
                ? readBlock(b, loc, lhs, ValueRange{batch, kr, kc, rowStart}, 3,
                            1, tiles.m, tiles.k)
                : readBlock(b, loc, lhs, ValueRange{batch, rowStart, kr, kc}, 1,
                            2, tiles.m, tiles.k);
        Value w =
            rhsKMajor
                ? readBlock(b, loc, rhs, ValueRange{batch, kr, kc, colStart}, 1,
                            3, tiles.k, tiles.n)
                : readBlock(b, loc, rhs, ValueRange{batch, colStart, kr, kc}, 2,
                            1, tiles.k, tiles.n);
        a = maskContraction(b, loc, a, 1, kr, kEnd);
        w = maskContraction(b, loc, w, 0, kr, kEnd);
        Value next =
            buildMatmulContraction(b, loc, convertVector(b, loc, a, accType),
                                   convertVector(b, loc, w, accType), acc[0]);
        scf::YieldOp::create(b, loc, next);
      });
  return writeBlock(b, loc, kLoop.getResult(0), visit.slice, accumulate);
}

struct Tiler {
  RaggedDotOp op;
  /// The op's configuration; on the GPU it goes onto the tile foralls for
  /// gmm-gpu-map-blocks (which puts it on the launch for the tile kernel's
  /// passes).
  KernelConfigAttr config;
  /// What each visit computes: the CPU backend's program for a CPU
  /// configuration, VectorProgram for a GPU one.
  VisitProgram &program;
  Value offset; // index, 0 without a group offset
  TileSizes tiles;
  /// For a GPU configuration, the tile foralls are mapped to CUDA blocks (the
  /// last dimension to x). Besides documenting the intent, a mapping keeps
  /// canonicalization from folding away single-iteration dimensions, so that
  /// gmm-gpu-map-blocks always finds the forall.
  bool gpu;

  Tiler(RaggedDotOp op, KernelConfigAttr config, VisitProgram &program,
        Value offset)
      : op(op), config(config), program(program), offset(offset),
        tiles(TileSizes::of(config)), gpu(config.isGPU()) {}

  std::optional<ArrayAttr> mapping(OpBuilder &b, unsigned rank) const {
    if (!gpu)
      return std::nullopt;
    SmallVector<Attribute> dims;
    for (unsigned d = 0; d < rank; ++d)
      dims.push_back(gpu::GPUBlockMappingAttr::get(
          b.getContext(), static_cast<gpu::MappingId>(rank - 1 - d)));
    return b.getArrayAttr(dims);
  }

  /// The destination: init, or zeros (`zeroFill` = false leaves it
  /// uninitialized, for programs that write every element).
  Value destination(OpBuilder &b, Location loc, bool zeroFill = true) {
    if (Value init = op.getInit())
      return init;
    ReifiedRankedShapedTypeDims shapes;
    (void)op.reifyResultShapes(b, shapes);
    Type elementType = op.getType().getElementType();
    Value empty = tensor::EmptyOp::create(b, loc, shapes.front(), elementType);
    if (!zeroFill)
      return empty;
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
    return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  }

  /// Extracts row `indices` of the group sizes as a 1-D tensor.
  Value groupSizesRow(OpBuilder &b, Location loc, ValueRange indices) {
    Value sizes = op.getGroupSizes();
    auto type = cast<RankedTensorType>(sizes.getType());
    int64_t rank = type.getRank();
    auto rowType =
        RankedTensorType::get({type.getShape().back()}, type.getElementType());
    // No groups: a slice at offset 0 of an empty dimension does not verify.
    if (type.getShape().back() == 0)
      return tensor::EmptyOp::create(b, loc, rowType.getShape(),
                                     rowType.getElementType());
    SmallVector<OpFoldResult> offsets, sizesOf, strides;
    for (Value i : indices) {
      offsets.push_back(i);
      sizesOf.push_back(b.getIndexAttr(1));
      strides.push_back(b.getIndexAttr(1));
    }
    offsets.push_back(b.getIndexAttr(0));
    sizesOf.push_back(tensor::getMixedSize(b, loc, sizes, rank - 1));
    strides.push_back(b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, rowType, sizes, offsets,
                                          sizesOf, strides);
  }

  /// The 2-D slice [rows, cols] of the 4-D destination `out` at `offsets`.
  static Value slice2D(OpBuilder &b, Location loc, Value out,
                       ArrayRef<OpFoldResult> offsets, Value rows, Value cols) {
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                       rows, cols};
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    auto type = RankedTensorType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic},
        cast<RankedTensorType>(out.getType()).getElementType());
    return tensor::ExtractSliceOp::create(b, loc, type, out, offsets, sizes,
                                          strides);
  }

  static void insert2D(OpBuilder &b, Location loc, Value block, Value out,
                       ArrayRef<OpFoldResult> offsets, Value rows, Value cols) {
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                       rows, cols};
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(b, loc, block, out, offsets, sizes,
                                          strides);
  }

  Value tileMode1(OpBuilder &b, Location loc);
  Value tileMode2(OpBuilder &b, Location loc);
};

/// The rows of fill visit `visit` (at `scheduled`, the size of the visit
/// lists, or after it): the rows that no visit of `schedule` covers are
/// [0, P) and [S, numM), P the first covered row and S the row after the
/// last (all rows when there is no visit), cut into tiles of `tileM`, the
/// prefix's first. Returns {first row, rows (0 past the last), local group
/// 0, k end 0}.
static SmallVector<Value> fillRows(OpBuilder &b, Location loc,
                                   TileScheduleOp schedule, Value visit,
                                   Value scheduled, Value numM, Value tileM) {
  Value c0 = cst(b, loc, 0), c1 = cst(b, loc, 1);
  Value count = schedule.getNumVisits();
  Value any =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, count, c0);
  auto covered = scf::IfOp::create(
      b, loc, any,
      [&](OpBuilder &b, Location loc) {
        // The visits are in row order: the first one's group starts the
        // covered rows and the last one's ends them.
        Value firstGroup = tensor::ExtractOp::create(
            b, loc, schedule.getGroupIds(), ValueRange{c0});
        Value last = arith::SubIOp::create(b, loc, count, c1);
        Value lastGroup = tensor::ExtractOp::create(
            b, loc, schedule.getGroupIds(), ValueRange{last});
        Value start = tensor::ExtractOp::create(
            b, loc, schedule.getGroupStarts(), firstGroup);
        Value end = tensor::ExtractOp::create(b, loc, schedule.getGroupEnds(),
                                              lastGroup);
        scf::YieldOp::create(b, loc, ValueRange{start, end});
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, ValueRange{numM, numM});
      });
  Value prefixEnd = covered.getResult(0), suffixStart = covered.getResult(1);
  Value f = arith::SubIOp::create(b, loc, visit, scheduled);
  Value prefixTiles = arith::CeilDivSIOp::create(b, loc, prefixEnd, tileM);
  Value inPrefix =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, f, prefixTiles);
  Value suffixTile = arith::SubIOp::create(b, loc, f, prefixTiles);
  Value first = arith::SelectOp::create(
      b, loc, inPrefix, arith::MulIOp::create(b, loc, f, tileM),
      arith::AddIOp::create(b, loc, suffixStart,
                            arith::MulIOp::create(b, loc, suffixTile, tileM)));
  Value limit = arith::SelectOp::create(b, loc, inPrefix, prefixEnd, numM);
  Value rows = arith::MaxSIOp::create(
      b, loc,
      arith::MinSIOp::create(b, loc, tileM,
                             arith::SubIOp::create(b, loc, limit, first)),
      c0);
  return {first, rows, c0, c0};
}

/// Mode 1: lhs [B, X, M, K], rhs [B, G, K, N] or [B, G, N, K], sizes
/// [B, X, g], result [B, X, M, N].
Value Tiler::tileMode1(OpBuilder &b, Location loc) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  bool rhsTransposed =
      op.getDimensionNumbers().getRhsContractingDimensions().front() == 3;
  Value c0 = cst(b, loc, 0), c1 = cst(b, loc, 1);
  Value numB = dim(b, loc, lhs, 0), numX = dim(b, loc, lhs, 1);
  Value numM = dim(b, loc, lhs, 2), numK = dim(b, loc, lhs, 3);
  Value numN = dim(b, loc, rhs, rhsTransposed ? 2 : 3);
  Value localGroups = dim(b, loc, rhs, 1);
  Value tileN = cst(b, loc, tiles.n), tileM = cst(b, loc, tiles.m);
  Value numNTiles = arith::CeilDivSIOp::create(b, loc, numN, tileN);
  bool accumulate = static_cast<bool>(op.getInit());
  Type index = b.getIndexType();
  // Without columns there is nothing to visit: the schedule then covers no
  // rows, so that no metadata is sized by the rows of an empty result.
  Value noColumns =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, numN, c0);
  Value scheduledRows = arith::SelectOp::create(b, loc, noColumns, c0, numM);
  // On the GPU, the rows that no visit covers are zeroed by visits of their
  // own rather than by filling the whole result first.
  bool fillVisits = gpu && !accumulate;

  auto rowLoop = scf::buildLoopNest(
      b, loc, ValueRange{c0, c0}, ValueRange{numB, numX}, ValueRange{c1, c1},
      ValueRange{destination(b, loc, /*zeroFill=*/!fillVisits)},
      [&](OpBuilder &b, Location loc, ValueRange bx,
          ValueRange args) -> scf::ValueVector {
        Value batch = bx[0], row = bx[1];
        auto dynIndex = RankedTensorType::get({ShapedType::kDynamic}, index);
        auto schedule = TileScheduleOp::create(
            b, loc, index, dynIndex, dynIndex, dynIndex, dynIndex,
            groupSizesRow(b, loc, ValueRange{batch, row}), scheduledRows,
            localGroups, op.getGroupOffset() ? offset : Value(),
            b.getI64IntegerAttr(tiles.m));
        Value maxVisits =
            tensor::DimOp::create(b, loc, schedule.getGroupIds(), 0);
        // Fill visits follow the scheduled ones: the uncovered rows are
        // [0, P) and [S, M), at most ceil(M / tile) + 1 tiles of them.
        Value allVisits = maxVisits;
        if (fillVisits)
          allVisits = arith::AddIOp::create(
              b, loc, maxVisits,
              arith::AddIOp::create(
                  b, loc, arith::CeilDivSIOp::create(b, loc, numM, tileM), c1));
        auto forall = scf::ForallOp::create(
            b, loc, ArrayRef<OpFoldResult>{numNTiles, allVisits},
            ValueRange{args[0]}, mapping(b, 2));
        if (gpu)
          forall->setAttr(kKernelConfigAttrName, config);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(forall.getBody());
        Value nTile = forall.getInductionVars()[0];
        Value visit = forall.getInductionVars()[1];
        Value out = forall.getRegionIterArgs()[0];

        // The visit's rows [rowStart, rowStart + rows) and its local group;
        // visits past the count have no rows.
        Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            visit, schedule.getNumVisits());
        auto rowsIf = scf::IfOp::create(
            b, loc, valid,
            [&](OpBuilder &b, Location loc) {
              Value group = tensor::ExtractOp::create(
                  b, loc, schedule.getGroupIds(), visit);
              Value tile = tensor::ExtractOp::create(
                  b, loc, schedule.getTileIds(), visit);
              Value start = tensor::ExtractOp::create(
                  b, loc, schedule.getGroupStarts(), group);
              Value end = tensor::ExtractOp::create(
                  b, loc, schedule.getGroupEnds(), group);
              Value tileStart = arith::MulIOp::create(b, loc, tile, tileM);
              Value tileEnd = arith::AddIOp::create(b, loc, tileStart, tileM);
              Value first = maxIdx(b, loc, tileStart, start);
              Value last = minIdx(b, loc, tileEnd, end);
              Value rows = maxIdx(
                  b, loc, arith::SubIOp::create(b, loc, last, first), c0);
              Value local = arith::SubIOp::create(b, loc, group, offset);
              scf::YieldOp::create(b, loc,
                                   ValueRange{first, rows, local, numK});
            },
            [&](OpBuilder &b, Location loc) {
              if (!fillVisits) {
                scf::YieldOp::create(b, loc, ValueRange{c0, c0, c0, c0});
                return;
              }
              Value isFill = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::uge, visit, maxVisits);
              auto fillIf = scf::IfOp::create(
                  b, loc, isFill,
                  [&](OpBuilder &b, Location loc) {
                    scf::YieldOp::create(b, loc,
                                         fillRows(b, loc, schedule, visit,
                                                  maxVisits, numM, tileM));
                  },
                  [&](OpBuilder &b, Location loc) {
                    scf::YieldOp::create(b, loc, ValueRange{c0, c0, c0, c0});
                  });
              scf::YieldOp::create(b, loc, fillIf.getResults());
            });
        Value rowStart = rowsIf.getResult(0), rows = rowsIf.getResult(1);
        Value local = rowsIf.getResult(2);
        // A fill visit has no k steps: it writes zeros.
        Value kEnd = fillVisits ? rowsIf.getResult(3) : numK;
        Value colStart, cols;
        std::tie(colStart, cols) = tileRange(b, loc, nTile, tileN, numN);
        SmallVector<OpFoldResult> offsets = {batch, row, rowStart, colStart};
        Value slice = slice2D(b, loc, out, offsets, rows, cols);

        Value block = program.nonContracting(
            b, loc,
            NonContractingVisit{batch, row, rowStart, rows, local, kEnd,
                                colStart, cols, slice});
        b.setInsertionPointToStart(forall.getTerminator().getBody());
        insert2D(b, loc, block, out, offsets, rows, cols);
        return {forall.getResult(0)};
      });
  return rowLoop.results.front();
}

/// Mode 2: lhs [B, Kr, Kc, M] or [B, M, Kr, Kc], rhs [B, Kr, Kc, N] or
/// [B, N, Kr, Kc], sizes [B, g], result [G, B, M, N].
Value Tiler::tileMode2(OpBuilder &b, Location loc) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  auto dims = op.getDimensionNumbers();
  bool lhsKMajor = dims.getLhsRaggedDimensions().front() == 1;
  bool rhsKMajor = dims.getRhsContractingDimensions().front() == 1;
  Value c0 = cst(b, loc, 0), c1 = cst(b, loc, 1);
  Value numB = dim(b, loc, lhs, 0);
  Value numKr = dim(b, loc, lhs, lhsKMajor ? 1 : 2);
  Value numKc = dim(b, loc, lhs, lhsKMajor ? 2 : 3);
  Value numM = dim(b, loc, lhs, lhsKMajor ? 3 : 1);
  Value numN = dim(b, loc, rhs, rhsKMajor ? 3 : 1);
  Value tileM = cst(b, loc, tiles.m), tileN = cst(b, loc, tiles.n);
  Value numMTiles = arith::CeilDivSIOp::create(b, loc, numM, tileM);
  Value numNTiles = arith::CeilDivSIOp::create(b, loc, numN, tileN);
  Value dest = destination(b, loc, /*zeroFill=*/!program.writesWholeSlices());
  Value localGroups = dim(b, loc, dest, 0);
  Type index = b.getIndexType();

  auto batchLoop = scf::ForOp::create(
      b, loc, c0, numB, c1, ValueRange{dest},
      [&](OpBuilder &b, Location loc, Value batch, ValueRange args) {
        auto dynIndex = RankedTensorType::get({ShapedType::kDynamic}, index);
        Value sizesRow = groupSizesRow(b, loc, ValueRange{batch});
        auto schedule = TileScheduleOp::create(
            b, loc, index, dynIndex, dynIndex, dynIndex, dynIndex, sizesRow,
            numKr, localGroups, op.getGroupOffset() ? offset : Value(),
            b.getI64IntegerAttr(tiles.k));
        Value numGroups = tensor::DimOp::create(b, loc, sizesRow, 0);
        auto forall = scf::ForallOp::create(
            b, loc, ArrayRef<OpFoldResult>{localGroups, numMTiles, numNTiles},
            ValueRange{args[0]}, mapping(b, 3));
        if (gpu)
          forall->setAttr(kKernelConfigAttrName, config);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(forall.getBody());
        Value i = forall.getInductionVars()[0];
        Value mTile = forall.getInductionVars()[1];
        Value nTile = forall.getInductionVars()[2];
        Value out = forall.getRegionIterArgs()[0];

        // Local group i is global group offset + i when 0 <= offset + i < g,
        // tested without overflow as -i <= offset < g - i.
        Value valid = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, offset,
                                  arith::SubIOp::create(b, loc, c0, i)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, offset,
                                  arith::SubIOp::create(b, loc, numGroups, i)));
        auto bounds = scf::IfOp::create(
            b, loc, valid,
            [&](OpBuilder &b, Location loc) {
              Value group = arith::AddIOp::create(b, loc, offset, i);
              Value start = tensor::ExtractOp::create(
                  b, loc, schedule.getGroupStarts(), group);
              Value end = tensor::ExtractOp::create(
                  b, loc, schedule.getGroupEnds(), group);
              scf::YieldOp::create(b, loc, ValueRange{start, end});
            },
            [&](OpBuilder &b, Location loc) {
              scf::YieldOp::create(b, loc, ValueRange{c0, c0});
            });
        Value kStart = bounds.getResult(0), kEnd = bounds.getResult(1);

        Value rowStart, rows, colStart, cols;
        std::tie(rowStart, rows) = tileRange(b, loc, mTile, tileM, numM);
        std::tie(colStart, cols) = tileRange(b, loc, nTile, tileN, numN);
        SmallVector<OpFoldResult> offsets = {i, batch, rowStart, colStart};
        Value slice = slice2D(b, loc, out, offsets, rows, cols);

        Value block = program.contracting(
            b, loc,
            ContractingVisit{batch, kStart, kEnd, numKc, rowStart, rows,
                             colStart, cols, slice});
        b.setInsertionPointToStart(forall.getTerminator().getBody());
        insert2D(b, loc, block, out, offsets, rows, cols);
        b.setInsertionPointAfter(forall);
        scf::YieldOp::create(b, loc, forall.getResult(0));
      });
  return batchLoop.getResult(0);
}

struct GMMTile : public mlir::gmm::impl::GMMTileBase<GMMTile> {
  using GMMTileBase::GMMTileBase;

  void runOnOperation() override {
    SmallVector<RaggedDotOp> ops;
    getOperation()->walk([&](RaggedDotOp op) {
      if (op.isNormalized())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (RaggedDotOp op : ops)
      if (failed(tile(rewriter, op)))
        return signalPassFailure();
  }

  LogicalResult tile(RewriterBase &rewriter, RaggedDotOp op) {
    Type accType = op.getAccumulatorType();
    auto config = op->getAttrOfType<KernelConfigAttr>(kKernelConfigAttrName);
    if (!config)
      return op.emitOpError("has no '")
             << kKernelConfigAttrName
             << "' to tile by; gmm-configure attaches one";
    // The dialect's verifier checked a complete configuration against the
    // op (KernelConfigRules.h); a partial one is gmm-configure's request.
    if (failed(verifyComplete(config, [&] { return op.emitOpError(); })))
      return failure();
    bool gpu = config.isGPU();
    TileSizes sizes = TileSizes::of(config);

    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    std::unique_ptr<VisitProgram> program;
    if (gpu) {
      program = std::make_unique<VectorProgram>(op, sizes, accType);
    } else {
      auto *cpu =
          op->getDialect()->getRegisteredInterface<CPUVisitProgramInterface>();
      if (!cpu)
        return op.emitOpError("has a CPU configuration, but no CPU visit "
                              "program is registered (gmm::"
                              "registerCPUVisitProgram attaches gmm's)");
      program = cpu->build(rewriter, op, config);
    }
    Value offset;
    if (Value offsetTensor = op.getGroupOffset()) {
      auto type = cast<RankedTensorType>(offsetTensor.getType());
      SmallVector<Value> indices(type.getRank(), cst(rewriter, loc, 0));
      Value value =
          tensor::ExtractOp::create(rewriter, loc, offsetTensor, indices);
      offset = arith::IndexCastOp::create(rewriter, loc,
                                          rewriter.getIndexType(), value);
    } else {
      offset = cst(rewriter, loc, 0);
    }
    Tiler tiler(op, config, *program, offset);
    Value result = op.getMode() == RaggedDotMode::NonContracting
                       ? tiler.tileMode1(rewriter, loc)
                       : tiler.tileMode2(rewriter, loc);
    if (result.getType() != op.getType())
      result = tensor::CastOp::create(rewriter, loc, op.getType(), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace
