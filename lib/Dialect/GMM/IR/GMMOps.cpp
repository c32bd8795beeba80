//===- GMMOps.cpp - gmm operations ----------------------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gmm;

StringRef mlir::gmm::describeRaggedDotMode(RaggedDotMode mode) {
  switch (mode) {
  case RaggedDotMode::NonContracting:
    return "mode 1 (ragged free dimension)";
  case RaggedDotMode::Contracting:
    return "mode 2 (ragged contracting dimension)";
  case RaggedDotMode::Batch:
    return "mode 3 (ragged batching dimension)";
  }
  llvm_unreachable("unknown ragged dot mode");
}

//===----------------------------------------------------------------------===//
// Shape rules shared by the verifier, type inference and shape reification.
//===----------------------------------------------------------------------===//

namespace {

/// Where one dimension of the result comes from.
struct ResultDimSource {
  enum Kind {
    /// The number of groups, the last dimension of group_sizes (mode 2).
    Groups,
    /// G_local, the groups computed under a group offset (mode 2).
    LocalGroups,
    /// A batching dimension: lhs dimension `dim`, paired with rhs `rhsDim`.
    Batch,
    /// A free lhs dimension.
    Lhs,
    /// A free rhs dimension.
    Rhs,
  };
  Kind kind;
  int64_t dim = -1;
  int64_t rhsDim = -1;
};

std::string shapeToString(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t size) {
    if (ShapedType::isDynamic(size))
      os << '?';
    else
      os << size;
  });
  os << ']';
  return text;
}

/// Two sizes agree unless both are static and differ.
bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

RaggedDotMode modeOf(RaggedDotDimensionNumbersAttr dims, int64_t raggedDim) {
  if (llvm::is_contained(dims.getLhsBatchingDimensions(), raggedDim))
    return RaggedDotMode::Batch;
  if (llvm::is_contained(dims.getLhsContractingDimensions(), raggedDim))
    return RaggedDotMode::Contracting;
  return RaggedDotMode::NonContracting;
}

/// Result dimensions in order: [g] (mode 2), lhs batching dims (attribute
/// order), lhs free dims and rhs free dims (ascending). Assumes valid dims.
SmallVector<ResultDimSource>
getResultDimSources(RaggedDotDimensionNumbersAttr dims, int64_t lhsRank,
                    int64_t rhsRank, bool hasGroupOffset) {
  SmallVector<ResultDimSource> sources;
  ArrayRef<int64_t> lhsBatch = dims.getLhsBatchingDimensions();
  ArrayRef<int64_t> rhsBatch = dims.getRhsBatchingDimensions();
  if (modeOf(dims, dims.getLhsRaggedDimensions().front()) ==
      RaggedDotMode::Contracting)
    sources.push_back({hasGroupOffset ? ResultDimSource::LocalGroups
                                      : ResultDimSource::Groups});
  for (auto [lhsDim, rhsDim] : llvm::zip_equal(lhsBatch, rhsBatch))
    sources.push_back({ResultDimSource::Batch, lhsDim, rhsDim});
  for (int64_t d : dims.getLhsFreeDimensions(lhsRank))
    sources.push_back({ResultDimSource::Lhs, d});
  for (int64_t d : dims.getRhsFreeDimensions(rhsRank))
    sources.push_back({ResultDimSource::Rhs, d});
  return sources;
}

/// Describes a result dimension's origin for diagnostics.
std::string describeSource(const ResultDimSource &source) {
  switch (source.kind) {
  case ResultDimSource::Groups:
    return "the number of groups in group_sizes";
  case ResultDimSource::LocalGroups:
    return "the number of local groups";
  case ResultDimSource::Batch:
    return "lhs batching dimension " + std::to_string(source.dim);
  case ResultDimSource::Lhs:
    return "lhs dimension " + std::to_string(source.dim);
  case ResultDimSource::Rhs:
    return "rhs dimension " + std::to_string(source.dim);
  }
  llvm_unreachable("unknown result dimension source");
}

