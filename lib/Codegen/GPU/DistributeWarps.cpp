//===- DistributeWarps.cpp - the warps' share of each tile kernel ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-distribute-warps, the last of the three passes that build a tile
// kernel: the block-level math of the staged contraction loop becomes each
// warp's mma fragments (16-bit inputs) or each lane's FMA outer products
// (f32). See the pass description in include/gmm/Codegen/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Dialect/GMM/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUDISTRIBUTEWARPS
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using mlir::gmm::buildMatmulContraction;

namespace {

using namespace mlir::gmm::kernel_index;
using namespace mlir::gmm::gpu_shapes;
// NVGPUDialect.h declares a kWarpSize of its own.
using mlir::gmm::gpu_shapes::kWarpSize;

constexpr StringLiteral kPass = "gmm-gpu-distribute-warps";

/// A staged operand of the block contraction: its stages' workgroup view,
/// stored [rows][cols] or, transposed, [cols][rows].
struct StagedView {
  Value view;
  bool transposed = false;
};

/// The epilogue's staging of warp row `phase` of the block: `write` of a
/// slice of the loop's result (or of the whole result, with one warp row)
/// into the workgroup buffer.
struct Staging {
  int64_t phase = 0;
  vector::ExtractStridedSliceOp slice;
  vector::TransferWriteOp write;
};

/// Everything gmm-gpu-distribute-warps needs to know about one tile kernel.
struct WarpProgram {
  gpu::LaunchOp launch;
  scf::ForOp loop;
  vector::ContractionOp contract;
  StagedView lhs, rhs;
  Value stage; // the stage the contraction reads, in the loop
  SmallVector<Staging> stagings;
  int64_t tileM = 0, tileN = 0, tileK = 0, warpsM = 0, warpsN = 0;
  bool mma = false;
};

/// `v` is a readStagedBlock read of a whole stage, [rows, cols], at stage
/// index `stage` (or the same stage as `stage` when it is set).
LogicalResult matchStagedRead(Value v, int64_t rows, int64_t cols,
                              StagedView &operand, Value &stage) {
  auto read = v.getDefiningOp<vector::TransferReadOp>();
  std::optional<bool> transposed =
      gmm::stagedBlockTransposed(read.getOperation());
  if (!transposed ||
      read.getVectorType().getShape() != ArrayRef<int64_t>{rows, cols})
    return failure();
  ValueRange indices = read.getIndices();
  if (!matchPattern(indices[1], m_Zero()) ||
      !matchPattern(indices[2], m_Zero()) || (stage && indices[0] != stage))
    return failure();
  stage = indices[0];
  operand.view = read.getBase();
  operand.transposed = *transposed;
  return success();
}

LogicalResult analyze(gpu::LaunchOp launch, WarpProgram &program) {
  program.launch = launch;
  FailureOr<gmm::KernelConfigAttr> config =
      gmm::getLaunchKernelConfig(launch, kPass);
  if (failed(config))
    return failure();
  program.tileM = config->getTileM();
  program.tileN = config->getTileN();
  program.tileK = config->getTileK();
  program.warpsM = config->getWarps()[0];
  program.warpsN = config->getWarps()[1];
  FailureOr<scf::ForOp> loop =
      gmm::getStagedLoop(launch, program.tileM, program.tileN, kPass);
  if (failed(loop))
    return failure();
  program.loop = *loop;
  auto refuse = [&](Operation *op, const Twine &what) {
    return op->emitOpError(kPass) << " expects " << what;
  };
  if (!matchPattern(loop->getInitArgs().front(), m_AnyZeroFloat()))
    return refuse(*loop, "the staged loop's block to start from zero");
  // The block contraction of the stage, the accumulator's only use.
  Value acc = loop->getRegionIterArgs().front();
  auto contract = loop->getBody()
                      ->getTerminator()
                      ->getOperand(0)
                      .getDefiningOp<vector::ContractionOp>();
  MLIRContext *ctx = launch.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> expected = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {k, n}, {m, n}}, ctx);
  if (!contract || contract->getParentOp() != loop->getOperation() ||
      contract.getAcc() != acc || !acc.hasOneUse() ||
      contract.getKind() != vector::CombiningKind::ADD ||
      contract.getIndexingMapsArray() != expected)
    return refuse(*loop, "the staged loop to accumulate one (m, k) x (k, n) "
                         "-> (m, n) vector.contract of the stages");
  program.contract = contract;
  if (failed(matchStagedRead(contract.getLhs(), program.tileM, program.tileK,
                             program.lhs, program.stage)) ||
      failed(matchStagedRead(contract.getRhs(), program.tileK, program.tileN,
                             program.rhs, program.stage)))
    return refuse(contract, "its operands to be whole stages read from the "
                            "workgroup views of one stage");
  // vector.contract's verifier makes both operands one element type.
  Type elementType =
      cast<MemRefType>(program.lhs.view.getType()).getElementType();
  if (failed(gmm::verifyKernelConfig(*config, elementType,
                                     gmm::kMaxSharedBytesPerBlock,
                                     [&] { return launch.emitOpError(); })))
    return failure();
  program.mma = elementType.getIntOrFloatBitWidth() == 16;

  // The epilogue's stagings: warp rows of the block into shared memory.
  int64_t wtm = program.tileM / program.warpsM;
  for (Operation *user : loop->getResult(0).getUsers()) {
    // A slice of the block, or the whole block (one warp row).
    auto slice = dyn_cast<vector::ExtractStridedSliceOp>(user);
    auto write = dyn_cast<vector::TransferWriteOp>(user);
    SmallVector<int64_t> offsets = {0, 0},
                         sizes = {program.tileM, program.tileN};
    if (slice) {
      offsets.clear();
      sizes.clear();
      for (Attribute a : slice.getOffsets())
        offsets.push_back(cast<IntegerAttr>(a).getInt());
      for (Attribute a : slice.getSizes())
        sizes.push_back(cast<IntegerAttr>(a).getInt());
      write = slice->hasOneUse()
                  ? dyn_cast<vector::TransferWriteOp>(*slice->user_begin())
                  : vector::TransferWriteOp();
    }
    Value staged = slice ? slice.getResult() : loop->getResult(0);
    auto target =
        write ? dyn_cast<MemRefType>(write.getBase().getType()) : MemRefType();
    if (!write || write.getVector() != staged || !target ||
        !gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(target) ||
        target.getRank() != 2 || write.getMask() ||
        !write.getPermutationMap().isMinorIdentity() ||
        sizes != ArrayRef<int64_t>{wtm, program.tileN} || offsets[1] != 0 ||
        offsets[0] % wtm)
      return refuse(user, "the staged block to be used by the epilogue's "
                          "writes of whole warp rows into shared memory "
                          "(gmm-gpu-stage-epilogue)");
    program.stagings.push_back({offsets[0] / wtm, slice, write});
  }
  // Each warp row staged once (written in that order).
  llvm::sort(program.stagings, [](const Staging &x, const Staging &y) {
    return x.phase < y.phase;
  });
  bool complete =
      static_cast<int64_t>(program.stagings.size()) == program.warpsM;
  for (auto [phase, staging] : llvm::enumerate(program.stagings))
    complete &= staging.phase == static_cast<int64_t>(phase);
  if (!complete)
    return refuse(*loop, "its block to be staged by the epilogue one warp row "
                         "at a time, each once (gmm-gpu-stage-epilogue)");
  return success();
}

