//===- RandomConfig.h - random ragged dot problems --------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Generates random, valid gmm.ragged_dot problems (dimension numbers in any
// layout, all modes, batch dims, batched group sizes, group offsets, init,
// dynamic dims, every element type, adversarial group sizes) together with
// their inputs, for the differential test against the C++ reference.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_TEST_DIFFERENTIAL_RANDOMCONFIG_H
#define GMM_TEST_DIFFERENTIAL_RANDOMCONFIG_H

#include "gmm/Reference/RaggedDot.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace gmm {
namespace difftest {

struct Config {
  int mode = 1;
  reference::DimensionNumbers dims;
  std::vector<int64_t> lhsShape, rhsShape, groupSizesShape, resultShape;
  /// Which operand dims are written as `?` in the function signature.
  std::vector<bool> lhsDynamic, rhsDynamic;
  reference::ElementType inputType = reference::ElementType::F32;
  reference::ElementType resultType = reference::ElementType::F32;
  bool groupSizesI64 = false;
  std::optional<int64_t> groupOffset;
  bool offsetIsVector = false;
  bool hasInit = false;

  reference::Tensor lhs, rhs, init;
  reference::IndexTensor groupSizes;

  /// Length of the contraction (product of the contracting dims).
  int64_t contractionLength() const;
  /// A one-line description for failure reports.
  std::string describe() const;
  /// The MLIR text of `func.func @<name>` computing this problem.
  std::string toMLIR(const std::string &name) const;
};

/// Draws a random valid problem with dims of at most `maxDim` elements;
/// with `inputType`, its operands are of that type (the other draws are
/// the same as without it).
Config
randomConfig(std::mt19937_64 &rng, int64_t maxDim,
             std::optional<reference::ElementType> inputType = std::nullopt);

/// Which problems drawConfig draws.
enum class ConfigFamily {
  /// Any valid problem (randomConfig).
  Any,
  /// The problems the Hopper (wgmma) kernel takes: mode 1, lhs [m, k] and
  /// rhs [g, k, n] of bf16 or f16, static sizes, k and n multiples of 8
  /// (rows of whole 16-byte chunks), results f32, bf16 or f16; one in ten
  /// has an init (which keeps the sm_80 kernel), one in four a group
  /// offset.
  Hopper
};

/// Draws a random problem of the Hopper family with m, k and n of at most
/// `maxDim`.
Config hopperConfig(std::mt19937_64 &rng, int64_t maxDim,
                    std::optional<reference::ElementType> inputType);

/// Configuration `index` of the stream `seed`: randomConfig() on a
/// generator seeded from both, drawn again while it has f64 operands or
/// results when `gpuShaped` (the GPU path has no f64 kernels), and, with
/// `adversarial`, extreme group sizes (and group offsets in modes 1 and 2):
/// negative, INT32/INT64 extremes, sums that overflow or wrap, all the mass
/// in the last group; consecutive indices cycle through the families.
/// gmm-difftest and gmm-aot-difftest draw the same configurations.
Config drawConfig(uint64_t seed, int64_t index, int64_t maxDim,
                  std::optional<reference::ElementType> inputType,
                  bool gpuShaped, bool adversarial,
                  ConfigFamily family = ConfigFamily::Any);

/// Compares `got` with the reference result of `c` within the per-dtype
/// tolerance: an empty string when they agree, else what differs.
std::string checkResult(const Config &c, const reference::Tensor &got);

} // namespace difftest
} // namespace gmm

#endif // GMM_TEST_DIFFERENTIAL_RANDOMCONFIG_H