/// Checks that every entry of `list` (named `name`) indexes `operand`'s rank.
LogicalResult checkInRange(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<int64_t> list, StringRef name,
                           StringRef operand, int64_t rank) {
  for (auto [i, d] : llvm::enumerate(list)) {
    if (d < 0 || d >= rank) {
      if (emitError)
        emitError() << name << "[" << i << "] = " << d
                    << " is out of range for " << operand << " of rank "
                    << rank;
      return failure();
    }
  }
  return success();
}

/// Checks that no dimension of `operand` is listed twice across `lists`.
LogicalResult
checkDistinct(function_ref<InFlightDiagnostic()> emitError, StringRef operand,
              ArrayRef<std::pair<StringRef, ArrayRef<int64_t>>> lists) {
  SmallVector<std::pair<int64_t, StringRef>> seen;
  for (auto [name, list] : lists) {
    for (int64_t d : list) {
      const auto *it =
          llvm::find_if(seen, [&](auto &p) { return p.first == d; });
      if (it == seen.end()) {
        seen.push_back({d, name});
        continue;
      }
      if (emitError) {
        if (it->second == name)
          emitError() << operand << " dimension " << d << " is listed twice in "
                      << name;
        else
          emitError() << operand << " dimension " << d << " is listed in both "
                      << it->second << " and " << name;
      }
      return failure();
    }
  }
  return success();
}

} // namespace

SmallVector<int64_t>
mlir::gmm::getGroupSizesPrefixDims(RaggedDotDimensionNumbersAttr dims) {
  ArrayRef<int64_t> lhsBatch = dims.getLhsBatchingDimensions();
  ArrayRef<int64_t> lhsContract = dims.getLhsContractingDimensions();
  int64_t raggedDim = dims.getLhsRaggedDimensions().front();
  SmallVector<int64_t> prefixDims;
  switch (modeOf(dims, raggedDim)) {
  case RaggedDotMode::Batch:
    prefixDims.append(lhsBatch.begin(), llvm::find(lhsBatch, raggedDim));
    break;
  case RaggedDotMode::Contracting:
    prefixDims.append(lhsBatch.begin(), lhsBatch.end());
    prefixDims.append(lhsContract.begin(), llvm::find(lhsContract, raggedDim));
    break;
  case RaggedDotMode::NonContracting:
    // The batching dimensions, then the free ones before the ragged one.
    prefixDims.append(lhsBatch.begin(), lhsBatch.end());
    llvm::append_range(prefixDims, dims.getLhsFreeDimensions(raggedDim));
    break;
  }
  return prefixDims;
}

