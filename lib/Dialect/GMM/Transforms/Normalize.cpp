//===- Normalize.cpp - normalized layouts of gmm.ragged_dot ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-normalize: a gmm.ragged_dot with arbitrary dimension numbers becomes
// one in a normalized form of RaggedDotOp::isNormalized, which is all that
// gmm-tile has to handle. The forms, and what is not normalized, are in the
// pass description in include/gmm/Dialect/GMM/Transforms/Passes.td.
//
// Every normalized dimension is a *group* of original dimensions (possibly
// empty: a unit dimension). An operand is brought into its normalized shape
// by at most a linalg.transpose (only when its non-unit dimensions are not
// already in the order of the groups), a tensor.collapse_shape and a
// tensor.expand_shape; the result goes back the same way. Where there is a
// choice (the order of the batching and contracting dimensions inside B and
// K, the rhs layout in mode 1, the lhs and rhs layouts in mode 2), the
// choice that needs the fewest transposes of large tensors wins, so that the
// common layouts (weights [g, k, n] or [g, n, k], the weight gradient
// x^T dy, CHLO's [m, k] x [k, n]) need no copy at all. Group sizes are tiny:
// they are broadcast (linalg.broadcast) where the normalized form needs rows
// that the original shares.
//
// A mode 2 op whose group_sizes prefix holds contracting dimensions is not
// normalized: no layout of the normalized mode-2 form expresses a partition
// that changes along Kc.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/Transforms/Normalize.h"
#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>
#include <limits>

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMNORMALIZE
#include "gmm/Dialect/GMM/Transforms/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using namespace mlir::gmm;

namespace {

/// Normalized dimension i is the product of the original dimensions
/// groups[i], in that order; an empty group is a unit dimension.
using Groups = SmallVector<SmallVector<int64_t>>;

/// The (possibly lazily created) size of dimension `d` of some tensor.
using SizeFn = std::function<OpFoldResult(int64_t)>;

bool isUnit(int64_t size) { return size == 1; }

int64_t staticProduct(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(shape[d]))
      return ShapedType::kDynamic;
    product *= shape[d];
  }
  return product;
}

SmallVector<int64_t> flatten(const Groups &groups) {
  SmallVector<int64_t> flat;
  for (const SmallVector<int64_t> &group : groups)
    flat.append(group);
  return flat;
}

SmallVector<int64_t> coarseShape(ArrayRef<int64_t> shape,
                                 const Groups &groups) {
  return llvm::map_to_vector(groups, [&](const SmallVector<int64_t> &group) {
    return staticProduct(shape, group);
  });
}

/// Whether bringing `shape` into `groups` needs a transpose: a reshape can
/// move unit dimensions, but not reorder the others.
bool needsTranspose(ArrayRef<int64_t> shape, const Groups &groups) {
  SmallVector<int64_t> nonUnit;
  for (int64_t d : flatten(groups))
    if (!isUnit(shape[d]))
      nonUnit.push_back(d);
  return !llvm::is_sorted(nonUnit);
}

/// A reshape between a tensor of `shape` and its coarse shape `groups`
/// (whose non-unit dimensions are in order) as a collapse to a "core" shape
/// followed by an expansion, each possibly the identity. Unit dimensions
/// that stand for no group join a neighbouring core dimension.
struct ReshapePlan {
  SmallVector<ReassociationIndices> toCore, coreToCoarse;
  bool collapses = false, expands = false;
};

