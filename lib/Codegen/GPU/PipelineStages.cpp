//===- PipelineStages.cpp - software-pipeline the staged k loops ----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-pipeline-stages: each scf.for marked gmm.pipeline_stages = s
// (gmm-gpu-promote-operands's k loop) is split at its first gpu.barrier into a
// copy part (the ops before it: staging step j into stage j mod s) and a
// compute part (the rest), and software-pipelined with upstream's
// scf::pipelineForLoop so that the copies run s - 1 steps ahead of the math.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUPIPELINESTAGES
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// Whether `op` can run under an scf.if: its effects are known and each of
/// its results has a zero for the branch not taken.
bool guardable(Operation *op) {
  if (!getEffectsRecursively(op))
    return false;
  Builder b(op->getContext());
  return llvm::all_of(op->getResultTypes(), [&](Type type) {
    return static_cast<bool>(b.getZeroAttr(type));
  });
}

/// Whether the copy-part op `op` runs unpredicated for a step past the
/// loop's end: group commits and waits (a group of no copies is empty) and
/// ops without memory effects.
bool runsAsIs(Operation *op) {
  return isa<nvgpu::DeviceAsyncCreateGroupOp, nvgpu::DeviceAsyncWaitOp>(op) ||
         isMemoryEffectFree(op);
}

/// Whether the copy-part op `op` can be predicated (see predicate()).
bool predicable(Operation *op) {
  return isa<nvgpu::DeviceAsyncCopyOp>(op) || runsAsIs(op) || guardable(op);
}

/// Runs the copy-part op `op` only where `pred` holds (a step of the loop):
/// an async copy reads nothing (it zero-fills, still completing in its
/// group); runsAsIs() ops run as they are; any other op (loads, stores) runs
/// under an scf.if, its results zero when skipped.
Operation *predicate(RewriterBase &rewriter, Operation *op, Value pred) {
  Location loc = op->getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
    Value elements = copy.getSrcElements();
    if (!elements)
      elements = arith::ConstantIndexOp::create(
          rewriter, loc, copy.getDstElements().getZExtValue());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value selected =
        arith::SelectOp::create(rewriter, loc, pred, elements, zero);
    rewriter.modifyOpInPlace(
        copy, [&] { copy.getSrcElementsMutable().assign(selected); });
    return copy;
  }
  if (runsAsIs(op))
    return op;
  if (!guardable(op))
    return nullptr; // refused before pipelining (predicable())
  bool results = op->getNumResults() > 0;
  auto guarded =
      scf::IfOp::create(rewriter, loc, op->getResultTypes(), pred, results);
  rewriter.setInsertionPointToStart(guarded.thenBlock());
  if (results)
    scf::YieldOp::create(rewriter, loc, op->getResults());
  rewriter.moveOpBefore(op, &guarded.thenBlock()->front());
  if (results) {
    rewriter.setInsertionPointToStart(guarded.elseBlock());
    SmallVector<Value> zeros;
    for (Type type : op->getResultTypes())
      zeros.push_back(arith::ConstantOp::create(
          rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(type))));
    scf::YieldOp::create(rewriter, loc, zeros);
  }
  return guarded;
}

struct PipelineStages
    : public mlir::gmm::impl::GMMGPUPipelineStagesBase<PipelineStages> {
  void runOnOperation() override;
  LogicalResult pipeline(RewriterBase &rewriter, scf::ForOp loop);
};

