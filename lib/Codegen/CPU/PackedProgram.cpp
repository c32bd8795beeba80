//===- PackedProgram.cpp - the CPU's packed visit program -----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The CPU backend's VisitProgram (gmm/Dialect/GMM/Transforms/VisitProgram.h):
// what one visit of gmm-tile's loops computes for a configuration with
// target = cpu. The operands are packed into panels per contraction block
// (BLIS-style), a register block of mr x nr accumulators runs over each
// pair of panels (with x86vector's bf16 dot for micro_kernel = bf16_dot),
// and the packing prefetches what the hardware prefetchers miss. The
// design and its measurements: docs/Lowering.md and bench/README.md.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/CPU/PackedProgram.h"
#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Dialect/GMM/IR/TileLimits.h"
#include "gmm/Dialect/GMM/Transforms/Utils.h"
#include "gmm/Dialect/GMM/Transforms/VisitProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::gmm;
using namespace mlir::gmm::tiling;

namespace {

/// The CPU's register block: `mr` rows of `nr` accumulator lanes (the
/// configuration's register_block).
struct RegisterBlock {
  int64_t mr, nr;
};

/// Where a visit's last contraction block writes: the visit's slice of the
/// result (`cols` columns wide), when `last` (an i1) holds. Its register
/// blocks then write their sums there directly (converted to the result's
/// type, added to its values when `accumulate`), rather than into the
/// accumulators for a pass that copies them out after the last block: a
/// visit of one contraction block never touches its accumulators.
struct Output {
  Value slice, last, cols;
  bool accumulate;
};

/// The CPU program of a visit: it computes a tile_m x tile_n block of the
/// result in a local accumulator buffer, one contraction block of tile_k
/// at a time. For each block, the rhs rows are packed into panels of `nr`
/// columns (tile_k x nr each, contiguous, converted to the accumulator type,
/// zero past the operand's end) and, where the lhs is not read in place,
/// the lhs columns into panels of `mr` rows; then a register block of
/// mr x nr accumulators runs over each (row panel, column panel) pair with
/// one broadcast lhs element and one rhs panel row per step (k unrolled by
/// four). Only the visit's rows and columns are written back, so nothing
/// that reads past a group or a tile is ever seen.
///
/// With the bf16_dot micro-kernel (`pairs`), the panels stay bf16 and a
/// panel row holds a pair of contraction steps, interleaved: lanes 2j and
/// 2j + 1 are steps 2p and 2p + 1 of column (or row) j, a missing odd step
/// zero. A step of the register block then broadcasts the lhs pair of each
/// row (as one 32-bit value) and runs one `x86vector.avx512.dot` per 16
/// accumulator lanes.
struct PackedBlock {
  TileSizes tiles;
  RegisterBlock reg;
  Type accType;
  bool pairs = false;

  static constexpr int64_t kUnroll = 4;

  /// A loop nest over [lower[0], upper[0]) x [lower[1], upper[1]) (unit
  /// steps) that carries one tensor: `body(i, j, tensor)` returns the next.
  static Value
  loop2D(OpBuilder &b, Location loc, ValueRange lower, ValueRange upper,
         Value init,
         function_ref<Value(OpBuilder &, Location, Value, Value, Value)> body) {
    Value c1 = cst(b, loc, 1);
    return scf::buildLoopNest(b, loc, lower, upper, ValueRange{c1, c1},
                              ValueRange{init},
                              [&](OpBuilder &b, Location loc, ValueRange ivs,
                                  ValueRange args) -> scf::ValueVector {
                                return {body(b, loc, ivs[0], ivs[1], args[0])};
                              })
        .results.front();
  }

  int64_t rowPanels() const { return llvm::divideCeil(tiles.m, reg.mr); }
  /// Mode 1 packs the lhs rows of a visit a row block at a time: at most
  /// kRowBlockPanels row panels (96 rows of 6 on AVX2, 224 of 14 on
  /// AVX-512), whose packed contraction block stays in the L2 cache while
  /// every column panel of the packed rhs block runs over it. The rhs block
  /// is packed once per visit and contraction block, so a visit taller than
  /// a row block packs it once for all its row blocks.
  static constexpr int64_t kRowBlockPanels = 16;
  int64_t rowBlockPanels() const {
    return std::min(rowPanels(), kRowBlockPanels);
  }
  int64_t colPanels() const { return llvm::divideCeil(tiles.n, reg.nr); }
  /// The element type of the packed panels.
  Type packType() const {
    return pairs ? BFloat16Type::get(accType.getContext()) : accType;
  }
  /// Contraction steps per packed panel row.
  int64_t stepsPerRow() const { return pairs ? 2 : 1; }
  /// The accumulator vectors of a register row: one of nr lanes, or (pairs)
  /// one per vdpbf16ps.
  int64_t rowChunks() const { return pairs ? reg.nr / kBF16DotLanes : 1; }
  VectorType chunkVector() const {
    return VectorType::get({reg.nr / rowChunks()}, accType);
  }

  /// A new, uninitialized buffer of the visit's own. Not a tensor.empty:
  /// CSE merges equal ones, and two buffers of a visit with the same shape
  /// (say accumulators and packed rows when tile_m is the row block's
  /// length) would then be bufferized into one allocation.
  static Value scratch(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                       Type elementType) {
    return bufferization::AllocTensorOp::create(
        b, loc, RankedTensorType::get(shape, elementType), ValueRange{});
  }

  /// An uninitialized buffer of `panels` packed panels of `width` lanes,
  /// each a row longer than the contraction block: the packing writes row
  /// kk of every panel in turn, and panels a multiple of 4 KiB apart (tile_k
  /// 256 of 32 f32 lanes) would put all those stores into one L1 set.
  static constexpr int64_t kPanelPadRows = 1;
  Value emptyPanels(OpBuilder &b, Location loc, int64_t panels,
                    int64_t width) const {
    return scratch(
        b, loc,
        {panels, llvm::divideCeilSigned(tiles.k, stepsPerRow()) + kPanelPadRows,
         width * stepsPerRow()},
        packType());
  }

  /// The lhs rows of a row block and a contraction block, row panel by row
  /// panel: [row panels of a row block, mr, tile_k rounded up to whole
  /// vectors of nr lanes].
  int64_t rowBlockLength() const { return llvm::alignTo(tiles.k, reg.nr); }
  Value emptyRowPanels(OpBuilder &b, Location loc) const {
    return scratch(b, loc, {rowBlockPanels(), reg.mr, rowBlockLength()},
                   packType());
  }

