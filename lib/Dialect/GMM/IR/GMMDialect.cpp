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
/// The keys of #gmm.ragged_dot, in the order the printer writes them (CHLO's).
constexpr llvm::StringLiteral kDimensionKeys[] = {
    "lhs_batching_dimensions",    "rhs_batching_dimensions",
    "lhs_contracting_dimensions", "rhs_contracting_dimensions",
    "lhs_ragged_dimensions",      "rhs_group_dimensions"};
constexpr size_t kNumDimensionKeys = std::size(kDimensionKeys);

std::string allDimensionKeys() {
  return llvm::join(ArrayRef<llvm::StringLiteral>(kDimensionKeys), ", ");
}
} // namespace

Attribute RaggedDotDimensionNumbersAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> lists[kNumDimensionKeys];
  bool seen[kNumDimensionKeys] = {};

  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    do {
      SMLoc keyLoc = parser.getCurrentLocation();
      StringRef key;
      if (failed(parser.parseOptionalKeyword(&key))) {
        parser.emitError(keyLoc, "expected one of the keys ")
            << allDimensionKeys() << " in #gmm.ragged_dot";
        return {};
      }
      const auto *it = llvm::find(kDimensionKeys, key);
      if (it == std::end(kDimensionKeys)) {
        parser.emitError(keyLoc, "unknown key '")
            << key << "' in #gmm.ragged_dot; expected one of "
            << allDimensionKeys();
        return {};
      }
      size_t index = it - std::begin(kDimensionKeys);
      if (seen[index]) {
        parser.emitError(keyLoc, "duplicate key '")
            << key << "' in #gmm.ragged_dot";
        return {};
      }
      seen[index] = true;
      if (parser.parseEqual() ||
          parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
            return parser.parseInteger(lists[index].emplace_back());
          }))
        return {};
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseGreater())
      return {};
  }
  return RaggedDotDimensionNumbersAttr::get(parser.getContext(), lists[0],
                                            lists[1], lists[2], lists[3],
                                            lists[4], lists[5]);
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
