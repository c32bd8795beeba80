//===- BenchCommon.h - What gmm-bench-cpu and gmm-bench-gpu share -*- C++
//-*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The parts of the benchmarks that do not depend on the peer library: the
// options both take (--shapes, --distributions, --quick, --repeat, --warmup,
// --seed) and their parsing, the group-size distributions, the compiled
// ragged-dot module, the median and the relative error of a check.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_BENCH_COMMON_BENCHCOMMON_H
#define GMM_BENCH_COMMON_BENCHCOMMON_H

#include "gmm/Runner/JitRunner.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace gmm {
namespace bench {

/// The median; NaN for none.
double median(std::vector<double> values);

/// One problem size: lhs [m, k], rhs [g, k, n], group_sizes [g].
struct Shape {
  std::string name;
  int64_t g, m, k, n;
};

/// A shape that --shapes accepts by name.
struct ShapePreset {
  const char *name;
  int64_t g, m, k, n;
  /// Shown after the sizes in --help ("" for none).
  const char *note;
  /// One of --quick's shapes (the others are the default ones).
  bool quick;
};

/// The group-size distributions; the first three are makeGroupSizes'.
enum class Distribution { Uniform, Skewed, Random, Zipf };

const char *toString(Distribution distribution);

/// `g` sizes that sum to `m`. Zipf: group i ends at row
/// round(m * H(i + 1) / H(g)), H(j) = 1 + 1/2 + ... + 1/j, so group i gets
/// about m / ((i + 1) H(g)) rows and the sizes sum to m exactly.
std::vector<int64_t> makeSizes(Distribution distribution, int64_t m, int64_t g,
                               uint64_t seed);

/// Prints "[shape] distribution: max/mean X, N empty group(s)" to stderr and
/// returns the number of rows that the groups cover.
int64_t describeSizes(const Shape &shape, Distribution distribution,
                      llvm::ArrayRef<int64_t> sizes);

/// Prints the header of the results' Markdown table to stdout: g, m, k, n
/// and sizes, then `columns`, right-aligned but for the last one.
void printTableHeader(llvm::ArrayRef<llvm::StringRef> columns);

/// Prints one row of that table: the shape and distribution, then `cells`;
/// flushes stdout, so that a long run shows its rows as they come.
void printTableRow(const Shape &shape, Distribution distribution,
                   llvm::ArrayRef<std::string> cells);

/// What a benchmark's common options accept and default to.
struct BenchConfig {
  llvm::ArrayRef<ShapePreset> presets;
  /// --shapes sizes must be below 2^31 (otherwise: any positive size).
  bool int32Sizes;
  /// --distributions accepts zipf.
  bool zipf;
  /// The defaults of --repeat and --warmup.
  unsigned repeat, warmup;
};

/// The options that both benchmarks take, in `category`. Make it a global
/// next to the benchmark's other options.
class CommonOptions {
public:
  CommonOptions(llvm::cl::OptionCategory &category,
                const BenchConfig &benchConfig);

  /// --shapes, or the default (--quick) presets when it is empty.
  llvm::Expected<std::vector<Shape>> getShapes() const;
  llvm::Expected<std::vector<Distribution>> getDistributions() const;

  /// Calls `call(i)` for i = 0, 1, ..., warmup + repeat - 1; each returns
  /// how long call i took, or an error, which ends the calls. Returns the
  /// median of the last `repeat` times.
  template <typename Call> llvm::Expected<double> timeCalls(Call &&call) const {
    std::vector<double> times;
    for (unsigned i = 0; i < warmup + repeat; ++i) {
      llvm::Expected<double> time = call(i);
      if (!time)
        return time.takeError();
      if (i >= warmup)
        times.push_back(*time);
    }
    return median(std::move(times));
  }

