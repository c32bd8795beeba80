//===- VectorToMmaSync.cpp - warp contractions to ldmatrix and mma.sync --===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-vector-to-mma-sync: upstream's vector-to-nvgpu conversion of the
// 16-bit warp contractions of each gpu.launch (see the pass description in
// include/gmm/Codegen/GPU/Passes.td), with three MLIR 22 gaps around it
// filled here, each an upstream workaround to delete on the LLVM upgrade
// that closes its gap:
// - bf16 fragments, the f16 stand-ins (presentBF16AsF16 / restoreBF16):
//   nvgpu::getMmaSyncRegisterType (mlir/lib/Dialect/NVGPU/Utils/
//   MMAUtils.cpp) knows f16 but not bf16. No upstream change for it was
//   found; llvm/llvm-project#194203 adds bf16 to convert-nvgpu-to-nvvm only
//   (see LowerBF16MmaSync.cpp).
// - scalar index arithmetic taken for matrix ops (hideIndexArith): the
//   conversion takes every arith op with an mma counterpart under its root
//   for a matrix op. Deletable once it leaves scalars alone.
// - the register order of a transposed A operand
//   (reorderTransposedMatrixALoads): its ldmatrix.x4.trans delivers the
//   blocks k-major. Deletable once upstream orders them for mma.sync, which
//   the transposed-lhs differential runs on the simulated GPU would show.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Index/IR/IndexOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUVECTORTOMMASYNC
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// MLIR 22's vector-to-nvgpu conversion reads a transposed 16x16 A operand
/// (stored k-major, as a mode-2 lhs [k, m] is) with one ldmatrix.x4.trans
/// whose lane addresses (nvgpu::getLaneIdToLdMatrixMatrixCoord) walk the
/// four 8x8 blocks k-major: its registers hold A's (rows 0-7, k 0-7),
/// (rows 0-7, k 8-15), (rows 8-15, k 0-7), (rows 8-15, k 8-15), where
/// mma.sync's A fragment wants rows 0-7 / 8-15 of k 0-7 first. Swapping the
/// middle two registers gives mma.sync what it needs. (Found by running the
/// kernels on the simulated GPU: rows 8-15 of every warp tile of a
/// transposed-lhs bf16/f16 ragged dot came out wrong.) A transposed B
/// (x2.trans) is already in order.
void reorderTransposedMatrixALoads(RewriterBase &rewriter, Operation *root) {
  SmallVector<nvgpu::LdMatrixOp> loads;
  root->walk([&](nvgpu::LdMatrixOp op) {
    if (!op.getTranspose() || op.getNumTiles() != 4)
      return;
    bool feedsMatrixA = llvm::any_of(op->getUsers(), [&](Operation *user) {
      auto mma = dyn_cast<nvgpu::MmaSyncOp>(user);
      return mma && mma.getMatrixA() == op.getResult();
    });
    if (feedsMatrixA)
      loads.push_back(op);
  });
  for (nvgpu::LdMatrixOp op : loads) {
    rewriter.setInsertionPointAfter(op);
    Value fragment = op.getResult();
    Value reordered =
        vector::ShuffleOp::create(rewriter, op.getLoc(), fragment, fragment,
                                  ArrayRef<int64_t>{0, 2, 1, 3});
    rewriter.replaceAllUsesExcept(fragment, reordered,
                                  reordered.getDefiningOp());
  }
}

/// MLIR 22's vector-to-nvgpu conversion takes every arith op that has an
/// mma elementwise counterpart (addi, subi, muli, divui, ...) under its root
/// for a matrix op, scalars included, and then fails on them. The index
/// computations under the root use the index dialect instead, which means
/// the same and lowers the same.
void hideIndexArith(RewriterBase &rewriter, Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (op->getNumResults() == 1 && op->getResult(0).getType().isIndex() &&
        isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivUIOp,
            arith::DivSIOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    Value x = op->getOperand(0), y = op->getOperand(1);
    Location loc = op->getLoc();
    Value r = TypeSwitch<Operation *, Value>(op)
                  .Case([&](arith::AddIOp) {
                    return index::AddOp::create(rewriter, loc, x, y);
                  })
                  .Case([&](arith::SubIOp) {
                    return index::SubOp::create(rewriter, loc, x, y);
                  })
                  .Case([&](arith::MulIOp) {
                    return index::MulOp::create(rewriter, loc, x, y);
                  })
                  .Case([&](arith::DivUIOp) {
                    return index::DivUOp::create(rewriter, loc, x, y);
                  })
                  .Default([&](Operation *) {
                    return index::DivSOp::create(rewriter, loc, x, y);
                  });
    rewriter.replaceOp(op, r);
  }
}

