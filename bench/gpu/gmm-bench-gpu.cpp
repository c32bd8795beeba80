//===- gmm-bench-gpu.cpp - gmm's compiled ragged dots against cuBLAS ------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Times gmm's GPU ragged dots, compiled ahead of time by gmm-aot into a
// library, against cuBLAS on the same device buffers in the same process:
// a loop of one cublasGemmEx per group and one cublasGemmGroupedBatchedEx,
// for the MoE forward (mode 1: lhs [m,k] x rhs [g,k,n] -> [m,n]) and the
// weight gradient (mode 2: x [m,k], dy [m,n] -> [g,k,n]), bf16 operands,
// f32 accumulation, f32 and bf16 results. A dense 8192^3 cuBLAS GEMM in the
// same run gives the device's practical peak. Every side's output is filled
// with NaN first and sampled against an f64 host reference afterwards.
//
// It links neither MLIR nor LLVM: a GPU machine runs it on the libraries
// the development machine built (scripts/gpu-check.sh):
//
//   gmm-bench-gpu --emit-module=bench.mlir            # no GPU needed
//   gmm-aot bench.mlir --target=cuda --chip=sm_90 -o libgmm-bench.so
//   gmm-bench-gpu --library=libgmm-bench.so --json=gmm.json
//
// bench/gpu/bench_peers.py measures torch._grouped_mm and jax.lax.ragged_dot
// on the rows of that JSON, and bench/gpu/report.py merges the two into one
// table. See bench/README.md.
//
//===----------------------------------------------------------------------===//

#include "BenchCore.h"

#include "gmm/AOT/Library.h"
#include "gmm/Reference/GroupSizes.h"
#include "gmm/Runtime/CudaRuntime.h"

#include <cublas_v2.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace ::gmm::bench;
using ::gmm::reference::Random;

// cublasGemmGroupedBatchedEx appeared in cuBLAS 12.5.
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120500
#define GMM_BENCH_HAVE_GROUPED_GEMM 1
#else
#define GMM_BENCH_HAVE_GROUPED_GEMM 0
#endif

namespace {

const ShapePreset presets[] = {
    {"qwen3-up", 128, 65536, 2048, 1536,
     "Qwen3-30B-A3B expert up-projection (gate and up fused)", false},
    {"qwen3-down", 128, 65536, 768, 2048,
     "Qwen3-30B-A3B expert down-projection", false},
    {"deepseek-up", 32, 32768, 7168, 4096,
     "DeepSeek-V3, 32 local experts, up-projection", false},
    {"deepseek-down", 32, 32768, 2048, 7168,
     "DeepSeek-V3, 32 local experts, down-projection", false},
    {"mixtral", 8, 16384, 4096, 28672, "Mixtral 8x7B up-projection", false},
    {"decode", 128, 1024, 2048, 1536,
     "Qwen3 up-projection at decode: 8 tokens per expert on average", false},
    {"quick-g8", 8, 4096, 512, 512, "", true},
    {"quick-g32", 32, 8192, 1024, 512, "", true},
};

struct Options {
  std::string library, emitModule, json, commit;
  std::string shapes, distributions = "uniform,skewed,zipf";
  std::vector<int> modes = {1, 2};
  std::vector<std::string> results = {"bf16", "f32"};
  bool quick = false, cublas = true, sim = false;
  int64_t repeat = 10, warmup = 2, samples = 4096, dense = 8192;
  uint64_t seed = 0;
  double tolerance = 1e-2, timeBudget = 0;
};

const char *kUsage =
    "usage: gmm-bench-gpu --emit-module=FILE [selection]\n"
    "       gmm-bench-gpu --library=FILE [selection] [--json=FILE] "
    "[--repeat=N]\n"
    "         [--warmup=N] [--seed=N] [--samples=N] [--tolerance=X] "
    "[--dense=N]\n"
    "         [--peers=cublas|none] [--time-budget=SECONDS] [--device=sim]\n"
    "         [--commit=TEXT (recorded in the JSON)]\n"
    "selection: --shapes=LIST (presets or GxMxKxN) | --quick, "
    "--modes=1,2,\n"
    "           --results=bf16,f32, --distributions=uniform,skewed,zipf,"
    "random\n"
    "--emit-module writes the functions of the selection for gmm-aot;\n"
    "--library runs them against cuBLAS (--peers=none: gmm alone, e.g. on\n"
    "the simulated GPU with --device=sim).\n";

int usageError(const std::string &message) {
  std::fprintf(stderr, "gmm-bench-gpu: error: %s\n%s", message.c_str(), kUsage);
  return 1;
}

bool parseInt(const std::string &text, int64_t min, int64_t &value) {
  char *end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || parsed < min)
    return false;
  value = parsed;
  return true;
}

