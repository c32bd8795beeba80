//===- RaggedDotCheck.cpp - Check a run against the reference -------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/RaggedDotCheck.h"
#include "gmm/Support/CommandLine.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using mlir::gmm::RaggedDotMode;
using mlir::gmm::RaggedDotOp;

namespace gmm {
namespace runner {

namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

std::string formatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g", value);
  return buffer;
}

std::string formatValue(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", value);
  return buffer;
}

/// "[1, 0, 2]": the row-major `index` of `shape` as a multi-index.
std::string formatIndex(llvm::ArrayRef<int64_t> shape, int64_t index) {
  llvm::SmallVector<int64_t> position(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] <= 0)
      continue;
    position[d] = index % shape[d];
    index /= shape[d];
  }
  return formatShape(position);
}

/// The entry argument index of `value`, if it is an argument of `entry`.
std::optional<unsigned> getArgumentIndex(Value value, func::FuncOp entry) {
  auto argument = dyn_cast_or_null<BlockArgument>(value);
  if (!argument || argument.getOwner() != &entry.getBody().front())
    return std::nullopt;
  return argument.getArgNumber();
}

/// The shape of `value` for this call: the argument's actual shape, or the
/// static type (possibly with dynamic sizes) for a computed value.
llvm::SmallVector<int64_t>
getActualShape(Value value, std::optional<unsigned> argument,
               llvm::ArrayRef<HostTensor> arguments) {
  if (argument && *argument < arguments.size())
    return llvm::SmallVector<int64_t>(arguments[*argument].shape.begin(),
                                      arguments[*argument].shape.end());
  auto type = cast<ShapedType>(value.getType());
  return llvm::SmallVector<int64_t>(type.getShape().begin(),
                                    type.getShape().end());
}

double maxAbs(const reference::Tensor &tensor) {
  double result = 0;
  for (double value : tensor.data)
    if (std::isfinite(value))
      result = std::max(result, std::fabs(value));
  return result;
}

/// [start, end) of every group of the partition at `prefix` (row-major index
/// into the leading dimensions of group_sizes; ignored for rank 1).
std::vector<std::pair<int64_t, int64_t>>
getBounds(const HostTensor &groupSizes, int64_t prefix, int64_t extent) {
  int64_t numGroups = groupSizes.shape.empty() ? 0 : groupSizes.shape.back();
  std::vector<int64_t> sizes(numGroups);
  for (int64_t j = 0; j < numGroups; ++j)
    sizes[j] = groupSizes.getInt(prefix * numGroups + j);
  return reference::groupBounds(sizes.data(), numGroups, extent);
}
} // namespace

llvm::Expected<RaggedDotBinding> findRaggedDot(func::FuncOp entry) {
  llvm::SmallVector<RaggedDotOp> ops;
  entry.walk([&](RaggedDotOp op) { ops.push_back(op); });
  if (ops.empty())
    return makeError("@" + entry.getSymName() + " contains no gmm.ragged_dot");
  if (ops.size() > 1)
    return makeError(llvm::formatv("@{0} contains {1} gmm.ragged_dot ops; "
                                   "only a function with exactly one is "
                                   "supported",
                                   entry.getSymName(), ops.size())
                         .str());
  RaggedDotBinding binding;
  RaggedDotOp op = ops.front();
  binding.op = op;
  binding.lhs = getArgumentIndex(op.getLhs(), entry);
  binding.rhs = getArgumentIndex(op.getRhs(), entry);
  binding.groupSizes = getArgumentIndex(op.getGroupSizes(), entry);
  binding.groupOffset = getArgumentIndex(op.getGroupOffset(), entry);
  binding.init = getArgumentIndex(op.getInit(), entry);
  Block &body = entry.getBody().front();
  if (auto ret = dyn_cast<func::ReturnOp>(body.getTerminator())) {
    for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
      if (operand == op.getResult()) {
        binding.result = i;
        break;
      }
    }
  }
  return binding;
}

