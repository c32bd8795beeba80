//===- RaggedDotTest.cpp - The plain C++ ragged dot reference -------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Every expected value below was worked out by hand from the semantics in the
// design notes, with small integers so that all arithmetic is exact.
//
//===----------------------------------------------------------------------===//

#include "gmm/Reference/RaggedDot.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace gmm::reference;

namespace {

using Bounds = std::vector<std::pair<int64_t, int64_t>>;
using Shape = std::vector<int64_t>;
using Values = std::vector<double>;

const int64_t kMax = std::numeric_limits<int64_t>::max();
const int64_t kMin = std::numeric_limits<int64_t>::min();

DimensionNumbers makeDims(Shape lhsBatching, Shape rhsBatching,
                          Shape lhsContracting, Shape rhsContracting,
                          Shape lhsRagged, Shape rhsGroup) {
  DimensionNumbers dims;
  dims.lhsBatching = std::move(lhsBatching);
  dims.rhsBatching = std::move(rhsBatching);
  dims.lhsContracting = std::move(lhsContracting);
  dims.rhsContracting = std::move(rhsContracting);
  dims.lhsRagged = std::move(lhsRagged);
  dims.rhsGroup = std::move(rhsGroup);
  return dims;
}

/// The plain mode 1 layout: lhs [m, k], rhs [g, k, n].
DimensionNumbers mode1Dims() { return makeDims({}, {}, {1}, {1}, {0}, {0}); }

/// The plain mode 2 layout: lhs [m, k], rhs [k, n].
DimensionNumbers mode2Dims() { return makeDims({}, {}, {1}, {0}, {1}, {}); }

Bounds bounds(std::vector<int64_t> sizes, int64_t extent) {
  return groupBounds(sizes.data(), static_cast<int64_t>(sizes.size()), extent);
}

/// Runs raggedDot, expecting success, and returns the result data.
Values run(const DimensionNumbers &dims, const Tensor &lhs, const Tensor &rhs,
           const IndexTensor &sizes, const Shape &resultShape,
           std::optional<int64_t> offset = std::nullopt,
           const Tensor *init = nullptr,
           ElementType resultType = ElementType::F64) {
  Tensor result;
  std::string error = raggedDot(dims, lhs, rhs, sizes, offset, init,
                                resultShape, resultType, result);
  EXPECT_EQ(error, "");
  EXPECT_EQ(result.shape, resultShape);
  return result.data;
}

/// Runs raggedDot, expecting failure, and returns the message.
std::string fail(const DimensionNumbers &dims, const Tensor &lhs,
                 const Tensor &rhs, const IndexTensor &sizes,
                 const Shape &resultShape,
                 std::optional<int64_t> offset = std::nullopt,
                 const Tensor *init = nullptr) {
  Tensor result{{7}, {42}};
  std::string error = raggedDot(dims, lhs, rhs, sizes, offset, init,
                                resultShape, ElementType::F32, result);
  EXPECT_NE(error, "");
  EXPECT_EQ(error.find('\n'), std::string::npos);
  // A failed call leaves the result alone.
  EXPECT_EQ(result.shape, Shape{7});
  EXPECT_EQ(result.data, Values{42});
  return error;
}

// lhs [4, 2] rows (1 2) (3 4) (5 6) (7 8).
const Tensor kLhs4x2{{4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}};
// rhs [2, 2, 2]: group 0 is the identity, group 1 is B = (1 1) (0 2).
// Rows times B: (1 2) -> (1 5), (3 4) -> (3 11), (5 6) -> (5 17),
// (7 8) -> (7 23).
const Tensor kRhsIdB{{2, 2, 2}, {1, 0, 0, 1, 1, 1, 0, 2}};

/// Deterministic values in [-1, 1) with few significant bits, so that
/// sums of their products in double are exact.
std::vector<double> pattern(size_t count, unsigned seed) {
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] =
        static_cast<double>(
            static_cast<int>((i * 2654435761u + seed * 40503u) % 255) - 127) /
        128;
  return values;
}

//===----------------------------------------------------------------------===//
// groupBounds
//===----------------------------------------------------------------------===//

TEST(ReferenceGroupBoundsTest, Basic) {
  EXPECT_EQ(bounds({3, 0, 5}, 8), (Bounds{{0, 3}, {3, 3}, {3, 8}}));
  EXPECT_EQ(bounds({}, 8), Bounds{});
  EXPECT_EQ(groupBounds(nullptr, 0, 8), Bounds{});
  EXPECT_EQ(groupBounds(nullptr, -3, 8), Bounds{});
}

TEST(ReferenceGroupBoundsTest, NegativeSizesCountAsZero) {
  EXPECT_EQ(bounds({2, -4, 3}, 10), (Bounds{{0, 2}, {2, 2}, {2, 5}}));
  EXPECT_EQ(bounds({-1, kMin, 4}, 10), (Bounds{{0, 0}, {0, 0}, {0, 4}}));
}

TEST(ReferenceGroupBoundsTest, SumBelowExtent) {
  EXPECT_EQ(bounds({1, 2}, 10), (Bounds{{0, 1}, {1, 3}}));
}

