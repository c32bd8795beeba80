//===- KernelConfigRules.h - what a #gmm.kernel_config may say --*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The rules of a kernel configuration: the bounds of its tiles, and what
// each target's kernels take (the CPU micro-kernels, the GPU's warp, mma,
// copy and shared-memory shapes). They are checked where a configuration is
// made: gmm-configure verifies what it chooses, against the chip it
// compiles for; and the gmm dialect's verifier checks every
// `gmm.kernel_config` attribute of a module (a hand-written one, or one
// that a pass left), against the op it configures where that op is a ragged
// dot (GMMDialect::verifyOperationAttribute). Passes that read a
// configuration rely on that.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_KERNELCONFIGRULES_H
#define GMM_DIALECT_GMM_IR_KERNELCONFIGRULES_H

#include "gmm/Dialect/GMM/IR/GMMAttrs.h"
#include "gmm/Dialect/GMM/IR/TileLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Types.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <limits>

namespace mlir {
namespace gmm {

/// The name of the attribute that carries a ragged dot's configuration
/// (on the op, and on the tile loops gmm-tile makes for the GPU).
constexpr llvm::StringLiteral kKernelConfigAttrName = "gmm.kernel_config";

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
/// The widest raster band a request may name: a grid has at most 2^31 - 1
/// blocks, so a band this wide is one band of all the visits.
constexpr int64_t kMaxRasterBand = INT32_MAX;
/// The wgmma kernel's raster band: 8 visits, every column tile of them,
/// before the next 8 (bench/README.md, "Why the heuristics are what they
/// are").
constexpr int64_t kWgmmaRasterBand = 8;

/// Shared memory a block gets without the dynamic opt-in; above it the
/// kernel's buffer is dynamic shared memory.
constexpr int64_t kStaticSharedBytes = 48 * 1024;
/// The shared-memory limit where the chip is not known (the dialect's
/// verifier): the chip's own limit is checked where it is known
/// (gmm-configure).
constexpr int64_t kAnyChipSharedBytes = std::numeric_limits<int64_t>::max();

/// Checks that `config` is complete ("... is incomplete (run
/// gmm-configure)" otherwise): what a pass that reads a configuration needs
/// beyond the rules that the dialect's verifier checked.
LogicalResult verifyComplete(KernelConfigAttr config,
                             function_ref<InFlightDiagnostic()> emitError);

/// Checks that `config` is complete and its sizes are within the target's
/// bounds (so that every product of them fits in int64_t): what gmm-tile
/// needs to build the tile program.
LogicalResult verifyTileBounds(KernelConfigAttr config,
                               function_ref<InFlightDiagnostic()> emitError);

/// Checks a complete configuration against the op and its target: tile
/// bounds, and for the GPU the warp, mma and copy shapes and the shared
/// memory of `stages` stages against `maxSharedBytes` (a block's limit on
/// the chip, see maxSharedBytesPerBlock in TargetDescription.h;
/// kAnyChipSharedBytes where the chip is not known). `elementType` is the
/// op's input element type.
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
/// The 16-bit results' epilogue stages f32 rows padded by this many
/// elements.
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
/// The kernel's dynamic shared memory: the stages, which a 16-bit result's
/// epilogue reuses for its f32 rows once the last k step is done, and the
/// alignment slack.
constexpr int64_t sharedBytes(int64_t tileN, int64_t stages) {
  int64_t epilogue = kTileM * (tileN + kEpiloguePad) * 4;
  int64_t staged = stages * stageBytes(tileN);
  return (staged > epilogue ? staged : epilogue) + kAlignmentSlack;
}
} // namespace wgmma_shapes

} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_IR_KERNELCONFIGRULES_H