llvm::Error checkReferenceBinding(const RaggedDotBinding &binding) {
  RaggedDotOp op = binding.op;
  auto entry = op->getParentOfType<func::FuncOp>();
  auto requireArgument = [&](Value operand, std::optional<unsigned> index,
                             StringRef name) -> llvm::Error {
    if (!operand || index)
      return llvm::Error::success();
    return makeError("the " + name + " operand of gmm.ragged_dot is not an " +
                     "argument of @" + entry.getSymName() +
                     "; the check needs every operand to be an entry "
                     "argument");
  };
  if (llvm::Error error = requireArgument(op.getLhs(), binding.lhs, "lhs"))
    return error;
  if (llvm::Error error = requireArgument(op.getRhs(), binding.rhs, "rhs"))
    return error;
  if (llvm::Error error = requireArgument(op.getGroupSizes(),
                                          binding.groupSizes, "group_sizes"))
    return error;
  if (llvm::Error error = requireArgument(op.getGroupOffset(),
                                          binding.groupOffset, "group_offset"))
    return error;
  if (llvm::Error error = requireArgument(op.getInit(), binding.init, "init"))
    return error;
  if (!binding.result)
    return makeError("@" + entry.getSymName() +
                     " does not return the result of gmm.ragged_dot "
                     "directly; the check needs it as a result");
  return llvm::Error::success();
}

llvm::Error checkRaggedDotShapes(const RaggedDotBinding &binding,
                                 llvm::ArrayRef<HostTensor> arguments) {
  RaggedDotOp op = binding.op;
  auto typeFor = [&](Value value, std::optional<unsigned> index) {
    auto type = cast<RankedTensorType>(value.getType());
    return RankedTensorType::get(getActualShape(value, index, arguments),
                                 type.getElementType());
  };
  RankedTensorType lhsType = typeFor(op.getLhs(), binding.lhs);
  RankedTensorType rhsType = typeFor(op.getRhs(), binding.rhs);
  RankedTensorType groupSizesType =
      typeFor(op.getGroupSizes(), binding.groupSizes);
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  std::optional<RankedTensorType> initType;
  if (op.getInit())
    initType = typeFor(op.getInit(), binding.init);
  if (op.getGroupOffset()) {
    RankedTensorType offsetType =
        typeFor(op.getGroupOffset(), binding.groupOffset);
    if (offsetType.hasStaticShape() && offsetType.getNumElements() != 1)
      return makeError("group_offset has shape " +
                       formatShape(offsetType.getShape()) +
                       ", expected [] or [1]");
  }
  int64_t numLocalGroups = ShapedType::kDynamic;
  if (op.getMode() == RaggedDotMode::Contracting && op.getGroupOffset()) {
    numLocalGroups = resultType.getDimSize(0);
    if (ShapedType::isDynamic(numLocalGroups) && initType)
      numLocalGroups = initType->getDimSize(0);
  }

  // Capture the verifier's message instead of printing it.
  std::string message;
  FailureOr<RankedTensorType> inferred = failure();
  {
    ScopedDiagnosticHandler handler(op->getContext(), [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    inferred = RaggedDotOp::inferResultType(
        lhsType, rhsType, groupSizesType,
        static_cast<bool>(op.getGroupOffset()), op.getDimensionNumbers(),
        resultType.getElementType(),
        [&] { return mlir::emitError(op.getLoc()); }, numLocalGroups);
  }
  if (failed(inferred))
    return makeError("the argument shapes do not fit gmm.ragged_dot: " +
                     message);
  for (auto [d, size] : llvm::enumerate(resultType.getShape())) {
    int64_t actual = inferred->getDimSize(d);
    if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(actual) &&
        size != actual)
      return makeError(llvm::formatv("with these argument shapes "
                                     "gmm.ragged_dot computes shape {0}, but "
                                     "its result type is {1}",
                                     formatShape(inferred->getShape()),
                                     resultType)
                           .str());
  }
  if (initType) {
    for (auto [d, size] : llvm::enumerate(initType->getShape())) {
      int64_t actual = inferred->getDimSize(d);
      if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(actual) &&
          size != actual)
        return makeError(llvm::formatv("init has shape {0}, but gmm.ragged_dot "
                                       "computes shape {1}",
                                       formatShape(initType->getShape()),
                                       formatShape(inferred->getShape()))
                             .str());
    }
  }
  return llvm::Error::success();
}

