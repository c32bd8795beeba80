//===- gmm-difftest.cpp - randomized differential test --------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Draws random gmm.ragged_dot problems (RandomConfig.h), compiles each with a
// named pipeline, runs it through the JIT on the CPU and compares the result
// with the independent C++ reference within the per-dtype tolerance. Every
// configuration is reproducible from (--seed, its index): a failure prints
// both, the problem and its MLIR.
//
//===----------------------------------------------------------------------===//

#include "RandomConfig.h"

#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Runner/JitRunner.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace gmm;
using namespace gmm::difftest;
using runner::DType;
using runner::HostTensor;

static llvm::cl::opt<int64_t>
    numConfigs("configs", llvm::cl::desc("Configurations to run"),
               llvm::cl::init(1000));
static llvm::cl::opt<int64_t>
    firstConfig("first", llvm::cl::desc("Index of the first configuration"),
                llvm::cl::init(0));
static llvm::cl::opt<uint64_t>
    seed("seed", llvm::cl::desc("Seed of the configuration stream"),
         llvm::cl::init(1));
static llvm::cl::opt<int64_t>
    maxDim("max-dim", llvm::cl::desc("Largest size of one dimension"),
           llvm::cl::init(24));
static llvm::cl::opt<std::string>
    pipelineName("pipeline", llvm::cl::desc("Pipeline under test"),
                 llvm::cl::init("reference"));
static llvm::cl::opt<int64_t>
    tileM("tile-m", llvm::cl::desc("gmm-tile's tile-m for --pipeline=cpu"),
          llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    tileN("tile-n", llvm::cl::desc("gmm-tile's tile-n for --pipeline=cpu"),
          llvm::cl::init(0));
static llvm::cl::opt<int64_t>
    tileK("tile-k", llvm::cl::desc("gmm-tile's tile-k for --pipeline=cpu"),
          llvm::cl::init(0));
static llvm::cl::opt<bool> verbose("v",
                                   llvm::cl::desc("Print every configuration"));

namespace {

/// Runs one configuration; returns an empty string when it passes, else the
/// failure report.
std::string runConfig(mlir::MLIRContext &context, const Config &c,
                      const runner::PipelineInfo &pipeline) {
  std::string text = c.toMLIR("f");
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagOS << d << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return "the generated module does not parse/verify: " + diagnostics + "\n" +
           text;

  auto jit = runner::JitFunction::compile(*module, "f", pipeline.build);
  if (!jit)
    return "compilation failed: " + llvm::toString(jit.takeError()) + "\n" +
           diagnostics + "\n" + text;

  std::vector<HostTensor> args;
  args.push_back(
      runner::fromReferenceTensor(c.lhs, runner::fromElementType(c.inputType)));
  args.push_back(
      runner::fromReferenceTensor(c.rhs, runner::fromElementType(c.inputType)));
  DType indexType = c.groupSizesI64 ? DType::I64 : DType::I32;
  HostTensor sizes = HostTensor::zeros(indexType, c.groupSizes.shape);
  for (size_t i = 0; i < c.groupSizes.data.size(); ++i)
    sizes.setInt(i, c.groupSizes.data[i]);
  args.push_back(std::move(sizes));
  if (c.groupOffset) {
    HostTensor offset =
        HostTensor::zeros(indexType, c.offsetIsVector ? std::vector<int64_t>{1}
                                                      : std::vector<int64_t>{});
    offset.setInt(0, *c.groupOffset);
    args.push_back(std::move(offset));
  }
  if (c.hasInit)
    args.push_back(runner::fromReferenceTensor(
        c.init, runner::fromElementType(c.resultType)));

  auto outputs = (*jit)->call(args);
  if (!outputs)
    return "call failed: " + llvm::toString(outputs.takeError()) + "\n" + text;

  reference::Tensor expected;
  std::optional<int64_t> offset = c.groupOffset;
  std::string error = reference::raggedDot(
      c.dims, c.lhs, c.rhs, c.groupSizes, offset, c.hasInit ? &c.init : nullptr,
      c.resultShape, c.resultType, expected);
  if (!error.empty())
    return "the reference rejects the problem: " + error + "\n" + text;

  reference::Tolerance tolerance = reference::defaultTolerance(
      c.inputType, c.resultType, std::max<int64_t>(c.contractionLength(), 1));
  reference::Tensor got = runner::toReferenceTensor(outputs->front());
  reference::Comparison cmp = reference::compare(got, expected, tolerance);
  if (cmp.mismatches == 0)
    return "";
  std::string report;
  llvm::raw_string_ostream os(report);
  os << cmp.mismatches << " of " << expected.data.size()
     << " elements differ (atol " << tolerance.atol << ", rtol "
     << tolerance.rtol << "); max abs error " << cmp.maxAbsError;
  if (cmp.firstMismatch >= 0 &&
      static_cast<size_t>(cmp.firstMismatch) < got.data.size() &&
      static_cast<size_t>(cmp.firstMismatch) < expected.data.size())
    os << "; first at " << cmp.firstMismatch << ": got "
       << got.data[cmp.firstMismatch] << ", expected "
       << expected.data[cmp.firstMismatch];
  os << "\n" << text;
  return report;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "gmm differential test: random ragged dots, compiled and run on the "
      "CPU, against the C++ reference\n");

  const runner::PipelineInfo *known = runner::lookupPipeline(pipelineName);
  if (!known) {
    llvm::errs() << "gmm-difftest: error: unknown pipeline '" << pipelineName
                 << "'\n";
    return 1;
  }
  runner::PipelineInfo custom = *known;
  if (tileM || tileN || tileK) {
    if (pipelineName != "cpu" || tileM < 0 || tileN < 0 || tileK < 0) {
      llvm::errs() << "gmm-difftest: error: --tile-m/n/k are non-negative "
                      "sizes for --pipeline=cpu\n";
      return 1;
    }
    mlir::gmm::CPUPipelineOptions options;
    options.tileM = tileM;
    options.tileN = tileN;
    options.tileK = tileK;
    custom.build = [options](mlir::OpPassManager &pm) {
      mlir::gmm::buildCPUPipeline(pm, options);
    };
  }
  const runner::PipelineInfo *pipeline = &custom;
  if (numConfigs < 0 || maxDim < 1) {
    llvm::errs() << "gmm-difftest: error: --configs must be >= 0 and "
                    "--max-dim >= 1\n";
    return 1;
  }

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::gmm::GMMDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  int64_t passed = 0, failed = 0;
  int modeCount[4] = {0, 0, 0, 0};
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = firstConfig; i < firstConfig + numConfigs; ++i) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + i);
    Config c = randomConfig(rng, maxDim);
    ++modeCount[c.mode];
    if (verbose)
      llvm::outs() << "config " << i << ": " << c.describe() << "\n";
    std::string failure = runConfig(context, c, *pipeline);
    if (failure.empty()) {
      ++passed;
      continue;
    }
    ++failed;
    llvm::outs() << "FAIL config " << i << " (--seed=" << seed
                 << " --first=" << i << " --configs=1): " << c.describe()
                 << "\n"
                 << failure << "\n";
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  llvm::outs() << "pipeline " << pipeline->name;
  if (tileM || tileN || tileK)
    llvm::outs() << " (tiles " << tileM << "x" << tileN << "x" << tileK << ")";
  llvm::outs() << ": configurations " << firstConfig << ".."
               << firstConfig + numConfigs - 1 << " of seed " << seed
               << " (modes 1/2/3: " << modeCount[1] << "/" << modeCount[2]
               << "/" << modeCount[3] << ") in "
               << llvm::format("%.1f", seconds) << " s\n";
  llvm::outs() << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
