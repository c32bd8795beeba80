//===- GMMDialect.cpp - gmm dialect and attributes ------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Dialect/GMM/IR/GMMAttrs.h"
#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gmm;

#include "gmm/Dialect/GMM/IR/GMMDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "gmm/Dialect/GMM/IR/GMMAttrs.cpp.inc"

void GMMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "gmm/Dialect/GMM/IR/GMMOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gmm/Dialect/GMM/IR/GMMAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// RaggedDotDimensionNumbersAttr
//===----------------------------------------------------------------------===//

namespace {
/// Parses `<key = value, ...>` (or `<>`) where every key is one of `keys`,
/// at most once; `parseValue(index)` parses the value of keys[index] after
/// the `=`. Errors name `attrName` and the keys.
ParseResult parseKeyedFields(AsmParser &parser, StringRef attrName,
                             ArrayRef<llvm::StringLiteral> keys,
                             function_ref<ParseResult(size_t)> parseValue) {
  std::string all = llvm::join(keys, ", ");
  SmallVector<bool> seen(keys.size(), false);
  if (parser.parseLess())
    return failure();
  if (succeeded(parser.parseOptionalGreater()))
    return success();
  do {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (failed(parser.parseOptionalKeyword(&key)))
      return parser.emitError(keyLoc, "expected one of the keys ")
             << all << " in " << attrName;
    const auto *it = llvm::find(keys, key);
    if (it == keys.end())
      return parser.emitError(keyLoc, "unknown key '")
             << key << "' in " << attrName << "; expected one of " << all;
    size_t index = it - keys.begin();
    if (seen[index])
      return parser.emitError(keyLoc, "duplicate key '")
             << key << "' in " << attrName;
    seen[index] = true;
    if (parser.parseEqual() || parseValue(index))
      return failure();
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseGreater();
}

/// Parses `[i, j, ...]` into `values`.
ParseResult parseIntegerList(AsmParser &parser,
                             SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    return parser.parseInteger(values.emplace_back());
  });
}
} // namespace

namespace {
/// The keys of #gmm.ragged_dot, in the order the printer writes them (CHLO's).
constexpr llvm::StringLiteral kDimensionKeys[] = {
    "lhs_batching_dimensions",    "rhs_batching_dimensions",
    "lhs_contracting_dimensions", "rhs_contracting_dimensions",
    "lhs_ragged_dimensions",      "rhs_group_dimensions"};
constexpr size_t kNumDimensionKeys = std::size(kDimensionKeys);
} // namespace

Attribute RaggedDotDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> lists[kNumDimensionKeys];
  if (parseKeyedFields(
          parser, "#gmm.ragged_dot", kDimensionKeys,
          [&](size_t index) { return parseIntegerList(parser, lists[index]); }))
    return {};
  return RaggedDotDimensionNumbersAttr::get(parser.getContext(), lists[0],
                                            lists[1], lists[2], lists[3],
                                            lists[4], lists[5]);
}

/// The dimensions below `rank` that none of `lists` holds, ascending.
static SmallVector<int64_t>
dimensionsOutside(int64_t rank, ArrayRef<ArrayRef<int64_t>> lists) {
  SmallVector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (llvm::none_of(lists, [&](ArrayRef<int64_t> list) {
          return llvm::is_contained(list, d);
        }))
      free.push_back(d);
  return free;
}

SmallVector<int64_t>
RaggedDotDimensionNumbersAttr::getLhsFreeDimensions(int64_t lhsRank) const {
  return dimensionsOutside(
      lhsRank, {getLhsBatchingDimensions(), getLhsContractingDimensions()});
}

SmallVector<int64_t>
RaggedDotDimensionNumbersAttr::getRhsFreeDimensions(int64_t rhsRank) const {
  return dimensionsOutside(rhsRank, {getRhsBatchingDimensions(),
                                     getRhsContractingDimensions(),
                                     getRhsGroupDimensions()});
}

void RaggedDotDimensionNumbersAttr::print(AsmPrinter &printer) const {
  ArrayRef<int64_t> lists[kNumDimensionKeys] = {
      getLhsBatchingDimensions(),    getRhsBatchingDimensions(),
      getLhsContractingDimensions(), getRhsContractingDimensions(),
      getLhsRaggedDimensions(),      getRhsGroupDimensions()};
  printer << '<';
  bool first = true;
  for (auto [key, list] : llvm::zip_equal(kDimensionKeys, lists)) {
    if (list.empty())
      continue;
    if (!first)
      printer << ", ";
    first = false;
    printer << key << " = [";
    llvm::interleaveComma(list, printer);
    printer << ']';
  }
  printer << '>';
}

//===----------------------------------------------------------------------===//
// KernelConfigAttr
//===----------------------------------------------------------------------===//

StringRef mlir::gmm::stringifyKernelTarget(KernelTarget target) {
  return target == KernelTarget::GPU ? "gpu" : "cpu";
}

StringRef mlir::gmm::stringifyMicroKernel(MicroKernel kernel) {
  return kernel == MicroKernel::BF16Dot ? "bf16_dot" : "fma";
}

StringRef mlir::gmm::stringifyGPUMma(GPUMma mma) {
  return mma == GPUMma::Wgmma ? "wgmma" : "mma_sync";
}