ReshapePlan planReshape(ArrayRef<int64_t> shape, const Groups &groups) {
  int64_t rank = shape.size();
  int64_t numGroups = groups.size();
  // The smallest non-unit dimension in groups[i:].
  SmallVector<int64_t> suffixMin(numGroups + 1, rank);
  for (int64_t i = numGroups - 1; i >= 0; --i) {
    suffixMin[i] = suffixMin[i + 1];
    for (int64_t d : groups[i])
      if (!isUnit(shape[d]))
        suffixMin[i] = std::min(suffixMin[i], d);
  }
  // Core dimensions: the groups with non-unit dimensions (their anchors),
  // and the unit-sized groups that a unit dimension between the neighbouring
  // anchors can stand for. Unit dimensions carry no data, so any of them
  // stands for any unit-sized group; the earliest one leaves the most room.
  SmallVector<int64_t> coreOfGroup(numGroups, -1);
  SmallVector<int64_t> anchorCore(rank, -1);
  int64_t numCore = 0, lastAnchor = -1;
  for (int64_t i = 0; i < numGroups; ++i) {
    SmallVector<int64_t> anchors;
    for (int64_t d : groups[i])
      if (!isUnit(shape[d]))
        anchors.push_back(d);
    if (anchors.empty()) {
      int64_t d = lastAnchor + 1;
      while (d < suffixMin[i + 1] && !isUnit(shape[d]))
        ++d;
      if (d < suffixMin[i + 1])
        anchors.push_back(d);
    }
    if (anchors.empty())
      continue;
    coreOfGroup[i] = numCore;
    for (int64_t d : anchors) {
      anchorCore[d] = numCore;
      lastAnchor = std::max(lastAnchor, d);
    }
    ++numCore;
  }
  ReshapePlan plan;
  plan.toCore.resize(numCore);
  if (numCore > 0) {
    int64_t current = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (anchorCore[d] >= 0)
        current = anchorCore[d];
      plan.toCore[current].push_back(d);
    }
  }
  plan.coreToCoarse.resize(numCore);
  if (numCore > 0) {
    int64_t current = 0;
    for (int64_t i = 0; i < numGroups; ++i) {
      if (coreOfGroup[i] >= 0)
        current = coreOfGroup[i];
      plan.coreToCoarse[current].push_back(i);
    }
  }
  plan.collapses = numCore != rank;
  plan.expands = numCore != numGroups;
  return plan;
}

/// Builds the IR of one rewrite: operand sizes are materialized on demand
/// (tensor.dim, cached) so that static shapes get no dead size computations.
class Normalizer {
public:
  Normalizer(RewriterBase &rewriter, Location loc) : b(rewriter), loc(loc) {}

  /// The size of `value`'s dimension `d`: an attribute when static.
  OpFoldResult dimOf(Value value, int64_t d) {
    auto key = std::make_pair(value, d);
    auto it = dims.find(key);
    if (it != dims.end())
      return it->second;
    OpFoldResult size = tensor::getMixedSize(b, loc, value, d);
    dims[key] = size;
    return size;
  }

