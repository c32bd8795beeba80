//===- Signature.cpp - what a function takes and returns ------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The runner's view of a func.func: its arguments and results as TensorSpecs
// (ranked tensors and identity-layout memrefs of the element types
// HostTensor holds), the entry function of a module, and the check of an
// argument against its spec.
//
//===----------------------------------------------------------------------===//

#include "RunnerInternals.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace gmm {
namespace runner {

using detail::makeError;

namespace {
std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// "[?, 32]": a shape with dynamic sizes shown as '?'.
std::string formatSpecShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os, [&](int64_t size) {
    if (ShapedType::isDynamic(size))
      os << "?";
    else
      os << size;
  });
  os << "]";
  return text;
}

/// Reads one argument or result type; `what` is "argument 2" or "result 0".
llvm::Expected<TensorSpec> getTensorSpec(Type type, const llvm::Twine &what,
                                         StringRef funcName) {
  auto unsupported = [&](const llvm::Twine &why) {
    return makeError(what + " of @" + funcName + " has type '" +
                     typeToString(type) + "': " + why);
  };
  TensorSpec spec;
  spec.typeName = typeToString(type);
  Type elementType;
  if (auto tensorType = dyn_cast<RankedTensorType>(type)) {
    if (tensorType.getEncoding())
      return unsupported("tensors with an encoding are not supported");
    spec.shape.assign(tensorType.getShape().begin(),
                      tensorType.getShape().end());
    elementType = tensorType.getElementType();
  } else if (auto memrefType = dyn_cast<MemRefType>(type)) {
    if (!memrefType.getLayout().isIdentity())
      return unsupported("only memrefs with the identity layout are supported");
    if (memrefType.getMemorySpace())
      return unsupported(
          "only memrefs in the default memory space are supported");
    spec.isMemRef = true;
    spec.shape.assign(memrefType.getShape().begin(),
                      memrefType.getShape().end());
    elementType = memrefType.getElementType();
  } else {
    return unsupported("gmm-runner passes only ranked tensors and memrefs");
  }
  std::optional<DType> dtype = getDType(elementType);
  if (!dtype)
    return unsupported("supported element types are f16, bf16, f32, f64, "
                       "i32 and i64");
  spec.type = *dtype;
  return spec;
}

} // namespace

std::string formatLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    auto fileLoc = dyn_cast<FileLineColLoc>(inner);
    if (!fileLoc)
      return WalkResult::advance();
    text = llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(),
                         fileLoc.getLine(), fileLoc.getColumn())
               .str();
    return WalkResult::interrupt();
  });
  return text;
}

std::optional<DType> getDType(Type type) {
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.isUnsigned())
      return std::nullopt;
    if (intType.getWidth() == 32)
      return DType::I32;
    if (intType.getWidth() == 64)
      return DType::I64;
  }
  return std::nullopt;
}

bool TensorSpec::hasDynamicDims() const {
  return llvm::any_of(shape, ShapedType::isDynamic);
}

std::string TensorSpec::describe(llvm::ArrayRef<int64_t> actualShape) const {
  std::string text = isMemRef ? "memref<" : "tensor<";
  for (int64_t size : actualShape)
    text += std::to_string(size) + "x";
  return text + toString(type) + ">";
}

llvm::Expected<FunctionSignature> getFunctionSignature(func::FuncOp func) {
  FunctionSignature signature;
  signature.name = func.getSymName().str();
  FunctionType type = func.getFunctionType();
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    llvm::Expected<TensorSpec> spec =
        getTensorSpec(input, "argument " + llvm::Twine(i), signature.name);
    if (!spec)
      return spec.takeError();
    signature.arguments.push_back(std::move(*spec));
  }
  for (auto [i, output] : llvm::enumerate(type.getResults())) {
    llvm::Expected<TensorSpec> spec =
        getTensorSpec(output, "result " + llvm::Twine(i), signature.name);
    if (!spec)
      return spec.takeError();
    signature.results.push_back(std::move(*spec));
  }
  return signature;
}

llvm::Expected<func::FuncOp> lookupEntryFunction(ModuleOp module,
                                                 StringRef name) {
  llvm::SmallVector<func::FuncOp> defined;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      defined.push_back(func);
  std::string names;
  llvm::raw_string_ostream os(names);
  llvm::interleaveComma(defined, os,
                        [&](func::FuncOp f) { os << "@" << f.getSymName(); });

  if (!name.empty()) {
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.getSymName() != name)
        continue;
      if (func.isExternal())
        return makeError("@" + name + " is a declaration without a body");
      return func;
    }
    if (defined.empty())
      return makeError("no function @" + name +
                       " (the module defines no func.func)");
    return makeError("no function @" + name + " (functions: " + names + ")");
  }
  if (defined.empty())
    return makeError("the module defines no func.func to run");
  if (defined.size() > 1)
    return makeError(llvm::formatv("the module defines {0} functions ({1}); "
                                   "choose one with --entry",
                                   defined.size(), names)
                         .str());
  return defined.front();
}

llvm::Error checkArgument(const TensorSpec &spec, const HostTensor &value,
                          unsigned index) {
  std::string what =
      llvm::formatv("argument {0} ({1})", index, spec.typeName).str();
  if (!value.isConsistent())
    return makeError(
        what + ": the value has " + llvm::Twine(value.bytes.size()) +
        " bytes, which does not fit shape " + formatShape(value.shape));
  if (value.type != spec.type)
    return makeError(what + " expects " + toString(spec.type) +
                     " elements, got " + toString(value.type));
  if (value.shape.size() != spec.shape.size())
    return makeError(what + " expects rank " + llvm::Twine(spec.shape.size()) +
                     ", got shape " + formatShape(value.shape));
  for (size_t d = 0; d < spec.shape.size(); ++d)
    if (!ShapedType::isDynamic(spec.shape[d]) &&
        spec.shape[d] != value.shape[d])
      return makeError(what + " expects shape " + formatSpecShape(spec.shape) +
                       ", got " + formatShape(value.shape));
  return llvm::Error::success();
}

} // namespace runner
} // namespace gmm
