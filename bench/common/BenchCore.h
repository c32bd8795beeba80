//===- BenchCore.h - What every benchmark shares, without MLIR --*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The parts of the benchmarks that need neither MLIR nor LLVM: shapes and
// their presets, the group-size distributions, the module of one ragged dot
// as text, the table, the median, bf16 conversions and the relative error.
// gmm-bench-gpu runs on a GPU machine where neither is installed (it calls
// ragged dots that gmm-aot compiled), so it uses only these; gmm-bench-cpu
// gets them through BenchCommon.h.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_BENCH_COMMON_BENCHCORE_H
#define GMM_BENCH_COMMON_BENCHCORE_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gmm {
namespace bench {

/// The items of `text` separated by `separator`, trimmed; empty ones are
/// dropped.
std::vector<std::string> splitList(const std::string &text, char separator);

/// printf into a string (at most 1023 characters).
std::string format(const char *pattern, ...)
    __attribute__((format(printf, 1, 2)));

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

/// "[shape] distribution: max/mean X, N empty group(s)"; `covered` receives
/// the number of rows that the groups cover.
std::string describeSizes(const Shape &shape, Distribution distribution,
                          const std::vector<int64_t> &sizes, int64_t &covered);

/// The names of the presets, comma-separated: the quick ones or the others.
std::string presetNames(const ShapePreset *presets, size_t count, bool quick);

/// Parses a comma-separated list of preset names and GxMxKxN sizes (below
/// 2^31 with `int32Sizes`, else any positive size). False with `error` set
/// ("--shapes: ...") on a bad item or an empty list.
bool parseShapes(const std::string &text, const ShapePreset *presets,
                 size_t count, bool int32Sizes, std::vector<Shape> &shapes,
                 std::string &error);

/// Parses a comma-separated list of distributions (zipf only when `zipf`).
bool parseDistributions(const std::string &text, bool zipf,
                        std::vector<Distribution> &distributions,
                        std::string &error);

/// The header of the results' Markdown table: g, m, k, n and sizes, then
/// `columns`, right-aligned but for the last one (two lines, each ending in
/// a newline).
std::string tableHeader(const std::vector<std::string> &columns);

/// One row of that table: the shape and distribution, then `cells`.
std::string tableRow(const Shape &shape, Distribution distribution,
                     const std::vector<std::string> &cells);

/// Which ragged dot a benchmark runs on a shape (g, m, k, n).
enum class Mode {
  /// The MoE forward: lhs [m, k] x rhs [g, k, n] -> [m, n], rows of group i
  /// use rhs[i].
  Forward = 1,
  /// The weight gradient: x [m, k] and dy [m, n] -> [g, k, n], slice i is
  /// x[rows of i]^T dy[rows of i] (the ragged dimension m is contracted).
  WeightGradient = 2,
};

/// The MLIR text of `func.func @<name>`: one ragged dot of `mode` with the
/// static sizes of `shape`, operands of `elementType` ("bf16") and a result
/// of `resultType`, returned, or with `outputArgument` written into a last
/// argument, a memref (as gmm.jax and embedding compilers call gmm).
std::string raggedDotFunction(const Shape &shape,
                              const std::string &elementType,
                              const std::string &resultType, Mode mode,
                              bool outputArgument,
                              const std::string &name = "gmm");

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

#endif // GMM_BENCH_COMMON_BENCHCORE_H
