//===- MapBlocks.cpp - tile foralls onto CUDA blocks ----------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-map-blocks: every outermost scf.forall that carries a GPU kernel
// configuration becomes a gpu.launch with one block per iteration and the
// configuration's warps; the forall body is kept as it is (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUMAPBLOCKS
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// The block size of a kernel with one thread per forall iteration.
constexpr int64_t kThreadsPerBlock = 128;

/// The product of `forall`'s upper bounds, and the bounds.
Value iterationCount(OpBuilder &b, Location loc, scf::ForallOp forall,
                     SmallVectorImpl<Value> &bounds) {
  for (OpFoldResult ub : forall.getMixedUpperBound())
    bounds.push_back(getValueOrCreateConstantIndexOp(b, loc, ub));
  Value count = bounds.front();
  for (Value ub : ArrayRef<Value>(bounds).drop_front())
    count = arith::MulIOp::create(b, loc, count, ub);
  return count;
}

/// Maps the linear id `linear` onto `forall`'s induction variables (the last
/// dimension fastest) and clones the forall's body at `b`'s insertion point.
/// With a `raster` band (and two dimensions or more), the last two
/// dimensions (columns c, visits v: C x V) are walked in bands of `raster`
/// visits: band j holds visits [j r, min(j r + r, V)), every column tile of
/// them in turn, its visits fastest; a bijection of [0, C V), as the last
/// band holds the remainder.
void cloneBody(OpBuilder &b, Location loc, scf::ForallOp forall, Value linear,
               ArrayRef<Value> bounds, int64_t raster = 0) {
  IRMapping mapping;
  int64_t last = bounds.size() - 1;
  if (raster > 0 && last >= 1) {
    Value columns = bounds[last - 1], visits = bounds[last];
    Value plane = arith::MulIOp::create(b, loc, columns, visits);
    Value inPlane = arith::RemUIOp::create(b, loc, linear, plane);
    Value r = arith::ConstantIndexOp::create(b, loc, raster);
    Value bandSize = arith::MulIOp::create(b, loc, r, columns);
    Value band = arith::DivUIOp::create(b, loc, inPlane, bandSize);
    Value inBand = arith::RemUIOp::create(b, loc, inPlane, bandSize);
    Value first = arith::MulIOp::create(b, loc, band, r);
    Value width = arith::MinUIOp::create(
        b, loc, r, arith::SubIOp::create(b, loc, visits, first));
    mapping.map(
        forall.getInductionVars()[last],
        arith::AddIOp::create(b, loc, first,
                              arith::RemUIOp::create(b, loc, inBand, width)));
    mapping.map(forall.getInductionVars()[last - 1],
                arith::DivUIOp::create(b, loc, inBand, width));
    last -= 2;
    if (last >= 0)
      linear = arith::DivUIOp::create(b, loc, linear, plane);
  }
  for (int64_t d = last; d >= 0; --d) {
    Value iv =
        d == 0 ? linear : arith::RemUIOp::create(b, loc, linear, bounds[d]);
    mapping.map(forall.getInductionVars()[d], iv);
    if (d > 0)
      linear = arith::DivUIOp::create(b, loc, linear, bounds[d]);
  }
  for (Operation &op : forall.getBody()->without_terminator())
    b.clone(op, mapping);
}

/// Creates, at `b`'s insertion point, a gpu.launch of `grid` x `threads`
/// of `role` (nameLaunch) under an scf.if that skips an empty grid (not a
/// valid launch; found on the simulated GPU: a ragged dot whose rhs holds no
/// local groups), and leaves `b` inside its body.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, Value grid,
                           int64_t threads, StringRef role,
                           gmm::KernelConfigAttr config = {}) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value launches =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, grid, c0);
  auto ifLaunches = scf::IfOp::create(b, loc, launches,
                                      /*withElseRegion=*/false);
  b.setInsertionPoint(ifLaunches.thenBlock()->getTerminator());
  auto launch = gpu::LaunchOp::create(
      b, loc, grid, c1, c1, arith::ConstantIndexOp::create(b, loc, threads), c1,
      c1);
  gmm::nameLaunch(launch, role, config);
  b.setInsertionPointToStart(&launch.getBody().front());
  auto terminator = gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(terminator);
  return launch;
}

