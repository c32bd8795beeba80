//===- KernelConfig.cpp - choosing and checking kernel configurations -----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gmm;

namespace {

/// The CPU's register block: `rows` rows of `lanes` accumulator lanes, two
/// vector registers per row, sized so that the accumulators, one row of the
/// packed rhs panel and one broadcast lhs element fill the vector registers
/// (AVX2: 6 x 16 f32 in 16 ymm; AVX-512: 14 x 32 f32 in 32 zmm).
std::array<int64_t, 2> defaultRegisterBlock(Type accType, int64_t vectorBits) {
  int64_t lanes =
      std::max<int64_t>(vectorBits / accType.getIntOrFloatBitWidth(), 1);
  int64_t registers = vectorBits >= 512 ? 32 : 16;
  return {(registers - 3) / 2, 2 * lanes};
}

/// The CPU's cache blocks around the register block, contraction blocks of
/// 256 f32 (128 f64) elements. Below AVX-512 (AVX2, SSE), a visit of 64
/// register rows (four row blocks of 16, which gmm-tile packs one at a time
/// in mode 1, each staying in the L2 cache) and 32 register columns: the
/// packed rhs block (tile_k x tile_n, 512 KiB of f32 on AVX2) is then packed
/// once for 384 rows rather than 96, and each row block's packed lhs serves
/// 512 columns rather than 128. Mode 2 takes them too, whatever its
/// groups' rows: its last contraction block writes the result directly, so
/// a group of at most 256 rows never touches the visit's 768 KiB of
/// accumulators. With AVX-512, a visit of 32 register rows (two row blocks
/// of 16) by 16 register columns, 448 x 512: the packed rhs block (512 KiB)
/// serves twice the rows, and each row block's packed lhs twice the
/// columns, of a visit of 224 x 256. Larger visits pack each operand fewer
/// times; measurements: bench/README.md, "Why the heuristics are what they
/// are". A decode-like op's visits (`fewRowsWidth` non-zero, see
/// fewRowsVisitWidth) are that wide, with contraction blocks of 64 f32 (32
/// f64) elements.
std::array<int64_t, 3> defaultCPUTile(Type accType,
                                      std::array<int64_t, 2> block,
                                      int64_t vectorBits,
                                      int64_t fewRowsWidth) {
  // A block past the bounds (the op's, refused by the checks that follow)
  // must not overflow the heuristic's products first.
  block[0] = std::min(block[0], kMaxRegisterRows);
  block[1] = std::min(block[1], kMaxRegisterLanes);
  bool wide = vectorBits < 512;
  std::array<int64_t, 3> tile = {
      (wide ? 64 : 32) * block[0], (wide ? 32 : 16) * block[1],
      accType.getIntOrFloatBitWidth() > 32 ? 128 : 256};
  if (fewRowsWidth) {
    tile[1] = fewRowsWidth;
    tile[2] /= 4;
  }
  // Within the CPU's bounds whatever the register block.
  tile[1] = std::min(tile[1], kCPUTileLimits.maxSize);
  tile[0] = std::max<int64_t>(
      1, std::min({tile[0], kCPUTileLimits.maxSize,
                   kCPUTileLimits.maxAccumulators / tile[1]}));
  return tile;
}

/// Mode 1 groups of at most this many rows on average are decode-like.
constexpr int64_t kFewRowsPerGroup = 16;
/// The widest visit of a decode-like op.
constexpr int64_t kFewRowsMaxWidth = 2048;
/// The narrowest visit of a decode-like op: one narrowed to give every
/// thread a visit stays at least this wide (else the op takes the usual
/// tile, whose narrower visits are more).
constexpr int64_t kFewRowsMinWidth = 1024;
/// The most threads a request may name.
constexpr int64_t kMaxThreads = 1 << 16;

/// The threads that run the visits: the request's, else those this process
/// may run on.
int64_t threadsOf(const KernelConfigRequest &request) {
  if (request.threads > 0)
    return request.threads;
  return std::max<int64_t>(llvm::hardware_concurrency().compute_thread_count(),
                           1);
}

/// The product of the rhs's free dimensions (the result's columns per row,
/// saturating), or nullopt when one of them is dynamic.
std::optional<uint64_t> staticRhsColumns(RaggedDotOp op) {
  RankedTensorType rhsType = op.getRhs().getType();
  uint64_t columns = 1;
  for (int64_t d :
       op.getDimensionNumbers().getRhsFreeDimensions(rhsType.getRank())) {
    int64_t size = rhsType.getDimSize(d);
    if (ShapedType::isDynamic(size))
      return std::nullopt;
    columns = llvm::SaturatingMultiply(columns, static_cast<uint64_t>(size));
  }
  return columns;
}

/// The width of a decode-like mode 1 op's visits, 0 for other ops: groups
/// of at most kFewRowsPerGroup rows on average (from the static shapes; a
/// dynamic one is not decode-like) use each row of the rhs they pack for
/// only a few lhs rows, so that packing it is a good part of their time. A
/// visit then spans the rhs's whole rows (its columns rounded up to `lanes`,
/// up to kFewRowsMaxWidth), which the packing reads contiguously, and its
/// packed contraction blocks of 64 rows stay in the L2 cache.
///
/// Such visits are few, one per group and 2048 columns: where they are
/// fewer than `threads`, they are narrowed to give each thread one, down to
/// kFewRowsMinWidth columns; below that the op is not decode-like, and the
/// usual tile's narrower visits are more (what a thread without a visit
/// loses is all of its share, narrower visits a few percent). Measurements:
/// bench/README.md, "Why the heuristics are what they are".
int64_t fewRowsVisitWidth(RaggedDotOp op, int64_t lanes, int64_t threads) {
  if (op.getMode() != RaggedDotMode::NonContracting)
    return 0;
  int64_t rows = op.getLhs().getType().getDimSize(op.getLhsRaggedDimension());
  int64_t groups = op.getNumGroups();
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(groups) ||
      groups <= 0 || llvm::divideCeil(rows, groups) > kFewRowsPerGroup)
    return 0;
  lanes = std::clamp<int64_t>(lanes, 1, kMaxRegisterLanes);
  std::optional<uint64_t> columns = staticRhsColumns(op);
  // Unknown columns: one visit per group, assumed, of the widest width.
  if (!columns)
    return groups >= threads ? kFewRowsMaxWidth : 0;
  int64_t widest = static_cast<int64_t>(std::min<uint64_t>(
      kFewRowsMaxWidth, llvm::alignTo(std::max<uint64_t>(*columns, 1), lanes)));
  uint64_t visits = llvm::SaturatingMultiply(
      static_cast<uint64_t>(groups), llvm::divideCeil(*columns, widest));
  if (visits >= static_cast<uint64_t>(threads))
    return widest;
  // Narrower visits, at least as many as the threads.
  uint64_t perGroup = llvm::divideCeil(static_cast<uint64_t>(threads),
                                       static_cast<uint64_t>(groups));
  uint64_t narrow = llvm::alignTo(llvm::divideCeil(*columns, perGroup),
                                  static_cast<uint64_t>(lanes));
  return narrow >= kFewRowsMinWidth ? static_cast<int64_t>(narrow) : 0;
}

