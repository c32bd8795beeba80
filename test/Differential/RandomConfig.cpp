//===- RandomConfig.cpp - random ragged dot problems ----------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "RandomConfig.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <sstream>

using namespace gmm;
using namespace gmm::difftest;
using reference::ElementType;

namespace {

int64_t uniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

bool chance(std::mt19937_64 &rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

ElementType randomType(std::mt19937_64 &rng) {
  static const ElementType types[] = {ElementType::F16, ElementType::BF16,
                                      ElementType::F32, ElementType::F64};
  return types[uniform(rng, 0, 3)];
}

void fillRandom(std::mt19937_64 &rng, reference::Tensor &t, ElementType type) {
  std::uniform_real_distribution<double> dist(-1, 1);
  t.data.resize(reference::numElements(t.shape));
  for (double &v : t.data)
    v = reference::roundToElementType(dist(rng), type);
}

/// Draws the operands (and the init, if `c` has one) of `c`'s shapes and
/// types.
void fillOperands(std::mt19937_64 &rng, Config &c) {
  c.lhs.shape = c.lhsShape;
  c.rhs.shape = c.rhsShape;
  fillRandom(rng, c.lhs, c.inputType);
  fillRandom(rng, c.rhs, c.inputType);
  if (c.hasInit) {
    c.init.shape = c.resultShape;
    fillRandom(rng, c.init, c.resultType);
  }
}

/// Logical dimensions: batch, contracting, lhs free (m), rhs free (n), and
/// the rhs group dimension.
enum class Kind { B, K, M, N, G };
struct LogicalDim {
  Kind kind;
  int index;
  bool operator==(const LogicalDim &o) const {
    return kind == o.kind && index == o.index;
  }
};

int64_t positionOf(const std::vector<LogicalDim> &layout, LogicalDim d) {
  return std::find(layout.begin(), layout.end(), d) - layout.begin();
}

/// `count` sizes for one row of group_sizes over a ragged extent.
std::vector<int64_t> randomGroupSizes(std::mt19937_64 &rng, int64_t count,
                                      int64_t extent, bool i64) {
  std::vector<int64_t> sizes(count, 0);
  if (count == 0)
    return sizes;
  auto partition = [&](int64_t total) {
    for (int64_t i = 0; i < total; ++i)
      ++sizes[uniform(rng, 0, count - 1)];
  };
  int64_t huge = i64 ? (int64_t(1) << 62) : std::numeric_limits<int32_t>::max();
  switch (uniform(rng, 0, 7)) {
  case 0: // exact partition, often with empty groups
  case 1:
    partition(extent);
    break;
  case 2: // sum below the extent: trailing rows uncovered
    partition(uniform(rng, 0, extent));
    break;
  case 3: // sum above the extent: groups cut
    partition(extent + uniform(rng, 1, 8));
    break;
  case 4: // negative sizes count as zero
    for (int64_t &s : sizes)
      s = uniform(rng, -4, std::max<int64_t>(extent / count + 1, 1));
    break;
  case 5: // huge and extreme sizes, sums overflowing 32 and 64 bits
    partition(extent);
    for (int64_t &s : sizes)
      if (chance(rng, 0.4))
        s = chance(rng, 0.7) ? huge
                             : (i64 ? std::numeric_limits<int64_t>::min()
                                    : std::numeric_limits<int32_t>::min());
    break;
  case 6: // everything in the last group
    sizes.back() = extent;
    break;
  default: // every group empty
    break;
  }
  return sizes;
}

void printShapedType(std::ostream &os, const std::vector<int64_t> &shape,
                     const std::vector<bool> *dynamic, const char *element) {
  os << "tensor<";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (dynamic && (*dynamic)[i])
      os << "?";
    else
      os << shape[i];
    os << "x";
  }
  os << element << ">";
}

void printList(std::ostream &os, const char *key,
               const std::vector<int64_t> &list, bool &first) {
  if (list.empty())
    return;
  if (!first)
    os << ", ";
  first = false;
  os << key << " = [";
  for (size_t i = 0; i < list.size(); ++i)
    os << (i ? ", " : "") << list[i];
  os << "]";
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "," : "") << shape[i];
  os << "]";
  return os.str();
}

} // namespace

int64_t Config::contractionLength() const {
  int64_t k = 1;
  for (int64_t d : dims.lhsContracting)
    k *= lhsShape[d];
  return k;
}

