//===- RaggedDotCall.cpp - one ragged dot call as a module ----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/RaggedDotCall.h"

#include "RunnerInternals.h"

#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gmm;

namespace gmm {
namespace runner {

namespace {

llvm::Expected<Type> elementType(MLIRContext &context, llvm::StringRef name,
                                 llvm::StringRef what) {
  size_t read = 0;
  Type type = name.empty() ? Type() : parseType(name, &context, &read);
  if (!type || read != name.size())
    return llvm::createStringError(what + " has the element type '" + name +
                                   "', which is not an MLIR type");
  if (!TensorType::isValidElementType(type))
    return llvm::createStringError(what + " has the element type '" + name +
                                   "', which a tensor cannot hold");
  return type;
}

llvm::Expected<RankedTensorType>
tensorType(MLIRContext &context, const RaggedDotCall::Operand &operand,
           llvm::StringRef what) {
  for (int64_t size : operand.shape)
    if (size < 0)
      return llvm::createStringError(what + " has the negative size " +
                                     std::to_string(size));
  llvm::Expected<Type> element =
      elementType(context, operand.elementType, what);
  if (!element)
    return element.takeError();
  return RankedTensorType::get(operand.shape, *element);
}

} // namespace

llvm::Expected<RaggedDotSignature>
describeRaggedDotCall(MLIRContext &context, const RaggedDotCall &call) {
  context.loadDialect<GMMDialect, bufferization::BufferizationDialect,
                      func::FuncDialect, memref::MemRefDialect>();
  // The message alone: the location is the caller's call, not a line of
  // text.
  detail::FirstError error(context, /*located=*/false);
  Location loc = NameLoc::get(StringAttr::get(&context, "ragged_dot"));

  SmallVector<std::pair<const RaggedDotCall::Operand *, StringRef>> operands = {
      {&call.lhs, "lhs"},
      {&call.rhs, "rhs"},
      {&call.groupSizes, "group_sizes"}};
  if (call.groupOffset)
    operands.push_back({&*call.groupOffset, "group_offset"});
  if (call.init)
    operands.push_back({&*call.init, "init"});
  SmallVector<Type> inputs;
  for (auto [operand, what] : operands) {
    llvm::Expected<RankedTensorType> type = tensorType(context, *operand, what);
    if (!type)
      return type.takeError();
    inputs.push_back(*type);
  }
  llvm::Expected<Type> resultElement =
      elementType(context, call.resultElementType, "the result");
  if (!resultElement)
    return resultElement.takeError();

  // With a group offset, mode 2's result has all groups unless the call
  // says how many are local (inferResultType reads it in mode 2 only).
  int64_t localGroups = ShapedType::kDynamic;
  if (call.numLocalGroups && *call.numLocalGroups < 0)
    return llvm::createStringError("num_local_groups is negative: " +
                                   std::to_string(*call.numLocalGroups));
  if (call.numLocalGroups)
    localGroups = *call.numLocalGroups;
  else if (call.groupOffset && !call.groupSizes.shape.empty())
    localGroups = call.groupSizes.shape.back();
  // The op's own rules decide the result type (and every check of its
  // verifier on the way).
  auto dims = RaggedDotDimensionNumbersAttr::get(
      &context, call.lhsBatchingDimensions, call.rhsBatchingDimensions,
      call.lhsContractingDimensions, call.rhsContractingDimensions,
      call.lhsRaggedDimensions, call.rhsGroupDimensions);
  FailureOr<RankedTensorType> resultType = RaggedDotOp::inferResultType(
      cast<RankedTensorType>(inputs[0]), cast<RankedTensorType>(inputs[1]),
      cast<RankedTensorType>(inputs[2]), call.groupOffset.has_value(), dims,
      *resultElement,
      // Worded as the op's verifier words it (it calls the same function).
      [&] {
        return emitError(loc)
               << "'" << RaggedDotOp::getOperationName() << "' op ";
      },
      localGroups);
  if (failed(resultType))
    return error.take("the ragged dot's result type cannot be inferred");

  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto resultBuffer =
      MemRefType::get(resultType->getShape(), resultType->getElementType());
  SmallVector<Type> arguments(inputs);
  arguments.push_back(resultBuffer);
  auto func = func::FuncOp::create(b, loc, "ragged_dot",
                                   b.getFunctionType(arguments, {}));
  for (unsigned i = 0; i < inputs.size(); ++i)
    func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                    b.getBoolAttr(false));
  b.setInsertionPointToStart(func.addEntryBlock());
  unsigned next = 3;
  Value offset = call.groupOffset ? func.getArgument(next++) : Value();
  Value init = call.init ? func.getArgument(next++) : Value();
  auto op = RaggedDotOp::create(b, loc, *resultType, func.getArgument(0),
                                func.getArgument(1), func.getArgument(2),
                                offset, init, dims);
  if (call.tileSizes) {
    auto request = KernelConfigAttr::getChecked(
        [&] { return emitError(loc); }, &context, std::nullopt, *call.tileSizes,
        {}, 0, {}, std::nullopt, std::nullopt, /*raster=*/0);
    if (!request)
      return error.take("the tile sizes are not a kernel configuration");
    op->setAttr("gmm.kernel_config", request);
  }
  auto store = bufferization::MaterializeInDestinationOp::create(
      b, loc, TypeRange(), op.getResult(), func.getArgument(next));
  store.setRestrict(true);
  store.setWritable(true);
  func::ReturnOp::create(b, loc);
  if (failed(verify(*module)))
    return error.take("the ragged dot does not verify");

