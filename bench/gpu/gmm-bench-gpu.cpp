//===- gmm-bench-gpu.cpp - gmm on the GPU against cuBLAS ------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Times a mode-1 bf16 gmm.ragged_dot (lhs [m,k], rhs [g,k,n], group_sizes [g]
// -> [m,n], f32 accumulation) compiled by the `cuda` pipeline (gmm-to-ptx)
// against two cuBLAS peers on the same device buffers, in the same process:
// a loop of one cublasGemmEx per non-empty group, and one
// cublasGemmGroupedBatchedEx call with one cuBLAS group per non-empty
// expert. Every (shape, group-size distribution) pair prints one row of a
// Markdown table with the median times, the TFLOP/s of the three and gmm's
// throughput relative to each peer; a summary with the device and the share
// of the H100 dense bf16 peak closes it. Sampled outputs of all three are
// checked against an f64 reference computed on the host from the same bf16
// inputs, so all three compute the same thing.
//
// It needs a CUDA GPU: without one it says why in one line and exits with 1.
// See bench/README.md for what is measured and how to read it.
//
//===----------------------------------------------------------------------===//

#include "BenchCommon.h"

#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Runner/HostTensor.h"
#include "gmm/Runner/JitRunner.h"
#include "gmm/Runtime/CudaRuntime.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace mlir;
using namespace ::gmm::runner;
using namespace ::gmm::bench;
namespace cl = llvm::cl;
using llvm::StringRef;

// cublasGemmGroupedBatchedEx appeared in cuBLAS 12.5.
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120500
#define GMM_BENCH_HAVE_GROUPED_GEMM 1
#else
#define GMM_BENCH_HAVE_GROUPED_GEMM 0
#endif

