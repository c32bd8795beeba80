//===- JitRunnerTest.cpp - JIT-compiling and calling functions ------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/JitRunner.h"
#include "gmm/Runner/ModuleCache.h"

#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Runner/RaggedDotCheck.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gmm/Pipelines/Pipelines.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <thread>

using namespace gmm::runner;

namespace {

class JitRunnerTest : public ::testing::Test {
protected:
  JitRunnerTest() {
    mlir::DialectRegistry registry;
    registerRunnerDialects(registry);
    context.appendDialectRegistry(registry);
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef source) {
    return mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  }

  /// Compiles the only function of `source`; fails the test on errors.
  std::unique_ptr<JitFunction> compile(mlir::ModuleOp module,
                                       llvm::StringRef entry = "") {
    auto function = JitFunction::compile(module, entry);
    if (!function) {
      ADD_FAILURE() << llvm::toString(function.takeError());
      return nullptr;
    }
    return std::move(*function);
  }

  mlir::MLIRContext context;
};

HostTensor floats(DType type, std::vector<int64_t> shape,
                  std::vector<double> values) {
  HostTensor tensor = HostTensor::zeros(type, shape);
  for (size_t i = 0; i < values.size(); ++i)
    tensor.setDouble(i, values[i]);
  return tensor;
}

HostTensor ints(DType type, std::vector<int64_t> shape,
                std::vector<int64_t> values) {
  HostTensor tensor = HostTensor::zeros(type, shape);
  for (size_t i = 0; i < values.size(); ++i)
    tensor.setInt(i, values[i]);
  return tensor;
}

std::vector<double> valuesOf(const HostTensor &tensor) {
  return toReferenceTensor(tensor).data;
}

// docs/Semantics.md, example 1: mode 1 with sizes [3, 0, 5] over m = 8.
const char *kMode1 = R"mlir(
func.func @mode1(%lhs: tensor<8x2xf32>, %rhs: tensor<3x2x2xf32>,
                 %gs: tensor<3xi32>) -> tensor<8x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<8x2xf32>, tensor<3x2x2xf32>, tensor<3xi32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}
)mlir";

std::vector<HostTensor> mode1Arguments() {
  return {floats(DType::F32, {8, 2},
                 {1, 0, 0, 1, 1, 1, 2, 1, 1, 2, 3, 0, 0, 3, 1, -1}),
          floats(DType::F32, {3, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0, 3}),
          ints(DType::I32, {3}, {3, 0, 5})};
}

TEST_F(JitRunnerTest, RaggedDotMode1) {
  auto module = parse(kMode1);
  ASSERT_TRUE(module);
  auto function = compile(*module);
  ASSERT_TRUE(function);
  EXPECT_EQ(function->getSignature().name, "mode1");
  ASSERT_EQ(function->getSignature().arguments.size(), 3u);
  EXPECT_EQ(function->getSignature().results[0].typeName, "tensor<8x2xf32>");

  std::vector<HostTensor> arguments = mode1Arguments();
  auto outputs = function->call(arguments);
  ASSERT_TRUE(static_cast<bool>(outputs))
      << llvm::toString(outputs.takeError());
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ((*outputs)[0].shape, (std::vector<int64_t>{8, 2}));
  EXPECT_EQ(
      valuesOf((*outputs)[0]),
      (std::vector<double>{1, 0, 0, 1, 1, 1, 4, 3, 2, 6, 6, 0, 0, 9, 2, -3}));

  // The check and the FLOP count see the same call.
  auto entry = lookupEntryFunction(*module, "");
  ASSERT_TRUE(static_cast<bool>(entry));
  auto binding = findRaggedDot(*entry);
  ASSERT_TRUE(static_cast<bool>(binding));
  EXPECT_EQ(binding->lhs, 0u);
  EXPECT_EQ(binding->groupSizes, 2u);
  EXPECT_EQ(binding->init, std::nullopt);
  EXPECT_EQ(binding->result, 0u);
  EXPECT_FALSE(static_cast<bool>(checkRaggedDotShapes(*binding, arguments)));
  auto outcome = checkAgainstReference(*binding, arguments, *outputs);
  ASSERT_TRUE(static_cast<bool>(outcome));
  EXPECT_TRUE(outcome->passed) << outcome->line;
  EXPECT_EQ(outcome->line.rfind("check: PASS (16 elements, max abs error 0, "
                                "tolerance atol=",
                                0),
            0u)
      << outcome->line;
  // 8 covered rows * k = 2 * n = 2 multiply-adds.
  EXPECT_EQ(countUsefulFlops(*binding, arguments, *outputs), 64.0);

  // A wrong result is reported with its first mismatch.
  std::vector<HostTensor> wrong = *outputs;
  wrong[0].setDouble(5, 7);
  outcome = checkAgainstReference(*binding, arguments, wrong);
  ASSERT_TRUE(static_cast<bool>(outcome));
  EXPECT_FALSE(outcome->passed);
  EXPECT_EQ(outcome->line.rfind("check: FAIL (1 of 16 elements differ, first "
                                "at [2, 1]: got 7, expected 1; max abs error "
                                "6, tolerance",
                                0),
            0u)
      << outcome->line;

  // Group sizes that empty the last group: rows 3-7 become zero.
  arguments[2] = ints(DType::I32, {3}, {3, 5, -4});
  outputs = function->call(arguments);
  ASSERT_TRUE(static_cast<bool>(outputs));
  EXPECT_EQ(
      valuesOf((*outputs)[0]),
      (std::vector<double>{1, 0, 0, 1, 1, 1, 1, 2, 2, 1, 0, 3, 3, 0, -1, 1}));
}