  /// Copies `rows` rows of `count` contraction elements into row panels:
  /// `read(r, c)` is the vector of nr elements of row r from element c on.
  Value packRows(
      OpBuilder &b, Location loc, Value packed, Value rows, Value count,
      function_ref<Value(OpBuilder &, Location, Value, Value)> read) const {
    Value c0 = cst(b, loc, 0);
    Value mr = cst(b, loc, reg.mr), nr = cst(b, loc, reg.nr);
    Value chunks = arith::CeilDivSIOp::create(b, loc, count, nr);
    return loop2D(b, loc, ValueRange{c0, c0}, ValueRange{rows, chunks}, packed,
                  [&](OpBuilder &b, Location loc, Value r, Value chunk,
                      Value into) -> Value {
                    Value c = arith::MulIOp::create(b, loc, chunk, nr);
                    Value ip = arith::DivUIOp::create(b, loc, r, mr);
                    Value i = arith::RemUIOp::create(b, loc, r, mr);
                    return vector::TransferWriteOp::create(
                               b, loc, read(b, loc, r, c), into,
                               ValueRange{ip, i, c}, ArrayRef<bool>{true})
                        .getResult();
                  });
  }

  /// The accumulator buffer of a visit, uninitialized: the first
  /// contraction block's register blocks start from zero, and every block
  /// but the last writes back the accumulators that the next one reads.
  /// It is stored column panel by column panel, [column panel, row, nr]:
  /// the register blocks of one column panel run down its rows, so that
  /// each contraction block reads and writes their accumulators in one
  /// contiguous stream rather than one row of nr lanes every tile_n lanes.
  Value emptyAccumulators(OpBuilder &b, Location loc) const {
    return scratch(b, loc, {colPanels(), rowPanels() * reg.mr, reg.nr},
                   accType);
  }

