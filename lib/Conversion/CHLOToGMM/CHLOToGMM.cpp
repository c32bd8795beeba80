//===- CHLOToGMM.cpp - import chlo.ragged_dot as gmm.ragged_dot -----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Imports what JAX emits for `jax.lax.ragged_dot(_general)`. gmm does not link
// StableHLO, so the modules are parsed with unregistered dialects allowed:
// `chlo.ragged_dot`, `stablehlo.composite` (JAX 0.10's jax.export) and
// `stablehlo.custom_call` (JAX 0.8's) are then unregistered ops whose
// properties are one DictionaryAttr, and `#chlo.ragged_dot<...>` and
// `#chlo<precision ...>` are OpaqueAttrs that keep the text between the
// brackets. That text is parsed here, with the same rules as CHLO's parser
// (keys in any order, empty lists optional, no duplicates). Where a host tool
// has the CHLO dialect registered, its attributes are printed back to text
// and parsed the same way, so the import works in both worlds.
//
//===----------------------------------------------------------------------===//

#include "gmm/Conversion/CHLOToGMM/CHLOToGMM.h"
#include "gmm/Conversion/Passes.h"
#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_CONVERTCHLOTOGMM
#include "gmm/Conversion/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using namespace mlir::gmm;

namespace {

constexpr llvm::StringLiteral kRaggedDotName = "chlo.ragged_dot";
constexpr llvm::StringLiteral kCompositeName = "stablehlo.composite";
constexpr llvm::StringLiteral kCustomCallName = "stablehlo.custom_call";
constexpr llvm::StringLiteral kDimensionNumbersKey =
    "ragged_dot_dimension_numbers";
constexpr llvm::StringLiteral kPrecisionConfigKey = "precision_config";

/// The keys of #chlo.ragged_dot, in the order CHLO's printer writes them and
/// #gmm.ragged_dot's parameters are declared.
constexpr llvm::StringLiteral kDimensionKeys[] = {
    "lhs_batching_dimensions",    "rhs_batching_dimensions",
    "lhs_contracting_dimensions", "rhs_contracting_dimensions",
    "lhs_ragged_dimensions",      "rhs_group_dimensions"};
constexpr size_t kNumDimensionKeys = std::size(kDimensionKeys);

/// Emits the diagnostics of one import at the op being imported, or drops
/// them when the import only tests whether a pattern applies.
class Reporter {
public:
  Reporter(Operation *op, bool enabled) : op(op), enabled(enabled) {}

  InFlightDiagnostic operator()() const {
    InFlightDiagnostic diag = op->emitOpError();
    // An abandoned diagnostic still takes arguments but is never reported.
    if (!enabled)
      diag.abandon();
    return diag;
  }

  bool isEnabled() const { return enabled; }

private:
  Operation *op;
  bool enabled;
};

//===----------------------------------------------------------------------===//
// The attributes of the op, wherever they are stored.
//===----------------------------------------------------------------------===//

/// One attribute of an op, from its properties or its attribute dictionary.
struct OpAttribute {
  StringAttr name;
  Attribute value;
  bool isProperty;
};

/// Lists the properties and the attributes of `op`. An unregistered op keeps
/// `<{...}>` as a DictionaryAttr in its property storage and `{...}` in its
/// attribute dictionary; a registered op exposes its inherent attributes the
/// same way. A name given in both places is an error.
FailureOr<SmallVector<OpAttribute>> getOpAttributes(Operation *op,
                                                    const Reporter &report) {
  SmallVector<OpAttribute> result;
  if (Attribute props = op->getPropertiesAsAttribute()) {
    auto dict = dyn_cast<DictionaryAttr>(props);
    if (!dict)
      return report() << "has unsupported properties " << props
                      << " (expected a dictionary)";
    for (NamedAttribute attr : dict)
      result.push_back({attr.getName(), attr.getValue(), true});
  }
  for (NamedAttribute attr : op->getRawDictionaryAttrs()) {
    if (llvm::any_of(result, [&](const OpAttribute &other) {
          return other.name == attr.getName();
        }))
      return report() << "has '" << attr.getName().getValue()
                      << "' both as a property and as an attribute";
    result.push_back({attr.getName(), attr.getValue(), false});
  }
  return result;
}

Attribute lookup(ArrayRef<OpAttribute> attrs, StringRef name) {
  for (const OpAttribute &attr : attrs)
    if (attr.name.getValue() == name)
      return attr.value;
  return {};
}

/// Whether an attribute that the import does not interpret may be carried
/// over to gmm.ragged_dot: discardable, dialect-prefixed attributes such as
/// `mhlo.frontend_attributes`. Anything else (in particular any unknown
/// property) may change the meaning of the op and is an error.
bool isCarriedOver(const OpAttribute &attr) {
  return !attr.isProperty && attr.name.getValue().contains('.');
}

/// The attribute `key` of `op` of type `AttrT`, from its properties or its
/// attribute dictionary, or null: the `name` of a stablehlo.composite, the
/// `call_target_name` of a stablehlo.custom_call, a composite's
/// `decomposition`.
template <typename AttrT> AttrT findAttribute(Operation *op, StringRef key) {
  for (DictionaryAttr dict :
       {dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute()),
        op->getRawDictionaryAttrs()})
    if (dict)
      if (auto value = dict.getAs<AttrT>(key))
        return value;
  return {};
}

