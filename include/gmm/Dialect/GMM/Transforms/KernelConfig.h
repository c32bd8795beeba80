//===- KernelConfig.h - choosing and checking configurations -*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The one place where a ragged dot's #gmm.kernel_config is chosen (the op's
// own fields, then the pipeline's options, then a heuristic for the target
// and the element types) and checked against what the target's code can do.
// gmm-configure calls it for every ragged dot; gmm-tile and
// gmm-gpu-promote-operands read the result.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_TRANSFORMS_KERNELCONFIG_H
#define GMM_DIALECT_GMM_TRANSFORMS_KERNELCONFIG_H

#include "gmm/Dialect/GMM/IR/GMMAttrs.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"
#include "gmm/Dialect/GMM/Transforms/TargetDescription.h"
#include "gmm/Dialect/GMM/Transforms/TileLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Types.h"
#include "llvm/Support/MathExtras.h"

#include <optional>
#include <string>

namespace mlir {
namespace gmm {
class RaggedDotOp;

/// The name of the attribute that carries a ragged dot's configuration
/// (on the op, and on the tile loops gmm-tile makes for the GPU).
constexpr llvm::StringLiteral kKernelConfigAttrName = "gmm.kernel_config";

/// What the pipeline asks for; 0 leaves a field to the heuristic. It is
/// gmm-configure's options struct (generated from Passes.td), so that the
/// pipelines hand their kernel fields to the pass as they are: target, tile
/// (m, n, k), warps (m, n) and stages (gpu), register block (micro m, n),
/// vector bits (cpu; 0: the host CPU's widest) and threads (cpu; 0: those
/// the process may run on), and the chip (gpu; bounds a block's shared
/// memory, empty: the 48 KiB every chip gives statically).
using KernelConfigRequest = GMMConfigureOptions;

/// Why each field of a configuration has its value, in words: pairs of a
/// field (tile, warps, stages, register_block, micro_kernel) and where it
/// came from (the op's own configuration, the pipeline's request, or the
/// heuristic and its reason). gmm-configure's remark says them.
using ConfigReasons = SmallVector<std::pair<std::string, std::string>>;

/// The category of gmm-configure's remarks (one analysis remark per ragged
/// dot: its configuration and the ConfigReasons).
constexpr llvm::StringLiteral kConfigureRemarkCategory = "gmm-configure";

/// The k steps a GPU tile kernel stages in shared memory at once: 2 to 4
/// for the mma.sync kernel (2 by default), 2 to 8 for the wgmma kernel
/// (the most that fit in shared memory by default).
struct StageBounds {
  int64_t min, max;
};
constexpr StageBounds stageBounds(GPUMma mma) {
  return mma == GPUMma::Wgmma ? StageBounds{2, 8} : StageBounds{2, 4};
}
constexpr int64_t kDefaultGPUStages = 2;
/// The most stages of any kernel: the range of gmm-configure's `stages`
/// option and of gmm-gpu-pipeline-stages' attribute.
constexpr int64_t kMaxStagesOfAnyKernel = stageBounds(GPUMma::Wgmma).max;
/// Checks a request's values on their own (signs, ranges), reporting the
/// first bad one, named by its option ("tile-m = -3 is out of range: ..."),
/// through `report`. A GPU chip, when one is named, must pass verifyGPUChip.
LogicalResult
verifyKernelConfigRequest(const KernelConfigRequest &request,
                          function_ref<void(const Twine &)> report);

/// The configuration of `op`: the fields of its gmm.kernel_config, where it
/// has one, completed from `request` and the heuristic, and verified for the
/// op. Errors are reported at the op, in terms of the configuration.
FailureOr<KernelConfigAttr>
configureRaggedDot(RaggedDotOp op, const KernelConfigRequest &request,
                   ConfigReasons *reasons = nullptr);

/// Checks that `config` is complete and its sizes are within the target's
/// bounds (so that every product of them fits in int64_t): what gmm-tile
/// needs to build the tile program.
LogicalResult verifyTileBounds(KernelConfigAttr config,
                               function_ref<InFlightDiagnostic()> emitError);

/// Checks a complete configuration against the op and its target: tile
/// bounds, and for the GPU the warp, mma and copy shapes and the shared
/// memory of `stages` stages against `maxSharedBytes` (a block's limit on
/// the chip, see maxSharedBytesPerBlock). `elementType` is the op's input
/// element type.
LogicalResult verifyKernelConfig(KernelConfigAttr config, Type elementType,
                                 int64_t maxSharedBytes,
                                 function_ref<InFlightDiagnostic()> emitError);

/// Whether verifyKernelConfig accepts `config`, without a diagnostic: for
/// choosing among candidate configurations.
bool isValidKernelConfig(KernelConfigAttr config, Type elementType,
                         int64_t maxSharedBytes);

/// The GPU kernel's shapes, shared by the checks and the tile kernel's passes.
namespace gpu_shapes {
constexpr int64_t kWarpSize = 32;
constexpr int64_t kChunkBytes = 16;
/// The mma.sync shape for 16-bit inputs.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
/// Rows and columns of the f32 FMA path's per-lane block: a warp's 32 lanes
/// are laid out 4 x 8.
constexpr int64_t kLaneRows = 4, kLaneCols = 8;
/// The epilogue moves 4 f32 per chunk.
constexpr int64_t kOutChunk = 4;

/// The threads of a block of `warpsM` x `warpsN` warps.
constexpr int64_t threadsPerBlock(int64_t warpsM, int64_t warpsN) {
  return warpsM * warpsN * kWarpSize;
}

/// The bytes of the epilogue's staging in shared memory: the f32
/// accumulators of one warp row of the tile (tileM / warpsM rows), rows
/// padded by one chunk of kOutChunk.
constexpr int64_t epilogueStagingBytes(int64_t tileM, int64_t tileN,
                                       int64_t warpsM) {
  return (tileM / warpsM) * (tileN + kOutChunk) * 4;
}

/// Whether rows of `inner` elements of `elementBytes` bytes are whole
/// 16-byte chunks: the strides TMA takes, and rows that 16-byte stores
/// cover.
constexpr bool isWholeChunkRow(int64_t inner, int64_t elementBytes) {
  return (inner * elementBytes) % kChunkBytes == 0;
}

/// Whether rows of `inner` elements of `elementBytes` bytes are staged
/// without padding, their 16-byte chunks permuted (swizzled) per row instead
/// so that ldmatrix and cp.async hit distinct banks: 16-bit elements (read
/// by ldmatrix), a power-of-two row of at least two chunks (the XOR
/// permutation of gmm-gpu-swizzle-shared-memory stays inside the row).
inline bool isSwizzledRow(int64_t inner, int64_t elementBytes) {
  return elementBytes == 2 && inner >= 2 * kChunkBytes / elementBytes &&
         llvm::isPowerOf2_64(inner);
}

/// The elements a staged row of `inner` elements takes in shared memory:
/// the row itself when swizzled, else one 16-byte chunk of padding more,
/// which spreads eight row reads over all banks.
inline int64_t stagedRowElements(int64_t inner, int64_t elementBytes) {
  return isSwizzledRow(inner, elementBytes)
             ? inner
             : inner + kChunkBytes / elementBytes;
}
} // namespace gpu_shapes

/// The Hopper (wgmma) kernel's shapes, shared by the checks and
/// gmm-gpu-wgmma-kernel.
namespace wgmma_shapes {
/// Threads of a warpgroup, the unit that issues wgmma.mma_async.
constexpr int64_t kWarpgroupThreads = 128;
constexpr int64_t kWarpsPerWarpgroup = 4;
/// Consumer warpgroups, each with a 64-row slice of the 128-row tile
/// (wgmma's m64), and the producer warpgroup before them.
constexpr int64_t kConsumerWarpgroups = 2, kWgmmaM = 64;
constexpr int64_t kThreads = (kConsumerWarpgroups + 1) * kWarpgroupThreads;
/// A k step is one 128-byte swizzle row of 16-bit elements.
constexpr int64_t kTileM = kConsumerWarpgroups * kWgmmaM, kTileK = 64;
/// The rhs is staged in boxes of 64 columns (128 bytes), wgmma's n is at
/// most 256.
constexpr int64_t kTileNStep = 64, kMaxTileN = 256;
/// The f32 epilogue's rows are padded by this many elements.
constexpr int64_t kEpiloguePad = 4;
/// Bytes of one stage: both operand tiles of 16-bit elements.
constexpr int64_t stageBytes(int64_t tileN) {
  return (kTileM * kTileK + kTileK * tileN) * 2;
}
/// 128-byte-swizzled stages start at a multiple of 1024 bytes of the
/// shared window, at least kStaticGuard bytes past the start of the
/// dynamic shared memory (the kernel's mbarriers are static shared memory,
/// which gpu.dynamic_shared_memory's base may share): the kernel asks for
/// this much more than it uses.
constexpr int64_t kSwizzleAlignment = 1024, kStaticGuard = 128;
constexpr int64_t kAlignmentSlack = kSwizzleAlignment + kStaticGuard;
/// The kernel's dynamic shared memory: the stages, which the f32 epilogue
/// reuses once the last k step is done, and the alignment slack.
constexpr int64_t sharedBytes(int64_t tileN, int64_t stages) {
  int64_t epilogue = kTileM * (tileN + kEpiloguePad) * 4;
  int64_t staged = stages * stageBytes(tileN);
  return (staged > epilogue ? staged : epilogue) + kAlignmentSlack;
}
} // namespace wgmma_shapes

} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_TRANSFORMS_KERNELCONFIG_H