  /// Writes `read(kk, p)` (a vector of the panel's width) into row kk of
  /// panel p, for kk < count and p < panels; with pairs, `read(2q, p)` and
  /// `read(2q + 1, p)` (zero when 2q + 1 is count) interleaved into row q.
  Value
  pack(OpBuilder &b, Location loc, Value packed, Value count, Value panels,
       function_ref<Value(OpBuilder &, Location, Value, Value)> read) const {
    Value c0 = cst(b, loc, 0);
    if (!pairs)
      return loop2D(b, loc, ValueRange{c0, c0}, ValueRange{count, panels},
                    packed,
                    [&](OpBuilder &b, Location loc, Value kk, Value p,
                        Value into) -> Value {
                      return vector::TransferWriteOp::create(
                                 b, loc, read(b, loc, kk, p), into,
                                 ValueRange{p, kk, c0}, ArrayRef<bool>{true})
                          .getResult();
                    });
    Value c2 = cst(b, loc, 2);
    Value rowCount = arith::CeilDivUIOp::create(b, loc, count, c2);
    return loop2D(
        b, loc, ValueRange{c0, c0}, ValueRange{rowCount, panels}, packed,
        [&](OpBuilder &b, Location loc, Value q, Value p, Value into) -> Value {
          Value even = arith::MulIOp::create(b, loc, q, c2);
          Value odd = arith::AddIOp::create(b, loc, even, cst(b, loc, 1));
          Value first = read(b, loc, even, p);
          Value hasOdd = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, odd, count);
          auto second = scf::IfOp::create(
              b, loc, hasOdd,
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc, read(b, loc, odd, p));
              },
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc,
                                     arith::ConstantOp::create(
                                         b, loc, b.getZeroAttr(first.getType()))
                                         .getResult());
              });
          Value pair =
              vector::InterleaveOp::create(b, loc, first, second.getResult(0));
          return vector::TransferWriteOp::create(b, loc, pair, into,
                                                 ValueRange{p, q, c0},
                                                 ArrayRef<bool>{true})
              .getResult();
        });
  }

  /// The lhs operand of a step for one accumulator row: `lhs`, an element
  /// in the accumulator type, broadcast; with pairs, a vector<2xbf16> pair
  /// broadcast as one 32-bit value to the 2 x 16 lanes of a vdpbf16ps.
  Value broadcastLhs(OpBuilder &b, Location loc, Value lhs) const {
    if (!pairs)
      return vector::BroadcastOp::create(b, loc, chunkVector(), lhs);
    Type i32 = b.getI32Type();
    Value word = vector::ExtractOp::create(
        b, loc,
        vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), lhs),
        ArrayRef<int64_t>{0});
    Value words = vector::BroadcastOp::create(
        b, loc, VectorType::get({kBF16DotLanes}, i32), word);
    return vector::BitCastOp::create(
        b, loc, VectorType::get({2 * kBF16DotLanes}, packType()), words);
  }

  /// A vector of bf16 as f32, through its bits: each 16-bit pattern
  /// shifted into the high half of a 32-bit word (exact, as arith.extf).
  static Value widenBF16Bits(OpBuilder &b, Location loc, Value v) {
    auto type = cast<VectorType>(v.getType());
    auto vectorOf = [&](Type element) {
      return VectorType::get(type.getShape(), element);
    };
    Value bits = arith::BitcastOp::create(b, loc, vectorOf(b.getI16Type()), v);
    Value wide = arith::ExtUIOp::create(b, loc, vectorOf(b.getI32Type()), bits);
    Value sixteen = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(vectorOf(b.getI32Type()),
                               b.getI32IntegerAttr(16).getValue()));
    Value high = arith::ShLIOp::create(b, loc, wide, sixteen);
    return arith::BitcastOp::create(b, loc, vectorOf(b.getF32Type()), high);
  }

  /// The lhs pair of a bf16_dot step: 2 elements of `panels` at `indices`.
  Value readPair(OpBuilder &b, Location loc, Value panels,
                 ValueRange indices) const {
    return vector::TransferReadOp::create(
        b, loc, VectorType::get({2}, packType()), panels, indices,
        arith::ConstantOp::create(b, loc, b.getZeroAttr(packType())),
        ArrayRef<bool>{true});
  }

  /// Reads `width` lanes of `source` along `vectorDim` at `indices`
  /// (zero past its end), converted to the accumulator type.
  Value readLanes(OpBuilder &b, Location loc, Value source, ValueRange indices,
                  int64_t vectorDim, int64_t width) const {
    auto type = cast<RankedTensorType>(source.getType());
    MLIRContext *ctx = b.getContext();
    AffineMap map = AffineMap::get(type.getRank(), 0,
                                   getAffineDimExpr(vectorDim, ctx), ctx);
    Value pad =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
    auto vectorType = VectorType::get({width}, type.getElementType());
    // Whole vectors inside the operand (all but its last) read unmasked.
    Value whole = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sle,
        arith::AddIOp::create(b, loc, indices[vectorDim], cst(b, loc, width)),
        dim(b, loc, source, vectorDim));
    // Each branch converts what it read, and the masked one widens bf16
    // with integer operations rather than arith.extf. A vector of bf16 that
    // crosses blocks is legalized lane by lane on CPUs without AVX512-BF16
    // (each lane kept as f32 and truncated back by a call of __truncsfbf2),
    // and LLVM sinks two identical conversions into the block after the
    // branches, leaving a phi of bf16 vectors.
    auto readAndYield = [&](OpBuilder &b, Location loc, bool inBounds) {
      Value lanes =
          vector::TransferReadOp::create(b, loc, vectorType, source, indices,
                                         pad, map, ArrayRef<bool>{inBounds});
      if (!inBounds && type.getElementType().isBF16() && !packType().isBF16())
        lanes = widenBF16Bits(b, loc, lanes);
      scf::YieldOp::create(b, loc, convertVector(b, loc, lanes, packType()));
    };
    auto read = scf::IfOp::create(
        b, loc, whole,
        [&](OpBuilder &b, Location loc) { readAndYield(b, loc, true); },
        [&](OpBuilder &b, Location loc) { readAndYield(b, loc, false); });
    return read.getResult(0);
  }

  /// The height of the register blocks that compute a last row panel that
  /// is not full, one after the other (when mr is larger): 14-row blocks on
  /// 32-row groups computed 42 rows; with a 4-row block for the last
  /// panel, 32.
  static constexpr int64_t kTailRows = 4;
  /// A last contraction block of at most this many steps runs its register
  /// blocks rows first (see multiply).
  static constexpr int64_t kRowsFirstSteps = 64;

  /// Adds the product of the packed panels' first `count` rows to the
  /// accumulators of `rowsUsed` rows from `rowOffset` on (row panel ip of the
  /// packed lhs is accumulator rows rowOffset + ip * mr ...) and the column
  /// panels below `colPanelsUsed`. Row panels of mr rows run an mr x nr
  /// register block; a partial last panel of r rows runs ceil(r / 4) blocks of
  /// 4 rows when they fit in the panel (else one of mr), or, when that
  /// computes fewer rows, the last whole panel's rows and the r rows all run
  /// 4-row blocks (8 rows: 4 + 4 rather than 6 + 4). `lhsElement(ip, i,
  /// kk)` is the lhs element of row i of row panel ip at contraction index kk,
  /// in the accumulator type; with pairs, kk is a packed row (a pair of
  /// indices) and the element a vector<2xbf16>. `prefetch(jp, kk)`, when given,
  /// runs once per step (packed row kk) of the first row panel of each column
  /// panel (those register blocks are peeled off so that the others carry
  /// no prefetches). Callers run it only with rows. In the last contraction
  /// block (`output.last`) the register blocks write their sums into the
  /// visit's slice of the result rather than into `acc` (see Output).
  /// Returns the accumulators and the slice.
  std::pair<Value, Value>
  multiply(OpBuilder &b, Location loc, Value acc, const Output &output,
           Value firstBlock, Value packedRhs, Value count, Value rowOffset,
           Value rowsUsed, Value colPanelsUsed,
           function_ref<Value(OpBuilder &, Location, Value, Value, Value)>
               lhsElement,
           function_ref<void(OpBuilder &, Location, Value, Value)> prefetch =
               {}) const;

  /// Writes the sums of a register block's rows (`sums`, `rowChunks()` per
  /// row; `rows` their rows in the slice, consecutive) into the slice from
  /// column `col` on, converted to its element type and added to its values
  /// when accumulating: one 2-D transfer of the block's rows, each row's
  /// chunks side by side, whose rows past the slice are dropped (a
  /// row-by-row condition once the transfers are unrolled) and whose lanes
  /// are unmasked when the column panel lies inside the slice, masked when
  /// it crosses its last column. (One tensor op rather than one condition
  /// per row: One-Shot Bufferize's analysis grows much faster than linearly
  /// with the tensor values that alias the slice.) A row is written whole,
  /// not a chunk at a time: a row's 32 bf16 lanes are one 64-byte cache line,
  /// which a streaming store then writes at once; in two 32-byte halves, a
  /// register block's rows apart, the halves leave the write-combining
  /// buffers separately and memory takes each as a partial line.
  Value writeOutput(OpBuilder &b, Location loc, const Output &output,
                    ValueRange sums, ArrayRef<Value> rows, Value col,
                    int64_t lanes, Value slice) const {
    int64_t chunks = rowChunks();
    int64_t height = rows.size();
    auto blockType = VectorType::get({height, chunks * lanes}, accType);
    auto writeRows = [&](OpBuilder &b, Location loc, bool inBounds) {
      Value block = arith::ConstantOp::create(b, loc, b.getZeroAttr(blockType));
      for (int64_t i = 0; i < height; ++i)
        for (int64_t c = 0; c < chunks; ++c)
          block = vector::InsertStridedSliceOp::create(
              b, loc, sums[i * chunks + c], block,
              ArrayRef<int64_t>{i, c * lanes}, ArrayRef<int64_t>{1});
      Value into = writeBlock(b, loc, block, slice, output.accumulate,
                              ValueRange{rows.front(), col}, {false, inBounds});
      scf::YieldOp::create(b, loc, into);
    };
    Value whole = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sle,
        arith::AddIOp::create(b, loc, col, cst(b, loc, reg.nr)), output.cols);
    return scf::IfOp::create(
               b, loc, whole,
               [&](OpBuilder &b, Location loc) { writeRows(b, loc, true); },
               [&](OpBuilder &b, Location loc) { writeRows(b, loc, false); })
        .getResult(0);
  }

  /// The visit's `rows` x `cols` slice after its contraction blocks: as
  /// they left it, or (without init) zero where no block ran (`computed`
  /// false).
  Value finish(OpBuilder &b, Location loc, Value slice, Value rows, Value cols,
               bool accumulate, Value computed) const {
    if (accumulate)
      return slice;
    Value c0 = cst(b, loc, 0);
    Value nr = cst(b, loc, reg.nr);
    Type outType = cast<RankedTensorType>(slice.getType()).getElementType();
    Value zero = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(VectorType::get({reg.nr}, outType)));
    auto fill = [&](OpBuilder &b, Location loc, Value from, Value to,
                    bool inBounds, Value into) {
      return loop2D(
          b, loc, ValueRange{c0, from}, ValueRange{rows, to}, into,
          [&](OpBuilder &b, Location loc, Value r, Value p,
              Value into) -> Value {
            return vector::TransferWriteOp::create(
                       b, loc, zero, into,
                       ValueRange{r, arith::MulIOp::create(b, loc, p, nr)},
                       ArrayRef<bool>{inBounds})
                .getResult();
          });
    };
    return scf::IfOp::create(
               b, loc, computed,
               [&](OpBuilder &b, Location loc) {
                 scf::YieldOp::create(b, loc, slice);
               },
               [&](OpBuilder &b, Location loc) {
                 // Whole vectors unmasked, the last partial one masked.
                 Value whole = arith::DivSIOp::create(b, loc, cols, nr);
                 Value panels = arith::CeilDivSIOp::create(b, loc, cols, nr);
                 Value zeroed = fill(b, loc, c0, whole, true, slice);
                 scf::YieldOp::create(
                     b, loc, fill(b, loc, whole, panels, false, zeroed));
               })
        .getResult(0);
  }
};