/// The attribute that marks the f16 twin of a bf16 workgroup view while
/// the vector-to-nvgpu conversion runs.
constexpr StringLiteral kTwinAttrName = "gmm.bf16_twin";

/// MLIR 22's vector-to-nvgpu conversion sizes every fragment with
/// nvgpu::getMmaSyncRegisterType, which knows f16 but not bf16; the
/// fragments are the same registers of two 16-bit values. So the reads that
/// feed the warp contractions of a bf16 kernel are given, for the length of
/// the conversion, f16 twins of their workgroup views (same buffer, same
/// offset, marked with kTwinAttrName), and `restoreBF16` moves the
/// resulting ldmatrix ops back onto bf16 views.
void presentBF16AsF16(RewriterBase &rewriter, Operation *root) {
  SmallVector<vector::TransferReadOp> reads;
  root->walk([&](vector::ContractionOp op) {
    for (Value operand : {op.getLhs(), op.getRhs()})
      if (auto read = operand.getDefiningOp<vector::TransferReadOp>())
        if (read.getVectorType().getElementType().isBF16() &&
            !llvm::is_contained(reads, read))
          reads.push_back(read);
  });
  DenseMap<Operation *, Value> twins;
  Type f16 = rewriter.getF16Type();
  for (vector::TransferReadOp read : reads) {
    auto view = read.getBase().getDefiningOp<memref::ViewOp>();
    if (!view)
      continue; // left bf16: the conversion refuses it
    Value &twin = twins[view];
    if (!twin) {
      rewriter.setInsertionPointAfter(view);
      MemRefType type = view.getType();
      auto op = memref::ViewOp::create(
          rewriter, view.getLoc(),
          MemRefType::get(type.getShape(), f16, type.getLayout(),
                          type.getMemorySpace()),
          view.getSource(), view.getByteShift(), view.getSizes());
      op->setAttr(kTwinAttrName, rewriter.getUnitAttr());
      twin = op;
    }
    rewriter.setInsertionPoint(read);
    Value pad = arith::ConstantOp::create(rewriter, read.getLoc(),
                                          rewriter.getZeroAttr(f16));
    rewriter.modifyOpInPlace(read, [&] {
      read.getBaseMutable().assign(twin);
      read.getPaddingMutable().assign(pad);
      read.getResult().setType(read.getVectorType().clone(f16));
    });
  }
}

/// The bf16 view that `twin` stands for: the one it was made next to (same
/// buffer, same offset), which carries the view's attributes (a swizzle
/// mark). The dead-op removal keeps views, so it is still there.
FailureOr<Value> bf16ViewOf(memref::ViewOp twin) {
  MemRefType type = twin.getType();
  auto bf16Type =
      MemRefType::get(type.getShape(), BFloat16Type::get(twin.getContext()),
                      type.getLayout(), type.getMemorySpace());
  for (Operation *user : twin.getSource().getUsers()) {
    auto view = dyn_cast<memref::ViewOp>(user);
    if (view && view.getType() == bf16Type &&
        view.getByteShift() == twin.getByteShift() &&
        view.getSizes() == twin.getSizes() &&
        view->getBlock() == twin->getBlock() && view->isBeforeInBlock(twin))
      return view.getResult();
  }
  return failure();
}

