//===- gmm-bench-cpu.cpp - gmm on the CPU against OpenBLAS ----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Times gmm.ragged_dot (mode 1, lhs [m,k], rhs [g,k,n], group_sizes [g] ->
// [m,n], and mode 2, the weight gradient) compiled by a gmm pipeline (the
// tiled `cpu` one by default) against a loop of one OpenBLAS GEMM per
// non-empty group, with the same number of threads, the same inputs and in
// the same process: f32 against cblas_sgemm, and bf16 inputs (f32 result)
// against cblas_sbgemm where the OpenBLAS has it, else cblas_sgemm on the
// same values in f32. Every (shape, group-size distribution, mode, dtype)
// prints one row of a Markdown table with the median times, the GFLOP/s of
// both, their ratio and the shares of the machine's peak (bf16 rows also
// gmm's ratio to its own f32 row); the medians close the table. gmm's result
// is compared with OpenBLAS's before anything is timed, so both compute the
// same thing.
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
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <dlfcn.h>
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
cl::opt<mlir::gmm::MicroKernelOption> microKernel(
    "micro-kernel",
    cl::desc("How the cpu pipeline's register block multiplies (default: "
             "gmm-configure's heuristic)"),
    cl::init(mlir::gmm::MicroKernelOption::Auto),
    cl::values(clEnumValN(mlir::gmm::MicroKernelOption::Auto, "auto",
                          "gmm-configure's heuristic: bf16-dot for bf16 where "
                          "vdpbf16ps is at least as fast as f32 FMAs, else "
                          "fma"),
               clEnumValN(mlir::gmm::MicroKernelOption::FMA, "fma",
                          "operands packed as f32, broadcast FMAs"),
               clEnumValN(mlir::gmm::MicroKernelOption::BF16Dot, "bf16-dot",
                          "vdpbf16ps on pairs of k (bf16 rows)")),
    cl::cat(benchCategory));
cl::opt<uint64_t> streamMinBytes(
    "stream-min-bytes",
    cl::desc("The cpu pipeline writes results of at least this many bytes "
             "with streaming (non-temporal) stores (0: never; default: "
             "gmm-to-cpu's, 16 MiB)"),
    cl::value_desc("N"),
    cl::init(mlir::gmm::CPUPipelineOptions().streamMinBytes),
    cl::cat(benchCategory));
cl::opt<std::string> dtypesOption(
    "dtypes",
    cl::desc("Comma-separated types to run on every shape and mode: f32, "
             "bf16 (bf16 operands, f32 result) and bf16-bf16 (bf16 operands "
             "and result, accumulated in f32: what jax.lax.ragged_dot returns "
             "for bf16 operands; compared with a tolerance of at least 2^-8, "
             "the result's rounding); gmm's bf16 rows also give their ratio "
             "to gmm's f32 row (default f32,bf16)"),
    cl::value_desc("LIST"), cl::init("f32,bf16"), cl::cat(benchCategory));
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
    cl::desc("Pause after every call of either side, so that the idle "
             "worker threads of one runtime (OpenMP, OpenBLAS) stop spinning "
             "before the other is timed (default 300)"),
    cl::value_desc("MS"), cl::init(300), cl::cat(benchCategory));

cl::opt<double>
    tolerance("tolerance",
              cl::desc("Largest accepted max|gmm - OpenBLAS| / max|OpenBLAS| "
                       "(default 1e-4)"),
              cl::value_desc("X"), cl::init(1e-4), cl::cat(benchCategory));

const char *microKernelName(mlir::gmm::MicroKernelOption option) {
  switch (option) {
  case mlir::gmm::MicroKernelOption::FMA:
    return "fma";
  case mlir::gmm::MicroKernelOption::BF16Dot:
    return "bf16-dot";
  case mlir::gmm::MicroKernelOption::Auto:
    break;
  }
  return "auto";
}

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