FailureOr<RankedTensorType> RaggedDotOp::inferResultType(
    RankedTensorType lhsType, RankedTensorType rhsType,
    RankedTensorType groupSizesType, bool hasGroupOffset,
    RaggedDotDimensionNumbersAttr dims, Type resultElementType,
    function_ref<InFlightDiagnostic()> emitError, int64_t numLocalGroups) {
  ArrayRef<int64_t> lhsBatch = dims.getLhsBatchingDimensions();
  ArrayRef<int64_t> rhsBatch = dims.getRhsBatchingDimensions();
  ArrayRef<int64_t> lhsContract = dims.getLhsContractingDimensions();
  ArrayRef<int64_t> rhsContract = dims.getRhsContractingDimensions();
  ArrayRef<int64_t> lhsRagged = dims.getLhsRaggedDimensions();
  ArrayRef<int64_t> rhsGroup = dims.getRhsGroupDimensions();
  int64_t lhsRank = lhsType.getRank();
  int64_t rhsRank = rhsType.getRank();
  ArrayRef<int64_t> lhsShape = lhsType.getShape();
  ArrayRef<int64_t> rhsShape = rhsType.getShape();

  // Element types.
  if (lhsType.getElementType() != rhsType.getElementType()) {
    if (emitError)
      emitError() << "lhs element type " << lhsType.getElementType()
                  << " differs from rhs element type "
                  << rhsType.getElementType();
    return failure();
  }

  // The dot_general rules: paired lists, ranges, distinctness, sizes.
  if (lhsBatch.size() != rhsBatch.size()) {
    if (emitError)
      emitError() << "lhs_batching_dimensions and rhs_batching_dimensions "
                     "must have the same length, got "
                  << lhsBatch.size() << " and " << rhsBatch.size();
    return failure();
  }
  if (lhsContract.size() != rhsContract.size()) {
    if (emitError)
      emitError()
          << "lhs_contracting_dimensions and "
             "rhs_contracting_dimensions must have the same length, got "
          << lhsContract.size() << " and " << rhsContract.size();
    return failure();
  }
  if (failed(checkInRange(emitError, lhsBatch, "lhs_batching_dimensions", "lhs",
                          lhsRank)) ||
      failed(checkInRange(emitError, lhsContract, "lhs_contracting_dimensions",
                          "lhs", lhsRank)) ||
      failed(checkInRange(emitError, rhsBatch, "rhs_batching_dimensions", "rhs",
                          rhsRank)) ||
      failed(checkInRange(emitError, rhsContract, "rhs_contracting_dimensions",
                          "rhs", rhsRank)))
    return failure();
  if (failed(checkDistinct(emitError, "lhs",
                           {{"lhs_batching_dimensions", lhsBatch},
                            {"lhs_contracting_dimensions", lhsContract}})) ||
      failed(checkDistinct(emitError, "rhs",
                           {{"rhs_batching_dimensions", rhsBatch},
                            {"rhs_contracting_dimensions", rhsContract}})))
    return failure();
  for (auto [lhsDim, rhsDim] : llvm::zip_equal(lhsBatch, rhsBatch)) {
    if (!compatible(lhsShape[lhsDim], rhsShape[rhsDim])) {
      if (emitError)
        emitError() << "lhs batching dimension " << lhsDim << " has size "
                    << lhsShape[lhsDim] << " but rhs batching dimension "
                    << rhsDim << " has size " << rhsShape[rhsDim];
      return failure();
    }
  }
  for (auto [lhsDim, rhsDim] : llvm::zip_equal(lhsContract, rhsContract)) {
    if (!compatible(lhsShape[lhsDim], rhsShape[rhsDim])) {
      if (emitError)
        emitError() << "lhs contracting dimension " << lhsDim << " has size "
                    << lhsShape[lhsDim] << " but rhs contracting dimension "
                    << rhsDim << " has size " << rhsShape[rhsDim];
      return failure();
    }
  }

  // Exactly one ragged lhs dimension, which picks the mode.
  if (lhsRagged.size() != 1) {
    if (emitError)
      emitError() << "expects exactly one lhs ragged dimension, got "
                  << lhsRagged.size();
    return failure();
  }
  if (failed(checkInRange(emitError, lhsRagged, "lhs_ragged_dimensions", "lhs",
                          lhsRank)))
    return failure();
  int64_t raggedDim = lhsRagged.front();
  RaggedDotMode mode = modeOf(dims, raggedDim);

  SmallVector<int64_t> prefixDims = getGroupSizesPrefixDims(dims);
  SmallVector<int64_t> expectedPrefix =
      llvm::map_to_vector(prefixDims, [&](int64_t d) { return lhsShape[d]; });
  ArrayRef<int64_t> groupSizesShape = groupSizesType.getShape();
  bool groupSizesOk = groupSizesType.getRank() == 1;
  if (!groupSizesOk &&
      groupSizesType.getRank() == static_cast<int64_t>(prefixDims.size()) + 1)
    groupSizesOk =
        llvm::all_of(llvm::zip(expectedPrefix, groupSizesShape), [](auto pair) {
          return compatible(std::get<0>(pair), std::get<1>(pair));
        });
  if (!groupSizesOk) {
    if (emitError) {
      InFlightDiagnostic diag = emitError()
                                << "expects group_sizes of shape [g]";
      if (!expectedPrefix.empty()) {
        std::string prefix = shapeToString(expectedPrefix);
        diag << " or [" << StringRef(prefix).drop_front().drop_back() << ", g]";
      }
      diag << " in " << describeRaggedDotMode(mode) << ", got "
           << shapeToString(groupSizesShape);
    }
    return failure();
  }
  int64_t numGroups = groupSizesShape.back();

  // The rhs group dimension: at most one, in range, not batching or
  // contracting; exactly one in mode 1 (of size g), none otherwise.
  if (rhsGroup.size() > 1) {
    if (emitError)
      emitError() << "expects at most one rhs group dimension, got "
                  << rhsGroup.size();
    return failure();
  }
  if (failed(checkInRange(emitError, rhsGroup, "rhs_group_dimensions", "rhs",
                          rhsRank)) ||
      failed(checkDistinct(emitError, "rhs",
                           {{"rhs_batching_dimensions", rhsBatch},
                            {"rhs_contracting_dimensions", rhsContract},
                            {"rhs_group_dimensions", rhsGroup}})))
    return failure();
  if (mode == RaggedDotMode::NonContracting) {
    if (rhsGroup.empty()) {
      if (emitError)
        emitError() << "expects one rhs group dimension in "
                    << describeRaggedDotMode(mode) << ", got none";
      return failure();
    }
    int64_t groupDimSize = rhsShape[rhsGroup.front()];
    if (!hasGroupOffset && !compatible(groupDimSize, numGroups)) {
      if (emitError)
        emitError() << "rhs group dimension " << rhsGroup.front()
                    << " has size " << groupDimSize << " but group_sizes has "
                    << numGroups << " groups";
      return failure();
    }
    if (hasGroupOffset && !ShapedType::isDynamic(groupDimSize) &&
        !ShapedType::isDynamic(numGroups) && groupDimSize > numGroups) {
      if (emitError)
        emitError() << "rhs group dimension " << rhsGroup.front()
                    << " has size " << groupDimSize << ", more than the "
                    << numGroups << " groups in group_sizes";
      return failure();
    }
  } else if (!rhsGroup.empty()) {
    if (emitError)
      emitError() << "expects no rhs group dimension in "
                  << describeRaggedDotMode(mode)
                  << ", got rhs_group_dimensions = [" << rhsGroup.front()
                  << "]";
    return failure();
  }
  if (hasGroupOffset && mode == RaggedDotMode::Batch) {
    if (emitError)
      emitError() << "group_offset is not supported in "
                  << describeRaggedDotMode(mode);
    return failure();
  }

  // The result shape.
  SmallVector<int64_t> shape;
  for (const ResultDimSource &source :
       getResultDimSources(dims, lhsRank, rhsRank, hasGroupOffset)) {
    switch (source.kind) {
    case ResultDimSource::Groups:
      shape.push_back(numGroups);
      break;
    case ResultDimSource::LocalGroups:
      shape.push_back(numLocalGroups);
      break;
    case ResultDimSource::Batch:
      shape.push_back(ShapedType::isDynamic(lhsShape[source.dim])
                          ? rhsShape[source.rhsDim]
                          : lhsShape[source.dim]);
      break;
    case ResultDimSource::Lhs:
      shape.push_back(lhsShape[source.dim]);
      break;
    case ResultDimSource::Rhs:
      shape.push_back(rhsShape[source.dim]);
      break;
    }
  }
  Type elementType =
      resultElementType ? resultElementType : lhsType.getElementType();
  return RankedTensorType::get(shape, elementType);
}

