//===- VisitProgramTest.cpp - gmm-tile's visit programs ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-tile asks the gmm dialect for the CPU's visit program
// (CPUVisitProgramInterface): without one attached it refuses a CPU
// configuration with a diagnostic; with the CPU backend's registration it
// builds the packed program; and an embedder can attach a program of its
// own, which gmm-tile then calls for every visit of either mode.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/Transforms/VisitProgram.h"
#include "gmm/Codegen/CPU/PackedProgram.h"
#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::gmm;

namespace {

// One ragged dot of each mode with a complete CPU configuration.
constexpr const char *kModule = R"mlir(
func.func @mode1(%lhs: tensor<1x1x20x10xf32>, %rhs: tensor<1x3x10x37xf32>, %gs: tensor<1x1x3xi32>) -> tensor<1x1x20x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [8, 16, 4], register_block = [4, 16], micro_kernel = fma>} : tensor<1x1x20x10xf32>, tensor<1x3x10x37xf32>, tensor<1x1x3xi32> -> tensor<1x1x20x37xf32>
  return %0 : tensor<1x1x20x37xf32>
}
func.func @mode2(%lhs: tensor<1x20x1x12xf32>, %rhs: tensor<1x20x1x37xf32>, %gs: tensor<1x3xi32>) -> tensor<3x1x12x37xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1, 2], rhs_contracting_dimensions = [1, 2], lhs_ragged_dimensions = [1]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [8, 16, 4], register_block = [4, 16], micro_kernel = fma>} : tensor<1x20x1x12xf32>, tensor<1x20x1x37xf32>, tensor<1x3xi32> -> tensor<3x1x12x37xf32>
  return %0 : tensor<3x1x12x37xf32>
}
)mlir";

DialectRegistry baseRegistry() {
  DialectRegistry registry;
  registry.insert<GMMDialect, arith::ArithDialect, func::FuncDialect,
                  tensor::TensorDialect>();
  return registry;
}

/// Parses kModule in `context` and runs gmm-tile; returns the diagnostics.
std::string tile(MLIRContext &context, LogicalResult &result,
                 OwningOpRef<ModuleOp> &module) {
  std::string messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages += diag.str() + "\n";
    return success();
  });
  module = parseSourceString<ModuleOp>(kModule, &context);
  if (!module) {
    result = failure();
    return messages;
  }
  PassManager pm(&context);
  pm.addPass(createGMMTile());
  result = pm.run(*module);
  return messages;
}

unsigned count(ModuleOp module, StringRef name) {
  unsigned n = 0;
  module->walk(
      [&](Operation *op) { n += op->getName().getStringRef() == name; });
  return n;
}

TEST(VisitProgram, CPUConfigurationNeedsAProgram) {
  MLIRContext context(baseRegistry());
  LogicalResult result = success();
  OwningOpRef<ModuleOp> module;
  std::string messages = tile(context, result, module);
  EXPECT_TRUE(failed(result));
  EXPECT_NE(messages.find("'gmm.ragged_dot' op has a CPU configuration, but no "
                          "CPU visit program is registered"),
            std::string::npos)
      << messages;
}

TEST(VisitProgram, CPUBackendAttachesThePackedProgram) {
  DialectRegistry registry = baseRegistry();
  registerCPUVisitProgram(registry);
  MLIRContext context(registry);
  LogicalResult result = failure();
  OwningOpRef<ModuleOp> module;
  std::string messages = tile(context, result, module);
  ASSERT_TRUE(succeeded(result)) << messages;
  EXPECT_EQ(count(*module, "gmm.ragged_dot"), 0u);
  // The packed program's read-only views of both operands, per ragged dot.
  EXPECT_EQ(count(*module, "bufferization.to_buffer"), 4u);
  // It loads x86vector (for bf16_dot) when gmm loads.
  EXPECT_NE(context.getLoadedDialect<x86vector::X86VectorDialect>(), nullptr);
}

/// A program that records its calls and leaves each slice as it is.
struct RecordingProgram : public VisitProgram {
  unsigned &nonContractingCalls, &contractingCalls;
  RecordingProgram(unsigned &nc, unsigned &c)
      : nonContractingCalls(nc), contractingCalls(c) {}
  Value nonContracting(OpBuilder &, Location,
                       const NonContractingVisit &visit) override {
    ++nonContractingCalls;
    return visit.slice;
  }
  Value contracting(OpBuilder &, Location,
                    const ContractingVisit &visit) override {
    ++contractingCalls;
    return visit.slice;
  }
};

unsigned builtPrograms, nonContractingCalls, contractingCalls;

struct RecordingPrograms : public CPUVisitProgramInterface {
  using CPUVisitProgramInterface::CPUVisitProgramInterface;
  std::unique_ptr<VisitProgram> build(OpBuilder &, RaggedDotOp,
                                      KernelConfigAttr config) const override {
    TileSizes tiles = TileSizes::of(config);
    EXPECT_EQ(tiles.m, 8);
    EXPECT_EQ(tiles.n, 16);
    EXPECT_EQ(tiles.k, 4);
    ++builtPrograms;
    return std::make_unique<RecordingProgram>(nonContractingCalls,
                                              contractingCalls);
  }
};

TEST(VisitProgram, EmbedderProgramIsCalledPerVisitLoop) {
  DialectRegistry registry = baseRegistry();
  registry.addExtension(+[](MLIRContext *, GMMDialect *dialect) {
    dialect->addInterfaces<RecordingPrograms>();
  });
  MLIRContext context(registry);
  builtPrograms = nonContractingCalls = contractingCalls = 0;
  LogicalResult result = failure();
  OwningOpRef<ModuleOp> module;
  std::string messages = tile(context, result, module);
  ASSERT_TRUE(succeeded(result)) << messages;
  EXPECT_EQ(builtPrograms, 2u);
  EXPECT_EQ(nonContractingCalls, 1u);
  EXPECT_EQ(contractingCalls, 1u);
  EXPECT_EQ(count(*module, "bufferization.to_buffer"), 0u);
}

} // namespace
