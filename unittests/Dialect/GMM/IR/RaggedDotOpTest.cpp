//===- RaggedDotOpTest.cpp - gmm.ragged_dot type inference and builders ---===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::gmm;

namespace {

class RaggedDotTest : public ::testing::Test {
protected:
  RaggedDotTest() { context.loadDialect<GMMDialect, func::FuncDialect>(); }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type elementType = {}) {
    return RankedTensorType::get(shape, elementType ? elementType
                                                    : builder.getF32Type());
  }

  RaggedDotDimensionNumbersAttr
  dims(ArrayRef<int64_t> lhsBatch, ArrayRef<int64_t> rhsBatch,
       ArrayRef<int64_t> lhsContract, ArrayRef<int64_t> rhsContract,
       ArrayRef<int64_t> lhsRagged, ArrayRef<int64_t> rhsGroup) {
    return RaggedDotDimensionNumbersAttr::get(&context, lhsBatch, rhsBatch,
                                              lhsContract, rhsContract,
                                              lhsRagged, rhsGroup);
  }

  /// Infers a result type and returns it printed, or the diagnostic text.
  std::string infer(RankedTensorType lhs, RankedTensorType rhs,
                    RankedTensorType groupSizes,
                    RaggedDotDimensionNumbersAttr dimensionNumbers,
                    bool hasGroupOffset = false, Type elementType = {}) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    auto emitError = [&]() { return mlir::emitError(loc); };
    FailureOr<RankedTensorType> type =
        RaggedDotOp::inferResultType(lhs, rhs, groupSizes, hasGroupOffset,
                                     dimensionNumbers, elementType, emitError);
    if (failed(type))
      return "error: " + message;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << *type;
    return text;
  }

  MLIRContext context;
  OpBuilder builder{&context};
  Location loc = UnknownLoc::get(&context);
};

// The successful shapes of JAX's ragged_dot_general tests.
TEST_F(RaggedDotTest, InfersMode1) {
  EXPECT_EQ(infer(tensor({11, 5}), tensor({3, 5, 7}),
                  tensor({3}, builder.getI32Type()),
                  dims({}, {}, {1}, {1}, {0}, {0})),
            "tensor<11x7xf32>");
}

TEST_F(RaggedDotTest, InfersMode2WithLeadingGroupDim) {
  EXPECT_EQ(infer(tensor({11, 5}), tensor({5, 7}),
                  tensor({3}, builder.getI32Type()),
                  dims({}, {}, {1}, {0}, {1}, {})),
            "tensor<3x11x7xf32>");
}

TEST_F(RaggedDotTest, InfersMode2WithBatchedGroupSizes) {
  EXPECT_EQ(infer(tensor({2, 11, 5}), tensor({2, 5, 7}),
                  tensor({2, 3}, builder.getI64Type()),
                  dims({0}, {0}, {2}, {1}, {2}, {})),
            "tensor<3x2x11x7xf32>");
}

TEST_F(RaggedDotTest, InfersMode3AsBatchedDot) {
  EXPECT_EQ(infer(tensor({4, 8, 5}), tensor({4, 5, 6}),
                  tensor({2}, builder.getI32Type()),
                  dims({0}, {0}, {2}, {1}, {0}, {})),
            "tensor<4x8x6xf32>");
}

TEST_F(RaggedDotTest, ResultDimsFollowFreeDimsInAscendingOrder) {
  // lhs [k, m], rhs [n, g, k]: free lhs dim 1, free rhs dim 0.
  EXPECT_EQ(infer(tensor({5, 9}), tensor({7, 2, 5}),
                  tensor({2}, builder.getI32Type()),
                  dims({}, {}, {0}, {2}, {1}, {1})),
            "tensor<9x7xf32>");
}

TEST_F(RaggedDotTest, PreferredElementTypeOverridesInputType) {
  EXPECT_EQ(infer(tensor({16, 4}, builder.getBF16Type()),
                  tensor({2, 4, 3}, builder.getBF16Type()),
                  tensor({2}, builder.getI32Type()),
                  dims({}, {}, {1}, {1}, {0}, {0}), false,
                  builder.getF32Type()),
            "tensor<16x3xf32>");
}

TEST_F(RaggedDotTest, DynamicDimsPropagate) {
  int64_t dyn = ShapedType::kDynamic;
  EXPECT_EQ(infer(tensor({dyn, 4}), tensor({dyn, 4, dyn}),
                  tensor({dyn}, builder.getI32Type()),
                  dims({}, {}, {1}, {1}, {0}, {0})),
            "tensor<?x?xf32>");
  // A dynamic lhs batch dim takes the static size of its rhs partner.
  EXPECT_EQ(infer(tensor({dyn, 8, 5}), tensor({4, 5, 6}),
                  tensor({2}, builder.getI32Type()),
                  dims({0}, {0}, {2}, {1}, {0}, {})),
            "tensor<4x8x6xf32>");
}