//===----------------------------------------------------------------------===//
// RaggedDotOp
//===----------------------------------------------------------------------===//

void RaggedDotOp::build(OpBuilder &builder, OperationState &state, Value lhs,
                        Value rhs, Value groupSizes,
                        RaggedDotDimensionNumbersAttr dimensionNumbers,
                        Type resultElementType, Value groupOffset, Value init) {
  Type resultType;
  if (init) {
    resultType = init.getType();
  } else {
    auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
    auto rhsType = dyn_cast<RankedTensorType>(rhs.getType());
    auto groupSizesType = dyn_cast<RankedTensorType>(groupSizes.getType());
    FailureOr<RankedTensorType> inferred = failure();
    if (lhsType && rhsType && groupSizesType)
      inferred = inferResultType(lhsType, rhsType, groupSizesType,
                                 static_cast<bool>(groupOffset),
                                 dimensionNumbers, resultElementType, nullptr);
    // An ill-formed op is still built, with an unranked placeholder type that
    // the verifier rejects, so that the error surfaces with a location.
    resultType = succeeded(inferred)
                     ? Type(*inferred)
                     : Type(UnrankedTensorType::get(
                           resultElementType ? resultElementType
                                             : getElementTypeOrSelf(lhs)));
  }
  build(builder, state, resultType, lhs, rhs, groupSizes, groupOffset, init,
        dimensionNumbers);
}

