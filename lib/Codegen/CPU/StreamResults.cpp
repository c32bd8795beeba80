//===- StreamResults.cpp - streaming stores for large results -------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-cpu-stream-results: the tile visits' stores into a large result become
// non-temporal (streaming) stores where their address is aligned, so that
// writing a result much larger than the caches costs one pass over memory
// rather than two (a cache line is otherwise read before it is written).
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMCPUSTREAMRESULTS
#include "gmm/Codegen/CPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// The widest vector register of the CPUs gmm compiles for (AVX-512's),
/// in bytes: a store of a wider vector becomes stores of this size.
constexpr int64_t kMaxVectorBytes = 64;

/// The body of the parallel loop (over tile visits) that `op` is in, or
/// null: an omp.loop_nest's (after convert-scf-to-openmp) or an
/// scf.parallel's (without OpenMP).
Operation *visitLoopOf(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<omp::LoopNestOp, scf::ParallelOp>(parent))
      return parent;
  return nullptr;
}

/// The buffer that `view` is a view of, through subviews, reshapes and
/// casts.
Value rootOf(Value view) {
  while (auto viewLike = view.getDefiningOp<ViewLikeOpInterface>()) {
    if (viewLike.getViewDest() != view)
      break;
    view = viewLike.getViewSource();
  }
  return view;
}

/// Whether `buffer` (a root) is defined inside `loop`: a visit's own
/// scratch buffer (packed panels, accumulators) rather than the result.
bool definedInside(Value buffer, Operation *loop) {
  Region *region = buffer.getParentRegion();
  return region && loop->isAncestor(region->getParentOp());
}

/// The size in bytes of a statically shaped memref, or nullopt.
std::optional<uint64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  uint64_t bytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  for (int64_t size : type.getShape()) {
    if (size != 0 && bytes > UINT64_MAX / static_cast<uint64_t>(size))
      return UINT64_MAX;
    bytes *= static_cast<uint64_t>(size);
  }
  return bytes;
}

/// Stores `vector` (of 16-bit floats) into `base[indices]` with
/// streaming stores, `registerBits` at a time: each piece is bitcast to
/// integers and passed through an empty inline asm (the same vector register
/// in and out, no instruction) before it is bitcast back and stored. LLVM 22's
/// X86 backend has no non-temporal store of bf16 or f16 vectors (it selects a
/// plain store) and folds a bitcast to integers back into such a store; it
/// cannot look through the asm, so the store it sees is of integers. The
/// barrier can go once the backend streams such stores itself.
void storeThroughBarrier(OpBuilder &b, Location loc, Value vector, Value base,
                         ValueRange indices, int64_t registerBits,
                         int64_t alignment) {
  auto type = cast<VectorType>(vector.getType());
  int64_t elementBits = type.getElementTypeBitWidth();
  int64_t lanes = type.getNumElements();
  int64_t pieceLanes = std::min(lanes, registerBits / elementBits);
  auto pieceType = VectorType::get({pieceLanes}, type.getElementType());
  auto integerType =
      VectorType::get({pieceLanes}, b.getIntegerType(elementBits));
  int64_t pieceAlignment = std::min(alignment, pieceLanes * elementBits / 8);
  for (int64_t first = 0; first < lanes; first += pieceLanes) {
    Value piece = vector;
    if (pieceLanes != lanes)
      piece = vector::ExtractStridedSliceOp::create(b, loc, vector, {first},
                                                    {pieceLanes}, {1});
    Value bits = vector::BitCastOp::create(b, loc, integerType, piece);
    bits =
        LLVM::InlineAsmOp::create(
            b, loc, integerType, ValueRange{bits}, /*asm_string=*/"",
            /*constraints=*/"=v,0", /*has_side_effects=*/false,
            /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/ArrayAttr())
            .getResult(0);
    piece = vector::BitCastOp::create(b, loc, pieceType, bits);
    SmallVector<Value> at(indices);
    if (first != 0)
      at.back() = arith::AddIOp::create(
          b, loc, at.back(), arith::ConstantIndexOp::create(b, loc, first));
    vector::StoreOp::create(b, loc, piece, base, at, /*nontemporal=*/true,
                            b.getI64IntegerAttr(pieceAlignment));
  }
}

