//===- EmulateBF16Dot.cpp - vdpbf16ps as f32 FMAs -------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-cpu-emulate-bf16-dot: x86vector.avx512.dot (AVX512-BF16's vdpbf16ps) as
// portable vector code with the same results, so that the bf16_dot
// micro-kernel runs (and is tested) on CPUs without the instruction.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMCPUEMULATEBF16DOT
#include "gmm/Codegen/CPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// acc[i] + a[2i+1] * b[2i+1] + a[2i] * b[2i], the odd product added first
/// as AVX512-BF16 does; the products of bf16 values are exact in f32.
struct EmulateDot : public OpRewritePattern<x86vector::DotBF16Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(x86vector::DotBF16Op op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto pairs = cast<VectorType>(op.getA().getType());
    auto wide = VectorType::get(pairs.getShape(), rewriter.getF32Type());
    auto split = [&](Value v) {
      Value extended = arith::ExtFOp::create(rewriter, loc, wide, v);
      return vector::DeinterleaveOp::create(rewriter, loc, extended);
    };
    vector::DeinterleaveOp a = split(op.getA()), b = split(op.getB());
    Value odd = vector::FMAOp::create(rewriter, loc, a.getRes2(), b.getRes2(),
                                      op.getSrc());
    rewriter.replaceOpWithNewOp<vector::FMAOp>(op, a.getRes1(), b.getRes1(),
                                               odd);
    return success();
  }
};

struct GMMCPUEmulateBF16Dot
    : public mlir::gmm::impl::GMMCPUEmulateBF16DotBase<GMMCPUEmulateBF16Dot> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<EmulateDot>(&getContext());
    // Only the dots are rewritten, nothing else is folded.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.enableFolding(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