TEST(ReferenceGroupBoundsTest, SumAboveExtentIsCut) {
  EXPECT_EQ(bounds({4, 5, 3}, 6), (Bounds{{0, 4}, {4, 6}, {6, 6}}));
  EXPECT_EQ(bounds({7, 1}, 6), (Bounds{{0, 6}, {6, 6}}));
}

TEST(ReferenceGroupBoundsTest, EmptyOrNegativeExtent) {
  EXPECT_EQ(bounds({2, 3}, 0), (Bounds{{0, 0}, {0, 0}}));
  EXPECT_EQ(bounds({2, 3}, -5), (Bounds{{0, 0}, {0, 0}}));
}

TEST(ReferenceGroupBoundsTest, HugeSizesSaturate) {
  EXPECT_EQ(bounds({kMax, kMax, 1}, 5), (Bounds{{0, 5}, {5, 5}, {5, 5}}));
  // Prefix sums overflow int64 long before the last group.
  EXPECT_EQ(bounds({2, kMax, kMax}, kMax),
            (Bounds{{0, 2}, {2, kMax}, {kMax, kMax}}));
  EXPECT_EQ(bounds({kMax - 1, 5}, kMax),
            (Bounds{{0, kMax - 1}, {kMax - 1, kMax}}));
  EXPECT_EQ(bounds({kMax, -1, kMax}, 3), (Bounds{{0, 3}, {3, 3}, {3, 3}}));
}

TEST(ReferenceNumElementsTest, Basic) {
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(numElements({2, 0, 4}), 0);
  EXPECT_EQ(numElements({kMax, kMax, 0}), 0);
  EXPECT_EQ(numElements({2, -1}), -1);
  EXPECT_EQ(numElements({kMax, 2}), -1);
}

//===----------------------------------------------------------------------===//
// Mode 1: ragged free dimension.
//===----------------------------------------------------------------------===//

TEST(ReferenceMode1Test, SmallExample) {
  // Sizes [1, 3]: row 0 uses the identity, rows 1..3 use B.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {1, 3}}, {4, 2}),
            (Values{1, 2, 3, 11, 5, 17, 7, 23}));
  // Sizes [3, 1]: rows 0..2 use the identity, row 3 uses B.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {3, 1}}, {4, 2}),
            (Values{1, 2, 3, 4, 5, 6, 7, 23}));
  // An empty first group: every row uses B.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {0, 4}}, {4, 2}),
            (Values{1, 5, 3, 11, 5, 17, 7, 23}));
}

TEST(ReferenceMode1Test, UncoveredRowsAreZero) {
  // Sizes [1, 1] cover rows 0 and 1 only.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {1, 1}}, {4, 2}),
            (Values{1, 2, 3, 11, 0, 0, 0, 0}));
  // Negative sizes cover nothing.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {-2, 1}}, {4, 2}),
            (Values{1, 5, 0, 0, 0, 0, 0, 0}));
  // Oversized groups are cut at m.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {2, kMax}}, {4, 2}),
            (Values{1, 2, 3, 4, 5, 17, 7, 23}));
}

TEST(ReferenceMode1Test, UncoveredRowsKeepInit) {
  Tensor init{{4, 2}, {10, 20, 30, 40, 50, 60, 70, 80}};
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {1, 1}}, {4, 2},
                std::nullopt, &init),
            (Values{11, 22, 33, 51, 50, 60, 70, 80}));
}

TEST(ReferenceMode1Test, GroupOffset) {
  // Three global groups: group 0 = row 0, group 1 = rows 1..2, group 2 =
  // row 3.
  IndexTensor sizes{{3}, {1, 2, 1}};
  // One local group (B) at offset 1: only rows 1..2 are computed.
  Tensor rhsB{{1, 2, 2}, {1, 1, 0, 2}};
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, rhsB, sizes, {4, 2}, 1),
            (Values{0, 0, 3, 11, 5, 17, 0, 0}));
  // Two local groups (I, B) at offset 2: global group 2 uses I; global
  // group 3 does not exist.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, sizes, {4, 2}, 2),
            (Values{0, 0, 0, 0, 0, 0, 7, 8}));
  // Offset -1: local group 1 (B) is global group 0, local group 0 would be
  // global group -1.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, sizes, {4, 2}, -1),
            (Values{1, 5, 0, 0, 0, 0, 0, 0}));
  // Offset 0 with two local groups: groups 0 and 1; group 2 is not local.
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, sizes, {4, 2}, 0),
            (Values{1, 2, 3, 11, 5, 17, 0, 0}));
  // Offsets past every group compute nothing.
  for (int64_t offset : {int64_t(3), int64_t(-2), kMax, kMin})
    EXPECT_EQ(run(mode1Dims(), kLhs4x2, kRhsIdB, sizes, {4, 2}, offset),
              (Values{0, 0, 0, 0, 0, 0, 0, 0}))
        << "offset " << offset;
  // Uncovered rows keep init.
  Tensor init{{4, 2}, {1, 1, 1, 1, 1, 1, 1, 1}};
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, rhsB, sizes, {4, 2}, 1, &init),
            (Values{1, 1, 4, 12, 6, 18, 1, 1}));
}

