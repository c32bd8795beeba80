//===- KernelConfigRules.cpp - what a #gmm.kernel_config may say ----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/KernelConfigRules.h"
#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gmm;

namespace {

/// Shared memory of the GPU kernel for `config`, whatever the orientation
/// in which the operands are staged: `stages` copies of both operand tiles,
/// each row padded by one 16-byte chunk, or the epilogue's f32 rows of one
/// warp row of the tile, whichever is larger.
int64_t gpuSharedBytes(KernelConfigAttr config, int64_t elementBytes) {
  using namespace gpu_shapes;
  int64_t m = config.getTileM(), n = config.getTileN(), k = config.getTileK();
  // Either orientation may be staged (gmm-gpu-promote-operands stores a tile
  // the way its source is laid out).
  auto staged = [&](int64_t rows, int64_t cols) {
    return std::max(rows * stagedRowElements(cols, elementBytes),
                    cols * stagedRowElements(rows, elementBytes));
  };
  int64_t operands =
      config.getStages() * (staged(m, k) + staged(k, n)) * elementBytes;
  int64_t epilogue = epilogueStagingBytes(m, n, config.getWarps()[0]);
  return std::max(operands, epilogue);
}

} // namespace

LogicalResult
mlir::gmm::verifyComplete(KernelConfigAttr config,
                          function_ref<InFlightDiagnostic()> emitError) {
  if (!config.isComplete())
    return emitError() << "kernel configuration " << config
                       << " is incomplete (run gmm-configure)";
  return success();
}

LogicalResult
mlir::gmm::verifyTileBounds(KernelConfigAttr config,
                            function_ref<InFlightDiagnostic()> emitError) {
  if (failed(verifyComplete(config, emitError)))
    return failure();
  int64_t m = config.getTileM(), n = config.getTileN(), k = config.getTileK();
  auto describe = [&](InFlightDiagnostic diag) -> InFlightDiagnostic {
    diag << "kernel configuration " << config << ": ";
    return diag;
  };
  const TileLimits &limits = config.isGPU() ? kGPUTileLimits : kCPUTileLimits;
  if (!limits.fits(m, n, k))
    return describe(emitError())
           << "tile " << m << "x" << n << "x" << k << " is too large for "
           << limits.what << " (" << limits.describe() << ")";
  if (!config.isGPU()) {
    ArrayRef<int64_t> block = config.getRegisterBlock();
    if (block[0] > kMaxRegisterRows || block[1] > kMaxRegisterLanes)
      return describe(emitError())
             << "a register block of " << block[0] << " x " << block[1]
             << " is too large (at most " << kMaxRegisterRows << " rows of "
             << kMaxRegisterLanes << " lanes)";
    if (block[0] > m)
      return describe(emitError())
             << "a register block of " << block[0]
             << " rows is taller than the tile's " << m << " rows";
    return success();
  }
  int64_t warpsM = config.getWarps()[0], warpsN = config.getWarps()[1];
  if (warpsM > kMaxWarpsPerBlock / warpsN)
    return describe(emitError())
           << warpsM << " x " << warpsN
           << " warps are more than a block's 32 (1024 threads)";
  return success();
}

bool mlir::gmm::isValidKernelConfig(KernelConfigAttr config, Type elementType,
                                    int64_t maxSharedBytes) {
  // The checks ask for a diagnostic only to fail with it. An inactive one
  // drops the message but converts to success, so the request is what
  // tells.
  bool refused = false;
  (void)verifyKernelConfig(config, elementType, maxSharedBytes, [&] {
    refused = true;
    return InFlightDiagnostic();
  });
  return !refused;
}