/// Maps a `forall` (normalized, bufferized) without a kernel configuration
/// (the group metadata of gmm-materialize-metadata{parallel}) onto a
/// gpu.launch of one thread per iteration.
LogicalResult mapThreadForall(RewriterBase &rewriter, scf::ForallOp forall) {
  Location loc = forall.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(forall);
  SmallVector<Value> bounds;
  Value count = iterationCount(rewriter, loc, forall, bounds);
  Value threads =
      arith::ConstantIndexOp::create(rewriter, loc, kThreadsPerBlock);
  Value grid = arith::CeilDivUIOp::create(rewriter, loc, count, threads);
  gpu::LaunchOp launch =
      createLaunch(rewriter, loc, grid, kThreadsPerBlock, "metadata");
  Value linear = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, launch.getBlockIds().x, threads),
      launch.getThreadIds().x);
  auto inRange = scf::IfOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, linear,
                            count),
      /*withElseRegion=*/false);
  rewriter.setInsertionPoint(inRange.thenBlock()->getTerminator());
  cloneBody(rewriter, loc, forall, linear, bounds);
  rewriter.eraseOp(forall);
  return success();
}

/// Maps `forall` onto a gpu.launch of its iterations, under an scf.if that
/// skips an empty grid.
LogicalResult mapForall(RewriterBase &rewriter, scf::ForallOp forall) {
  Location loc = forall.getLoc();
  if (!forall.isNormalized() || !forall.getOutputs().empty())
    return forall.emitOpError("gmm-gpu-map-blocks expects a normalized, "
                              "bufferized scf.forall");
  auto config =
      forall->getAttrOfType<gmm::KernelConfigAttr>(gmm::kKernelConfigAttrName);
  if (!config)
    return mapThreadForall(rewriter, forall);
  if (!config.isGPU())
    return forall.emitOpError("gmm-gpu-map-blocks expects a GPU kernel "
                              "configuration, not ")
           << config;
  // The dialect's verifier checked a complete configuration's bounds
  // (KernelConfigRules.h); the element type is checked with the
  // contraction (gmm-gpu-promote-operands).
  if (failed(gmm::verifyComplete(config, [&] { return forall.emitOpError(); })))
    return failure();
  int64_t threads = gmm::gpu_shapes::threadsPerBlock(config.getWarps()[0],
                                                     config.getWarps()[1]);

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(forall);
  // One block per forall iteration, the last forall dimension fastest (in
  // bands of the configuration's raster, where it has one).
  SmallVector<Value> bounds;
  Value grid = iterationCount(rewriter, loc, forall, bounds);
  gpu::LaunchOp launch =
      createLaunch(rewriter, loc, grid, threads, "tile", config);
  launch->setAttr(gmm::kKernelConfigAttrName, config);
  // The forall body, as is: metadata loads, the visit's rows, the guards,
  // the block contraction and its write.
  cloneBody(rewriter, loc, forall, launch.getBlockIds().x, bounds,
            config.getRaster());
  rewriter.eraseOp(forall);
  return success();
}

struct MapBlocks : public mlir::gmm::impl::GMMGPUMapBlocksBase<MapBlocks> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<scf::ForallOp> foralls;
    getOperation().walk([&](scf::ForallOp op) {
      if (!op->getParentOfType<scf::ForallOp>())
        foralls.push_back(op);
    });
    for (scf::ForallOp forall : foralls)
      if (failed(mapForall(rewriter, forall)))
        return signalPassFailure();
  }
};

} // namespace