/// With AVX-512, a forward (mode 1) op's visits are this large (rows,
/// columns), when that still leaves kLargeVisitsPerThread visits per thread.
constexpr int64_t kLargeVisitRows = 1024;
constexpr int64_t kLargeVisitCols = 1024;
constexpr int64_t kLargeVisitsPerThread = 4;

/// Whether a mode 1 op takes visits of `rows` x `cols` rather than the usual
/// tile's: a visit packs the rhs block of every contraction block once for
/// its rows and each row block's lhs once for its columns, so that a group
/// of 1024 rows in visits of 448 x 512 packs the rhs three times (448, 448
/// and 128 rows) and every lhs row twice (measurements: bench/README.md,
/// "Why the heuristics are what they are"). Only where the shapes are
/// static and the visits, at least one per group up to the rows and at
/// least the rows over `rows`, are kLargeVisitsPerThread per thread: fewer,
/// larger visits leave threads idle sooner.
bool takesLargeVisits(RaggedDotOp op, int64_t rows, int64_t cols,
                      int64_t threads) {
  if (op.getMode() != RaggedDotMode::NonContracting || rows <= 0 || cols <= 0)
    return false;
  int64_t lhsRows =
      op.getLhs().getType().getDimSize(op.getLhsRaggedDimension());
  int64_t groups = op.getNumGroups();
  if (ShapedType::isDynamic(lhsRows) || ShapedType::isDynamic(groups))
    return false;
  std::optional<uint64_t> columns = staticRhsColumns(op);
  if (!columns)
    return false;
  uint64_t rowVisits =
      std::max<uint64_t>(llvm::divideCeil(static_cast<uint64_t>(lhsRows),
                                          static_cast<uint64_t>(rows)),
                         static_cast<uint64_t>(std::min(groups, lhsRows)));
  uint64_t visits = llvm::SaturatingMultiply(
      rowVisits, llvm::divideCeil(*columns, static_cast<uint64_t>(cols)));
  return visits >=
         llvm::SaturatingMultiply(static_cast<uint64_t>(kLargeVisitsPerThread),
                                  static_cast<uint64_t>(threads));
}

