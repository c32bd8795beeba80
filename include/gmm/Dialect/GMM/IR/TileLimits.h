//===- TileLimits.h - bounds on gmm's tile sizes ----------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The largest tiles each target takes, part of a kernel configuration's
// rules (KernelConfigRules.h): every product of tile sizes that the tile
// program and the kernels compute then fits in int64_t.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_TILELIMITS_H
#define GMM_DIALECT_GMM_IR_TILELIMITS_H

#include <cstdint>
#include <string>

namespace mlir {
namespace gmm {

/// A tile's bounds: accumulators (tile_m * tile_n) and the contraction.
struct TileLimits {
  /// What the tile is for, in diagnostics ("the CPU micro-kernel").
  const char *what;
  int64_t maxAccumulators;
  /// The largest tile_k, or 0 for none of its own.
  int64_t maxStep;
  /// The largest tile_m * tile_n * tile_k, or 0 for none.
  int64_t maxMultiplyAdds;
  /// The largest tile_m, tile_n and tile_k each, or 0 for none of its own.
  int64_t maxSize;

  /// The largest tile_m or tile_n alone.
  int64_t maxSide() const { return maxSize ? maxSize : maxAccumulators; }

  /// Whether m x n x k (each positive) is within the bounds; the tests
  /// divide rather than multiply, so that no size can overflow them.
  bool fits(int64_t m, int64_t n, int64_t k) const {
    if (m <= 0 || n <= 0 || k <= 0 || m > maxAccumulators ||
        n > maxAccumulators / m)
      return false;
    if ((maxStep && k > maxStep) ||
        (maxSize && (m > maxSize || n > maxSize || k > maxSize)))
      return false;
    return !maxMultiplyAdds || k <= maxMultiplyAdds / (m * n);
  }

  /// The bounds in words, for diagnostics: "at most 4096 accumulators,
  /// tile_m * tile_n, and 32768 multiply-adds per step, tile_m * tile_n *
  /// tile_k".
  std::string describe() const {
    std::string text = "at most " + std::to_string(maxAccumulators) +
                       " accumulators, tile_m * tile_n, and ";
    if (maxSize)
      text = "tile sizes of at most " + std::to_string(maxSize) + ", " + text;
    if (maxStep)
      return text + "k steps of at most " + std::to_string(maxStep);
    return text + std::to_string(maxMultiplyAdds) +
           " multiply-adds per step, tile_m * tile_n * tile_k";
  }
};

/// The CPU keeps a visit's tile_m x tile_n accumulators and its packed
/// tile_k x tile_n rhs block (and, in mode 2, tile_m x tile_k lhs block) in
/// buffers of its own: at most 4 MiB of accumulators and 64 MiB of panels
/// per visit of f32.
constexpr TileLimits kCPUTileLimits = {"the CPU cache tiles", 1 << 20, 4096, 0,
                                       4096};
/// A CUDA block keeps its accumulators in the registers of at most 1024
/// threads and stages k steps of both operands in shared memory
/// (gmm-gpu-promote-operands checks the exact fit within these bounds).
constexpr TileLimits kGPUTileLimits = {"a CUDA block", 65536, 1024, 0, 0};

/// The largest CPU register block (micro-m x micro-n) the options take: the
/// micro-kernel unrolls its rows, and LLVM splits a row into vector
/// registers.
constexpr int64_t kMaxRegisterRows = 64, kMaxRegisterLanes = 256;

/// The f32 lanes of one `vdpbf16ps` (512 bits) of the bf16_dot
/// micro-kernel, which takes register blocks of whole instructions.
constexpr int64_t kBF16DotLanes = 16;

/// A CUDA block has at most 1024 threads: 32 warps.
constexpr int64_t kMaxWarpsPerBlock = 32;

} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_IR_TILELIMITS_H