LogicalResult PipelineStages::pipeline(RewriterBase &rewriter,
                                       scf::ForOp loop) {
  auto stagesAttr =
      loop->getAttrOfType<IntegerAttr>(gmm::kPipelineStagesAttrName);
  // One stage (copies and math in turn) up to the most any kernel stages.
  if (!stagesAttr || stagesAttr.getInt() < 1 ||
      stagesAttr.getInt() > gmm::kMaxStagesOfAnyKernel)
    return loop.emitOpError("gmm-gpu-pipeline-stages expects '")
           << gmm::kPipelineStagesAttrName << "' to be an integer in [1, "
           << gmm::kMaxStagesOfAnyKernel << "]";
  int64_t stages = stagesAttr.getInt();
  Block *body = loop.getBody();
  auto barrier = llvm::find_if(
      *body, [](Operation &op) { return isa<gpu::BarrierOp>(op); });
  if (barrier == body->end())
    return loop.emitOpError("gmm-gpu-pipeline-stages expects a gpu.barrier "
                            "between the loop's copies and its math");
  llvm::SmallPtrSet<Operation *, 32> copyPart;
  for (Operation &op : llvm::make_range(body->begin(), barrier))
    copyPart.insert(&op);

  // Everything is checked before the loop is changed: the pipeliner cannot
  // undo a failed predication.
  int64_t groups = 0;
  for (Operation *op : copyPart) {
    if (!predicable(op))
      return op->emitOpError("gmm-gpu-pipeline-stages cannot run this op of "
                             "the copy part past the loop's last step");
    groups += isa<nvgpu::DeviceAsyncCreateGroupOp>(op);
  }
  // What the compute part uses of the copy part must be recomputable.
  llvm::SmallPtrSet<Operation *, 32> checked;
  std::function<bool(Operation *)> recomputable = [&](Operation *def) {
    if (!copyPart.contains(def) || !checked.insert(def).second)
      return true;
    if (!isMemoryEffectFree(def) || def->getNumRegions())
      return false;
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      Operation *producer = operand.getDefiningOp();
      return !producer || recomputable(producer);
    });
  };
  for (Operation &op : llvm::make_range(barrier, body->end())) {
    WalkResult result = op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp(); def && !recomputable(def))
          return WalkResult(nested->emitOpError(
              "gmm-gpu-pipeline-stages cannot recompute this operand from "
              "the copy part (only pure ops are)"));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }

  if (stages == 1) {
    rewriter.modifyOpInPlace(
        loop, [&] { loop->removeAttr(gmm::kPipelineStagesAttrName); });
    return success();
  }

  // The compute part recomputes what it uses of the copy part (index
  // arithmetic, recomputable() above): each part then only uses its own
  // step's values, and the pipelined loop carries nothing but the
  // accumulators.
  IRMapping mapping;
  std::function<Value(OpBuilder &, Value)> recompute = [&](OpBuilder &b,
                                                           Value v) -> Value {
    if (Value known = mapping.lookupOrNull(v))
      return known;
    Operation *def = v.getDefiningOp();
    if (!def || !copyPart.contains(def))
      return v;
    for (Value operand : def->getOperands())
      (void)recompute(b, operand);
    Operation *clone = b.clone(*def, mapping);
    return clone->getResult(cast<OpResult>(v).getResultNumber());
  };
  OpBuilder afterBarrier(&*barrier);
  afterBarrier.setInsertionPointAfter(&*barrier);
  for (Operation &op : llvm::make_range(barrier, body->end()))
    op.walk([&](Operation *nested) {
      for (OpOperand &use : nested->getOpOperands()) {
        Operation *def = use.get().getDefiningOp();
        if (!def || !copyPart.contains(def))
          continue;
        Value value = recompute(afterBarrier, use.get());
        rewriter.modifyOpInPlace(nested, [&] { use.set(value); });
      }
    });

  scf::PipeliningOption options;
  options.getScheduleFn =
      [&](scf::ForOp forOp,
          std::vector<std::pair<Operation *, unsigned>> &schedule) {
        for (Operation &op : forOp.getBody()->without_terminator())
          schedule.emplace_back(&op, copyPart.contains(&op) ? 0 : stages - 1);
      };
  options.peelEpilogue = false;
  options.supportDynamicLoops = true;
  options.predicateFn = predicate;
  // The copies of step j + stages - 1 are committed when step j is
  // computed: step j's groups are complete once at most the newer
  // (stages - 1) steps' groups are in flight.
  int32_t inFlight = static_cast<int32_t>((stages - 1) * groups);
  // Before the loop at most stages - 1 groups are ever in flight: the
  // prologue's waits are no-ops, erased once the pipeliner is done.
  SmallVector<Operation *> prologueWaits;
  options.annotateFn =
      [&](Operation *op, scf::PipeliningOption::PipelinerPart part, unsigned) {
        auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op);
        if (!wait)
          return;
        if (part == scf::PipeliningOption::PipelinerPart::Prologue)
          prologueWaits.push_back(wait);
        wait.setNumGroupsAttr(
            IntegerAttr::get(IntegerType::get(op->getContext(), 32), inFlight));
      };
  // The prologue and the new loop go where the loop is.
  rewriter.setInsertionPoint(loop);
  FailureOr<scf::ForOp> pipelined =
      scf::pipelineForLoop(rewriter, loop, options);
  if (failed(pipelined))
    return loop.emitOpError("gmm-gpu-pipeline-stages could not pipeline the "
                            "loop into ")
           << stages << " stages";
  for (Operation *wait : prologueWaits)
    rewriter.eraseOp(wait);
  // The pipeliner writes its index arithmetic unfolded (step * 0, ...).
  RewritePatternSet none(rewriter.getContext());
  (void)applyPatternsGreedily((*pipelined)->getParentOp(), std::move(none));
  return success();
}

void PipelineStages::runOnOperation() {
  IRRewriter rewriter(&getContext());
  SmallVector<scf::ForOp> loops;
  getOperation()->walk([&](scf::ForOp loop) {
    if (loop->hasAttr(gmm::kPipelineStagesAttrName))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops)
    if (failed(pipeline(rewriter, loop)))
      return signalPassFailure();
}

} // namespace
