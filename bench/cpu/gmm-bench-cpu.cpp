//===- gmm-bench-cpu.cpp - gmm on the CPU against OpenBLAS ----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Times a mode-1 f32 gmm.ragged_dot (lhs [m,k], rhs [g,k,n], group_sizes [g]
// -> [m,n]) compiled by a gmm pipeline (the tiled `cpu` one by default)
// against a loop of one cblas_sgemm per non-empty group on OpenBLAS, with the
// same number of threads, the same inputs and in the same process. Every
// (shape, group-size distribution) pair prints one row of a Markdown table
// with the median times, the GFLOP/s of both and their ratio; the median of
// the ratios closes the table. gmm's result is compared with OpenBLAS's
// before anything is timed, so both compute the same thing.
//
// See bench/README.md for what is measured and how to read it.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Runner/HostTensor.h"
#include "gmm/Runner/JitRunner.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
using namespace ::gmm::runner;
namespace cl = llvm::cl;
using llvm::StringRef;

namespace {

cl::OptionCategory benchCategory("gmm-bench-cpu options");

// The description lists the pipelines; main() fills it in.
cl::opt<std::string> pipelineName("pipeline", cl::value_desc("name"),
                                  cl::init("cpu"), cl::cat(benchCategory));

cl::opt<int64_t>
    tileM("tile-m",
          cl::desc("Tile rows for the cpu pipeline (0: gmm-tile's heuristic)"),
          cl::value_desc("N"), cl::init(0), cl::cat(benchCategory));
cl::opt<int64_t> tileN(
    "tile-n",
    cl::desc("Tile columns for the cpu pipeline (0: gmm-tile's heuristic)"),
    cl::value_desc("N"), cl::init(0), cl::cat(benchCategory));
cl::opt<int64_t> tileK(
    "tile-k",
    cl::desc("Contraction step for the cpu pipeline (0: gmm-tile's heuristic)"),
    cl::value_desc("N"), cl::init(0), cl::cat(benchCategory));

cl::opt<std::string> shapesOption(
    "shapes",
    cl::desc("Comma-separated shapes to run, each a preset name or GxMxKxN "
             "(groups x rows x contraction x columns). Presets: g8-m2048 "
             "(8x2048x1024x1024), g8-m8192 (8x8192x1024x1024), qwen3 "
             "(128x4096x2048x1536, Qwen3-30B-A3B-like), quick-g8 "
             "(8x512x256x256), quick-g32 (32x1024x512x384). Default: "
             "g8-m2048,g8-m8192,qwen3, or the quick-* ones with --quick"),
    cl::value_desc("LIST"), cl::cat(benchCategory));

cl::opt<std::string> distributionsOption(
    "distributions",
    cl::desc("Comma-separated group-size distributions: uniform, skewed "
             "(weights 13,5,0,2 repeating: max/mean 2.6, every fourth group "
             "empty), random (seeded) (default: uniform,skewed)"),
    cl::value_desc("LIST"), cl::init("uniform,skewed"), cl::cat(benchCategory));

cl::opt<bool> quick("quick",
                    cl::desc("Small shapes (quick-g8, quick-g32) unless "
                             "--shapes says otherwise"),
                    cl::cat(benchCategory));

cl::opt<unsigned> repeat("repeat",
                         cl::desc("Timed calls of each side; the median is "
                                  "reported (default 5)"),
                         cl::value_desc("N"), cl::init(5),
                         cl::cat(benchCategory));

cl::opt<unsigned> warmup("warmup",
                         cl::desc("Untimed calls of each side before the "
                                  "timed ones (at least 1; default 1)"),
                         cl::value_desc("N"), cl::init(1),
                         cl::cat(benchCategory));

cl::opt<unsigned> settleMs(
    "settle-ms",
    cl::desc("Pause between the gmm and the OpenBLAS measurements, so that "
             "the idle worker threads of one runtime (OpenMP, OpenBLAS) stop "
             "spinning before the other is timed (default 500)"),
    cl::value_desc("MS"), cl::init(500), cl::cat(benchCategory));

cl::opt<uint64_t> seed("seed",
                       cl::desc("Seed of the random inputs (default 0)"),
                       cl::value_desc("N"), cl::init(0),
                       cl::cat(benchCategory));

cl::opt<double>
    tolerance("tolerance",
              cl::desc("Largest accepted max|gmm - OpenBLAS| / max|OpenBLAS| "
                       "(default 1e-4)"),
              cl::value_desc("X"), cl::init(1e-4), cl::cat(benchCategory));

struct Shape {
  std::string name;
  int64_t g, m, k, n;
};

const Shape presets[] = {
    {"g8-m2048", 8, 2048, 1024, 1024}, {"g8-m8192", 8, 8192, 1024, 1024},
    {"qwen3", 128, 4096, 2048, 1536},  {"quick-g8", 8, 512, 256, 256},
    {"quick-g32", 32, 1024, 512, 384},
};

int reportError(const llvm::Twine &message) {
  llvm::errs() << "gmm-bench-cpu: error: " << message << "\n";
  return 1;
}

llvm::Expected<std::vector<Shape>> parseShapes(StringRef text) {
  std::vector<Shape> shapes;
  llvm::SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    item = item.trim();
    const Shape *preset = llvm::find_if(
        presets, [&](const Shape &shape) { return shape.name == item; });
    if (preset != std::end(presets)) {
      shapes.push_back(*preset);
      continue;
    }
    llvm::SmallVector<StringRef> parts;
    item.split(parts, 'x');
    int64_t sizes[4];
    bool valid = parts.size() == 4;
    for (size_t i = 0; valid && i < 4; ++i)
      valid = !parts[i].trim().getAsInteger(10, sizes[i]) && sizes[i] > 0;
    if (!valid)
      return llvm::createStringError(
          "--shapes: '" + item +
          "' is neither a preset nor GxMxKxN with positive sizes");
    shapes.push_back({item.str(), sizes[0], sizes[1], sizes[2], sizes[3]});
  }
  if (shapes.empty())
    return llvm::createStringError("--shapes: no shape given");
  return shapes;
}