namespace {

cl::OptionCategory benchCategory("gmm-bench-gpu options");

const ShapePreset presets[] = {
    {"qwen3", 128, 65536, 2048, 1536, "Qwen3-30B-A3B up-projection", false},
    {"deepseek-v3", 32, 32768, 7168, 4096, "DeepSeek-V3 local experts", false},
    {"mixtral", 8, 16384, 4096, 28672, "Mixtral 8x7B", false},
    {"quick-g8", 8, 4096, 512, 512, "", true},
    {"quick-g32", 32, 8192, 1024, 512, "", true},
};

// --shapes, --distributions, --quick, --repeat, --warmup and --seed.
CommonOptions common(benchCategory, {presets, /*int32Sizes=*/true,
                                     /*zipf=*/true, /*repeat=*/10,
                                     /*warmup=*/2});

cl::opt<unsigned>
    samples("samples",
            cl::desc("Outputs of each side checked against the host reference "
                     "(default 4096; the first and last row of every "
                     "non-empty group are among them)"),
            cl::value_desc("N"), cl::init(4096), cl::cat(benchCategory));

cl::opt<double> tolerance(
    "tolerance",
    cl::desc("Largest accepted max|x - reference| / max|reference| over the "
             "samples, for each side (default 1e-2: a bf16 output is within "
             "half a bf16 ulp, 2^-8 relative, of the exact value)"),
    cl::value_desc("X"), cl::init(1e-2), cl::cat(benchCategory));

cl::opt<int64_t>
    tileM("tile-m",
          cl::desc("Block tile rows for gmm (0: gmm-tile's GPU heuristic)"),
          cl::value_desc("N"), cl::init(0), cl::cat(benchCategory));
cl::opt<int64_t>
    tileN("tile-n",
          cl::desc("Block tile columns for gmm (0: gmm-tile's GPU heuristic)"),
          cl::value_desc("N"), cl::init(0), cl::cat(benchCategory));
cl::opt<int64_t>
    tileK("tile-k",
          cl::desc("Contraction step for gmm (0: gmm-tile's GPU heuristic)"),
          cl::value_desc("N"), cl::init(0), cl::cat(benchCategory));
cl::opt<int64_t> warpsM("warps-m",
                        cl::desc("Warps per block along the tile's rows "
                                 "(0: the pipeline's default)"),
                        cl::value_desc("N"), cl::init(0),
                        cl::cat(benchCategory));
cl::opt<int64_t> warpsN("warps-n",
                        cl::desc("Warps per block along the tile's columns "
                                 "(0: the pipeline's default)"),
                        cl::value_desc("N"), cl::init(0),
                        cl::cat(benchCategory));
cl::opt<int64_t> stages("stages",
                        cl::desc("Shared-memory stages of gmm's contraction "
                                 "pipeline (0: the pipeline's default)"),
                        cl::value_desc("N"), cl::init(0),
                        cl::cat(benchCategory));
cl::opt<std::string>
    binaryFormat("format",
                 cl::desc("What the kernels are embedded as: isa (PTX, "
                          "JIT-compiled by the driver), bin (cubin) or fatbin; "
                          "the latter two run ptxas (default: the pipeline's)"),
                 cl::value_desc("isa|bin|fatbin"), cl::cat(benchCategory));

cl::opt<double>
    peakTflops("peak-tflops",
               cl::desc("The peak that the summary compares with (default "
                        "989: H100 SXM dense bf16, which the H200 shares)"),
               cl::value_desc("X"), cl::init(989), cl::cat(benchCategory));

int reportError(const llvm::Twine &message) {
  llvm::errs() << "gmm-bench-gpu: error: " << message << "\n";
  return 1;
}

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

llvm::Error check(cudaError_t status, const llvm::Twine &what) {
  if (status == cudaSuccess)
    return llvm::Error::success();
  return makeError(what + ": " + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ")");
}

llvm::Error check(cublasStatus_t status, const llvm::Twine &what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return llvm::Error::success();
  return makeError(what + ": " + cublasGetStatusName(status) + " (" +
                   cublasGetStatusString(status) + ")");
}

/// The error that the mgpu* functions recorded, if any.
llvm::Error checkGmmRuntime(const llvm::Twine &what) {
  std::string message;
  if (gmmCudaTakeError(&message))
    return makeError(what + ": " + message);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// bf16 data
//===----------------------------------------------------------------------===//

constexpr uint64_t golden = 0x9e3779b97f4a7c15ULL;

/// splitmix64's output function.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Fills `data` with seeded values uniform in [-1, 1) rounded to bf16, on all
/// cores: element i is a function of (seed, stream, i) only (splitmix64).
void fillRandomBF16(std::vector<uint16_t> &data, uint64_t seed,
                    uint64_t stream) {
  uint64_t base = mix(seed * golden + mix(stream + 1));
  size_t threads = std::max(1u, std::thread::hardware_concurrency());
  size_t chunk = (data.size() + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) {
    size_t begin = t * chunk, end = std::min(data.size(), begin + chunk);
    if (begin >= end)
      break;
    workers.emplace_back([&data, base, begin, end] {
      for (size_t i = begin; i < end; ++i) {
        uint64_t bits = mix(base + (i + 1) * golden) >> 40; // 24 bits
        data[i] = toBF16(float(bits) * 0x1p-23f - 1.0f);
      }
    });
  }
  for (std::thread &worker : workers)
    worker.join();
}

//===----------------------------------------------------------------------===//
// Device memory and timing
//===----------------------------------------------------------------------===//

/// cudaMalloc'ed memory, freed with the object.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { reset(); }

  llvm::Error allocate(size_t bytes, const llvm::Twine &what) {
    reset();
    size = bytes;
    return check(cudaMalloc(&pointer, std::max<size_t>(bytes, 1)),
                 "cudaMalloc of " + llvm::Twine(bytes) + " bytes for " + what);
  }
  void reset() {
    if (pointer)
      (void)cudaFree(pointer);
    pointer = nullptr;
    size = 0;
  }
  template <typename T = void> T *get() const {
    return static_cast<T *>(pointer);
  }
  size_t bytes() const { return size; }

private:
  void *pointer = nullptr;
  size_t size = 0;
};

/// A pair of CUDA events on the legacy default stream, which both cuBLAS
/// (its handle's stream is the default one) and gmm's mgpu streams
/// (CU_STREAM_DEFAULT) synchronize with, so they bracket all work of a call.
class EventPair {
public:
  EventPair() = default;
  EventPair(const EventPair &) = delete;
  EventPair &operator=(const EventPair &) = delete;
  ~EventPair() {
    if (start)
      (void)cudaEventDestroy(start);
    if (stop)
      (void)cudaEventDestroy(stop);
  }
  llvm::Error create() {
    if (llvm::Error error = check(cudaEventCreate(&start), "cudaEventCreate"))
      return error;
    return check(cudaEventCreate(&stop), "cudaEventCreate");
  }