/// Parses the command line; empty on success, else the error.
std::string parseOptions(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], key = arg, value;
    size_t equals = arg.find('=');
    if (equals != std::string::npos) {
      key = arg.substr(0, equals);
      value = arg.substr(equals + 1);
    }
    int64_t number = 0;
    if (key == "--help" || key == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (key == "--library") {
      o.library = value;
    } else if (key == "--emit-module") {
      o.emitModule = value;
    } else if (key == "--json") {
      o.json = value;
    } else if (key == "--commit") {
      o.commit = value;
    } else if (key == "--shapes") {
      o.shapes = value;
    } else if (key == "--distributions") {
      o.distributions = value;
    } else if (key == "--quick") {
      o.quick = true;
    } else if (key == "--modes") {
      o.modes.clear();
      for (const std::string &item : splitList(value, ',')) {
        if (item != "1" && item != "2")
          return "--modes=" + value + ": expected 1, 2 or 1,2";
        o.modes.push_back(item[0] - '0');
      }
      if (o.modes.empty())
        return "--modes: none given";
    } else if (key == "--results") {
      o.results = splitList(value, ',');
      for (const std::string &item : o.results)
        if (item != "bf16" && item != "f32")
          return "--results=" + value + ": expected bf16, f32 or both";
      if (o.results.empty())
        return "--results: none given";
    } else if (key == "--peers") {
      if (value != "cublas" && value != "none")
        return "--peers=" + value + ": expected cublas or none";
      o.cublas = value == "cublas";
    } else if (key == "--device") {
      if (value != "sim" && value != "gpu")
        return "--device=" + value + ": expected gpu or sim";
      o.sim = value == "sim";
    } else if (key == "--repeat" || key == "--warmup" || key == "--seed" ||
               key == "--samples" || key == "--dense") {
      int64_t min = key == "--repeat" || key == "--warmup" ? 1 : 0;
      if (!parseInt(value, min, number))
        return key + "=" + value +
               ": expected an integer >= " + std::to_string(min);
      (key == "--repeat"    ? o.repeat
       : key == "--warmup"  ? o.warmup
       : key == "--samples" ? o.samples
       : key == "--dense"   ? o.dense
                            : reinterpret_cast<int64_t &>(o.seed)) = number;
    } else if (key == "--tolerance" || key == "--time-budget") {
      char *end = nullptr;
      double parsed = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !(parsed >= 0))
        return key + "=" + value + ": expected a non-negative number";
      (key == "--tolerance" ? o.tolerance : o.timeBudget) = parsed;
    } else {
      return "unknown option '" + arg + "'";
    }
  }
  if (o.library.empty() == o.emitModule.empty())
    return "give either --library or --emit-module";
  return "";
}

/// The name of the function of `shape`, `mode` and `result` in the library.
std::string functionName(const Shape &shape, int mode,
                         const std::string &result) {
  std::string name;
  for (char c : shape.name)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])))
    name = "shape_" + name;
  return name + "_m" + std::to_string(mode) + "_" + result;
}

//===----------------------------------------------------------------------===//
// Device memory, data and timing (through libgmm_cuda_runtime: the CUDA
// driver, or gmm's simulated GPU)
//===----------------------------------------------------------------------===//

/// The error the mgpu* functions recorded since the last call, or "".
std::string runtimeError() {
  std::string message;
  return gmmCudaTakeError(&message) ? message : "";
}

class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { reset(); }
  /// Empty on success, else why.
  std::string allocate(size_t size, const std::string &what) {
    reset();
    bytes = size;
    pointer = mgpuMemAlloc(std::max<size_t>(size, 1), nullptr, 0);
    std::string error = runtimeError();
    if (!pointer || !error.empty())
      return "allocating " + std::to_string(size) + " bytes for " + what +
             ": " + error;
    return "";
  }
  void reset() {
    if (pointer)
      mgpuMemFree(pointer, nullptr);
    pointer = nullptr;
    bytes = 0;
  }
  template <typename T = void> T *get() const {
    return static_cast<T *>(pointer);
  }
  size_t size() const { return bytes; }

private:
  void *pointer = nullptr;
  size_t bytes = 0;
};

std::string upload(DeviceBuffer &buffer, const void *host, size_t size,
                   const std::string &what) {
  std::string error = buffer.allocate(size, what);
  if (!error.empty())
    return error;
  mgpuMemcpy(buffer.get(), const_cast<void *>(host), size, nullptr);
  mgpuStreamSynchronize(nullptr);
  error = runtimeError();
  return error.empty() ? "" : "copying " + what + ": " + error;
}

/// Fills `data` with seeded values uniform in [-1, 1) rounded to bf16, on
/// all cores: element i depends on (seed, stream, i) only.
void fillRandomBF16(std::vector<uint16_t> &data, uint64_t seed,
                    uint64_t stream) {
  size_t threads = std::max(1u, std::thread::hardware_concurrency());
  size_t chunk = (data.size() + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) {
    size_t begin = t * chunk, end = std::min(data.size(), begin + chunk);
    if (begin >= end)
      break;
    workers.emplace_back([&data, seed, stream, begin, end] {
      // Element i is the i-th value of one splitmix64 sequence (each step
      // adds the golden ratio to the state), whatever the threads: this
      // thread starts that sequence at its first element.
      constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
      Random random(seed * kGolden + stream * 0x632be59bd9b4e019ULL +
                    begin * kGolden);
      for (size_t i = begin; i < end; ++i)
        data[i] = toBF16(float(2.0 * random.nextUnit() - 1.0));
    });
  }
  for (std::thread &worker : workers)
    worker.join();
}