/// The GPU's block tile, on 2 x 4 warps: 128 x 128, k steps of 32 16-bit
/// elements (two m16n8k16 steps) or 16 f32 elements, so that two stages of
/// both operand tiles fit in 48 KiB of shared memory.
///
/// On sm_90 (the H100 and H200), 16-bit operands and at least 256 columns
/// (or an unknown number) take 128 x 256 x 32 instead: 64 x 64 warp tiles
/// (ptxas: 254 registers, no spills) and 66.5 KiB of dynamic shared memory:
/// on an H200 it was the fastest of the tiles tried with the mma.sync
/// kernel (measurements: bench/README.md, "Why the heuristics are what they
/// are"). Narrower results keep 128 x 128: half of a 256-column tile would
/// be masked off. sm_80, sm_86 and sm_89 keep 128 x 128 until a measurement
/// there says otherwise.
std::array<int64_t, 3> defaultGPUTile(RaggedDotOp op, Type inputType,
                                      StringRef chip, std::string &why) {
  if (inputType.getIntOrFloatBitWidth() > 16) {
    why = "f32 inputs: k steps of 16";
    return {128, 128, 16};
  }
  std::optional<uint64_t> columns = staticRhsColumns(op);
  std::optional<GPUChipFacts> facts = getGPUChipFacts(chip);
  if (facts && facts->widerMmaSyncTile && (!columns || *columns >= 256)) {
    why = (Twine("16-bit inputs on ") + chip +
           " with at least 256 result columns")
              .str();
    return {128, 256, 32};
  }
  why = "16-bit inputs: two mma k steps per stage";
  return {128, 128, 32};
}

/// Where a field's value comes from, in the order configureRaggedDot
/// looks: the op's own configuration, the pipeline's request, the heuristic.
enum class Source { Op, Request, Heuristic };