  /// Runs `call` `warmup + repeat` times; returns the median milliseconds of
  /// the last `repeat`. `call(i)` is called with the call's index, and
  /// `after(i)` after its stop event (untimed).
  template <typename Call, typename After>
  llvm::Expected<double> time(StringRef what, Call &&call, After &&after) {
    return common.timeCalls([&](unsigned i) -> llvm::Expected<double> {
      if (llvm::Error error = check(cudaEventRecord(start, nullptr),
                                    "cudaEventRecord before " + what))
        return std::move(error);
      if (llvm::Error error = call(i))
        return std::move(error);
      if (llvm::Error error = check(cudaEventRecord(stop, nullptr),
                                    "cudaEventRecord after " + what))
        return std::move(error);
      if (llvm::Error error =
              check(cudaEventSynchronize(stop), "running " + what))
        return std::move(error);
      float elapsed = 0;
      if (llvm::Error error = check(cudaEventElapsedTime(&elapsed, start, stop),
                                    "cudaEventElapsedTime"))
        return std::move(error);
      after(i);
      return elapsed;
    });
  }
  template <typename Call>
  llvm::Expected<double> time(StringRef what, Call &&call) {
    return time(what, std::forward<Call>(call), [](unsigned) {});
  }

private:
  cudaEvent_t start = nullptr, stop = nullptr;
};

//===----------------------------------------------------------------------===//
// The peers
//===----------------------------------------------------------------------===//

/// The problem of one (shape, distribution) pair, in device memory. Row-major
/// C[rows, n] = A[rows, k] B[k, n] is, read column-major, C^T = B^T A^T: a
/// cuBLAS gemm with (m, n, k) = (n, rows, k), "A" = rhs[group] (ld n),
/// "B" = lhs[start:] (ld k) and "C" = out[start:] (ld n), no transposes.
struct Problem {
  Shape shape;
  std::vector<int64_t> sizes, starts;
  const uint16_t *lhs = nullptr, *rhs = nullptr;
};

/// One cublasGemmEx per non-empty group.
llvm::Error runCublasLoop(cublasHandle_t handle, const Problem &p,
                          uint16_t *out) {
  const float alpha = 1, beta = 0;
  const Shape &s = p.shape;
  for (int64_t group = 0; group < s.g; ++group) {
    int64_t rows = p.sizes[group], start = p.starts[group];
    if (rows == 0)
      continue;
    cublasStatus_t status = cublasGemmEx(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, s.n, rows, s.k, &alpha,
        p.rhs + group * s.k * s.n, CUDA_R_16BF, s.n, p.lhs + start * s.k,
        CUDA_R_16BF, s.k, &beta, out + start * s.n, CUDA_R_16BF, s.n,
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (llvm::Error error = check(status, "cublasGemmEx"))
      return error;
  }
  return llvm::Error::success();
}

/// The arguments of one cublasGemmGroupedBatchedEx call: one cuBLAS group of
/// one gemm per non-empty expert. The pointer arrays live in device memory,
/// the rest on the host.
struct GroupedGemm {
  int count = 0;
  std::vector<cublasOperation_t> trans;
  std::vector<int> m, n, k, lda, ldb, ldc, groupSize;
  std::vector<float> alpha, beta;
  DeviceBuffer pointers; // A[count], B[count], C[count]

  llvm::Error prepare(const Problem &p, uint16_t *out) {
    const Shape &s = p.shape;
    std::vector<const void *> host, aPointers, bPointers, cPointers;
    clear();
    for (int64_t group = 0; group < s.g; ++group) {
      int64_t rows = p.sizes[group], start = p.starts[group];
      if (rows == 0)
        continue;
      m.push_back(s.n);
      n.push_back(rows);
      k.push_back(s.k);
      lda.push_back(s.n);
      ldb.push_back(s.k);
      ldc.push_back(s.n);
      aPointers.push_back(p.rhs + group * s.k * s.n);
      bPointers.push_back(p.lhs + start * s.k);
      cPointers.push_back(out + start * s.n);
    }
    count = m.size();
    trans.assign(count, CUBLAS_OP_N);
    groupSize.assign(count, 1);
    alpha.assign(count, 1.0f);
    beta.assign(count, 0.0f);
    llvm::append_range(host, aPointers);
    llvm::append_range(host, bPointers);
    llvm::append_range(host, cPointers);
    size_t bytes = host.size() * sizeof(void *);
    if (llvm::Error error = pointers.allocate(bytes, "the pointer arrays"))
      return error;
    return check(
        cudaMemcpy(pointers.get(), host.data(), bytes, cudaMemcpyHostToDevice),
        "copying the pointer arrays");
  }

  llvm::Error run(cublasHandle_t handle) {
#if GMM_BENCH_HAVE_GROUPED_GEMM
    auto **array = pointers.get<void *>();
    cublasStatus_t status = cublasGemmGroupedBatchedEx(
        handle, trans.data(), trans.data(), m.data(), n.data(), k.data(),
        alpha.data(), array, CUDA_R_16BF, lda.data(), array + count,
        CUDA_R_16BF, ldb.data(), beta.data(), array + 2 * count, CUDA_R_16BF,
        ldc.data(), count, groupSize.data(), CUBLAS_COMPUTE_32F);
    return check(status, "cublasGemmGroupedBatchedEx");
#else
    (void)handle;
    return makeError("cublasGemmGroupedBatchedEx needs cuBLAS 12.5 or later");
#endif
  }

private:
  void clear() {
    count = 0;
    for (auto *v : {&m, &n, &k, &lda, &ldb, &ldc, &groupSize})
      v->clear();
    trans.clear();
    alpha.clear();
    beta.clear();
  }
};

//===----------------------------------------------------------------------===//
// Checking
//===----------------------------------------------------------------------===//

struct Sample {
  int64_t row, column;
  double reference;
};

/// Up to `count` output positions: the first and last row of every
/// non-empty group (random columns), the rest uniformly random; each with
/// the f64 dot product of the bf16 inputs.
std::vector<Sample> makeSamples(const Problem &p,
                                const std::vector<uint16_t> &lhs,
                                const std::vector<uint16_t> &rhs,
                                unsigned count, uint64_t seed) {
  const Shape &s = p.shape;
  Random random(seed ^ 0x5851f42d4c957f2dULL);
  std::vector<Sample> result;
  for (int64_t group = 0; group < s.g && result.size() < count; ++group) {
    if (p.sizes[group] == 0)
      continue;
    int64_t first = p.starts[group], last = first + p.sizes[group] - 1;
    result.push_back({first, int64_t(random.nextBelow(s.n)), 0});
    if (last != first && result.size() < count)
      result.push_back({last, int64_t(random.nextBelow(s.n)), 0});
  }
  while (result.size() < count)
    result.push_back(
        {int64_t(random.nextBelow(s.m)), int64_t(random.nextBelow(s.n)), 0});

  // Which group each sample's row is in (sizes sum to m: every row is in one).
  auto groupOf = [&](int64_t row) {
    int64_t group = std::upper_bound(p.starts.begin(), p.starts.end(), row) -
                    p.starts.begin() - 1;
    while (p.sizes[group] == 0 || row >= p.starts[group] + p.sizes[group])
      ++group;
    return group;
  };
  size_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (size_t i = t; i < result.size(); i += threads) {
        Sample &sample = result[i];
        const uint16_t *a = lhs.data() + sample.row * s.k;
        const uint16_t *b =
            rhs.data() + groupOf(sample.row) * s.k * s.n + sample.column;
        double sum = 0;
        for (int64_t j = 0; j < s.k; ++j)
          sum += double(fromBF16(a[j])) * double(fromBF16(b[j * s.n]));
        sample.reference = sum;
      }
    });
  for (std::thread &worker : workers)
    worker.join();
  return result;
}