/// The loops of PackedBlock::multiply over one contraction block: for each
/// (column panel, row panel) pair a register block (`block`), whose
/// contraction steps (`step`) run unrolled by kUnroll; a partial last row
/// panel's tail blocks of kTailRows rows (`tail`); and the two orders of the
/// pairs (`columnsFirst`, `rowsFirst`).
struct RegisterBlockLoops {
  RegisterBlockLoops(
      const PackedBlock &p, const Output &output, Value firstBlock,
      Value packedRhs, Value rowOffset, Value colPanelsUsed,
      function_ref<Value(OpBuilder &, Location, Value, Value, Value)>
          lhsElement,
      function_ref<void(OpBuilder &, Location, Value, Value)> prefetch)
      : p(p), output(output), firstBlock(firstBlock), packedRhs(packedRhs),
        rowOffset(rowOffset), colPanelsUsed(colPanelsUsed),
        lhsElement(lhsElement), prefetch(prefetch) {}

  const PackedBlock &p;
  const Output &output;
  Value firstBlock, packedRhs, rowOffset, colPanelsUsed;
  function_ref<Value(OpBuilder &, Location, Value, Value, Value)> lhsElement;
  function_ref<void(OpBuilder &, Location, Value, Value)> prefetch;
  Value c0, c1, mr, unroll;
  /// Packed rows to run (one per step, or per pair of steps), and those of
  /// them in whole unrolled iterations.
  Value steps, unrolled;
  /// Row panels computed whole (from the first), then the 4-row blocks of
  /// the rows after them.
  Value panelsUsed, tailBlocks;