std::string Config::toMLIR(const std::string &name) const {
  std::ostringstream os;
  const char *in = reference::toString(inputType);
  const char *out = reference::toString(resultType);
  const char *index = groupSizesI64 ? "i64" : "i32";
  std::ostringstream lhsT, rhsT, gsT, resT, offT;
  printShapedType(lhsT, lhsShape, &lhsDynamic, in);
  printShapedType(rhsT, rhsShape, &rhsDynamic, in);
  printShapedType(gsT, groupSizesShape, nullptr, index);
  printShapedType(resT, resultShape, nullptr, out);
  offT << (offsetIsVector ? "tensor<1x" : "tensor<") << index << ">";

  os << "func.func @" << name << "(%lhs: " << lhsT.str()
     << ", %rhs: " << rhsT.str() << ", %gs: " << gsT.str();
  if (groupOffset)
    os << ", %off: " << offT.str();
  if (hasInit)
    os << ", %init: " << resT.str();
  os << ") -> " << resT.str() << " {\n";
  os << "  %0 = gmm.ragged_dot %lhs, %rhs, %gs";
  if (groupOffset)
    os << " group_offset(%off : " << offT.str() << ")";
  if (hasInit)
    os << " init(%init : " << resT.str() << ")";
  os << " dimension_numbers = <";
  bool first = true;
  printList(os, "lhs_batching_dimensions", dims.lhsBatching, first);
  printList(os, "rhs_batching_dimensions", dims.rhsBatching, first);
  printList(os, "lhs_contracting_dimensions", dims.lhsContracting, first);
  printList(os, "rhs_contracting_dimensions", dims.rhsContracting, first);
  printList(os, "lhs_ragged_dimensions", dims.lhsRagged, first);
  printList(os, "rhs_group_dimensions", dims.rhsGroup, first);
  os << "> : " << lhsT.str() << ", " << rhsT.str() << ", " << gsT.str()
     << " -> " << resT.str() << "\n";
  os << "  return %0 : " << resT.str() << "\n}\n";
  return os.str();
}

std::string Config::describe() const {
  std::ostringstream os;
  os << "mode " << mode << ", lhs " << shapeString(lhsShape) << " rhs "
     << shapeString(rhsShape) << " group_sizes " << shapeString(groupSizesShape)
     << " = " << shapeString(groupSizes.data) << ", "
     << reference::toString(inputType) << " -> "
     << reference::toString(resultType);
  if (groupOffset)
    os << ", offset " << *groupOffset;
  if (hasInit)
    os << ", init";
  return os.str();
}

