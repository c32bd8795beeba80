//===- GMMAttrs.h - gmm attributes ------------------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_GMMATTRS_H
#define GMM_DIALECT_GMM_IR_GMMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include <optional>

namespace mlir {
namespace gmm {
/// What a ragged dot is compiled for.
enum class KernelTarget : uint8_t { CPU, GPU };

/// "cpu" or "gpu".
StringRef stringifyKernelTarget(KernelTarget target);

/// The CPU's micro-kernel: how a register block multiplies.
enum class MicroKernel : uint8_t {
  /// The operands are packed in the accumulator type; one broadcast lhs
  /// element times one packed rhs row per contraction step (FMA).
  FMA,
  /// bf16 operands stay bf16, packed as pairs of contraction steps; one
  /// AVX512-BF16 `vdpbf16ps` adds two steps' products per lane.
  BF16Dot
};

/// "fma" or "bf16_dot".
StringRef stringifyMicroKernel(MicroKernel kernel);

/// What the pipelines' `micro-kernel` option asks for: the heuristic's
/// choice, or one micro-kernel for every ragged dot it applies to.
enum class MicroKernelOption : uint8_t { Auto, FMA, BF16Dot };

/// The GPU's matrix instruction: which tile kernel a ragged dot gets.
enum class GPUMma : uint8_t {
  /// The sm_80 design: warp-level mma.sync fed by ldmatrix from cp.async
  /// stages (every chip from sm_80).
  MmaSync,
  /// The Hopper design: warpgroup-level wgmma.mma_async reading
  /// TMA-staged, 128-byte-swizzled shared memory (sm_90a).
  Wgmma
};

/// "mma_sync" or "wgmma".
StringRef stringifyGPUMma(GPUMma mma);

/// What the pipelines' `mma` option asks for: the heuristic's choice, or
/// one matrix instruction for every ragged dot.
enum class GPUMmaOption : uint8_t { Auto, MmaSync, Wgmma };
} // namespace gmm
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "gmm/Dialect/GMM/IR/GMMAttrs.h.inc"

#endif // GMM_DIALECT_GMM_IR_GMMATTRS_H