TEST_F(RaggedDotTest, Mode2GroupOffsetLeavesLocalGroupsOpen) {
  EXPECT_EQ(infer(tensor({11, 5}), tensor({11, 7}),
                  tensor({4}, builder.getI32Type()),
                  dims({}, {}, {0}, {0}, {0}, {}), /*hasGroupOffset=*/true),
            "tensor<?x5x7xf32>");
}

TEST_F(RaggedDotTest, ReportsMismatchedGroupCount) {
  EXPECT_EQ(infer(tensor({11, 5}), tensor({3, 5, 7}),
                  tensor({2}, builder.getI32Type()),
                  dims({}, {}, {1}, {1}, {0}, {0})),
            "error: rhs group dimension 0 has size 3 but group_sizes has 2 "
            "groups");
}

TEST_F(RaggedDotTest, ReportsWrongGroupSizesPrefix) {
  EXPECT_EQ(infer(tensor({2, 11, 5}), tensor({2, 5, 7}),
                  tensor({3, 3}, builder.getI32Type()),
                  dims({0}, {0}, {2}, {1}, {2}, {})),
            "error: expects group_sizes of shape [g] or [2, g] in mode 2 "
            "(ragged contracting dimension), got [3, 3]");
}

TEST_F(RaggedDotTest, FailsQuietlyWithoutErrorCallback) {
  FailureOr<RankedTensorType> type = RaggedDotOp::inferResultType(
      tensor({11, 5}), tensor({5, 7}), tensor({3}, builder.getI32Type()), false,
      dims({}, {}, {1}, {0}, {0, 1}, {}), Type(), nullptr);
  EXPECT_TRUE(failed(type));
}

TEST_F(RaggedDotTest, BuilderInfersTypeAndVerifies) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(
      builder, loc, "f",
      builder.getFunctionType({tensor({16, 4}), tensor({2, 4, 3}),
                               tensor({2}, builder.getI32Type())},
                              {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  auto op = RaggedDotOp::create(builder, loc, body->getArgument(0),
                                body->getArgument(1), body->getArgument(2),
                                dims({}, {}, {1}, {1}, {0}, {0}),
                                builder.getF16Type());
  func::ReturnOp::create(builder, loc);
  EXPECT_EQ(op.getType(), tensor({16, 3}, builder.getF16Type()));
  EXPECT_EQ(op.getMode(), RaggedDotMode::NonContracting);
  EXPECT_EQ(op.getRhsGroupDimension(), std::optional<int64_t>(0));
  EXPECT_EQ(op.getNumGroups(), 2);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(RaggedDotTest, ReifiesStaticResultShape) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(
      builder, loc, "f",
      builder.getFunctionType(
          {tensor({11, 5}), tensor({5, 7}), tensor({3}, builder.getI64Type())},
          {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  auto op = RaggedDotOp::create(builder, loc, body->getArgument(0),
                                body->getArgument(1), body->getArgument(2),
                                dims({}, {}, {1}, {0}, {1}, {}));
  ReifiedRankedShapedTypeDims shapes;
  ASSERT_TRUE(succeeded(op.reifyResultShapes(builder, shapes)));
  ASSERT_EQ(shapes.size(), 1u);
  ASSERT_EQ(shapes[0].size(), 3u);
  EXPECT_EQ(getConstantIntValue(shapes[0][0]), std::optional<int64_t>(3));
  EXPECT_EQ(getConstantIntValue(shapes[0][1]), std::optional<int64_t>(11));
  EXPECT_EQ(getConstantIntValue(shapes[0][2]), std::optional<int64_t>(7));
}

TEST_F(RaggedDotTest, AttributeParsesKeysInAnyOrderAndPrintsCanonically) {
  Attribute attr = parseAttribute(
      "#gmm.ragged_dot<rhs_group_dimensions = [0], lhs_ragged_dimensions = "
      "[0], rhs_contracting_dimensions = [1], lhs_contracting_dimensions = "
      "[1], lhs_batching_dimensions = []>",
      &context);
  ASSERT_TRUE(attr);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << attr;
  EXPECT_EQ(text, "#gmm.ragged_dot<lhs_contracting_dimensions = [1], "
                  "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = "
                  "[0], rhs_group_dimensions = [0]>");
  EXPECT_EQ(attr, dims({}, {}, {1}, {1}, {0}, {0}));
}

} // namespace