  /// Sets the bounds above for `count` contraction steps over `rowsUsed`
  /// rows.
  void plan(OpBuilder &b, Location loc, Value count, Value rowsUsed) {
    c0 = cst(b, loc, 0);
    c1 = cst(b, loc, 1);
    mr = cst(b, loc, p.reg.mr);
    unroll = cst(b, loc, PackedBlock::kUnroll);
    steps = p.pairs ? arith::CeilDivUIOp::create(b, loc, count, cst(b, loc, 2))
                          .getResult()
                    : count;
    unrolled = arith::SubIOp::create(
        b, loc, steps, arith::RemUIOp::create(b, loc, steps, unroll));
    panelsUsed = arith::CeilDivUIOp::create(b, loc, rowsUsed, mr);
    tailBlocks = c0;
    if (p.reg.mr <= PackedBlock::kTailRows)
      return;
    Value four = cst(b, loc, PackedBlock::kTailRows);
    auto times4 = [&](Value blocks) -> Value {
      return arith::MulIOp::create(b, loc, blocks, four);
    };
    Value full = arith::DivUIOp::create(b, loc, rowsUsed, mr);
    Value rem = arith::RemUIOp::create(b, loc, rowsUsed, mr);
    // The rem rows after the full panels as 4-row blocks, when they fit in a
    // panel (else as one more whole panel): rows computed past the full
    // panels.
    Value blocks = arith::CeilDivUIOp::create(b, loc, rem, four);
    Value blockRows = times4(blocks);
    Value fits =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, blockRows, mr);
    Value extra = arith::SelectOp::create(b, loc, fits, blockRows, mr);
    // Or the last full panel's rows and the rem rows all as 4-row blocks,
    // when that computes fewer rows: 8 rows as two blocks of 4 rather than a
    // panel of 6 and a block of 4 (a fifth of a decode step's
    // multiplications, with about 8 rows per group).
    Value stolen = arith::CeilDivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, rem, mr), four);
    Value steal = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, full, c0),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, times4(stolen),
                              arith::AddIOp::create(b, loc, mr, extra)));
    tailBlocks = arith::SelectOp::create(
        b, loc, steal, stolen,
        arith::SelectOp::create(b, loc, fits, blocks, c0));
    panelsUsed = arith::SelectOp::create(
        b, loc, steal, arith::SubIOp::create(b, loc, full, c1),
        arith::SelectOp::create(b, loc, fits, full, panelsUsed));
  }

  /// One contraction step (pair of steps) of a register block with column
  /// panel jp: a row of the rhs panel times a broadcast lhs element (pair)
  /// per accumulator row, whose row panels and rows in them are `rowPanels`
  /// and `panelRows`.
  void step(OpBuilder &b, Location loc, Value jp, Value kk,
            ArrayRef<Value> rowPanels, ArrayRef<Value> panelRows,
            bool withPrefetch, SmallVector<Value> &sums) const {
    int64_t chunks = p.rowChunks();
    int64_t lanes = p.chunkVector().getNumElements();
    int64_t height = rowPanels.size();
    int64_t width = lanes * p.stepsPerRow();
    SmallVector<Value> rhs;
    for (int64_t c = 0; c < chunks; ++c)
      rhs.push_back(vector::TransferReadOp::create(
          b, loc, VectorType::get({width}, p.packType()), packedRhs,
          ValueRange{jp, kk, cst(b, loc, c * width)},
          arith::ConstantOp::create(b, loc, b.getZeroAttr(p.packType())),
          ArrayRef<bool>{true}));
    if (withPrefetch)
      prefetch(b, loc, jp, kk);
    for (int64_t i = 0; i < height; ++i) {
      Value lhs = p.broadcastLhs(
          b, loc, lhsElement(b, loc, rowPanels[i], panelRows[i], kk));
      for (int64_t c = 0; c < chunks; ++c) {
        Value &sum = sums[i * chunks + c];
        sum = p.pairs
                  ? x86vector::DotBF16Op::create(b, loc, p.chunkVector(), sum,
                                                 lhs, rhs[c])
                        .getResult()
                  : vector::FMAOp::create(b, loc, lhs, rhs[c], sum).getResult();
      }
    }
  }

  /// The register block of row panel ip's rows first, first + 1, ...
  /// (`height` of them) with column panel jp; `into` is {accumulators,
  /// slice}.
  SmallVector<Value> block(OpBuilder &b, Location loc, Value jp, Value ip,
                           Value first, ValueRange into, int64_t height,
                           bool withPrefetch) const {
    Value row0 = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, rowOffset,
                              arith::MulIOp::create(b, loc, ip, mr)),
        first);
    // Accumulator row i's vector c is sums[i * chunks + c], at lane cols[c]
    // of the column panel.
    int64_t chunks = p.rowChunks();
    int64_t lanes = p.chunkVector().getNumElements();
    SmallVector<Value> rows, panelRows, cols, sums;
    for (int64_t c = 0; c < chunks; ++c)
      cols.push_back(cst(b, loc, c * lanes));
    // Row i of the block is row first + i of panel ip, which a tail block's
    // rows past the panel's mr continue into the next panel.
    SmallVector<Value> rowPanels;
    for (int64_t i = 0; i < height; ++i) {
      Value offset = cst(b, loc, i);
      rows.push_back(arith::AddIOp::create(b, loc, row0, offset));
      Value inPanel =
          i ? arith::AddIOp::create(b, loc, first, offset).getResult() : first;
      if (height == p.reg.mr) {
        rowPanels.push_back(ip);
        panelRows.push_back(inPanel);
        continue;
      }
      rowPanels.push_back(arith::AddIOp::create(
          b, loc, ip, arith::DivUIOp::create(b, loc, inPanel, mr)));
      panelRows.push_back(arith::RemUIOp::create(b, loc, inPanel, mr));
    }
    // The first contraction block starts from zero, the others from what
    // the blocks before left.
    SmallVector<Type> sumTypes(height * chunks, p.chunkVector());
    auto start = scf::IfOp::create(b, loc, sumTypes, firstBlock,
                                   /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(start.thenBlock());
      Value zero =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(p.chunkVector()));
      scf::YieldOp::create(b, loc, SmallVector<Value>(sumTypes.size(), zero));
      b.setInsertionPointToStart(start.elseBlock());
      SmallVector<Value> loaded;
      for (Value row : rows)
        for (Value at : cols)
          loaded.push_back(vector::TransferReadOp::create(
              b, loc, p.chunkVector(), into[0], ValueRange{jp, row, at},
              arith::ConstantOp::create(b, loc, b.getZeroAttr(p.accType)),
              ArrayRef<bool>{true}));
      scf::YieldOp::create(b, loc, loaded);
    }
    sums.append(start.getResults().begin(), start.getResults().end());
    auto main = scf::ForOp::create(
        b, loc, c0, unrolled, unroll, sums,
        [&](OpBuilder &b, Location loc, Value k, ValueRange in) {
          SmallVector<Value> next(in);
          for (int64_t u = 0; u < PackedBlock::kUnroll; ++u)
            step(
                b, loc, jp,
                u ? arith::AddIOp::create(b, loc, k, cst(b, loc, u)).getResult()
                  : k,
                rowPanels, panelRows, withPrefetch, next);
          scf::YieldOp::create(b, loc, next);
        });
    auto rest = scf::ForOp::create(
        b, loc, unrolled, steps, c1, main.getResults(),
        [&](OpBuilder &b, Location loc, Value k, ValueRange in) {
          SmallVector<Value> next(in);
          step(b, loc, jp, k, rowPanels, panelRows, withPrefetch, next);
          scf::YieldOp::create(b, loc, next);
        });
    // The sums go back into the accumulators, or in the last block into the
    // slice.
    auto done = scf::IfOp::create(
        b, loc, TypeRange{into[0].getType(), into[1].getType()}, output.last,
        /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(done.thenBlock());
      Value col = arith::MulIOp::create(b, loc, jp, cst(b, loc, p.reg.nr));
      scf::YieldOp::create(
          b, loc,
          ValueRange{into[0], p.writeOutput(b, loc, output, rest.getResults(),
                                            rows, col, lanes, into[1])});
      b.setInsertionPointToStart(done.elseBlock());
      Value acc = into[0];
      for (int64_t i = 0; i < height; ++i)
        for (int64_t c = 0; c < chunks; ++c)
          acc = vector::TransferWriteOp::create(
                    b, loc, rest.getResult(i * chunks + c), acc,
                    ValueRange{jp, rows[i], cols[c]}, ArrayRef<bool>{true})
                    .getResult();
      scf::YieldOp::create(b, loc, ValueRange{acc, into[1]});
    }
    return SmallVector<Value>(done.getResults());
  }

  /// The tail blocks of row panel panelsUsed.
  SmallVector<Value> tail(OpBuilder &b, Location loc, Value jp, ValueRange into,
                          bool withPrefetch) const {
    if (p.reg.mr <= PackedBlock::kTailRows)
      return SmallVector<Value>(into);
    return scf::ForOp::create(
               b, loc, c0, tailBlocks, c1, into,
               [&](OpBuilder &b, Location loc, Value t, ValueRange in) {
                 Value first = arith::MulIOp::create(
                     b, loc, t, cst(b, loc, PackedBlock::kTailRows));
                 scf::YieldOp::create(b, loc,
                                      block(b, loc, jp, panelsUsed, first, in,
                                            PackedBlock::kTailRows,
                                            withPrefetch));
               })
        .getResults();
  }

  /// Row panels [from, panelsUsed), then the tail blocks.
  SmallVector<Value> panels(OpBuilder &b, Location loc, Value jp, Value from,
                            ValueRange into) const {
    auto rowLoop = scf::ForOp::create(
        b, loc, from, panelsUsed, c1, into,
        [&](OpBuilder &b, Location loc, Value ip, ValueRange in) {
          scf::YieldOp::create(b, loc,
                               block(b, loc, jp, ip, c0, in, p.reg.mr,
                                     /*withPrefetch=*/false));
        });
    return tail(b, loc, jp, rowLoop.getResults(), /*withPrefetch=*/false);
  }

  /// Column panels outermost: the rhs panel stays in the L1 cache while
  /// every row panel runs over it.
  scf::ForOp columnsFirst(OpBuilder &b, Location loc, Value colPanels,
                          ValueRange init) const {
    return scf::ForOp::create(
        b, loc, c0, colPanels, c1, init,
        [&](OpBuilder &b, Location loc, Value jp, ValueRange args) {
          if (!prefetch) {
            scf::YieldOp::create(b, loc, panels(b, loc, jp, c0, args));
            return;
          }
          // The first row panel's blocks prefetch: a whole panel's when
          // there is one, else the tail's.
          Value anyWhole = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne, panelsUsed, c0);
          auto out = scf::IfOp::create(
              b, loc, anyWhole,
              [&](OpBuilder &b, Location loc) {
                SmallVector<Value> first =
                    block(b, loc, jp, c0, c0, args, p.reg.mr,
                          /*withPrefetch=*/true);
                scf::YieldOp::create(b, loc, panels(b, loc, jp, c1, first));
              },
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(
                    b, loc, tail(b, loc, jp, args, /*withPrefetch=*/true));
              });
          scf::YieldOp::create(b, loc, out.getResults());
        });
  }

  /// Row panel ip's blocks of `height` rows from `first` across the column
  /// panels.
  SmallVector<Value> across(OpBuilder &b, Location loc, Value ip, Value first,
                            ValueRange into, int64_t height) const {
    return scf::ForOp::create(
               b, loc, c0, colPanelsUsed, c1, into,
               [&](OpBuilder &b, Location loc, Value jp, ValueRange in) {
                 scf::YieldOp::create(b, loc,
                                      block(b, loc, jp, ip, first, in, height,
                                            /*withPrefetch=*/false));
               })
        .getResults();
  }

  /// Row panels outermost: each row panel's rows of the result are written
  /// across the visit's columns before the next panel's, so that the writes
  /// run along rows of memory rather than down 32-lane stripes.
  SmallVector<Value> rowsFirst(OpBuilder &b, Location loc, Value acc,
                               Value rowPanels, Value tails) const {
    SmallVector<Value> out(
        scf::ForOp::create(
            b, loc, c0, rowPanels, c1, ValueRange{acc, output.slice},
            [&](OpBuilder &b, Location loc, Value ip, ValueRange in) {
              scf::YieldOp::create(b, loc,
                                   across(b, loc, ip, c0, in, p.reg.mr));
            })
            .getResults());
    if (p.reg.mr <= PackedBlock::kTailRows)
      return out;
    return scf::ForOp::create(
               b, loc, c0, tails, c1, out,
               [&](OpBuilder &b, Location loc, Value t, ValueRange in) {
                 Value first = arith::MulIOp::create(
                     b, loc, t, cst(b, loc, PackedBlock::kTailRows));
                 scf::YieldOp::create(b, loc,
                                      across(b, loc, panelsUsed, first, in,
                                             PackedBlock::kTailRows));
               })
        .getResults();
  }
};