/// The string attribute `key` of `op`, or "".
StringRef getStringAttribute(Operation *op, StringRef key) {
  if (auto name = findAttribute<StringAttr>(op, key))
    return name.getValue();
  return {};
}

/// Whether an attribute of a stablehlo.custom_call other than its target
/// and `mhlo.attributes` keeps the plain meaning of a call: no side effect,
/// no backend configuration, no called computations, default layouts and
/// no aliasing (any API version).
bool isPlainCustomCallAttribute(StringRef name, Attribute value) {
  auto isEmpty = [](Attribute attr) {
    if (auto str = dyn_cast<StringAttr>(attr))
      return str.getValue().empty();
    if (auto dict = dyn_cast<DictionaryAttr>(attr))
      return dict.empty();
    if (auto array = dyn_cast<ArrayAttr>(attr))
      return array.empty();
    return false;
  };
  if (name == "api_version" || name == "mhlo.version")
    return true;
  if (name == "has_side_effect") {
    auto flag = dyn_cast<BoolAttr>(value);
    return flag && !flag.getValue();
  }
  if (name == "backend_config" || name == "called_computations" ||
      name == "operand_layouts" || name == "result_layouts" ||
      name == "output_operand_aliases")
    return isEmpty(value);
  return false;
}

//===----------------------------------------------------------------------===//
// The text of CHLO's attributes.
//===----------------------------------------------------------------------===//

/// Returns the body of a `#<dialect>.<mnemonic><...>` or `#<dialect><...>`
/// attribute of one of `dialects`, without the dialect prefix (for example
/// `ragged_dot<lhs_batching_dimensions = [0], ...>` or `precision DEFAULT`),
/// or std::nullopt when `attr` belongs to another dialect. Opaque attributes
/// (unregistered dialects) keep this text; registered ones are printed.
std::optional<std::string> getDialectAttrText(Attribute attr,
                                              ArrayRef<StringRef> dialects) {
  if (auto opaque = dyn_cast<OpaqueAttr>(attr)) {
    if (!llvm::is_contained(dialects, opaque.getDialectNamespace().getValue()))
      return std::nullopt;
    return opaque.getAttrData().str();
  }
  if (!llvm::is_contained(dialects, attr.getDialect().getNamespace()))
    return std::nullopt;
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  StringRef body = StringRef(text).trim();
  body.consume_front("#");
  body.consume_front(attr.getDialect().getNamespace());
  // `#chlo.ragged_dot<...>` keeps the mnemonic, `#chlo<precision X>` the body
  // between the angle brackets, as in OpaqueAttr's data.
  if (!body.consume_front("."))
    if (body.consume_front("<"))
      body.consume_back(">");
  return body.str();
}

/// A small recursive-descent parser for the body of `#chlo.ragged_dot`:
///   [`ragged_dot`] `<` (key `=` `[` (int (`,` int)*)? `]`) separated by `,`
///   `>`
class DimensionNumbersParser {
public:
  DimensionNumbersParser(StringRef text, const Reporter &report)
      : text(text), report(report) {}

