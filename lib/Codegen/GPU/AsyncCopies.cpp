//===- AsyncCopies.cpp - global-to-shared copies as cp.async groups -------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-async-copies: upstream's nvgpu::createAsyncGroups on each
// gpu.launch. The staging copies gmm-gpu-promote-operands writes as 1-D
// transfer_read (global, masked by a create_mask) / transfer_write (shared)
// pairs become nvgpu.device_async_copy ops, each run of them one group that
// is waited for right after it.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUASYNCCOPIES
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

struct AsyncCopies
    : public mlir::gmm::impl::GMMGPUAsyncCopiesBase<AsyncCopies> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches) {
      // 16-byte copies bypass L1 (cp.async.cg): each staged chunk is read
      // once per block.
      nvgpu::createAsyncGroups(rewriter, launch, /*bypassL1=*/true);
      // The replaced reads and their masks are left unused.
      gmm::eraseDeadOps(rewriter, launch, [](Operation *op) {
        return isa<vector::TransferReadOp>(op) || isMemoryEffectFree(op);
      });
    }
  }
};

} // namespace