Config gmm::difftest::randomConfig(std::mt19937_64 &rng, int64_t maxDim,
                                   std::optional<ElementType> inputType) {
  Config c;
  c.mode = static_cast<int>(uniform(rng, 1, 3));
  int nb = c.mode == 3 ? uniform(rng, 1, 2) : (chance(rng, 0.3) ? 1 : 0);
  int nk = c.mode == 2 ? (chance(rng, 0.2) ? 2 : 1)
                       : (chance(rng, 0.1) ? 0 : (chance(rng, 0.15) ? 2 : 1));
  int nm = c.mode == 1 ? (chance(rng, 0.2) ? 2 : 1) : uniform(rng, 0, 1);
  int nn = chance(rng, 0.15) ? 2 : uniform(rng, 0, 1);
  bool small = nk > 1 || nm > 1 || nn > 1 || nb > 1;
  int64_t dimLimit = small ? std::max<int64_t>(maxDim / 3, 2) : maxDim;

  std::vector<int64_t> bSize(nb), kSize(nk), mSize(nm), nSize(nn);
  for (int64_t &s : bSize)
    s = uniform(rng, chance(rng, 0.1) ? 0 : 1, 3);
  for (int64_t &s : kSize)
    s = uniform(rng, chance(rng, 0.05) ? 0 : 1, dimLimit);
  for (int64_t &s : mSize)
    s = uniform(rng, chance(rng, 0.05) ? 0 : 1, dimLimit);
  for (int64_t &s : nSize)
    s = uniform(rng, chance(rng, 0.05) ? 0 : 1, std::min<int64_t>(dimLimit, 9));

  int64_t numGroups = uniform(rng, c.mode == 3 ? 1 : 0, 16);
  if (numGroups == 0 && chance(rng, 0.7))
    numGroups = 1;
  int64_t localGroups = numGroups;
  if (c.mode != 3 && chance(rng, 0.25)) {
    c.groupOffset = uniform(rng, -3, numGroups + 2);
    c.offsetIsVector = chance(rng, 0.5);
    localGroups = uniform(rng, 0, numGroups);
  }

  // Layouts: logical dims shuffled into operand positions.
  std::vector<LogicalDim> lhsLayout, rhsLayout;
  for (int i = 0; i < nb; ++i) {
    lhsLayout.push_back({Kind::B, i});
    rhsLayout.push_back({Kind::B, i});
  }
  for (int i = 0; i < nk; ++i) {
    lhsLayout.push_back({Kind::K, i});
    rhsLayout.push_back({Kind::K, i});
  }
  for (int i = 0; i < nm; ++i)
    lhsLayout.push_back({Kind::M, i});
  for (int i = 0; i < nn; ++i)
    rhsLayout.push_back({Kind::N, i});
  if (c.mode == 1)
    rhsLayout.push_back({Kind::G, 0});
  std::shuffle(lhsLayout.begin(), lhsLayout.end(), rng);
  std::shuffle(rhsLayout.begin(), rhsLayout.end(), rng);

  auto sizeOf = [&](LogicalDim d) -> int64_t {
    switch (d.kind) {
    case Kind::B:
      return bSize[d.index];
    case Kind::K:
      return kSize[d.index];
    case Kind::M:
      return mSize[d.index];
    case Kind::N:
      return nSize[d.index];
    case Kind::G:
      return localGroups;
    }
    return 0;
  };
  for (LogicalDim d : lhsLayout)
    c.lhsShape.push_back(sizeOf(d));
  for (LogicalDim d : rhsLayout)
    c.rhsShape.push_back(sizeOf(d));

  // Dimension numbers, with the pairs listed in a random order.
  std::vector<int> batchOrder(nb), contractOrder(nk);
  std::iota(batchOrder.begin(), batchOrder.end(), 0);
  std::iota(contractOrder.begin(), contractOrder.end(), 0);
  std::shuffle(batchOrder.begin(), batchOrder.end(), rng);
  std::shuffle(contractOrder.begin(), contractOrder.end(), rng);
  for (int i : batchOrder) {
    c.dims.lhsBatching.push_back(positionOf(lhsLayout, {Kind::B, i}));
    c.dims.rhsBatching.push_back(positionOf(rhsLayout, {Kind::B, i}));
  }
  for (int i : contractOrder) {
    c.dims.lhsContracting.push_back(positionOf(lhsLayout, {Kind::K, i}));
    c.dims.rhsContracting.push_back(positionOf(rhsLayout, {Kind::K, i}));
  }
  LogicalDim ragged =
      c.mode == 1   ? LogicalDim{Kind::M, (int)uniform(rng, 0, nm - 1)}
      : c.mode == 2 ? LogicalDim{Kind::K, (int)uniform(rng, 0, nk - 1)}
                    : LogicalDim{Kind::B, (int)uniform(rng, 0, nb - 1)};
  int64_t raggedPos = positionOf(lhsLayout, ragged);
  c.dims.lhsRagged = {raggedPos};
  if (c.mode == 1)
    c.dims.rhsGroup = {positionOf(rhsLayout, {Kind::G, 0})};

  // Result: [G] (mode 2), batch (list order), lhs free, rhs free (ascending).
  if (c.mode == 2)
    c.resultShape.push_back(localGroups);
  for (int64_t d : c.dims.lhsBatching)
    c.resultShape.push_back(c.lhsShape[d]);
  for (size_t d = 0; d < lhsLayout.size(); ++d)
    if (lhsLayout[d].kind == Kind::M)
      c.resultShape.push_back(c.lhsShape[d]);
  for (size_t d = 0; d < rhsLayout.size(); ++d)
    if (rhsLayout[d].kind == Kind::N)
      c.resultShape.push_back(c.rhsShape[d]);

  // group_sizes: [g] or CHLO's [prefix..., g].
  std::vector<int64_t> prefix;
  if (c.mode == 3) {
    for (int64_t d : c.dims.lhsBatching) {
      if (d == raggedPos)
        break;
      prefix.push_back(c.lhsShape[d]);
    }
  } else {
    for (int64_t d : c.dims.lhsBatching)
      prefix.push_back(c.lhsShape[d]);
    if (c.mode == 2) {
      for (int64_t d : c.dims.lhsContracting) {
        if (d == raggedPos)
          break;
        prefix.push_back(c.lhsShape[d]);
      }
    } else {
      for (int64_t d = 0; d < raggedPos; ++d)
        if (lhsLayout[d].kind == Kind::M)
          prefix.push_back(c.lhsShape[d]);
    }
  }
  c.groupSizesI64 = chance(rng, 0.5);
  c.groupSizesShape = chance(rng, 0.4) ? prefix : std::vector<int64_t>();
  c.groupSizesShape.push_back(numGroups);
  c.groupSizes.shape = c.groupSizesShape;
  int64_t rows = reference::numElements(c.groupSizesShape) /
                 std::max<int64_t>(numGroups, 1);
  for (int64_t r = 0; numGroups > 0 && r < rows; ++r) {
    std::vector<int64_t> row = randomGroupSizes(
        rng, numGroups, c.lhsShape[raggedPos], c.groupSizesI64);
    c.groupSizes.data.insert(c.groupSizes.data.end(), row.begin(), row.end());
  }

  c.lhsDynamic.resize(c.lhsShape.size());
  c.rhsDynamic.resize(c.rhsShape.size());
  for (size_t i = 0; i < c.lhsDynamic.size(); ++i)
    c.lhsDynamic[i] = chance(rng, 0.15);
  for (size_t i = 0; i < c.rhsDynamic.size(); ++i)
    c.rhsDynamic[i] = chance(rng, 0.15);

  c.inputType = randomType(rng);
  if (inputType)
    c.inputType = *inputType;
  c.resultType = chance(rng, 0.5) ? ElementType::F32 : randomType(rng);
  c.hasInit = chance(rng, 0.3);

  fillOperands(rng, c);
  return c;
}