  /// Parses the text into the six lists, indexed like kDimensionKeys.
  LogicalResult parse(SmallVector<int64_t> (&lists)[kNumDimensionKeys]) {
    bool seen[kNumDimensionKeys] = {};
    skipSpace();
    // OpaqueAttr data starts with the mnemonic; a bare `<...>` is accepted.
    if (text.substr(pos).starts_with("ragged_dot")) {
      pos += StringRef("ragged_dot").size();
      skipSpace();
    }
    if (!consume('<'))
      return expected("'<'");
    if (!consume('>')) {
      do {
        size_t keyPos = pos;
        StringRef key = parseIdentifier();
        if (key.empty())
          return expected("a key");
        const auto *it = llvm::find(kDimensionKeys, key);
        if (it == std::end(kDimensionKeys))
          return report() << "has unknown key '" << key
                          << "' in #chlo.ragged_dot (expected one of "
                          << llvm::join(
                                 ArrayRef<llvm::StringLiteral>(kDimensionKeys),
                                 ", ")
                          << ")";
        size_t index = it - std::begin(kDimensionKeys);
        if (seen[index])
          return report() << "has duplicate key '" << key
                          << "' in #chlo.ragged_dot at offset " << keyPos;
        seen[index] = true;
        if (!consume('='))
          return expected("'=' after '" + key + "'");
        if (failed(parseList(lists[index])))
          return failure();
      } while (consume(','));
      if (!consume('>'))
        return expected("',' or '>'");
    }
    if (pos != text.size())
      return expected("the end of the attribute");
    return success();
  }

private:
  void skipSpace() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }

  /// Consumes `c` (after white space) if it is next.
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      skipSpace();
      return true;
    }
    return false;
  }

  StringRef parseIdentifier() {
    size_t start = pos;
    while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    StringRef result = text.slice(start, pos);
    skipSpace();
    return result;
  }

  LogicalResult parseList(SmallVectorImpl<int64_t> &list) {
    if (!consume('['))
      return expected("'['");
    if (consume(']'))
      return success();
    do {
      size_t start = pos;
      if (pos < text.size() && text[pos] == '-')
        ++pos;
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t value;
      if (text.slice(start, pos).getAsInteger(10, value)) {
        pos = start;
        return expected("an integer");
      }
      list.push_back(value);
      skipSpace();
    } while (consume(','));
    if (!consume(']'))
      return expected("',' or ']'");
    return success();
  }

  InFlightDiagnostic expected(const Twine &what) {
    return report() << "has malformed #chlo.ragged_dot: expected " << what
                    << " at offset " << pos << " of '" << text << "'";
  }

  StringRef text;
  size_t pos = 0;
  const Reporter &report;
};

/// An integer of an attribute as a dimension: any width is legal in an
/// attribute, a dimension is an int64_t; std::nullopt when it does not fit.
std::optional<int64_t> toDimension(const APInt &value, bool isUnsigned) {
  if (isUnsigned ? value.getActiveBits() > 63 : value.getSignificantBits() > 64)
    return std::nullopt;
  return isUnsigned ? static_cast<int64_t>(value.getZExtValue())
                    : value.getSExtValue();
}

/// The most entries a list of the dimension numbers may have. A list names
/// distinct dimensions of one operand, so no valid list comes near it; it
/// bounds what a splat (`dense<0> : tensor<4294967296xi64>`, a few bytes of
/// text) would expand to.
constexpr int64_t kMaxDimensionListLength = 4096;