std::pair<Value, Value> PackedBlock::multiply(
    OpBuilder &b, Location loc, Value acc, const Output &output,
    Value firstBlock, Value packedRhs, Value count, Value rowOffset,
    Value rowsUsed, Value colPanelsUsed,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> lhsElement,
    function_ref<void(OpBuilder &, Location, Value, Value)> prefetch) const {
  RegisterBlockLoops loops(*this, output, firstBlock, packedRhs, rowOffset,
                           colPanelsUsed, lhsElement, prefetch);
  loops.plan(b, loc, count, rowsUsed);
  Value c0 = loops.c0;
  // A last block of few contraction steps is bound by writing the result (a
  // weight gradient of small groups): it runs rows first. Other blocks,
  // whose rhs block may not fit in the L1 and L2 caches beside the lhs
  // block, run columns first. The two nests run one after the other, the
  // one not chosen for no iterations: a condition between them would yield
  // two versions of the slice, which bufferization then copies.
  Value fewSteps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                         count, cst(b, loc, kRowsFirstSteps));
  Value rows = arith::AndIOp::create(b, loc, output.last, fewSteps);
  auto unless = [&](Value condition, Value bound) -> Value {
    return arith::SelectOp::create(b, loc, condition, c0, bound);
  };
  Value columns = arith::XOrIOp::create(
      b, loc, rows, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  SmallVector<Value> rowsDone =
      loops.rowsFirst(b, loc, acc, unless(columns, loops.panelsUsed),
                      unless(columns, loops.tailBlocks));
  scf::ForOp columnsDone =
      loops.columnsFirst(b, loc, unless(rows, colPanelsUsed), rowsDone);
  return {columnsDone.getResult(0), columnsDone.getResult(1)};
}

/// How many rows ahead the rhs packing prefetches.
constexpr int64_t kPackPrefetchRows = 8;
/// How many rows ahead mode 1's lhs packing prefetches: each row of a
/// contraction block is at most a KiB in a page of its own, which the
/// hardware prefetcher does not follow; fewer rows ahead hid less of the
/// memory's latency (measurements: bench/README.md, "Why the heuristics are
/// what they are").
constexpr int64_t kLhsPrefetchRows = 32;
/// The bytes of a cache line.
constexpr int64_t kLineBytes = 64;

/// Prefetches (for reading, into every cache level) the lines that hold
/// `lanes` elements of `buffer` along its last dimension from `indices` on:
/// a register's worth of 32 f32 lanes spans two lines, and the hardware
/// prefetchers do not reliably bring the second. Indices past the
/// dimension's end are clamped to it.
void prefetchLanes(OpBuilder &b, Location loc, Value buffer, ValueRange indices,
                   int64_t lanes) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t perLine =
      std::max<int64_t>(1, kLineBytes * 8 / type.getElementTypeBitWidth());
  SmallVector<Value> at(indices);
  Value last;
  for (int64_t lane = 0; lane < lanes; lane += perLine) {
    if (lane) {
      if (!last)
        last = arith::SubIOp::create(
            b, loc,
            memref::DimOp::create(b, loc, buffer, type.getRank() - 1)
                .getResult(),
            cst(b, loc, 1));
      at.back() = minIdx(
          b, loc,
          arith::AddIOp::create(b, loc, indices.back(), cst(b, loc, lane)),
          last);
    }
    memref::PrefetchOp::create(b, loc, buffer, at, /*isWrite=*/false, 3,
                               /*isDataCache=*/true);
  }
}

/// The packed program of one ragged dot: its operands' read-only views
/// (for prefetches) are made once, before the op.
struct PackedProgram : public VisitProgram {
  RaggedDotOp op;
  TileSizes tiles;
  PackedBlock block;
  /// The rhs's buffer, for prefetches.
  Value rhsBuffer;
  /// The lhs's buffer, for prefetches.
  Value lhsBuffer;

  PackedProgram(OpBuilder &b, RaggedDotOp op, KernelConfigAttr config)
      : op(op), tiles(TileSizes::of(config)),
        block{tiles,
              RegisterBlock{config.getRegisterBlock()[0],
                            config.getRegisterBlock()[1]},
              op.getAccumulatorType(),
              config.getMicroKernelOrDefault() == MicroKernel::BF16Dot} {
    // Read-only views of the operands, for prefetches.
    Location loc = op.getLoc();
    auto bufferOf = [&](Value tensor) -> Value {
      auto type = cast<RankedTensorType>(tensor.getType());
      SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
      auto layout = StridedLayoutAttr::get(op.getContext(),
                                           ShapedType::kDynamic, strides);
      return bufferization::ToBufferOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(), layout),
          tensor, /*read_only=*/true);
    };
    rhsBuffer = bufferOf(op.getRhs());
    lhsBuffer = bufferOf(op.getLhs());
  }

  /// Mode 2 writes every element of a slice: a group without rows gets
  /// zeros from finish.
  bool writesWholeSlices() const override { return true; }

  Value nonContracting(OpBuilder &b, Location loc,
                       const NonContractingVisit &visit) override;
  Value contracting(OpBuilder &b, Location loc,
                    const ContractingVisit &visit) override;
};

} // namespace

