//===- GroupSizes.cpp - Seeded values and group sizes ---------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Reference/GroupSizes.h"

#include <algorithm>

using namespace gmm::reference;

uint64_t Random::next() {
  // splitmix64 (Steele, Lea, Flood 2014): small, fast and fully specified.
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double Random::nextUnit() { return (next() >> 11) * 0x1p-53; }

uint64_t Random::nextBelow(uint64_t bound) {
  if (bound == 0)
    return 0;
  // Multiply-shift: unbiased enough for test data and never out of range.
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(next()) * bound) >> 64);
}

std::vector<int64_t>
gmm::reference::makeGroupSizes(GroupSizeDistribution distribution,
                               int64_t extent, int64_t numGroups,
                               uint64_t seed) {
  extent = std::max<int64_t>(extent, 0);
  if (numGroups <= 0)
    return {};
  std::vector<int64_t> sizes(numGroups, 0);
  switch (distribution) {
  case GroupSizeDistribution::Uniform: {
    for (int64_t i = 0; i < numGroups; ++i)
      sizes[i] = extent / numGroups + (i < extent % numGroups ? 1 : 0);
    return sizes;
  }
  case GroupSizeDistribution::Skewed: {
    static const int64_t kPattern[] = {13, 5, 0, 2};
    std::vector<int64_t> weights(numGroups);
    // Integer arithmetic throughout: 128-bit products cannot overflow.
    unsigned __int128 total = 0;
    for (int64_t i = 0; i < numGroups; ++i)
      total += weights[i] = kPattern[i % 4];
    int64_t assigned = 0;
    for (int64_t i = 0; i < numGroups; ++i) {
      sizes[i] = static_cast<int64_t>(static_cast<unsigned __int128>(extent) *
                                      weights[i] / total);
      assigned += sizes[i];
    }
    for (int64_t i = 0, left = extent - assigned; left > 0;
         i = (i + 1) % numGroups) {
      if (weights[i] == 0)
        continue;
      ++sizes[i];
      --left;
    }
    return sizes;
  }
  case GroupSizeDistribution::Random: {
    Random random(seed ^ 0x6a09e667f3bcc909ULL);
    std::vector<int64_t> cuts(numGroups - 1);
    for (int64_t &cut : cuts)
      cut = static_cast<int64_t>(random.nextBelow(extent + 1));
    std::sort(cuts.begin(), cuts.end());
    int64_t previous = 0;
    for (int64_t i = 0; i + 1 < numGroups; ++i) {
      sizes[i] = cuts[i] - previous;
      previous = cuts[i];
    }
    sizes[numGroups - 1] = extent - previous;
    return sizes;
  }
  }
  return sizes;
}