namespace {

/// Overwrites the group sizes of `c` (and its group offset, adding one in
/// modes 1 and 2 half of the time) with adversarial values; `pattern` picks
/// the family, so consecutive configurations cycle through all of them.
void makeAdversarial(Config &c, int64_t pattern, std::mt19937_64 &rng) {
  const int64_t max = c.groupSizesI64 ? std::numeric_limits<int64_t>::max()
                                      : std::numeric_limits<int32_t>::max();
  const int64_t min = c.groupSizesI64 ? std::numeric_limits<int64_t>::min()
                                      : std::numeric_limits<int32_t>::min();
  const int64_t numGroups = c.groupSizesShape.back();
  const int64_t extent = c.lhsShape[c.dims.lhsRagged.front()];
  constexpr int64_t kNumPatterns = 12;
  for (size_t row = 0; numGroups > 0 && row < c.groupSizes.data.size();
       row += numGroups) {
    int64_t *sizes = c.groupSizes.data.data() + row;
    auto fill = [&](std::initializer_list<int64_t> values) {
      auto it = values.begin();
      for (int64_t g = 0; g < numGroups; ++g) {
        sizes[g] = *it;
        if (++it == values.end())
          it = values.begin();
      }
    };
    switch ((pattern + static_cast<int64_t>(row / numGroups)) % kNumPatterns) {
    case 0: // every size negative
      fill({-1, min, -extent - 1});
      break;
    case 1: // every size the maximum: the sums overflow the type
      fill({max});
      break;
    case 2: // all the mass in the last group
      fill({0});
      sizes[numGroups - 1] = extent;
      break;
    case 3: // all the mass in the last group, and far more than the extent
      fill({0});
      sizes[numGroups - 1] = max;
      break;
    case 4: // sums that overflow 32 bits (but not 64 bits for i64 sizes)
      fill({std::numeric_limits<int32_t>::max(), 1});
      break;
    case 5: // sums that wrap around to exactly 0 in the type
      fill({max, max, 2});
      break;
    case 6: // the extremes alternate
      fill({max, min});
      break;
    case 7: // a hugely negative start, then real sizes
      fill({min, extent, 1});
      break;
    case 8: // just past the extent, then negative
      fill({extent + 1, -extent, 1});
      break;
    case 9: // the last row of the extent, then huge
      fill({std::max<int64_t>(extent - 1, 0), 1, max});
      break;
    case 10: // INT64 extremes even for i32 sizes (wrapped to the type)
      fill({std::numeric_limits<int64_t>::max(),
            std::numeric_limits<int64_t>::min(), extent});
      if (!c.groupSizesI64)
        for (int64_t g = 0; g < numGroups; ++g)
          sizes[g] = static_cast<int32_t>(static_cast<uint32_t>(sizes[g]));
      break;
    default: // random mixture of all of the above
      for (int64_t g = 0; g < numGroups; ++g) {
        const int64_t choices[] = {0,   1,   -1,      extent, extent + 1,
                                   max, min, max - 1, min + 1};
        sizes[g] = choices[std::uniform_int_distribution<int>(0, 8)(rng)];
      }
      break;
    }
  }
  if (c.mode == 3)
    return;
  if (!c.groupOffset && pattern % 2 == 0)
    c.groupOffset = 0;
  if (!c.groupOffset)
    return;
  const int64_t offsets[] = {min, max,           min + 1,   max - 1,
                             -1,  numGroups - 1, numGroups, 0};
  c.groupOffset = offsets[pattern % 8];
}

} // namespace

