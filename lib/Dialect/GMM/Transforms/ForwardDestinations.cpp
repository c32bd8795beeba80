//===- ForwardDestinations.cpp - materialize results in reshaped buffers --===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-forward-destinations: a result that is collapsed and then materialized
// in a destination buffer is materialized uncollapsed in the expanded view
// of that buffer, so that empty-tensor elimination reaches the computation's
// own destination. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMFORWARDDESTINATIONS
#include "gmm/Dialect/GMM/Transforms/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// materialize_in_destination(collapse_shape(x), %buffer) ->
/// materialize_in_destination(x, expand_shape(%buffer)), for a buffer with
/// the identity layout (whose expanded view is again one).
struct ForwardThroughCollapse
    : public OpRewritePattern<bufferization::MaterializeInDestinationOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(bufferization::MaterializeInDestinationOp op,
                                PatternRewriter &rewriter) const override {
    auto collapse = op.getSource().getDefiningOp<tensor::CollapseShapeOp>();
    auto bufferType = dyn_cast<MemRefType>(op.getDest().getType());
    if (!collapse || !bufferType || !bufferType.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "not a collapsed result "
                                             "materialized in a plain buffer");
    // The view must agree with the buffer on which sizes are static (the
    // materialization accepts a static size against a dynamic one, an
    // expand_shape does not), and its sizes come from the buffer, so that
    // the view does not depend on the computation that fills it: then every
    // group of the reassociation has at most one dynamic size.
    Value source = collapse.getSrc();
    auto sourceType = cast<RankedTensorType>(source.getType());
    if (collapse.getResultType().getShape() != bufferType.getShape())
      return rewriter.notifyMatchFailure(op, "static and dynamic sizes differ");
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    if (llvm::any_of(groups, [&](const ReassociationIndices &group) {
          return llvm::count_if(group, [&](int64_t d) {
                   return sourceType.isDynamicDim(d);
                 }) > 1;
        }))
      return rewriter.notifyMatchFailure(op, "ambiguous dynamic sizes");
    auto viewType = MemRefType::get(
        sourceType.getShape(), sourceType.getElementType(),
        MemRefLayoutAttrInterface(), bufferType.getMemorySpace());
    Location loc = op.getLoc();
    // The output shape is inferred from the buffer's sizes.
    Value view = memref::ExpandShapeOp::create(rewriter, loc, viewType,
                                               op.getDest(), groups);
    auto forwarded = bufferization::MaterializeInDestinationOp::create(
        rewriter, loc, TypeRange(), source, view);
    forwarded.setRestrict(op.getRestrict());
    forwarded.setWritable(op.getWritable());
    rewriter.eraseOp(op);
    return success();
  }
};

struct GMMForwardDestinations
    : public mlir::gmm::impl::GMMForwardDestinationsBase<
          GMMForwardDestinations> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ForwardThroughCollapse>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