/// Builds the warps' share of one tile kernel.
struct WarpBuilder {
  WarpProgram &program;
  Location loc;
  Value lane, warpM, warpN;

  int64_t warpTileM() const { return program.tileM / program.warpsM; }
  int64_t warpTileN() const { return program.tileN / program.warpsN; }

  /// The accumulators a warp (mma) or lane (FMA) keeps in registers.
  SmallVector<Value> zeroAccumulators(OpBuilder &b) {
    SmallVector<Value> accs;
    Type f32 = b.getF32Type();
    if (program.mma) {
      auto type = VectorType::get({kMmaM, kMmaN}, f32);
      for (int64_t i = 0; i < warpTileM() / kMmaM * (warpTileN() / kMmaN); ++i)
        accs.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(type)));
      return accs;
    }
    auto type = VectorType::get(
        {warpTileM() / kLaneRows, warpTileN() / kLaneCols}, f32);
    accs.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(type)));
    return accs;
  }

  /// One k step of the warp's math on stage `s`.
  SmallVector<Value> compute(OpBuilder &b, Value s, ValueRange accs) {
    SmallVector<Value> next(accs.begin(), accs.end());
    Value rowBase = mul(b, loc, warpM, warpTileM());
    Value colBase = mul(b, loc, warpN, warpTileN());
    const StagedView &lhs = program.lhs, &rhs = program.rhs;
    if (program.mma) {
      int64_t fm = warpTileM() / kMmaM, fn = warpTileN() / kMmaN;
      for (int64_t kk = 0; kk < program.tileK / kMmaK; ++kk) {
        Value k = cst(b, loc, kk * kMmaK);
        SmallVector<Value> a, w;
        for (int64_t i = 0; i < fm; ++i)
          a.push_back(gmm::readStagedBlock(b, loc, lhs.view, lhs.transposed, s,
                                           addConst(b, loc, rowBase, i * kMmaM),
                                           k, kMmaM, kMmaK));
        for (int64_t j = 0; j < fn; ++j)
          w.push_back(gmm::readStagedBlock(
              b, loc, rhs.view, rhs.transposed, s, k,
              addConst(b, loc, colBase, j * kMmaN), kMmaK, kMmaN));
        for (int64_t i = 0; i < fm; ++i)
          for (int64_t j = 0; j < fn; ++j)
            next[i * fn + j] =
                buildMatmulContraction(b, loc, a[i], w[j], next[i * fn + j]);
      }
      return next;
    }
    int64_t rows = warpTileM() / kLaneRows, cols = warpTileN() / kLaneCols;
    Value laneRow = divConst(b, loc, lane, kLaneCols);
    Value laneCol = remConst(b, loc, lane, kLaneCols);
    Value r0 = add(b, loc, rowBase, mul(b, loc, laneRow, rows));
    Value c0 = add(b, loc, colBase, mul(b, loc, laneCol, cols));
    for (int64_t kk = 0; kk < program.tileK; ++kk) {
      Value k = cst(b, loc, kk);
      // Column kk of the lane's lhs rows and row kk of its rhs columns;
      // one FMA per accumulator element.
      Value a = loadLine(b, lhs, s, k, r0, rows, /*alongRows=*/true);
      Value w = loadLine(b, rhs, s, k, c0, cols, /*alongRows=*/false);
      next[0] = vector::OuterProductOp::create(b, loc, next[0].getType(), a, w,
                                               next[0]);
    }
    return next;
  }

  /// Loads `count` staged elements of operand `op` at contraction index `k`,
  /// starting at `start` along its non-contraction vector dim (rows for the
  /// lhs, columns for the rhs): one vector load when that dim is the stored
  /// inner dim, element loads otherwise.
  Value loadLine(OpBuilder &b, const StagedView &op, Value s, Value k,
                 Value start, int64_t count, bool alongRows) {
    Value view = op.view;
    Type elementType = cast<MemRefType>(view.getType()).getElementType();
    // The stored layout is [rows][cols], or [cols][rows] when transposed.
    bool lineIsInner = alongRows == op.transposed;
    auto type = VectorType::get({count}, elementType);
    if (lineIsInner)
      return vector::LoadOp::create(b, loc, type, view,
                                    ValueRange{s, k, start});
    SmallVector<Value> elements;
    for (int64_t e = 0; e < count; ++e)
      elements.push_back(memref::LoadOp::create(
          b, loc, view, ValueRange{s, addConst(b, loc, start, e), k}));
    return vector::FromElementsOp::create(b, loc, type, elements);
  }

  /// The staged loop again, carrying the warp's (lane's) accumulators.
  scf::ForOp buildLoop(OpBuilder &b) {
    scf::ForOp old = program.loop;
    auto loop = scf::ForOp::create(
        b, loc, old.getLowerBound(), old.getUpperBound(), old.getStep(),
        zeroAccumulators(b),
        [&](OpBuilder &b, Location, Value iv, ValueRange accs) {
          IRMapping mapping;
          mapping.map(old.getInductionVar(), iv);
          SmallVector<Value> next;
          for (Operation &op : old.getBody()->without_terminator()) {
            if (&op == program.contract.getOperation()) {
              next = compute(b, mapping.lookupOrDefault(program.stage), accs);
              continue;
            }
            b.clone(op, mapping);
          }
          scf::YieldOp::create(b, loc, next);
        });
    loop->setDiscardableAttrs(old->getDiscardableAttrDictionary());
    return loop;
  }

  /// The warps of warp row `phase` write their accumulators where the
  /// block's rows of that warp row are staged.
  void writeFragments(OpBuilder &b, Staging staging, ValueRange accs,
                      Value colBase) {
    Value out = staging.write.getBase();
    Value row0 = staging.write.getIndices()[0];
    Value col0 = add(b, loc, staging.write.getIndices()[1], colBase);
    scf::IfOp::create(
        b, loc,
        cmp(b, loc, arith::CmpIPredicate::eq, warpM,
            cst(b, loc, staging.phase)),
        [&](OpBuilder &b, Location loc) {
          if (program.mma) {
            int64_t fn = warpTileN() / kMmaN;
            for (auto [index, acc] : llvm::enumerate(accs)) {
              int64_t i = index / fn, j = index % fn;
              vector::TransferWriteOp::create(
                  b, loc, acc, out,
                  ValueRange{addConst(b, loc, row0, i * kMmaM),
                             addConst(b, loc, col0, j * kMmaN)},
                  ArrayRef<bool>{true, true});
            }
          } else {
            int64_t rows = warpTileM() / kLaneRows,
                    cols = warpTileN() / kLaneCols;
            Value laneRow = divConst(b, loc, lane, kLaneCols);
            Value laneCol = remConst(b, loc, lane, kLaneCols);
            vector::TransferWriteOp::create(
                b, loc, accs[0], out,
                ValueRange{add(b, loc, row0, mul(b, loc, laneRow, rows)),
                           add(b, loc, col0, mul(b, loc, laneCol, cols))},
                ArrayRef<bool>{true, true});
          }
          scf::YieldOp::create(b, loc);
        });
  }
};

