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

/// Maps `forall` onto a gpu.launch of its iterations, under an scf.if that
/// skips an empty grid.
LogicalResult mapForall(RewriterBase &rewriter, scf::ForallOp forall) {
  Location loc = forall.getLoc();
  auto config =
      forall->getAttrOfType<gmm::KernelConfigAttr>(gmm::kKernelConfigAttrName);
  if (!config || !config.isGPU())
    return forall.emitOpError("gmm-gpu-map-blocks expects the tile loop to "
                              "carry its GPU '")
           << gmm::kKernelConfigAttrName << "' (gmm-tile puts it there)";
  // The element type is checked with the contraction (gmm-gpu-tile-kernel);
  // what the launch itself depends on is checked here.
  if (!config.isComplete())
    return forall.emitOpError("kernel configuration ")
           << config << " is incomplete (run gmm-configure)";
  if (!forall.isNormalized() || !forall.getOutputs().empty())
    return forall.emitOpError("gmm-gpu-map-blocks expects a normalized, "
                              "bufferized scf.forall");
  int64_t threads =
      config.getWarps()[0] * config.getWarps()[1] * gmm::gpu_shapes::kWarpSize;

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(forall);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // One block per forall iteration, the last forall dimension fastest.
  SmallVector<Value> bounds;
  for (OpFoldResult ub : forall.getMixedUpperBound())
    bounds.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, ub));
  Value grid = bounds.front();
  for (Value ub : ArrayRef<Value>(bounds).drop_front())
    grid = arith::MulIOp::create(rewriter, loc, grid, ub);
  // A forall without iterations (no visit, or an empty dimension) launches
  // nothing: a grid of 0 blocks is not a valid launch. (Found on the
  // simulated GPU: a ragged dot whose rhs holds no local groups.)
  Value launches = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ne, grid, cst(0));
  auto ifLaunches = scf::IfOp::create(rewriter, loc, launches,
                                      /*withElseRegion=*/false);
  rewriter.setInsertionPoint(ifLaunches.thenBlock()->getTerminator());
  Value c1 = cst(1);
  auto launch =
      gpu::LaunchOp::create(rewriter, loc, grid, c1, c1, cst(threads), c1, c1);
  launch->setAttr("gmm.kernel", rewriter.getStringAttr("tile"));
  launch->setAttr(gmm::kKernelConfigAttrName, config);
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPoint(terminator);

  // Delinearize the block id into the forall's induction variables.
  IRMapping mapping;
  Value linear = launch.getBlockIds().x;
  for (int64_t d = bounds.size() - 1; d >= 0; --d) {
    Value iv = d == 0
                   ? linear
                   : arith::RemUIOp::create(rewriter, loc, linear, bounds[d]);
    mapping.map(forall.getInductionVars()[d], iv);
    if (d > 0)
      linear = arith::DivUIOp::create(rewriter, loc, linear, bounds[d]);
  }
  // The forall body, as is: metadata loads, the visit's rows, the guards,
  // the block contraction and its write.
  for (Operation &op : forall.getBody()->without_terminator())
    rewriter.clone(op, mapping);
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