/// Why the wgmma kernel cannot take `op` (the ragged dots that
/// gmm-gpu-wgmma-kernel keeps on the sm_80 kernel, as far as the op shows
/// it before tiling), or an empty string: 16-bit inputs, mode 1, no init,
/// the normalized layout [..., m, k] x [..., g, k, n] with static sizes,
/// and rows of whole 16-byte chunks (TMA's strides), none empty.
std::string wgmmaRefusal(RaggedDotOp op, Type inputType) {
  if (inputType.getIntOrFloatBitWidth() != 16)
    return "wgmma takes 16-bit inputs";
  if (op.getMode() != RaggedDotMode::NonContracting)
    return "the wgmma kernel has mode 1 (ragged rows) only";
  if (op.getInit())
    return "the wgmma kernel has no init";
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  if (!lhs.hasStaticShape() || !rhs.hasStaticShape())
    return "the wgmma kernel takes static shapes";
  RaggedDotDimensionNumbersAttr dims = op.getDimensionNumbers();
  int64_t lhsRank = lhs.getRank(), rhsRank = rhs.getRank();
  if (rhsRank < 3 ||
      dims.getLhsContractingDimensions() != ArrayRef<int64_t>{lhsRank - 1} ||
      dims.getRhsContractingDimensions() != ArrayRef<int64_t>{rhsRank - 2} ||
      dims.getRhsGroupDimensions() != ArrayRef<int64_t>{rhsRank - 3})
    return "the wgmma kernel takes [..., m, k] x [..., g, k, n] (normalized, "
           "weights not transposed)";
  if (!gpu_shapes::isWholeChunkRow(lhs.getShape().back(), 2) ||
      !gpu_shapes::isWholeChunkRow(rhs.getShape().back(), 2))
    return "the wgmma kernel takes k and n of whole 16-byte rows (TMA's "
           "strides)";
  if (lhs.getNumElements() == 0 || rhs.getNumElements() == 0)
    return "the wgmma kernel takes no empty operand";
  return "";
}

/// The GPU tile kernel's matrix instruction: the op's, else the pipeline's
/// `mma` option (wgmma for the ragged dots the wgmma kernel takes), else
/// wgmma for those ragged dots on sm_90a and mma_sync elsewhere.
GPUMma pickGPUMma(RaggedDotOp op, KernelConfigAttr given,
                  const KernelConfigRequest &request, Type inputType,
                  Source &from, std::string &why) {
  if (given && given.getMma()) {
    from = Source::Op;
    return *given.getMma();
  }
  std::string refusal = wgmmaRefusal(op, inputType);
  if (request.mma != GPUMmaOption::Auto) {
    from = Source::Request;
    if (request.mma == GPUMmaOption::MmaSync)
      return GPUMma::MmaSync;
    if (refusal.empty())
      return GPUMma::Wgmma;
    why = "mma.sync: the pipeline's wgmma applies to the ragged dots the "
          "wgmma kernel takes, and " +
          refusal;
    from = Source::Heuristic;
    return GPUMma::MmaSync;
  }
  from = Source::Heuristic;
  if (!chipHasWgmma(request.chip)) {
    why =
        "mma.sync: no wgmma on " +
        (request.chip.empty() ? std::string("an unnamed chip") : request.chip);
    return GPUMma::MmaSync;
  }
  if (!refusal.empty()) {
    why = "mma.sync: " + refusal;
    return GPUMma::MmaSync;
  }
  // Tile fields asked for (by the op or the options) that the wgmma kernel
  // cannot have keep the kernel that can.
  using namespace wgmma_shapes;
  ArrayRef<int64_t> tile = given ? given.getTile() : ArrayRef<int64_t>();
  ArrayRef<int64_t> warps = given ? given.getWarps() : ArrayRef<int64_t>();
  auto asked = [](ArrayRef<int64_t> values, size_t i, int64_t option) {
    return i < values.size() ? values[i] : option;
  };
  int64_t m = asked(tile, 0, request.tileM), n = asked(tile, 1, request.tileN);
  int64_t k = asked(tile, 2, request.tileK);
  int64_t wm = asked(warps, 0, request.warpsM);
  int64_t wn = asked(warps, 1, request.warpsN);
  if ((m && m != kTileM) || (k && k != kTileK) ||
      (n && (n % kTileNStep || n > kMaxTileN)) ||
      (wm && wm != kConsumerWarpgroups) || (wn && wn != kWarpsPerWarpgroup)) {
    why = "mma.sync: the tile or warps asked for are not the wgmma "
          "kernel's (128 x n x 64, n a multiple of 64 up to 256, 2 x 4 "
          "warps)";
    return GPUMma::MmaSync;
  }
  why = "wgmma: 16-bit inputs, ragged rows, on " + request.chip;
  return GPUMma::Wgmma;
}