void build(RewriterBase &rewriter, WarpProgram &program) {
  gpu::LaunchOp launch = program.launch;
  Location loc = launch.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  WarpBuilder wb{program, loc, Value(), Value(), Value()};
  // Warp coordinates, at the start of the kernel (after its dynamic shared
  // memory, if any).
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  for (auto op : body.getOps<gpu::DynamicSharedMemoryOp>())
    rewriter.setInsertionPointAfter(op);
  Value tid = launch.getThreadIds().x;
  Value warp = divConst(rewriter, loc, tid, kWarpSize);
  wb.lane = remConst(rewriter, loc, tid, kWarpSize);
  wb.warpM = divConst(rewriter, loc, warp, program.warpsN);
  wb.warpN = remConst(rewriter, loc, warp, program.warpsN);

  rewriter.setInsertionPoint(program.loop);
  scf::ForOp loop = wb.buildLoop(rewriter);
  if (!program.stagings.empty()) {
    rewriter.setInsertionPoint(program.stagings.front().write);
    Value colBase = mul(rewriter, loc, wb.warpN, wb.warpTileN());
    for (Staging &staging : program.stagings) {
      rewriter.setInsertionPoint(staging.write);
      wb.writeFragments(rewriter, staging, loop.getResults(), colBase);
      rewriter.eraseOp(staging.write);
      if (staging.slice)
        rewriter.eraseOp(staging.slice);
    }
  }
  // The block-level loop and what fed only it go.
  Operation *old = program.loop;
  gmm::eraseDeadOps(rewriter, launch, [&](Operation *op) {
    return op == old || isa<vector::TransferReadOp>(op) ||
           isMemoryEffectFree(op);
  });
  // The configuration is spent: the kernel is built.
  rewriter.modifyOpInPlace(
      launch, [&] { launch->removeAttr(gmm::kKernelConfigAttrName); });
  gmm::foldKernel(launch);
}

struct DistributeWarps
    : public mlir::gmm::impl::GMMGPUDistributeWarpsBase<DistributeWarps> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : gmm::tileKernelsInProgress(getOperation())) {
      WarpProgram program;
      if (failed(analyze(launch, program)))
        return signalPassFailure();
      build(rewriter, program);
    }
  }
};

} // namespace