/// OpenBLAS's bf16 GEMM (bf16 operands, f32 result), which only builds with
/// BUILD_BFLOAT16 have: looked up at run time, so that the benchmark builds
/// and runs against any OpenBLAS (Debian 12's 0.3.21 has none).
using SbgemmFn = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int,
                          int, int, float, const uint16_t *, int,
                          const uint16_t *, int, float, float *, int);
SbgemmFn findSbgemm() {
  return reinterpret_cast<SbgemmFn>(dlsym(RTLD_DEFAULT, "cblas_sbgemm"));
}

/// The two loops above with cblas_sbgemm.
void sbgemmGrouped(SbgemmFn sbgemm, const Shape &s, bool forward,
                   const uint16_t *a, const uint16_t *b,
                   llvm::ArrayRef<int64_t> sizes, float *out) {
  int64_t start = 0;
  for (int64_t group = 0; group < s.g; ++group) {
    int64_t rows = sizes[group];
    if (forward && rows > 0)
      sbgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, s.n, s.k, 1.0f,
             a + start * s.k, s.k, b + group * s.k * s.n, s.n, 0.0f,
             out + start * s.n, s.n);
    if (!forward) {
      float *slice = out + group * s.k * s.n;
      if (rows > 0)
        sbgemm(CblasRowMajor, CblasTrans, CblasNoTrans, s.k, s.n, rows, 1.0f,
               a + start * s.k, s.k, b + start * s.n, s.n, 0.0f, slice, s.n);
      else
        std::fill(slice, slice + s.k * s.n, 0.0f);
    }
    start += rows;
  }
}

/// A buffer that starts a cache line (64 bytes); false when it could not be
/// allocated.
class LineAlignedBuffer {
public:
  explicit LineAlignedBuffer(size_t bytes)
      : pointer(static_cast<char *>(std::aligned_alloc(
                    kLine, llvm::alignTo(std::max<size_t>(bytes, 1), kLine))),
                &std::free) {}
  /// A copy of `values`.
  explicit LineAlignedBuffer(llvm::ArrayRef<uint8_t> values)
      : LineAlignedBuffer(values.size()) {
    if (pointer && !values.empty())
      std::memcpy(pointer.get(), values.data(), values.size());
  }
  explicit LineAlignedBuffer(const std::vector<float> &values)
      : LineAlignedBuffer(llvm::ArrayRef<uint8_t>(
            reinterpret_cast<const uint8_t *>(values.data()),
            values.size() * sizeof(float))) {}

  explicit operator bool() const { return pointer != nullptr; }
  void *data() const { return pointer.get(); }
  float *floats() const { return reinterpret_cast<float *>(pointer.get()); }

private:
  static constexpr size_t kLine = 64;
  std::unique_ptr<char, decltype(&std::free)> pointer;
};

/// The values of `tensor` as f32.
std::vector<float> toFloats(const HostTensor &tensor) {
  std::vector<float> values(tensor.getNumElements());
  for (auto [i, value] : llvm::enumerate(values))
    value = static_cast<float>(tensor.getDouble(i));
  return values;
}

/// max|got - expected| / max|expected|; NaN and infinity make it infinite.
/// `got` holds f32 values, or bf16 bits when `gotBF16`.
double relativeError(const void *got, bool gotBF16, const float *expected,
                     int64_t count, double &maxAbsError) {
  ErrorTracker tracker;
  for (int64_t i = 0; i < count; ++i)
    tracker.add(gotBF16 ? fromBF16(static_cast<const uint16_t *>(got)[i])
                        : static_cast<const float *>(got)[i],
                expected[i]);
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
  /// The row's types: "f32", "bf16" (bf16 operands, f32 result) or
  /// "bf16-bf16" (bf16 operands and result).
  std::string dtype = "f32";
  /// The OpenBLAS function timed: "sgemm" or "sbgemm".
  std::string peer = "sgemm";
  double gmmSeconds = NAN, blasSeconds = NAN;
  double flops = 0;
  double error = 0;
  bool matches = false;
  /// The peak of the row's dtype (GFLOP/s).
  double peak = NAN;
  /// bf16 rows: gmm's GFLOP/s over gmm's own on the f32 row of the same
  /// shape, sizes and mode (NaN when that row did not run).
  double vsF32 = NAN;

  double gmmRate() const { return flops / gmmSeconds * 1e-9; }
  double blasRate() const { return flops / blasSeconds * 1e-9; }
};