TEST(ReferenceMode1Test, ZeroGroups) {
  Tensor rhs{{0, 2, 2}, {}};
  EXPECT_EQ(run(mode1Dims(), kLhs4x2, rhs, {{0}, {}}, {4, 2}),
            (Values{0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(ReferenceMode1Test, EmptyContraction) {
  // k = 0: every covered element is an empty sum.
  Tensor lhs{{2, 0}, {}};
  Tensor rhs{{1, 0, 3}, {}};
  EXPECT_EQ(run(mode1Dims(), lhs, rhs, {{1}, {2}}, {2, 3}),
            (Values{0, 0, 0, 0, 0, 0}));
  Tensor init{{2, 3}, {1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(run(mode1Dims(), lhs, rhs, {{1}, {2}}, {2, 3}, std::nullopt, &init),
            (Values{1, 2, 3, 4, 5, 6}));
}

TEST(ReferenceMode1Test, HugeButEmptyShapes) {
  // Sizes whose products overflow int64 are fine as long as some size is 0.
  Tensor lhs{{0, kMax}, {}};
  Tensor rhs{{1, kMax, 0}, {}};
  EXPECT_EQ(run(mode1Dims(), lhs, rhs, {{1}, {kMax}}, {0, 0}), Values{});
}

TEST(ReferenceMode1Test, TransposedRhs) {
  // rhs [g, n, k]: group 0 is I^T = I, group 1 is B^T = (1 0) (1 2).
  Tensor rhs{{2, 2, 2}, {1, 0, 0, 1, 1, 0, 1, 2}};
  EXPECT_EQ(run(makeDims({}, {}, {1}, {2}, {0}, {0}), kLhs4x2, rhs,
                {{2}, {1, 3}}, {4, 2}),
            (Values{1, 2, 3, 11, 5, 17, 7, 23}));
}

TEST(ReferenceMode1Test, GroupDimensionInTheMiddle) {
  // rhs [k, g, n]: rhs[k][0][n] = I[k][n], rhs[k][1][n] = B[k][n].
  Tensor rhs{{2, 2, 2}, {1, 0, 1, 1, 0, 1, 0, 2}};
  EXPECT_EQ(run(makeDims({}, {}, {1}, {0}, {0}, {1}), kLhs4x2, rhs,
                {{2}, {1, 3}}, {4, 2}),
            (Values{1, 2, 3, 11, 5, 17, 7, 23}));
}

TEST(ReferenceMode1Test, BatchedGroupSizes) {
  // lhs [b=2, m=3, k=1], rhs [b=2, g=2, k=1, n=1].
  DimensionNumbers dims = makeDims({0}, {0}, {2}, {2}, {1}, {1});
  Tensor lhs{{2, 3, 1}, {1, 2, 3, 4, 5, 6}};
  Tensor rhs{{2, 2, 1, 1}, {10, 100, 1000, 10000}};
  // Batch 0 sizes [1, 2], batch 1 sizes [3, 0].
  EXPECT_EQ(run(dims, lhs, rhs, {{2, 2}, {1, 2, 3, 0}}, {2, 3, 1}),
            (Values{10, 200, 300, 4000, 5000, 6000}));
  // Broadcast sizes [1, 2] apply to both batches.
  EXPECT_EQ(run(dims, lhs, rhs, {{2}, {1, 2}}, {2, 3, 1}),
            (Values{10, 200, 300, 4000, 50000, 60000}));
}

TEST(ReferenceMode1Test, GroupSizesPrefixFromFreeDimension) {
  // lhs [a=2, m=3, k=1], ragged m; the free dim a comes before it, so
  // group_sizes may be [2, g]. rhs [g=2, k=1, n=1].
  DimensionNumbers dims = makeDims({}, {}, {2}, {1}, {1}, {0});
  Tensor lhs{{2, 3, 1}, {1, 2, 3, 4, 5, 6}};
  Tensor rhs{{2, 1, 1}, {10, 100}};
  // a = 0: sizes [3, 0]; a = 1: sizes [1, 1] (row 2 uncovered).
  EXPECT_EQ(run(dims, lhs, rhs, {{2, 2}, {3, 0, 1, 1}}, {2, 3, 1}),
            (Values{10, 20, 30, 40, 500, 0}));
}

TEST(ReferenceMode1Test, BatchAfterFreeDimensions) {
  // lhs [m=2, b=2, k=1] with the batching dim after the ragged one;
  // rhs [b=2, g=2, k=1, n=1]. Result [b, m, n].
  DimensionNumbers dims = makeDims({1}, {0}, {2}, {2}, {0}, {1});
  Tensor lhs{{2, 2, 1}, {1, 2, 3, 4}}; // lhs[m][b]
  Tensor rhs{{2, 2, 1, 1}, {10, 100, 1000, 10000}};
  // Batch 0 sizes [1, 1]: m0 -> g0, m1 -> g1. Batch 1 sizes [0, 2]: all g1.
  // b0: lhs[0][0] = 1 -> 10, lhs[1][0] = 3 -> 300.
  // b1: lhs[0][1] = 2 -> 20000, lhs[1][1] = 4 -> 40000.
  EXPECT_EQ(run(dims, lhs, rhs, {{2, 2}, {1, 1, 0, 2}}, {2, 2, 1}),
            (Values{10, 300, 20000, 40000}));
}

TEST(ReferenceMode1Test, RoundsResult) {
  // lhs [4, 1] times a single group holding 1.
  Tensor lhs{{4, 1}, {257, 259, 2049, 2051}};
  Tensor rhs{{1, 1, 1}, {1}};
  IndexTensor sizes{{1}, {4}};
  EXPECT_EQ(run(mode1Dims(), lhs, rhs, sizes, {4, 1}, std::nullopt, nullptr,
                ElementType::BF16),
            (Values{256, 260, 2048, 2048}));
  EXPECT_EQ(run(mode1Dims(), lhs, rhs, sizes, {4, 1}, std::nullopt, nullptr,
                ElementType::F16),
            (Values{257, 259, 2048, 2052}));
  Tensor big{{2, 1}, {65519, 65520}};
  Values f16 = run(mode1Dims(), big, rhs, {{1}, {2}}, {2, 1}, std::nullopt,
                   nullptr, ElementType::F16);
  EXPECT_EQ(f16[0], 65504);
  EXPECT_EQ(f16[1], std::numeric_limits<double>::infinity());
  // init is added before the one rounding: 256 + 1 * 3 = 259 -> 260.
  Tensor one{{1, 1}, {1}};
  Tensor three{{1, 1, 1}, {3}};
  Tensor init{{1, 1}, {256}};
  EXPECT_EQ(run(mode1Dims(), one, three, {{1}, {1}}, {1, 1}, std::nullopt,
                &init, ElementType::BF16),
            (Values{260}));
  // f32: the sum 1 + 2^-24 ties to 1. lhs [k=2, m=1], rhs [g=1, k=2, n=1].
  Tensor tiny{{2, 1}, {1, std::ldexp(1.0, -24)}};
  Tensor ones{{1, 2, 1}, {1, 1}};
  EXPECT_EQ(run(makeDims({}, {}, {0}, {1}, {1}, {0}), tiny, ones, {{1}, {1}},
                {1, 1}, std::nullopt, nullptr, ElementType::F32),
            (Values{1}));
}

//===----------------------------------------------------------------------===//
// Mode 2: ragged contracting dimension.
//===----------------------------------------------------------------------===//

// lhs [2, 4] rows (1 2 3 4) (5 6 7 8); rhs [4, 1] = (1 10 100 1000).
const Tensor kLhs2x4{{2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}};
const Tensor kRhs4x1{{4, 1}, {1, 10, 100, 1000}};

// Problems large enough to run on threads in blocks (at least 2^22
// products) give what the definition gives element by element: the plain
// triple loop below, with uncovered rows (groups of 100, 0 and 150 of 300
// rows) zero. The values' products and sums are exact in double, and the
// f32 result rounds the same way.
TEST(ReferenceMode1Test, ThreadedBlocksMatchTheDefinition) {
  const int64_t m = 300, k = 70, n = 203, g = 3;
  Tensor lhs{{m, k}, pattern(m * k, 1)};
  Tensor rhs{{g, k, n}, pattern(g * k * n, 2)};
  IndexTensor sizes{{g}, {100, 0, 150}};
  std::vector<double> progress;
  Tensor result;
  ASSERT_EQ(raggedDot(mode1Dims(), lhs, rhs, sizes, std::nullopt, nullptr,
                      {m, n}, ElementType::F32, result,
                      [&](double done) { progress.push_back(done); }),
            "");
  for (int64_t i = 0; i < m; ++i) {
    int64_t group = i < 100 ? 0 : i < 250 ? 2 : -1;
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      if (group >= 0)
        for (int64_t t = 0; t < k; ++t)
          sum += lhs.data[i * k + t] * rhs.data[(group * k + t) * n + j];
      ASSERT_EQ(result.data[i * n + j],
                roundToElementType(sum, ElementType::F32))
          << "row " << i << ", column " << j;
    }
  }
  // Progress is reported and ends at 1.
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
}

TEST(ReferenceMode2Test, ThreadedBlocksMatchTheDefinition) {
  // x [m, k], dy [m, n] -> [g, k, n], groups of 90, 0, 60 and 100 of 260
  // rows (10 rows in no group).
  const int64_t m = 260, k = 96, n = 200, g = 4;
  Tensor x{{m, k}, pattern(m * k, 3)};
  Tensor dy{{m, n}, pattern(m * n, 4)};
  IndexTensor sizes{{g}, {90, 0, 60, 100}};
  Tensor result;
  ASSERT_EQ(raggedDot(makeDims({}, {}, {0}, {0}, {0}, {}), x, dy, sizes,
                      std::nullopt, nullptr, {g, k, n}, ElementType::F64,
                      result),
            "");
  const int64_t starts[] = {0, 90, 90, 150, 250};
  for (int64_t group = 0; group < g; ++group)
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t r = starts[group]; r < starts[group + 1]; ++r)
          sum += x.data[r * k + i] * dy.data[r * n + j];
        ASSERT_EQ(result.data[(group * k + i) * n + j], sum)
            << "group " << group << ", " << i << ", " << j;
      }
}

TEST(ReferenceMode2Test, SmallExampleWithEmptyGroup) {
  // Sizes [1, 0, 3]: group 0 sums k = 0, group 1 is empty, group 2 sums
  // k = 1..3: 2*10 + 3*100 + 4*1000 = 4320 and 6*10 + 7*100 + 8*1000 = 8760.
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, {{3}, {1, 0, 3}}, {3, 2, 1}),
            (Values{1, 5, 0, 0, 4320, 8760}));
  // Sizes [2, 1] leave k = 3 uncovered: 1 + 20 = 21, 5 + 60 = 65; 300, 700.
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, {{2}, {2, 1}}, {2, 2, 1}),
            (Values{21, 65, 300, 700}));
}