  RaggedDotSignature signature;
  llvm::raw_string_ostream os(signature.moduleText);
  module->print(os);
  signature.resultShape.assign(resultType->getShape().begin(),
                               resultType->getShape().end());
  switch (op.getMode()) {
  case RaggedDotMode::NonContracting:
    signature.mode = 1;
    break;
  case RaggedDotMode::Contracting:
    signature.mode = 2;
    break;
  case RaggedDotMode::Batch:
    signature.mode = 3;
    break;
  }
  llvm::append_range(signature.lhsFreeDimensions,
                     dims.getLhsFreeDimensions(call.lhs.shape.size()));
  llvm::append_range(signature.rhsFreeDimensions,
                     dims.getRhsFreeDimensions(call.rhs.shape.size()));
  return signature;
}

namespace {

/// Reads the request's fields, naming the first one that is missing or of
/// the wrong kind.

/// The value of a JSON integer, or of a number written with a fraction or
/// exponent that is one (Python's json writes 8.0 for a float); nullopt for
/// anything else. llvm::json::Value::getAsInteger converts a double of
/// exactly 2^63 to int64_t, which is undefined: such numbers (and every
/// double at or beyond +-2^63) are refused here first.
std::optional<int64_t> integerOf(const llvm::json::Value &value) {
  std::optional<double> number = value.getAsNumber();
  if (!number || !(*number < 0x1p63 && *number >= -0x1p63))
    return std::nullopt;
  return value.getAsInteger();
}

class RequestReader {
public:
  explicit RequestReader(const llvm::json::Object &object) : object(object) {}

  std::optional<std::string> error;

  std::vector<int64_t> integers(const llvm::json::Object &in,
                                llvm::StringRef key) {
    std::vector<int64_t> values;
    const llvm::json::Array *array = in.getArray(key);
    if (!array) {
      fail("'" + key + "' must be a list of integers");
      return values;
    }
    for (const llvm::json::Value &value : *array) {
      std::optional<int64_t> v = integerOf(value);
      if (!v) {
        fail("'" + key + "' must be a list of integers");
        return values;
      }
      values.push_back(*v);
    }
    return values;
  }

