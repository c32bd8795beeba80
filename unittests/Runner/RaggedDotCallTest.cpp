//===- RaggedDotCallTest.cpp - gmm.jax's front door -------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// describeRaggedDotCall builds the op that a frontend describes and answers
// with what the op decides: the result shape, mode and free dimensions of
// each mode, the verifier's message for a bad call, and a module that
// parses back. The expected shapes are written out from docs/Semantics.md.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/RaggedDotCall.h"
#include "gmm/Runner/ModuleCache.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace gmm::runner;

namespace {

/// jax.lax.ragged_dot: lhs [m, k], rhs [g, k, n], rows ragged.
RaggedDotCall mode1Call() {
  RaggedDotCall call;
  call.lhs = {{8, 4}, "f32"};
  call.rhs = {{2, 4, 3}, "f32"};
  call.groupSizes = {{2}, "i32"};
  call.lhsContractingDimensions = {1};
  call.rhsContractingDimensions = {1};
  call.lhsRaggedDimensions = {0};
  call.rhsGroupDimensions = {0};
  call.resultElementType = "f32";
  return call;
}

TEST(RaggedDotCall, Mode1) {
  std::unique_ptr<mlir::MLIRContext> context = createRunnerContext();
  llvm::Expected<RaggedDotSignature> signature =
      describeRaggedDotCall(*context, mode1Call());
  ASSERT_TRUE(static_cast<bool>(signature))
      << llvm::toString(signature.takeError());
  EXPECT_EQ(signature->mode, 1);
  EXPECT_EQ(signature->resultShape, (std::vector<int64_t>{8, 3}));
  EXPECT_EQ(signature->lhsFreeDimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(signature->rhsFreeDimensions, (std::vector<int64_t>{2}));
  // The module verifies where it is compiled.
  ModuleCache cache;
  EXPECT_FALSE(static_cast<bool>(cache.verify(signature->moduleText)));
  EXPECT_NE(signature->moduleText.find("func.func @ragged_dot("),
            std::string::npos);
}

TEST(RaggedDotCall, Mode2WithLocalGroups) {
  // The weight gradient: lhs [k, m], rhs [k, n], k ragged; two of three
  // groups from an offset.
  RaggedDotCall call;
  call.lhs = {{8, 3}, "bf16"};
  call.rhs = {{8, 5}, "bf16"};
  call.groupSizes = {{3}, "i64"};
  call.groupOffset = RaggedDotCall::Operand{{}, "i64"};
  call.lhsContractingDimensions = {0};
  call.rhsContractingDimensions = {0};
  call.lhsRaggedDimensions = {0};
  call.resultElementType = "f32";
  call.numLocalGroups = 2;
  call.tileSizes = {{8, 8, 8}};
  std::unique_ptr<mlir::MLIRContext> context = createRunnerContext();
  llvm::Expected<RaggedDotSignature> signature =
      describeRaggedDotCall(*context, call);
  ASSERT_TRUE(static_cast<bool>(signature))
      << llvm::toString(signature.takeError());
  EXPECT_EQ(signature->mode, 2);
  EXPECT_EQ(signature->resultShape, (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(signature->lhsFreeDimensions, (std::vector<int64_t>{1}));
  EXPECT_EQ(signature->rhsFreeDimensions, (std::vector<int64_t>{1}));
  EXPECT_NE(signature->moduleText.find("tile = [8, 8, 8]"), std::string::npos);
}

TEST(RaggedDotCall, BadCallsGetTheVerifiersMessage) {
  std::unique_ptr<mlir::MLIRContext> context = createRunnerContext();
  RaggedDotCall call = mode1Call();
  call.rhsContractingDimensions = {5};
  llvm::Expected<RaggedDotSignature> bad =
      describeRaggedDotCall(*context, call);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "'gmm.ragged_dot' op rhs_contracting_dimensions[0] = 5 is out of "
            "range for rhs of "
            "rank 3");

  call = mode1Call();
  call.rhs.shape = {2, 5, 3};
  bad = describeRaggedDotCall(*context, call);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "'gmm.ragged_dot' op lhs contracting dimension 1 has size 4 but "
            "rhs contracting "
            "dimension 1 has size 5");

  call = mode1Call();
  call.lhs.shape = {8, -4};
  bad = describeRaggedDotCall(*context, call);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()), "lhs has the negative size -4");

  call = mode1Call();
  call.numLocalGroups = -1;
  bad = describeRaggedDotCall(*context, call);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "num_local_groups is negative: -1");

  call = mode1Call();
  call.resultElementType = "tensor<2xf32>";
  bad = describeRaggedDotCall(*context, call);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "the result has the element type 'tensor<2xf32>', which a tensor "
            "cannot hold");

  // An element type that the op does not take: its verifier says so.
  call = mode1Call();
  call.lhs.elementType = call.rhs.elementType = "i32";
  bad = describeRaggedDotCall(*context, call);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("'gmm.ragged_dot' op"),
            std::string::npos);

  call = mode1Call();
  call.lhs.elementType = "f33";
  bad = describeRaggedDotCall(*context, call);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("'f33'"), std::string::npos);
}

TEST(RaggedDotCall, JSON) {
  std::unique_ptr<mlir::MLIRContext> context = createRunnerContext();
  llvm::Expected<std::string> answer = describeRaggedDotCallJSON(
      *context,
      R"({"lhs": {"shape": [8, 4], "element_type": "f16"},
          "rhs": {"shape": [2, 4, 3], "element_type": "f16"},
          "group_sizes": {"shape": [2], "element_type": "i32"},
          "group_offset": null, "init": null,
          "dimension_numbers": {"lhs_batching_dimensions": [],
            "rhs_batching_dimensions": [], "lhs_contracting_dimensions": [1],
            "rhs_contracting_dimensions": [1], "lhs_ragged_dimensions": [0],
            "rhs_group_dimensions": [0]},
          "result_element_type": "f32", "num_local_groups": null,
          "tile_sizes": null})");
  ASSERT_TRUE(static_cast<bool>(answer)) << llvm::toString(answer.takeError());
  EXPECT_NE(answer->find("\"result_shape\":[8,3]"), std::string::npos)
      << *answer;
  EXPECT_NE(answer->find("\"mode\":1"), std::string::npos) << *answer;

  for (
      const char *request :
      {"[]", "{\"lhs\": 1}", "not json",
       R"({"lhs": {"shape": [8], "element_type": "f32"}})",
       // Numbers that are no int64 (2^63 as a double was undefined
       // behaviour in the conversion).
       R"({"lhs": {"shape": [9223372036854775807.0, 4], "element_type": "f16"}})",
       R"({"lhs": {"shape": [-1e300, 4], "element_type": "f16"}})",
       R"({"lhs": {"shape": [2.5, 4], "element_type": "f16"}})"}) {
    llvm::Expected<std::string> bad =
        describeRaggedDotCallJSON(*context, request);
    ASSERT_FALSE(static_cast<bool>(bad)) << request;
    EXPECT_EQ(llvm::toString(bad.takeError()).rfind("malformed request", 0), 0u)
        << request;
  }
}

} // namespace