TEST(ReferenceMode2Test, Init) {
  Tensor init{{3, 2, 1}, {1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, {{3}, {1, 0, 3}}, {3, 2, 1},
                std::nullopt, &init),
            (Values{2, 7, 3, 4, 4325, 8766}));
}

TEST(ReferenceMode2Test, GroupOffset) {
  IndexTensor sizes{{3}, {1, 0, 3}};
  // Local groups 0, 1 are global groups 1 (empty), 2.
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, sizes, {2, 2, 1}, 1),
            (Values{0, 0, 4320, 8760}));
  // Global groups 2 and 3 (which does not exist).
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, sizes, {2, 2, 1}, 2),
            (Values{4320, 8760, 0, 0}));
  // Global groups -1 (none) and 0.
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, sizes, {2, 2, 1}, -1),
            (Values{0, 0, 1, 5}));
  // G_local comes from the result shape and may exceed g.
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, sizes, {4, 2, 1}, 0),
            (Values{1, 5, 0, 0, 4320, 8760, 0, 0}));
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, sizes, {1, 2, 1}, kMax),
            (Values{0, 0}));
  Tensor init{{1, 2, 1}, {7, 8}};
  EXPECT_EQ(run(mode2Dims(), kLhs2x4, kRhs4x1, sizes, {1, 2, 1}, kMin, &init),
            (Values{7, 8}));
}