llvm::Expected<std::vector<GroupSizeDistribution>>
parseDistributions(StringRef text) {
  std::vector<GroupSizeDistribution> result;
  llvm::SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    item = item.trim();
    if (item == "uniform")
      result.push_back(GroupSizeDistribution::Uniform);
    else if (item == "skewed")
      result.push_back(GroupSizeDistribution::Skewed);
    else if (item == "random")
      result.push_back(GroupSizeDistribution::Random);
    else
      return llvm::createStringError("--distributions: unknown '" + item +
                                     "' (expected uniform, skewed or random)");
  }
  if (result.empty())
    return llvm::createStringError("--distributions: none given");
  return result;
}

const char *toString(GroupSizeDistribution distribution) {
  switch (distribution) {
  case GroupSizeDistribution::Uniform:
    return "uniform";
  case GroupSizeDistribution::Skewed:
    return "skewed";
  case GroupSizeDistribution::Random:
    return "random";
  }
  return "?";
}

/// The module: one mode-1 ragged dot with static shapes.
std::string buildModule(const Shape &s) {
  return llvm::formatv(
             R"mlir(func.func @gmm(%lhs: tensor<{1}x{2}xf32>,
                    %rhs: tensor<{0}x{2}x{3}xf32>,
                    %group_sizes: tensor<{0}xi32>) -> tensor<{1}x{3}xf32> {
  %out = gmm.ragged_dot %lhs, %rhs, %group_sizes
      dimension_numbers = <lhs_contracting_dimensions = [1],
                           rhs_contracting_dimensions = [1],
                           lhs_ragged_dimensions = [0],
                           rhs_group_dimensions = [0]>
      : tensor<{1}x{2}xf32>, tensor<{0}x{2}x{3}xf32>, tensor<{0}xi32>
        -> tensor<{1}x{3}xf32>
  return %out : tensor<{1}x{3}xf32>
}
)mlir",
             s.g, s.m, s.k, s.n)
      .str();
}

double median(std::vector<double> values) {
  if (values.empty())
    return NAN;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid]
                           : 0.5 * (values[mid - 1] + values[mid]);
}

/// One cblas_sgemm per non-empty group, rows [start, start + rows).
void blasGroupedMatmul(const Shape &s, const float *lhs, const float *rhs,
                       llvm::ArrayRef<int64_t> sizes, float *out) {
  int64_t start = 0;
  for (int64_t group = 0; group < s.g; ++group) {
    int64_t rows = sizes[group];
    if (rows > 0)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, s.n, s.k,
                  1.0f, lhs + start * s.k, s.k, rhs + group * s.k * s.n, s.n,
                  0.0f, out + start * s.n, s.n);
    start += rows;
  }
}