  /// `size` as a value (for a dimension that is dynamic in some type).
  Value toValue(OpFoldResult size) {
    if (auto value = dyn_cast<Value>(size))
      return value;
    return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(size));
  }

  /// The product of `sizes` folded as far as the static ones allow.
  OpFoldResult product(ArrayRef<OpFoldResult> sizes) {
    int64_t constant = 1;
    Value dynamic;
    for (OpFoldResult size : sizes) {
      if (std::optional<int64_t> c = getConstantIntValue(size)) {
        constant *= *c;
        continue;
      }
      Value value = cast<Value>(size);
      dynamic = dynamic ? arith::MulIOp::create(b, loc, dynamic, value) : value;
    }
    if (!dynamic)
      return b.getIndexAttr(constant);
    if (constant != 1)
      dynamic = arith::MulIOp::create(
          b, loc, dynamic, arith::ConstantIndexOp::create(b, loc, constant));
    return dynamic;
  }

  /// The sizes of `shape`: its static sizes, and `sizes` (as values) for
  /// its dynamic ones.
  SmallVector<OpFoldResult> mixedShape(ArrayRef<int64_t> shape,
                                       const SizeFn &sizes) {
    SmallVector<OpFoldResult> mixed;
    for (auto [d, size] : llvm::enumerate(shape))
      mixed.push_back(ShapedType::isDynamic(size)
                          ? OpFoldResult(toValue(sizes(d)))
                          : OpFoldResult(b.getIndexAttr(size)));
    return mixed;
  }

  /// The sizes of a coarse shape built from dimensions of sizes `sizes`.
  SizeFn coarseSizes(const Groups &groups, SizeFn sizes) {
    return [this, groups, sizes](int64_t i) {
      return product(
          llvm::map_to_vector(groups[i], [&](int64_t d) { return sizes(d); }));
    };
  }

  Value transpose(Value value, ArrayRef<int64_t> permutation,
                  const SizeFn &sizes) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape = applyPermutation(type.getShape(), permutation);
    Value init = tensor::EmptyOp::create(
        b, loc,
        mixedShape(shape, [&](int64_t d) { return sizes(permutation[d]); }),
        type.getElementType());
    return linalg::TransposeOp::create(b, loc, value, init, permutation)
        ->getResult(0);
  }

  /// tensor.expand_shape, except when a group expands into more than one
  /// dynamic dimension: MLIR 22's expand-strided-metadata crashes on the
  /// bufferized form of those, so they become a tensor.reshape whose shape
  /// operand holds the sizes (a plain expand_shape once upstream's handles
  /// them).
  Value expandShape(RankedTensorType type, Value value,
                    ArrayRef<ReassociationIndices> reassociation,
                    ArrayRef<OpFoldResult> sizes) {
    bool severalDynamic = llvm::any_of(reassociation, [&](const auto &group) {
      return llvm::count_if(
                 group, [&](int64_t d) { return type.isDynamicDim(d); }) > 1;
    });
    if (!severalDynamic)
      return tensor::ExpandShapeOp::create(b, loc, type, value, reassociation,
                                           sizes);
    SmallVector<Value> shape = getValueOrCreateConstantIndexOp(
        b, loc, SmallVector<OpFoldResult>(sizes));
    Value shapeTensor = tensor::FromElementsOp::create(b, loc, shape);
    return tensor::ReshapeOp::create(b, loc, type, value, shapeTensor);
  }

  /// Reshapes `value` (of sizes `sizes`) into `groups`, whose non-unit
  /// dimensions are in order.
  Value reshapeToGroups(Value value, const SizeFn &sizes,
                        const Groups &groups) {
    auto type = cast<RankedTensorType>(value.getType());
    ReshapePlan plan = planReshape(type.getShape(), groups);
    if (plan.collapses)
      value = tensor::CollapseShapeOp::create(b, loc, value, plan.toCore);
    if (plan.expands) {
      SmallVector<int64_t> shape = coarseShape(type.getShape(), groups);
      value = expandShape(RankedTensorType::get(shape, type.getElementType()),
                          value, plan.coreToCoarse,
                          mixedShape(shape, coarseSizes(groups, sizes)));
    }
    return value;
  }

  /// The inverse of reshapeToGroups: `value` has the coarse shape of
  /// `groups`, the result has `type` (with sizes `sizes`).
  Value reshapeFromGroups(Value value, RankedTensorType type,
                          const SizeFn &sizes, const Groups &groups) {
    ReshapePlan plan = planReshape(type.getShape(), groups);
    if (plan.expands)
      value = tensor::CollapseShapeOp::create(b, loc, value, plan.coreToCoarse);
    if (plan.collapses)
      value = expandShape(type, value, plan.toCore,
                          mixedShape(type.getShape(), sizes));
    return value;
  }

  /// Brings `value` (with sizes `sizes`) into the coarse shape of `groups`,
  /// which name every dimension of `value` once.
  Value pack(Value value, const SizeFn &sizes, const Groups &groups) {
    auto type = cast<RankedTensorType>(value.getType());
    if (!needsTranspose(type.getShape(), groups))
      return reshapeToGroups(value, sizes, groups);
    SmallVector<int64_t> order = flatten(groups);
    value = transpose(value, order, sizes);
    return reshapeToGroups(
        value, [sizes, order](int64_t d) { return sizes(order[d]); },
        consecutive(groups));
  }

  /// The inverse of pack: `value` has the coarse shape of `groups` (over
  /// the dimensions of `type`, whose sizes are `sizes`).
  Value unpack(Value value, RankedTensorType type, const SizeFn &sizes,
               const Groups &groups) {
    if (!needsTranspose(type.getShape(), groups))
      return reshapeFromGroups(value, type, sizes, groups);
    SmallVector<int64_t> order = flatten(groups);
    SizeFn fineSizes = [sizes, order](int64_t d) { return sizes(order[d]); };
    auto fineType = RankedTensorType::get(
        applyPermutation(type.getShape(), order), type.getElementType());
    value = reshapeFromGroups(value, fineType, fineSizes, consecutive(groups));
    return transpose(value, invertPermutationVector(order), fineSizes);
  }

  /// Brings the group sizes `value` into the coarse shape `groups` over a
  /// fine shape `fineShape` (sizes `fineSizes`), of which `value` holds the
  /// dimensions `srcToFine` (in any order); the others are broadcast. The
  /// groups list the fine dimensions in order.
  Value packBroadcast(Value value, ArrayRef<int64_t> srcToFine,
                      ArrayRef<int64_t> fineShape, const SizeFn &fineSizes,
                      const Groups &groups) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t rank = type.getRank();
    SizeFn sizes = [this, value](int64_t d) { return dimOf(value, d); };
    SmallVector<int64_t> fineToSrc(fineShape.size(), -1);
    for (auto [src, fine] : llvm::enumerate(srcToFine))
      fineToSrc[fine] = src;
    auto overSrc = [&](const SmallVector<int64_t> &group) {
      return llvm::map_to_vector(group,
                                 [&](int64_t f) { return fineToSrc[f]; });
    };
    if (rank == static_cast<int64_t>(fineShape.size()))
      return pack(value, sizes, llvm::map_to_vector(groups, overSrc));

    // Tiny tensors: order the dimensions strictly, so that the broadcasts
    // below only insert dimensions.
    SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(rank));
    llvm::sort(order, [&](int64_t x, int64_t y) {
      return srcToFine[x] < srcToFine[y];
    });
    if (!llvm::is_sorted(srcToFine)) {
      value = transpose(value, order, sizes);
      sizes = [sizes, order](int64_t d) { return sizes(order[d]); };
      type = cast<RankedTensorType>(value.getType());
      for (auto [src, fine] :
           llvm::enumerate(applyPermutation(srcToFine, order)))
        fineToSrc[fine] = src;
    }
    auto present = [&](int64_t f) { return fineToSrc[f] >= 0; };
    bool partial = llvm::any_of(groups, [&](const SmallVector<int64_t> &g) {
      return llvm::any_of(g, present) && !llvm::all_of(g, present);
    });

    if (partial) {
      // Broadcast to the full fine shape, with a unit dimension for each
      // empty group, then collapse into the groups.
      SmallVector<int64_t> full; // Fine dimensions, -1 for a unit one.
      Groups fullGroups;
      for (const SmallVector<int64_t> &group : groups) {
        SmallVector<int64_t> &members = fullGroups.emplace_back();
        SmallVector<int64_t> fine =
            group.empty() ? SmallVector<int64_t>{-1} : group;
        for (int64_t f : fine) {
          members.push_back(full.size());
          full.push_back(f);
        }
      }
      SmallVector<int64_t> shape, added;
      for (auto [i, f] : llvm::enumerate(full)) {
        if (f >= 0 && present(f)) {
          shape.push_back(type.getDimSize(fineToSrc[f]));
          continue;
        }
        shape.push_back(f >= 0 ? fineShape[f] : 1);
        added.push_back(i);
      }
      SizeFn fullSizes = [this, sizes, fineSizes, fineToSrc,
                          full](int64_t i) -> OpFoldResult {
        int64_t f = full[i];
        if (f < 0)
          return b.getIndexAttr(1);
        return fineToSrc[f] >= 0 ? sizes(fineToSrc[f]) : fineSizes(f);
      };
      Value init = tensor::EmptyOp::create(b, loc, mixedShape(shape, fullSizes),
                                           type.getElementType());
      value =
          linalg::BroadcastOp::create(b, loc, value, init, added)->getResult(0);
      return reshapeToGroups(value, fullSizes, fullGroups);
    }

    // Every coarse dimension is either held by `value` or broadcast whole.
    Groups held;
    SmallVector<int64_t> added;
    SmallVector<int64_t> shape;
    for (auto [i, group] : llvm::enumerate(groups)) {
      if (!group.empty() && present(group.front())) {
        held.push_back(overSrc(group));
        shape.push_back(staticProduct(type.getShape(), held.back()));
      } else {
        added.push_back(i);
        shape.push_back(staticProduct(fineShape, group));
      }
    }
    if (added.empty())
      return reshapeToGroups(value, sizes, held);
    value = reshapeToGroups(value, sizes, held);
    SizeFn coarse = [this, groups, sizes, fineSizes, fineToSrc](int64_t i) {
      return product(llvm::map_to_vector(groups[i], [&](int64_t f) {
        return fineToSrc[f] >= 0 ? sizes(fineToSrc[f]) : fineSizes(f);
      }));
    };
    Value init = tensor::EmptyOp::create(b, loc, mixedShape(shape, coarse),
                                         type.getElementType());
    return linalg::BroadcastOp::create(b, loc, value, init, added)
        ->getResult(0);
  }

  RewriterBase &b;
  Location loc;