TEST(ReferenceMode2Test, GroupSizesPrefixFromContractingDimension) {
  // lhs [m=1, k1=2, k2=3], rhs [k1=2, k2=3, n=1], ragged k2; k1 is listed
  // before it, so group_sizes may be [2, g]: each k1 has its own partition.
  DimensionNumbers dims = makeDims({}, {}, {1, 2}, {0, 1}, {2}, {});
  Tensor lhs{{1, 2, 3}, {1, 2, 3, 4, 5, 6}};
  Tensor rhs{{2, 3, 1}, {1, 10, 100, 1000, 10000, 100000}};
  // Products: k1 = 0: 1, 20, 300; k1 = 1: 4000, 50000, 600000.
  // k1 = 0 sizes [1, 2]; k1 = 1 sizes [3, 0].
  // Group 0: 1 + (4000 + 50000 + 600000) = 654001; group 1: 20 + 300 = 320.
  EXPECT_EQ(run(dims, lhs, rhs, {{2, 2}, {1, 2, 3, 0}}, {2, 1, 1}),
            (Values{654001, 320}));
  // Broadcast sizes [1, 2]: group 0 = 1 + 4000, group 1 = 320 + 650000.
  EXPECT_EQ(run(dims, lhs, rhs, {{2}, {1, 2}}, {2, 1, 1}),
            (Values{4001, 650320}));
  // Listed after the ragged dim, k1 is not a prefix dim.
  DimensionNumbers reordered = makeDims({}, {}, {2, 1}, {1, 0}, {2}, {});
  EXPECT_EQ(run(reordered, lhs, rhs, {{2}, {1, 2}}, {2, 1, 1}),
            (Values{4001, 650320}));
  std::string error =
      fail(reordered, lhs, rhs, {{2, 2}, {1, 2, 3, 0}}, {2, 1, 1});
  EXPECT_NE(error.find("expects group_sizes of shape [g] in mode 2"),
            std::string::npos)
      << error;
}

TEST(ReferenceMode2Test, BatchedWeightGradient) {
  // The weight gradient shape: lhs [b=2, k=3, m=1] (ragged k),
  // rhs [b=2, k=3, n=1], result [g=2, b=2, m=1, n=1].
  DimensionNumbers dims = makeDims({0}, {0}, {1}, {1}, {1}, {});
  Tensor lhs{{2, 3, 1}, {1, 2, 3, 4, 5, 6}};
  Tensor rhs{{2, 3, 1}, {1, 10, 100, 1, 10, 100}};
  // Products: b0: 1, 20, 300; b1: 4, 50, 600.
  // b0 sizes [2, 1]: g0 = 21, g1 = 300. b1 sizes [0, 3]: g0 = 0, g1 = 654.
  EXPECT_EQ(run(dims, lhs, rhs, {{2, 2}, {2, 1, 0, 3}}, {2, 2, 1, 1}),
            (Values{21, 0, 300, 654}));
}

//===----------------------------------------------------------------------===//
// Mode 3: ragged batching dimension.
//===----------------------------------------------------------------------===//

TEST(ReferenceMode3Test, PlainBatchedDot) {
  // lhs [b=2, m=1, k=2], rhs [b=2, k=2, n=1]: 1*5 + 2*6 = 17,
  // 3*7 + 4*8 = 53.
  DimensionNumbers dims = makeDims({0}, {0}, {2}, {1}, {0}, {});
  Tensor lhs{{2, 1, 2}, {1, 2, 3, 4}};
  Tensor rhs{{2, 2, 1}, {5, 6, 7, 8}};
  EXPECT_EQ(run(dims, lhs, rhs, {{3}, {0, 0, 0}}, {2, 1, 1}), (Values{17, 53}));
  // Group sizes and offset are ignored.
  EXPECT_EQ(run(dims, lhs, rhs, {{3}, {-5, 100, 7}}, {2, 1, 1}, 9),
            (Values{17, 53}));
  Tensor init{{2, 1, 1}, {1, 1}};
  EXPECT_EQ(run(dims, lhs, rhs, {{1}, {0}}, {2, 1, 1}, std::nullopt, &init),
            (Values{18, 54}));
}