/// Runs `call` warmup + repeat times between events on the legacy default
/// stream (which gmm's entry points and cuBLAS run on here); returns the
/// median milliseconds of the timed calls, or NaN with `error` set.
double timeCalls(const Options &o, const std::function<std::string()> &call,
                 std::string &error) {
  // The simulated GPU measures no time: the calls run (and are checked).
  if (o.sim) {
    for (int64_t i = 0; i < o.warmup + o.repeat && error.empty(); ++i) {
      error = call();
      mgpuStreamSynchronize(nullptr);
      if (error.empty())
        error = runtimeError();
    }
    return NAN;
  }
  GmmCudaEventTimer timer;
  std::vector<double> times;
  for (int64_t i = 0; i < o.warmup + o.repeat; ++i) {
    std::string why;
    if (!timer.start(&why)) {
      error = "starting the timer: " + why;
      return NAN;
    }
    error = call();
    float ms = 0;
    if (!timer.stop(ms, &why) && error.empty())
      error = "stopping the timer: " + why;
    if (error.empty())
      error = runtimeError();
    if (!error.empty())
      return NAN;
    if (i >= o.warmup)
      times.push_back(ms);
  }
  return median(times);
}

//===----------------------------------------------------------------------===//
// The problem, its samples and their reference
//===----------------------------------------------------------------------===//

/// One (shape, mode, distribution): device operands and group bounds.
struct Problem {
  Shape shape;
  int mode = 1;
  std::vector<int64_t> sizes, starts;
  /// Mode 1: lhs [m,k] and rhs [g,k,n]; mode 2: x [m,k] and dy [m,n].
  const std::vector<uint16_t> *hostA = nullptr, *hostB = nullptr;
  const uint16_t *a = nullptr, *b = nullptr;
  const int32_t *groupSizes = nullptr;

  int64_t outputElements() const {
    return mode == 1 ? shape.m * shape.n : shape.g * shape.k * shape.n;
  }
};

/// An output element and its f64 reference.
struct Sample {
  int64_t index;
  double reference;
};

/// Up to `count` outputs of `p`: mode 1, the first and last row of every
/// non-empty group, then random ones; mode 2, one element of every group
/// (empty ones too: their slice must be zero), then random ones. Each with
/// the f64 dot product of the bf16 inputs, computed on all cores.
std::vector<Sample> makeSamples(const Problem &p, int64_t count,
                                uint64_t seed) {
  const Shape &s = p.shape;
  Random random(seed ^ 0x5851f42d4c957f2dULL);
  // (row or group, column or k index, n index).
  struct Position {
    int64_t first, second, third;
  };
  std::vector<Position> positions;
  auto add = [&](Position position) {
    if (static_cast<int64_t>(positions.size()) < count)
      positions.push_back(position);
  };
  for (int64_t group = 0; group < s.g; ++group) {
    if (p.mode == 2) {
      add({group, int64_t(random.nextBelow(s.k)),
           int64_t(random.nextBelow(s.n))});
      continue;
    }
    if (p.sizes[group] == 0)
      continue;
    int64_t first = p.starts[group], last = first + p.sizes[group] - 1;
    add({first, 0, int64_t(random.nextBelow(s.n))});
    if (last != first)
      add({last, 0, int64_t(random.nextBelow(s.n))});
  }
  while (static_cast<int64_t>(positions.size()) < count) {
    if (p.mode == 1)
      add({int64_t(random.nextBelow(s.m)), 0, int64_t(random.nextBelow(s.n))});
    else
      add({int64_t(random.nextBelow(s.g)), int64_t(random.nextBelow(s.k)),
           int64_t(random.nextBelow(s.n))});
  }
  auto groupOf = [&](int64_t row) {
    int64_t group = std::upper_bound(p.starts.begin(), p.starts.end(), row) -
                    p.starts.begin() - 1;
    while (p.sizes[group] == 0 || row >= p.starts[group] + p.sizes[group])
      ++group;
    return group;
  };
  std::vector<Sample> samples(positions.size());
  const uint16_t *a = p.hostA->data(), *b = p.hostB->data();
  size_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (size_t i = t; i < positions.size(); i += threads) {
        const Position &q = positions[i];
        double sum = 0;
        if (p.mode == 1) {
          const uint16_t *row = a + q.first * s.k;
          const uint16_t *column = b + groupOf(q.first) * s.k * s.n + q.third;
          for (int64_t j = 0; j < s.k; ++j)
            sum += double(fromBF16(row[j])) * double(fromBF16(column[j * s.n]));
          samples[i] = {q.first * s.n + q.third, sum};
        } else {
          int64_t start = p.starts[q.first], end = start + p.sizes[q.first];
          for (int64_t r = start; r < end; ++r)
            sum += double(fromBF16(a[r * s.k + q.second])) *
                   double(fromBF16(b[r * s.n + q.third]));
          samples[i] = {(q.first * s.k + q.second) * s.n + q.third, sum};
        }
      }
    });
  for (std::thread &worker : workers)
    worker.join();
  return samples;
}