  std::optional<RaggedDotCall::Operand> operand(llvm::StringRef key,
                                                bool optional) {
    const llvm::json::Value *value = object.get(key);
    if (!value || value->kind() == llvm::json::Value::Null) {
      if (!optional)
        fail("'" + key + "' is missing");
      return std::nullopt;
    }
    const llvm::json::Object *in = value->getAsObject();
    std::optional<llvm::StringRef> type =
        in ? in->getString("element_type") : std::nullopt;
    if (!in || !type) {
      fail("'" + key + "' must be {\"shape\": [...], \"element_type\": ...}");
      return std::nullopt;
    }
    return RaggedDotCall::Operand{integers(*in, "shape"), type->str()};
  }

  void fail(const llvm::Twine &message) {
    if (!error)
      error = "malformed request: " + message.str();
  }

  const llvm::json::Object &object;
};

} // namespace

llvm::Expected<std::string> describeRaggedDotCallJSON(MLIRContext &context,
                                                      llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return llvm::createStringError("malformed request: " +
                                   llvm::toString(parsed.takeError()));
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return llvm::createStringError("malformed request: not a JSON object");
  RequestReader read(*object);
  RaggedDotCall call;
  std::optional<RaggedDotCall::Operand> lhs = read.operand("lhs", false);
  std::optional<RaggedDotCall::Operand> rhs = read.operand("rhs", false);
  std::optional<RaggedDotCall::Operand> sizes =
      read.operand("group_sizes", false);
  call.groupOffset = read.operand("group_offset", true);
  call.init = read.operand("init", true);
  const llvm::json::Object *numbers = object->getObject("dimension_numbers");
  if (!numbers) {
    read.fail("'dimension_numbers' is missing");
  } else {
    call.lhsBatchingDimensions =
        read.integers(*numbers, "lhs_batching_dimensions");
    call.rhsBatchingDimensions =
        read.integers(*numbers, "rhs_batching_dimensions");
    call.lhsContractingDimensions =
        read.integers(*numbers, "lhs_contracting_dimensions");
    call.rhsContractingDimensions =
        read.integers(*numbers, "rhs_contracting_dimensions");
    call.lhsRaggedDimensions = read.integers(*numbers, "lhs_ragged_dimensions");
    call.rhsGroupDimensions = read.integers(*numbers, "rhs_group_dimensions");
  }
  if (std::optional<llvm::StringRef> type =
          object->getString("result_element_type"))
    call.resultElementType = type->str();
  else
    read.fail("'result_element_type' is missing");
  if (const llvm::json::Value *groups = object->get("num_local_groups");
      groups && groups->kind() != llvm::json::Value::Null) {
    call.numLocalGroups = integerOf(*groups);
    if (!call.numLocalGroups)
      read.fail("'num_local_groups' must be an integer or null");
  }
  if (const llvm::json::Value *tiles = object->get("tile_sizes");
      tiles && tiles->kind() != llvm::json::Value::Null) {
    std::vector<int64_t> values = read.integers(*object, "tile_sizes");
    if (values.size() != 3)
      read.fail("'tile_sizes' must be [m, n, k] or null");
    else
      call.tileSizes = {values[0], values[1], values[2]};
  }
  if (read.error)
    return llvm::createStringError(*read.error);
  call.lhs = *lhs;
  call.rhs = *rhs;
  call.groupSizes = *sizes;

  llvm::Expected<RaggedDotSignature> signature =
      describeRaggedDotCall(context, call);
  if (!signature)
    return signature.takeError();
  llvm::json::Object answer{
      {"module", signature->moduleText},
      {"result_shape", llvm::json::Array(signature->resultShape)},
      {"mode", signature->mode},
      {"lhs_free_dimensions", llvm::json::Array(signature->lhsFreeDimensions)},
      {"rhs_free_dimensions", llvm::json::Array(signature->rhsFreeDimensions)}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(answer));
  return out;
}

} // namespace runner
} // namespace gmm