TEST(ReferenceMode3Test, GroupSizesPrefix) {
  // lhs [a=2, b=2, k=1], rhs [a=2, b=2, k=1], both batching; ragged b, so
  // group_sizes may be [2, g] (a listed before b) but not [2, 2, g].
  DimensionNumbers dims = makeDims({0, 1}, {0, 1}, {2}, {2}, {1}, {});
  Tensor lhs{{2, 2, 1}, {1, 2, 3, 4}};
  Tensor rhs{{2, 2, 1}, {5, 6, 7, 8}};
  EXPECT_EQ(run(dims, lhs, rhs, {{2, 3}, {0, 0, 0, 0, 0, 0}}, {2, 2}),
            (Values{5, 12, 21, 32}));
  std::string error = fail(dims, lhs, rhs, {{2, 2, 3}, Shape(12, 0)}, {2, 2});
  EXPECT_NE(error.find("[g] or [2, g] in mode 3"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// Validation.
//===----------------------------------------------------------------------===//

bool mentions(const std::string &error, const std::string &text) {
  return error.find(text) != std::string::npos;
}

TEST(ReferenceValidationTest, OperandData) {
  Tensor shortLhs{{4, 2}, {1, 2, 3, 4, 5, 6, 7}};
  std::string error =
      fail(mode1Dims(), shortLhs, kRhsIdB, {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "lhs has shape [4, 2] (8 elements) but 7 data"))
      << error;
  Tensor negative{{-4, 2}, {}};
  error = fail(mode1Dims(), negative, kRhsIdB, {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "lhs dimension 0 has negative size -4")) << error;
  error = fail(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {1}}, {4, 2});
  EXPECT_TRUE(mentions(error, "group_sizes has shape [2]")) << error;
  error = fail(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {1, 3}}, {4, -2});
  EXPECT_TRUE(mentions(error, "result dimension 1 has negative size -2"))
      << error;
}

TEST(ReferenceValidationTest, ContractingSizes) {
  Tensor rhs{{2, 3, 2}, Values(12, 1)};
  std::string error = fail(mode1Dims(), kLhs4x2, rhs, {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "lhs contracting dimension 1 has size 2 but rhs "
                              "contracting dimension 1 has size 3"))
      << error;
}

TEST(ReferenceValidationTest, BatchingSizesAndLengths) {
  Tensor lhs{{2, 3, 1}, Values(6, 1)};
  Tensor rhs{{3, 2, 1, 1}, Values(6, 1)};
  std::string error = fail(makeDims({0}, {0}, {2}, {2}, {1}, {1}), lhs, rhs,
                           {{2}, {1, 2}}, {2, 3, 1});
  EXPECT_TRUE(mentions(error, "lhs batching dimension 0 has size 2 but rhs "
                              "batching dimension 0 has size 3"))
      << error;
  error = fail(makeDims({0}, {}, {2}, {2}, {1}, {1}), lhs, rhs, {{2}, {1, 2}},
               {2, 3, 1});
  EXPECT_TRUE(mentions(error, "lhs_batching_dimensions and "
                              "rhs_batching_dimensions must have the same "
                              "length, got 1 and 0"))
      << error;
  error = fail(makeDims({}, {}, {1}, {}, {0}, {0}), kLhs4x2, kRhsIdB,
               {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "got 1 and 0")) << error;
}

TEST(ReferenceValidationTest, DimensionsInRangeAndDistinct) {
  std::string error = fail(makeDims({}, {}, {1}, {1}, {5}, {0}), kLhs4x2,
                           kRhsIdB, {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error,
                       "lhs_ragged_dimensions[0] = 5 is out of range for lhs "
                       "of rank 2"))
      << error;
  error = fail(makeDims({}, {}, {1}, {3}, {0}, {0}), kLhs4x2, kRhsIdB,
               {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "rhs_contracting_dimensions[0] = 3")) << error;
  error = fail(makeDims({}, {}, {1, 1}, {1, 2}, {0}, {0}), kLhs4x2, kRhsIdB,
               {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "lhs dimension 1 is listed twice in "
                              "lhs_contracting_dimensions"))
      << error;
  // The rhs group dim may not also be a contracting or batching dim.
  error = fail(makeDims({}, {}, {1}, {1}, {0}, {1}), kLhs4x2, kRhsIdB,
               {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "rhs dimension 1 is listed in both "
                              "rhs_contracting_dimensions and "
                              "rhs_group_dimensions"))
      << error;
}

TEST(ReferenceValidationTest, RaggedDimensionCount) {
  std::string error = fail(makeDims({}, {}, {1}, {1}, {0, 1}, {0}), kLhs4x2,
                           kRhsIdB, {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "exactly one lhs ragged dimension, got 2"))
      << error;
  error = fail(makeDims({}, {}, {1}, {1}, {}, {0}), kLhs4x2, kRhsIdB,
               {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "exactly one lhs ragged dimension, got 0"))
      << error;
}

TEST(ReferenceValidationTest, RhsGroupDimension) {
  // Mode 1 without one.
  Tensor rhs2d{{2, 2}, {1, 0, 0, 1}};
  std::string error = fail(makeDims({}, {}, {1}, {0}, {0}, {}), kLhs4x2, rhs2d,
                           {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "expects one rhs group dimension in mode 1"))
      << error;
  // Mode 2 with one.
  Tensor rhs3d{{2, 4, 1}, Values(8, 1)};
  error = fail(makeDims({}, {}, {1}, {1}, {1}, {0}), kLhs2x4, rhs3d,
               {{2}, {1, 3}}, {2, 2, 1});
  EXPECT_TRUE(mentions(error, "expects no rhs group dimension in mode 2"))
      << error;
  // Mode 3 with one.
  Tensor lhs{{2, 1, 2}, Values(4, 1)};
  Tensor rhs4d{{2, 3, 2, 1}, Values(12, 1)};
  error = fail(makeDims({0}, {0}, {2}, {2}, {0}, {1}), lhs, rhs4d,
               {{3}, {1, 1, 1}}, {2, 1, 1});
  EXPECT_TRUE(mentions(error, "expects no rhs group dimension in mode 3"))
      << error;
  // Group count against the rhs group dim.
  Tensor rhs3groups{{3, 2, 2}, Values(12, 1)};
  error = fail(mode1Dims(), kLhs4x2, rhs3groups, {{2}, {1, 3}}, {4, 2});
  EXPECT_TRUE(mentions(error, "rhs group dimension 0 has size 3 but "
                              "group_sizes has 2 groups"))
      << error;
  // Two rhs group dims.
  error = fail(makeDims({}, {}, {1}, {1}, {0}, {0, 2}), kLhs4x2, kRhsIdB,
               {{2}, {1, 3}}, {4});
  EXPECT_TRUE(mentions(error, "at most one rhs group dimension, got 2"))
      << error;
}

TEST(ReferenceValidationTest, GroupSizesShape) {
  // Mode 1 on [m, k] has no prefix: [2, 3] is wrong.
  std::string error =
      fail(mode1Dims(), kLhs4x2, kRhsIdB, {{2, 3}, {1, 1, 1, 1, 1, 1}}, {4, 2});
  EXPECT_TRUE(mentions(error, "expects group_sizes of shape [g] in mode 1 "
                              "(ragged free dimension), got [2, 3]"))
      << error;
  // Rank 0.
  error = fail(mode1Dims(), kLhs4x2, kRhsIdB, {{}, {1}}, {4, 2});
  EXPECT_TRUE(mentions(error, "got []")) << error;
  // A prefix of the wrong size.
  DimensionNumbers dims = makeDims({0}, {0}, {2}, {2}, {1}, {1});
  Tensor lhs{{2, 3, 1}, Values(6, 1)};
  Tensor rhs{{2, 2, 1, 1}, Values(4, 1)};
  error = fail(dims, lhs, rhs, {{3, 2}, Shape(6, 1)}, {2, 3, 1});
  EXPECT_TRUE(mentions(error, "[g] or [2, g] in mode 1")) << error;
}

TEST(ReferenceValidationTest, ResultAndInitShape) {
  std::string error =
      fail(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {1, 3}}, {4, 3});
  EXPECT_TRUE(mentions(error, "result shape [4, 3] does not match the expected "
                              "[4, 2]: result dimension 1 is rhs dimension 2 "
                              "of size 2"))
      << error;
  error = fail(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {1, 3}}, {4});
  EXPECT_TRUE(mentions(error, "expects a result of rank 2, got result shape "
                              "[4]"))
      << error;
  // Mode 2 without offset: dim 0 must be g.
  error = fail(mode2Dims(), kLhs2x4, kRhs4x1, {{3}, {1, 0, 3}}, {2, 2, 1});
  EXPECT_TRUE(mentions(error, "result dimension 0 is the number of groups of "
                              "size 3"))
      << error;
  Tensor init{{4, 1}, Values(4, 0)};
  error = fail(mode1Dims(), kLhs4x2, kRhsIdB, {{2}, {1, 3}}, {4, 2},
               std::nullopt, &init);
  EXPECT_TRUE(mentions(error, "init shape [4, 1] differs from the result "
                              "shape [4, 2]"))
      << error;
}