private:
  /// `groups` renumbered to consecutive dimensions (after a transpose into
  /// their order).
  static Groups consecutive(const Groups &groups) {
    Groups result;
    int64_t next = 0;
    for (const SmallVector<int64_t> &group : groups) {
      SmallVector<int64_t> &renumbered = result.emplace_back();
      for (size_t i = 0; i < group.size(); ++i)
        renumbered.push_back(next++);
    }
    return result;
  }

  DenseMap<std::pair<Value, int64_t>, OpFoldResult> dims;
};

/// How one op is normalized: the groups of every operand and of the result,
/// and the normalized dimension numbers.
struct Plan {
  Groups lhs, rhs, result;
  /// Group sizes (modes 1 and 2): the fine shape is made of the lhs
  /// dimensions `gsFineLhsDims` (-1 for the group dimension, and for unit
  /// dimensions that only the group sizes have); `gsSrcToFine` places the
  /// group sizes' dimensions in it; `gsGroups` are over the fine shape.
  SmallVector<int64_t> gsFineLhsDims, gsSrcToFine;
  Groups gsGroups;
  /// Mode 3: the lhs dimensions whose product is the single group's size.
  SmallVector<int64_t> rowDims;
  bool singleGroup = false;
  bool rhsKLast = false, lhsMFirst = false, rhsNFirst = false;
  int64_t cost = 0;
};

