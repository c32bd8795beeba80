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
#include "gmm/Codegen/GPU/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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

/// Replaces the allocations of `group` (in program order) with views of one
/// buffer at the first one: a new allocation, or `workspace` (a caller's
/// memref<?xi8>) when it is large enough, else an allocation after all.
/// Returns the buffer's size in bytes, computed before the first
/// allocation.
Value merge(RewriterBase &rewriter, ArrayRef<Temporary> group,
            Value workspace = {}) {
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
  auto allocate = [&](OpBuilder &b) {
    return gpu::AllocOp::create(b, loc, bytesType, Type(), ValueRange{},
                                ValueRange{offset}, ValueRange{},
                                /*hostShared=*/false)
        .getMemref();
  };
  Value buffer, fits;
  if (workspace) {
    Value size = memref::DimOp::create(rewriter, loc, workspace, 0);
    fits = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, size,
                                 offset);
    auto ifFits = scf::IfOp::create(
        rewriter, loc, fits,
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, workspace);
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, allocate(b));
        });
    buffer = ifFits.getResult(0);
  } else {
    buffer = allocate(rewriter);
  }

  // Each member a view at its own allocation's place.
  gpu::DeallocOp lastFree = group.front().dealloc;
  for (auto [member, at] : llvm::zip(group, offsets)) {
    Temporary t = member;
    rewriter.setInsertionPoint(t.alloc);
    Value view =
        memref::ViewOp::create(rewriter, t.alloc.getLoc(), t.alloc.getType(),
                               buffer, at, t.alloc.getDynamicSizes());
    if (lastFree->isBeforeInBlock(t.dealloc))
      lastFree = t.dealloc;
    rewriter.replaceOp(t.alloc, view);
  }
  rewriter.setInsertionPoint(lastFree);
  Location freeLoc = lastFree.getLoc();
  if (workspace) {
    // Only what was allocated here is freed.
    Value allocated = arith::XOrIOp::create(
        rewriter, freeLoc, fits,
        arith::ConstantIntOp::create(rewriter, freeLoc, 1, 1));
    scf::IfOp::create(
        rewriter, freeLoc, allocated, [&](OpBuilder &b, Location loc) {
          gpu::DeallocOp::create(b, loc, Type(), ValueRange{}, buffer);
          scf::YieldOp::create(b, loc);
        });
  } else {
    gpu::DeallocOp::create(rewriter, freeLoc, Type(), ValueRange{}, buffer);
  }
  for (Temporary t : group)
    rewriter.eraseOp(t.dealloc);
  return offset;
}

/// Creates, after `func`, `@<name>_workspace_bytes` with `func`'s first
/// `numArgs` arguments, returning `bytes` (a value of `func`'s entry block;
/// 0 when null), by cloning what computes it. Returns failure, creating
/// nothing, when `bytes` depends on anything but those arguments through
/// side-effect-free ops of the entry block.
LogicalResult createSizeFunction(RewriterBase &rewriter, func::FuncOp func,
                                 unsigned numArgs, Value bytes) {
  Block &entry = func.getBody().front();
  SetVector<Operation *> slice;
  bool clean = true;
  SmallVector<Value> worklist;
  if (bytes)
    worklist.push_back(bytes);
  llvm::SmallPtrSet<Value, 16> seen;
  while (!worklist.empty() && clean) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      clean = arg.getOwner() == &entry && arg.getArgNumber() < numArgs;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != &entry || def->getNumRegions() ||
        !isMemoryEffectFree(def)) {
      clean = false;
      continue;
    }
    slice.insert(def);
    for (Value operand : def->getOperands())
      worklist.push_back(operand);
  }
  if (!clean)
    return failure();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfter(func);
  SmallVector<Type> inputs(
      func.getFunctionType().getInputs().take_front(numArgs));
  auto size = func::FuncOp::create(
      rewriter, func.getLoc(),
      (func.getName() + gmm::kWorkspaceBytesSuffix).str(),
      rewriter.getFunctionType(inputs, rewriter.getIndexType()));
  size->setAttr(gmm::kWorkspaceSizeOfAttrName,
                FlatSymbolRefAttr::get(func.getSymNameAttr()));
  if (func->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName()))
    size->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  rewriter.getUnitAttr());
  Block *body = size.addEntryBlock();
  rewriter.setInsertionPointToStart(body);
  IRMapping mapping;
  for (unsigned i = 0; i < numArgs; ++i)
    mapping.map(entry.getArgument(i), body->getArgument(i));
  // In program order, so that operands are cloned before their users.
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    rewriter.clone(*op, mapping);
  Value result =
      bytes ? mapping.lookupOrDefault(bytes)
            : arith::ConstantIndexOp::create(rewriter, func.getLoc(), 0);
  func::ReturnOp::create(rewriter, func.getLoc(), result);
  return success();
}

/// The temporaries of `func`, grouped per host block while each one's sizes
/// are known at its group's first allocation; in program order.
SmallVector<SmallVector<Temporary>> groupTemporaries(func::FuncOp func) {
  llvm::MapVector<Block *, SmallVector<Temporary>> temporaries;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (auto alloc = dyn_cast<gpu::AllocOp>(op))
      if (std::optional<Temporary> t = asTemporary(alloc))
        temporaries[alloc->getBlock()].push_back(*t);
    return WalkResult::advance();
  });
  SmallVector<SmallVector<Temporary>> groups;
  for (auto &entry : temporaries) {
    Block *block = entry.first;
    SmallVector<Temporary> group;
    for (Temporary t : entry.second) {
      // A size used in this block is defined in it, in an enclosing block
      // (before it) or is a block argument.
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
  return groups;
}

struct MergeAllocations
    : public mlir::gmm::impl::GMMGPUMergeAllocationsBase<MergeAllocations> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> funcs = gmm::hostFunctions(getOperation());
    auto bytesType =
        MemRefType::get({ShapedType::kDynamic}, rewriter.getIntegerType(8));
    // A call of one of the functions passes an empty workspace (a view of
    // none of the caller's bytes, which the caller may be using): the
    // callee allocates its temporaries itself.
    if (workspaceArgument &&
        failed(gmm::appendArgumentEverywhere(
            funcs, bytesType, gmm::kWorkspaceAttrName,
            [&](OpBuilder &b, func::CallOp call, Value workspace) -> Value {
              return memref::ReinterpretCastOp::create(
                  b, call.getLoc(), bytesType, workspace, b.getIndexAttr(0),
                  ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
                  ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
            })))
      return signalPassFailure();
    for (func::FuncOp func : funcs) {
      SmallVector<SmallVector<Temporary>> groups = groupTemporaries(func);
      Value workspace;
      unsigned numArgs = func.getNumArguments();
      if (workspaceArgument) {
        workspace = func.getArguments().back();
        --numArgs;
      }
      Block *entry = &func.getBody().front();
      // The entry block's first group goes in the caller's workspace.
      Value bytes;
      for (ArrayRef<Temporary> group : groups) {
        if (workspace && !bytes && group.front().alloc->getBlock() == entry)
          bytes = merge(rewriter, group, workspace);
        else if (group.size() > 1)
          merge(rewriter, group);
      }
      if (workspace &&
          failed(createSizeFunction(rewriter, func, numArgs, bytes))) {
        // The caller cannot be told the size: it passes none, and the
        // function allocates.
        func.emitRemark("gmm-gpu-merge-allocations: the workspace size "
                        "depends on more than the argument shapes; the "
                        "function allocates its temporaries itself");
        if (failed(createSizeFunction(rewriter, func, numArgs, Value())))
          return signalPassFailure();
      }
    }
  }
};

} // namespace