FloatType RaggedDotOp::getAccumulatorType() {
  Builder b(getContext());
  return getLhs().getType().getElementType().isF64()
             ? FloatType(b.getF64Type())
             : FloatType(b.getF32Type());
}

RaggedDotMode RaggedDotOp::getMode() {
  return modeOf(getDimensionNumbers(), getLhsRaggedDimension());
}

SmallVector<RaggedDotSizeAgreement> RaggedDotOp::getSizeAgreements() {
  RaggedDotDimensionNumbersAttr dims = getDimensionNumbers();
  Value lhs = getLhs(), rhs = getRhs(), groupSizes = getGroupSizes();
  int64_t lhsRank = cast<ShapedType>(lhs.getType()).getRank();
  int64_t rhsRank = cast<ShapedType>(rhs.getType()).getRank();
  int64_t groupSizesRank = cast<ShapedType>(groupSizes.getType()).getRank();
  auto dimName = [](StringRef operand, StringRef kind, int64_t dim) {
    return (operand + " " + kind + (kind.empty() ? "" : " ") + "dimension " +
            Twine(dim))
        .str();
  };
  SmallVector<RaggedDotSizeAgreement> agreements;
  auto agree = [&](Value value, int64_t dim, Value other, int64_t otherDim,
                   std::string first, std::string second) {
    agreements.push_back(
        {value, dim, other, otherDim, first + " and " + second});
  };
  for (auto [lhsDim, rhsDim] : llvm::zip_equal(dims.getLhsBatchingDimensions(),
                                               dims.getRhsBatchingDimensions()))
    agree(lhs, lhsDim, rhs, rhsDim, dimName("lhs", "batching", lhsDim),
          dimName("rhs", "batching", rhsDim));
  for (auto [lhsDim, rhsDim] :
       llvm::zip_equal(dims.getLhsContractingDimensions(),
                       dims.getRhsContractingDimensions()))
    agree(lhs, lhsDim, rhs, rhsDim, dimName("lhs", "contracting", lhsDim),
          dimName("rhs", "contracting", rhsDim));
  // group_sizes of shape [prefix..., g]: its prefix indexes lhs dimensions.
  if (groupSizesRank > 1)
    for (auto [index, lhsDim] : llvm::enumerate(getGroupSizesPrefixDims(dims)))
      agree(groupSizes, index, lhs, lhsDim, dimName("group_sizes", "", index),
            dimName("lhs", "", lhsDim));
  int64_t groupsDim = groupSizesRank - 1;
  std::optional<int64_t> rhsGroup = getRhsGroupDimension();
  if (rhsGroup && !getGroupOffset())
    agree(rhs, *rhsGroup, groupSizes, groupsDim,
          dimName("rhs", "group", *rhsGroup),
          "the number of groups in group_sizes");

  // The result's dimensions, from the result type (its static sizes) and
  // from init (all of them).
  auto resultType = cast<ShapedType>(getResult().getType());
  Value init = getInit();
  for (auto [d, source] : llvm::enumerate(getResultDimSources(
           dims, lhsRank, rhsRank, static_cast<bool>(getGroupOffset())))) {
    Value value;
    int64_t dim = 0;
    std::string name;
    switch (source.kind) {
    case ResultDimSource::Groups:
      value = groupSizes, dim = groupsDim;
      name = "the number of groups in group_sizes";
      break;
    case ResultDimSource::LocalGroups:
      continue;
    case ResultDimSource::Batch:
    case ResultDimSource::Lhs:
      value = lhs, dim = source.dim;
      name = dimName("lhs", "", source.dim);
      break;
    case ResultDimSource::Rhs:
      value = rhs, dim = source.dim;
      name = dimName("rhs", "", source.dim);
      break;
    }
    int64_t size = resultType.getDimSize(d);
    if (!ShapedType::isDynamic(size))
      agree(value, dim, Value(), size, name,
            "result dimension " + std::to_string(d));
    if (init)
      agree(value, dim, init, d, name, dimName("init", "", d));
  }
  return agreements;
}

int64_t RaggedDotOp::getLhsRaggedDimension() {
  return getDimensionNumbers().getLhsRaggedDimensions().front();
}