/// Candidate orders of paired dimensions `pairs` (indices into `lhsDims` /
/// `rhsDims`): as listed, in lhs order, in rhs order.
SmallVector<SmallVector<int64_t>> orderCandidates(ArrayRef<int64_t> pairs,
                                                  ArrayRef<int64_t> lhsDims,
                                                  ArrayRef<int64_t> rhsDims) {
  SmallVector<SmallVector<int64_t>> candidates;
  SmallVector<int64_t> listed(pairs);
  SmallVector<int64_t> byLhs(pairs), byRhs(pairs);
  // No ties: the dimensions of one operand are distinct.
  llvm::sort(byLhs,
             [&](int64_t x, int64_t y) { return lhsDims[x] < lhsDims[y]; });
  llvm::sort(byRhs,
             [&](int64_t x, int64_t y) { return rhsDims[x] < rhsDims[y]; });
  for (const SmallVector<int64_t> &order : {listed, byLhs, byRhs})
    if (!llvm::is_contained(candidates, order))
      candidates.push_back(order);
  return candidates;
}

/// The plans for `op` in every layout the normalized forms allow; fails for
/// ops that cannot be normalized.
FailureOr<Plan> choosePlan(RaggedDotOp op) {
  RaggedDotDimensionNumbersAttr dims = op.getDimensionNumbers();
  ArrayRef<int64_t> lb = dims.getLhsBatchingDimensions();
  ArrayRef<int64_t> rb = dims.getRhsBatchingDimensions();
  ArrayRef<int64_t> lc = dims.getLhsContractingDimensions();
  ArrayRef<int64_t> rc = dims.getRhsContractingDimensions();
  int64_t ragged = op.getLhsRaggedDimension();
  RaggedDotMode mode = op.getMode();
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  RankedTensorType gsType = op.getGroupSizes().getType();
  RankedTensorType resultType = op.getResult().getType();
  int64_t nb = lb.size();
  int64_t gsRank = gsType.getRank();

  SmallVector<int64_t> lhsFree, rhsFree;
  for (int64_t d = 0; d < lhsType.getRank(); ++d)
    if (!llvm::is_contained(lb, d) && !llvm::is_contained(lc, d))
      lhsFree.push_back(d);
  std::optional<int64_t> rhsGroup = op.getRhsGroupDimension();
  for (int64_t d = 0; d < rhsType.getRank(); ++d)
    if (!llvm::is_contained(rb, d) && !llvm::is_contained(rc, d) &&
        rhsGroup != d)
      rhsFree.push_back(d);
  int64_t nlf = lhsFree.size();
  // Result dimensions: [G] (mode 2), batching, lhs free, rhs free.
  int64_t resultOffset = mode == RaggedDotMode::Contracting ? 1 : 0;

  // The contracting pairs other than the ragged one (mode 2), or all.
  SmallVector<int64_t> contractPairs;
  int64_t raggedPair = -1;
  for (int64_t j = 0, e = lc.size(); j < e; ++j) {
    if (lc[j] == ragged)
      raggedPair = j;
    else
      contractPairs.push_back(j);
  }

  // Mode 2: the group sizes' prefix may name contracting dimensions listed
  // before the ragged one; only unit ones (which do not vary) are accepted.
  SmallVector<int64_t> unitPrefix;
  if (mode == RaggedDotMode::Contracting && gsRank > 1) {
    for (int64_t j = 0; j < raggedPair; ++j) {
      if (!isUnit(gsType.getDimSize(nb + j)) &&
          !isUnit(lhsType.getDimSize(lc[j])))
        return failure();
      unitPrefix.push_back(nb + j);
    }
  }

  auto mapDims = [](ArrayRef<int64_t> order, ArrayRef<int64_t> list) {
    return llvm::map_to_vector(order, [&](int64_t i) { return list[i]; });
  };
  auto resultBatch = [&](ArrayRef<int64_t> order) {
    return llvm::map_to_vector(order,
                               [&](int64_t i) { return resultOffset + i; });
  };
  auto resultLhsFree = [&](ArrayRef<int64_t> free) {
    return llvm::map_to_vector(free, [&](int64_t d) {
      return resultOffset + nb +
             static_cast<int64_t>(llvm::find(lhsFree, d) - lhsFree.begin());
    });
  };
  SmallVector<int64_t> resultRhsFree;
  for (int64_t t = 0, e = rhsFree.size(); t < e; ++t)
    resultRhsFree.push_back(resultOffset + nb + nlf + t);

  SmallVector<int64_t> batchPairs = llvm::to_vector(llvm::seq<int64_t>(nb));
  std::optional<Plan> best;
  auto consider = [&](Plan plan) {
    auto cost = [&](Type type, const Groups &groups) {
      return needsTranspose(cast<RankedTensorType>(type).getShape(), groups)
                 ? 100
                 : 0;
    };
    plan.cost = cost(lhsType, plan.lhs) + cost(rhsType, plan.rhs) +
                cost(resultType, plan.result) * (op.getInit() ? 2 : 1);
    if (!plan.gsSrcToFine.empty() && !llvm::is_sorted(plan.gsSrcToFine))
      plan.cost += 1;
    if (!best || plan.cost < best->cost)
      best = std::move(plan);
  };

  for (const SmallVector<int64_t> &bOrder :
       orderCandidates(batchPairs, lb, rb)) {
    SmallVector<int64_t> lhsB = mapDims(bOrder, lb);
    SmallVector<int64_t> rhsB = mapDims(bOrder, rb);
    for (const SmallVector<int64_t> &kOrder :
         orderCandidates(contractPairs, lc, rc)) {
      SmallVector<int64_t> lhsK = mapDims(kOrder, lc);
      SmallVector<int64_t> rhsK = mapDims(kOrder, rc);
      switch (mode) {
      case RaggedDotMode::NonContracting:
      case RaggedDotMode::Batch: {
        bool batch = mode == RaggedDotMode::Batch;
        SmallVector<int64_t> x, m;
        for (int64_t d : lhsFree)
          (batch || d == ragged ? m : x).push_back(d);
        SmallVector<int64_t> g;
        if (rhsGroup)
          g.push_back(*rhsGroup);
        for (bool kLast : {false, true}) {
          Plan plan;
          plan.lhs = {lhsB, x, m, lhsK};
          plan.rhs = kLast ? Groups{rhsB, g, rhsFree, rhsK}
                           : Groups{rhsB, g, rhsK, rhsFree};
          plan.rhsKLast = kLast;
          plan.result = {resultBatch(bOrder), resultLhsFree(x),
                         resultLhsFree(m), resultRhsFree};
          if (batch) {
            plan.singleGroup = true;
            plan.rowDims = m;
          } else {
            // Fine shape: batching dims (in B order), X dims, g.
            plan.gsFineLhsDims = lhsB;
            plan.gsFineLhsDims.append(x);
            plan.gsFineLhsDims.push_back(-1);
            int64_t nx = x.size();
            plan.gsGroups = {llvm::to_vector(llvm::seq<int64_t>(0, nb)),
                             llvm::to_vector(llvm::seq<int64_t>(nb, nb + nx)),
                             {nb + nx}};
            if (gsRank > 1) {
              for (int64_t i = 0; i < nb; ++i)
                plan.gsSrcToFine.push_back(llvm::find(bOrder, i) -
                                           bOrder.begin());
              // The prefix's free dims are the X dims before the ragged one,
              // which come first in X.
              for (int64_t t = 0; t < gsRank - 1 - nb; ++t)
                plan.gsSrcToFine.push_back(nb + t);
            }
            plan.gsSrcToFine.push_back(nb + nx);
          }
          consider(std::move(plan));
        }
        break;
      }
      case RaggedDotMode::Contracting: {
        SmallVector<int64_t> kr{lc[raggedPair]}, rkr{rc[raggedPair]};
        for (bool mFirst : {false, true}) {
          for (bool nFirst : {false, true}) {
            Plan plan;
            plan.lhs = mFirst ? Groups{lhsB, lhsFree, kr, lhsK}
                              : Groups{lhsB, kr, lhsK, lhsFree};
            plan.rhs = nFirst ? Groups{rhsB, rhsFree, rkr, rhsK}
                              : Groups{rhsB, rkr, rhsK, rhsFree};
            plan.lhsMFirst = mFirst;
            plan.rhsNFirst = nFirst;
            plan.result = {{0},
                           resultBatch(bOrder),
                           resultLhsFree(lhsFree),
                           resultRhsFree};
            // Fine shape: batching dims (in B order), unit prefix dims, g.
            plan.gsFineLhsDims = lhsB;
            int64_t nu = unitPrefix.size();
            plan.gsFineLhsDims.append(nu, -1);
            plan.gsFineLhsDims.push_back(-1);
            plan.gsGroups = {
                llvm::to_vector(llvm::seq<int64_t>(0, nb)),
                llvm::to_vector(llvm::seq<int64_t>(nb, nb + nu + 1))};
            if (gsRank > 1) {
              for (int64_t i = 0; i < nb; ++i)
                plan.gsSrcToFine.push_back(llvm::find(bOrder, i) -
                                           bOrder.begin());
              for (int64_t t = 0; t < nu; ++t)
                plan.gsSrcToFine.push_back(nb + t);
            }
            plan.gsSrcToFine.push_back(nb + nu);
            consider(std::move(plan));
          }
        }
        break;
      }
      }
    }
  }
  return *best;
}

} // namespace