/// Mode 1 on the CPU: the rhs is packed per contraction block, the lhs rows
/// per row block and contraction block (rows past the visit repeat its last
/// row, so every read is in bounds and no mask is needed).
Value PackedProgram::nonContracting(OpBuilder &b, Location loc,
                                    const NonContractingVisit &visit) {
  Value batch = visit.batch, row = visit.row, rowStart = visit.rowStart;
  Value rows = visit.rows, local = visit.local, colStart = visit.colStart;
  Value cols = visit.cols, slice = visit.slice;
  const PackedBlock &p = block;
  Value lhs = op.getLhs(), rhs = op.getRhs();
  bool rhsTransposed =
      op.getDimensionNumbers().getRhsContractingDimensions().front() == 3;
  Value c1 = cst(b, loc, 1);
  Value numK = dim(b, loc, lhs, 3);
  Value mr = cst(b, loc, p.reg.mr), nr = cst(b, loc, p.reg.nr);
  Value tileK = cst(b, loc, tiles.k);
  Value rowPanels = arith::CeilDivSIOp::create(b, loc, rows, mr);
  Value colPanels = arith::CeilDivSIOp::create(b, loc, cols, nr);
  Value lastRow = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rowStart, rows), c1);
  Value init[] = {p.emptyPanels(b, loc, p.colPanels(), p.reg.nr),
                  p.emptyAccumulators(b, loc), p.emptyRowPanels(b, loc), slice};
  Value rowsPacked = arith::MulIOp::create(b, loc, rowPanels, mr);
  // A visit without rows (past the schedule's count) computes nothing: its
  // contraction loop runs no blocks, and no rows are stored.
  Value hasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, rows,
                                        cst(b, loc, 0));
  Value kEnd = arith::SelectOp::create(b, loc, hasRows, numK, cst(b, loc, 0));
  auto kLoop = scf::ForOp::create(
      b, loc, cst(b, loc, 0), kEnd, tileK, init,
      [&](OpBuilder &b, Location loc, Value k0, ValueRange args) {
        Value count =
            minIdx(b, loc, tileK, arith::SubIOp::create(b, loc, numK, k0));
        Value panels = p.pack(
            b, loc, args[0], count, colPanels,
            [&](OpBuilder &b, Location loc, Value kk, Value jp) {
              Value k = arith::AddIOp::create(b, loc, k0, kk);
              Value col = arith::AddIOp::create(
                  b, loc, colStart, arith::MulIOp::create(b, loc, jp, nr));
              if (rhsBuffer && !rhsTransposed) {
                // The first block has no previous one to prefetch it: the
                // packing prefetches a few rows ahead itself (in every block;
                // in later ones the rows are mostly in cache already).
                Value ahead =
                    minIdx(b, loc,
                           arith::AddIOp::create(
                               b, loc, k, cst(b, loc, kPackPrefetchRows)),
                           arith::SubIOp::create(b, loc, numK, c1));
                prefetchLanes(b, loc, rhsBuffer,
                              ValueRange{batch, local, ahead, col}, p.reg.nr);
              }
              return rhsTransposed
                         ? p.readLanes(b, loc, rhs,
                                       ValueRange{batch, local, col, k}, 2,
                                       p.reg.nr)
                         : p.readLanes(b, loc, rhs,
                                       ValueRange{batch, local, k, col}, 3,
                                       p.reg.nr);
            });
        // While a block is multiplied, its panel rows of the next block
        // (in the last block, rows of this one) are prefetched: row
        // prefetchBase + kk for kk < count, in bounds.
        Value prefetchBase =
            minIdx(b, loc, arith::AddIOp::create(b, loc, k0, tileK),
                   arith::SubIOp::create(b, loc, numK, count));
        Value firstBlock = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, k0, cst(b, loc, 0));
        Value lastBlock =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                                  arith::SubIOp::create(b, loc, numK, k0));
        auto prefetchRows = [&](OpBuilder &b, Location loc, Value jp,
                                Value kk) {
          Value col = arith::AddIOp::create(
              b, loc, colStart, arith::MulIOp::create(b, loc, jp, nr));
          // The rows of packed row kk: one, or a pair (the second
          // clamped to the operand).
          Value first =
              arith::MulIOp::create(b, loc, kk, cst(b, loc, p.stepsPerRow()));
          for (int64_t s = 0; s < p.stepsPerRow(); ++s) {
            Value k = arith::AddIOp::create(
                b, loc, prefetchBase,
                s ? arith::AddIOp::create(b, loc, first, cst(b, loc, s))
                        .getResult()
                  : first);
            if (s)
              k = minIdx(b, loc, k, arith::SubIOp::create(b, loc, numK, c1));
            prefetchLanes(b, loc, rhsBuffer, ValueRange{batch, local, k, col},
                          p.reg.nr);
          }
        };
        // A visit as wide as the rhs's rows packs whole rows, which the
        // hardware prefetcher streams: prefetching the next block's would
        // only add to the traffic (measurements: bench/README.md, "Why the
        // heuristics are what they are").
        auto rhsType = cast<RankedTensorType>(rhs.getType());
        int64_t rowLength = rhsType.getDimSize(3);
        function_ref<void(OpBuilder &, Location, Value, Value)> prefetchNext;
        if (rhsBuffer && !rhsTransposed &&
            (ShapedType::isDynamic(rowLength) || tiles.n < rowLength))
          prefetchNext = prefetchRows;
        // One row block of the visit: `blockRows` lhs rows from row m0 on
        // packed, `usedRows` of them computed. Returns the accumulators,
        // the slice and the packed rows.
        auto rowBlock = [&](OpBuilder &b, Location loc, Value m0,
                            Value blockRows, Value usedRows, Value acc,
                            Value out,
                            Value rowPanelsIn) -> std::array<Value, 3> {
          Value blockStart = arith::AddIOp::create(b, loc, rowStart, m0);
          // The visit's lhs rows (rows past it repeat its last row), copied
          // so that the register block's rows are 1 KiB apart rather than a
          // row of the lhs (4 KiB or a multiple for the usual k, which maps
          // them all to one L1 set).
          Value lhsPanels = p.packRows(
              b, loc, rowPanelsIn, blockRows, count,
              [&](OpBuilder &b, Location loc, Value r, Value c) {
                Value at =
                    minIdx(b, loc, arith::AddIOp::create(b, loc, blockStart, r),
                           lastRow);
                if (lhsBuffer)
                  prefetchLanes(
                      b, loc, lhsBuffer,
                      ValueRange{
                          batch, row,
                          minIdx(b, loc,
                                 arith::AddIOp::create(
                                     b, loc, at, cst(b, loc, kLhsPrefetchRows)),
                                 lastRow),
                          arith::AddIOp::create(b, loc, k0, c)},
                      p.reg.nr);
                return p.readLanes(
                    b, loc, lhs,
                    ValueRange{batch, row, at,
                               arith::AddIOp::create(b, loc, k0, c)},
                    3, p.reg.nr);
              });
          auto [next, written] = p.multiply(
              b, loc, acc,
              Output{out, lastBlock, cols, static_cast<bool>(op.getInit())},
              firstBlock, panels, count, m0, usedRows, colPanels,
              [&](OpBuilder &b, Location loc, Value ip, Value i,
                  Value kk) -> Value {
                if (p.pairs)
                  return p.readPair(
                      b, loc, lhsPanels,
                      ValueRange{
                          ip, i,
                          arith::MulIOp::create(b, loc, kk, cst(b, loc, 2))});
                return tensor::ExtractOp::create(b, loc, lhsPanels,
                                                 ValueRange{ip, i, kk});
              },
              prefetchNext);
          return {next, written, lhsPanels};
        };
        std::array<Value, 3> results;
        if (p.rowPanels() <= PackedBlock::kRowBlockPanels) {
          results = rowBlock(b, loc, cst(b, loc, 0), rowsPacked, rows, args[1],
                             args[3], args[2]);
        } else {
          // A visit taller than a row block: the packed rhs block serves
          // each row block in turn.
          Value blockRows = cst(b, loc, p.rowBlockPanels() * p.reg.mr);
          auto rowLoop = scf::ForOp::create(
              b, loc, cst(b, loc, 0), rowsPacked, blockRows,
              ValueRange{args[1], args[3], args[2]},
              [&](OpBuilder &b, Location loc, Value m0, ValueRange in) {
                std::array<Value, 3> next = rowBlock(
                    b, loc, m0,
                    minIdx(b, loc, blockRows,
                           arith::SubIOp::create(b, loc, rowsPacked, m0)),
                    minIdx(b, loc, blockRows,
                           arith::SubIOp::create(b, loc, rows, m0)),
                    in[0], in[1], in[2]);
                scf::YieldOp::create(b, loc, next);
              });
          results = {rowLoop.getResult(0), rowLoop.getResult(1),
                     rowLoop.getResult(2)};
        }
        scf::YieldOp::create(
            b, loc, ValueRange{panels, results[0], results[2], results[1]});
      });
  // Without a contraction block (k = 0) the rows are zero.
  Value computed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                         numK, cst(b, loc, 0));
  return p.finish(b, loc, kLoop.getResult(3), rows, cols,
                  static_cast<bool>(op.getInit()), computed);
}