/// Moves the ldmatrix ops that read an f16 twin in `root` back onto its
/// bf16 view: their fragments, and the shuffles and slices of them on the
/// way to nvgpu.mma.sync, become bf16 again, and the twin goes. Anything
/// else reading a twin is an error.
LogicalResult restoreBF16(RewriterBase &rewriter, Operation *root) {
  SmallVector<memref::ViewOp> twins;
  root->walk([&](memref::ViewOp op) {
    if (op->hasAttr(kTwinAttrName))
      twins.push_back(op);
  });
  Type bf16 = rewriter.getBF16Type();
  auto retype = [&](Value v) {
    v.setType(cast<VectorType>(v.getType()).clone(bf16));
  };
  for (memref::ViewOp twin : twins) {
    FailureOr<Value> original = bf16ViewOf(twin);
    if (failed(original))
      return twin.emitOpError("stands in for a bf16 view that is gone");
    Value view = *original;
    SmallVector<Value> worklist;
    for (Operation *user : llvm::make_early_inc_range(twin->getUsers())) {
      auto load = dyn_cast<nvgpu::LdMatrixOp>(user);
      if (!load)
        return user->emitOpError("reads the f16 stand-in of a bf16 operand");
      rewriter.modifyOpInPlace(load, [&] {
        load.getSrcMemrefMutable().assign(view);
        retype(load.getResult());
      });
      worklist.push_back(load.getResult());
    }
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto mma = dyn_cast<nvgpu::MmaSyncOp>(user)) {
          if (mma.getMatrixC() == v)
            return mma.emitOpError("has a bf16 accumulator");
          continue;
        }
        if (!isa<vector::ShuffleOp, vector::ExtractStridedSliceOp>(user))
          return user->emitOpError("uses a bf16 mma fragment");
        Value result = user->getResult(0);
        if (getElementTypeOrSelf(result.getType()).isBF16())
          continue; // reached through its other operand already
        rewriter.modifyOpInPlace(user, [&] { retype(result); });
        worklist.push_back(result);
      }
    }
    rewriter.eraseOp(twin);
  }
  return success();
}

/// The ops whose regions hold the launch's warp contractions: the closest
/// enclosing loop of each (the pipelined contraction loop), else the launch.
SmallVector<Operation *> contractionRoots(gpu::LaunchOp launch) {
  SmallVector<Operation *> roots;
  launch.walk([&](vector::ContractionOp op) {
    Operation *root = op->getParentOfType<scf::ForOp>();
    if (!root || !launch->isProperAncestor(root))
      root = launch;
    if (!llvm::is_contained(roots, root))
      roots.push_back(root);
  });
  return roots;
}

/// Upstream's vector-to-nvgpu conversion of the 16-bit warp contractions of
/// `launch` to ldmatrix and nvgpu.mma.sync, bf16 kept bf16.
LogicalResult convertLaunch(RewriterBase &rewriter, gpu::LaunchOp launch) {
  bool has16Bit = false;
  launch.walk([&](vector::ContractionOp op) {
    Type element = getElementTypeOrSelf(op.getLhsType());
    has16Bit |= element.isIntOrFloat() && element.getIntOrFloatBitWidth() == 16;
  });
  if (!has16Bit)
    return success();
  hideIndexArith(rewriter, launch);
  // The conversion expects contractions in mma.sync's row x col form, with
  // the transposes folded into the reads.
  for (Operation *root : contractionRoots(launch)) {
    RewritePatternSet patterns(launch.getContext());
    populatePrepareVectorToMMAPatterns(patterns, /*useNvGpu=*/true);
    (void)applyPatternsGreedily(root, std::move(patterns));
  }
  presentBF16AsF16(rewriter, launch);
  if (failed(convertVectorToNVVMCompatibleMMASync(rewriter, launch)))
    return launch.emitOpError("vector-to-nvgpu conversion of the warp "
                              "contractions failed");
  reorderTransposedMatrixALoads(rewriter, launch);
  // The conversion leaves the replaced vector ops behind, dead (and with
  // them the twins' reads and padding values). Views stay: the bf16 views
  // the twins stand for must outlive them.
  gmm::eraseDeadOps(rewriter, launch, [](Operation *op) {
    return !isa<memref::ViewOp>(op) && wouldOpBeTriviallyDead(op);
  });
  WalkResult left = launch.walk(
      [](vector::ContractionOp op) { return WalkResult::interrupt(); });
  if (left.wasInterrupted())
    return launch.emitOpError("could not convert every warp contraction to "
                              "mma.sync (m16n8k16 contractions of "
                              "transfer_reads from workgroup memory)");
  if (failed(restoreBF16(rewriter, launch)))
    return failure();
  // What the conversion left foldable.
  RewritePatternSet patterns(launch.getContext());
  (void)applyPatternsGreedily(launch, std::move(patterns));
  return success();
}

struct VectorToMmaSync
    : public mlir::gmm::impl::GMMGPUVectorToMmaSyncBase<VectorToMmaSync> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      if (failed(convertLaunch(rewriter, launch)))
        return signalPassFailure();
  }
};

} // namespace