/// max|got - expected| / max|expected|; NaN and infinity make it infinite.
double relativeError(const float *got, const float *expected, int64_t count,
                     double &maxAbsError) {
  double maxDiff = 0, maxRef = 0;
  for (int64_t i = 0; i < count; ++i) {
    double diff = std::fabs(double(got[i]) - double(expected[i]));
    if (!(diff <= maxDiff))
      maxDiff = std::isfinite(diff) ? diff : INFINITY;
    maxRef = std::max(maxRef, std::fabs(double(expected[i])));
  }
  maxAbsError = maxDiff;
  return maxDiff == 0 ? 0 : maxDiff / std::max(maxRef, 1e-30);
}

/// The first line of file `path` that starts with `prefix`, trimmed, or
/// "unknown".
std::string firstLine(StringRef path, StringRef prefix) {
  auto buffer = llvm::MemoryBuffer::getFileAsStream(path);
  if (!buffer)
    return "unknown";
  llvm::SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (StringRef line : lines)
    if (line.starts_with(prefix))
      return line.trim().str();
  return "unknown";
}

std::string loadAverage() {
  std::string line = firstLine("/proc/loadavg", "");
  llvm::SmallVector<StringRef> fields;
  StringRef(line).split(fields, ' ');
  if (fields.size() < 3)
    return line;
  return (fields[0] + " " + fields[1] + " " + fields[2]).str();
}

/// CPU time of the whole machine (all cores, from /proc/stat) and of this
/// process, to tell how much of the machine other processes used.
struct CpuSample {
  std::chrono::steady_clock::time_point wall;
  /// Seconds all cores spent busy and in total since boot; negative when
  /// /proc/stat cannot be read.
  double machineBusy = -1, machineTotal = -1;
  double self = 0;

  static CpuSample take() {
    CpuSample sample;
    sample.wall = std::chrono::steady_clock::now();
    std::string line = firstLine("/proc/stat", "cpu ");
    llvm::SmallVector<StringRef> fields;
    StringRef(line).split(fields, ' ', -1, /*KeepEmpty=*/false);
    // cpu user nice system idle iowait irq softirq steal ...
    double ticks[8];
    bool valid = fields.size() >= 9;
    for (int i = 0; valid && i < 8; ++i)
      valid = !fields[i + 1].getAsDouble(ticks[i]);
    if (valid) {
      double hz = sysconf(_SC_CLK_TCK);
      double total = 0;
      for (double t : ticks)
        total += t;
      sample.machineTotal = total / hz;
      sample.machineBusy = (total - ticks[3] - ticks[4]) / hz;
    }
    rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) == 0)
      sample.self = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
                    usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
    return sample;
  }
};

/// The share of all cores that other processes kept busy between `begin`
/// and `end` (0 to 1), or std::nullopt when it cannot be told.
std::optional<double> othersBusy(const CpuSample &begin, const CpuSample &end) {
  double total = end.machineTotal - begin.machineTotal;
  if (begin.machineTotal < 0 || end.machineTotal < 0 || total <= 0)
    return std::nullopt;
  double others =
      (end.machineBusy - begin.machineBusy) - (end.self - begin.self);
  return std::clamp(others / total, 0.0, 1.0);
}

std::string describeOthersBusy(std::optional<double> busy) {
  if (!busy)
    return "unknown";
  return llvm::formatv("{0:f0}%", *busy * 100).str();
}

struct Row {
  Shape shape;
  GroupSizeDistribution distribution;
  double gmmSeconds = NAN, blasSeconds = NAN;
  double flops = 0;
  double error = 0;
  bool matches = false;
};

