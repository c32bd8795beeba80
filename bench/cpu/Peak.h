//===- Peak.h - The machine's FMA peak for the benchmark ------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The f32 and bf16 multiply-add peak of this machine for a number of
// threads, measured by a short register-only kernel (independent chains of
// vector FMAs, no memory traffic): the limit that gmm-bench-cpu puts next
// to every row.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_BENCH_CPU_PEAK_H
#define GMM_BENCH_CPU_PEAK_H

#include <optional>
#include <string>

namespace gmm {
namespace bench {

struct Peak {
  /// GFLOP/s (a multiply-add counts 2).
  double gflops = 0;
  /// The instruction measured, e.g. "vfmadd231ps ymm (AVX2 FMA)".
  std::string instruction;
};

/// f32 peak with `threads` threads, with the widest FMA the CPU has.
Peak measureF32Peak(int threads);

/// bf16 dot-product peak (vdpbf16ps, AVX-512 BF16) with `threads` threads;
/// std::nullopt when the CPU has no bf16 instruction.
std::optional<Peak> measureBF16Peak(int threads);

} // namespace bench
} // namespace gmm

#endif // GMM_BENCH_CPU_PEAK_H
