//===- PartitionHost.cpp - keep the host away from device memory ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-partition-host: host allocations, copies and fills become gpu
// ops, every other run of memory-touching host ops a single-thread kernel;
// scalars such kernels compute for later ones go through one-element device
// buffers (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUPARTITIONHOST
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

struct PartitionHost
    : public mlir::gmm::impl::GMMGPUPartitionHostBase<PartitionHost> {
  void runOnOperation() override;

  LogicalResult convertHostMemory(RewriterBase &rewriter, func::FuncOp func);
  LogicalResult partitionHost(RewriterBase &rewriter, Block &block);
  LogicalResult reloadSpills(RewriterBase &rewriter);

  /// Scalars computed by a serial kernel for later kernels: the value, its
  /// one-element device buffer and the kernel that stores it.
  SmallVector<std::tuple<Value, Value, gpu::LaunchOp>> spills;
};

/// Whether `op` may stay on the host: it touches no memory (views and dims
/// are fine) and holds nothing that does.
bool isHostPure(Operation *op) {
  if (isa<memref::DimOp, memref::ExtractStridedMetadataOp>(op))
    return true;
  if (!isMemoryEffectFree(op))
    return false;
  bool pure = true;
  op->walk([&](Operation *nested) {
    if (nested != op && !isMemoryEffectFree(nested) &&
        !isa<memref::DimOp>(nested))
      pure = false;
  });
  return pure;
}

/// Whether `op` holds work that must stay under host control: a launch, or
/// a device allocation, copy or fill.
bool holdsHostWork(Operation *op) {
  bool found = false;
  op->walk([&](Operation *nested) {
    if (isa<gpu::LaunchOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
            gpu::MemsetOp, gpu::WaitOp>(nested))
      found = true;
  });
  return found;
}

// Host-side gpu ops are made synchronous here; gmm-gpu-async-host later puts
// every one of a function on one stream, in program order.

/// A device buffer of `type`.
gpu::AllocOp allocOnDevice(OpBuilder &b, Location loc, MemRefType type,
                           ValueRange dynamicSizes = {}) {
  return gpu::AllocOp::create(b, loc, type, Type(), ValueRange{}, dynamicSizes,
                              ValueRange{},
                              /*hostShared=*/false);
}

/// Frees the device buffer `memref`.
void freeOnDevice(OpBuilder &b, Location loc, Value memref) {
  gpu::DeallocOp::create(b, loc, Type(), ValueRange{}, memref);
}