/// Mode 2 on the CPU: both operands are packed per contraction block of the
/// group's rows (for each index of the other contracting dimensions), the
/// lhs along its free dimension into panels of mr.
Value PackedProgram::contracting(OpBuilder &b, Location loc,
                                 const ContractingVisit &visit) {
  Value batch = visit.batch, kStart = visit.kStart, kEnd = visit.kEnd;
  Value numKc = visit.numKc, rowStart = visit.rowStart, rows = visit.rows;
  Value colStart = visit.colStart, cols = visit.cols, slice = visit.slice;
  const PackedBlock &p = block;
  Value lhs = op.getLhs(), rhs = op.getRhs();
  auto dims = op.getDimensionNumbers();
  bool lhsKMajor = dims.getLhsRaggedDimensions().front() == 1;
  bool rhsKMajor = dims.getRhsContractingDimensions().front() == 1;
  Value c0 = cst(b, loc, 0), c1 = cst(b, loc, 1);
  Value mr = cst(b, loc, p.reg.mr), nr = cst(b, loc, p.reg.nr);
  Value tileK = cst(b, loc, tiles.k);
  Value rowPanels = arith::CeilDivSIOp::create(b, loc, rows, mr);
  Value colPanels = arith::CeilDivSIOp::create(b, loc, cols, nr);
  Value init[] = {p.emptyPanels(b, loc, p.rowPanels(), p.reg.mr),
                  p.emptyPanels(b, loc, p.colPanels(), p.reg.nr),
                  p.emptyAccumulators(b, loc), slice};
  Value lastKc = arith::SubIOp::create(b, loc, numKc, c1);
  auto kcLoop = scf::ForOp::create(
      b, loc, c0, numKc, c1, init,
      [&](OpBuilder &b, Location loc, Value kc, ValueRange outer) {
        auto krLoop = scf::ForOp::create(
            b, loc, kStart, kEnd, tileK, outer,
            [&](OpBuilder &b, Location loc, Value r0, ValueRange args) {
              Value count = minIdx(b, loc, tileK,
                                   arith::SubIOp::create(b, loc, kEnd, r0));
              // Packs `width`-lane panels of an operand stored k-major
              // [B, Kr, Kc, X] or not [B, X, Kr, Kc], from `start` along X;
              // k-major rows are prefetched a few rows ahead (from
              // `buffer`, the operand's).
              auto packOperand = [&](Value packed, Value panels, Value source,
                                     Value buffer, bool kMajor, Value start,
                                     int64_t width) {
                Value lanes = cst(b, loc, width);
                return p.pack(
                    b, loc, packed, count, panels,
                    [&](OpBuilder &b, Location loc, Value kk, Value panel) {
                      Value kr = arith::AddIOp::create(b, loc, r0, kk);
                      Value x = arith::AddIOp::create(
                          b, loc, start,
                          arith::MulIOp::create(b, loc, panel, lanes));
                      if (buffer && kMajor) {
                        Value ahead = minIdx(
                            b, loc,
                            arith::AddIOp::create(
                                b, loc, kr, cst(b, loc, kPackPrefetchRows)),
                            arith::SubIOp::create(b, loc, kEnd, c1));
                        prefetchLanes(b, loc, buffer,
                                      ValueRange{batch, ahead, kc, x}, width);
                      }
                      return kMajor ? p.readLanes(b, loc, source,
                                                  ValueRange{batch, kr, kc, x},
                                                  3, width)
                                    : p.readLanes(b, loc, source,
                                                  ValueRange{batch, x, kr, kc},
                                                  1, width);
                    });
              };
              Value lhsPanels = packOperand(args[0], rowPanels, lhs, lhsBuffer,
                                            lhsKMajor, rowStart, p.reg.mr);
              Value rhsPanels = packOperand(args[1], colPanels, rhs, rhsBuffer,
                                            rhsKMajor, colStart, p.reg.nr);
              Value firstBlock = arith::AndIOp::create(
                  b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kc,
                                        c0),
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r0,
                                        kStart));
              Value lastBlock = arith::AndIOp::create(
                  b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kc,
                                        lastKc),
                  arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::eq, count,
                      arith::SubIOp::create(b, loc, kEnd, r0)));
              auto [acc, written] = p.multiply(
                  b, loc, args[2],
                  Output{args[3], lastBlock, cols,
                         static_cast<bool>(op.getInit())},
                  firstBlock, rhsPanels, count, c0, rows, colPanels,
                  [&](OpBuilder &b, Location loc, Value ip, Value i,
                      Value kk) -> Value {
                    if (p.pairs)
                      return p.readPair(
                          b, loc, lhsPanels,
                          ValueRange{ip, kk,
                                     arith::MulIOp::create(b, loc, i,
                                                           cst(b, loc, 2))});
                    return tensor::ExtractOp::create(b, loc, lhsPanels,
                                                     ValueRange{ip, kk, i});
                  });
              scf::YieldOp::create(
                  b, loc, ValueRange{lhsPanels, rhsPanels, acc, written});
            });
        scf::YieldOp::create(b, loc, krLoop.getResults());
      });
  // A group without rows (or no other contraction index) has a zero slice.
  Value computed = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, kStart, kEnd),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, numKc, c0));
  return p.finish(b, loc, kcLoop.getResult(3), rows, cols,
                  static_cast<bool>(op.getInit()), computed);
}
namespace {

/// Offers the packed program to gmm-tile.
struct PackedVisitPrograms : public CPUVisitProgramInterface {
  using CPUVisitProgramInterface::CPUVisitProgramInterface;

  std::unique_ptr<VisitProgram> build(OpBuilder &b, RaggedDotOp op,
                                      KernelConfigAttr config) const override {
    return std::make_unique<PackedProgram>(b, op, config);
  }
};

} // namespace

void mlir::gmm::registerCPUVisitProgram(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, GMMDialect *dialect) {
    // The packed program builds x86vector ops (bf16 dot); gmm-tile's own
    // dependent dialects cover the rest.
    context->loadDialect<x86vector::X86VectorDialect>();
    if (!dialect->getRegisteredInterface<CPUVisitProgramInterface>())
      dialect->addInterfaces<PackedVisitPrograms>();
  });
}