/// The first of the given values (the op's, the request's, the
/// heuristic's) that is set (positive); `source` (if given) says whose.
int64_t pick(std::initializer_list<int64_t> values, Source *source = nullptr) {
  int index = 0;
  for (int64_t v : values) {
    if (v > 0) {
      if (source)
        *source = static_cast<Source>(index);
      return v;
    }
    ++index;
  }
  if (source)
    *source = Source::Heuristic;
  return 0;
}

/// Where a field of `names.size()` values whose sources are `sources` came
/// from, in words; `heuristic` says why the heuristic chose what it did.
std::string explainSources(ArrayRef<Source> sources, ArrayRef<StringRef> names,
                           StringRef heuristic) {
  auto say = [&](Source source) -> std::string {
    switch (source) {
    case Source::Op:
      return "the op's gmm.kernel_config";
    case Source::Request:
      return "the pipeline's options";
    case Source::Heuristic:
      return ("heuristic: " + heuristic).str();
    }
    llvm_unreachable("unknown source");
  };
  if (llvm::all_equal(sources))
    return say(sources.front());
  std::string text;
  for (auto [name, source] : llvm::zip_equal(names, sources))
    text += (text.empty() ? "" : "; ") + name.str() + " from " + say(source);
  return text;
}

} // namespace

LogicalResult
mlir::gmm::verifyKernelConfigRequest(const KernelConfigRequest &request,
                                     function_ref<void(const Twine &)> report) {
  const TileLimits &limits =
      request.target == KernelTarget::GPU ? kGPUTileLimits : kCPUTileLimits;
  // Each option's range, 0 to its bound, and what 0 asks for.
  StringRef heuristic = "the heuristic";
  for (auto [name, value, max, zero] :
       {std::tuple<StringRef, int64_t, int64_t, StringRef>{
            "tile-m", request.tileM, limits.maxSide(), heuristic},
        {"tile-n", request.tileN, limits.maxSide(), heuristic},
        {"tile-k", request.tileK, limits.maxStep, heuristic},
        {"warps-m", request.warpsM, kMaxWarpsPerBlock, heuristic},
        {"warps-n", request.warpsN, kMaxWarpsPerBlock, heuristic},
        {"stages", request.stages, kMaxStagesOfAnyKernel, heuristic},
        {"raster", request.raster, kMaxRasterBand, heuristic},
        {"micro-m", request.microM, kMaxRegisterRows, heuristic},
        {"micro-n", request.microN, kMaxRegisterLanes, heuristic},
        {"threads", request.threads, kMaxThreads,
         "the threads this process may run on"}})
    if (value < 0 || value > max) {
      report(name + " = " + Twine(value) + " is out of range: 0 (" + zero +
             ") to " + Twine(max));
      return failure();
    }
  // A chip is checked as gmm-to-ptx checks it, so that no configuration is
  // made for a chip that the pipeline then refuses; none (the 48 KiB every
  // chip has) is allowed.
  if (request.target == KernelTarget::GPU && !request.chip.empty() &&
      failed(verifyGPUChip(request.chip, [&](const Twine &message) {
        report(message);
        return failure();
      })))
    return failure();
  if (request.vectorBits != 0 && request.vectorBits != 128 &&
      request.vectorBits != 256 && request.vectorBits != 512) {
    report("vector-bits must be 128, 256 or 512, or 0 for the host CPU's, "
           "got " +
           Twine(request.vectorBits));
    return failure();
  }
  return success();
}