Config gmm::difftest::hopperConfig(std::mt19937_64 &rng, int64_t maxDim,
                                   std::optional<ElementType> inputType) {
  Config c;
  c.mode = 1;
  int64_t chunks = std::max<int64_t>(maxDim / 8, 1);
  int64_t m = uniform(rng, chance(rng, 0.05) ? 0 : 1, maxDim);
  int64_t k = 8 * uniform(rng, 1, chunks);
  int64_t n = 8 * uniform(rng, 1, chunks);
  int64_t numGroups = uniform(rng, 1, 16);
  int64_t localGroups = numGroups;
  if (chance(rng, 0.25)) {
    c.groupOffset = uniform(rng, -3, numGroups + 2);
    c.offsetIsVector = chance(rng, 0.5);
    localGroups = uniform(rng, 1, numGroups);
  }
  c.lhsShape = {m, k};
  c.rhsShape = {localGroups, k, n};
  c.resultShape = {m, n};
  c.dims.lhsContracting = {1};
  c.dims.rhsContracting = {1};
  c.dims.lhsRagged = {0};
  c.dims.rhsGroup = {0};
  c.groupSizesI64 = chance(rng, 0.5);
  c.groupSizesShape = {numGroups};
  c.groupSizes.shape = c.groupSizesShape;
  c.groupSizes.data = randomGroupSizes(rng, numGroups, m, c.groupSizesI64);
  c.lhsDynamic.assign(2, false);
  c.rhsDynamic.assign(3, false);
  c.inputType = chance(rng, 0.5) ? ElementType::BF16 : ElementType::F16;
  if (inputType)
    c.inputType = *inputType;
  static const ElementType results[] = {ElementType::F32, ElementType::BF16,
                                        ElementType::F16};
  c.resultType = results[uniform(rng, 0, 2)];
  c.hasInit = chance(rng, 0.1);
  fillOperands(rng, c);
  return c;
}

Config gmm::difftest::drawConfig(uint64_t seed, int64_t index, int64_t maxDim,
                                 std::optional<ElementType> inputType,
                                 bool gpuShaped, bool adversarial,
                                 ConfigFamily family) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + index);
  if (family == ConfigFamily::Hopper) {
    Config c = hopperConfig(rng, maxDim, inputType);
    if (adversarial)
      makeAdversarial(c, index, rng);
    return c;
  }
  Config c = randomConfig(rng, maxDim, inputType);
  while (gpuShaped &&
         (c.inputType == ElementType::F64 || c.resultType == ElementType::F64))
    c = randomConfig(rng, maxDim, inputType);
  if (adversarial)
    makeAdversarial(c, index, rng);
  return c;
}

std::string gmm::difftest::checkResult(const Config &c,
                                       const reference::Tensor &got) {
  reference::Tensor expected;
  std::optional<int64_t> offset = c.groupOffset;
  std::string error = reference::raggedDot(
      c.dims, c.lhs, c.rhs, c.groupSizes, offset, c.hasInit ? &c.init : nullptr,
      c.resultShape, c.resultType, expected);
  if (!error.empty())
    return "the reference rejects the problem: " + error;
  reference::Tolerance tolerance = reference::defaultTolerance(
      c.inputType, c.resultType, std::max<int64_t>(c.contractionLength(), 1));
  reference::Comparison cmp = reference::compare(got, expected, tolerance);
  if (cmp.mismatches == 0)
    return "";
  std::ostringstream os;
  os << cmp.mismatches << " of " << expected.data.size()
     << " elements differ (atol " << tolerance.atol << ", rtol "
     << tolerance.rtol << "); max abs error " << cmp.maxAbsError;
  if (cmp.firstMismatch >= 0 &&
      static_cast<size_t>(cmp.firstMismatch) < got.data.size() &&
      static_cast<size_t>(cmp.firstMismatch) < expected.data.size())
    os << "; first at " << cmp.firstMismatch << ": got "
       << got.data[cmp.firstMismatch] << ", expected "
       << expected.data[cmp.firstMismatch];
  return os.str();
}