/// max|x - reference| / max|reference| over the samples of the output at
/// `device` (bf16 or f32 elements); infinite for NaN or infinite outputs.
double sampleError(const void *device, bool bf16,
                   const std::vector<Sample> &samples, std::string &error) {
  size_t width = bf16 ? 2 : 4;
  std::vector<uint8_t> staging(samples.size() * width);
  for (size_t i = 0; i < samples.size(); ++i)
    mgpuMemcpy(staging.data() + i * width,
               const_cast<uint8_t *>(static_cast<const uint8_t *>(device)) +
                   samples[i].index * width,
               width, nullptr);
  mgpuStreamSynchronize(nullptr);
  error = runtimeError();
  ErrorTracker tracker;
  for (size_t i = 0; i < samples.size(); ++i) {
    double value;
    if (bf16) {
      uint16_t bits;
      std::memcpy(&bits, staging.data() + i * width, 2);
      value = fromBF16(bits);
    } else {
      float f;
      std::memcpy(&f, staging.data() + i * width, 4);
      value = f;
    }
    tracker.add(value, samples[i].reference);
  }
  return tracker.relative();
}

//===----------------------------------------------------------------------===//
// The sides
//===----------------------------------------------------------------------===//

/// What one side measured on one row.
struct Side {
  double ms = NAN, error = NAN;
  bool ran = false, ok = false;
  std::string note;
};

std::string cublasError(cublasStatus_t status, const std::string &what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return "";
  return what + ": " + cublasGetStatusName(status) + " (" +
         cublasGetStatusString(status) + ")";
}

/// Zeroes the output slices of mode 2's empty groups (cuBLAS is not called
/// for them, as a caller would not).
void zeroEmptyGroups(const Problem &p, void *out, bool bf16) {
  const Shape &s = p.shape;
  for (int64_t group = 0; group < s.g; ++group) {
    if (p.sizes[group] != 0)
      continue;
    int64_t count = s.k * s.n;
    if (bf16)
      mgpuMemset16(static_cast<uint16_t *>(out) + group * count, 0, count,
                   nullptr);
    else
      mgpuMemset32(static_cast<float *>(out) + group * count, 0, count,
                   nullptr);
  }
}

/// The operands of one cuBLAS gemm of a group (column-major: row-major C =
/// A B is C^T = B^T A^T).
struct GroupGemm {
  cublasOperation_t transa, transb;
  int m, n, k, lda, ldb, ldc;
  const void *a, *b;
  void *c;
};

/// The gemms of `p`'s non-empty groups into `out`. Mode 1: out[start:] =
/// lhs[start:] rhs[g], i.e. (N, N, n, rows, k) on rhs[g] (ld n) and lhs
/// (ld k). Mode 2: out[g] = x[rows]^T dy[rows], i.e. out[g]^T = dy^T x:
/// (N, T, n, k, rows) on dy (ld n) and x (ld k).
std::vector<GroupGemm> groupGemms(const Problem &p, void *out, bool bf16) {
  const Shape &s = p.shape;
  size_t width = bf16 ? 2 : 4;
  auto *c = static_cast<uint8_t *>(out);
  std::vector<GroupGemm> gemms;
  for (int64_t group = 0; group < s.g; ++group) {
    int rows = static_cast<int>(p.sizes[group]);
    int64_t start = p.starts[group];
    if (rows == 0)
      continue;
    if (p.mode == 1)
      gemms.push_back({CUBLAS_OP_N, CUBLAS_OP_N, int(s.n), rows, int(s.k),
                       int(s.n), int(s.k), int(s.n), p.b + group * s.k * s.n,
                       p.a + start * s.k, c + start * s.n * width});
    else
      gemms.push_back({CUBLAS_OP_N, CUBLAS_OP_T, int(s.n), int(s.k), rows,
                       int(s.n), int(s.k), int(s.n), p.b + start * s.n,
                       p.a + start * s.k, c + group * s.k * s.n * width});
  }
  return gemms;
}