std::optional<int64_t> RaggedDotOp::getRhsGroupDimension() {
  ArrayRef<int64_t> group = getDimensionNumbers().getRhsGroupDimensions();
  if (group.empty())
    return std::nullopt;
  return group.front();
}

int64_t RaggedDotOp::getNumGroups() {
  return getGroupSizes().getType().getShape().back();
}

bool RaggedDotOp::isNormalized() {
  RaggedDotDimensionNumbersAttr dims = getDimensionNumbers();
  auto is = [](ArrayRef<int64_t> list, ArrayRef<int64_t> expected) {
    return list == expected;
  };
  int64_t lhsRank = getLhs().getType().getRank();
  int64_t rhsRank = getRhs().getType().getRank();
  int64_t sizesRank = getGroupSizes().getType().getRank();
  if (lhsRank != 4 || rhsRank != 4 ||
      !is(dims.getLhsBatchingDimensions(), {0}) ||
      !is(dims.getRhsBatchingDimensions(), {0}))
    return false;
  switch (getMode()) {
  case RaggedDotMode::NonContracting:
    return sizesRank == 3 && is(dims.getLhsContractingDimensions(), {3}) &&
           is(dims.getLhsRaggedDimensions(), {2}) &&
           is(dims.getRhsGroupDimensions(), {1}) &&
           (is(dims.getRhsContractingDimensions(), {2}) ||
            is(dims.getRhsContractingDimensions(), {3}));
  case RaggedDotMode::Contracting:
    return sizesRank == 2 &&
           ((is(dims.getLhsContractingDimensions(), {1, 2}) &&
             is(dims.getLhsRaggedDimensions(), {1})) ||
            (is(dims.getLhsContractingDimensions(), {2, 3}) &&
             is(dims.getLhsRaggedDimensions(), {2}))) &&
           (is(dims.getRhsContractingDimensions(), {1, 2}) ||
            is(dims.getRhsContractingDimensions(), {2, 3}));
  case RaggedDotMode::Batch:
    return false;
  }
  return false;
}

LogicalResult RaggedDotOp::verify() {
  // The generic form states the operand segments itself: before anything
  // reads an operand, lhs, rhs and group_sizes must have exactly one value
  // each and group_offset and init at most one (a sum that matches the
  // operand count is all that the segment trait checks).
  static constexpr StringLiteral kOperandNames[] = {"lhs", "rhs", "group_sizes",
                                                    "group_offset", "init"};
  ArrayRef<int32_t> segments = getProperties().operandSegmentSizes;
  for (auto [index, size] : llvm::enumerate(segments)) {
    bool optional = index >= 3;
    if (size == 1 || (optional && size == 0))
      continue;
    return emitOpError("operandSegmentSizes gives ")
           << size << " values to " << kOperandNames[index] << ", which takes "
           << (optional ? "at most one" : "exactly one");
  }

  auto emitError = [&]() { return emitOpError(); };
  RankedTensorType resultType = getResult().getType();
  FailureOr<RankedTensorType> inferred = inferResultType(
      getLhs().getType(), getRhs().getType(), getGroupSizes().getType(),
      static_cast<bool>(getGroupOffset()), getDimensionNumbers(),
      resultType.getElementType(), emitError);
  if (failed(inferred))
    return failure();

  if (Value offset = getGroupOffset()) {
    auto offsetType = cast<RankedTensorType>(offset.getType());
    if (offsetType.getRank() > 1 ||
        (offsetType.getRank() == 1 && offsetType.getDimSize(0) != 1))
      return emitOpError("expects group_offset of shape [] or [1], got ")
             << shapeToString(offsetType.getShape());
    if (offsetType.getElementType() !=
        getGroupSizes().getType().getElementType())
      return emitOpError("group_offset element type ")
             << offsetType.getElementType()
             << " differs from group_sizes element type "
             << getGroupSizes().getType().getElementType();
  }

  ArrayRef<int64_t> expected = inferred->getShape();
  if (resultType.getRank() != inferred->getRank())
    return emitOpError("expects result of rank ")
           << inferred->getRank() << " " << shapeToString(expected) << ", got "
           << resultType;
  SmallVector<ResultDimSource> sources = getResultDimSources(
      getDimensionNumbers(), getLhs().getType().getRank(),
      getRhs().getType().getRank(), static_cast<bool>(getGroupOffset()));
  for (auto [i, size, expectedSize, source] :
       llvm::enumerate(resultType.getShape(), expected, sources)) {
    if (!compatible(size, expectedSize))
      return emitOpError("result dimension ")
             << i << " has size " << size << ", expected " << expectedSize
             << " (" << describeSource(source) << ")";
    if (source.kind != ResultDimSource::LocalGroups)
      continue;
    // Mode 2 under a group offset: G_local comes from the result (or init).
    int64_t numGroups = getNumGroups();
    if (ShapedType::isDynamic(size) && !getInit())
      return emitOpError("needs a static result group dimension or an init "
                         "operand when group_offset is given in ")
             << describeRaggedDotMode(getMode());
    if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(numGroups) &&
        size > numGroups)
      return emitOpError("result dimension 0 has ")
             << size << " local groups, more than the " << numGroups
             << " groups in group_sizes";
  }

  if (Value init = getInit(); init && init.getType() != resultType)
    return emitOpError("init type ")
           << init.getType() << " differs from result type " << resultType;
  return success();
}

