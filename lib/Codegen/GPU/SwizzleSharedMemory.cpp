//===- SwizzleSharedMemory.cpp - bank-conflict-free shared-memory stages ===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-swizzle-shared-memory: the accesses of each workgroup view that
// gmm-gpu-promote-operands marks (unpadded 16-bit stages) get their 16-byte
// chunk index permuted per row, so that ldmatrix's eight row reads and a
// quarter warp's cp.async writes fall in distinct banks (Passes.td).
//
// Upstream has the same idea in nvgpu::optimizeSharedMemoryReadsAndWrites,
// but it refuses any parent op that holds a memref.subview (it does no alias
// analysis), and every tile kernel holds one: the output rows of its visit.
// The permutation here is gmm's own, on exactly the ops that access the view.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUSWIZZLESHAREDMEMORY
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// Shared memory has 32 banks of 4 bytes: eight 16-byte chunks per 128-byte
/// line, and 16-byte accesses are served a quarter warp (8 lanes) at a time.
constexpr int64_t kChunkBytes = 16;
constexpr int64_t kChunksPerLine = 8;

/// The permutation of one view: chunk c of row r is stored at chunk
/// c xor ((r / rowsPerLine) mod period). Eight consecutive rows at the same
/// chunk (one ldmatrix 8x8 matrix) then land on eight distinct chunk
/// positions of their lines, and so do the eight consecutive chunks a
/// quarter warp copies.
struct Swizzle {
  int64_t chunkElements, rowsPerLine, period;

  static FailureOr<Swizzle> of(MemRefType type) {
    if (type.getRank() < 2 || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return failure();
    int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    if (bytes == 0 || kChunkBytes % bytes)
      return failure();
    int64_t chunkElements = kChunkBytes / bytes;
    int64_t rowElements = type.getShape().back();
    if (rowElements % chunkElements)
      return failure();
    int64_t chunksPerRow = rowElements / chunkElements;
    if (chunksPerRow < 2 || !llvm::isPowerOf2_64(chunksPerRow))
      return failure();
    return Swizzle{chunkElements,
                   std::max<int64_t>(1, kChunksPerLine / chunksPerRow),
                   std::min<int64_t>(chunksPerRow, kChunksPerLine)};
  }

  /// The chunk offset, in elements, that the accesses of row `row` XOR
  /// their column with: computed once per row value, right after it (at
  /// the start of `body` for a row defined outside it).
  Value offsetOf(OpBuilder &b, Block &body, Value row,
                 DenseMap<Value, Value> &offsets) const {
    Value &offset = offsets[row];
    if (offset)
      return offset;
    OpBuilder::InsertionGuard guard(b);
    Block *rowBlock = row.getParentBlock();
    Operation *rowScope = rowBlock->getParentOp();
    if (rowBlock == &body ||
        (rowScope && body.findAncestorOpInBlock(*rowScope)))
      b.setInsertionPointAfterValue(row);
    else
      b.setInsertionPointToStart(&body);
    Location loc = row.getLoc();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // All factors are powers of two: shifts and masks.
    Value line = row;
    if (rowsPerLine > 1)
      line = arith::ShRUIOp::create(b, loc, row,
                                    constant(llvm::Log2_64(rowsPerLine)));
    Value key = arith::AndIOp::create(b, loc, line, constant(period - 1));
    offset = arith::ShLIOp::create(b, loc, key,
                                   constant(llvm::Log2_64(chunkElements)));
    return offset;
  }
};

/// The index operands of `use` that address the view, when its op reads or
/// writes at most one chunk of a row per index tuple.
FailureOr<MutableOperandRange> indicesOf(OpOperand &use) {
  Operation *op = use.getOwner();
  if (auto load = dyn_cast<nvgpu::LdMatrixOp>(op))
    return load.getIndicesMutable(); // 16-byte rows, chunk aligned
  if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
    if (&use == &copy.getDstMutable())
      return copy.getDstIndicesMutable(); // one 16-byte chunk at most
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getIndicesMutable();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    if (&use == &store.getMemrefMutable())
      return store.getIndicesMutable();
  return failure();
}

struct SwizzleSharedMemory
    : public mlir::gmm::impl::GMMGPUSwizzleSharedMemoryBase<
          SwizzleSharedMemory> {
  void runOnOperation() override {
    SmallVector<memref::ViewOp> views;
    getOperation()->walk([&](memref::ViewOp view) {
      if (view->hasAttr(gmm::kSwizzleAttrName))
        views.push_back(view);
    });
    // Every view and access is checked before anything is rewritten.
    SmallVector<std::pair<Swizzle, SmallVector<MutableOperandRange>>> plans;
    for (memref::ViewOp view : views) {
      FailureOr<Swizzle> swizzle = Swizzle::of(view.getType());
      if (failed(swizzle)) {
        view.emitOpError("gmm-gpu-swizzle-shared-memory expects a static "
                         "view whose rows are a power of two of at least "
                         "two 16-byte chunks");
        return signalPassFailure();
      }
      SmallVector<MutableOperandRange> accesses;
      for (OpOperand &use : view->getUses()) {
        FailureOr<MutableOperandRange> indices = indicesOf(use);
        if (failed(indices)) {
          use.getOwner()
                  ->emitOpError("accesses a swizzled shared-memory view in a "
                                "way the permutation cannot follow (expected "
                                "nvgpu.ldmatrix, an nvgpu.device_async_copy "
                                "into it, memref.load or memref.store)")
                  .attachNote(view.getLoc())
              << "the view";
          return signalPassFailure();
        }
        accesses.push_back(*indices);
      }
      plans.emplace_back(*swizzle, std::move(accesses));
    }
    for (auto [view, plan] : llvm::zip(views, plans)) {
      view->removeAttr(gmm::kSwizzleAttrName);
      int64_t rank = view.getType().getRank();
      // The accesses' rows are computed in the view's block or below it.
      Block &body = *view->getBlock();
      DenseMap<Value, Value> offsets;
      for (MutableOperandRange &indices : plan.second) {
        Operation *op = indices.getOwner();
        OpBuilder b(op);
        Value row = indices[rank - 2].get(), col = indices[rank - 1].get();
        Value offset = plan.first.offsetOf(b, body, row, offsets);
        indices[rank - 1].set(
            arith::XOrIOp::create(b, op->getLoc(), col, offset));
      }
    }
  }
};

} // namespace