//===----------------------------------------------------------------------===//
// compare() and defaultTolerance().
//===----------------------------------------------------------------------===//

TEST(ReferenceCompareTest, CountsMismatches) {
  Tensor expected{{2, 2}, {1, 2, -4, 0}};
  Comparison same = compare(expected, expected, {0, 0});
  EXPECT_EQ(same.mismatches, 0);
  EXPECT_EQ(same.firstMismatch, -1);
  EXPECT_EQ(same.maxAbsError, 0);
  EXPECT_EQ(same.maxRelError, 0);

  Tensor got{{2, 2}, {1, 2.5, -4, 0.25}};
  Comparison exact = compare(got, expected, {0, 0});
  EXPECT_EQ(exact.mismatches, 2);
  EXPECT_EQ(exact.firstMismatch, 1);
  EXPECT_EQ(exact.maxAbsError, 0.5);
  EXPECT_EQ(exact.maxRelError, 0.25); // 0.5 / 2; expected 0 is skipped.
  // atol 0.5 covers both.
  EXPECT_EQ(compare(got, expected, {0.5, 0}).mismatches, 0);
  // rtol 0.25 covers 2.5 vs 2 but not 0.25 vs 0.
  Comparison relative = compare(got, expected, {0, 0.25});
  EXPECT_EQ(relative.mismatches, 1);
  EXPECT_EQ(relative.firstMismatch, 3);
}

