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

const char *gmm::bench::toString(Distribution distribution) {
  switch (distribution) {
  case Distribution::Uniform:
    return "uniform";
  case Distribution::Skewed:
    return "skewed";
  case Distribution::Random:
    return "random";
  case Distribution::Zipf:
    return "zipf";
  }
  return "?";
}

std::vector<int64_t> gmm::bench::makeSizes(Distribution distribution, int64_t m,
                                           int64_t g, uint64_t seed) {
  switch (distribution) {
  case Distribution::Uniform:
    return makeGroupSizes(GroupSizeDistribution::Uniform, m, g, seed);
  case Distribution::Skewed:
    return makeGroupSizes(GroupSizeDistribution::Skewed, m, g, seed);
  case Distribution::Random:
    return makeGroupSizes(GroupSizeDistribution::Random, m, g, seed);
  case Distribution::Zipf:
    break;
  }
  std::vector<double> harmonic(g + 1, 0);
  for (int64_t i = 1; i <= g; ++i)
    harmonic[i] = harmonic[i - 1] + 1.0 / double(i);
  std::vector<int64_t> sizes(g);
  int64_t previous = 0;
  for (int64_t i = 0; i < g; ++i) {
    int64_t end = i + 1 == g
                      ? m
                      : std::llround(double(m) * harmonic[i + 1] / harmonic[g]);
    end = std::clamp(end, previous, m);
    sizes[i] = end - previous;
    previous = end;
  }
  return sizes;
}

int64_t gmm::bench::describeSizes(const Shape &shape, Distribution distribution,
                                  llvm::ArrayRef<int64_t> sizes) {
  int64_t covered = 0, largest = 0, empty = 0;
  for (int64_t size : sizes) {
    covered += size;
    largest = std::max(largest, size);
    empty += size == 0;
  }
  llvm::errs() << llvm::formatv(
      "[{0}] {1}: max/mean {2:f2}, {3} empty group(s)\n", shape.name,
      toString(distribution), double(largest) * shape.g / shape.m, empty);
  return covered;
}

void gmm::bench::printTableHeader(llvm::ArrayRef<StringRef> columns) {
  std::string names = "| g | m | k | n | sizes |";
  std::string rule = "|---:|---:|---:|---:|---|";
  for (auto [index, column] : llvm::enumerate(columns)) {
    names += " " + column.str() + " |";
    rule += index + 1 == columns.size() ? "---|" : "---:|";
  }
  llvm::outs() << names << "\n" << rule << "\n";
  llvm::outs().flush();
}

void gmm::bench::printTableRow(const Shape &shape, Distribution distribution,
                               llvm::ArrayRef<std::string> cells) {
  llvm::outs() << llvm::formatv("| {0} | {1} | {2} | {3} | {4} |", shape.g,
                                shape.m, shape.k, shape.n,
                                toString(distribution));
  for (const std::string &cell : cells)
    llvm::outs() << " " << cell << " |";
  llvm::outs() << "\n";
  llvm::outs().flush();
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

namespace {

std::string joinPresets(llvm::ArrayRef<ShapePreset> presets, bool quick) {
  std::string result;
  for (const ShapePreset &preset : presets)
    if (preset.quick == quick)
      result += (result.empty() ? "" : ",") + std::string(preset.name);
  return result;
}

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
    : config(benchConfig), defaultShapes(joinPresets(config.presets, false)),
      quickShapes(joinPresets(config.presets, true)),
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
  llvm::SmallVector<StringRef> items;
  StringRef(text).split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    item = item.trim();
    const ShapePreset *preset =
        llvm::find_if(config.presets, [&](const ShapePreset &preset) {
          return preset.name == item;
        });
    if (preset != config.presets.end()) {
      result.push_back(
          {preset->name, preset->g, preset->m, preset->k, preset->n});
      continue;
    }
    llvm::SmallVector<StringRef> parts;
    item.split(parts, 'x');
    int64_t sizes[4];
    bool valid = parts.size() == 4;
    for (size_t i = 0; valid && i < 4; ++i)
      valid = !parts[i].trim().getAsInteger(10, sizes[i]) && sizes[i] > 0 &&
              (!config.int32Sizes || sizes[i] <= INT32_MAX);
    if (!valid)
      return llvm::createStringError(
          "--shapes: '" + item + "' is neither a preset nor GxMxKxN with " +
          (config.int32Sizes ? "sizes in [1, 2^31)" : "positive sizes"));
    result.push_back({item.str(), sizes[0], sizes[1], sizes[2], sizes[3]});
  }
  if (result.empty())
    return llvm::createStringError("--shapes: no shape given");
  return result;
}