/// Reads one list of the dictionary form of the dimension numbers.
FailureOr<SmallVector<int64_t>> getIntegerList(Attribute attr, StringRef key,
                                               const Reporter &report) {
  if (auto dense = dyn_cast<DenseI64ArrayAttr>(attr))
    return llvm::to_vector(dense.asArrayRef());
  if (auto elements = dyn_cast<DenseIntElementsAttr>(attr)) {
    if (elements.getType().getRank() > 1)
      return report() << "expects a list of integers (rank 0 or 1) for '" << key
                      << "', got " << attr;
    if (elements.getNumElements() > kMaxDimensionListLength)
      return report() << "has " << elements.getNumElements()
                      << " dimensions in '" << key << "', more than the "
                      << kMaxDimensionListLength << " a list may have";
    SmallVector<int64_t> result;
    bool isUnsigned = elements.getElementType().isUnsignedInteger();
    for (const APInt &value : elements.getValues<APInt>()) {
      std::optional<int64_t> dim = toDimension(value, isUnsigned);
      if (!dim)
        return report() << "has a dimension in '" << key
                        << "' that does not fit in 64 bits";
      result.push_back(*dim);
    }
    return result;
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    SmallVector<int64_t> result;
    for (Attribute element : array) {
      auto integer = dyn_cast<IntegerAttr>(element);
      if (!integer)
        return report() << "expects integers in '" << key << "', got "
                        << element;
      std::optional<int64_t> dim = toDimension(
          integer.getValue(), integer.getType().isUnsignedInteger());
      if (!dim)
        return report() << "has a dimension in '" << key
                        << "' that does not fit in 64 bits: " << element;
      result.push_back(*dim);
    }
    return result;
  }
  return report() << "expects a list of integers for '" << key << "', got "
                  << attr;
}

/// Reads `ragged_dot_dimension_numbers`: `#chlo.ragged_dot<...>` (opaque or
/// registered), `#gmm.ragged_dot<...>`, or a dictionary of the six lists.
FailureOr<RaggedDotDimensionNumbersAttr>
getDimensionNumbers(Attribute attr, const Reporter &report) {
  MLIRContext *ctx = attr.getContext();
  if (auto dims = dyn_cast<RaggedDotDimensionNumbersAttr>(attr))
    return dims;

  SmallVector<int64_t> lists[kNumDimensionKeys];
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    // What jax.export writes: the six lists in kDimensionKeys' order, each a
    // dense i64 tensor (`dense<1> : tensor<1xi64>`, `dense<> : tensor<0xi64>`).
    if (array.size() != kNumDimensionKeys)
      return report() << "expects '" << kDimensionNumbersKey << "' as an array "
                      << "to hold " << kNumDimensionKeys << " lists ("
                      << llvm::join(
                             ArrayRef<llvm::StringLiteral>(kDimensionKeys),
                             ", ")
                      << "), got " << array.size();
    for (auto [index, element] : llvm::enumerate(array)) {
      FailureOr<SmallVector<int64_t>> list =
          getIntegerList(element, kDimensionKeys[index], report);
      if (failed(list))
        return failure();
      lists[index] = std::move(*list);
    }
  } else if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    for (NamedAttribute entry : dict) {
      StringRef key = entry.getName().getValue();
      const auto *it = llvm::find(kDimensionKeys, key);
      if (it == std::end(kDimensionKeys))
        return report() << "has unknown key '" << key << "' in '"
                        << kDimensionNumbersKey << "'";
      FailureOr<SmallVector<int64_t>> list =
          getIntegerList(entry.getValue(), key, report);
      if (failed(list))
        return failure();
      lists[it - std::begin(kDimensionKeys)] = std::move(*list);
    }
  } else if (std::optional<std::string> text =
                 getDialectAttrText(attr, {"chlo"})) {
    if (!StringRef(*text).trim().starts_with("ragged_dot"))
      return report() << "expects '" << kDimensionNumbersKey
                      << "' to be a #chlo.ragged_dot attribute, got " << attr;
    if (failed(DimensionNumbersParser(*text, report).parse(lists)))
      return failure();
  } else {
    return report() << "expects '" << kDimensionNumbersKey
                    << "' to be a #chlo.ragged_dot attribute, got " << attr;
  }
  return RaggedDotDimensionNumbersAttr::get(ctx, lists[0], lists[1], lists[2],
                                            lists[3], lists[4], lists[5]);
}

