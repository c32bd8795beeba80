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

#include "BenchCommon.h"

#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Runner/HostTensor.h"
#include "gmm/Runner/JitRunner.h"

#include "mlir/IR/MLIRContext.h"
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
using namespace ::gmm::bench;
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

const ShapePreset presets[] = {
    {"g8-m2048", 8, 2048, 1024, 1024, "", false},
    {"g8-m8192", 8, 8192, 1024, 1024, "", false},
    {"qwen3", 128, 4096, 2048, 1536, "Qwen3-30B-A3B-like", false},
    {"quick-g8", 8, 512, 256, 256, "", true},
    {"quick-g32", 32, 1024, 512, 384, "", true},
};

// --shapes, --distributions, --quick, --repeat, --warmup and --seed.
CommonOptions common(benchCategory, {presets, /*int32Sizes=*/false,
                                     /*zipf=*/false, /*repeat=*/5,
                                     /*warmup=*/1});

cl::opt<unsigned> settleMs(
    "settle-ms",
    cl::desc("Pause between the gmm and the OpenBLAS measurements, so that "
             "the idle worker threads of one runtime (OpenMP, OpenBLAS) stop "
             "spinning before the other is timed (default 500)"),
    cl::value_desc("MS"), cl::init(500), cl::cat(benchCategory));

cl::opt<double>
    tolerance("tolerance",
              cl::desc("Largest accepted max|gmm - OpenBLAS| / max|OpenBLAS| "
                       "(default 1e-4)"),
              cl::value_desc("X"), cl::init(1e-4), cl::cat(benchCategory));

int reportError(const llvm::Twine &message) {
  llvm::errs() << "gmm-bench-cpu: error: " << message << "\n";
  return 1;
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
  ErrorTracker tracker;
  for (int64_t i = 0; i < count; ++i)
    tracker.add(got[i], expected[i]);
  maxAbsError = tracker.maxDiff;
  return tracker.relative();
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
  Distribution distribution;
  double gmmSeconds = NAN, blasSeconds = NAN;
  double flops = 0;
  double error = 0;
  bool matches = false;
};

void printRow(const Row &row, int threads) {
  double gmmRate = row.flops / row.gmmSeconds * 1e-9;
  double blasRate = row.flops / row.blasSeconds * 1e-9;
  printTableRow(
      row.shape, row.distribution,
      {llvm::formatv("{0:f2}", row.gmmSeconds * 1e3).str(),
       llvm::formatv("{0:f1}", gmmRate).str(),
       llvm::formatv("{0:f2}", row.blasSeconds * 1e3).str(),
       llvm::formatv("{0:f1}", blasRate).str(),
       llvm::formatv("{0:f2}", gmmRate / blasRate).str(),
       std::to_string(threads),
       llvm::formatv(row.matches ? "ok ({0:e1})" : "**MISMATCH** ({0:e1})",
                     row.error)
           .str()});
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

  llvm::Expected<const PipelineInfo *> found = findPipeline(pipelineName);
  if (!found)
    return reportError(llvm::toString(found.takeError()));
  const PipelineInfo *pipeline = *found;
  if (pipeline->cuda)
    return reportError("--pipeline=cuda runs on the GPU: use gmm-bench-gpu");
  bool customTiles = tileM || tileN || tileK;
  if (customTiles && pipelineName != "cpu")
    return reportError("--tile-m/n/k apply to --pipeline=cpu only");
  if (tileM < 0 || tileN < 0 || tileK < 0)
    return reportError("tile sizes must be non-negative");
  if (common.repeat < 1 || common.warmup < 1)
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

  auto shapes = common.getShapes();
  if (!shapes)
    return reportError(llvm::toString(shapes.takeError()));
  auto distributions = common.getDistributions();
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
  llvm::outs() << "\n- median of " << common.repeat << " timed calls after "
               << common.warmup << " warm-up call(s), f32, seed " << common.seed
               << "\n"
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
  llvm::outs() << "\n";
  printTableHeader({"gmm ms", "gmm GFLOP/s", "OpenBLAS ms", "OpenBLAS GFLOP/s",
                    "ratio", "threads", "check"});

  std::unique_ptr<MLIRContext> context = createContext();

  std::vector<Row> rows;
  bool anyMismatch = false;
  auto settle = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(settleMs));
  };

  for (const Shape &shape : *shapes) {
    auto function = compileRaggedDot(*context, shape, "f32", buildPipeline);
    if (!function)
      return reportError(llvm::toString(function.takeError()));

    // This shape's buffers; the next shape's are made after these are gone.
    std::vector<HostTensor> arguments(3);
    arguments[0] = HostTensor::zeros(DType::F32, {shape.m, shape.k});
    arguments[1] = HostTensor::zeros(DType::F32, {shape.g, shape.k, shape.n});
    arguments[2] = HostTensor::zeros(DType::I32, {shape.g});
    fillRandom(arguments[0], common.seed, 0);
    fillRandom(arguments[1], common.seed, 1);
    std::vector<float> blasOut(shape.m * shape.n);
    const float *lhs = static_cast<const float *>(arguments[0].data());
    const float *rhs = static_cast<const float *>(arguments[1].data());

    for (Distribution distribution : *distributions) {
      std::vector<int64_t> sizes =
          makeSizes(distribution, shape.m, shape.g, common.seed);
      for (auto [group, size] : llvm::enumerate(sizes))
        arguments[2].setInt(group, size);
      int64_t coveredRows = describeSizes(shape, distribution, sizes);

      Row row{shape, distribution};
      row.flops = 2.0 * shape.k * shape.n * coveredRows;

      // gmm: the first warm-up call's result is the one checked.
      std::vector<HostTensor> gmmResult;
      auto gmmSeconds =
          common.timeCalls([&](unsigned i) -> llvm::Expected<double> {
            double callSeconds = 0;
            auto outputs = function->get()->call(arguments, &callSeconds);
            if (!outputs)
              return llvm::createStringError(
                  "calling gmm on " + shape.name + ": " +
                  llvm::toString(outputs.takeError()));
            if (i == 0)
              gmmResult = std::move(*outputs);
            return callSeconds;
          });
      if (!gmmSeconds)
        return reportError(llvm::toString(gmmSeconds.takeError()));
      row.gmmSeconds = *gmmSeconds;
      settle();

      // OpenBLAS on the same buffers.
      std::fill(blasOut.begin(), blasOut.end(), 0.0f);
      row.blasSeconds = llvm::cantFail(
          common.timeCalls([&](unsigned) -> llvm::Expected<double> {
            auto start = std::chrono::steady_clock::now();
            blasGroupedMatmul(shape, lhs, rhs, sizes, blasOut.data());
            return std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                .count();
          }));
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