/// max|x - reference| / max|reference| over the samples of the [m, n] bf16
/// result described by `desc` (device memory; any offset and strides);
/// infinite when an output is NaN or infinite.
llvm::Expected<double> sampleError(const int64_t *desc,
                                   const std::vector<Sample> &samples,
                                   std::vector<uint16_t> &staging) {
  int64_t offset = desc[2], rows = desc[3], columns = desc[4];
  int64_t rowStride = desc[5], columnStride = desc[6];
  if (rows <= 0 || columns <= 0 || rowStride < 0 || columnStride < 0)
    return makeError(llvm::formatv("unexpected result descriptor: sizes [{0}, "
                                   "{1}], strides [{2}, {3}]",
                                   rows, columns, rowStride, columnStride));
  int64_t span = offset + (rows - 1) * rowStride + (columns - 1) * columnStride;
  staging.resize(span + 1);
  if (llvm::Error error = check(
          cudaMemcpy(staging.data(), reinterpret_cast<void *>(desc[1]),
                     staging.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost),
          "copying a result to the host"))
    return std::move(error);
  ErrorTracker tracker;
  for (const Sample &sample : samples) {
    if (sample.row >= rows || sample.column >= columns)
      return makeError("result is smaller than the problem");
    tracker.add(fromBF16(staging[offset + sample.row * rowStride +
                                 sample.column * columnStride]),
                sample.reference);
  }
  return tracker.relative();
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

struct Row {
  Shape shape;
  Distribution distribution;
  double gmmMs = NAN, loopMs = NAN, groupedMs = NAN;
  double flops = 0;
  double gmmError = 0, loopError = 0, groupedError = 0;
  bool matches = false;

  double tflops(double ms) const { return flops / (ms * 1e-3) * 1e-12; }
};

std::string formatMs(double ms) {
  return std::isnan(ms) ? "n/a" : llvm::formatv("{0:f3}", ms).str();
}
std::string formatRate(double rate) {
  return std::isnan(rate) ? "n/a" : llvm::formatv("{0:f1}", rate).str();
}
std::string formatRatio(double ratio) {
  return std::isnan(ratio) ? "n/a" : llvm::formatv("{0:f2}", ratio).str();
}

void printRow(const Row &row) {
  double gmmRate = row.tflops(row.gmmMs), loopRate = row.tflops(row.loopMs),
         groupedRate = row.tflops(row.groupedMs);
  double worst = std::max({row.gmmError, row.loopError,
                           std::isnan(row.groupedMs) ? 0 : row.groupedError});
  std::string checkText =
      row.matches
          ? llvm::formatv("ok ({0:e1})", worst).str()
          : llvm::formatv("**FAIL** (gmm {0:e1}, loop {1:e1}, grouped {2:e1})",
                          row.gmmError, row.loopError, row.groupedError)
                .str();
  printTableRow(row.shape, row.distribution,
                {formatMs(row.gmmMs), formatRate(gmmRate), formatMs(row.loopMs),
                 formatRate(loopRate), formatMs(row.groupedMs),
                 formatRate(groupedRate), formatRatio(gmmRate / loopRate),
                 formatRatio(gmmRate / groupedRate), checkText});
}

/// "best 512.3 TFLOP/s (51.8% of peak), median 400.1 (40.5%)" over `rates`.
std::string describeRates(std::vector<double> rates) {
  llvm::erase_if(rates, [](double rate) { return std::isnan(rate); });
  if (rates.empty())
    return "n/a";
  double best = *std::max_element(rates.begin(), rates.end());
  double mid = median(rates);
  return llvm::formatv("best {0:f1} TFLOP/s ({1:f1}% of peak), median {2:f1} "
                       "({3:f1}%)",
                       best, 100 * best / peakTflops, mid,
                       100 * mid / peakTflops)
      .str();
}

std::string describeRatios(std::vector<double> ratios) {
  llvm::erase_if(ratios, [](double ratio) { return std::isnan(ratio); });
  if (ratios.empty())
    return "n/a";
  return llvm::formatv("median {0:f2} (min {1:f2}, max {2:f2})", median(ratios),
                       *std::min_element(ratios.begin(), ratios.end()),
                       *std::max_element(ratios.begin(), ratios.end()))
      .str();
}

std::string formatVersion(int version) {
  // CUDA: 1000 * major + 10 * minor.
  return llvm::formatv("{0}.{1}", version / 1000, (version % 1000) / 10).str();
}

//===----------------------------------------------------------------------===//
// The benchmark
//===----------------------------------------------------------------------===//

/// Measures every shape and distribution; `anyMismatch` is set when a check
/// failed.
llvm::Error runBenchmark(const std::vector<Shape> &shapes,
                         const std::vector<Distribution> &distributions,
                         const mlir::gmm::GPUPipelineOptions &pipelineOptions,
                         const GmmCudaDeviceInfo &device, bool &anyMismatch) {
  cublasHandle_t handle = nullptr;
  if (llvm::Error error = check(cublasCreate(&handle), "cublasCreate"))
    return error;
  llvm::scope_exit destroyHandle([&] { cublasDestroy(handle); });
  int cublasVersion = 0;
  if (llvm::Error error =
          check(cublasGetVersion(handle, &cublasVersion), "cublasGetVersion"))
    return error;
  int runtimeVersion = 0;
  (void)cudaRuntimeGetVersion(&runtimeVersion);
  EventPair events;
  if (llvm::Error error = events.create())
    return error;

  llvm::outs() << "# gmm-bench-gpu\n\n"
               << llvm::formatv(
                      "- device 0: {0} ({1}, {2} SMs, {3:f1} GiB), driver {4}, "
                      "CUDA runtime {5}, cuBLAS {6}.{7}.{8}\n",
                      device.name, device.chip(), device.multiProcessorCount,
                      device.totalMemoryBytes / double(1ull << 30),
                      formatVersion(device.driverVersion),
                      formatVersion(runtimeVersion), cublasVersion / 10000,
                      (cublasVersion / 100) % 100, cublasVersion % 100)
               << "- gmm pipeline: cuda (gmm-to-ptx for "
               << pipelineOptions.chip << ", " << pipelineOptions.format;
  if (tileM || tileN || tileK)
    llvm::outs() << llvm::formatv(", tile-m={0} tile-n={1} tile-k={2}",
                                  tileM.getValue(), tileN.getValue(),
                                  tileK.getValue());
  if (pipelineOptions.warpsM || pipelineOptions.warpsN)
    llvm::outs() << llvm::formatv(", warps-m={0} warps-n={1}",
                                  pipelineOptions.warpsM,
                                  pipelineOptions.warpsN);
  if (stages)
    llvm::outs() << llvm::formatv(", stages={0}", pipelineOptions.stages);
  llvm::outs() << "; the rest gmm-configure's heuristic)\n"
               << "- peers: cuBLAS loop (one cublasGemmEx per non-empty "
                  "group), cuBLAS grouped (one cublasGemmGroupedBatchedEx)"
               << (GMM_BENCH_HAVE_GROUPED_GEMM ? "" : " (not in this cuBLAS)")
               << "\n- bf16 inputs and outputs, f32 accumulation; median of "
               << common.repeat << " timed calls after " << common.warmup
               << " warm-up call(s), CUDA events; seed " << common.seed << "\n"
               << "- check: " << samples
               << " sampled outputs of each side against an f64 host "
                  "reference, tolerance "
               << llvm::formatv("{0:e1}", tolerance.getValue()) << "\n\n";
  printTableHeader({"gmm ms", "gmm TFLOP/s", "loop ms", "loop TFLOP/s",
                    "grouped ms", "grouped TFLOP/s", "gmm/loop", "gmm/grouped",
                    "check"});

  std::unique_ptr<MLIRContext> context = createContext();
  JitOptions jitOptions;
  jitOptions.cuda = true;
  PipelineBuilder buildPipeline = [pipelineOptions](OpPassManager &pm) {
    mlir::gmm::buildGPUPipeline(pm, pipelineOptions);
  };

  std::vector<Row> rows;
  for (const Shape &shape : shapes) {
    auto function = compileRaggedDot(*context, shape, "bf16", buildPipeline,
                                     jitOptions, "; generating the inputs");
    if (!function)
      return function.takeError();

    // This shape's buffers; the next shape's are made after these are gone.
    std::vector<uint16_t> hostLhs(shape.m * shape.k);
    std::vector<uint16_t> hostRhs(shape.g * shape.k * shape.n);
    fillRandomBF16(hostLhs, common.seed, 0);
    fillRandomBF16(hostRhs, common.seed, 1);
    DeviceBuffer lhs, rhs, groupSizes, loopOut, groupedOut;
    size_t outBytes = shape.m * shape.n * sizeof(uint16_t);
    for (auto [buffer, bytes, what] :
         {std::make_tuple(&lhs, hostLhs.size() * sizeof(uint16_t), "lhs"),
          std::make_tuple(&rhs, hostRhs.size() * sizeof(uint16_t), "rhs"),
          std::make_tuple(&groupSizes, shape.g * sizeof(int32_t),
                          "group_sizes"),
          std::make_tuple(&loopOut, outBytes, "the cuBLAS loop's result"),
          std::make_tuple(&groupedOut, outBytes, "the cuBLAS grouped result")})
      if (llvm::Error error = buffer->allocate(bytes, what))
        return error;
    if (llvm::Error error =
            check(cudaMemcpy(lhs.get(), hostLhs.data(), lhs.bytes(),
                             cudaMemcpyHostToDevice),
                  "copying lhs to the device"))
      return error;
    if (llvm::Error error =
            check(cudaMemcpy(rhs.get(), hostRhs.data(), rhs.bytes(),
                             cudaMemcpyHostToDevice),
                  "copying rhs to the device"))
      return error;

    std::vector<std::vector<int64_t>> arguments = {
        ::gmm::runner::denseDescriptor(lhs.get(), {shape.m, shape.k}),
        ::gmm::runner::denseDescriptor(rhs.get(), {shape.g, shape.k, shape.n}),
        ::gmm::runner::denseDescriptor(groupSizes.get(), {shape.g})};
    std::vector<uint16_t> staging;

    for (Distribution distribution : distributions) {
      Problem problem{shape,
                      makeSizes(distribution, shape.m, shape.g, common.seed),
                      {},
                      lhs.get<uint16_t>(),
                      rhs.get<uint16_t>()};
      std::vector<int32_t> sizes32;
      int64_t start = 0;
      for (int64_t size : problem.sizes) {
        problem.starts.push_back(start);
        sizes32.push_back(size);
        start += size;
      }
      describeSizes(shape, distribution, problem.sizes);
      if (llvm::Error error =
              check(cudaMemcpy(groupSizes.get(), sizes32.data(),
                               groupSizes.bytes(), cudaMemcpyHostToDevice),
                    "copying group_sizes to the device"))
        return error;
      // NaN (0xffff) everywhere, so that an output a peer misses fails.
      for (DeviceBuffer *out : {&loopOut, &groupedOut})
        if (llvm::Error error =
                check(cudaMemset(out->get(), 0xff, outBytes), "cudaMemset"))
          return error;

      Row row{shape, distribution};
      row.flops = 2.0 * shape.k * shape.n * start;

      // gmm: the result of the first call is kept for the check, the others
      // are freed after their call's stop event.
      std::vector<int64_t> gmmResult;
      void *lastResult = nullptr;
      llvm::scope_exit freeResults([&] {
        if (!gmmResult.empty())
          mgpuMemFree(reinterpret_cast<void *>(gmmResult[0]), nullptr);
        mgpuMemFree(lastResult, nullptr);
      });
      auto gmmMs = events.time(
          "gmm",
          [&](unsigned i) -> llvm::Error {
            auto result = function->get()->invokeOnDescriptors(arguments);
            if (!result)
              return result.takeError();
            if (llvm::Error error = checkGmmRuntime("running gmm"))
              return error;
            if (result->size() != 7)
              return makeError("gmm returned an unexpected descriptor");
            if (i == 0)
              gmmResult = std::move(*result);
            else
              lastResult = reinterpret_cast<void *>((*result)[0]);
            return llvm::Error::success();
          },
          [&](unsigned) {
            mgpuMemFree(lastResult, nullptr);
            lastResult = nullptr;
          });
      if (!gmmMs)
        return makeError(shape.name + " " + toString(distribution) + ": " +
                         llvm::toString(gmmMs.takeError()));
      row.gmmMs = *gmmMs;

      auto loopMs = events.time("the cuBLAS loop", [&](unsigned) {
        return runCublasLoop(handle, problem, loopOut.get<uint16_t>());
      });
      if (!loopMs)
        return makeError(shape.name + " " + toString(distribution) + ": " +
                         llvm::toString(loopMs.takeError()));
      row.loopMs = *loopMs;

      if (GMM_BENCH_HAVE_GROUPED_GEMM) {
        GroupedGemm grouped;
        if (llvm::Error error =
                grouped.prepare(problem, groupedOut.get<uint16_t>()))
          return error;
        auto groupedMs = events.time(
            "cuBLAS grouped", [&](unsigned) { return grouped.run(handle); });
        // A peer that cuBLAS refuses (e.g. CUBLAS_STATUS_NOT_SUPPORTED) is
        // shown as n/a rather than ending the run.
        if (groupedMs)
          row.groupedMs = *groupedMs;
        else
          llvm::errs() << llvm::formatv(
              "[{0}] {1}: cuBLAS grouped failed, shown as n/a: {2}\n",
              shape.name, toString(distribution),
              llvm::toString(groupedMs.takeError()));
      }

      // The check.
      std::vector<Sample> checked =
          makeSamples(problem, hostLhs, hostRhs, samples, common.seed);
      std::vector<int64_t> loopDesc =
          ::gmm::runner::denseDescriptor(loopOut.get(), {shape.m, shape.n});
      std::vector<int64_t> groupedDesc =
          ::gmm::runner::denseDescriptor(groupedOut.get(), {shape.m, shape.n});
      struct Checked {
        const char *name;
        const int64_t *desc;
        double *error;
        bool measured;
      };
      row.matches = true;
      for (const Checked &side :
           {Checked{"gmm", gmmResult.data(), &row.gmmError, true},
            Checked{"cuBLAS loop", loopDesc.data(), &row.loopError, true},
            Checked{"cuBLAS grouped", groupedDesc.data(), &row.groupedError,
                    !std::isnan(row.groupedMs)}}) {
        if (!side.measured)
          continue;
        auto error = sampleError(side.desc, checked, staging);
        if (!error)
          return makeError(llvm::Twine("checking ") + side.name + ": " +
                           llvm::toString(error.takeError()));
        *side.error = *error;
        if (!(*error <= tolerance)) {
          row.matches = false;
          llvm::errs() << llvm::formatv(
              "[{0}] {1}: FAIL: {2} differs from the f64 reference by {3:e2} "
              "relative to max|reference| (tolerance {4:e1})\n",
              shape.name, toString(distribution), side.name, *error,
              tolerance.getValue());
        }
      }
      anyMismatch |= !row.matches;
      printRow(row);
      rows.push_back(row);
    }
  }

  std::vector<double> gmmRates, loopRates, groupedRates, loopRatios,
      groupedRatios;
  for (const Row &row : rows) {
    gmmRates.push_back(row.tflops(row.gmmMs));
    loopRates.push_back(row.tflops(row.loopMs));
    groupedRates.push_back(row.tflops(row.groupedMs));
    loopRatios.push_back(row.loopMs / row.gmmMs);
    groupedRatios.push_back(row.groupedMs / row.gmmMs);
  }
  llvm::outs() << "\n"
               << llvm::formatv("device: {0}; peak: {1:f0} TFLOP/s (H100 SXM "
                                "dense bf16 unless --peak-tflops says "
                                "otherwise)\n",
                                device.name, peakTflops.getValue())
               << "- gmm: " << describeRates(gmmRates) << "\n"
               << "- cuBLAS loop: " << describeRates(loopRates) << "\n"
               << "- cuBLAS grouped: " << describeRates(groupedRates) << "\n"
               << "- gmm/loop (TFLOP/s ratio): " << describeRatios(loopRatios)
               << "\n"
               << "- gmm/grouped (TFLOP/s ratio): "
               << describeRatios(groupedRatios) << "\n";
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(benchCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "gmm-bench-gpu: bf16 gmm.ragged_dot on the GPU against cuBLAS (a "
      "per-group cublasGemmEx loop and cublasGemmGroupedBatchedEx)\n");

  if (common.repeat < 1 || common.warmup < 1)
    return reportError("--repeat and --warmup must be at least 1");
  if (samples < 1)
    return reportError("--samples must be at least 1");
  if (tileM < 0 || tileN < 0 || tileK < 0 || warpsM < 0 || warpsN < 0 ||
      stages < 0)
    return reportError(
        "tile sizes, warp counts and stages must be non-negative");
  if (binaryFormat.getNumOccurrences() && binaryFormat != "isa" &&
      binaryFormat != "bin" && binaryFormat != "fatbin")
    return reportError("--format must be isa, bin or fatbin");
  if (!(peakTflops > 0))
    return reportError("--peak-tflops must be positive");
  auto shapes = common.getShapes();
  if (!shapes)
    return reportError(llvm::toString(shapes.takeError()));
  auto distributions = common.getDistributions();
  if (!distributions)
    return reportError(llvm::toString(distributions.takeError()));

  // Nothing below runs without a GPU.
  std::string why;
  GmmCudaDeviceInfo device;
  if (!gmmCudaAvailable(&why) || !gmmCudaGetDeviceInfo(0, device, &why))
    return reportError("needs a CUDA GPU: " + why);
  if (device.simulated)
    return reportError("needs a real CUDA GPU: " + device.name +
                       " measures no GPU time");
  // Failures of the compiled code become errors rather than aborts.
  gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
  // The runtime API and the compiled code share device 0's primary context.
  if (llvm::Error error = check(cudaSetDevice(0), "cudaSetDevice(0)"))
    return reportError(llvm::toString(std::move(error)));
  if (llvm::Error error = check(cudaFree(nullptr), "initializing CUDA"))
    return reportError(llvm::toString(std::move(error)));

  mlir::gmm::GPUPipelineOptions pipelineOptions;
  pipelineOptions.chip = device.chip();
  if (binaryFormat.getNumOccurrences())
    pipelineOptions.format = binaryFormat;
  pipelineOptions.tileM = tileM;
  pipelineOptions.tileN = tileN;
  pipelineOptions.tileK = tileK;
  if (warpsM)
    pipelineOptions.warpsM = warpsM;
  if (warpsN)
    pipelineOptions.warpsN = warpsN;
  if (stages)
    pipelineOptions.stages = stages;

  bool anyMismatch = false;
  if (llvm::Error error = runBenchmark(*shapes, *distributions, pipelineOptions,
                                       device, anyMismatch))
    return reportError(llvm::toString(std::move(error)));
  if (anyMismatch) {
    llvm::outs() << "\n**FAIL: at least one side's result differs from the "
                    "reference (see stderr); the ratios above do not compare "
                    "equal work.**\n";
    return 1;
  }
  return 0;
}