TEST_F(JitRunnerTest, ArgumentErrors) {
  auto module = parse(kMode1);
  ASSERT_TRUE(module);
  auto function = compile(*module);
  ASSERT_TRUE(function);
  std::vector<HostTensor> arguments = mode1Arguments();
  auto errorOf = [&](llvm::ArrayRef<HostTensor> args) {
    auto outputs = function->call(args);
    if (outputs)
      return std::string("<no error>");
    return llvm::toString(outputs.takeError());
  };
  EXPECT_EQ(errorOf(llvm::ArrayRef(arguments).drop_back()),
            "@mode1 takes 3 arguments, got 2");
  std::vector<HostTensor> bad = arguments;
  bad[2] = ints(DType::I64, {3}, {3, 0, 5});
  EXPECT_EQ(errorOf(bad),
            "argument 2 (tensor<3xi32>) expects i32 elements, got i64");
  bad = arguments;
  bad[0] = floats(DType::F32, {8, 3}, {});
  EXPECT_EQ(errorOf(bad),
            "argument 0 (tensor<8x2xf32>) expects shape [8, 2], got [8, 3]");
  bad = arguments;
  bad[1] = floats(DType::F32, {6, 2}, {});
  EXPECT_EQ(errorOf(bad),
            "argument 1 (tensor<3x2x2xf32>) expects rank 3, got shape [6, 2]");
}

TEST_F(JitRunnerTest, EntryLookup) {
  auto module = parse(R"mlir(
    func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
    func.func @b(%x: index) -> index { return %x : index }
    func.func private @decl(%x: tensor<2xf32>)
  )mlir");
  ASSERT_TRUE(module);
  auto errorOf = [&](llvm::StringRef name) {
    auto entry = lookupEntryFunction(*module, name);
    if (entry)
      return std::string("<no error>");
    return llvm::toString(entry.takeError());
  };
  EXPECT_EQ(errorOf(""), "the module defines 2 functions (@a, @b); choose one "
                         "with --entry");
  EXPECT_EQ(errorOf("c"), "no function @c (functions: @a, @b)");
  EXPECT_EQ(errorOf("decl"), "@decl is a declaration without a body");
  EXPECT_EQ(errorOf("a"), "<no error>");

  auto b = lookupEntryFunction(*module, "b");
  ASSERT_TRUE(static_cast<bool>(b));
  auto signature = getFunctionSignature(*b);
  ASSERT_FALSE(static_cast<bool>(signature));
  EXPECT_EQ(llvm::toString(signature.takeError()),
            "argument 0 of @b has type 'index': gmm-runner passes only ranked "
            "tensors and memrefs");
}

