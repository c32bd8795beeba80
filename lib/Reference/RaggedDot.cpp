//===- RaggedDot.cpp - Plain C++ reference for ragged dot -----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The reference validates everything it is given, then visits every result
// element and sums its products directly. It shares no code with the compiler
// on purpose: it is what the compiled code is checked against.
//
//===----------------------------------------------------------------------===//

#include "gmm/Reference/RaggedDot.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>

using namespace gmm::reference;

namespace {

enum class Mode { NonContracting, Contracting, Batch };

const char *describeMode(Mode mode) {
  switch (mode) {
  case Mode::NonContracting:
    return "mode 1 (ragged free dimension)";
  case Mode::Contracting:
    return "mode 2 (ragged contracting dimension)";
  case Mode::Batch:
    return "mode 3 (ragged batching dimension)";
  }
  return "unknown mode";
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

bool contains(const std::vector<int64_t> &list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

/// Checks that `shape` has no negative size and that `dataSize` values fill
/// it.
std::string checkTensor(const char *name, const std::vector<int64_t> &shape,
                        size_t dataSize) {
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0)
      return std::string(name) + " dimension " + std::to_string(i) +
             " has negative size " + std::to_string(shape[i]);
  int64_t count = numElements(shape);
  if (count < 0)
    return std::string(name) + " shape " + shapeToString(shape) +
           " has more elements than int64 can count";
  if (static_cast<uint64_t>(count) != dataSize)
    return std::string(name) + " has shape " + shapeToString(shape) + " (" +
           std::to_string(count) + " elements) but " +
           std::to_string(dataSize) + " data values";
  return "";
}

/// Checks that every entry of `list` (called `name`) indexes a dimension of
/// `operand`, of rank `rank`.
std::string checkInRange(const std::vector<int64_t> &list, const char *name,
                         const char *operand, int64_t rank) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i] < 0 || list[i] >= rank)
      return std::string(name) + "[" + std::to_string(i) +
             "] = " + std::to_string(list[i]) + " is out of range for " +
             operand + " of rank " + std::to_string(rank);
  return "";
}

/// Checks that no dimension of `operand` appears twice across `lists`.
std::string checkDistinct(
    const char *operand,
    const std::vector<std::pair<const char *, const std::vector<int64_t> *>>
        &lists) {
  std::vector<std::pair<int64_t, const char *>> seen;
  for (const auto &[name, list] : lists) {
    for (int64_t dim : *list) {
      auto it = std::find_if(seen.begin(), seen.end(),
                             [&](const auto &p) { return p.first == dim; });
      if (it == seen.end()) {
        seen.push_back({dim, name});
        continue;
      }
      if (it->second == name)
        return std::string(operand) + " dimension " + std::to_string(dim) +
               " is listed twice in " + name;
      return std::string(operand) + " dimension " + std::to_string(dim) +
             " is listed in both " + it->second + " and " + name;
    }
  }
  return "";
}

/// Where one dimension of the result comes from.
struct ResultDim {
  enum Kind { Groups, Batch, LhsFree, RhsFree };
  Kind kind;
  int64_t lhsDim = -1;
  int64_t rhsDim = -1;
};

std::string describe(const ResultDim &dim) {
  switch (dim.kind) {
  case ResultDim::Groups:
    return "the number of groups";
  case ResultDim::Batch:
    return "lhs batching dimension " + std::to_string(dim.lhsDim);
  case ResultDim::LhsFree:
    return "lhs dimension " + std::to_string(dim.lhsDim);
  case ResultDim::RhsFree:
    return "rhs dimension " + std::to_string(dim.rhsDim);
  }
  return "";
}

/// Row-major strides. Computed modulo 2^64: they are only used to address
/// tensors that have elements, whose strides fit.
std::vector<uint64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<uint64_t> strides(shape.size());
  uint64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= static_cast<uint64_t>(shape[i]);
  }
  return strides;
}

/// One product of the contraction: where its operands sit relative to the
/// result element's base offsets, its ragged index (mode 2) and its
/// contribution to the group_sizes row (mode 2).
struct Term {
  uint64_t lhsOffset;
  uint64_t rhsOffset;
  int64_t ragged;
  uint64_t row;
};

/// A run of terms (sorted by ragged index) that share a group_sizes row.
struct Segment {
  uint64_t row;
  size_t begin, end;
};

} // namespace