std::string runCublasLoop(cublasHandle_t handle, const Problem &p, void *out,
                          bool bf16) {
  const float alpha = 1, beta = 0;
  if (p.mode == 2)
    zeroEmptyGroups(p, out, bf16);
  for (const GroupGemm &g : groupGemms(p, out, bf16)) {
    std::string error = cublasError(
        cublasGemmEx(handle, g.transa, g.transb, g.m, g.n, g.k, &alpha, g.a,
                     CUDA_R_16BF, g.lda, g.b, CUDA_R_16BF, g.ldb, &beta, g.c,
                     bf16 ? CUDA_R_16BF : CUDA_R_32F, g.ldc, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
    if (!error.empty())
      return error;
  }
  return "";
}

/// One cublasGemmGroupedBatchedEx call: one cuBLAS group of one gemm per
/// non-empty expert; the pointer arrays in device memory.
struct GroupedGemm {
  std::vector<GroupGemm> gemms;
  std::vector<cublasOperation_t> transa, transb;
  std::vector<int> m, n, k, lda, ldb, ldc, groupSize;
  std::vector<float> alpha, beta;
  DeviceBuffer pointers;

  std::string prepare(const Problem &p, void *out, bool bf16) {
    gemms = groupGemms(p, out, bf16);
    std::vector<const void *> host(3 * gemms.size());
    for (size_t i = 0; i < gemms.size(); ++i) {
      const GroupGemm &g = gemms[i];
      transa.push_back(g.transa);
      transb.push_back(g.transb);
      m.push_back(g.m);
      n.push_back(g.n);
      k.push_back(g.k);
      lda.push_back(g.lda);
      ldb.push_back(g.ldb);
      ldc.push_back(g.ldc);
      host[i] = g.a;
      host[gemms.size() + i] = g.b;
      host[2 * gemms.size() + i] = g.c;
    }
    groupSize.assign(gemms.size(), 1);
    alpha.assign(gemms.size(), 1.0f);
    beta.assign(gemms.size(), 0.0f);
    return upload(pointers, host.data(), host.size() * sizeof(void *),
                  "the pointer arrays");
  }

  std::string run(cublasHandle_t handle, const Problem &p, void *out,
                  bool bf16) {
#if GMM_BENCH_HAVE_GROUPED_GEMM
    if (p.mode == 2)
      zeroEmptyGroups(p, out, bf16);
    auto **array = pointers.get<void *>();
    int count = static_cast<int>(gemms.size());
    return cublasError(
        cublasGemmGroupedBatchedEx(
            handle, transa.data(), transb.data(), m.data(), n.data(), k.data(),
            alpha.data(), const_cast<const void *const *>(array), CUDA_R_16BF,
            lda.data(), const_cast<const void *const *>(array + count),
            CUDA_R_16BF, ldb.data(), beta.data(), array + 2 * count,
            bf16 ? CUDA_R_16BF : CUDA_R_32F, ldc.data(), count,
            groupSize.data(), CUBLAS_COMPUTE_32F),
        "cublasGemmGroupedBatchedEx");
#else
    (void)handle, (void)p, (void)out, (void)bf16;
    return "n/a: cublasGemmGroupedBatchedEx needs cuBLAS 12.5 or later";
#endif
  }
};

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20)
      out += format("\\u%04x", c);
    else
      out += c;
  }
  return out + "\"";
}

std::string jsonNumber(double value) {
  return std::isfinite(value) ? format("%.6g", value) : "null";
}

struct RowResult {
  Shape shape;
  int mode;
  std::string result;
  Distribution distribution;
  std::vector<int64_t> sizes;
  double flops;
  std::vector<std::pair<std::string, Side>> sides;
};

std::string sideJSON(const Side &side, double flops) {
  double tflops = side.ms > 0 ? flops / (side.ms * 1e9) : NAN;
  return "{\"ms\": " + jsonNumber(side.ms) +
         ", \"tflops\": " + jsonNumber(tflops) +
         ", \"error\": " + jsonNumber(side.error) +
         ", \"ok\": " + (side.ran ? (side.ok ? "true" : "false") : "null") +
         ", \"note\": " + jsonString(side.note) + "}";
}

std::string rowJSON(const RowResult &row) {
  std::string sizes;
  for (int64_t size : row.sizes)
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
  std::string text = format(
      "    {\"shape\": %s, \"g\": %lld, \"m\": %lld, \"k\": %lld, \"n\": %lld, "
      "\"mode\": %d, \"dtype\": \"bf16\", \"result\": %s, \"distribution\": "
      "%s,\n     \"flops\": %.17g, \"group_sizes\": [",
      jsonString(row.shape.name).c_str(), (long long)row.shape.g,
      (long long)row.shape.m, (long long)row.shape.k, (long long)row.shape.n,
      row.mode, jsonString(row.result).c_str(),
      jsonString(toString(row.distribution)).c_str(), row.flops);
  text += sizes + "],\n     \"sides\": {";
  for (size_t i = 0; i < row.sides.size(); ++i)
    text += (i ? ", " : "") + jsonString(row.sides[i].first) + ": " +
            sideJSON(row.sides[i].second, row.flops);
  return text + "}}";
}

std::string cell(double value, const char *pattern) {
  return std::isfinite(value) ? format(pattern, value) : "n/a";
}

//===----------------------------------------------------------------------===//
// The benchmark
//===----------------------------------------------------------------------===//

struct Bench {
  Options options;
  std::unique_ptr<::gmm::aot::Library> library;
  cublasHandle_t handle = nullptr;
  std::vector<RowResult> rows;
  std::string deviceJSON, denseJSON = "null";
  bool anyWrong = false;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();

  bool outOfTime() const {
    return options.timeBudget > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
                   .count() > options.timeBudget;
  }