LogicalResult PartitionHost::convertHostMemory(RewriterBase &rewriter,
                                               func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (op->getParentOfType<gpu::LaunchOp>())
      return;
    if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
            memref::CopyOp, linalg::FillOp, memref::GetGlobalOp>(op))
      ops.push_back(op);
  });
  SmallVector<gpu::AllocOp> allocs;
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (type.getMemorySpace())
        return op->emitOpError(
            "gmm-gpu-partition-host: unexpected memory space");
      auto alloc = allocOnDevice(rewriter, loc, type, op->getOperands());
      rewriter.replaceOp(op, alloc.getMemref());
      allocs.push_back(alloc);
      continue;
    }
    if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
      // Constants live in host memory: kernels get a device copy.
      auto type = cast<MemRefType>(global.getType());
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return op->emitOpError("gmm-gpu-partition-host: unsupported global");
      rewriter.setInsertionPointAfter(op);
      auto alloc = allocOnDevice(rewriter, loc, type);
      auto copy = gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange{},
                                        alloc.getMemref(), global.getResult());
      rewriter.replaceAllUsesExcept(global.getResult(), alloc.getMemref(),
                                    copy);
      allocs.push_back(alloc);
      continue;
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      freeOnDevice(rewriter, loc, dealloc.getMemref());
      rewriter.eraseOp(op);
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      auto source = cast<MemRefType>(copy.getSource().getType());
      auto target = cast<MemRefType>(copy.getTarget().getType());
      // The driver copies contiguous buffers; strided copies run in a
      // kernel (left to the partitioning).
      if (!source.getLayout().isIdentity() || !target.getLayout().isIdentity())
        continue;
      gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange{},
                            copy.getTarget(), copy.getSource());
      rewriter.eraseOp(op);
      continue;
    }
    auto fill = cast<linalg::FillOp>(op);
    if (!fill.hasPureBufferSemantics() || fill.getOutputs().size() != 1)
      continue;
    Value target = fill.getOutputs().front();
    auto type = cast<MemRefType>(target.getType());
    Type element = type.getElementType();
    unsigned width =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
    if (!type.getLayout().isIdentity() || (width != 16 && width != 32))
      continue;
    gpu::MemsetOp::create(rewriter, loc, Type(), ValueRange{}, target,
                          fill.getInputs().front());
    rewriter.eraseOp(op);
  }

  // Free what does not leave the function, at the end of its block. A
  // buffer is followed through every value that may be it (views, casts,
  // selects, loop and branch results): one that reaches the function's
  // return is the caller's, and one that is handed out of the block it was
  // allocated in, other than the function's own, cannot be freed there.
  Block *entry = &func.getBody().front();
  for (gpu::AllocOp alloc : allocs) {
    Block *block = alloc->getBlock();
    SmallVector<Value> worklist = {alloc.getMemref()};
    llvm::SmallPtrSet<Value, 8> seen;
    bool returned = false, leavesBlock = false, freed = false;
    auto follow = [&](ValueRange values) {
      for (Value r : values)
        if (isa<MemRefType>(r.getType()) && seen.insert(r).second)
          worklist.push_back(r);
    };
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (isa<gpu::DeallocOp>(user))
          freed = true;
        if (isa<func::ReturnOp>(user)) {
          returned = true;
          continue;
        }
        if (user->hasTrait<OpTrait::IsTerminator>()) {
          if (isa<gpu::TerminatorOp>(user))
            continue;
          Operation *parent = user->getParentOp();
          if (!block->findAncestorOpInBlock(*parent))
            leavesBlock = true;
          // Whatever the terminator hands the buffer to: the parent's
          // results and its regions' arguments (the next iteration of an
          // scf.while or scf.for, the other region of an scf.while).
          follow(parent->getResults());
          for (Region &region : parent->getRegions())
            for (Block &nested : region)
              follow(nested.getArguments());
          continue;
        }
        // Whatever the buffer becomes: views, casts, selects, loop results
        // and iteration arguments.
        follow(user->getResults());
        if (auto loop = dyn_cast<LoopLikeOpInterface>(user))
          for (BlockArgument arg : loop.getRegionIterArgs())
            if (loop.getTiedLoopInit(arg) == &use)
              follow(arg);
      }
    }
    if (leavesBlock && block != entry)
      return alloc.emitOpError("gmm-gpu-partition-host: a buffer allocated "
                               "in a loop or branch leaves it");
    if (freed || returned)
      continue;
    rewriter.setInsertionPoint(block->getTerminator());
    freeOnDevice(rewriter, alloc.getLoc(), alloc.getMemref());
  }
  return success();
}