namespace {
/// The keys of #gmm.kernel_config, in the order the printer writes them.
constexpr llvm::StringLiteral kConfigKeys[] = {
    "target",         "tile",         "warps", "stages",
    "register_block", "micro_kernel", "mma",   "raster"};
enum ConfigKey {
  Target,
  Tile,
  Warps,
  Stages,
  RegisterBlock,
  MicroKernelKey,
  MmaKey,
  Raster,
  NumConfigKeys
};
} // namespace

Attribute KernelConfigAttr::parse(AsmParser &parser, Type) {
  std::optional<KernelTarget> target;
  std::optional<MicroKernel> microKernel;
  std::optional<GPUMma> mma;
  SmallVector<int64_t> lists[NumConfigKeys];
  int64_t stages = 0, raster = 0;
  SMLoc loc = parser.getCurrentLocation();
  // A keyword that is `first` or `second`: whether it is `second`.
  auto parseChoice = [&](StringRef what, StringRef first, StringRef second,
                         bool &isSecond) -> ParseResult {
    SMLoc valueLoc = parser.getCurrentLocation();
    StringRef name;
    if (parser.parseKeyword(&name))
      return failure();
    if (name != first && name != second)
      return parser.emitError(valueLoc, "unknown ")
             << what << " '" << name << "' in #gmm.kernel_config; expected "
             << first << " or " << second;
    isSecond = name == second;
    return success();
  };
  auto parseValue = [&](size_t index) -> ParseResult {
    bool isSecond = false;
    switch (index) {
    case Stages:
      return parser.parseInteger(stages);
    case Raster:
      return parser.parseInteger(raster);
    case Target:
      if (parseChoice("target", "cpu", "gpu", isSecond))
        return failure();
      target = isSecond ? KernelTarget::GPU : KernelTarget::CPU;
      return success();
    case MicroKernelKey:
      if (parseChoice("micro_kernel", "fma", "bf16_dot", isSecond))
        return failure();
      microKernel = isSecond ? MicroKernel::BF16Dot : MicroKernel::FMA;
      return success();
    case MmaKey:
      if (parseChoice("mma", "mma_sync", "wgmma", isSecond))
        return failure();
      mma = isSecond ? GPUMma::Wgmma : GPUMma::MmaSync;
      return success();
    default:
      return parseIntegerList(parser, lists[index]);
    }
  };
  if (parseKeyedFields(parser, "#gmm.kernel_config", kConfigKeys, parseValue))
    return {};
  return parser.getChecked<KernelConfigAttr>(
      loc, parser.getContext(), target, lists[Tile], lists[Warps], stages,
      lists[RegisterBlock], microKernel, mma, raster);
}

void KernelConfigAttr::print(AsmPrinter &printer) const {
  printer << '<';
  llvm::ListSeparator listSeparator;
  auto separator = [&] { return StringRef(listSeparator); };
  if (std::optional<KernelTarget> target = getTarget())
    printer << separator() << "target = " << stringifyKernelTarget(*target);
  auto list = [&](StringRef key, ArrayRef<int64_t> values) {
    if (values.empty())
      return;
    printer << separator() << key << " = [";
    llvm::interleaveComma(values, printer);
    printer << ']';
  };
  list("tile", getTile());
  list("warps", getWarps());
  if (getStages())
    printer << separator() << "stages = " << getStages();
  list("register_block", getRegisterBlock());
  if (std::optional<MicroKernel> kernel = getMicroKernel())
    printer << separator()
            << "micro_kernel = " << stringifyMicroKernel(*kernel);
  if (std::optional<GPUMma> mma = getMma())
    printer << separator() << "mma = " << stringifyGPUMma(*mma);
  if (getRaster())
    printer << separator() << "raster = " << getRaster();
  printer << '>';
}

LogicalResult
KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         std::optional<KernelTarget> target,
                         ArrayRef<int64_t> tile, ArrayRef<int64_t> warps,
                         int64_t stages, ArrayRef<int64_t> registerBlock,
                         std::optional<MicroKernel> microKernel,
                         std::optional<GPUMma> mma, int64_t raster) {
  auto positive = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v > 0; });
  };
  if (!tile.empty() && (tile.size() != 3 || !positive(tile)))
    return emitError() << "#gmm.kernel_config expects tile = [m, n, k] of "
                          "positive sizes";
  if (!warps.empty() && (warps.size() != 2 || !positive(warps)))
    return emitError() << "#gmm.kernel_config expects warps = [rows, "
                          "columns] of positive counts";
  if (stages < 0)
    return emitError() << "#gmm.kernel_config expects a positive number of "
                          "stages, got "
                       << stages;
  if (raster < 0)
    return emitError() << "#gmm.kernel_config expects a positive raster "
                          "band, got "
                       << raster;
  if (!registerBlock.empty() &&
      (registerBlock.size() != 2 || !positive(registerBlock)))
    return emitError() << "#gmm.kernel_config expects register_block = "
                          "[rows, lanes] of positive sizes";
  if (target == KernelTarget::CPU &&
      (!warps.empty() || stages || mma || raster))
    return emitError() << "#gmm.kernel_config: warps, stages, mma and raster "
                          "are GPU fields, not for target = cpu";
  if (target == KernelTarget::GPU && (!registerBlock.empty() || microKernel))
    return emitError() << "#gmm.kernel_config: register_block and "
                          "micro_kernel are CPU fields, not for target = gpu";
  return success();
}

bool KernelConfigAttr::isComplete() const {
  if (!getTarget() || getTile().empty())
    return false;
  if (isGPU())
    return !getWarps().empty() && getStages() > 0;
  return !getRegisterBlock().empty();
}