int64_t gmm::reference::numElements(const std::vector<int64_t> &shape) {
  for (int64_t size : shape)
    if (size < 0)
      return -1;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end())
    return 0;
  int64_t count = 1;
  for (int64_t size : shape)
    if (__builtin_mul_overflow(count, size, &count))
      return -1;
  return count;
}

std::vector<std::pair<int64_t, int64_t>>
gmm::reference::groupBounds(const int64_t *sizes, int64_t numGroups,
                            int64_t extent) {
  std::vector<std::pair<int64_t, int64_t>> bounds;
  if (numGroups <= 0)
    return bounds;
  extent = std::max<int64_t>(extent, 0);
  bounds.reserve(static_cast<size_t>(numGroups));
  // `start` never exceeds `extent`, so `extent - start` cannot overflow and
  // clamping the size to it before adding saturates the running sum.
  int64_t start = 0;
  for (int64_t i = 0; i < numGroups; ++i) {
    int64_t size = std::max<int64_t>(sizes[i], 0);
    int64_t end = start + std::min(size, extent - start);
    bounds.push_back({start, end});
    start = end;
  }
  return bounds;
}

std::string gmm::reference::raggedDot(
    const DimensionNumbers &dims, const Tensor &lhs, const Tensor &rhs,
    const IndexTensor &groupSizes, std::optional<int64_t> groupOffset,
    const Tensor *init, const std::vector<int64_t> &resultShape,
    ElementType resultType, Tensor &result, const ProgressFn &progress) {
  const std::vector<int64_t> &lhsBatch = dims.lhsBatching;
  const std::vector<int64_t> &rhsBatch = dims.rhsBatching;
  const std::vector<int64_t> &lhsContract = dims.lhsContracting;
  const std::vector<int64_t> &rhsContract = dims.rhsContracting;
  const std::vector<int64_t> &lhsRagged = dims.lhsRagged;
  const std::vector<int64_t> &rhsGroup = dims.rhsGroup;

  // The operands themselves.
  std::string error = checkTensor("lhs", lhs.shape, lhs.data.size());
  if (error.empty())
    error = checkTensor("rhs", rhs.shape, rhs.data.size());
  if (error.empty())
    error =
        checkTensor("group_sizes", groupSizes.shape, groupSizes.data.size());
  if (error.empty() && init)
    error = checkTensor("init", init->shape, init->data.size());
  if (!error.empty())
    return error;
  for (size_t i = 0; i < resultShape.size(); ++i)
    if (resultShape[i] < 0)
      return "result dimension " + std::to_string(i) + " has negative size " +
             std::to_string(resultShape[i]);
  const int64_t lhsRank = static_cast<int64_t>(lhs.shape.size());
  const int64_t rhsRank = static_cast<int64_t>(rhs.shape.size());

  // The dot_general rules: paired lists, ranges, distinctness, sizes.
  if (lhsBatch.size() != rhsBatch.size())
    return "lhs_batching_dimensions and rhs_batching_dimensions must have the "
           "same length, got " +
           std::to_string(lhsBatch.size()) + " and " +
           std::to_string(rhsBatch.size());
  if (lhsContract.size() != rhsContract.size())
    return "lhs_contracting_dimensions and rhs_contracting_dimensions must "
           "have the same length, got " +
           std::to_string(lhsContract.size()) + " and " +
           std::to_string(rhsContract.size());
  for (const std::string &message :
       {checkInRange(lhsBatch, "lhs_batching_dimensions", "lhs", lhsRank),
        checkInRange(lhsContract, "lhs_contracting_dimensions", "lhs", lhsRank),
        checkInRange(rhsBatch, "rhs_batching_dimensions", "rhs", rhsRank),
        checkInRange(rhsContract, "rhs_contracting_dimensions", "rhs", rhsRank),
        checkInRange(lhsRagged, "lhs_ragged_dimensions", "lhs", lhsRank),
        checkInRange(rhsGroup, "rhs_group_dimensions", "rhs", rhsRank),
        checkDistinct("lhs", {{"lhs_batching_dimensions", &lhsBatch},
                              {"lhs_contracting_dimensions", &lhsContract}}),
        checkDistinct("rhs", {{"rhs_batching_dimensions", &rhsBatch},
                              {"rhs_contracting_dimensions", &rhsContract},
                              {"rhs_group_dimensions", &rhsGroup}})})
    if (!message.empty())
      return message;
  for (size_t i = 0; i < lhsBatch.size(); ++i)
    if (lhs.shape[lhsBatch[i]] != rhs.shape[rhsBatch[i]])
      return "lhs batching dimension " + std::to_string(lhsBatch[i]) +
             " has size " + std::to_string(lhs.shape[lhsBatch[i]]) +
             " but rhs batching dimension " + std::to_string(rhsBatch[i]) +
             " has size " + std::to_string(rhs.shape[rhsBatch[i]]);
  for (size_t i = 0; i < lhsContract.size(); ++i)
    if (lhs.shape[lhsContract[i]] != rhs.shape[rhsContract[i]])
      return "lhs contracting dimension " + std::to_string(lhsContract[i]) +
             " has size " + std::to_string(lhs.shape[lhsContract[i]]) +
             " but rhs contracting dimension " +
             std::to_string(rhsContract[i]) + " has size " +
             std::to_string(rhs.shape[rhsContract[i]]);

  // Exactly one ragged lhs dimension, which picks the mode.
  if (lhsRagged.size() != 1)
    return "expects exactly one lhs ragged dimension, got " +
           std::to_string(lhsRagged.size());
  const int64_t raggedDim = lhsRagged.front();
  Mode mode = contains(lhsBatch, raggedDim)      ? Mode::Batch
              : contains(lhsContract, raggedDim) ? Mode::Contracting
                                                 : Mode::NonContracting;

  // group_sizes is [g] or [prefix..., g].
  std::vector<int64_t> prefixDims;
  switch (mode) {
  case Mode::Batch:
    prefixDims.assign(lhsBatch.begin(),
                      std::find(lhsBatch.begin(), lhsBatch.end(), raggedDim));
    break;
  case Mode::Contracting:
    prefixDims = lhsBatch;
    prefixDims.insert(
        prefixDims.end(), lhsContract.begin(),
        std::find(lhsContract.begin(), lhsContract.end(), raggedDim));
    break;
  case Mode::NonContracting:
    prefixDims = lhsBatch;
    for (int64_t d = 0; d < raggedDim; ++d)
      if (!contains(lhsBatch, d) && !contains(lhsContract, d))
        prefixDims.push_back(d);
    break;
  }
  std::vector<int64_t> prefixSizes;
  for (int64_t d : prefixDims)
    prefixSizes.push_back(lhs.shape[d]);
  const std::vector<int64_t> &gsShape = groupSizes.shape;
  bool broadcast = gsShape.size() == 1;
  bool groupSizesOk = broadcast;
  if (!groupSizesOk && gsShape.size() == prefixSizes.size() + 1)
    groupSizesOk =
        std::equal(prefixSizes.begin(), prefixSizes.end(), gsShape.begin());
  if (!groupSizesOk) {
    std::string expected = "[g]";
    if (!prefixSizes.empty()) {
      std::string prefix = shapeToString(prefixSizes);
      expected += " or " + prefix.substr(0, prefix.size() - 1) + ", g]";
    }
    return "expects group_sizes of shape " + expected + " in " +
           describeMode(mode) + ", got " + shapeToString(gsShape);
  }
  const int64_t numGroups = gsShape.back();

  // The rhs group dimension: exactly one in mode 1, of size g unless a group
  // offset makes it G_local; none in modes 2 and 3.
  if (rhsGroup.size() > 1)
    return "expects at most one rhs group dimension, got " +
           std::to_string(rhsGroup.size());
  int64_t numLocalGroups = numGroups;
  if (mode == Mode::NonContracting) {
    if (rhsGroup.empty())
      return std::string("expects one rhs group dimension in ") +
             describeMode(mode) + ", got none";
    numLocalGroups = rhs.shape[rhsGroup.front()];
    if (!groupOffset && numLocalGroups != numGroups)
      return "rhs group dimension " + std::to_string(rhsGroup.front()) +
             " has size " + std::to_string(numLocalGroups) +
             " but group_sizes has " + std::to_string(numGroups) + " groups";
  } else if (!rhsGroup.empty()) {
    return std::string("expects no rhs group dimension in ") +
           describeMode(mode) + ", got rhs_group_dimensions = [" +
           std::to_string(rhsGroup.front()) + "]";
  }

  // The result shape.
  std::vector<ResultDim> resultDims;
  if (mode == Mode::Contracting)
    resultDims.push_back({ResultDim::Groups});
  for (size_t i = 0; i < lhsBatch.size(); ++i)
    resultDims.push_back({ResultDim::Batch, lhsBatch[i], rhsBatch[i]});
  for (int64_t d = 0; d < lhsRank; ++d)
    if (!contains(lhsBatch, d) && !contains(lhsContract, d))
      resultDims.push_back({ResultDim::LhsFree, d});
  for (int64_t d = 0; d < rhsRank; ++d)
    if (!contains(rhsBatch, d) && !contains(rhsContract, d) &&
        !contains(rhsGroup, d))
      resultDims.push_back({ResultDim::RhsFree, -1, d});
  const size_t resultRank = resultDims.size();
  if (resultShape.size() != resultRank)
    return "expects a result of rank " + std::to_string(resultRank) +
           ", got result shape " + shapeToString(resultShape);
  if (mode == Mode::Contracting && groupOffset)
    numLocalGroups = resultShape[0];
  std::vector<int64_t> expectedShape;
  for (const ResultDim &dim : resultDims) {
    switch (dim.kind) {
    case ResultDim::Groups:
      expectedShape.push_back(numLocalGroups);
      break;
    case ResultDim::Batch:
    case ResultDim::LhsFree:
      expectedShape.push_back(lhs.shape[dim.lhsDim]);
      break;
    case ResultDim::RhsFree:
      expectedShape.push_back(rhs.shape[dim.rhsDim]);
      break;
    }
  }
  for (size_t i = 0; i < resultRank; ++i)
    if (resultShape[i] != expectedShape[i])
      return "result shape " + shapeToString(resultShape) +
             " does not match the expected " + shapeToString(expectedShape) +
             ": result dimension " + std::to_string(i) + " is " +
             describe(resultDims[i]) + " of size " +
             std::to_string(expectedShape[i]);
  if (init && init->shape != resultShape)
    return "init shape " + shapeToString(init->shape) +
           " differs from the result shape " + shapeToString(resultShape);
  const int64_t resultCount = numElements(resultShape);
  if (resultCount < 0)
    return "result shape " + shapeToString(resultShape) +
           " has more elements than int64 can count";

  // Everything is valid. Uncovered elements keep init (or 0).
  std::vector<double> out(static_cast<size_t>(resultCount), 0.0);
  if (init)
    out = init->data;
  if (resultCount == 0) {
    result.shape = resultShape;
    result.data = std::move(out);
    return "";
  }

  // Since the result has elements, every lhs batching and free dimension is
  // non-empty and the number of contraction terms is at most lhs's element
  // count: enumerating them costs no more memory than lhs itself.
  std::vector<uint64_t> lhsStrides = stridesOf(lhs.shape);
  std::vector<uint64_t> rhsStrides = stridesOf(rhs.shape);
  // Each lhs dimension's stride in group_sizes's rows; 0 for dimensions that
  // are not in the prefix, and for all of them when the sizes broadcast.
  std::vector<uint64_t> rowStrides(lhsRank, 0);
  if (!broadcast) {
    uint64_t stride = 1;
    for (size_t p = prefixDims.size(); p-- > 0;) {
      rowStrides[prefixDims[p]] = stride;
      stride *= static_cast<uint64_t>(prefixSizes[p]);
    }
  }

  std::vector<Term> terms;
  {
    std::vector<int64_t> sizes;
    for (int64_t d : lhsContract)
      sizes.push_back(lhs.shape[d]);
    int64_t count = numElements(sizes);
    std::vector<int64_t> index(sizes.size(), 0);
    size_t raggedPos =
        std::find(lhsContract.begin(), lhsContract.end(), raggedDim) -
        lhsContract.begin();
    terms.reserve(static_cast<size_t>(count));
    for (int64_t t = 0; t < count; ++t) {
      Term term{0, 0, 0, 0};
      for (size_t i = 0; i < sizes.size(); ++i) {
        uint64_t value = static_cast<uint64_t>(index[i]);
        term.lhsOffset += value * lhsStrides[lhsContract[i]];
        term.rhsOffset += value * rhsStrides[rhsContract[i]];
        term.row += value * rowStrides[lhsContract[i]];
      }
      if (raggedPos < sizes.size())
        term.ragged = index[raggedPos];
      terms.push_back(term);
      for (size_t i = sizes.size(); i-- > 0;) {
        if (++index[i] < sizes[i])
          break;
        index[i] = 0;
      }
    }
  }

  // Mode 2 sums, for each group, the terms whose ragged index lies in the
  // group. Sorting by (row, ragged index) makes those a contiguous range of
  // each segment of terms that share a group_sizes row.
  std::vector<Segment> segments;
  if (mode == Mode::Contracting) {
    // The lhs offset, unique per term, makes the order total and so the
    // summation order deterministic.
    std::sort(terms.begin(), terms.end(), [](const Term &a, const Term &b) {
      if (a.row != b.row)
        return a.row < b.row;
      if (a.ragged != b.ragged)
        return a.ragged < b.ragged;
      return a.lhsOffset < b.lhsOffset;
    });
    for (size_t i = 0; i < terms.size(); ++i) {
      if (segments.empty() || segments.back().row != terms[i].row)
        segments.push_back({terms[i].row, i, i});
      segments.back().end = i + 1;
    }
  }

  // Group bounds of every group_sizes row.
  const int64_t extent = lhs.shape[raggedDim];
  std::vector<std::pair<int64_t, int64_t>> bounds;
  std::vector<int64_t> ends;
  if (mode != Mode::Batch && numGroups > 0) {
    bounds.reserve(groupSizes.data.size());
    for (size_t start = 0; start < groupSizes.data.size();
         start += static_cast<size_t>(numGroups)) {
      auto rowBounds =
          groupBounds(groupSizes.data.data() + start, numGroups, extent);
      bounds.insert(bounds.end(), rowBounds.begin(), rowBounds.end());
    }
    for (const auto &bound : bounds)
      ends.push_back(bound.second);
  }
  const int64_t offset = mode == Mode::Batch ? 0 : groupOffset.value_or(0);
  const uint64_t groupStride =
      mode == Mode::NonContracting ? rhsStrides[rhsGroup.front()] : 0;
  size_t raggedResultPos = 0;
  for (size_t i = 0; i < resultRank; ++i)
    if (resultDims[i].kind == ResultDim::LhsFree &&
        resultDims[i].lhsDim == raggedDim)
      raggedResultPos = i;

  // Where result element `index` reads its operands, and whether some group
  // covers it (modes 1 and 3; mode 2 is covered by group index[0] below).
  struct Element {
    uint64_t lhsBase = 0, rhsBase = 0, row = 0;
    bool covered = false;
  };
  auto locate = [&](const std::vector<int64_t> &index) {
    Element e;
    for (size_t i = 0; i < resultRank; ++i) {
      uint64_t value = static_cast<uint64_t>(index[i]);
      const ResultDim &dim = resultDims[i];
      if (dim.kind == ResultDim::Batch || dim.kind == ResultDim::LhsFree) {
        e.lhsBase += value * lhsStrides[dim.lhsDim];
        e.row += value * rowStrides[dim.lhsDim];
      }
      if (dim.kind == ResultDim::Batch || dim.kind == ResultDim::RhsFree)
        e.rhsBase += value * rhsStrides[dim.rhsDim];
    }
    switch (mode) {
    case Mode::Batch:
      e.covered = true;
      break;
    case Mode::NonContracting: {
      if (numGroups == 0)
        break;
      // The first group ending past the row is the one holding it, if any:
      // ends never decrease and each group starts where the last one ended.
      int64_t r = index[raggedResultPos];
      auto rowEnds = ends.begin() + e.row * numGroups;
      int64_t j = std::upper_bound(rowEnds, rowEnds + numGroups, r) - rowEnds;
      if (j >= numGroups || bounds[e.row * numGroups + j].first > r)
        break;
      int64_t local;
      if (__builtin_sub_overflow(j, offset, &local) || local < 0 ||
          local >= numLocalGroups)
        break;
      e.covered = true;
      e.rhsBase += static_cast<uint64_t>(local) * groupStride;
      break;
    }
    case Mode::Contracting:
      break;
    }
    return e;
  };

  // Mode 2: the sum of group index[0]'s terms of every segment.
  auto sumGroup = [&](const std::vector<int64_t> &index, const Element &e,
                      bool &covered) {
    int64_t j;
    covered = !__builtin_add_overflow(offset, index[0], &j) && j >= 0 &&
              j < numGroups;
    double sum = 0;
    if (!covered)
      return sum;
    for (const Segment &segment : segments) {
      auto [start, end] = bounds[(e.row + segment.row) * numGroups + j];
      auto byRagged = [](const Term &term, int64_t value) {
        return term.ragged < value;
      };
      size_t begin =
          std::lower_bound(terms.begin() + segment.begin,
                           terms.begin() + segment.end, start, byRagged) -
          terms.begin();
      size_t stop =
          std::lower_bound(terms.begin() + begin, terms.begin() + segment.end,
                           end, byRagged) -
          terms.begin();
      double segmentSum = 0;
      for (size_t t = begin; t < stop; ++t)
        segmentSum += lhs.data[e.lhsBase + terms[t].lhsOffset] *
                      rhs.data[e.rhsBase + terms[t].rhsOffset];
      sum += segmentSum;
    }
    return sum;
  };

  // Result elements [first, last): blocks of up to kBlock elements that are
  // consecutive along the innermost result dimension (consecutive rhs
  // columns in the usual layouts), whose products are summed term by term
  // for the whole block, so that the operands are read in order. Each
  // element still sums its own products in the order of `terms`, in double:
  // the result is the same whatever the blocks and threads.
  constexpr int64_t kBlock = 64;
  // A result of rank 0 (which no valid ragged dot has) is one block of one.
  const std::vector<int64_t> blockShape =
      resultRank ? resultShape : std::vector<int64_t>{1};
  const size_t blockRank = blockShape.size();
  std::atomic<int64_t> done{0};
  auto compute = [&](int64_t first, int64_t last) {
    std::vector<int64_t> index(blockRank, 0);
    for (int64_t i = static_cast<int64_t>(blockRank) - 1, n = first; i >= 0;
         --i) {
      index[i] = n % blockShape[i];
      n /= blockShape[i];
    }
    Element block[kBlock];
    double sums[kBlock];
    int64_t n = first;
    while (n < last) {
      int64_t count = std::min<int64_t>(
          {kBlock, last - n, blockShape.back() - index.back()});
      for (int64_t b = 0; b < count; ++b) {
        block[b] = locate(index);
        sums[b] = 0;
        if (mode == Mode::Contracting)
          sums[b] = sumGroup(index, block[b], block[b].covered);
        ++index.back();
      }
      if (mode != Mode::Contracting) {
        // The common case: one lhs row against consecutive rhs columns, all
        // covered. Then every term is one lhs element times a contiguous
        // run of rhs elements.
        bool row = true;
        for (int64_t b = 1; b < count && row; ++b)
          row = block[b].lhsBase == block[0].lhsBase &&
                block[b].rhsBase == block[0].rhsBase + b &&
                block[b].covered == block[0].covered;
        if (row && block[0].covered) {
          const double *lhsRow = lhs.data.data() + block[0].lhsBase;
          const double *rhsRow = rhs.data.data() + block[0].rhsBase;
          for (const Term &term : terms) {
            double a = lhsRow[term.lhsOffset];
            const double *r = rhsRow + term.rhsOffset;
            for (int64_t b = 0; b < count; ++b)
              sums[b] += a * r[b];
          }
        } else if (!row) {
          for (const Term &term : terms)
            for (int64_t b = 0; b < count; ++b)
              if (block[b].covered)
                sums[b] += lhs.data[block[b].lhsBase + term.lhsOffset] *
                           rhs.data[block[b].rhsBase + term.rhsOffset];
        }
      }
      for (int64_t b = 0; b < count; ++b) {
        if (block[b].covered)
          out[n + b] += sums[b];
        out[n + b] = roundToElementType(out[n + b], resultType);
      }
      n += count;
      done.fetch_add(count, std::memory_order_relaxed);
      // Carry the innermost index into the outer ones.
      for (size_t i = blockRank; i-- > 0;) {
        if (index[i] < blockShape[i])
          break;
        index[i] = 0;
        if (i > 0)
          ++index[i - 1];
      }
    }
  };

  // The blocks on threads, each a contiguous share of the result; the
  // caller's thread reports progress meanwhile. Small problems run on the
  // caller's thread alone.
  uint64_t work;
  if (__builtin_mul_overflow(static_cast<uint64_t>(resultCount),
                             std::max<uint64_t>(terms.size(), 1), &work))
    work = std::numeric_limits<uint64_t>::max();
  int64_t threads = std::max(1u, std::thread::hardware_concurrency());
  if (work < (uint64_t(1) << 22))
    threads = 1;
  threads =
      std::min<int64_t>(threads, std::max<int64_t>(resultCount / kBlock, 1));
  if (threads == 1) {
    compute(0, resultCount);
  } else {
    std::mutex mutex;
    std::condition_variable finished;
    int64_t running = threads;
    std::vector<std::thread> workers;
    for (int64_t t = 0; t < threads; ++t) {
      int64_t first =
          resultCount / threads * t + std::min(t, resultCount % threads);
      int64_t last =
          first + resultCount / threads + (t < resultCount % threads ? 1 : 0);
      workers.emplace_back([&, first, last] {
        compute(first, last);
        std::lock_guard<std::mutex> lock(mutex);
        --running;
        finished.notify_all();
      });
    }
    {
      std::unique_lock<std::mutex> lock(mutex);
      while (running > 0) {
        if (progress)
          progress(static_cast<double>(done.load(std::memory_order_relaxed)) /
                   static_cast<double>(resultCount));
        finished.wait_for(lock, std::chrono::milliseconds(250));
      }
    }
    for (std::thread &worker : workers)
      worker.join();
  }
  if (progress)
    progress(1.0);

  result.shape = resultShape;
  result.data = std::move(out);
  return "";
}