void printRow(const Row &row, int threads) {
  double gmmRate = row.gmmRate(), blasRate = row.blasRate();
  printTableRow(
      row.shape, row.distribution,
      {std::to_string(static_cast<int>(row.mode)), row.dtype,
       llvm::formatv("{0:f2}", row.gmmSeconds * 1e3).str(),
       llvm::formatv("{0:f1}", gmmRate).str(), row.peer,
       llvm::formatv("{0:f2}", row.blasSeconds * 1e3).str(),
       llvm::formatv("{0:f1}", blasRate).str(),
       llvm::formatv("{0:f2}", gmmRate / blasRate).str(),
       std::isnan(row.vsF32) ? std::string("")
                             : llvm::formatv("{0:f2}", row.vsF32).str(),
       llvm::formatv("{0:f0}%", 100 * gmmRate / row.peak).str(),
       llvm::formatv("{0:f0}%", 100 * blasRate / row.peak).str(),
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
    double gmmRate = row.gmmRate(), blasRate = row.blasRate();
    return std::vector<std::pair<std::string, std::string>>{
        {"shape", "\"" + row.shape.name + "\""},
        {"g", std::to_string(row.shape.g)},
        {"m", std::to_string(row.shape.m)},
        {"k", std::to_string(row.shape.k)},
        {"n", std::to_string(row.shape.n)},
        {"sizes", "\"" + std::string(toString(row.distribution)) + "\""},
        {"mode", std::to_string(static_cast<int>(row.mode))},
        {"dtype", "\"" + row.dtype + "\""},
        {"peer", "\"" + row.peer + "\""},
        {"gmm_ms", llvm::formatv("{0:f4}", row.gmmSeconds * 1e3).str()},
        {"gmm_gflops", llvm::formatv("{0:f2}", gmmRate).str()},
        {"openblas_ms", llvm::formatv("{0:f4}", row.blasSeconds * 1e3).str()},
        {"openblas_gflops", llvm::formatv("{0:f2}", blasRate).str()},
        {"ratio", llvm::formatv("{0:f3}", gmmRate / blasRate).str()},
        {"gmm_vs_f32", std::isnan(row.vsF32)
                           ? std::string("null")
                           : llvm::formatv("{0:f3}", row.vsF32).str()},
        {"gmm_share_of_peak",
         llvm::formatv("{0:f3}", gmmRate / row.peak).str()},
        {"openblas_share_of_peak",
         llvm::formatv("{0:f3}", blasRate / row.peak).str()},
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
      "gmm-bench-cpu: gmm.ragged_dot on the CPU (f32 and bf16) against a "
      "per-group GEMM loop on OpenBLAS\n");

  llvm::Expected<const PipelineInfo *> found = findPipeline(pipelineName);
  if (!found)
    return reportError(llvm::toString(found.takeError()));
  const PipelineInfo *pipeline = *found;
  if (pipeline->cuda)
    return reportError("--pipeline=cuda runs on the GPU: use gmm-bench-gpu");
  bool customTiles = tileM || tileN || tileK || microM || microN ||
                     microKernel != mlir::gmm::MicroKernelOption::Auto ||
                     streamMinBytes.getNumOccurrences();
  if (customTiles && pipelineName != "cpu")
    return reportError("--tile-m/n/k, --micro-m/n, --micro-kernel and "
                       "--stream-min-bytes apply to --pipeline=cpu only");
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
    options.microKernel = microKernel;
    options.streamMinBytes = streamMinBytes;
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
  std::vector<std::string> dtypes;
  {
    llvm::SmallVector<StringRef> items;
    StringRef(dtypesOption).split(items, ',', -1, /*KeepEmpty=*/false);
    for (StringRef item : items) {
      StringRef type = item.trim();
      if (type != "f32" && type != "bf16" && type != "bf16-bf16")
        return reportError("--dtypes: '" + item +
                           "' is not f32, bf16 or bf16-bf16");
      dtypes.push_back(type.str());
    }
    if (dtypes.empty())
      return reportError("--dtypes: no type given");
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
  // OpenBLAS reads OPENBLAS_CORETYPE when it loads, before main: a value
  // left in the environment (some machines set one) makes the peer run
  // kernels other than those it picks for this CPU, slower ones on a CPU
  // with AVX-512. Every format says so.
  if (const char *forced = getenv("OPENBLAS_CORETYPE"); forced && *forced) {
    blasConfig += std::string(" (forced by OPENBLAS_CORETYPE=") + forced + ")";
    llvm::errs() << "gmm-bench-cpu: warning: OPENBLAS_CORETYPE=" << forced
                 << " chooses OpenBLAS's kernels; unset it to compare "
                    "against those OpenBLAS picks for this CPU\n";
  }
  // The machine's limit for these threads, before anything else runs.
  Peak peak = measureF32Peak(threads);
  std::optional<Peak> bf16Peak = measureBF16Peak(threads);
  SbgemmFn sbgemm = findSbgemm();

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
      << "- bf16 peer: "
      << (sbgemm ? "cblas_sbgemm"
                 : "cblas_sgemm on the same values in f32 (this OpenBLAS "
                   "has no cblas_sbgemm)")
      << "\n"
      << "- gmm pipeline: " << pipelineName;
  if (customTiles)
    out << llvm::formatv(" (tile-m={0} tile-n={1} tile-k={2} micro-m={3} "
                         "micro-n={4} micro-kernel={5} "
                         "stream-min-bytes={6})",
                         tileM.getValue(), tileN.getValue(), tileK.getValue(),
                         microM.getValue(), microN.getValue(),
                         microKernelName(microKernel),
                         streamMinBytes.getValue());
  out << "\n- median of " << common.repeat << " timed calls after "
      << common.warmup << " warm-up call(s), the two sides' calls alternating, "
      << llvm::join(dtypes, " and ") << ", seed " << common.seed << "\n"
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
    printTableHeader({"mode", "dtype", "gmm ms", "gmm GFLOP/s", "OpenBLAS",
                      "OpenBLAS ms", "OpenBLAS GFLOP/s", "ratio",
                      "gmm / gmm f32", "gmm % peak", "OpenBLAS % peak",
                      "threads", "check"});

  std::unique_ptr<MLIRContext> context = createContext();

  std::vector<Row> rows;
  bool anyMismatch = false;
  auto settle = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(settleMs));
  };

  // gmm's f32 GFLOP/s per (shape, sizes, mode), for the bf16 rows.
  std::map<std::tuple<std::string, Distribution, Mode>, double> f32Rates;
  for (const Shape &shape : *shapes) {
    for (Mode mode : modes) {
      for (const std::string &dtype : dtypes) {
        bool forward = mode == Mode::Forward;
        // bf16 operands; with a bf16 result too.
        bool bf16 = dtype != "f32";
        bool bf16Result = dtype == "bf16-bf16";
        auto function = compileRaggedDot(
            *context, shape, bf16 ? "bf16" : "f32", buildPipeline, {},
            (forward ? std::string() : std::string(" (mode 2)")) +
                (bf16 ? " (" + dtype + ")" : ""),
            mode, /*outputArgument=*/!resultOutput,
            bf16Result ? "bf16" : "f32");
        if (!function)
          return reportError(llvm::toString(function.takeError()));

        // This shape's buffers; the next ones are made after these are gone.
        // Mode 1: lhs [m, k], rhs [g, k, n] -> [m, n]; mode 2: x [m, k],
        // dy [m, n] -> [g, k, n].
        DType in = bf16 ? DType::BF16 : DType::F32;
        std::vector<HostTensor> arguments(3);
        arguments[0] = HostTensor::zeros(in, {shape.m, shape.k});
        arguments[1] = forward
                           ? HostTensor::zeros(in, {shape.g, shape.k, shape.n})
                           : HostTensor::zeros(in, {shape.m, shape.n});
        arguments[2] = HostTensor::zeros(DType::I32, {shape.g});
        fillRandom(arguments[0], common.seed, 0);
        fillRandom(arguments[1], common.seed, 1);
        int64_t outSize =
            forward ? shape.m * shape.n : shape.g * shape.k * shape.n;
        std::vector<int64_t> outShape =
            forward ? std::vector<int64_t>{shape.m, shape.n}
                    : std::vector<int64_t>{shape.g, shape.k, shape.n};
        // Both sides work on the same operands and on outputs of their own,
        // each in a buffer that starts a cache line, as the frameworks'
        // buffers do (a std::vector's large allocation starts 16 bytes past
        // one, so that every row of 64 bytes straddles two lines: writing
        // decode-like mode 2's 805 MB output then took gmm a fifth longer).
        LineAlignedBuffer lhs(arguments[0].bytes), rhs(arguments[1].bytes);
        size_t gmmOutBytes =
            outSize * (bf16Result ? sizeof(uint16_t) : sizeof(float));
        LineAlignedBuffer gmmOut(gmmOutBytes), blasOut(outSize * sizeof(float));
        if (!lhs || !rhs || !gmmOut || !blasOut)
          return reportError("out of memory for the buffers of " + shape.name);
        // OpenBLAS's operands: gmm's, or for bf16 without cblas_sbgemm the
        // same values in f32 (converted before anything is timed).
        bool useSbgemm = bf16 && sbgemm;
        std::optional<LineAlignedBuffer> aFloats, bFloats;
        if (bf16 && !useSbgemm) {
          aFloats.emplace(toFloats(arguments[0]));
          bFloats.emplace(toFloats(arguments[1]));
          if (!*aFloats || !*bFloats)
            return reportError("out of memory for the buffers of " +
                               shape.name);
        }
        const float *a = (aFloats ? *aFloats : lhs).floats();
        const float *b = (bFloats ? *bFloats : rhs).floats();

        for (Distribution distribution : *distributions) {
          std::vector<int64_t> sizes =
              makeSizes(distribution, shape.m, shape.g, common.seed);
          for (auto [group, size] : llvm::enumerate(sizes))
            arguments[2].setInt(group, size);
          int64_t coveredRows = describeSizes(shape, distribution, sizes);

          Row row{shape, distribution, mode, dtype,
                  useSbgemm ? "sbgemm" : "sgemm"};
          row.flops = 2.0 * shape.k * shape.n * coveredRows;
          row.peak = bf16 && bf16Peak ? bf16Peak->gflops : peak.gflops;

          // gmm. With an output buffer, gmm is called on the buffers above,
          // as OpenBLAS is (no copies around the calls, which would leave
          // the caches and the memory's write-backs in another state than
          // OpenBLAS's calls find them); every call writes the whole
          // output, which is checked after the last. A returned result goes
          // through call(), which copies the arguments and frees the result;
          // the first warm-up call's is checked.
          std::vector<HostTensor> gmmResult;
          std::vector<std::vector<int64_t>> descriptors;
          if (!resultOutput) {
            std::memset(gmmOut.data(), 0, gmmOutBytes);
            descriptors = {
                ::gmm::runner::denseDescriptor(lhs.data(), arguments[0].shape),
                ::gmm::runner::denseDescriptor(rhs.data(), arguments[1].shape),
                ::gmm::runner::denseDescriptor(arguments[2].data(),
                                               arguments[2].shape),
                ::gmm::runner::denseDescriptor(gmmOut.data(), outShape)};
          }
          auto callGmm = [&](unsigned i) -> llvm::Expected<double> {
            double callSeconds = 0;
            auto failed = [&](llvm::Error error) {
              return llvm::createStringError("calling gmm on " + shape.name +
                                             ": " +
                                             llvm::toString(std::move(error)));
            };
            if (!resultOutput) {
              auto words = function->get()->invokeOnDescriptors(descriptors,
                                                                &callSeconds);
              if (!words)
                return failed(words.takeError());
              return callSeconds;
            }
            auto outputs = function->get()->call(arguments, &callSeconds);
            if (!outputs)
              return failed(outputs.takeError());
            if (i == 0)
              gmmResult = std::move(*outputs);
            return callSeconds;
          };
          // OpenBLAS on the same values, into its own output.
          std::fill_n(blasOut.floats(), outSize, 0.0f);
          auto callBlas = [&](unsigned) -> llvm::Expected<double> {
            auto start = std::chrono::steady_clock::now();
            if (useSbgemm)
              sbgemmGrouped(sbgemm, shape, forward,
                            static_cast<const uint16_t *>(lhs.data()),
                            static_cast<const uint16_t *>(rhs.data()), sizes,
                            blasOut.floats());
            else if (forward)
              blasGroupedMatmul(shape, a, b, sizes, blasOut.floats());
            else
              blasGroupedWeightGradient(shape, a, b, sizes, blasOut.floats());
            return std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                .count();
          };
          // The two sides' calls alternate (gmm first in even rounds,
          // OpenBLAS in odd ones), with a pause after each.
          auto seconds = common.timeInterleaved(callGmm, callBlas, settle);
          if (!seconds)
            return reportError(llvm::toString(seconds.takeError()));
          row.gmmSeconds = seconds->first;
          row.blasSeconds = seconds->second;

          auto key = std::make_tuple(shape.name, distribution, mode);
          if (!bf16)
            f32Rates[key] = row.gmmRate();
          else if (auto it = f32Rates.find(key); it != f32Rates.end())
            row.vsF32 = row.gmmRate() / it->second;

          double maxAbsError = 0;
          row.error =
              relativeError(resultOutput ? gmmResult[0].data() : gmmOut.data(),
                            bf16Result, blasOut.floats(), outSize, maxAbsError);
          // A bf16 result is rounded to 8 significant bits: each value is
          // within 2^-9 of itself, so within 2^-8 of max|OpenBLAS| with the
          // f32 sums' own differences.
          double rowTolerance =
              bf16Result ? std::max<double>(tolerance, 0x1p-8) : tolerance;
          row.matches = row.error <= rowTolerance;
          if (!row.matches) {
            anyMismatch = true;
            llvm::errs() << llvm::formatv(
                "[{0}] {1} mode {2} {3}: MISMATCH: gmm and OpenBLAS differ: "
                "max|diff| = {4:e2}, {5:e2} relative to max|OpenBLAS| "
                "(tolerance {6:e1})\n",
                shape.name, toString(distribution), static_cast<int>(mode),
                dtype, maxAbsError, row.error, rowTolerance);
          }
          if (markdown)
            printRow(row, threads);
          rows.push_back(row);
        }
      }
    }
  }

  if (!markdown)
    printRows(rows, formatOption == "json", threads, peak, bf16Peak, cpu,
              blasConfig);
  out << "\n";
  for (const std::string &dtype : dtypes) {
    std::vector<double> ratios, vsF32;
    for (const Row &row : rows) {
      if (row.dtype != dtype)
        continue;
      ratios.push_back(row.blasSeconds / row.gmmSeconds);
      if (!std::isnan(row.vsF32))
        vsF32.push_back(row.vsF32);
    }
    if (ratios.empty())
      continue;
    out << llvm::formatv(
        "{0}: median ratio (gmm / OpenBLAS GFLOP/s) {1:f2} over {2} row(s); "
        "min {3:f2}, max {4:f2}",
        dtype, median(ratios), ratios.size(),
        *std::min_element(ratios.begin(), ratios.end()),
        *std::max_element(ratios.begin(), ratios.end()));
    if (!vsF32.empty())
      out << llvm::formatv("; gmm / gmm f32: median {0:f2}, min {1:f2}, max "
                           "{2:f2}",
                           median(vsF32),
                           *std::min_element(vsF32.begin(), vsF32.end()),
                           *std::max_element(vsF32.begin(), vsF32.end()));
    out << "\n";
  }
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