/// Compares `got` with `expected` within `outcome.tolerance` and fills in
/// the comparison, the verdict and the line "LABEL: PASS (...)" or
/// "LABEL: FAIL (...)".
static void judge(StringRef label, const reference::Tensor &gotValues,
                  const reference::Tensor &expected, CheckOutcome &outcome) {
  std::string tolerance = llvm::formatv("tolerance atol={0} rtol={1}",
                                        formatNumber(outcome.tolerance.atol),
                                        formatNumber(outcome.tolerance.rtol))
                              .str();
  outcome.comparison =
      reference::compare(gotValues, expected, outcome.tolerance);
  const reference::Comparison &cmp = outcome.comparison;
  outcome.passed = cmp.mismatches == 0;
  if (outcome.passed) {
    outcome.line =
        llvm::formatv("{0}: PASS ({1} elements, max abs error {2}, {3})", label,
                      outcome.numElements, formatNumber(cmp.maxAbsError),
                      tolerance)
            .str();
    return;
  }
  int64_t first = cmp.firstMismatch;
  std::string where = "at " + formatIndex(gotValues.shape, first);
  if (first >= 0 && static_cast<size_t>(first) < gotValues.data.size() &&
      static_cast<size_t>(first) < expected.data.size())
    where += ": got " + formatValue(gotValues.data[first]) + ", expected " +
             formatValue(expected.data[first]);
  outcome.line =
      llvm::formatv("{0}: FAIL ({1} of {2} elements differ, first {3}; max "
                    "abs error {4}, {5})",
                    label, cmp.mismatches, outcome.numElements, where,
                    formatNumber(cmp.maxAbsError), tolerance)
          .str();
}

/// --check's tolerance for a ragged dot with `lhs` (values of `inputType`)
/// and result type `resultType`: defaultTolerance with k the product of the
/// lhs contracting sizes, and atol scaled by max(1, max|lhs| * max|rhs|)
/// when `rhs` is known.
static reference::Tolerance
raggedDotTolerance(llvm::ArrayRef<int64_t> lhsContracting,
                   const reference::Tensor &lhs, const reference::Tensor *rhs,
                   reference::ElementType inputType,
                   reference::ElementType resultType) {
  int64_t k = 1;
  for (int64_t dim : lhsContracting)
    if (dim >= 0 && static_cast<size_t>(dim) < lhs.shape.size())
      k *= lhs.shape[dim];
  reference::Tolerance tolerance =
      reference::defaultTolerance(inputType, resultType, k);
  if (rhs)
    tolerance.atol *= std::max(1.0, maxAbs(lhs) * maxAbs(*rhs));
  return tolerance;
}

