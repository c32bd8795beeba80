//===- X86Peak.h - Register-only kernels of one x86 instruction -*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Rounds of one 512-bit multiply-add instruction on kPeakChains independent
// accumulators, no memory traffic: how fast the instruction runs, and
// nothing else. gmm-configure compares vdpbf16ps with f32 FMAs on a CPU it
// does not know (hostPrefersBF16Dot); gmm-bench-cpu prints both peaks.
// Each function is compiled for its instruction set with a target
// attribute, so its callers stay built for the baseline x86-64 and must
// check the CPU's features first.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_SUPPORT_X86PEAK_H
#define GMM_SUPPORT_X86PEAK_H

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>

namespace gmm {
namespace support {

/// Independent accumulators: enough to cover the latency of a multiply-add
/// on every port of current x86 cores.
constexpr int kPeakChains = 12;

/// `rounds` rounds of vfmadd231ps zmm: 2 * 16 * kPeakChains * rounds flops.
/// Returns the accumulators' sum (which keeps the rounds from being
/// optimized away).
__attribute__((target("avx512f"))) inline float
fmaAvx512Rounds(uint64_t rounds) {
  __m512 acc[kPeakChains];
  for (int c = 0; c < kPeakChains; ++c)
    acc[c] = _mm512_set1_ps(1.0f + c * 1e-3f);
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (uint64_t i = 0; i < rounds; ++i)
    for (int c = 0; c < kPeakChains; ++c)
      acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  float sum = 0;
  for (__m512 v : acc)
    sum += _mm512_reduce_add_ps(v);
  return sum;
}

/// `rounds` rounds of vdpbf16ps zmm (32 bf16 products, each a multiply and
/// an add): 2 * 32 * kPeakChains * rounds flops. Returns the sum.
__attribute__((target("avx512f,avx512bf16"))) inline float
dotBF16Avx512Rounds(uint64_t rounds) {
  __m512 acc[kPeakChains];
  for (int c = 0; c < kPeakChains; ++c)
    acc[c] = _mm512_set1_ps(c * 1e-3f);
  __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80); // 1.0
  __m512bh b = (__m512bh)_mm512_set1_epi16(0x3380); // 2^-24
  for (uint64_t i = 0; i < rounds; ++i)
    for (int c = 0; c < kPeakChains; ++c)
      acc[c] = _mm512_dpbf16_ps(acc[c], a, b);
  float sum = 0;
  for (__m512 v : acc)
    sum += _mm512_reduce_add_ps(v);
  return sum;
}

} // namespace support
} // namespace gmm
#endif // defined(__x86_64__)

#endif // GMM_SUPPORT_X86PEAK_H