TEST(ReferenceCompareTest, NaNAndInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor expected{{4}, {1, inf, -inf, nan}};
  EXPECT_EQ(
      compare(Tensor{{4}, {1, inf, -inf, nan}}, expected, {0, 0}).mismatches,
      0);
  Comparison nanGot =
      compare(Tensor{{4}, {nan, inf, -inf, nan}}, expected, {1e9, 1e9});
  EXPECT_EQ(nanGot.mismatches, 1);
  EXPECT_EQ(nanGot.firstMismatch, 0);
  EXPECT_EQ(nanGot.maxAbsError, inf);
  EXPECT_EQ(compare(Tensor{{4}, {inf, -inf, inf, 0}}, expected, {1e9, 1e9})
                .mismatches,
            4);
}

TEST(ReferenceCompareTest, ShapeMismatchFailsEverything) {
  Tensor expected{{2, 2}, {1, 2, 3, 4}};
  Comparison c = compare(Tensor{{4}, {1, 2, 3, 4}}, expected, {1, 1});
  EXPECT_EQ(c.mismatches, 4);
  EXPECT_EQ(c.firstMismatch, 0);
  // Even when both are empty.
  EXPECT_EQ(compare(Tensor{{0}, {}}, Tensor{{0, 3}, {}}, {1, 1}).mismatches, 1);
  // Data that does not fill the shape.
  EXPECT_GT(compare(Tensor{{2, 2}, {1, 2, 3}}, expected, {1, 1}).mismatches, 0);
}

TEST(ReferenceDefaultToleranceTest, Formula) {
  // f32 in, f32 out, k = 1: rtol = 4 * 2^-24 + 2^-24,
  // atol = 2 * 2^-24 + 2^-149.
  Tolerance f32 = defaultTolerance(ElementType::F32, ElementType::F32, 1);
  EXPECT_EQ(f32.rtol, 5 * std::ldexp(1.0, -24));
  EXPECT_EQ(f32.atol, 2 * std::ldexp(1.0, -24) + std::ldexp(1.0, -149));
  // bf16 in, bf16 out, k = 64: rtol = 4 * 2^-8 + 64 * 2^-24 = 2^-6 + 2^-18,
  // atol = 2 * 64 * 8 * 2^-24 + 2^-133 = 2^-14 + 2^-133.
  Tolerance bf16 = defaultTolerance(ElementType::BF16, ElementType::BF16, 64);
  EXPECT_EQ(bf16.rtol, std::ldexp(1.0, -6) + std::ldexp(1.0, -18));
  EXPECT_EQ(bf16.atol, std::ldexp(1.0, -14) + std::ldexp(1.0, -133));
  // k <= 0 behaves like k = 1.
  Tolerance zero = defaultTolerance(ElementType::F32, ElementType::F32, 0);
  EXPECT_EQ(zero.rtol, f32.rtol);
  EXPECT_EQ(zero.atol, f32.atol);
}

TEST(ReferenceDefaultToleranceTest, Sanity) {
  Tolerance f16 = defaultTolerance(ElementType::F16, ElementType::F16, 128);
  Tolerance bf16 = defaultTolerance(ElementType::BF16, ElementType::BF16, 128);
  Tolerance f32 = defaultTolerance(ElementType::F32, ElementType::F32, 128);
  Tolerance f64 = defaultTolerance(ElementType::F64, ElementType::F64, 128);
  EXPECT_GT(bf16.rtol, f16.rtol);
  EXPECT_GT(f16.rtol, f32.rtol);
  EXPECT_GT(f32.rtol, f64.rtol);
  EXPECT_GT(f32.atol, f64.atol);
  // Looser for longer contractions.
  Tolerance f32Long =
      defaultTolerance(ElementType::F32, ElementType::F32, 4096);
  EXPECT_GT(f32Long.atol, f32.atol);
  EXPECT_GT(f32Long.rtol, f32.rtol);
  // One result ulp apart passes; ten do not.
  Tensor expected{{1}, {1.0}};
  EXPECT_EQ(compare(Tensor{{1}, {1.0 + std::ldexp(1.0, -7)}}, expected, bf16)
                .mismatches,
            0);
  EXPECT_EQ(
      compare(Tensor{{1}, {1.0 + 10 * std::ldexp(1.0, -7)}}, expected, bf16)
          .mismatches,
      1);
  EXPECT_EQ(compare(Tensor{{1}, {1.0 + std::ldexp(1.0, -10)}}, expected, f16)
                .mismatches,
            0);
  EXPECT_EQ(compare(Tensor{{1}, {1.0 + std::ldexp(1.0, -10)}}, expected, f32)
                .mismatches,
            1);
}

} // namespace