llvm::Expected<CheckOutcome>
checkAgainstReference(const RaggedDotBinding &binding,
                      llvm::ArrayRef<HostTensor> arguments,
                      llvm::ArrayRef<HostTensor> outputs) {
  if (llvm::Error error = checkReferenceBinding(binding))
    return std::move(error);
  RaggedDotOp op = binding.op;
  auto inRange = [&](std::optional<unsigned> index, size_t size) {
    return !index || *index < size;
  };
  if (!inRange(binding.lhs, arguments.size()) ||
      !inRange(binding.rhs, arguments.size()) ||
      !inRange(binding.groupSizes, arguments.size()) ||
      !inRange(binding.groupOffset, arguments.size()) ||
      !inRange(binding.init, arguments.size()) ||
      !inRange(binding.result, outputs.size()))
    return makeError("the check was given fewer arguments or outputs than "
                     "the function has");

  auto dimsAttr = op.getDimensionNumbers();
  reference::DimensionNumbers dims;
  dims.lhsBatching = dimsAttr.getLhsBatchingDimensions().vec();
  dims.rhsBatching = dimsAttr.getRhsBatchingDimensions().vec();
  dims.lhsContracting = dimsAttr.getLhsContractingDimensions().vec();
  dims.rhsContracting = dimsAttr.getRhsContractingDimensions().vec();
  dims.lhsRagged = dimsAttr.getLhsRaggedDimensions().vec();
  dims.rhsGroup = dimsAttr.getRhsGroupDimensions().vec();

  const HostTensor &lhsValue = arguments[*binding.lhs];
  const HostTensor &got = outputs[*binding.result];
  std::optional<reference::ElementType> inputType =
      toElementType(lhsValue.type);
  std::optional<reference::ElementType> resultType = toElementType(got.type);
  if (!inputType || !resultType)
    return makeError("gmm.ragged_dot operands must be float tensors");

  reference::Tensor lhs = toReferenceTensor(lhsValue);
  reference::Tensor rhs = toReferenceTensor(arguments[*binding.rhs]);
  reference::IndexTensor groupSizes =
      toIndexTensor(arguments[*binding.groupSizes]);
  std::optional<int64_t> groupOffset;
  if (binding.groupOffset) {
    const HostTensor &offset = arguments[*binding.groupOffset];
    if (offset.getNumElements() != 1)
      return makeError("group_offset has shape " + formatShape(offset.shape) +
                       ", expected [] or [1]");
    groupOffset = offset.getInt(0);
  }
  std::optional<reference::Tensor> init;
  if (binding.init)
    init = toReferenceTensor(arguments[*binding.init]);

  CheckOutcome outcome;
  outcome.numElements = got.getNumElements();
  outcome.tolerance = raggedDotTolerance(dims.lhsContracting, lhs, &rhs,
                                         *inputType, *resultType);

  reference::Tensor expected;
  std::string message;
  {
    support::ProgressLine progress("checking against the C++ reference");
    message = reference::raggedDot(dims, lhs, rhs, groupSizes, groupOffset,
                                   init ? &*init : nullptr, got.shape,
                                   *resultType, expected,
                                   [&](double done) { progress.update(done); });
  }
  if (!message.empty()) {
    outcome.passed = false;
    outcome.line =
        "check: FAIL (the reference rejects the inputs: " + message + ")";
    return outcome;
  }

  judge("check", toReferenceTensor(got), expected, outcome);
  return outcome;
}

llvm::Expected<CheckOutcome>
checkAgainstExpected(const RaggedDotBinding *binding,
                     llvm::ArrayRef<HostTensor> arguments,
                     llvm::ArrayRef<HostTensor> outputs, unsigned index,
                     const HostTensor &expected) {
  if (index >= outputs.size())
    return makeError(llvm::formatv("there is no result {0}", index).str());
  const HostTensor &got = outputs[index];
  if (got.shape != expected.shape)
    return makeError(llvm::formatv("result {0} has shape {1}, but the "
                                   "expected values have shape {2}",
                                   index, formatShape(got.shape),
                                   formatShape(expected.shape))
                         .str());
  CheckOutcome outcome;
  outcome.numElements = got.getNumElements();
  std::optional<reference::ElementType> resultType = toElementType(got.type);
  // The ragged dot's own result: --check's tolerance; anything else, and
  // integers, exactly.
  if (binding && binding->result && *binding->result == index && binding->lhs &&
      *binding->lhs < arguments.size() && resultType) {
    const HostTensor &lhs = arguments[*binding->lhs];
    std::optional<reference::ElementType> inputType = toElementType(lhs.type);
    std::optional<reference::Tensor> rhs;
    if (binding->rhs && *binding->rhs < arguments.size())
      rhs = toReferenceTensor(arguments[*binding->rhs]);
    RaggedDotOp op = binding->op;
    if (inputType)
      outcome.tolerance = raggedDotTolerance(
          op.getDimensionNumbers().getLhsContractingDimensions(),
          toReferenceTensor(lhs), rhs ? &*rhs : nullptr, *inputType,
          *resultType);
  }
  judge(llvm::formatv("expect {0}", index).str(), toReferenceTensor(got),
        toReferenceTensor(expected), outcome);
  return outcome;
}