Tolerance gmm::reference::defaultTolerance(ElementType inputType,
                                           ElementType resultType, int64_t k) {
  double kk = static_cast<double>(std::max<int64_t>(k, 1));
  double accumulationUnit = inputType == ElementType::F64
                                ? std::ldexp(1.0, -53)
                                : std::ldexp(1.0, -24);
  double resultUnit = 0, minSubnormal = 0;
  switch (resultType) {
  case ElementType::F16:
    resultUnit = std::ldexp(1.0, -11);
    minSubnormal = std::ldexp(1.0, -24);
    break;
  case ElementType::BF16:
    resultUnit = std::ldexp(1.0, -8);
    minSubnormal = std::ldexp(1.0, -133);
    break;
  case ElementType::F32:
    resultUnit = std::ldexp(1.0, -24);
    minSubnormal = std::ldexp(1.0, -149);
    break;
  case ElementType::F64:
    resultUnit = std::ldexp(1.0, -53);
    minSubnormal = std::numeric_limits<double>::denorm_min();
    break;
  }
  Tolerance tol;
  tol.rtol = 4 * resultUnit + kk * accumulationUnit;
  tol.atol = 2 * kk * std::sqrt(kk) * accumulationUnit + minSubnormal;
  return tol;
}

Comparison gmm::reference::compare(const Tensor &got, const Tensor &expected,
                                   Tolerance tol) {
  Comparison comparison;
  int64_t gotCount = numElements(got.shape);
  int64_t expectedCount = numElements(expected.shape);
  if (got.shape != expected.shape || gotCount < 0 ||
      static_cast<uint64_t>(gotCount) != got.data.size() ||
      static_cast<uint64_t>(expectedCount) != expected.data.size()) {
    comparison.mismatches =
        std::max<int64_t>({static_cast<int64_t>(got.data.size()),
                           static_cast<int64_t>(expected.data.size()), 1});
    comparison.firstMismatch = 0;
    comparison.maxAbsError = std::numeric_limits<double>::infinity();
    comparison.maxRelError = std::numeric_limits<double>::infinity();
    return comparison;
  }
  for (size_t i = 0; i < got.data.size(); ++i) {
    double g = got.data[i];
    double e = expected.data[i];
    bool match;
    if (std::isfinite(g) && std::isfinite(e)) {
      double absError = std::fabs(g - e);
      comparison.maxAbsError = std::max(comparison.maxAbsError, absError);
      if (e != 0)
        comparison.maxRelError =
            std::max(comparison.maxRelError, absError / std::fabs(e));
      match = absError <= tol.atol + tol.rtol * std::fabs(e);
    } else {
      // The same infinity, or NaN for NaN; anything else is a mismatch.
      match = g == e || (std::isnan(g) && std::isnan(e));
      if (!match)
        comparison.maxAbsError = std::numeric_limits<double>::infinity();
    }
    if (!match) {
      if (comparison.firstMismatch < 0)
        comparison.firstMismatch = static_cast<int64_t>(i);
      ++comparison.mismatches;
    }
  }
  return comparison;
}