Speculation::Speculatability RaggedDotOp::getSpeculatability() {
  // With static shapes the verifier has proven the operands consistent and
  // the op is total for any group sizes. With dynamic shapes a mismatch of
  // run-time sizes would be undefined, so the op must not be hoisted.
  auto isStatic = [](Value v) {
    return cast<ShapedType>(v.getType()).hasStaticShape();
  };
  if (llvm::all_of(getOperands(), isStatic) && isStatic(getResult()))
    return Speculation::Speculatable;
  return Speculation::NotSpeculatable;
}

LogicalResult
RaggedDotOp::reifyResultShapes(OpBuilder &builder,
                               ReifiedRankedShapedTypeDims &reifiedShapes) {
  Location loc = getLoc();
  RankedTensorType resultType = getResult().getType();
  SmallVector<ResultDimSource> sources = getResultDimSources(
      getDimensionNumbers(), getLhs().getType().getRank(),
      getRhs().getType().getRank(), static_cast<bool>(getGroupOffset()));
  SmallVector<OpFoldResult> &shape = reifiedShapes.emplace_back();
  for (auto [i, source] : llvm::enumerate(sources)) {
    if (!resultType.isDynamicDim(i)) {
      shape.push_back(builder.getIndexAttr(resultType.getDimSize(i)));
      continue;
    }
    switch (source.kind) {
    case ResultDimSource::Groups: {
      Value sizes = getGroupSizes();
      shape.push_back(tensor::getMixedSize(
          builder, loc, sizes, getGroupSizes().getType().getRank() - 1));
      break;
    }
    case ResultDimSource::LocalGroups:
      // The verifier requires init when this size is dynamic.
      if (!getInit())
        return failure();
      shape.push_back(tensor::getMixedSize(builder, loc, getInit(), 0));
      break;
    case ResultDimSource::Batch:
    case ResultDimSource::Lhs:
      shape.push_back(tensor::getMixedSize(builder, loc, getLhs(), source.dim));
      break;
    case ResultDimSource::Rhs:
      shape.push_back(tensor::getMixedSize(builder, loc, getRhs(), source.dim));
      break;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TileScheduleOp
//===----------------------------------------------------------------------===//

LogicalResult TileScheduleOp::verify() {
  auto groups = getGroupSizes().getType().getDimSize(0);
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"group_starts", getGroupStarts()},
        {"group_ends", getGroupEnds()}}) {
    int64_t size = cast<RankedTensorType>(value.getType()).getDimSize(0);
    if (!compatible(size, groups))
      return emitOpError() << name << " has " << size
                           << " elements but group_sizes has " << groups;
  }
  int64_t groupIds = getGroupIds().getType().getDimSize(0);
  int64_t tileIds = getTileIds().getType().getDimSize(0);
  if (!compatible(groupIds, tileIds))
    return emitOpError() << "group_ids has " << groupIds
                         << " elements but tile_ids has " << tileIds;
  return success();
}

#define GET_OP_CLASSES
#include "gmm/Dialect/GMM/IR/GMMOps.cpp.inc"
