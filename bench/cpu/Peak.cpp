//===- Peak.cpp - The machine's FMA peak for the benchmark ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Each kernel keeps kChains independent accumulators in registers (enough
// to cover the FMA latency times the FMA ports of current x86 cores) and
// runs `iterations` rounds of one FMA per chain. The kernels are compiled
// for their instruction set with target attributes and chosen at run time,
// so the benchmark itself stays built for the baseline x86-64.
//
//===----------------------------------------------------------------------===//

#include "Peak.h"

#include "gmm/Support/X86Peak.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

constexpr int kChains = gmm::support::kPeakChains;
constexpr uint64_t kIterations = 20'000'000;

/// Keeps the kernels' results alive.
std::atomic<float> sink{0};

#if defined(__x86_64__)
double fmaAvx512(uint64_t iterations) {
  sink = sink + gmm::support::fmaAvx512Rounds(iterations);
  return 2.0 * 16 * kChains * double(iterations);
}

__attribute__((target("avx2,fma"))) double fmaAvx2(uint64_t iterations) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm256_set1_ps(1.0f + c * 1e-3f);
  __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (uint64_t i = 0; i < iterations; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  float lanes[8], total = 0;
  for (int c = 0; c < kChains; ++c) {
    _mm256_storeu_ps(lanes, acc[c]);
    for (float lane : lanes)
      total += lane;
  }
  sink = sink + total;
  return 2.0 * 8 * kChains * double(iterations);
}

double dotBF16Avx512(uint64_t iterations) {
  sink = sink + gmm::support::dotBF16Avx512Rounds(iterations);
  // 32 bf16 products per instruction, each a multiply and an add.
  return 2.0 * 32 * kChains * double(iterations);
}
#endif

/// Scalar-width fallback: the compiler's baseline vectors (SSE2).
double fmaBaseline(uint64_t iterations) {
  typedef float v4 __attribute__((vector_size(16)));
  v4 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = v4{1.0f, 1.0f, 1.0f, 1.0f} + c * 1e-3f;
  v4 a = {0.999999f, 0.999999f, 0.999999f, 0.999999f};
  v4 b = {1e-7f, 1e-7f, 1e-7f, 1e-7f};
  for (uint64_t i = 0; i < iterations; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = acc[c] * a + b;
  float total = 0;
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < 4; ++l)
      total += acc[c][l];
  sink = sink + total;
  return 2.0 * 4 * kChains * double(iterations);
}

/// Runs `kernel` on `threads` threads at once; the best of three rounds, in
/// GFLOP/s.
double measure(const std::function<double(uint64_t)> &kernel, int threads) {
  threads = std::max(threads, 1);
  // One short round first (frequency ramp-up, page faults of the stacks).
  kernel(kIterations / 20);
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<double> flops(threads, 0);
    std::vector<std::thread> workers;
    auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] { flops[t] = kernel(kIterations); });
    for (std::thread &worker : workers)
      worker.join();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double total = 0;
    for (double f : flops)
      total += f;
    best = std::max(best, total / seconds * 1e-9);
  }
  return best;
}

} // namespace

gmm::bench::Peak gmm::bench::measureF32Peak(int threads) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return {measure(fmaAvx512, threads), "vfmadd231ps zmm (AVX-512F)"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {measure(fmaAvx2, threads), "vfmadd231ps ymm (AVX2 + FMA)"};
#endif
  return {measure(fmaBaseline, threads), "mulps + addps xmm (baseline)"};
}

std::optional<gmm::bench::Peak> gmm::bench::measureBF16Peak(int threads) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bf16"))
    return Peak{measure(dotBF16Avx512, threads),
                "vdpbf16ps zmm (AVX-512 BF16)"};
#endif
  return std::nullopt;
}