TEST_F(JitRunnerTest, MemRefArgumentsRankZeroAndDynamicSizes) {
  auto module = parse(R"mlir(
    func.func @f(%t: tensor<?x2xf32>, %m: memref<2xi64>)
        -> (tensor<f32>, tensor<?x2xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c7 = arith.constant 7 : i64
      memref.store %c7, %m[%c1] : memref<2xi64>
      %e = tensor.extract %t[%c1, %c0] : tensor<?x2xf32>
      %s = tensor.from_elements %e : tensor<f32>
      %d = tensor.dim %t, %c0 : tensor<?x2xf32>
      %empty = tensor.empty(%d) : tensor<?x2xf32>
      %sum = linalg.add ins(%t, %t : tensor<?x2xf32>, tensor<?x2xf32>)
                        outs(%empty : tensor<?x2xf32>) -> tensor<?x2xf32>
      return %s, %sum : tensor<f32>, tensor<?x2xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto function = compile(*module, "f");
  ASSERT_TRUE(function);
  EXPECT_TRUE(function->getSignature().arguments[1].isMemRef);
  EXPECT_EQ(function->getSignature().arguments[0].describe({3, 2}),
            "tensor<3x2xf32>");

  std::vector<HostTensor> arguments = {
      floats(DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6}),
      ints(DType::I64, {2}, {-1, -2})};
  auto outputs = function->call(arguments);
  ASSERT_TRUE(static_cast<bool>(outputs))
      << llvm::toString(outputs.takeError());
  // Two results, then the memref argument as the callee left it.
  ASSERT_EQ(outputs->size(), 3u);
  EXPECT_TRUE((*outputs)[0].shape.empty());
  EXPECT_EQ(valuesOf((*outputs)[0]), (std::vector<double>{3}));
  EXPECT_EQ((*outputs)[1].shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(valuesOf((*outputs)[1]), (std::vector<double>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(valuesOf((*outputs)[2]), (std::vector<double>{-1, 7}));
  // The caller's arguments are never written.
  EXPECT_EQ(arguments[1].getInt(1), -2);

  // A different dynamic size works with the same compiled function.
  arguments[0] = floats(DType::F32, {1, 2}, {5, 6});
  outputs = function->call(arguments);
  ASSERT_TRUE(static_cast<bool>(outputs));
  EXPECT_EQ(valuesOf((*outputs)[1]), (std::vector<double>{10, 12}));
}

TEST_F(JitRunnerTest, InitArgumentIsNotModified) {
  // One-shot bufferization may accumulate into the init buffer in place; the
  // runner must hand the callee a copy.
  auto module = parse(R"mlir(
    func.func @acc(%lhs: tensor<4x1xf32>, %rhs: tensor<2x1x1xf32>,
                   %gs: tensor<2xi64>, %init: tensor<4x1xf32>)
        -> tensor<4x1xf32> {
      %0 = gmm.ragged_dot %lhs, %rhs, %gs init(%init : tensor<4x1xf32>)
          dimension_numbers = <lhs_contracting_dimensions = [1],
                               rhs_contracting_dimensions = [1],
                               lhs_ragged_dimensions = [0],
                               rhs_group_dimensions = [0]>
          : tensor<4x1xf32>, tensor<2x1x1xf32>, tensor<2xi64> -> tensor<4x1xf32>
      return %0 : tensor<4x1xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto function = compile(*module);
  ASSERT_TRUE(function);
  std::vector<HostTensor> arguments = {
      floats(DType::F32, {4, 1}, {1, 2, 3, 4}),
      floats(DType::F32, {2, 1, 1}, {10, 100}), ints(DType::I64, {2}, {1, 2}),
      floats(DType::F32, {4, 1}, {0.5, 0.5, 0.5, 0.5})};
  for (int run = 0; run < 2; ++run) {
    auto outputs = function->call(arguments);
    ASSERT_TRUE(static_cast<bool>(outputs))
        << llvm::toString(outputs.takeError());
    // Row 3 is covered by no group and keeps init.
    EXPECT_EQ(valuesOf((*outputs)[0]),
              (std::vector<double>{10.5, 200.5, 300.5, 0.5}));
    EXPECT_EQ(valuesOf(arguments[3]),
              (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
  }
}

TEST_F(JitRunnerTest, ShapeChecksUseActualSizes) {
  auto module = parse(R"mlir(
    func.func @dyn(%lhs: tensor<?x?xf32>, %rhs: tensor<2x?x3xf32>,
                   %gs: tensor<2xi32>) -> tensor<?x3xf32> {
      %0 = gmm.ragged_dot %lhs, %rhs, %gs
          dimension_numbers = <lhs_contracting_dimensions = [1],
                               rhs_contracting_dimensions = [1],
                               lhs_ragged_dimensions = [0],
                               rhs_group_dimensions = [0]>
          : tensor<?x?xf32>, tensor<2x?x3xf32>, tensor<2xi32> -> tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto entry = lookupEntryFunction(*module, "");
  ASSERT_TRUE(static_cast<bool>(entry));
  auto binding = findRaggedDot(*entry);
  ASSERT_TRUE(static_cast<bool>(binding));
  std::vector<HostTensor> arguments = {floats(DType::F32, {4, 5}, {}),
                                       floats(DType::F32, {2, 6, 3}, {}),
                                       ints(DType::I32, {2}, {2, 2})};
  llvm::Error error = checkRaggedDotShapes(*binding, arguments);
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "the argument shapes do not fit gmm.ragged_dot: lhs contracting "
            "dimension 1 has size 5 but rhs contracting dimension 1 has size "
            "6");
  arguments[1] = floats(DType::F32, {2, 5, 3}, {});
  EXPECT_FALSE(static_cast<bool>(checkRaggedDotShapes(*binding, arguments)));
}

TEST_F(JitRunnerTest, BindingNeedsArguments) {
  auto module = parse(R"mlir(
    func.func @c(%lhs: tensor<4x2xf32>, %rhs: tensor<2x2x2xf32>)
        -> tensor<4x2xf32> {
      %gs = arith.constant dense<[2, 2]> : tensor<2xi32>
      %0 = gmm.ragged_dot %lhs, %rhs, %gs
          dimension_numbers = <lhs_contracting_dimensions = [1],
                               rhs_contracting_dimensions = [1],
                               lhs_ragged_dimensions = [0],
                               rhs_group_dimensions = [0]>
          : tensor<4x2xf32>, tensor<2x2x2xf32>, tensor<2xi32> -> tensor<4x2xf32>
      return %0 : tensor<4x2xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto entry = lookupEntryFunction(*module, "");
  ASSERT_TRUE(static_cast<bool>(entry));
  auto binding = findRaggedDot(*entry);
  ASSERT_TRUE(static_cast<bool>(binding));
  EXPECT_EQ(binding->groupSizes, std::nullopt);
  llvm::Error error = checkReferenceBinding(*binding);
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "the group_sizes operand of gmm.ragged_dot is not an argument of "
            "@c; the check needs every operand to be an entry argument");
}

TEST_F(JitRunnerTest, StridedCopiesUseTheRunnersMemrefCopy) {
  // Bufferizing insert_slice copies into a strided subview, which the memref
  // lowering turns into a call to memrefCopy.
  auto module = parse(R"mlir(
    func.func @slice(%big: tensor<3x4xf32>, %small: tensor<2x2xf32>)
        -> tensor<3x4xf32> {
      %0 = tensor.insert_slice %small into %big[1, 1] [2, 2] [1, 1]
          : tensor<2x2xf32> into tensor<3x4xf32>
      return %0 : tensor<3x4xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto function = compile(*module);
  ASSERT_TRUE(function);
  auto outputs = function->call(
      {floats(DType::F32, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
       floats(DType::F32, {2, 2}, {-1, -2, -3, -4})});
  ASSERT_TRUE(static_cast<bool>(outputs))
      << llvm::toString(outputs.takeError());
  EXPECT_EQ(valuesOf((*outputs)[0]),
            (std::vector<double>{0, 1, 2, 3, 4, -1, -2, 7, 8, -3, -4, 11}));
}

TEST_F(JitRunnerTest, Pipelines) {
  ASSERT_FALSE(getPipelines().empty());
  // The tiled pipeline is the default; the reference stays available.
  EXPECT_STREQ(getPipelines().front().name, "cpu");
  EXPECT_NE(lookupPipeline("cpu"), nullptr);
  EXPECT_NE(lookupPipeline("reference"), nullptr);
  EXPECT_EQ(lookupPipeline("nope"), nullptr);
  // The runner's list is lib/Pipelines' catalogue, in its order.
  ASSERT_EQ(getPipelines().size(), mlir::gmm::getPipelineCatalogue().size());
  for (auto [info, description] :
       llvm::zip(getPipelines(), mlir::gmm::getPipelineCatalogue())) {
    EXPECT_STREQ(info.name, description.name);
    EXPECT_EQ(info.cuda, description.gpu);
  }
}

/// A mode-1 ragged dot that writes into its last argument, as gmm.jax's
/// modules do.
constexpr const char *kDestinationModule = R"mlir(
func.func @ragged_dot(%lhs: tensor<6x2xf32> {bufferization.writable = false},
                      %rhs: tensor<2x2x3xf32> {bufferization.writable = false},
                      %gs: tensor<2xi32> {bufferization.writable = false},
                      %out: memref<6x3xf32>) {
  %r = gmm.ragged_dot %lhs, %rhs, %gs
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<6x2xf32>, tensor<2x2x3xf32>, tensor<2xi32> -> tensor<6x3xf32>
  bufferization.materialize_in_destination %r in restrict writable %out
      : (tensor<6x3xf32>, memref<6x3xf32>) -> ()
  return
}
)mlir";

TEST(ModuleCacheTest, CompilesOncePerText) {
  ModuleCache cache;
  auto first = cache.getOrCompile(kDestinationModule, "ragged_dot");
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  auto second = cache.getOrCompile(kDestinationModule, "ragged_dot");
  ASSERT_TRUE(static_cast<bool>(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(cache.getNumCompilations(), 1u);
  // Another pipeline is another compilation.
  auto reference =
      cache.getOrCompile(kDestinationModule, "ragged_dot", "reference");
  ASSERT_TRUE(static_cast<bool>(reference))
      << llvm::toString(reference.takeError());
  EXPECT_NE(*reference, *first);
  EXPECT_EQ(cache.getNumCompilations(), 2u);
}

TEST(ModuleCacheTest, ErrorsAreOneLineWithTheLocation) {
  ModuleCache cache;
  std::string bad = "func.func @ragged_dot() {\n  %x = gmm.nope\n}\n";
  llvm::Error verified = cache.verify(bad);
  ASSERT_TRUE(static_cast<bool>(verified));
  std::string message = llvm::toString(std::move(verified));
  EXPECT_NE(message.find("module:2:"), std::string::npos) << message;
  EXPECT_NE(message.find("error: "), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  auto compiled = cache.getOrCompile(bad, "ragged_dot");
  ASSERT_FALSE(static_cast<bool>(compiled));
  EXPECT_EQ(llvm::toString(compiled.takeError()), message);
  EXPECT_EQ(cache.getNumCompilations(), 0u);
  auto pipeline = cache.getOrCompile(kDestinationModule, "ragged_dot", "nope");
  ASSERT_FALSE(static_cast<bool>(pipeline));
  EXPECT_NE(llvm::toString(pipeline.takeError()).find("unknown --pipeline"),
            std::string::npos);
  EXPECT_FALSE(static_cast<bool>(cache.verify(kDestinationModule)));
}

// Calls of one compiled function from many threads at once (XLA calls the
// JAX FFI handler from one thread per device), each on its own buffers and
// group sizes, all correct.
TEST(ModuleCacheTest, ConcurrentCallsOnCallersBuffers) {
  ModuleCache cache;
  auto function = cache.getOrCompile(kDestinationModule, "ragged_dot");
  ASSERT_TRUE(static_cast<bool>(function))
      << llvm::toString(function.takeError());
  constexpr int kThreads = 8, kCalls = 25;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      float lhs[6][2], rhs[2][2][3], out[6][3];
      int32_t sizes[2] = {t % 7, 6 - t % 7};
      for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 2; ++c)
          lhs[r][c] = float(r + c + t);
      for (int g = 0; g < 2; ++g)
        for (int k = 0; k < 2; ++k)
          for (int n = 0; n < 3; ++n)
            rhs[g][k][n] = float(g * 10 + k * 3 + n - t);
      for (int call = 0; call < kCalls && failures[t].empty(); ++call) {
        std::vector<std::vector<int64_t>> descriptors = {
            denseDescriptor(lhs, {6, 2}), denseDescriptor(rhs, {2, 2, 3}),
            denseDescriptor(sizes, {2}), denseDescriptor(out, {6, 3})};
        auto called = (*function)->invokeOnDescriptors(descriptors);
        if (!called) {
          failures[t] = llvm::toString(called.takeError());
          break;
        }
        for (int r = 0; r < 6; ++r) {
          int group = r < sizes[0] ? 0 : 1;
          for (int n = 0; n < 3; ++n) {
            float expected = 0;
            for (int k = 0; k < 2; ++k)
              expected += lhs[r][k] * rhs[group][k][n];
            if (out[r][n] != expected)
              failures[t] = "wrong value in thread " + std::to_string(t);
          }
        }
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &failure : failures)
    EXPECT_EQ(failure, "");
}

} // namespace
