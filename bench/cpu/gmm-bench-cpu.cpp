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
#include "Peak.h"

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

cl::opt<int64_t>
    microM("micro-m",
           cl::desc("Register block rows for the cpu pipeline (0: gmm-tile's "
                    "heuristic for this CPU's vectors)"),
           cl::value_desc("N"), cl::init(0), cl::cat(benchCategory));
cl::opt<int64_t>
    microN("micro-n",
           cl::desc("Register block lanes per row for the cpu pipeline (0: "
                    "gmm-tile's heuristic for this CPU's vectors)"),
           cl::value_desc("N"), cl::init(0), cl::cat(benchCategory));
cl::opt<bool> resultOutput(
    "return-result",
    cl::desc("Compile gmm's function to return its result (the compiled code "
             "allocates it on every call, and the time includes that) instead "
             "of writing it into a caller's output buffer, as OpenBLAS does "
             "and as gmm.jax and embedding compilers call it"),
    cl::init(false), cl::cat(benchCategory));

const ShapePreset presets[] = {
    {"g8-m2048", 8, 2048, 1024, 1024, "", false},
    {"g8-m8192", 8, 8192, 1024, 1024, "", false},
    {"qwen3", 128, 4096, 2048, 1536, "Qwen3-30B-A3B-like", false},
    {"deepseek", 32, 4096, 7168, 2048,
     "DeepSeek-V3-like, 32 local experts of one device", false},
    {"decode", 64, 512, 2048, 1536, "decode-like: about 8 rows per group",
     false},
    {"quick-g8", 8, 512, 256, 256, "", true},
    {"quick-g32", 32, 1024, 512, 384, "", true},
};

// --shapes, --distributions, --quick, --repeat, --warmup and --seed.
CommonOptions common(benchCategory, {presets, /*int32Sizes=*/false,
                                     /*zipf=*/false, /*repeat=*/5,
                                     /*warmup=*/1});

cl::opt<std::string> modesOption(
    "modes",
    cl::desc("Comma-separated ragged dots to run on every shape: 1 (the MoE "
             "forward, lhs [m,k] x rhs [g,k,n] -> [m,n], against one "
             "cblas_sgemm per group) and 2 (the weight gradient, x [m,k] and "
             "dy [m,n] -> [g,k,n], against one cblas_sgemm with transposed A "
             "per group) (default 1,2)"),
    cl::value_desc("LIST"), cl::init("1,2"), cl::cat(benchCategory));

cl::opt<std::string> formatOption(
    "format",
    cl::desc("markdown (the default: a table as rows finish), csv or json "
             "(every row at the end, with the machine's description and "
             "peak; bench/plot-bench.py draws them)"),
    cl::value_desc("markdown|csv|json"), cl::init("markdown"),
    cl::cat(benchCategory));

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

/// Mode 2: slice i of `out` ([g, k, n]) is x[rows of i]^T dy[rows of i],
/// one cblas_sgemm with transposed A per non-empty group; the slices of
/// empty groups are zeroed, as gmm writes them.
void blasGroupedWeightGradient(const Shape &s, const float *x, const float *dy,
                               llvm::ArrayRef<int64_t> sizes, float *out) {
  int64_t start = 0;
  for (int64_t group = 0; group < s.g; ++group) {
    int64_t rows = sizes[group];
    float *slice = out + group * s.k * s.n;
    if (rows > 0)
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, s.k, s.n, rows, 1.0f,
                  x + start * s.k, s.k, dy + start * s.n, s.n, 0.0f, slice,
                  s.n);
    else
      std::fill(slice, slice + s.k * s.n, 0.0f);
    start += rows;
  }
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
  Mode mode = Mode::Forward;
  double gmmSeconds = NAN, blasSeconds = NAN;
  double flops = 0;
  double error = 0;
  bool matches = false;
};