FailureOr<RaggedDotOp> mlir::gmm::normalizeRaggedDot(RewriterBase &rewriter,
                                                     RaggedDotOp op) {
  if (op.isNormalized())
    return failure();
  // An operand with a static zero dimension makes every reshape group that
  // holds it statically empty, which MLIR 22's canonicalizations and
  // bufferization disagree about (collapse_shape of a 0 x ? group). There is
  // nothing to tile in such an op: leave it to the reference lowering (this
  // check can go once upstream agrees with itself on such groups).
  auto hasZeroDim = [](Value v) {
    return v && llvm::is_contained(
                    cast<RankedTensorType>(v.getType()).getShape(), 0);
  };
  if (llvm::any_of(op->getOperands(), hasZeroDim) || hasZeroDim(op.getResult()))
    return failure();
  FailureOr<Plan> maybePlan = choosePlan(op);
  if (failed(maybePlan))
    return failure();
  const Plan &plan = *maybePlan;

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Normalizer n(rewriter, loc);
  Value lhs = op.getLhs(), rhs = op.getRhs(), gs = op.getGroupSizes();
  Value init = op.getInit();
  RankedTensorType resultType = op.getResult().getType();
  RaggedDotMode mode = op.getMode();
  RaggedDotDimensionNumbersAttr dims = op.getDimensionNumbers();
  auto sizesOf = [&](Value value) -> SizeFn {
    return [&n, value](int64_t d) { return n.dimOf(value, d); };
  };

  Value newLhs = n.pack(lhs, sizesOf(lhs), plan.lhs);
  Value newRhs = n.pack(rhs, sizesOf(rhs), plan.rhs);

  Value newGs;
  auto gsType = cast<RankedTensorType>(gs.getType());
  if (plan.singleGroup) {
    // Mode 3: one group of all rows of each batch element. Its size is the
    // row count, saturated to the element type (larger sizes are cut to the
    // extent anyway).
    auto intType = cast<IntegerType>(gsType.getElementType());
    int64_t maxSize = intType.getWidth() == 32
                          ? std::numeric_limits<int32_t>::max()
                          : std::numeric_limits<int64_t>::max();
    OpFoldResult rows = n.product(llvm::map_to_vector(
        plan.rowDims, [&](int64_t d) { return n.dimOf(lhs, d); }));
    Value size;
    if (std::optional<int64_t> c = getConstantIntValue(rows)) {
      size = arith::ConstantIntOp::create(rewriter, loc, intType,
                                          std::min(*c, maxSize));
    } else {
      Type i64 = rewriter.getI64Type();
      size = arith::IndexCastOp::create(rewriter, loc, i64, cast<Value>(rows));
      size = arith::MinSIOp::create(
          rewriter, loc, size,
          arith::ConstantIntOp::create(rewriter, loc, i64, maxSize));
      if (intType.getWidth() != 64)
        size = arith::TruncIOp::create(rewriter, loc, intType, size);
    }
    // [B, X, 1], with B and X as in the normalized lhs.
    auto newLhsType = cast<RankedTensorType>(newLhs.getType());
    SmallVector<int64_t> shape{newLhsType.getDimSize(0),
                               newLhsType.getDimSize(1), 1};
    SizeFn sizes = [&](int64_t d) -> OpFoldResult {
      if (d == 2)
        return rewriter.getIndexAttr(1);
      return n.product(llvm::map_to_vector(
          plan.lhs[d], [&](int64_t l) { return n.dimOf(lhs, l); }));
    };
    Value empty = tensor::EmptyOp::create(rewriter, loc,
                                          n.mixedShape(shape, sizes), intType);
    newGs = linalg::FillOp::create(rewriter, loc, size, empty).getResult(0);
  } else {
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    SmallVector<int64_t> fineShape =
        llvm::map_to_vector(plan.gsFineLhsDims, [&](int64_t d) -> int64_t {
          return d >= 0 ? lhsType.getDimSize(d) : 1;
        });
    // The group dimension is always held by the group sizes.
    fineShape.back() = gsType.getShape().back();
    SizeFn fineSizes = [&](int64_t f) -> OpFoldResult {
      int64_t d = plan.gsFineLhsDims[f];
      return d >= 0 ? n.dimOf(lhs, d) : rewriter.getIndexAttr(1);
    };
    newGs = n.packBroadcast(gs, plan.gsSrcToFine, fineShape, fineSizes,
                            plan.gsGroups);
  }

  // The result sizes, from the operands the verifier ties them to.
  SmallVector<int64_t> lhsFree, rhsFree;
  {
    ArrayRef<int64_t> lb = dims.getLhsBatchingDimensions();
    ArrayRef<int64_t> lc = dims.getLhsContractingDimensions();
    ArrayRef<int64_t> rb = dims.getRhsBatchingDimensions();
    ArrayRef<int64_t> rc = dims.getRhsContractingDimensions();
    for (int64_t d = 0; d < op.getLhs().getType().getRank(); ++d)
      if (!llvm::is_contained(lb, d) && !llvm::is_contained(lc, d))
        lhsFree.push_back(d);
    for (int64_t d = 0; d < op.getRhs().getType().getRank(); ++d)
      if (!llvm::is_contained(rb, d) && !llvm::is_contained(rc, d) &&
          op.getRhsGroupDimension() != d)
        rhsFree.push_back(d);
  }
  SizeFn resultSizes = [&](int64_t d) -> OpFoldResult {
    if (init)
      return n.dimOf(init, d);
    if (mode == RaggedDotMode::Contracting) {
      if (d == 0)
        return n.dimOf(gs, gsType.getRank() - 1);
      --d;
    }
    int64_t nb = dims.getLhsBatchingDimensions().size();
    if (d < nb)
      return n.dimOf(lhs, dims.getLhsBatchingDimensions()[d]);
    d -= nb;
    if (d < static_cast<int64_t>(lhsFree.size()))
      return n.dimOf(lhs, lhsFree[d]);
    return n.dimOf(rhs, rhsFree[d - lhsFree.size()]);
  };

  Value newInit;
  if (init)
    newInit = n.pack(init, sizesOf(init), plan.result);
  auto newResultType =
      RankedTensorType::get(coarseShape(resultType.getShape(), plan.result),
                            resultType.getElementType());

  MLIRContext *ctx = rewriter.getContext();
  RaggedDotDimensionNumbersAttr newDims;
  if (mode == RaggedDotMode::Contracting) {
    SmallVector<int64_t> lhsContract = plan.lhsMFirst
                                           ? SmallVector<int64_t>{2, 3}
                                           : SmallVector<int64_t>{1, 2};
    SmallVector<int64_t> rhsContract = plan.rhsNFirst
                                           ? SmallVector<int64_t>{2, 3}
                                           : SmallVector<int64_t>{1, 2};
    newDims = RaggedDotDimensionNumbersAttr::get(
        ctx, {0}, {0}, lhsContract, rhsContract, {lhsContract.front()}, {});
  } else {
    newDims = RaggedDotDimensionNumbersAttr::get(
        ctx, {0}, {0}, {3}, {plan.rhsKLast ? 3 : 2}, {2}, {1});
  }
  auto newOp =
      RaggedDotOp::create(rewriter, loc, newResultType, newLhs, newRhs, newGs,
                          op.getGroupOffset(), newInit, newDims);
  newOp->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  assert(newOp.isNormalized() && "normalization missed a normalized form");

  Value result =
      n.unpack(newOp.getResult(), resultType, resultSizes, plan.result);
  if (result.getType() != resultType)
    result = tensor::CastOp::create(rewriter, loc, resultType, result);
  rewriter.replaceOp(op, result);
  return newOp;
}

namespace {
struct NormalizeRaggedDotPattern : OpRewritePattern<RaggedDotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RaggedDotOp op,
                                PatternRewriter &rewriter) const override {
    return normalizeRaggedDot(rewriter, op);
  }
};

struct GMMNormalize : public mlir::gmm::impl::GMMNormalizeBase<GMMNormalize> {
  void runOnOperation() override {
    SmallVector<RaggedDotOp> ops;
    getOperation()->walk([&](RaggedDotOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (RaggedDotOp op : ops)
      (void)normalizeRaggedDot(rewriter, op);
  }
};
} // namespace

void mlir::gmm::populateGMMNormalizePatterns(RewritePatternSet &patterns) {
  patterns.add<NormalizeRaggedDotPattern>(patterns.getContext());
}