void printRow(const Row &row, int threads) {
  double gmmRate = row.flops / row.gmmSeconds * 1e-9;
  double blasRate = row.flops / row.blasSeconds * 1e-9;
  llvm::outs() << llvm::formatv(
      "| {0} | {1} | {2} | {3} | {4} | {5:f2} | {6:f1} | {7:f2} | {8:f1} | "
      "{9:f2} | {10} | {11} |\n",
      row.shape.g, row.shape.m, row.shape.k, row.shape.n,
      toString(row.distribution), row.gmmSeconds * 1e3, gmmRate,
      row.blasSeconds * 1e3, blasRate, gmmRate / blasRate, threads,
      llvm::formatv(row.matches ? "ok ({0:e1})" : "**MISMATCH** ({0:e1})",
                    row.error)
          .str());
  llvm::outs().flush();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);

  std::string pipelineHelp = "The gmm pipeline:";
  for (const PipelineInfo &info : getPipelines())
    pipelineHelp += llvm::formatv(" '{0}': {1};", info.name, info.description);
  pipelineHelp.back() = ' ';
  pipelineHelp += "(default: cpu)";
  pipelineName.setDescription(pipelineHelp);
  cl::HideUnrelatedOptions(benchCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "gmm-bench-cpu: f32 gmm.ragged_dot on the CPU against a per-group "
      "cblas_sgemm loop on OpenBLAS\n");

  const PipelineInfo *pipeline = lookupPipeline(pipelineName);
  if (!pipeline) {
    std::string names;
    for (const PipelineInfo &info : getPipelines())
      names += (names.empty() ? "" : ", ") + std::string(info.name);
    return reportError("unknown --pipeline=" + pipelineName +
                       " (available: " + names + ")");
  }
  bool customTiles = tileM || tileN || tileK;
  if (customTiles && pipelineName != "cpu")
    return reportError("--tile-m/n/k apply to --pipeline=cpu only");
  if (tileM < 0 || tileN < 0 || tileK < 0)
    return reportError("tile sizes must be non-negative");
  if (repeat < 1 || warmup < 1)
    return reportError("--repeat and --warmup must be at least 1");
  PipelineBuilder buildPipeline = pipeline->build;
  if (customTiles) {
    mlir::gmm::CPUPipelineOptions options;
    options.tileM = tileM;
    options.tileN = tileN;
    options.tileK = tileK;
    buildPipeline = [options](OpPassManager &pm) {
      mlir::gmm::buildCPUPipeline(pm, options);
    };
  }

  std::string shapesText = shapesOption;
  if (shapesText.empty())
    shapesText = quick ? "quick-g8,quick-g32" : "g8-m2048,g8-m8192,qwen3";
  auto shapes = parseShapes(shapesText);
  if (!shapes)
    return reportError(llvm::toString(shapes.takeError()));
  auto distributions = parseDistributions(distributionsOption);
  if (!distributions)
    return reportError(llvm::toString(distributions.takeError()));

  int threads = getNumThreads();
  openblas_set_num_threads(threads);

  llvm::outs() << "# gmm-bench-cpu\n\n"
               << "- CPU: "
               << StringRef(firstLine("/proc/cpuinfo", "model name"))
                      .split(':')
                      .second.trim()
               << ", " << std::thread::hardware_concurrency()
               << " hardware threads\n"
               << "- threads: " << threads
               << " (gmm: OpenMP; OpenBLAS: " << openblas_get_num_threads()
               << ")\n"
               << "- OpenBLAS: " << StringRef(openblas_get_config()).trim()
               << ", core " << openblas_get_corename() << "\n"
               << "- gmm pipeline: " << pipelineName;
  if (customTiles)
    llvm::outs() << llvm::formatv(" (tile-m={0} tile-n={1} tile-k={2})",
                                  tileM.getValue(), tileN.getValue(),
                                  tileK.getValue());
  llvm::outs() << "\n- median of " << repeat << " timed calls after " << warmup
               << " warm-up call(s), f32, seed " << seed << "\n"
               << "- load average at start: " << loadAverage() << "\n";
  // What the machine does just before the run.
  CpuSample idleBegin = CpuSample::take();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  CpuSample runBegin = CpuSample::take();
  std::optional<double> busyBefore = othersBusy(idleBegin, runBegin);
  llvm::outs() << "- cores busy with other processes in the second before: "
               << describeOthersBusy(busyBefore) << "\n";
  if (busyBefore && *busyBefore > 0.1)
    llvm::outs() << "- **warning: the machine is busy: other processes share "
                    "the cores, so both sides are slowed down, and not "
                    "equally**\n";
  llvm::outs() << "\n"
               << "| g | m | k | n | sizes | gmm ms | gmm GFLOP/s | "
                  "OpenBLAS ms | OpenBLAS GFLOP/s | ratio | threads | check "
                  "|\n"
               << "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"
                  "\n";
  llvm::outs().flush();

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<mlir::gmm::GMMDialect>();
  MLIRContext context(registry);

  std::vector<Row> rows;
  bool anyMismatch = false;
  auto settle = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(settleMs));
  };

  for (const Shape &shape : *shapes) {
    llvm::errs() << llvm::formatv("[{0}] g={1} m={2} k={3} n={4}: compiling\n",
                                  shape.name, shape.g, shape.m, shape.k,
                                  shape.n);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(buildModule(shape), &context);
    if (!module)
      return reportError("cannot parse the generated module");
    auto compileStart = std::chrono::steady_clock::now();
    auto function = JitFunction::compile(*module, "gmm", buildPipeline);
    if (!function)
      return reportError("compiling " + shape.name + ": " +
                         llvm::toString(function.takeError()));
    double compileSeconds = std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - compileStart)
                                .count();
    llvm::errs() << llvm::formatv("[{0}] compiled in {1:f2} s\n", shape.name,
                                  compileSeconds);

    // This shape's buffers; the next shape's are made after these are gone.
    std::vector<HostTensor> arguments(3);
    arguments[0] = HostTensor::zeros(DType::F32, {shape.m, shape.k});
    arguments[1] = HostTensor::zeros(DType::F32, {shape.g, shape.k, shape.n});
    arguments[2] = HostTensor::zeros(DType::I32, {shape.g});
    fillRandom(arguments[0], seed, 0);
    fillRandom(arguments[1], seed, 1);
    std::vector<float> blasOut(shape.m * shape.n);
    const float *lhs = static_cast<const float *>(arguments[0].data());
    const float *rhs = static_cast<const float *>(arguments[1].data());

    for (GroupSizeDistribution distribution : *distributions) {
      std::vector<int64_t> sizes =
          makeGroupSizes(distribution, shape.m, shape.g, seed);
      int64_t coveredRows = 0, largest = 0, empty = 0;
      for (auto [group, size] : llvm::enumerate(sizes)) {
        arguments[2].setInt(group, size);
        coveredRows += size;
        largest = std::max(largest, size);
        empty += size == 0;
      }
      llvm::errs() << llvm::formatv(
          "[{0}] {1}: max/mean {2:f2}, {3} empty group(s)\n", shape.name,
          toString(distribution), double(largest) * shape.g / shape.m, empty);

      Row row{shape, distribution};
      row.flops = 2.0 * shape.k * shape.n * coveredRows;

      // gmm: the first warm-up call's result is the one checked.
      std::vector<HostTensor> gmmResult;
      std::vector<double> seconds;
      for (unsigned i = 0; i < warmup + repeat; ++i) {
        double callSeconds = 0;
        auto outputs = function->get()->call(arguments, &callSeconds);
        if (!outputs)
          return reportError("calling gmm on " + shape.name + ": " +
                             llvm::toString(outputs.takeError()));
        if (i == 0)
          gmmResult = std::move(*outputs);
        if (i >= warmup)
          seconds.push_back(callSeconds);
      }
      row.gmmSeconds = median(seconds);
      settle();

      // OpenBLAS on the same buffers.
      std::fill(blasOut.begin(), blasOut.end(), 0.0f);
      seconds.clear();
      for (unsigned i = 0; i < warmup + repeat; ++i) {
        auto start = std::chrono::steady_clock::now();
        blasGroupedMatmul(shape, lhs, rhs, sizes, blasOut.data());
        auto stop = std::chrono::steady_clock::now();
        if (i >= warmup)
          seconds.push_back(
              std::chrono::duration<double>(stop - start).count());
      }
      row.blasSeconds = median(seconds);
      settle();

      double maxAbsError = 0;
      row.error = relativeError(static_cast<const float *>(gmmResult[0].data()),
                                blasOut.data(), shape.m * shape.n, maxAbsError);
      row.matches = row.error <= tolerance;
      if (!row.matches) {
        anyMismatch = true;
        llvm::errs() << llvm::formatv(
            "[{0}] {1}: MISMATCH: gmm and OpenBLAS differ: max|diff| = {2:e2}, "
            "{3:e2} relative to max|OpenBLAS| (tolerance {4:e1})\n",
            shape.name, toString(distribution), maxAbsError, row.error,
            tolerance.getValue());
      }
      printRow(row, threads);
      rows.push_back(row);
    }
  }

  std::vector<double> ratios;
  for (const Row &row : rows)
    ratios.push_back(row.blasSeconds / row.gmmSeconds);
  llvm::outs() << llvm::formatv(
      "\nmedian ratio (gmm / OpenBLAS GFLOP/s): {0:f2} over {1} run(s); "
      "min {2:f2}, max {3:f2}\n",
      median(ratios), ratios.size(),
      *std::min_element(ratios.begin(), ratios.end()),
      *std::max_element(ratios.begin(), ratios.end()));
  std::optional<double> busyDuring = othersBusy(runBegin, CpuSample::take());
  llvm::outs() << "cores busy with other processes during the run: "
               << describeOthersBusy(busyDuring)
               << "; load average at end: " << loadAverage() << "\n";
  if (busyDuring && *busyDuring > 0.1)
    llvm::outs() << "**warning: other processes used the machine during the "
                    "run; the numbers above are not reliable**\n";
  if (anyMismatch) {
    llvm::outs() << "\n**MISMATCH: gmm's result differs from OpenBLAS's in at "
                    "least one run (see stderr); the ratios above do not "
                    "compare equal work.**\n";
    return 1;
  }
  return 0;
}
