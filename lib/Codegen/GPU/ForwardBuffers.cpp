//===- ForwardBuffers.cpp - forward buffers out of loops and branches ----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-forward-buffers: buffers that scf.for and scf.if hand back
// unchanged are replaced by the buffers themselves, and the self-copies this
// reveals are dropped (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUFORWARDBUFFERS
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// Looks through casts, and through scf.if / scf.for results that hand back
/// the buffer they were given, to the buffer a memref value aliases.
Value stripAlias(Value v) {
  while (true) {
    if (auto cast = v.getDefiningOp<memref::CastOp>()) {
      v = cast.getSource();
      continue;
    }
    if (auto ifOp = v.getDefiningOp<scf::IfOp>()) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      if (ifOp.getElseRegion().empty())
        return v;
      Value a = stripAlias(ifOp.thenYield().getOperand(i));
      Value b = stripAlias(ifOp.elseYield().getOperand(i));
      if (a != b || ifOp->isAncestor(a.getParentRegion()->getParentOp()))
        return v;
      v = a;
      continue;
    }
    if (auto forOp = v.getDefiningOp<scf::ForOp>()) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      Value yielded = forOp.getBody()->getTerminator()->getOperand(i);
      if (stripAlias(yielded) != forOp.getRegionIterArgs()[i])
        return v;
      v = forOp.getInitArgs()[i];
      continue;
    }
    return v;
  }
}

/// One-Shot Bufferize leaves buffers that loops and branches hand back
/// unchanged as loop-carried memrefs; forward them to the buffer itself, so
/// that no buffer value flows out of device code, and drop the self-copies
/// this reveals.
void forwardBuffers(RewriterBase &rewriter, func::FuncOp func) {
  auto replaceWith = [&](Value from, Value to) {
    if (from == to || from.use_empty())
      return;
    OpBuilder::InsertionGuard guard(rewriter);
    if (auto arg = dyn_cast<BlockArgument>(to))
      rewriter.setInsertionPointToStart(arg.getOwner());
    else
      rewriter.setInsertionPointAfterValue(to);
    Value replacement = to;
    if (to.getType() != from.getType())
      replacement =
          memref::CastOp::create(rewriter, from.getLoc(), from.getType(), to);
    rewriter.replaceAllUsesExcept(from, replacement,
                                  replacement.getDefiningOp());
  };
  func.walk([&](Operation *op) {
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs())) {
        if (!isa<MemRefType>(arg.getType()))
          continue;
        Value yielded = forOp.getBody()->getTerminator()->getOperand(i);
        if (stripAlias(yielded) != arg)
          continue;
        Value init = forOp.getInitArgs()[i];
        replaceWith(forOp.getResult(i), init);
        replaceWith(arg, init);
      }
      return;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      for (Value result : ifOp.getResults())
        if (isa<MemRefType>(result.getType()))
          replaceWith(result, stripAlias(result));
    }
  });
  SmallVector<memref::CopyOp> copies;
  func.walk([&](memref::CopyOp copy) {
    if (stripAlias(copy.getSource()) == stripAlias(copy.getTarget()))
      copies.push_back(copy);
  });
  for (memref::CopyOp copy : copies)
    rewriter.eraseOp(copy);
}

struct ForwardBuffers
    : public mlir::gmm::impl::GMMGPUForwardBuffersBase<ForwardBuffers> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    forwardBuffers(rewriter, getOperation());
  }
};

} // namespace
