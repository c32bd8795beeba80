//===- BenchCommon.h - What gmm-bench-cpu and gmm-bench-gpu share -*- C++
//-*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the JIT-compiling benchmarks share beyond BenchCore.h: the options
// (--shapes, --distributions, --quick, --repeat, --warmup, --seed) as LLVM
// command-line options, and the ragged-dot module compiled by the JIT.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_BENCH_COMMON_BENCHCOMMON_H
#define GMM_BENCH_COMMON_BENCHCOMMON_H

#include "BenchCore.h"

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

/// Prints describeSizes()'s line to stderr and returns the number of rows
/// that the groups cover.
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

} // namespace bench
} // namespace gmm

#endif // GMM_BENCH_COMMON_BENCHCOMMON_H