llvm::Expected<std::vector<Distribution>>
CommonOptions::getDistributions() const {
  std::vector<Distribution> result;
  llvm::SmallVector<StringRef> items;
  StringRef(distributions).split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    item = item.trim();
    if (item == "uniform")
      result.push_back(Distribution::Uniform);
    else if (item == "skewed")
      result.push_back(Distribution::Skewed);
    else if (item == "zipf" && config.zipf)
      result.push_back(Distribution::Zipf);
    else if (item == "random")
      result.push_back(Distribution::Random);
    else
      return llvm::createStringError(
          "--distributions: unknown '" + item + "' (expected uniform, " +
          (config.zipf ? "skewed, zipf" : "skewed") + " or random)");
  }
  if (result.empty())
    return llvm::createStringError("--distributions: none given");
  return result;
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

std::unique_ptr<mlir::MLIRContext> gmm::bench::createContext() {
  return gmm::runner::createRunnerContext();
}

namespace {

/// The module: one ragged dot of `mode` with static shapes, operands of
/// `elementType` and a result of `resultType`.
std::string buildModule(const Shape &s, StringRef elementType,
                        StringRef resultType, Mode mode, bool outputArgument) {
  bool forward = mode == Mode::Forward;
  auto shapeOf = [&](std::initializer_list<int64_t> dims, StringRef type) {
    std::string text;
    for (int64_t d : dims)
      text += std::to_string(d) + "x";
    return text + type.str();
  };
  auto shape = [&](std::initializer_list<int64_t> dims) {
    return shapeOf(dims, elementType);
  };
  // Mode 1: lhs [m, k] x rhs [g, k, n] -> [m, n]; mode 2: x [m, k] and
  // dy [m, n] -> [g, k, n].
  std::string lhs = "tensor<" + shape({s.m, s.k}) + ">";
  std::string rhs = forward ? "tensor<" + shape({s.g, s.k, s.n}) + ">"
                            : "tensor<" + shape({s.m, s.n}) + ">";
  std::string out = forward ? shapeOf({s.m, s.n}, resultType)
                            : shapeOf({s.g, s.k, s.n}, resultType);
  std::string sizes = "tensor<" + std::to_string(s.g) + "xi32>";
  std::string numbers =
      forward ? "<lhs_contracting_dimensions = [1],\n"
                "                           rhs_contracting_dimensions = [1],\n"
                "                           lhs_ragged_dimensions = [0],\n"
                "                           rhs_group_dimensions = [0]>"
              : "<lhs_contracting_dimensions = [0],\n"
                "                           rhs_contracting_dimensions = [0],\n"
                "                           lhs_ragged_dimensions = [0],\n"
                "                           rhs_group_dimensions = []>";
  std::string dot = "  %r = gmm.ragged_dot %lhs, %rhs, %group_sizes\n"
                    "      dimension_numbers = " +
                    numbers + "\n      : " + lhs + ", " + rhs + ", " + sizes +
                    " -> tensor<" + out + ">\n";
  std::string header = "func.func @gmm(%lhs: " + lhs + ", %rhs: " + rhs +
                       ", %group_sizes: " + sizes;
  if (outputArgument)
    return header + ", %out: memref<" + out + ">) {\n" + dot +
           "  bufferization.materialize_in_destination %r in restrict "
           "writable %out\n      : (tensor<" +
           out + ">, memref<" + out + ">) -> ()\n  return\n}\n";
  return header + ") -> tensor<" + out + "> {\n" + dot +
         "  return %r : tensor<" + out + ">\n}\n";
}

} // namespace

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
      buildModule(shape, elementType,
                  resultType.empty() ? elementType : resultType, mode,
                  outputArgument),
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

double gmm::bench::median(std::vector<double> values) {
  if (values.empty())
    return NAN;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid]
                           : 0.5 * (values[mid - 1] + values[mid]);
}

uint16_t gmm::bench::toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value))
    return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float gmm::bench::fromBF16(uint16_t value) {
  uint32_t bits = uint32_t(value) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}