  /// The dense bf16 GEMM of size `n`^3 through cuBLAS: the practical peak.
  void measureDense() {
    int64_t n = options.dense;
    if (!handle || n == 0)
      return;
    DeviceBuffer a, b, c;
    std::vector<uint16_t> host(n * n);
    fillRandomBF16(host, options.seed, 99);
    std::string error = upload(a, host.data(), host.size() * 2, "dense A");
    if (error.empty())
      error = upload(b, host.data(), host.size() * 2, "dense B");
    if (error.empty())
      error = c.allocate(host.size() * 2, "dense C");
    if (error.empty()) {
      const float alpha = 1, beta = 0;
      double ms = timeCalls(
          options,
          [&] {
            return cublasError(
                cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
                             a.get(), CUDA_R_16BF, n, b.get(), CUDA_R_16BF, n,
                             &beta, c.get(), CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                             CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
          },
          error);
      double tflops = 2.0 * n * n * n / (ms * 1e9);
      std::printf("- dense bf16 GEMM %lld^3 (cuBLAS): %.3f ms, %.1f TFLOP/s "
                  "(the practical peak of the ratios below)\n",
                  (long long)n, ms, tflops);
      denseJSON = format("{\"m\": %lld, \"n\": %lld, \"k\": %lld, \"ms\": %s, "
                         "\"tflops\": %s}",
                         (long long)n, (long long)n, (long long)n,
                         jsonNumber(ms).c_str(), jsonNumber(tflops).c_str());
    }
    if (!error.empty())
      std::fprintf(stderr, "gmm-bench-gpu: the dense GEMM failed: %s\n",
                   error.c_str());
  }

  /// One row: every side on `p` with a result of `result`.
  void runRow(Problem &p, const std::string &result, Distribution distribution,
              const std::vector<Sample> &samples) {
    bool bf16 = result == "bf16";
    const Shape &s = p.shape;
    RowResult row{
        s, p.mode, result, distribution, p.sizes, 2.0 * s.m * s.k * s.n, {}};
    size_t outBytes = p.outputElements() * (bf16 ? 2 : 4);
    auto measure = [&](const std::string &name, const std::string &note,
                       const std::function<std::string(void *)> &prepare,
                       const std::function<std::string(void *)> &call) {
      Side side;
      side.note = note;
      DeviceBuffer out;
      std::string error = out.allocate(outBytes, name + "'s result");
      if (error.empty()) {
        // NaN in bf16 and f32: whatever a side leaves unwritten fails.
        mgpuMemset32(out.get(), 0xffffffffu, outBytes / 4, nullptr);
        error = prepare(out.get());
      }
      if (error.empty())
        side.ms = timeCalls(options, [&] { return call(out.get()); }, error);
      if (error.empty()) {
        side.error = sampleError(out.get(), bf16, samples, error);
        side.ran = error.empty();
        side.ok = side.ran && side.error <= options.tolerance;
        anyWrong |= side.ran && !side.ok;
      }
      if (!error.empty()) {
        side.ms = NAN;
        side.note = (error.rfind("n/a", 0) == 0 ? "" : "n/a: ") + error;
        // A failed launch leaves a real GPU's context unusable.
        (void)gmmCudaClearDeviceError();
      }
      row.sides.push_back({name, side});
    };

    // gmm, through the library's entry point.
    std::string name = functionName(s, p.mode, result);
    const gmm_aot_function *f = library->find(name);
    if (!f) {
      row.sides.push_back(
          {"gmm", Side{NAN, NAN, false, false,
                       "n/a: " + name + " is not in the library"}});
    } else {
      DeviceBuffer workspace;
      int64_t workspaceBytes = f->workspace_bytes(nullptr);
      measure(
          "gmm", name,
          [&](void *) {
            return workspaceBytes > 0
                       ? workspace.allocate(workspaceBytes, "gmm's workspace")
                       : std::string();
          },
          [&](void *out) -> std::string {
            void *buffers[4] = {const_cast<uint16_t *>(p.a),
                                const_cast<uint16_t *>(p.b),
                                const_cast<int32_t *>(p.groupSizes), out};
            int32_t status = f->call(buffers, nullptr, workspace.get(),
                                     workspace.size(), nullptr);
            return status == GMM_AOT_SUCCESS
                       ? ""
                       : name + " returned " + std::to_string(status);
          });
    }
    if (handle) {
      measure(
          "cublas_loop", "one cublasGemmEx per non-empty group",
          [](void *) { return std::string(); },
          [&](void *out) { return runCublasLoop(handle, p, out, bf16); });
      GroupedGemm grouped;
      measure(
          "cublas_grouped", "one cublasGemmGroupedBatchedEx",
          [&](void *out) { return grouped.prepare(p, out, bf16); },
          [&](void *out) { return grouped.run(handle, p, out, bf16); });
    }
    printRow(row);
    rows.push_back(std::move(row));
  }

  void printRow(const RowResult &row) {
    const Side *gmm = nullptr;
    for (const auto &[name, side] : row.sides)
      if (name == "gmm")
        gmm = &side;
    auto tflops = [&](const Side &side) { return row.flops / (side.ms * 1e9); };
    std::vector<std::string> cells = {std::to_string(row.mode), row.result};
    std::string check;
    bool allOk = true;
    double worst = 0;
    for (const auto &[name, side] : row.sides) {
      cells.push_back(cell(side.ms, "%.3f"));
      cells.push_back(cell(tflops(side), "%.1f"));
      if (name != "gmm")
        cells.push_back(gmm ? cell(tflops(*gmm) / tflops(side), "%.2f")
                            : "n/a");
      if (side.ran && !side.ok) {
        allOk = false;
        check += format("%s %.1e ", name.c_str(), side.error);
      } else if (side.ran) {
        worst = std::max(worst, side.error);
      } else {
        check += name + " " + side.note.substr(0, 60) + "; ";
      }
    }
    bool anyRan = false;
    for (const auto &[name, side] : row.sides)
      anyRan |= side.ran;
    if (!allOk)
      cells.push_back("**FAIL** " + check);
    else if (anyRan)
      cells.push_back(format("ok (%.1e) %s", worst, check.c_str()));
    else
      cells.push_back(check);
    std::fputs(tableRow(row.shape, row.distribution, cells).c_str(), stdout);
    std::fflush(stdout);
  }

  /// Every shape, mode, result and distribution of the selection.
  std::string run(const std::vector<Shape> &shapes,
                  const std::vector<Distribution> &distributions) {
    std::vector<std::string> columns = {"mode", "result", "gmm ms",
                                        "gmm TFLOP/s"};
    if (handle)
      for (const char *peer : {"loop", "grouped"}) {
        columns.push_back(std::string(peer) + " ms");
        columns.push_back(std::string(peer) + " TFLOP/s");
        columns.push_back(std::string("gmm/") + peer);
      }
    columns.push_back("check");
    std::fputs(("\n" + tableHeader(columns)).c_str(), stdout);
    for (const Shape &shape : shapes) {
      if (outOfTime())
        break;
      std::fprintf(stderr, "[%s] g=%lld m=%lld k=%lld n=%lld: inputs\n",
                   shape.name.c_str(), (long long)shape.g, (long long)shape.m,
                   (long long)shape.k, (long long)shape.n);
      bool forward = std::count(options.modes.begin(), options.modes.end(), 1);
      bool gradient = std::count(options.modes.begin(), options.modes.end(), 2);
      std::vector<uint16_t> hostA(shape.m * shape.k), hostRhs, hostDy;
      fillRandomBF16(hostA, options.seed, 0);
      DeviceBuffer a, rhs, dy, groupSizes;
      std::string error = upload(a, hostA.data(), hostA.size() * 2, "lhs");
      if (error.empty() && forward) {
        hostRhs.resize(shape.g * shape.k * shape.n);
        fillRandomBF16(hostRhs, options.seed, 1);
        error = upload(rhs, hostRhs.data(), hostRhs.size() * 2, "rhs");
      }
      if (error.empty() && gradient) {
        hostDy.resize(shape.m * shape.n);
        fillRandomBF16(hostDy, options.seed, 2);
        error = upload(dy, hostDy.data(), hostDy.size() * 2, "dy");
      }
      if (!error.empty())
        return "[" + shape.name + "] " + error;
      for (int mode : options.modes)
        for (Distribution distribution : distributions) {
          if (outOfTime()) {
            std::fprintf(stderr, "gmm-bench-gpu: --time-budget reached\n");
            return "";
          }
          Problem p;
          p.shape = shape;
          p.mode = mode;
          p.sizes = makeSizes(distribution, shape.m, shape.g, options.seed);
          int64_t covered = 0;
          std::fprintf(
              stderr, "%s\n",
              describeSizes(shape, distribution, p.sizes, covered).c_str());
          std::vector<int32_t> sizes32(p.sizes.begin(), p.sizes.end());
          for (int64_t i = 0, start = 0; i < shape.g; start += p.sizes[i++])
            p.starts.push_back(start);
          error = upload(groupSizes, sizes32.data(), sizes32.size() * 4,
                         "group_sizes");
          if (!error.empty())
            return error;
          p.hostA = &hostA;
          p.hostB = mode == 1 ? &hostRhs : &hostDy;
          p.a = a.get<uint16_t>();
          p.b = mode == 1 ? rhs.get<uint16_t>() : dy.get<uint16_t>();
          p.groupSizes = groupSizes.get<int32_t>();
          std::vector<Sample> samples =
              makeSamples(p, options.samples, options.seed + mode);
          for (const std::string &result : options.results)
            runRow(p, result, distribution, samples);
        }
    }
    return "";
  }

  std::string writeJSON(const std::string &path) const {
    std::FILE *file = std::fopen(path.c_str(), "w");
    if (!file)
      return "cannot write " + path + ": " + std::strerror(errno);
    std::fprintf(file,
                 "{\n  \"tool\": \"gmm-bench-gpu\",\n  \"commit\": %s,\n"
                 "  \"device\": %s,\n"
                 "  \"library\": %s,\n  \"library_source\": %s,\n"
                 "  \"seed\": %llu, \"repeat\": %lld, \"warmup\": %lld,\n"
                 "  \"samples\": %lld, \"tolerance\": %g,\n"
                 "  \"dense_peak\": %s,\n  \"rows\": [\n",
                 jsonString(options.commit).c_str(), deviceJSON.c_str(),
                 jsonString(options.library).c_str(),
                 jsonString(library->describe().source).c_str(),
                 (unsigned long long)options.seed, (long long)options.repeat,
                 (long long)options.warmup, (long long)options.samples,
                 options.tolerance, denseJSON.c_str());
    for (size_t i = 0; i < rows.size(); ++i)
      std::fprintf(file, "%s%s\n", rowJSON(rows[i]).c_str(),
                   i + 1 < rows.size() ? "," : "");
    std::fprintf(file, "  ]\n}\n");
    std::fclose(file);
    return "";
  }
};

int emitModule(const Options &o, const std::vector<Shape> &shapes) {
  std::FILE *file = std::fopen(o.emitModule.c_str(), "w");
  if (!file) {
    std::fprintf(stderr, "gmm-bench-gpu: error: cannot write %s: %s\n",
                 o.emitModule.c_str(), std::strerror(errno));
    return 1;
  }
  std::fprintf(file, "// gmm-bench-gpu's ragged dots: bf16 operands, "
                     "run-time group sizes (generated).\n");
  for (const Shape &shape : shapes)
    for (int mode : o.modes)
      for (const std::string &result : o.results)
        std::fputs(
            raggedDotFunction(shape, "bf16", result,
                              mode == 1 ? Mode::Forward : Mode::WeightGradient,
                              /*outputArgument=*/false,
                              functionName(shape, mode, result))
                .c_str(),
            file);
  std::fclose(file);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  std::string error = parseOptions(argc, argv, options);
  if (!error.empty())
    return usageError(error);
  std::vector<Shape> shapes;
  std::vector<Distribution> distributions;
  std::string shapeList =
      options.shapes.empty()
          ? presetNames(presets, std::size(presets), options.quick)
          : options.shapes;
  if (!parseShapes(shapeList, presets, std::size(presets),
                   /*int32Sizes=*/true, shapes, error) ||
      !parseDistributions(options.distributions, /*zipf=*/true, distributions,
                          error))
    return usageError(error);
  if (!options.emitModule.empty())
    return emitModule(options, shapes);

  if (options.sim && !gmmCudaUseSimulator("", "", &error)) {
    std::fprintf(stderr, "gmm-bench-gpu: error: --device=sim: %s\n",
                 error.c_str());
    return 1;
  }
  if (options.sim && options.cublas)
    return usageError("cuBLAS does not run on the simulated GPU: add "
                      "--peers=none");
  gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
  GmmCudaDeviceInfo device;
  if (!gmmCudaAvailable(&error) || !gmmCudaGetDeviceInfo(0, device, &error)) {
    std::fprintf(stderr, "gmm-bench-gpu: error: needs a CUDA GPU: %s\n",
                 error.c_str());
    return 1;
  }
  Bench bench;
  bench.options = options;
  bench.library = ::gmm::aot::Library::open(options.library, error);
  if (!bench.library) {
    std::fprintf(stderr, "gmm-bench-gpu: error: %s\n", error.c_str());
    return 1;
  }
  std::string loadError = runtimeError();
  if (!loadError.empty()) {
    std::fprintf(stderr,
                 "gmm-bench-gpu: error: loading the kernels of %s: %s\n",
                 options.library.c_str(), loadError.c_str());
    return 1;
  }
  int cublasVersion = 0;
  if (options.cublas) {
    error = cublasError(cublasCreate(&bench.handle), "cublasCreate");
    if (error.empty())
      error = cublasError(cublasGetVersion(bench.handle, &cublasVersion),
                          "cublasGetVersion");
    if (!error.empty()) {
      std::fprintf(stderr, "gmm-bench-gpu: error: %s\n", error.c_str());
      return 1;
    }
  }
  std::string cublasText =
      options.cublas ? format("%d.%d.%d", cublasVersion / 10000,
                              (cublasVersion / 100) % 100, cublasVersion % 100)
                     : "";
  bench.deviceJSON = format(
      "{\"name\": %s, \"chip\": \"%s\", \"sms\": %d, \"memory_gib\": %.1f, "
      "\"driver\": %d, \"cublas\": %s, \"simulated\": %s}",
      jsonString(device.name).c_str(), device.chip().c_str(),
      device.multiProcessorCount, device.totalMemoryBytes / double(1ull << 30),
      device.driverVersion, jsonString(cublasText).c_str(),
      device.simulated ? "true" : "false");
  std::printf("# gmm-bench-gpu\n\n- device 0: %s (%s, %d SMs, %.1f GiB), "
              "driver %d.%d%s%s\n",
              device.name.c_str(), device.chip().c_str(),
              device.multiProcessorCount,
              device.totalMemoryBytes / double(1ull << 30),
              device.driverVersion / 1000, (device.driverVersion % 1000) / 10,
              options.cublas ? ", cuBLAS " : "", cublasText.c_str());
  std::printf("- gmm: %s (compiled by gmm-aot from %s for %s)\n",
              options.library.c_str(), bench.library->describe().source,
              bench.library->describe().chip);
  std::printf("- bf16 operands, f32 accumulation; median of %lld timed calls "
              "after %lld warm-up call(s), CUDA events on the default "
              "stream; seed %llu; %lld sampled outputs of every side "
              "against an f64 host reference, tolerance %.1e\n",
              (long long)options.repeat, (long long)options.warmup,
              (unsigned long long)options.seed, (long long)options.samples,
              options.tolerance);
  bench.measureDense();
  error = bench.run(shapes, distributions);
  if (bench.handle)
    cublasDestroy(bench.handle);
  if (!options.json.empty()) {
    std::string written = bench.writeJSON(options.json);
    if (!written.empty())
      std::fprintf(stderr, "gmm-bench-gpu: error: %s\n", written.c_str());
  }
  if (!error.empty()) {
    std::fprintf(stderr, "gmm-bench-gpu: error: %s\n", error.c_str());
    return 1;
  }
  if (bench.anyWrong)
    std::fprintf(stderr, "gmm-bench-gpu: error: a side computed a wrong "
                         "result (see the check column)\n");
  return bench.anyWrong ? 1 : 0;
}