/// Moves runs of memory-touching host ops into single-thread kernels.
/// Scalars such a kernel computes for later kernels go through one-element
/// device buffers.
LogicalResult PartitionHost::partitionHost(RewriterBase &rewriter,
                                           Block &block) {
  SmallVector<Operation *> run;
  auto flush = [&]() -> LogicalResult {
    if (run.empty())
      return success();
    Location loc = run.front()->getLoc();
    llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
    // Pure host ops between the run's ops stay where they are, so the
    // kernel goes after the run's last op.
    rewriter.setInsertionPointAfter(run.back());
    SmallVector<std::pair<Value, Value>> spilled;
    for (Operation *op : run)
      for (Value result : op->getResults()) {
        bool usedOutside = llvm::any_of(result.getUsers(), [&](Operation *u) {
          Operation *ancestor = block.findAncestorOpInBlock(*u);
          return !ancestor || !inRun.contains(ancestor);
        });
        if (!usedOutside)
          continue;
        Type type = result.getType();
        if (!type.isIntOrIndexOrFloat())
          return op->emitOpError("gmm-gpu-partition-host: a value of type ")
                 << type << " computed on the device is used on the host";
        spilled.push_back(
            {result, allocOnDevice(rewriter, loc, MemRefType::get({1}, type))
                         .getMemref()});
      }
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto launch = gpu::LaunchOp::create(rewriter, loc, c1, c1, c1, c1, c1, c1);
    gmm::nameLaunch(launch, "serial");
    Block &body = launch.getBody().front();
    rewriter.setInsertionPointToStart(&body);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    for (Operation *op : run)
      op->moveBefore(terminator);
    rewriter.setInsertionPoint(terminator);
    Value c0 = spilled.empty()
                   ? Value()
                   : arith::ConstantIndexOp::create(rewriter, loc, 0);
    for (auto [value, buffer] : spilled) {
      memref::StoreOp::create(rewriter, loc, value, buffer, ValueRange{c0});
      spills.push_back({value, buffer, launch});
      // Free the buffer at the end of the block.
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(block.getTerminator());
      freeOnDevice(rewriter, loc, buffer);
    }
    run.clear();
    return success();
  };

  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : ops) {
    if (op->hasTrait<OpTrait::IsTerminator>()) {
      if (failed(flush()))
        return failure();
      continue;
    }
    // Calls stay on the host: the callee is mapped on its own and takes
    // device buffers like any entry function.
    // A tensor map reads the buffer's address and shape, not its data.
    if (isa<gpu::LaunchOp>(op) ||
        isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp, gpu::MemsetOp,
            gpu::WaitOp, func::CallOp, nvgpu::TmaCreateDescriptorOp>(op)) {
      if (failed(flush()))
        return failure();
      continue;
    }
    // Pure ops that consume a value computed on the device (in the current
    // run or an earlier kernel) run on the device too.
    bool feedsFromRun = llvm::any_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && (llvm::is_contained(run, def) ||
                     def->getParentOfType<gpu::LaunchOp>());
    });
    if (isHostPure(op) && !feedsFromRun)
      continue;
    // A run-time check of host values (gmm-check-sizes' cf.assert on buffer
    // sizes) stays on the host, where it fails before any kernel runs.
    if (isa<cf::AssertOp>(op) && !feedsFromRun)
      continue;
    if (op->getNumRegions() && holdsHostWork(op)) {
      if (failed(flush()))
        return failure();
      for (Region &region : op->getRegions())
        for (Block &nested : region)
          if (failed(partitionHost(rewriter, nested)))
            return failure();
      continue;
    }
    run.push_back(op);
  }
  return flush();
}

/// Later kernels read spilled scalars from their buffers.
LogicalResult PartitionHost::reloadSpills(RewriterBase &rewriter) {
  for (auto [value, buffer, producer] : spills) {
    DenseMap<Operation *, Value> loaded;
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : value.getUses())
      if (!producer->isAncestor(use.getOwner()))
        uses.push_back(&use);
    for (OpOperand *use : uses) {
      auto user = use->getOwner()->getParentOfType<gpu::LaunchOp>();
      if (!user)
        return use->getOwner()->emitOpError(
            "gmm-gpu-partition-host: uses a value computed on the device on "
            "the "
            "host");
      Value &load = loaded[user];
      if (!load) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(&user.getBody().front());
        Location loc = user.getLoc();
        load = memref::LoadOp::create(
            rewriter, loc, buffer,
            ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 0)});
      }
      use->set(load);
    }
  }
  spills.clear();
  return success();
}

void PartitionHost::runOnOperation() {
  ModuleOp module = getOperation();
  IRRewriter rewriter(&getContext());
  bool any = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    // Kernels and frees are placed by structured control flow (the
    // pipeline runs this before any lowering to cf): every host region is
    // one block.
    Operation *unstructured = nullptr;
    func->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      for (Region &region : op->getRegions())
        if (!region.empty() && !region.hasOneBlock()) {
          unstructured = op;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (unstructured) {
      unstructured->emitOpError("gmm-gpu-partition-host expects host "
                                "regions of one block (structured control "
                                "flow)");
      return signalPassFailure();
    }
    if (failed(convertHostMemory(rewriter, func)) ||
        failed(partitionHost(rewriter, func.getBody().front())) ||
        failed(reloadSpills(rewriter)))
      return signalPassFailure();
    any = true;
  }
  if (any)
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
}

} // namespace