LogicalResult
mlir::gmm::verifyKernelConfig(KernelConfigAttr config, Type elementType,
                              int64_t maxSharedBytes,
                              function_ref<InFlightDiagnostic()> emitError) {
  if (failed(verifyTileBounds(config, emitError)))
    return failure();
  auto describe = [&](InFlightDiagnostic diag) -> InFlightDiagnostic {
    diag << "kernel configuration " << config << ": ";
    return diag;
  };
  if (!config.isGPU()) {
    if (config.getMicroKernelOrDefault() != MicroKernel::BF16Dot)
      return success();
    if (!elementType.isBF16())
      return describe(emitError())
             << "the bf16_dot micro-kernel takes bf16 inputs, not "
             << elementType;
    if (config.getRegisterBlock()[1] % kBF16DotLanes)
      return describe(emitError())
             << "the bf16_dot micro-kernel needs register block lanes in "
                "multiples of "
             << kBF16DotLanes << " (one vdpbf16ps each), not "
             << config.getRegisterBlock()[1];
    if (config.getTileK() % 2)
      return describe(emitError())
             << "the bf16_dot micro-kernel multiplies pairs of contraction "
                "steps: the contraction block must be even, not "
             << config.getTileK();
    return success();
  }
  int64_t m = config.getTileM(), n = config.getTileN(), k = config.getTileK();
  using namespace gpu_shapes;
  if (!elementType.isF16() && !elementType.isBF16() && !elementType.isF32())
    return emitError() << "element type " << elementType
                       << " is not supported on the GPU (f16, bf16 and f32 "
                          "are)";
  if (config.getMmaOrDefault() == GPUMma::Wgmma) {
    using namespace wgmma_shapes;
    if (!elementType.isF16() && !elementType.isBF16())
      return describe(emitError())
             << "wgmma takes 16-bit inputs (f16, bf16), not " << elementType;
    if (m != kTileM || k != kTileK || n % kTileNStep || n > kMaxTileN)
      return describe(emitError())
             << "the wgmma kernel takes tiles of " << kTileM << " x n x "
             << kTileK << " with n a multiple of " << kTileNStep << " up to "
             << kMaxTileN;
    if (config.getWarps()[0] != kConsumerWarpgroups ||
        config.getWarps()[1] != kWarpsPerWarpgroup)
      return describe(emitError())
             << "the wgmma kernel has warps = [" << kConsumerWarpgroups << ", "
             << kWarpsPerWarpgroup
             << "]: two consumer warpgroups of four warps";
    StageBounds stages = stageBounds(GPUMma::Wgmma);
    if (config.getStages() < stages.min || config.getStages() > stages.max)
      return describe(emitError())
             << "the wgmma kernel stages " << stages.min << " to " << stages.max
             << " k steps at a time, not " << config.getStages();
    int64_t bytes = sharedBytes(n, config.getStages());
    if (bytes > maxSharedBytes)
      return describe(emitError())
             << "its " << config.getStages() << " stages need " << bytes
             << " bytes of shared memory, more than the " << maxSharedBytes
             << " a block can have on the chip";
    return success();
  }
  int64_t warpsM = config.getWarps()[0], warpsN = config.getWarps()[1];
  StageBounds stages = stageBounds(GPUMma::MmaSync);
  if (config.getStages() < stages.min || config.getStages() > stages.max)
    return describe(emitError())
           << "the GPU kernel stages " << stages.min << " to " << stages.max
           << " k steps at a time, not " << config.getStages();
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  int64_t chunk = kChunkBytes / elementBytes;
  bool mma = elementBytes == 2;
  int64_t unitM = mma ? kMmaM : kLaneRows, unitN = mma ? kMmaN : kLaneCols;
  int64_t unitK = mma ? kMmaK : 1;
  int64_t threads = threadsPerBlock(warpsM, warpsN);
  const char *unit = mma ? "mma.sync" : "FMA";
  if (m % (warpsM * unitM) || n % (warpsN * unitN) || k % unitK)
    return describe(emitError())
           << "the tile does not split over " << warpsM << "x" << warpsN
           << " warps of " << unitM << "x" << unitN << "x" << unitK << " "
           << unit << " steps (" << elementType << ")";
  if (m % chunk || n % chunk || k % chunk || n % kOutChunk ||
      (m * k / chunk) % threads || (k * n / chunk) % threads ||
      (m / warpsM * n / kOutChunk) % threads)
    return describe(emitError())
           << "the tile's " << chunk << "-element copies (16 bytes of "
           << elementType << ") do not spread evenly over " << threads
           << " threads";
  int64_t bytes = gpuSharedBytes(config, elementBytes);
  if (bytes > maxSharedBytes) {
    InFlightDiagnostic diag = describe(emitError());
    diag << "its " << config.getStages() << " stages need " << bytes
         << " bytes of shared memory, more than the " << maxSharedBytes;
    if (maxSharedBytes == kStaticSharedBytes)
      diag << " a block gets statically (name the chip for more)";
    else
      diag << " a block can have on the chip";
    return diag;
  }
  return success();
}

LogicalResult GMMDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  if (attribute.getName() != kKernelConfigAttrName)
    return success();
  auto config = dyn_cast<KernelConfigAttr>(attribute.getValue());
  if (!config)
    return op->emitOpError("expects '")
           << kKernelConfigAttrName << "' to be a #gmm.kernel_config, got "
           << attribute.getValue();
  // A partial configuration is a request, which gmm-configure completes
  // and verifies.
  if (!config.isComplete())
    return success();
  auto emitError = [&] { return op->emitOpError(); };
  // A CPU configuration of a ragged dot: the bounds and the micro-kernel's
  // rules for the op's element type. This runs before the op's own
  // verifier: its operand may not be what a ragged dot's must be.
  if (isa<RaggedDotOp>(op) && !config.isGPU() && op->getNumOperands() > 0)
    if (auto lhs = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
        lhs && lhs.getElementType().isIntOrFloat())
      return verifyKernelConfig(config, lhs.getElementType(),
                                kAnyChipSharedBytes, emitError);
  // Elsewhere, and for the GPU: the bounds, which the tile program needs.
  // How a GPU configuration's tile splits over warps, mma steps, copies and
  // the chip's shared memory is the GPU kernel's rule: gmm-configure checks
  // it for the chip it configures for, and the tile kernel's passes for the
  // element type they find.
  return verifyTileBounds(config, emitError);
}