/// Checks `precision_config`: at most two of DEFAULT, HIGH and HIGHEST. gmm
/// accumulates f16/bf16/f32 products in f32 and f64 products in f64, which
/// meets all three, so the value itself is not kept.
LogicalResult checkPrecisionConfig(Attribute attr, const Reporter &report) {
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array)
    return report() << "expects '" << kPrecisionConfigKey
                    << "' to be an array, got " << attr;
  if (array.size() > 2)
    return report() << "expects at most 2 '" << kPrecisionConfigKey
                    << "' entries, got " << array.size();
  for (Attribute entry : array) {
    StringRef value;
    std::optional<std::string> text =
        getDialectAttrText(entry, {"chlo", "stablehlo", "mhlo"});
    if (text) {
      value = StringRef(*text).trim();
      if (!value.consume_front("precision"))
        value = {};
      value = value.trim();
    } else if (auto str = dyn_cast<StringAttr>(entry)) {
      value = str.getValue();
    }
    if (value.empty())
      return report() << "expects #chlo<precision ...> entries in '"
                      << kPrecisionConfigKey << "', got " << entry;
    if (value != "DEFAULT" && value != "HIGH" && value != "HIGHEST")
      return report() << "has unsupported precision '" << value
                      << "' (expected DEFAULT, HIGH or HIGHEST)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The import.
//===----------------------------------------------------------------------===//

bool isSupportedFloat(Type type) {
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(type);
}

/// Checks that `value` is a ranked tensor whose element type satisfies
/// `isSupported`, as gmm.ragged_dot's operand constraints require.
FailureOr<RankedTensorType> checkTensor(Type type, StringRef what,
                                        function_ref<bool(Type)> isSupported,
                                        StringRef supported,
                                        const Reporter &report) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return report() << "expects " << what << " to be a ranked tensor, got "
                    << type;
  if (!isSupported(tensorType.getElementType()))
    return report() << what << " element type " << tensorType.getElementType()
                    << " is not supported by gmm.ragged_dot (expected "
                    << supported << ")";
  return tensorType;
}

/// Verifies `op` and reports what the verifier says through `report`, at the
/// op being imported, instead of at `op`.
/// Diagnostics are caught by a unique temporary location, so that other
/// threads' diagnostics pass through the handler untouched.
LogicalResult verifyAt(Operation *op, const Reporter &report) {
  Location loc = op->getLoc();
  MLIRContext *ctx = op->getContext();
  Location tmpLoc = NameLoc::get(
      StringAttr::get(ctx, llvm::formatv("chlo-to-gmm-check-{0}",
                                         static_cast<const void *>(op))),
      loc);
  op->setLoc(tmpLoc);
  SmallVector<std::string> messages;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      if (diag.getLocation() != tmpLoc)
        return failure();
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        messages.push_back(diag.str());
      return success();
    });
    result = verify(op);
  }
  op->setLoc(loc);
  if (succeeded(result))
    return success();
  InFlightDiagnostic diag = report();
  diag << "is rejected by gmm.ragged_dot's verifier";
  for (const std::string &message : messages)
    diag << ": " << message;
  return diag;
}

