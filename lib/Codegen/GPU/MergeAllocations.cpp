//===- MergeAllocations.cpp - one device allocation for the temporaries --===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-merge-allocations: the temporary device buffers of a host block
// become views of one gpu.alloc of bytes, freed where the last of them was
// (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUMERGEALLOCATIONS
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// The alignment of each buffer in the merged allocation, in bytes.
constexpr int64_t kAlignment = 256;

/// A temporary buffer: its allocation and the free of it.
struct Temporary {
  gpu::AllocOp alloc;
  gpu::DeallocOp dealloc;
};

/// The bytes of one element of `type`, or 0 if it is not a scalar whose
/// size the pass knows.
int64_t elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat() && type.getIntOrFloatBitWidth() % 8 == 0)
    return type.getIntOrFloatBitWidth() / 8;
  return 0;
}

/// The temporary that `alloc` is, if it is one.
std::optional<Temporary> asTemporary(gpu::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (alloc.getAsyncToken() || !alloc.getAsyncDependencies().empty() ||
      alloc.getHostShared() || !alloc.getSymbolOperands().empty() ||
      !type.getLayout().isIdentity() || type.getMemorySpace() ||
      !elementBytes(type.getElementType()))
    return std::nullopt;
  gpu::DeallocOp dealloc;
  for (Operation *user : alloc.getMemref().getUsers())
    if (auto free = dyn_cast<gpu::DeallocOp>(user)) {
      if (dealloc || free->getBlock() != alloc->getBlock() ||
          free.getAsyncToken())
        return std::nullopt;
      dealloc = free;
    }
  if (!dealloc)
    return std::nullopt;
  return Temporary{alloc, dealloc};
}

/// Replaces the allocations of `group` (at least two, in program order)
/// with views of one allocation at the first one.
void merge(RewriterBase &rewriter, ArrayRef<Temporary> group) {
  gpu::AllocOp first = group.front().alloc;
  Location loc = first.getLoc();
  rewriter.setInsertionPoint(first);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // Offsets and the total, on the host (folded where the sizes are static).
  auto mul = [&](Value a, Value b) {
    return rewriter.createOrFold<arith::MulIOp>(loc, a, b);
  };
  auto add = [&](Value a, Value b) {
    return rewriter.createOrFold<arith::AddIOp>(loc, a, b);
  };
  SmallVector<Value> offsets;
  Value offset = cst(0), align = cst(kAlignment);
  for (Temporary t : group) {
    offsets.push_back(offset);
    MemRefType type = t.alloc.getType();
    Value bytes = cst(elementBytes(type.getElementType()));
    auto dynamic = t.alloc.getDynamicSizes().begin();
    for (int64_t dim : type.getShape())
      bytes = mul(bytes, ShapedType::isDynamic(dim) ? *dynamic++ : cst(dim));
    // The end, rounded up to the alignment.
    Value end = add(add(offset, bytes), cst(kAlignment - 1));
    offset = mul(rewriter.createOrFold<arith::DivUIOp>(loc, end, align), align);
  }
  auto bytesType =
      MemRefType::get({ShapedType::kDynamic}, rewriter.getIntegerType(8));
  auto merged =
      gpu::AllocOp::create(rewriter, loc, bytesType, Type(), ValueRange{},
                           ValueRange{offset}, ValueRange{},
                           /*hostShared=*/false);

  // Each member a view at its own allocation's place.
  gpu::DeallocOp lastFree = group.front().dealloc;
  for (auto [member, at] : llvm::zip(group, offsets)) {
    Temporary t = member;
    rewriter.setInsertionPoint(t.alloc);
    Value view = memref::ViewOp::create(rewriter, t.alloc.getLoc(),
                                        t.alloc.getType(), merged.getMemref(),
                                        at, t.alloc.getDynamicSizes());
    if (lastFree->isBeforeInBlock(t.dealloc))
      lastFree = t.dealloc;
    rewriter.replaceOp(t.alloc, view);
  }
  rewriter.setInsertionPoint(lastFree);
  gpu::DeallocOp::create(rewriter, lastFree.getLoc(), Type(), ValueRange{},
                         merged.getMemref());
  for (Temporary t : group)
    rewriter.eraseOp(t.dealloc);
}

struct MergeAllocations
    : public mlir::gmm::impl::GMMGPUMergeAllocationsBase<MergeAllocations> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The temporaries of each host block, in program order.
    llvm::MapVector<Block *, SmallVector<Temporary>> temporaries;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto alloc = dyn_cast<gpu::AllocOp>(op))
        if (std::optional<Temporary> t = asTemporary(alloc))
          temporaries[alloc->getBlock()].push_back(*t);
      return WalkResult::advance();
    });
    // Grouped while each one's sizes are known at the group's first.
    SmallVector<SmallVector<Temporary>> groups;
    for (auto &[block, list] : temporaries) {
      SmallVector<Temporary> group;
      for (Temporary t : list) {
        // A size used in this block is defined in it, in an enclosing
        // block (before it) or is a block argument.
        bool sized = !group.empty() &&
                     llvm::all_of(t.alloc.getDynamicSizes(), [&](Value v) {
                       Operation *def = v.getDefiningOp();
                       return !def || def->getBlock() != block ||
                              def->isBeforeInBlock(group.front().alloc);
                     });
        if (!group.empty() && !sized) {
          groups.push_back(std::move(group));
          group.clear();
        }
        group.push_back(t);
      }
      groups.push_back(std::move(group));
    }
    IRRewriter rewriter(&getContext());
    for (ArrayRef<Temporary> group : groups)
      if (group.size() > 1)
        merge(rewriter, group);
  }
};

} // namespace