  /// Times two sides call by call: round i = 0, 1, ..., warmup + repeat -
  /// 1 calls `first(i)` and `second(i)`, in that order in even rounds and
  /// the other way round in odd ones, with `pause()` after every call. Each
  /// call returns how long it took, or an error, which ends the rounds.
  /// Returns each side's median over the last `repeat` rounds: a machine
  /// whose speed drifts while a row is measured (other tenants of a
  /// virtual machine, its clock) slows both sides alike, where timing one
  /// side's calls after the other's compared different stretches of time.
  template <typename First, typename Second, typename Pause>
  llvm::Expected<std::pair<double, double>>
  timeInterleaved(First &&first, Second &&second, Pause &&pause) const {
    std::vector<double> firstTimes, secondTimes;
    for (unsigned i = 0; i < warmup + repeat; ++i) {
      for (bool firstSide : {i % 2 == 0, i % 2 != 0}) {
        llvm::Expected<double> time = firstSide ? first(i) : second(i);
        if (!time)
          return time.takeError();
        pause();
        if (i >= warmup)
          (firstSide ? firstTimes : secondTimes).push_back(*time);
      }
    }
    return std::make_pair(median(std::move(firstTimes)),
                          median(std::move(secondTimes)));
  }

private:
  BenchConfig config;
  std::string defaultShapes, quickShapes;
  // cl::desc keeps a StringRef: the texts live here, before the options.
  std::string shapesHelp, distributionsHelp, quickHelp, repeatHelp, warmupHelp;

public:
  llvm::cl::opt<std::string> shapes;
  llvm::cl::opt<std::string> distributions;
  llvm::cl::opt<bool> quick;
  llvm::cl::opt<unsigned> repeat;
  llvm::cl::opt<unsigned> warmup;
  llvm::cl::opt<uint64_t> seed;
};

/// A context with every upstream dialect and extension and gmm's dialect.
std::unique_ptr<mlir::MLIRContext> createContext();

/// Which ragged dot a benchmark runs on a shape (g, m, k, n).
enum class Mode {
  /// The MoE forward: lhs [m, k] x rhs [g, k, n] -> [m, n], rows of group i
  /// use rhs[i].
  Forward = 1,
  /// The weight gradient: x [m, k] and dy [m, n] -> [g, k, n], slice i is
  /// x[rows of i]^T dy[rows of i] (the ragged dimension m is contracted).
  WeightGradient = 2,
};

/// Builds the module of one ragged dot of `mode` with static shapes and
/// operands of `elementType` (e.g. "f32") and a result of `resultType` (empty:
/// `elementType`), and compiles its function `gmm`
/// (which returns the result, or with `outputArgument` writes it into a
/// fourth argument, a memref, as gmm.jax and embedding compilers call it),
/// saying so on stderr: "[shape] g=.. m=.. k=.. n=..: compiling", then
/// "[shape] compiled in X s" followed by `compiledSuffix`.
llvm::Expected<std::unique_ptr<::gmm::runner::JitFunction>>
compileRaggedDot(mlir::MLIRContext &context, const Shape &shape,
                 llvm::StringRef elementType,
                 ::gmm::runner::PipelineBuilder pipeline,
                 const ::gmm::runner::JitOptions &options = {},
                 llvm::StringRef compiledSuffix = "", Mode mode = Mode::Forward,
                 bool outputArgument = false, llvm::StringRef resultType = "");

/// A float as bf16 bits: round to nearest, ties to even; NaN stays NaN.
uint16_t toBF16(float value);
/// bf16 bits as a float (exact).
float fromBF16(uint16_t value);

/// max|got - expected| / max|expected| over the pairs added; NaN and infinity
/// make it infinite.
struct ErrorTracker {
  double maxDiff = 0, maxRef = 0;

  void add(double got, double expected) {
    double diff = std::fabs(got - expected);
    if (!(diff <= maxDiff))
      maxDiff = std::isfinite(diff) ? diff : INFINITY;
    maxRef = std::max(maxRef, std::fabs(expected));
  }
  double relative() const {
    return maxDiff == 0 ? 0 : maxDiff / std::max(maxRef, 1e-30);
  }
};

} // namespace bench
} // namespace gmm

#endif // GMM_BENCH_COMMON_BENCHCOMMON_H
