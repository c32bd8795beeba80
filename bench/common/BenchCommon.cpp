//===- BenchCommon.cpp - What gmm-bench-cpu and gmm-bench-gpu share -------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "BenchCommon.h"

#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Runner/HostTensor.h"
#include "gmm/Runner/ModuleCache.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <iterator>

using namespace ::gmm::bench;
using ::gmm::runner::GroupSizeDistribution;
using ::gmm::runner::JitFunction;
using ::gmm::runner::JitOptions;
using ::gmm::runner::PipelineBuilder;
using llvm::StringRef;
namespace cl = llvm::cl;

int64_t gmm::bench::describeSizes(const Shape &shape, Distribution distribution,
                                  llvm::ArrayRef<int64_t> sizes) {
  int64_t covered = 0;
  llvm::errs() << describeSizes(
                      shape, distribution,
                      std::vector<int64_t>(sizes.begin(), sizes.end()), covered)
               << "\n";
  return covered;
}

void gmm::bench::printTableHeader(llvm::ArrayRef<StringRef> columns) {
  std::vector<std::string> names;
  for (StringRef column : columns)
    names.push_back(column.str());
  llvm::outs() << tableHeader(names);
  llvm::outs().flush();
}

void gmm::bench::printTableRow(const Shape &shape, Distribution distribution,
                               llvm::ArrayRef<std::string> cells) {
  llvm::outs() << tableRow(shape, distribution, cells.vec());
  llvm::outs().flush();
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

namespace {

std::string describeShapes(llvm::ArrayRef<ShapePreset> presets,
                           StringRef defaults) {
  std::string text = "Comma-separated shapes to run, each a preset name or "
                     "GxMxKxN (groups x rows x contraction x columns). "
                     "Presets: ";
  for (const ShapePreset &preset : presets) {
    if (&preset != presets.begin())
      text += ", ";
    text += llvm::formatv("{0} ({1}x{2}x{3}x{4}", preset.name, preset.g,
                          preset.m, preset.k, preset.n)
                .str();
    if (*preset.note)
      text += std::string(", ") + preset.note;
    text += ")";
  }
  return text + ". Default: " + defaults.str() +
         ", or the quick-* ones with --quick";
}

std::string describeQuick(llvm::ArrayRef<ShapePreset> presets) {
  std::string names;
  for (const ShapePreset &preset : presets)
    if (preset.quick)
      names += (names.empty() ? "" : ", ") + std::string(preset.name);
  return "Small shapes (" + names + ") unless --shapes says otherwise";
}

} // namespace

CommonOptions::CommonOptions(cl::OptionCategory &category,
                             const BenchConfig &benchConfig)
    : config(benchConfig),
      defaultShapes(
          presetNames(config.presets.data(), config.presets.size(), false)),
      quickShapes(
          presetNames(config.presets.data(), config.presets.size(), true)),
      shapesHelp(describeShapes(config.presets, defaultShapes)),
      distributionsHelp(
          std::string("Comma-separated group-size distributions: uniform, "
                      "skewed (weights 13,5,0,2 repeating: max/mean 2.6, "
                      "every fourth group empty), ") +
          (config.zipf ? "zipf (group i gets a share proportional to "
                         "1/(i+1)), "
                       : "") +
          "random (seeded) (default: uniform,skewed)"),
      quickHelp(describeQuick(config.presets)),
      repeatHelp(llvm::formatv("Timed calls of each side; the median is "
                               "reported (default {0})",
                               config.repeat)),
      warmupHelp(llvm::formatv("Untimed calls of each side before the timed "
                               "ones (at least 1; default {0})",
                               config.warmup)),
      shapes("shapes", cl::desc(shapesHelp), cl::value_desc("LIST"),
             cl::cat(category)),
      distributions("distributions", cl::desc(distributionsHelp),
                    cl::value_desc("LIST"), cl::init("uniform,skewed"),
                    cl::cat(category)),
      quick("quick", cl::desc(quickHelp), cl::cat(category)),
      repeat("repeat", cl::desc(repeatHelp), cl::value_desc("N"),
             cl::init(config.repeat), cl::cat(category)),
      warmup("warmup", cl::desc(warmupHelp), cl::value_desc("N"),
             cl::init(config.warmup), cl::cat(category)),
      seed("seed", cl::desc("Seed of the random inputs (default 0)"),
           cl::value_desc("N"), cl::init(0), cl::cat(category)) {}

llvm::Expected<std::vector<Shape>> CommonOptions::getShapes() const {
  std::string text = shapes;
  if (text.empty())
    text = quick ? quickShapes : defaultShapes;
  std::vector<Shape> result;
  std::string error;
  if (!parseShapes(text, config.presets.data(), config.presets.size(),
                   config.int32Sizes, result, error))
    return llvm::createStringError(error);
  return result;
}

llvm::Expected<std::vector<Distribution>>
CommonOptions::getDistributions() const {
  std::vector<Distribution> result;
  std::string error;
  if (!parseDistributions(distributions, config.zipf, result, error))
    return llvm::createStringError(error);
  return result;
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

std::unique_ptr<mlir::MLIRContext> gmm::bench::createContext() {
  return gmm::runner::createRunnerContext();
}

namespace {} // namespace

llvm::Expected<std::unique_ptr<JitFunction>>
gmm::bench::compileRaggedDot(mlir::MLIRContext &context, const Shape &shape,
                             StringRef elementType, PipelineBuilder pipeline,
                             const JitOptions &options,
                             StringRef compiledSuffix, Mode mode,
                             bool outputArgument, StringRef resultType) {
  llvm::errs() << llvm::formatv("[{0}] g={1} m={2} k={3} n={4}: compiling\n",
                                shape.name, shape.g, shape.m, shape.k, shape.n);
  auto start = std::chrono::steady_clock::now();
  auto function = gmm::runner::compileModuleText(
      context,
      raggedDotFunction(shape, elementType.str(),
                        resultType.empty() ? elementType.str()
                                           : resultType.str(),
                        mode, outputArgument),
      "gmm", std::move(pipeline), options);
  if (!function)
    return llvm::createStringError("compiling " + shape.name + ": " +
                                   llvm::toString(function.takeError()));
  llvm::errs() << llvm::formatv(
      "[{0}] compiled in {1:f2} s{2}\n", shape.name,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      compiledSuffix);
  return function;
}