LogicalResult importImpl(RewriterBase &rewriter, Operation *op,
                         const Reporter &report) {
  StringRef opName = op->getName().getStringRef();
  bool isComposite = opName == kCompositeName;
  if (!isCHLORaggedDot(op))
    return report() << "is not a chlo.ragged_dot";
  if (op->getNumOperands() != 3 || op->getNumResults() != 1)
    return report() << "expects 3 operands (lhs, rhs, group_sizes) and 1 "
                       "result, got "
                    << op->getNumOperands() << " and " << op->getNumResults();
  if (op->getNumRegions() != 0)
    return report() << "expects no regions";

  // Sort the attributes into the two that matter, the ones that are carried
  // over, and errors.
  FailureOr<SmallVector<OpAttribute>> attrs = getOpAttributes(op, report);
  if (failed(attrs))
    return failure();
  SmallVector<NamedAttribute> carriedOver;
  Attribute dimsAttr, precisionAttr;
  auto sortAttribute = [&](const OpAttribute &attr,
                           StringRef where) -> LogicalResult {
    StringRef name = attr.name.getValue();
    if (name == kDimensionNumbersKey) {
      dimsAttr = attr.value;
    } else if (name == kPrecisionConfigKey) {
      precisionAttr = attr.value;
    } else if (isCarriedOver(attr)) {
      carriedOver.emplace_back(attr.name, attr.value);
    } else {
      return report() << "has unsupported attribute '" << name << "' on "
                      << where;
    }
    return success();
  };
  if (isComposite) {
    for (const OpAttribute &attr : *attrs) {
      StringRef name = attr.name.getValue();
      if (name == "name" || name == "decomposition" || name == "version" ||
          name == "composite_attributes")
        continue;
      if (isCarriedOver(attr)) {
        carriedOver.emplace_back(attr.name, attr.value);
        continue;
      }
      return report() << "has unsupported attribute '" << name << "' on "
                      << kCompositeName << " \"" << kRaggedDotName << "\"";
    }
    if (Attribute composite = lookup(*attrs, "composite_attributes")) {
      auto dict = dyn_cast<DictionaryAttr>(composite);
      if (!dict)
        return report() << "expects 'composite_attributes' to be a "
                           "dictionary, got "
                        << composite;
      for (NamedAttribute entry : dict) {
        // Composite attributes are all part of the op's meaning.
        OpAttribute attr{entry.getName(), entry.getValue(), true};
        if (failed(sortAttribute(attr, "composite_attributes of " +
                                           kCompositeName.str() + " \"" +
                                           kRaggedDotName.str() + "\"")))
          return failure();
      }
    }
  } else if (opName == kCustomCallName) {
    // What jax.export wrote before it used composites.
    std::string where = (kCustomCallName + " @" + kRaggedDotName).str();
    for (const OpAttribute &attr : *attrs) {
      StringRef name = attr.name.getValue();
      if (name == "call_target_name")
        continue;
      if (name == "mhlo.attributes") {
        auto dict = dyn_cast<DictionaryAttr>(attr.value);
        if (!dict)
          return report() << "expects 'mhlo.attributes' to be a dictionary, "
                             "got "
                          << attr.value;
        for (NamedAttribute entry : dict)
          if (failed(sortAttribute({entry.getName(), entry.getValue(), true},
                                   "mhlo.attributes of " + where)))
            return failure();
        continue;
      }
      if (isPlainCustomCallAttribute(name, attr.value))
        continue;
      if (!isCarriedOver(attr))
        return report() << "has unsupported attribute '" << name
                        << "' = " << attr.value << " on " << where;
      carriedOver.emplace_back(attr.name, attr.value);
    }
  } else {
    for (const OpAttribute &attr : *attrs)
      if (failed(sortAttribute(attr, kRaggedDotName)))
        return failure();
  }
  if (!dimsAttr)
    return report() << "expects a '" << kDimensionNumbersKey << "' attribute";
  FailureOr<RaggedDotDimensionNumbersAttr> dims =
      getDimensionNumbers(dimsAttr, report);
  if (failed(dims))
    return failure();
  if (precisionAttr && failed(checkPrecisionConfig(precisionAttr, report)))
    return failure();

  // Types: gmm.ragged_dot takes f16/bf16/f32/f64 tensors and i32/i64 sizes.
  auto isIndex = [](Type type) {
    return type.isSignlessInteger(32) || type.isSignlessInteger(64);
  };
  constexpr StringLiteral kFloats = "f16, bf16, f32 or f64";
  FailureOr<RankedTensorType> lhsType = checkTensor(
      op->getOperand(0).getType(), "lhs", isSupportedFloat, kFloats, report);
  if (failed(lhsType))
    return failure();
  FailureOr<RankedTensorType> rhsType = checkTensor(
      op->getOperand(1).getType(), "rhs", isSupportedFloat, kFloats, report);
  if (failed(rhsType))
    return failure();
  FailureOr<RankedTensorType> groupSizesType =
      checkTensor(op->getOperand(2).getType(), "group_sizes", isIndex,
                  "i32 or i64", report);
  if (failed(groupSizesType))
    return failure();
  FailureOr<RankedTensorType> resultType = checkTensor(
      op->getResult(0).getType(), "result", isSupportedFloat, kFloats, report);
  if (failed(resultType))
    return failure();

  // The dimension numbers against the operands, with the verifier's rules
  // and messages, then the result shape against the inferred one.
  FailureOr<RankedTensorType> inferred = RaggedDotOp::inferResultType(
      *lhsType, *rhsType, *groupSizesType, /*hasGroupOffset=*/false, *dims,
      resultType->getElementType(), [&] { return report(); });
  if (failed(inferred))
    return failure();
  auto compatible = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  if (inferred->getRank() != resultType->getRank() ||
      !llvm::all_of(
          llvm::zip_equal(inferred->getShape(), resultType->getShape()),
          [&](auto sizes) {
            return compatible(std::get<0>(sizes), std::get<1>(sizes));
          }))
    return report() << "has result type " << *resultType
                    << " but the dimension numbers give " << *inferred;

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  auto raggedDot = RaggedDotOp::create(
      rewriter, op->getLoc(), *resultType, op->getOperand(0), op->getOperand(1),
      op->getOperand(2), /*group_offset=*/Value(),
      /*init=*/Value(), *dims);
  for (NamedAttribute attr : carriedOver)
    raggedDot->setDiscardableAttr(attr.getName(), attr.getValue());
  // inferResultType has made all of the verifier's checks already; this is a
  // guard against the two drifting apart.
  if (failed(verifyAt(raggedDot, report))) {
    rewriter.eraseOp(raggedDot);
    return failure();
  }
  rewriter.replaceOp(op, raggedDot->getResults());
  return success();
}