void printRow(const Row &row, int threads, double peak) {
  double gmmRate = row.flops / row.gmmSeconds * 1e-9;
  double blasRate = row.flops / row.blasSeconds * 1e-9;
  printTableRow(
      row.shape, row.distribution,
      {std::to_string(static_cast<int>(row.mode)),
       llvm::formatv("{0:f2}", row.gmmSeconds * 1e3).str(),
       llvm::formatv("{0:f1}", gmmRate).str(),
       llvm::formatv("{0:f2}", row.blasSeconds * 1e3).str(),
       llvm::formatv("{0:f1}", blasRate).str(),
       llvm::formatv("{0:f2}", gmmRate / blasRate).str(),
       llvm::formatv("{0:f0}%", 100 * gmmRate / peak).str(),
       llvm::formatv("{0:f0}%", 100 * blasRate / peak).str(),
       std::to_string(threads),
       llvm::formatv(row.matches ? "ok ({0:e1})" : "**MISMATCH** ({0:e1})",
                     row.error)
           .str()});
}

/// The rows as CSV or JSON (`json`), with the run's description.
void printRows(llvm::ArrayRef<Row> rows, bool json, int threads,
               const Peak &peak, const std::optional<Peak> &bf16Peak,
               llvm::StringRef cpu, llvm::StringRef blas) {
  auto fields = [&](const Row &row) {
    double gmmRate = row.flops / row.gmmSeconds * 1e-9;
    double blasRate = row.flops / row.blasSeconds * 1e-9;
    return std::vector<std::pair<std::string, std::string>>{
        {"shape", "\"" + row.shape.name + "\""},
        {"g", std::to_string(row.shape.g)},
        {"m", std::to_string(row.shape.m)},
        {"k", std::to_string(row.shape.k)},
        {"n", std::to_string(row.shape.n)},
        {"sizes", "\"" + std::string(toString(row.distribution)) + "\""},
        {"mode", std::to_string(static_cast<int>(row.mode))},
        {"gmm_ms", llvm::formatv("{0:f4}", row.gmmSeconds * 1e3).str()},
        {"gmm_gflops", llvm::formatv("{0:f2}", gmmRate).str()},
        {"openblas_ms", llvm::formatv("{0:f4}", row.blasSeconds * 1e3).str()},
        {"openblas_gflops", llvm::formatv("{0:f2}", blasRate).str()},
        {"ratio", llvm::formatv("{0:f3}", gmmRate / blasRate).str()},
        {"gmm_share_of_peak",
         llvm::formatv("{0:f3}", gmmRate / peak.gflops).str()},
        {"openblas_share_of_peak",
         llvm::formatv("{0:f3}", blasRate / peak.gflops).str()},
        {"threads", std::to_string(threads)},
        {"matches", row.matches ? "true" : "false"},
    };
  };
  if (!json) {
    bool first = true;
    for (const Row &row : rows) {
      auto values = fields(row);
      if (first) {
        for (auto [i, field] : llvm::enumerate(values))
          llvm::outs() << (i ? "," : "") << field.first;
        llvm::outs() << "\n";
        first = false;
      }
      for (auto [i, field] : llvm::enumerate(values))
        llvm::outs() << (i ? "," : "") << field.second;
      llvm::outs() << "\n";
    }
    return;
  }
  llvm::outs() << "{\n  \"cpu\": \"" << cpu << "\",\n  \"openblas\": \"" << blas
               << "\",\n  \"threads\": " << threads
               << ",\n  \"f32_peak_gflops\": "
               << llvm::formatv("{0:f2}", peak.gflops)
               << ",\n  \"f32_peak_instruction\": \"" << peak.instruction
               << "\",\n  \"bf16_peak_gflops\": "
               << (bf16Peak ? llvm::formatv("{0:f2}", bf16Peak->gflops).str()
                            : std::string("null"))
               << ",\n  \"rows\": [";
  for (auto [r, row] : llvm::enumerate(rows)) {
    llvm::outs() << (r ? ",\n    {" : "\n    {");
    for (auto [i, field] : llvm::enumerate(fields(row)))
      llvm::outs() << (i ? ", " : "") << "\"" << field.first
                   << "\": " << field.second;
    llvm::outs() << "}";
  }
  llvm::outs() << "\n  ]\n}\n";
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
  bool customTiles = tileM || tileN || tileK || microM || microN;
  if (customTiles && pipelineName != "cpu")
    return reportError("--tile-m/n/k and --micro-m/n apply to --pipeline=cpu "
                       "only");
  if (common.repeat < 1 || common.warmup < 1)
    return reportError("--repeat and --warmup must be at least 1");
  PipelineBuilder buildPipeline = pipeline->build;
  if (customTiles) {
    mlir::gmm::CPUPipelineOptions options;
    options.tileM = tileM;
    options.tileN = tileN;
    options.tileK = tileK;
    options.microM = microM;
    options.microN = microN;
    if (failed(mlir::gmm::verifyCPUPipelineOptions(
            options, [](const Twine &message) {
              llvm::errs() << "gmm-bench-cpu: error: " << message << "\n";
              return failure();
            })))
      return 1;
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

  std::vector<Mode> modes;
  {
    llvm::SmallVector<StringRef> items;
    StringRef(modesOption).split(items, ',', -1, /*KeepEmpty=*/false);
    for (StringRef item : items) {
      if (item.trim() == "1")
        modes.push_back(Mode::Forward);
      else if (item.trim() == "2")
        modes.push_back(Mode::WeightGradient);
      else
        return reportError("--modes: '" + item + "' is not 1 or 2");
    }
    if (modes.empty())
      return reportError("--modes: no mode given");
  }
  if (formatOption != "markdown" && formatOption != "csv" &&
      formatOption != "json")
    return reportError("--format=" + formatOption +
                       ": expected markdown, csv or json");
  bool markdown = formatOption == "markdown";

  int threads = getNumThreads();
  openblas_set_num_threads(threads);
  std::string cpu = StringRef(firstLine("/proc/cpuinfo", "model name"))
                        .split(':')
                        .second.trim()
                        .str();
  std::string blasConfig = StringRef(openblas_get_config()).trim().str() +
                           ", core " + openblas_get_corename();
  // The machine's limit for these threads, before anything else runs.
  Peak peak = measureF32Peak(threads);
  std::optional<Peak> bf16Peak = measureBF16Peak(threads);

  raw_ostream &out = markdown ? llvm::outs() : llvm::nulls();
  out << "# gmm-bench-cpu\n\n"
      << "- CPU: " << cpu << ", " << std::thread::hardware_concurrency()
      << " hardware threads\n"
      << "- threads: " << threads
      << " (gmm: OpenMP; OpenBLAS: " << openblas_get_num_threads() << ")\n"
      << "- OpenBLAS: " << blasConfig << "\n"
      << llvm::formatv("- f32 peak, {0} threads: {1:f1} GFLOP/s ({2}, "
                       "register-only kernel)\n",
                       threads, peak.gflops, peak.instruction)
      << "- bf16 peak: "
      << (bf16Peak ? llvm::formatv("{0:f1} GFLOP/s ({1})", bf16Peak->gflops,
                                   bf16Peak->instruction)
                         .str()
                   : std::string("none (no AVX-512 BF16)"))
      << "\n"
      << "- gmm pipeline: " << pipelineName;
  if (customTiles)
    out << llvm::formatv(
        " (tile-m={0} tile-n={1} tile-k={2} micro-m={3} micro-n={4})",
        tileM.getValue(), tileN.getValue(), tileK.getValue(), microM.getValue(),
        microN.getValue());
  out << "\n- median of " << common.repeat << " timed calls after "
      << common.warmup << " warm-up call(s), f32, seed " << common.seed << "\n"
      << "- load average at start: " << loadAverage() << "\n";
  // What the machine does just before the run.
  CpuSample idleBegin = CpuSample::take();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  CpuSample runBegin = CpuSample::take();
  std::optional<double> busyBefore = othersBusy(idleBegin, runBegin);
  out << "- cores busy with other processes in the second before: "
      << describeOthersBusy(busyBefore) << "\n";
  if (busyBefore && *busyBefore > 0.1)
    out << "- **warning: the machine is busy: other processes share "
           "the cores, so both sides are slowed down, and not "
           "equally**\n";
  out << "\n";
  if (markdown)
    printTableHeader({"mode", "gmm ms", "gmm GFLOP/s", "OpenBLAS ms",
                      "OpenBLAS GFLOP/s", "ratio", "gmm % peak",
                      "OpenBLAS % peak", "threads", "check"});

  std::unique_ptr<MLIRContext> context = createContext();

  std::vector<Row> rows;
  bool anyMismatch = false;
  auto settle = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(settleMs));
  };

  for (const Shape &shape : *shapes) {
    for (Mode mode : modes) {
      bool forward = mode == Mode::Forward;
      auto function = compileRaggedDot(*context, shape, "f32", buildPipeline,
                                       {}, forward ? "" : " (mode 2)", mode,
                                       /*outputArgument=*/!resultOutput);
      if (!function)
        return reportError(llvm::toString(function.takeError()));

      // This shape's buffers; the next ones are made after these are gone.
      // Mode 1: lhs [m, k], rhs [g, k, n] -> [m, n]; mode 2: x [m, k],
      // dy [m, n] -> [g, k, n].
      std::vector<HostTensor> arguments(resultOutput ? 3 : 4);
      arguments[0] = HostTensor::zeros(DType::F32, {shape.m, shape.k});
      arguments[1] =
          forward ? HostTensor::zeros(DType::F32, {shape.g, shape.k, shape.n})
                  : HostTensor::zeros(DType::F32, {shape.m, shape.n});
      arguments[2] = HostTensor::zeros(DType::I32, {shape.g});
      fillRandom(arguments[0], common.seed, 0);
      fillRandom(arguments[1], common.seed, 1);
      int64_t outSize =
          forward ? shape.m * shape.n : shape.g * shape.k * shape.n;
      // The output buffer gmm writes into (the runner gives every call a
      // fresh, already written copy of it, as OpenBLAS's is).
      if (!resultOutput)
        arguments[3] =
            forward
                ? HostTensor::zeros(DType::F32, {shape.m, shape.n})
                : HostTensor::zeros(DType::F32, {shape.g, shape.k, shape.n});
      std::vector<float> blasOut(outSize);
      const float *a = static_cast<const float *>(arguments[0].data());
      const float *b = static_cast<const float *>(arguments[1].data());

      for (Distribution distribution : *distributions) {
        std::vector<int64_t> sizes =
            makeSizes(distribution, shape.m, shape.g, common.seed);
        for (auto [group, size] : llvm::enumerate(sizes))
          arguments[2].setInt(group, size);
        int64_t coveredRows = describeSizes(shape, distribution, sizes);

        Row row{shape, distribution, mode};
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
              if (forward)
                blasGroupedMatmul(shape, a, b, sizes, blasOut.data());
              else
                blasGroupedWeightGradient(shape, a, b, sizes, blasOut.data());
              return std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                  .count();
            }));
        settle();

        double maxAbsError = 0;
        row.error =
            relativeError(static_cast<const float *>(gmmResult[0].data()),
                          blasOut.data(), outSize, maxAbsError);
        row.matches = row.error <= tolerance;
        if (!row.matches) {
          anyMismatch = true;
          llvm::errs() << llvm::formatv(
              "[{0}] {1} mode {2}: MISMATCH: gmm and OpenBLAS differ: "
              "max|diff| = {3:e2}, {4:e2} relative to max|OpenBLAS| "
              "(tolerance {5:e1})\n",
              shape.name, toString(distribution), static_cast<int>(mode),
              maxAbsError, row.error, tolerance.getValue());
        }
        if (markdown)
          printRow(row, threads, peak.gflops);
        rows.push_back(row);
      }
    }
  }

  if (!markdown)
    printRows(rows, formatOption == "json", threads, peak, bf16Peak, cpu,
              blasConfig);
  std::vector<double> ratios;
  for (const Row &row : rows)
    ratios.push_back(row.blasSeconds / row.gmmSeconds);
  out << llvm::formatv(
      "\nmedian ratio (gmm / OpenBLAS GFLOP/s): {0:f2} over {1} run(s); "
      "min {2:f2}, max {3:f2}\n",
      median(ratios), ratios.size(),
      *std::min_element(ratios.begin(), ratios.end()),
      *std::max_element(ratios.begin(), ratios.end()));
  std::optional<double> busyDuring = othersBusy(runBegin, CpuSample::take());
  out << "cores busy with other processes during the run: "
      << describeOthersBusy(busyDuring)
      << "; load average at end: " << loadAverage() << "\n";
  if (busyDuring && *busyDuring > 0.1)
    out << "**warning: other processes used the machine during the "
           "run; the numbers above are not reliable**\n";
  if (anyMismatch) {
    llvm::outs() << "\n**MISMATCH: gmm's result differs from OpenBLAS's in at "
                    "least one run (see stderr); the ratios above do not "
                    "compare equal work.**\n";
    return 1;
  }
  return 0;
}
