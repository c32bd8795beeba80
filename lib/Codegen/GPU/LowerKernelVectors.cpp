//===- LowerKernelVectors.cpp - vector ops of kernels to 1-D ops ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-lower-kernel-vectors: what is left of the vector dialect in each
// gpu.launch (FMA outer products, transposes, n-D transfers) becomes 1-D loads,
// stores and FMAs that convert-gpu-to-nvvm handles in every address space.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPULOWERKERNELVECTORS
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// Applies `patterns` to the vector ops of `launch` and to what they become,
/// leaving the launch's other ops (most of a tensor-core kernel) unvisited.
void applyToVectorOps(gpu::LaunchOp launch, RewritePatternSet &&patterns) {
  SmallVector<Operation *> ops;
  launch.walk([&](Operation *op) {
    if (isa_and_nonnull<vector::VectorDialect>(op->getDialect()))
      ops.push_back(op);
  });
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}

/// Lowers what is left of the vector dialect in a kernel (FMA outer products,
/// epilogue and FMA-path transfers) to 1-D loads, stores and FMAs that
/// convert-gpu-to-nvvm handles in every address space.
LogicalResult lowerKernelVectors(gpu::LaunchOp launch) {
  MLIRContext *ctx = launch.getContext();
  {
    RewritePatternSet patterns(ctx);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    VectorTransferToSCFOptions options;
    options.enableFullUnroll(true);
    populateVectorToSCFConversionPatterns(patterns, options);
    applyToVectorOps(launch, std::move(patterns));
  }
  RewritePatternSet patterns(ctx);
  vector::populateVectorMaskMaterializationPatterns(
      patterns, /*force32BitVectorIndices=*/true);
  vector::populateVectorTransferLoweringPatterns(patterns,
                                                 /*maxTransferRank=*/1);
  vector::populateVectorMaskOpLoweringPatterns(patterns);
  vector::populateVectorBroadcastLoweringPatterns(patterns);
  vector::populateVectorShapeCastLoweringPatterns(patterns);
  applyToVectorOps(launch, std::move(patterns));
  // Transfers and contractions left now would not convert to NVVM.
  WalkResult left = launch.walk([](Operation *op) {
    if (isa<vector::TransferReadOp, vector::TransferWriteOp,
            vector::ContractionOp, vector::OuterProductOp>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

struct LowerKernelVectors
    : public mlir::gmm::impl::GMMGPULowerKernelVectorsBase<LowerKernelVectors> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      if (failed(lowerKernelVectors(launch))) {
        launch.emitOpError("could not lower the kernel's vector ops");
        return signalPassFailure();
      }
  }
};

} // namespace