std::optional<double> countUsefulFlops(const RaggedDotBinding &binding,
                                       llvm::ArrayRef<HostTensor> arguments,
                                       llvm::ArrayRef<HostTensor> outputs) {
  RaggedDotOp op = binding.op;
  if (!binding.result || *binding.result >= outputs.size())
    return std::nullopt;
  llvm::SmallVector<int64_t> lhsShape =
      getActualShape(op.getLhs(), binding.lhs, arguments);
  if (llvm::any_of(lhsShape, ShapedType::isDynamic))
    return std::nullopt;
  double k = 1;
  for (int64_t dim : op.getDimensionNumbers().getLhsContractingDimensions())
    k *= static_cast<double>(lhsShape[dim]);
  const HostTensor &result = outputs[*binding.result];
  double resultElements = static_cast<double>(result.getNumElements());
  RaggedDotMode mode = op.getMode();
  if (mode == RaggedDotMode::Batch)
    return 2 * resultElements * k;

  if (!binding.groupSizes || *binding.groupSizes >= arguments.size() ||
      (op.getGroupOffset() && !binding.groupOffset))
    return std::nullopt;
  const HostTensor &groupSizes = arguments[*binding.groupSizes];
  if (groupSizes.shape.empty())
    return std::nullopt;
  int64_t extent = lhsShape[op.getLhsRaggedDimension()];
  int64_t numGroups = groupSizes.shape.back();
  int64_t numPrefixes = 1;
  for (size_t d = 0; d + 1 < groupSizes.shape.size(); ++d)
    numPrefixes *= groupSizes.shape[d];
  int64_t offset = 0;
  if (binding.groupOffset) {
    const HostTensor &offsetValue = arguments[*binding.groupOffset];
    if (offsetValue.getNumElements() != 1)
      return std::nullopt;
    offset = offsetValue.getInt(0);
  }
  if (extent <= 0 || numPrefixes <= 0)
    return 0.0;

  if (mode == RaggedDotMode::NonContracting) {
    // Rows covered by a computed group, over every partition; each covered
    // row costs k multiply-adds per element of its result row.
    llvm::SmallVector<int64_t> rhsShape =
        getActualShape(op.getRhs(), binding.rhs, arguments);
    int64_t numLocal = rhsShape[*op.getRhsGroupDimension()];
    if (ShapedType::isDynamic(numLocal))
      return std::nullopt;
    double rows = 0;
    for (int64_t p = 0; p < numPrefixes; ++p) {
      auto bounds = getBounds(groupSizes, p, extent);
      for (int64_t j = 0; j < numGroups; ++j) {
        // 128-bit arithmetic: the offset may be any int64 value.
        __int128 local = static_cast<__int128>(j) - offset;
        if (local >= 0 && local < numLocal)
          rows += static_cast<double>(bounds[j].second - bounds[j].first);
      }
    }
    return 2 * k * resultElements /
           (static_cast<double>(extent) * numPrefixes) * rows;
  }

  // Mode 2: slice l sums the k-indices of global group offset + l only.
  int64_t numSlices = result.shape.empty() ? 0 : result.shape.front();
  if (numSlices <= 0)
    return 0.0;
  double lengths = 0;
  for (int64_t p = 0; p < numPrefixes; ++p) {
    auto bounds = getBounds(groupSizes, p, extent);
    for (int64_t l = 0; l < numSlices; ++l) {
      __int128 j = static_cast<__int128>(offset) + l;
      if (j >= 0 && j < numGroups)
        lengths += static_cast<double>(bounds[j].second - bounds[j].first);
    }
  }
  double otherK = k / static_cast<double>(extent);
  return 2 * resultElements * otherK /
         (static_cast<double>(numSlices) * numPrefixes) * lengths;
}

} // namespace runner
} // namespace gmm