FailureOr<KernelConfigAttr>
mlir::gmm::configureRaggedDot(RaggedDotOp op,
                              const KernelConfigRequest &request,
                              ConfigReasons *reasons) {
  MLIRContext *ctx = op.getContext();
  KernelConfigAttr given;
  if (Attribute attr = op->getAttr(kKernelConfigAttrName)) {
    given = dyn_cast<KernelConfigAttr>(attr);
    if (!given)
      return op.emitOpError("expects '")
             << kKernelConfigAttrName << "' to be a #gmm.kernel_config, got "
             << attr;
  }
  KernelTarget target = request.target;
  if (given && given.getTarget() && *given.getTarget() != target)
    return op.emitOpError("is configured for the ")
           << stringifyKernelTarget(*given.getTarget())
           << ", but this pipeline compiles for the "
           << stringifyKernelTarget(target);
  Type inputType = op.getLhs().getType().getElementType();
  Type accType = op.getAccumulatorType();
  auto field = [&](ArrayRef<int64_t> values, size_t i) -> int64_t {
    return given && i < values.size() ? values[i] : 0;
  };
  ArrayRef<int64_t> givenTile = given ? given.getTile() : ArrayRef<int64_t>();
  SmallVector<int64_t> tile, warps, block;
  int64_t stages = 0;
  std::optional<MicroKernel> microKernel;
  // Where each field came from, for `reasons`.
  Source tileFrom[3], warpsFrom[2], stagesFrom, blockFrom[2];
  std::string tileWhy, warpsWhy, blockWhy, kernelWhy;
  auto pickTile = [&](std::array<int64_t, 3> heuristic) {
    tile = {
        pick({field(givenTile, 0), request.tileM, heuristic[0]}, &tileFrom[0]),
        pick({field(givenTile, 1), request.tileN, heuristic[1]}, &tileFrom[1]),
        pick({field(givenTile, 2), request.tileK, heuristic[2]}, &tileFrom[2])};
  };
  std::optional<GPUMma> mma;
  std::string mmaWhy;
  Source mmaFrom = Source::Heuristic;
  if (target == KernelTarget::GPU) {
    mma = pickGPUMma(op, given, request, inputType, mmaFrom, mmaWhy);
    if (*mma == GPUMma::Wgmma && !chipHasWgmma(request.chip))
      return op.emitOpError("asks for the wgmma kernel, which needs sm_90a "
                            "(wgmma.mma_async), not '")
             << request.chip << "'";
  }
  if (target == KernelTarget::GPU && mma == GPUMma::Wgmma) {
    using namespace wgmma_shapes;
    std::optional<uint64_t> columns = staticRhsColumns(op);
    int64_t heuristicN = columns && *columns <= 128 ? 128 : kMaxTileN;
    tileWhy = heuristicN == kMaxTileN
                  ? "wgmma: two m64n256k16 warpgroups"
                  : "wgmma: at most 128 result columns, m64n128k16";
    pickTile({kTileM, heuristicN, kTileK});
    ArrayRef<int64_t> givenWarps =
        given ? given.getWarps() : ArrayRef<int64_t>();
    warps = {pick({field(givenWarps, 0), request.warpsM, kConsumerWarpgroups},
                  &warpsFrom[0]),
             pick({field(givenWarps, 1), request.warpsN, kWarpsPerWarpgroup},
                  &warpsFrom[1])};
    warpsWhy = "wgmma: two consumer warpgroups";
    int64_t fitting = stageBounds(GPUMma::Wgmma).max;
    while (fitting > stageBounds(GPUMma::Wgmma).min &&
           sharedBytes(tile[1], fitting) > maxSharedBytesPerBlock(request.chip))
      --fitting;
    stages = pick({given ? given.getStages() : 0, request.stages, fitting},
                  &stagesFrom);
  } else if (target == KernelTarget::GPU) {
    pickTile(defaultGPUTile(op, inputType, request.chip, tileWhy));
    ArrayRef<int64_t> givenWarps =
        given ? given.getWarps() : ArrayRef<int64_t>();
    stages =
        pick({given ? given.getStages() : 0, request.stages, kDefaultGPUStages},
             &stagesFrom);
    warps = {pick({field(givenWarps, 0), request.warpsM}, &warpsFrom[0]),
             pick({field(givenWarps, 1), request.warpsN}, &warpsFrom[1])};
    warpsWhy = "the most warps of 2 x 4, 2 x 2, 1 x 2, 2 x 1 and 1 x 1 that "
               "the tile splits over in " +
               std::to_string(maxSharedBytesPerBlock(request.chip)) +
               " bytes of shared memory";
    if (!warps[0] && !warps[1]) {
      // The most warps, of 2 x 4 down to 1 x 1, that the tile splits over
      // (small tiles take fewer: a 32 x 32 tile of bf16 has only 64 copies
      // of 16 bytes per operand and k step).
      static constexpr std::array<int64_t, 2> kCandidates[] = {
          {2, 4}, {2, 2}, {1, 2}, {2, 1}, {1, 1}};
      warps = {2, 4};
      for (std::array<int64_t, 2> candidate : kCandidates) {
        auto trial = KernelConfigAttr::get(
            ctx, target, tile, ArrayRef<int64_t>(candidate), stages, {},
            /*microKernel=*/std::nullopt, mma, /*raster=*/0);
        if (isValidKernelConfig(trial, inputType,
                                maxSharedBytesPerBlock(request.chip))) {
          warps.assign(candidate.begin(), candidate.end());
          break;
        }
      }
    } else {
      // One of the two given: the other from the heuristic's 2 x 4.
      warps = {warps[0] ? warps[0] : 2, warps[1] ? warps[1] : 4};
      warpsWhy = "the other count of 2 x 4";
    }
  } else {
    ArrayRef<int64_t> givenBlock =
        given ? given.getRegisterBlock() : ArrayRef<int64_t>();
    int64_t vectorBits =
        request.vectorBits > 0 ? request.vectorBits : hostVectorBits();
    std::array<int64_t, 2> heuristicBlock =
        defaultRegisterBlock(accType, vectorBits);
    block = {pick({field(givenBlock, 0), request.microM, heuristicBlock[0]},
                  &blockFrom[0]),
             pick({field(givenBlock, 1), request.microN, heuristicBlock[1]},
                  &blockFrom[1])};
    blockWhy = (Twine("fills the vector registers of ") + Twine(vectorBits) +
                "-bit vectors")
                   .str();
    tileWhy = (Twine("cache blocks around the register block for ") +
               Twine(vectorBits) + "-bit vectors")
                  .str();
    if (fewRowsVisitWidth(op, block[1], threadsOf(request)))
      tileWhy = "decode-like: at most 16 rows per group, visits as wide as "
                "the rhs's rows";
    int64_t fewRowsWidth = fewRowsVisitWidth(op, block[1], threadsOf(request));
    std::array<int64_t, 3> heuristic =
        defaultCPUTile(accType, {block[0], block[1]}, vectorBits, fewRowsWidth);
    if (vectorBits >= 512 && !fewRowsWidth) {
      // Whole register panels of columns, within the CPU's bounds.
      int64_t lanes = std::clamp<int64_t>(block[1], 1, kMaxRegisterLanes);
      int64_t cols = std::min<int64_t>(llvm::alignTo(kLargeVisitCols, lanes),
                                       kCPUTileLimits.maxSize);
      int64_t rows = std::min({kLargeVisitRows, kCPUTileLimits.maxSize,
                               kCPUTileLimits.maxAccumulators / cols});
      if (rows >= heuristic[0] && cols >= heuristic[1] &&
          takesLargeVisits(op, rows, cols, threadsOf(request))) {
        heuristic = {rows, cols, heuristic[2]};
        tileWhy = "large visits: enough of them for every thread";
      }
    }
    pickTile(heuristic);
    // A register block no taller than the tile, unless asked for.
    if (!field(givenBlock, 0) && !request.microM)
      block[0] = std::min(block[0], tile[0]);
    // The micro-kernel: the op's, else the option's for the ops it applies
    // to, else the heuristic's, which takes bf16_dot where it can run (and
    // the blocks suit it) and fma elsewhere. With vector-bits given, the
    // code is for a CPU that may not be this one: fma, which every CPU runs.
    bool bf16DotFits =
        inputType.isBF16() && block[1] % kBF16DotLanes == 0 && tile[2] % 2 == 0;
    if (given && given.getMicroKernel()) {
      microKernel = given.getMicroKernel();
      kernelWhy = "the op's gmm.kernel_config";
    } else if (request.microKernel == MicroKernelOption::FMA) {
      microKernel = MicroKernel::FMA;
      kernelWhy = "the pipeline's options";
    } else if (request.microKernel == MicroKernelOption::BF16Dot) {
      microKernel =
          inputType.isBF16() ? MicroKernel::BF16Dot : MicroKernel::FMA;
      kernelWhy = inputType.isBF16() ? "the pipeline's options"
                                     : "the pipeline's options (bf16_dot), "
                                       "which apply to bf16 inputs only";
    } else {
      std::string hostWhy;
      bool host = inputType.isBF16() && request.vectorBits == 0 &&
                  vectorBits == 512 && hostPrefersBF16Dot(&hostWhy);
      microKernel =
          host && bf16DotFits ? MicroKernel::BF16Dot : MicroKernel::FMA;
      if (!inputType.isBF16())
        kernelWhy = "heuristic: not bf16 inputs";
      else if (request.vectorBits != 0)
        kernelWhy = "heuristic: vector-bits is given, so the code may run on "
                    "another CPU";
      else if (vectorBits != 512)
        kernelWhy = "heuristic: the host has no AVX-512";
      else if (host && !bf16DotFits)
        kernelWhy = "heuristic: the register block or contraction block "
                    "does not suit bf16_dot";
      else
        kernelWhy = "heuristic: " + hostWhy;
    }
  }
  // The raster band: the op's, else the request's, else the heuristic's (8
  // visits for the wgmma kernel; none, one band of all the visits, for the
  // sm_80 kernel, whose order the H200 runs measured).
  int64_t raster = 0;
  Source rasterFrom = Source::Heuristic;
  if (target == KernelTarget::GPU)
    raster = pick({given ? given.getRaster() : 0, request.raster,
                   mma == GPUMma::Wgmma ? kWgmmaRasterBand : 0},
                  &rasterFrom);
  auto emitError = [&] { return op.emitOpError(); };
  auto config = KernelConfigAttr::getChecked(
      function_ref<InFlightDiagnostic()>(emitError), ctx,
      std::optional<KernelTarget>(target), ArrayRef<int64_t>(tile),
      ArrayRef<int64_t>(warps), stages, ArrayRef<int64_t>(block), microKernel,
      // mma_sync, the default, goes without saying.
      mma == GPUMma::Wgmma ? mma : std::nullopt, raster);
  if (!config)
    return failure();
  if (failed(verifyKernelConfig(
          config, inputType, maxSharedBytesPerBlock(request.chip), emitError)))
    return failure();
  if (reasons) {
    reasons->clear();
    reasons->emplace_back("tile",
                          explainSources(tileFrom, {"m", "n", "k"}, tileWhy));
    if (target == KernelTarget::GPU) {
      reasons->emplace_back(
          "warps", explainSources(warpsFrom, {"rows", "columns"}, warpsWhy));
      reasons->emplace_back(
          "stages", explainSources(stagesFrom, {"stages"},
                                   mma == GPUMma::Wgmma
                                       ? "the most that fit in shared memory"
                                       : "the default"));
      reasons->emplace_back("mma", explainSources(mmaFrom, {"mma"}, mmaWhy));
      reasons->emplace_back(
          "raster",
          explainSources(rasterFrom, {"raster"},
                         mma == GPUMma::Wgmma
                             ? "bands of 8 visits, their column tiles in turn"
                             : "one band of all the visits"));
    } else {
      reasons->emplace_back(
          "register_block",
          explainSources(blockFrom, {"rows", "lanes"}, blockWhy));
      reasons->emplace_back("micro_kernel", kernelWhy);
    }
  }
  return config;
}