/// Applies the import where it succeeds; a module with an op it cannot import
/// keeps that op.
struct ImportCHLORaggedDotPattern : public RewritePattern {
  ImportCHLORaggedDotPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isCHLORaggedDot(op))
      return failure();
    if (failed(importImpl(rewriter, op, Reporter(op, /*enabled=*/false))))
      return rewriter.notifyMatchFailure(op, "unsupported chlo.ragged_dot");
    return success();
  }
};

struct ConvertCHLOToGMMPass
    : public mlir::gmm::impl::ConvertCHLOToGMMBase<ConvertCHLOToGMMPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isCHLORaggedDot(op))
        ops.push_back(op);
    });
    // Every op is tried so that all errors of a module are reported at once.
    IRRewriter rewriter(&getContext());
    bool failedAny = false;
    SmallVector<SymbolRefAttr> decompositions;
    for (Operation *op : ops) {
      auto decomposition =
          op->getName().getStringRef() == kCompositeName
              ? findAttribute<SymbolRefAttr>(op, "decomposition")
              : SymbolRefAttr();
      if (failed(importCHLORaggedDot(rewriter, op)))
        failedAny = true;
      else if (decomposition)
        decompositions.push_back(decomposition);
    }
    eraseUnusedDecompositions(decompositions);
    if (failedAny)
      signalPassFailure();
  }

  /// Erases the decomposition functions of imported composites that nothing
  /// uses any more, and then the private functions that only they used: the
  /// StableHLO bodies that JAX writes next to each composite, which no gmm
  /// pipeline could lower. Public functions and functions still used stay.
  void eraseUnusedDecompositions(ArrayRef<SymbolRefAttr> roots) {
    Operation *top = getOperation();
    SmallVector<SymbolRefAttr> worklist(roots.begin(), roots.end());
    while (!worklist.empty()) {
      SymbolRefAttr ref = worklist.pop_back_val();
      Operation *symbol = SymbolTable::lookupNearestSymbolFrom(top, ref);
      auto callable = dyn_cast_or_null<SymbolOpInterface>(symbol);
      if (!callable || !callable.isPrivate() || symbol == top)
        continue;
      Operation *scope = SymbolTable::getNearestSymbolTable(symbol);
      if (!scope || !SymbolTable::symbolKnownUseEmpty(symbol, scope))
        continue;
      // What the function refers to may become unused with it.
      if (std::optional<SymbolTable::UseRange> uses =
              SymbolTable::getSymbolUses(symbol))
        for (const SymbolTable::SymbolUse &use : *uses)
          worklist.push_back(use.getSymbolRef());
      symbol->erase();
    }
  }
};

} // namespace

bool mlir::gmm::isCHLORaggedDot(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name == kRaggedDotName)
    return true;
  if (name == kCompositeName)
    return getStringAttribute(op, "name") == kRaggedDotName;
  return name == kCustomCallName &&
         getStringAttribute(op, "call_target_name") == kRaggedDotName;
}

LogicalResult mlir::gmm::importCHLORaggedDot(RewriterBase &rewriter,
                                             Operation *op) {
  return importImpl(rewriter, op, Reporter(op, /*enabled=*/true));
}

void mlir::gmm::populateCHLOToGMMPatterns(RewritePatternSet &patterns) {
  patterns.add<ImportCHLORaggedDotPattern>(patterns.getContext());
}
