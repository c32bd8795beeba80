//===- GroupSizes.h - Seeded values and group sizes -------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The generator of seeded test values and the group-size distributions that
// gmm-runner, the differential tests and the benchmarks draw from. Plain
// C++17 with no MLIR or LLVM dependency, so that programs running where
// neither is installed (the GPU benchmark on a GPU machine) draw the same
// sizes.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_REFERENCE_GROUPSIZES_H
#define GMM_REFERENCE_GROUPSIZES_H

#include <cstdint>
#include <vector>

namespace gmm {
namespace reference {

/// A small, portable pseudo-random generator (splitmix64), so that seeded
/// values are the same with every standard library.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, 1), 53 random bits.
  double nextUnit();
  /// Uniform in [0, bound) for bound > 0 (0 otherwise).
  uint64_t nextBelow(uint64_t bound);

private:
  uint64_t state;
};

/// The distributions of `--group-sizes`.
enum class GroupSizeDistribution {
  /// extent / g each; the remainder goes one each to the first groups.
  Uniform,
  /// Weights repeating 13, 5, 0, 2 (so groups 2, 6, 10, ... are empty and,
  /// when g is a multiple of 4, max/mean = 13 / 5 = 2.6); each group gets
  /// floor(extent * w / sum(w)) and the remainder goes one each to the
  /// non-empty groups in order.
  Skewed,
  /// Seeded random non-negative sizes (g - 1 cut points uniform in
  /// [0, extent], sorted).
  Random,
};

/// `numGroups` non-negative sizes that sum to `extent` (numGroups >= 1,
/// extent >= 0). `seed` is used by Random only.
std::vector<int64_t> makeGroupSizes(GroupSizeDistribution distribution,
                                    int64_t extent, int64_t numGroups,
                                    uint64_t seed = 0);

} // namespace reference
} // namespace gmm

#endif // GMM_REFERENCE_GROUPSIZES_H