struct GMMCPUStreamResults
    : public mlir::gmm::impl::GMMCPUStreamResultsBase<GMMCPUStreamResults> {
  using Base::Base;

  /// Whether `write` is a whole-vector store that can stream: one
  /// dimension, in bounds, unmasked, along the memref's contiguous last
  /// dimension, a power-of-two number of bytes (the alignment a streaming
  /// store needs), into a result of at least minBytes bytes.
  bool streams(vector::TransferWriteOp write, Operation *&loop) const {
    auto memrefType = dyn_cast<MemRefType>(write.getShapedType());
    VectorType vectorType = write.getVectorType();
    if (!memrefType || vectorType.getRank() != 1 || write.getMask() ||
        !write.getPermutationMap().isMinorIdentity() ||
        !write.isDimInBounds(0) ||
        !memrefType.getElementType().isIntOrFloat() ||
        !memrefType.isLastDimUnitStride())
      return false;
    uint64_t elementBits = memrefType.getElementTypeBitWidth();
    uint64_t bits = elementBits * vectorType.getNumElements();
    if (elementBits % 8 || bits < 128 || !llvm::isPowerOf2_64(bits))
      return false;
    loop = visitLoopOf(write);
    if (!loop)
      return false;
    Value root = rootOf(write.getBase());
    if (definedInside(root, loop))
      return false;
    // An unranked buffer (a cast to a ranked one) has no static size.
    auto rootType = dyn_cast<MemRefType>(root.getType());
    std::optional<uint64_t> bytes =
        rootType ? staticBytes(rootType) : std::nullopt;
    return bytes && *bytes >= minBytes;
  }

  void runOnOperation() override {
    // Reported at the anchor without printing the whole anchor.
    int64_t registerBits = x86RegisterBits;
    if (registerBits != 0 && registerBits != 128 && registerBits != 256 &&
        registerBits != 512) {
      emitError(getOperation()->getLoc(),
                "gmm-cpu-stream-results: x86-register-bits must be 128, 256 or "
                "512, or 0 for none, got " +
                    Twine(registerBits));
      return signalPassFailure();
    }
    if (minBytes == 0)
      return;
    // The writes that stream, and per visit loop whether any does.
    SmallVector<vector::TransferWriteOp> writes;
    llvm::SetVector<Operation *> loops;
    getOperation()->walk([&](vector::TransferWriteOp write) {
      Operation *loop = nullptr;
      if (streams(write, loop)) {
        writes.push_back(write);
        loops.insert(loop);
      }
    });
    // The aligned pointer and strided layout of each written view, once,
    // where it is defined.
    llvm::MapVector<Value, memref::ExtractStridedMetadataOp> layouts;
    llvm::DenseMap<Value, Value> pointers;
    OpBuilder b(&getContext());
    for (vector::TransferWriteOp write : writes) {
      Value view = write.getBase();
      if (!layouts.count(view)) {
        if (Operation *def = view.getDefiningOp())
          b.setInsertionPointAfter(def);
        else
          b.setInsertionPointToStart(cast<BlockArgument>(view).getOwner());
        layouts[view] =
            memref::ExtractStridedMetadataOp::create(b, view.getLoc(), view);
        pointers[view] = memref::ExtractAlignedPointerAsIndexOp::create(
            b, view.getLoc(), view);
      }
      memref::ExtractStridedMetadataOp layout = layouts[view];
      Location loc = write.getLoc();
      b.setInsertionPoint(write);
      // The element offset of the store, then its byte address.
      Value element = layout.getOffset();
      for (auto [index, stride] :
           llvm::zip_equal(write.getIndices(), layout.getStrides()))
        element = arith::AddIOp::create(
            b, loc, element, arith::MulIOp::create(b, loc, index, stride));
      auto memrefType = cast<MemRefType>(write.getShapedType());
      int64_t elementBytes = memrefType.getElementTypeBitWidth() / 8;
      // A vector wider than the CPU's registers is stored a register at a
      // time, each streaming store needing the alignment of its register.
      int64_t alignment = std::min<int64_t>(
          elementBytes * write.getVectorType().getNumElements(),
          kMaxVectorBytes);
      Value address = arith::AddIOp::create(
          b, loc, pointers[view],
          arith::MulIOp::create(
              b, loc, element,
              arith::ConstantIndexOp::create(b, loc, elementBytes)));
      Value misaligned = arith::AndIOp::create(
          b, loc, address,
          arith::ConstantIndexOp::create(b, loc, alignment - 1));
      Value aligned =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, misaligned,
                                arith::ConstantIndexOp::create(b, loc, 0));
      Value vector = write.getVector();
      Value base = write.getBase();
      SmallVector<Value> indices(write.getIndices());
      scf::IfOp::create(
          b, loc, aligned,
          [&](OpBuilder &b, Location loc) {
            if (registerBits && isa<FloatType>(memrefType.getElementType()) &&
                elementBytes == 2)
              storeThroughBarrier(b, loc, vector, base, indices, registerBits,
                                  alignment);
            else
              vector::StoreOp::create(b, loc, vector, base, indices,
                                      /*nontemporal=*/true,
                                      b.getI64IntegerAttr(alignment));
            scf::YieldOp::create(b, loc);
          },
          [&](OpBuilder &b, Location loc) {
            vector::StoreOp::create(b, loc, vector, base, indices);
            scf::YieldOp::create(b, loc);
          });
      write.erase();
    }
    // Streaming stores are weakly ordered: each visit ends with a fence, so
    // that whoever reads the result after the loop sees them.
    for (Operation *loop : loops)
      for (Block &block : loop->getRegion(0))
        if (isa<omp::YieldOp, scf::ReduceOp>(block.getTerminator())) {
          b.setInsertionPoint(block.getTerminator());
          LLVM::FenceOp::create(b, loop->getLoc(),
                                LLVM::AtomicOrdering::seq_cst);
        }
  }
};

} // namespace
