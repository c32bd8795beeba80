//===- TileKernel.cpp - the block contraction of each tile kernel ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-tile-kernel rebuilds the block contraction of each tile kernel
// that gmm-gpu-map-blocks made (a gpu.launch carrying its kernel
// configuration, whose body is the tile program's forall body):
//
// - the contraction loop of the visit is rebuilt around shared memory: both
//   operand tiles get the configuration's 2 to 4 stages, and step j is
//   copied into stage j % stages (16-byte masked vector transfers, zeros
//   past the operands' ends and masks) before a barrier and the math. The
//   loop is built unpipelined and marked: gmm-gpu-async-copies makes the
//   copies cp.async and gmm-gpu-pipeline-stages overlaps the copies of
//   steps j + 1 .. j + stages - 1 with the math of step j. The buffer is a
//   workgroup attribution of the launch, or dynamic shared memory above
//   48 KiB;
// - the math is distributed over the configuration's warps: for 16-bit
//   inputs each warp runs m16n8k16 contractions on its sub-tile, which
//   gmm-gpu-vector-to-mma-sync turns into nvgpu.ldmatrix and
//   nvgpu.mma.sync; for f32 each lane accumulates a block with outer
//   products that gmm-gpu-lower-kernel-vectors turns into FMAs;
// - the epilogue goes through shared memory, one warp row at a time, and
//   replays the tile program's own epilogue (accumulate into init, convert
//   to the result type, masked write) on 4-element row chunks, so rows of
//   other groups and columns past n are never written.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Dialect/GMM/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUTILEKERNEL
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using mlir::gmm::buildMatmulContraction;

namespace {

// The kernel's shapes, which gmm-configure checks configurations against.
using namespace mlir::gmm::gpu_shapes;
// NVGPUDialect.h declares a kWarpSize of its own.
using mlir::gmm::gpu_shapes::kWarpSize;

Value cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
// Index arithmetic on values that are never negative (thread, lane and
// step numbers, offsets); constant operands fold as the ops are built.
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
Value addConst(OpBuilder &b, Location loc, Value x, int64_t y) {
  return add(b, loc, x, cst(b, loc, y));
}
Value mul(OpBuilder &b, Location loc, Value x, int64_t y) {
  return b.createOrFold<arith::MulIOp>(loc, x, cst(b, loc, y));
}
Value divConst(OpBuilder &b, Location loc, Value x, int64_t y) {
  return b.createOrFold<arith::DivUIOp>(loc, x, cst(b, loc, y));
}
Value remConst(OpBuilder &b, Location loc, Value x, int64_t y) {
  return b.createOrFold<arith::RemUIOp>(loc, x, cst(b, loc, y));
}
Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
          Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
Value clampToRange(OpBuilder &b, Location loc, Value x, int64_t lo,
                   int64_t hi) {
  x = arith::MaxSIOp::create(b, loc, x, cst(b, loc, lo));
  return arith::MinSIOp::create(b, loc, x, cst(b, loc, hi));
}

/// One operand of the block contraction as the tile program reads it: a
/// [rows, cols] transfer_read of a global memref, optionally zeroed by a
/// create_mask, and where it is staged in shared memory.
struct StagedOperand {
  vector::TransferReadOp read;
  Value maskRows, maskCols; // create_mask bounds, or null
  int64_t rows = 0, cols = 0;
  unsigned dim0 = 0, dim1 = 0; // memref dims of vector dims 0 and 1
  /// Stored [cols][rows] when vector dim 0 runs along the memref's
  /// contiguous dimension, [rows][cols] otherwise.
  bool transposed = false;
  /// 16-byte cp.async chunks; otherwise element-wise copies.
  bool async = false;
  int64_t outer = 0, inner = 0, innerPadded = 0;
  /// Rows stored unpadded, their chunks permuted by
  /// gmm-gpu-swizzle-shared-memory.
  bool swizzled = false;
  int64_t byteOffset = 0, bytes = 0; // both stages

  MemRefType sourceType() { return cast<MemRefType>(read.getBase().getType()); }
};

/// Everything gmm-gpu-tile-kernel needs to know about one tile kernel.
struct BlockProgram {
  gpu::LaunchOp launch;
  vector::ContractionOp contract;
  scf::ForOp kLoop; // null when the contraction runs once
  StagedOperand lhs, rhs;
  vector::TransferWriteOp write;
  Value result; // the accumulated block, as the epilogue consumes it
  /// The contraction's initial accumulator when it is not zero: the block's
  /// current values (accumulation into init folded into the contraction).
  /// The kernel accumulates from zero and the epilogue adds it.
  Value init;
  Type elementType;
  int64_t tileM = 0, tileN = 0, tileK = 0;
  /// k steps staged in shared memory at once (the configuration's stages).
  int64_t stages = 2;
};

/// Looks through extf and a zeroing select(create_mask) down to the read.
LogicalResult matchOperand(Value v, StagedOperand &operand) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    v = ext.getIn();
  if (auto select = v.getDefiningOp<arith::SelectOp>()) {
    auto mask = select.getCondition().getDefiningOp<vector::CreateMaskOp>();
    if (!mask || mask.getNumOperands() != 2 ||
        !matchPattern(select.getFalseValue(), m_AnyZeroFloat()))
      return failure();
    operand.maskRows = mask.getOperand(0);
    operand.maskCols = mask.getOperand(1);
    v = select.getTrueValue();
  }
  auto read = v.getDefiningOp<vector::TransferReadOp>();
  if (!read || !isa<MemRefType>(read.getBase().getType()) || read.getMask() ||
      !matchPattern(read.getPadding(), m_AnyZeroFloat()))
    return failure();
  AffineMap map = read.getPermutationMap();
  if (map.getNumResults() != 2)
    return failure();
  auto d0 = dyn_cast<AffineDimExpr>(map.getResult(0));
  auto d1 = dyn_cast<AffineDimExpr>(map.getResult(1));
  if (!d0 || !d1)
    return failure();
  operand.read = read;
  operand.dim0 = d0.getPosition();
  operand.dim1 = d1.getPosition();
  operand.rows = read.getVectorType().getDimSize(0);
  operand.cols = read.getVectorType().getDimSize(1);
  return success();
}

/// Whether every 16-byte chunk that starts at a multiple of `chunk` elements
/// along the contiguous dimension is 16-byte aligned.
bool chunksAligned(MemRefType type, unsigned contiguousDim, int64_t chunk) {
  if (contiguousDim != static_cast<unsigned>(type.getRank() - 1))
    return false;
  if (type.getLayout().isIdentity()) {
    int64_t last = type.getShape().back();
    return !ShapedType::isDynamic(last) && last % chunk == 0;
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  if (strides.back() != 1 || ShapedType::isDynamic(offset) || offset % chunk)
    return false;
  for (int64_t s : ArrayRef<int64_t>(strides).drop_back())
    if (ShapedType::isDynamic(s) || s % chunk)
      return false;
  return true;
}

struct TileKernel : public mlir::gmm::impl::GMMGPUTileKernelBase<TileKernel> {
  void runOnOperation() override;

  LogicalResult analyze(gpu::LaunchOp launch, BlockProgram &program);
  LogicalResult build(RewriterBase &rewriter, BlockProgram &program);

  /// The warps of the tile loop being mapped, from its configuration.
  int64_t warpsM = 0, warpsN = 0;
  int64_t numWarps() const { return warpsM * warpsN; }
  int64_t numThreads() const { return threadsPerBlock(warpsM, warpsN); }
};

LogicalResult TileKernel::analyze(gpu::LaunchOp launch, BlockProgram &program) {
  program.launch = launch;
  // The configuration gmm-gpu-map-blocks put on the launch.
  auto config =
      launch->getAttrOfType<gmm::KernelConfigAttr>(gmm::kKernelConfigAttrName);
  if (!config || !config.isGPU())
    return launch.emitOpError("gmm-gpu-tile-kernel expects the tile kernel "
                              "to carry its GPU '")
           << gmm::kKernelConfigAttrName
           << "' (gmm-gpu-map-blocks puts it there)";
  SmallVector<vector::ContractionOp> contracts;
  launch.walk([&](vector::ContractionOp op) { contracts.push_back(op); });
  if (contracts.size() != 1)
    return launch.emitOpError("gmm-gpu-tile-kernel expects one vector.contract "
                              "per tile loop (the block contraction of "
                              "gmm-tile), found ")
           << contracts.size();
  auto contract = contracts.front();
  program.contract = contract;
  MLIRContext *ctx = launch.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> expected = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {k, n}, {m, n}}, ctx);
  if (contract.getKind() != vector::CombiningKind::ADD ||
      contract.getIndexingMapsArray() != expected)
    return contract.emitOpError(
        "gmm-gpu-tile-kernel expects an (m, k) x (k, n) -> (m, n) addition");
  if (failed(matchOperand(contract.getLhs(), program.lhs)) ||
      failed(matchOperand(contract.getRhs(), program.rhs)))
    return contract.emitOpError("gmm-gpu-tile-kernel expects the contraction's "
                                "operands to be (masked, extended) "
                                "transfer_reads of buffers");
  program.elementType = program.lhs.read.getVectorType().getElementType();
  if (program.rhs.read.getVectorType().getElementType() != program.elementType)
    return contract.emitOpError("mixed operand element types are not "
                                "supported on the GPU");
  // Checked again (gmm-configure checked it): the IR may have been written
  // or edited by hand.
  // The chip is not known here: its limit was gmm-configure's to check (a
  // launch past it fails with what the device allows).
  if (failed(gmm::verifyKernelConfig(config, program.elementType,
                                     gmm::kMaxSharedBytesPerBlock,
                                     [&] { return launch.emitOpError(); })))
    return failure();
  program.tileM = program.lhs.rows;
  program.tileK = program.lhs.cols;
  program.tileN = program.rhs.cols;
  if (program.tileM != config.getTileM() ||
      program.tileN != config.getTileN() || program.tileK != config.getTileK())
    return contract.emitOpError("block contraction of ")
           << program.tileM << "x" << program.tileN << "x" << program.tileK
           << " does not match the tile loop's configuration " << config;
  warpsM = config.getWarps()[0];
  warpsN = config.getWarps()[1];
  program.stages = config.getStages();
  // The launch's blocks are the configuration's warps (gmm-gpu-map-blocks).
  std::optional<int64_t> threadsX = getConstantIntValue(launch.getBlockSizeX());
  if (threadsX != numThreads() ||
      !matchPattern(launch.getBlockSizeY(), m_One()) ||
      !matchPattern(launch.getBlockSizeZ(), m_One()))
    return launch.emitOpError("gmm-gpu-tile-kernel expects blocks of ")
           << numThreads() << " x 1 x 1 threads (the configuration's " << warpsM
           << "x" << warpsN << " warps)";
  if (!launch.getWorkgroupAttributions().empty() ||
      launch.getDynamicSharedMemorySize())
    return launch.emitOpError("gmm-gpu-tile-kernel expects a launch without "
                              "shared memory of its own");

  // The accumulator: a loop-carried zero, or a zero when k fits one step.
  Value acc = contract.getAcc();
  Value init = acc;
  if (auto arg = dyn_cast<BlockArgument>(acc)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || loop.getNumRegionIterArgs() != 1 ||
        loop.getRegionIterArgs().front() != arg ||
        loop.getBody()->getTerminator()->getOperand(0) != contract.getResult())
      return contract.emitOpError(
          "gmm-gpu-tile-kernel expects the accumulator to "
          "be carried by the contraction loop");
    // The stages hold fixed steps: checked before anything is rewritten.
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step || *step <= 0)
      return loop.emitOpError("gmm-gpu-tile-kernel expects a contraction loop "
                              "with a constant step");
    program.kLoop = loop;
    init = loop.getInitArgs().front();
    program.result = loop.getResult(0);
  } else {
    program.result = contract.getResult();
  }
  if (!matchPattern(init, m_AnyZeroFloat())) {
    if (program.kLoop &&
        program.kLoop->isAncestor(init.getParentRegion()->getParentOp()))
      return contract.emitOpError("gmm-gpu-tile-kernel expects the initial "
                                  "accumulator outside the loop");
    program.init = init;
  }

  SmallVector<vector::TransferWriteOp> writes;
  launch.walk([&](vector::TransferWriteOp op) { writes.push_back(op); });
  if (writes.size() != 1 ||
      !isa<MemRefType>(writes.front().getBase().getType()) ||
      cast<MemRefType>(writes.front().getBase().getType()).getRank() != 2 ||
      writes.front().getVectorType().getRank() != 2 ||
      !writes.front().getPermutationMap().isMinorIdentity() ||
      writes.front().getMask())
    return launch.emitOpError("gmm-gpu-tile-kernel expects one 2-D block write "
                              "per tile loop");
  program.write = writes.front();

  return success();
}

//===----------------------------------------------------------------------===//
// The block kernel
//===----------------------------------------------------------------------===//

/// Builds the kernel body of one visit block: staging, warp math, epilogue.
struct KernelBuilder {
  int64_t warpsM, warpsN, numThreads;
  BlockProgram program;
  Value buffer; // the workgroup i8 buffer
  Value tid, lane, warpM, warpN;
  Location loc;
  int64_t elementBytes, chunk;
  bool mma;
  SmallVector<Value> views; // per operand, its stages in the workgroup buffer

  KernelBuilder(int64_t warpsM, int64_t warpsN, const BlockProgram &program,
                Location loc)
      : warpsM(warpsM), warpsN(warpsN),
        numThreads(threadsPerBlock(warpsM, warpsN)), program(program),
        loc(loc) {
    elementBytes = program.elementType.getIntOrFloatBitWidth() / 8;
    chunk = kChunkBytes / elementBytes;
    mma = elementBytes == 2;
  }

  /// Places the `stages` stages of `op` in the workgroup buffer at
  /// `offset`.
  static void layout(StagedOperand &op, int64_t elementBytes, int64_t stages,
                     int64_t &offset) {
    int64_t chunk = kChunkBytes / elementBytes;
    MemRefType type = op.sourceType();
    op.transposed = op.dim0 == static_cast<unsigned>(type.getRank() - 1);
    op.outer = op.transposed ? op.cols : op.rows;
    op.inner = op.transposed ? op.rows : op.cols;
    // Rows are swizzled (gmm-gpu-swizzle-shared-memory) or padded by a
    // chunk, so that ldmatrix's eight row reads hit distinct banks.
    op.swizzled = isSwizzledRow(op.inner, elementBytes);
    op.innerPadded = stagedRowElements(op.inner, elementBytes);
    op.async = chunksAligned(type, op.transposed ? op.dim0 : op.dim1, chunk);
    op.byteOffset = offset;
    op.bytes = stages * op.outer * op.innerPadded * elementBytes;
    offset += op.bytes;
  }

  static int64_t outBytes(const BlockProgram &program, int64_t warpsM) {
    return (program.tileM / warpsM) * (program.tileN + kOutChunk) * 4;
  }

  Value view(OpBuilder &b, int64_t byteOffset, ArrayRef<int64_t> shape,
             Type elementType) {
    auto type =
        MemRefType::get(shape, elementType, AffineMap(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup));
    return memref::ViewOp::create(b, loc, type, buffer, cst(b, loc, byteOffset),
                                  ValueRange{});
  }

  /// Clones the loop-body computations that `v` depends on for the
  /// iteration whose induction value is `iv`.
  Value materialize(OpBuilder &b, Value v, IRMapping &mapping) {
    if (mapping.contains(v))
      return mapping.lookup(v);
    scf::ForOp loop = program.kLoop;
    if (!loop)
      return v;
    Operation *def = v.getDefiningOp();
    if (!def || !loop.getBody()->findAncestorOpInBlock(*def))
      return v;
    for (Value operand : def->getOperands())
      (void)materialize(b, operand, mapping);
    Operation *clone = b.clone(*def, mapping);
    return clone->getResult(cast<OpResult>(v).getResultNumber());
  }

  /// Copies operand `op`'s tile for the iteration `iv` into stage `stage`:
  /// 16-byte chunks as masked 1-D vector transfers (gmm-gpu-async-copies
  /// makes them cp.async), or element by element.
  void stage(OpBuilder &b, StagedOperand &op, unsigned which, Value iv,
             Value stage) {
    IRMapping mapping;
    if (program.kLoop)
      mapping.map(program.kLoop.getInductionVar(), iv);
    SmallVector<Value> base;
    for (Value index : op.read.getIndices())
      base.push_back(materialize(b, index, mapping));
    Value maskRows =
        op.maskRows ? materialize(b, op.maskRows, mapping) : Value();
    Value maskCols =
        op.maskCols ? materialize(b, op.maskCols, mapping) : Value();
    Value source = op.read.getBase();
    Value sizeRows = memref::DimOp::create(b, loc, source, op.dim0);
    Value sizeCols = memref::DimOp::create(b, loc, source, op.dim1);
    Value c0 = cst(b, loc, 0);

    int64_t chunksPerRow = op.inner / chunk;
    int64_t numChunks = op.outer * chunksPerRow;
    int64_t threads = numThreads;
    for (int64_t q = 0; q * threads < numChunks; ++q) {
      Value id = addConst(b, loc, tid, q * threads);
      Value o = divConst(b, loc, id, chunksPerRow);
      Value i = mul(b, loc, remConst(b, loc, id, chunksPerRow), chunk);
      // Vector coordinates of the chunk's first element; the chunk runs
      // along vector dim 0 when transposed, dim 1 otherwise.
      Value r = op.transposed ? i : o, c = op.transposed ? o : i;
      Value row = add(b, loc, base[op.dim0], r);
      Value col = add(b, loc, base[op.dim1], c);
      // Elements available along the chunk, and whether the other
      // coordinate is in bounds (memref extent and mask).
      Value along = op.transposed ? row : col;
      Value alongSize = op.transposed ? sizeRows : sizeCols;
      Value alongMask = op.transposed ? maskRows : maskCols;
      Value alongStart = op.transposed ? r : c;
      Value across = op.transposed ? col : row;
      Value acrossSize = op.transposed ? sizeCols : sizeRows;
      Value acrossMask = op.transposed ? maskCols : maskRows;
      Value acrossStart = op.transposed ? c : r;
      Value avail = arith::SubIOp::create(b, loc, alongSize, along);
      if (alongMask)
        avail = arith::MinSIOp::create(
            b, loc, avail,
            arith::SubIOp::create(b, loc, alongMask, alongStart));
      avail = clampToRange(b, loc, avail, 0, chunk);
      Value inside = cmp(b, loc, arith::CmpIPredicate::slt, across, acrossSize);
      if (acrossMask)
        inside = arith::AndIOp::create(
            b, loc, inside,
            cmp(b, loc, arith::CmpIPredicate::slt, acrossStart, acrossMask));
      avail = arith::SelectOp::create(b, loc, inside, avail, c0);
      // Keep the address inside the buffer even when nothing is read.
      Value valid = cmp(b, loc, arith::CmpIPredicate::sgt, avail, c0);
      SmallVector<Value> indices(base);
      indices[op.dim0] = arith::SelectOp::create(b, loc, valid, row, c0);
      indices[op.dim1] = arith::SelectOp::create(b, loc, valid, col, c0);
      SmallVector<Value> dst = {stage, o, i};
      Type elementType = program.elementType;
      Value zero =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
      if (op.async) {
        Value mask = vector::CreateMaskOp::create(
            b, loc, VectorType::get({chunk}, b.getI1Type()), avail);
        auto type = VectorType::get({chunk}, elementType);
        auto read = vector::TransferReadOp::create(
            b, loc, type, source, indices, zero, ArrayRef<bool>{true});
        read.getMaskMutable().assign(mask);
        vector::TransferWriteOp::create(b, loc, read, views[which], dst,
                                        ArrayRef<bool>{true});
        continue;
      }
      // Element by element: loads of the available elements, zeros past.
      for (int64_t e = 0; e < chunk; ++e) {
        Value ok =
            cmp(b, loc, arith::CmpIPredicate::slt, cst(b, loc, e), avail);
        SmallVector<Value> at(indices);
        at[op.transposed ? op.dim0 : op.dim1] = arith::SelectOp::create(
            b, loc, ok,
            add(b, loc, at[op.transposed ? op.dim0 : op.dim1], cst(b, loc, e)),
            at[op.transposed ? op.dim0 : op.dim1]);
        auto load = scf::IfOp::create(
            b, loc, ok,
            [&](OpBuilder &b, Location loc) {
              Value x = memref::LoadOp::create(b, loc, source, at);
              scf::YieldOp::create(b, loc, x);
            },
            [&](OpBuilder &b, Location loc) {
              scf::YieldOp::create(b, loc, zero);
            });
        memref::StoreOp::create(b, loc, load.getResult(0), views[which],
                                ValueRange{stage, o, addConst(b, loc, i, e)});
      }
    }
  }

  /// Reads a [rows, cols] block of staged operand `op` (vector dims as in
  /// the contraction) at vector coordinates (r, c) of stage `s`.
  Value readStaged(OpBuilder &b, StagedOperand &op, unsigned which, Value s,
                   Value r, Value c, int64_t rows, int64_t cols) {
    MLIRContext *ctx = b.getContext();
    Type elementType =
        cast<MemRefType>(views[which].getType()).getElementType();
    AffineExpr d1 = getAffineDimExpr(1, ctx), d2 = getAffineDimExpr(2, ctx);
    AffineMap map = op.transposed ? AffineMap::get(3, 0, {d2, d1}, ctx)
                                  : AffineMap::get(3, 0, {d1, d2}, ctx);
    SmallVector<Value> indices = op.transposed ? SmallVector<Value>{s, c, r}
                                               : SmallVector<Value>{s, r, c};
    Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
    return vector::TransferReadOp::create(
        b, loc, VectorType::get({rows, cols}, elementType), views[which],
        indices, pad, map, ArrayRef<bool>{true, true});
  }

  int64_t warpTileM() const { return program.tileM / warpsM; }
  int64_t warpTileN() const { return program.tileN / warpsN; }

  /// The accumulators a warp (mma) or lane (FMA) keeps in registers.
  SmallVector<Value> zeroAccumulators(OpBuilder &b) {
    SmallVector<Value> accs;
    Type f32 = b.getF32Type();
    if (mma) {
      auto type = VectorType::get({kMmaM, kMmaN}, f32);
      for (int64_t i = 0; i < warpTileM() / kMmaM * (warpTileN() / kMmaN); ++i)
        accs.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(type)));
      return accs;
    }
    auto type = VectorType::get(
        {warpTileM() / kLaneRows, warpTileN() / kLaneCols}, f32);
    accs.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(type)));
    return accs;
  }

  /// One k step of the warp's math on stage `s`.
  SmallVector<Value> compute(OpBuilder &b, Value s, ValueRange accs) {
    SmallVector<Value> next(accs.begin(), accs.end());
    Value rowBase = mul(b, loc, warpM, warpTileM());
    Value colBase = mul(b, loc, warpN, warpTileN());
    if (mma) {
      int64_t fm = warpTileM() / kMmaM, fn = warpTileN() / kMmaN;
      for (int64_t kk = 0; kk < program.tileK / kMmaK; ++kk) {
        Value k = cst(b, loc, kk * kMmaK);
        SmallVector<Value> a, w;
        for (int64_t i = 0; i < fm; ++i)
          a.push_back(readStaged(b, program.lhs, 0, s,
                                 addConst(b, loc, rowBase, i * kMmaM), k, kMmaM,
                                 kMmaK));
        for (int64_t j = 0; j < fn; ++j)
          w.push_back(readStaged(b, program.rhs, 1, s, k,
                                 addConst(b, loc, colBase, j * kMmaN), kMmaK,
                                 kMmaN));
        for (int64_t i = 0; i < fm; ++i)
          for (int64_t j = 0; j < fn; ++j)
            next[i * fn + j] =
                buildMatmulContraction(b, loc, a[i], w[j], next[i * fn + j]);
      }
      return next;
    }
    int64_t rows = warpTileM() / kLaneRows, cols = warpTileN() / kLaneCols;
    Value laneRow = divConst(b, loc, lane, kLaneCols);
    Value laneCol = remConst(b, loc, lane, kLaneCols);
    Value r0 = add(b, loc, rowBase, mul(b, loc, laneRow, rows));
    Value c0 = add(b, loc, colBase, mul(b, loc, laneCol, cols));
    for (int64_t kk = 0; kk < program.tileK; ++kk) {
      Value k = cst(b, loc, kk);
      // Column kk of the lane's lhs rows and row kk of its rhs columns;
      // one FMA per accumulator element.
      Value a = loadLine(b, program.lhs, 0, s, k, r0, rows, /*alongRows=*/true);
      Value w =
          loadLine(b, program.rhs, 1, s, k, c0, cols, /*alongRows=*/false);
      next[0] = vector::OuterProductOp::create(b, loc, next[0].getType(), a, w,
                                               next[0]);
    }
    return next;
  }

  /// Loads `count` staged elements of operand `op` at contraction index `k`,
  /// starting at `start` along its non-contraction vector dim (rows for the
  /// lhs, columns for the rhs): one vector load when that dim is the stored
  /// inner dim, element loads otherwise.
  Value loadLine(OpBuilder &b, StagedOperand &op, unsigned which, Value s,
                 Value k, Value start, int64_t count, bool alongRows) {
    Value view = views[which];
    Type elementType = cast<MemRefType>(view.getType()).getElementType();
    // The stored layout is [rows][cols], or [cols][rows] when transposed.
    bool lineIsInner = alongRows == op.transposed;
    auto type = VectorType::get({count}, elementType);
    if (lineIsInner)
      return vector::LoadOp::create(b, loc, type, view,
                                    ValueRange{s, k, start});
    SmallVector<Value> elements;
    for (int64_t e = 0; e < count; ++e)
      elements.push_back(memref::LoadOp::create(
          b, loc, view, ValueRange{s, addConst(b, loc, start, e), k}));
    return vector::FromElementsOp::create(b, loc, type, elements);
  }

  /// The pipelined contraction loop; returns the final accumulators.
  FailureOr<SmallVector<Value>> buildLoop(OpBuilder &b) {
    Value lb, ub;
    int64_t step = 1;
    if (scf::ForOp loop = program.kLoop) {
      lb = loop.getLowerBound();
      ub = loop.getUpperBound();
      std::optional<int64_t> constant = getConstantIntValue(loop.getStep());
      if (!constant || *constant <= 0)
        return failure();
      step = *constant;
    } else {
      lb = cst(b, loc, 0);
      ub = cst(b, loc, 1);
    }
    Value c0 = cst(b, loc, 0), c1 = cst(b, loc, 1);
    int64_t stages = program.stages;
    // The loop runs over step numbers j; step j lives in stage j % stages.
    Value trips = b.createOrFold<arith::CeilDivSIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, ub, lb), cst(b, loc, step));
    SmallVector<Value> init = zeroAccumulators(b);
    auto loop = scf::ForOp::create(
        b, loc, c0, trips, c1, init,
        [&](OpBuilder &b, Location loc, Value j, ValueRange accs) {
          // The copy part (before the barrier) stages step j, the rest
          // computes it; gmm-gpu-pipeline-stages moves the copies
          // stages - 1 steps ahead.
          Value s = remConst(b, loc, j, stages);
          Value iv = add(b, loc, lb, mul(b, loc, j, step));
          stage(b, program.lhs, 0, iv, s);
          stage(b, program.rhs, 1, iv, s);
          gpu::BarrierOp::create(b, loc);
          SmallVector<Value> next = compute(b, s, accs);
          // The next iteration's copies may refill the stage just read.
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc, next);
        });
    loop->setAttr(gmm::kPipelineStagesAttrName, b.getI64IntegerAttr(stages));
    return SmallVector<Value>(loop.getResults());
  }

  /// Replays the chain of elementwise ops between the block result and the
  /// write on a [1, kOutChunk] chunk at (row, col) of the block. Without a
  /// builder it only checks that the chain can be replayed (and returns
  /// null values), so that a refusal comes before anything is rebuilt.
  FailureOr<Value> replay(OpBuilder *b, Value v, Value chunkValue, Value row,
                          Value col, DenseMap<Value, Value> &done) {
    if (v == program.result)
      return chunkValue;
    if (auto it = done.find(v); it != done.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    auto write = program.write;
    auto shapeOf = [&](Type t) {
      return VectorType::get({1, kOutChunk},
                             cast<VectorType>(t).getElementType());
    };
    if (auto read = dyn_cast_or_null<vector::TransferReadOp>(def)) {
      if (read.getBase() != write.getBase() ||
          read.getIndices() != write.getIndices() || read.getMask())
        return failure();
      Value r;
      if (b) {
        SmallVector<Value> at = {add(*b, loc, write.getIndices()[0], row),
                                 add(*b, loc, write.getIndices()[1], col)};
        r = vector::TransferReadOp::create(
            *b, loc, shapeOf(read.getType()), read.getBase(), at,
            read.getPadding(), ArrayRef<bool>{false, false});
      }
      done[v] = r;
      return r;
    }
    if (!def || def->getNumResults() != 1 || def->getNumRegions() ||
        !OpTrait::hasElementwiseMappableTraits(def))
      return failure();
    IRMapping mapping;
    for (Value operand : def->getOperands()) {
      FailureOr<Value> x = replay(b, operand, chunkValue, row, col, done);
      if (failed(x))
        return failure();
      mapping.map(operand, *x);
    }
    Value result;
    if (b) {
      Operation *clone = b->clone(*def, mapping);
      clone->getResult(0).setType(shapeOf(v.getType()));
      result = clone->getResult(0);
    }
    done[v] = result;
    return result;
  }

  /// Refuses, before anything is rebuilt, a block epilogue that
  /// buildEpilogue could not replay per chunk.
  LogicalResult checkEpilogue() {
    DenseMap<Value, Value> done;
    if ((program.init && failed(replay(nullptr, program.init, Value(), Value(),
                                       Value(), done))) ||
        failed(replay(nullptr, program.write.getVector(), Value(), Value(),
                      Value(), done)))
      return program.write.emitOpError(
          "gmm-gpu-tile-kernel cannot replay the block epilogue (expected "
          "elementwise ops and reads of the written block)");
    return success();
  }

  /// Writes the accumulators back through shared memory, one warp row at a
  /// time, applying the tile program's epilogue per chunk.
  LogicalResult buildEpilogue(OpBuilder &b, ValueRange accs) {
    // The last iteration's (zero-filling) copies may still be in flight and
    // the output staging reuses their bytes: drain them first.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
    gpu::BarrierOp::create(b, loc);
    int64_t wtm = warpTileM(), wtn = warpTileN();
    int64_t ldc = program.tileN + kOutChunk;
    Value out = view(b, 0, {wtm, ldc}, b.getF32Type());
    Value colBase = mul(b, loc, warpN, wtn);
    auto write = program.write;
    Value target = write.getBase();
    Value rowsInTarget = memref::DimOp::create(b, loc, target, 0);
    int64_t numChunks = wtm * program.tileN / kOutChunk;
    int64_t chunksPerRow = program.tileN / kOutChunk;
    for (int64_t phase = 0; phase < warpsM; ++phase) {
      scf::IfOp::create(
          b, loc,
          cmp(b, loc, arith::CmpIPredicate::eq, warpM, cst(b, loc, phase)),
          [&](OpBuilder &b, Location loc) {
            if (mma) {
              int64_t fn = wtn / kMmaN;
              for (auto [index, acc] : llvm::enumerate(accs)) {
                int64_t i = index / fn, j = index % fn;
                vector::TransferWriteOp::create(
                    b, loc, acc, out,
                    ValueRange{cst(b, loc, i * kMmaM),
                               addConst(b, loc, colBase, j * kMmaN)},
                    ArrayRef<bool>{true, true});
              }
            } else {
              int64_t rows = wtm / kLaneRows, cols = wtn / kLaneCols;
              Value laneRow = divConst(b, loc, lane, kLaneCols);
              Value laneCol = remConst(b, loc, lane, kLaneCols);
              vector::TransferWriteOp::create(
                  b, loc, accs[0], out,
                  ValueRange{mul(b, loc, laneRow, rows),
                             add(b, loc, colBase, mul(b, loc, laneCol, cols))},
                  ArrayRef<bool>{true, true});
            }
            scf::YieldOp::create(b, loc);
          });
      gpu::BarrierOp::create(b, loc);
      for (int64_t q = 0; q * numThreads < numChunks; ++q) {
        Value id = addConst(b, loc, tid, q * numThreads);
        Value r = divConst(b, loc, id, chunksPerRow);
        Value c = mul(b, loc, remConst(b, loc, id, chunksPerRow), kOutChunk);
        Value row = addConst(b, loc, r, phase * wtm);
        Value inRows =
            cmp(b, loc, arith::CmpIPredicate::slt, row, rowsInTarget);
        if ((q + 1) * numThreads > numChunks)
          inRows = arith::AndIOp::create(b, loc, inRows,
                                         cmp(b, loc, arith::CmpIPredicate::ult,
                                             id, cst(b, loc, numChunks)));
        LogicalResult status = success();
        scf::IfOp::create(b, loc, inRows, [&](OpBuilder &b, Location loc) {
          Value pad = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
          Value chunkValue = vector::TransferReadOp::create(
              b, loc, VectorType::get({1, kOutChunk}, b.getF32Type()), out,
              ValueRange{r, c}, pad, ArrayRef<bool>{true, true});
          DenseMap<Value, Value> done;
          FailureOr<Value> value = success(chunkValue);
          if (program.init) {
            FailureOr<Value> init =
                replay(&b, program.init, chunkValue, row, c, done);
            if (succeeded(init))
              chunkValue = arith::AddFOp::create(b, loc, chunkValue, *init);
            value = init;
          }
          if (succeeded(value))
            value = replay(&b, write.getVector(), chunkValue, row, c, done);
          if (failed(value)) {
            status = failure(); // checkEpilogue refused it already
          } else {
            SmallVector<Value> at = {add(b, loc, write.getIndices()[0], row),
                                     add(b, loc, write.getIndices()[1], c)};
            vector::TransferWriteOp::create(b, loc, *value, target, at,
                                            ArrayRef<bool>{false, false});
          }
          scf::YieldOp::create(b, loc);
        });
        if (failed(status))
          return write.emitOpError(
              "gmm-gpu-tile-kernel cannot replay the block epilogue (expected "
              "elementwise ops and reads of the written block)");
      }
      gpu::BarrierOp::create(b, loc);
    }
    return success();
  }
};

LogicalResult TileKernel::build(RewriterBase &rewriter, BlockProgram &program) {
  gpu::LaunchOp launch = program.launch;
  Location loc = launch.getLoc();
  int64_t elementBytes = program.elementType.getIntOrFloatBitWidth() / 8;
  int64_t offset = 0;
  KernelBuilder::layout(program.lhs, elementBytes, program.stages, offset);
  KernelBuilder::layout(program.rhs, elementBytes, program.stages, offset);
  int64_t bytes = std::max(offset, KernelBuilder::outBytes(program, warpsM));
  // Up to 48 KiB the buffer is a static workgroup attribution; above, it is
  // dynamic shared memory, which the runtime opts the kernel into at launch
  // (gmm-configure checked the chip's limit).
  bool dynamicShared = bytes > gmm::kStaticSharedBytes;
  auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                              gpu::AddressSpace::Workgroup);

  OpBuilder::InsertionGuard guard(rewriter);
  KernelBuilder kb(warpsM, warpsN, program, loc);
  if (failed(kb.checkEpilogue()))
    return failure();
  Block &body = launch.getBody().front();
  if (dynamicShared) {
    rewriter.setInsertionPoint(launch);
    Value size = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getI32IntegerAttr(bytes));
    rewriter.modifyOpInPlace(launch, [&] {
      launch.getDynamicSharedMemorySizeMutable().assign(size);
    });
    rewriter.setInsertionPointToStart(&body);
    kb.buffer = gpu::DynamicSharedMemoryOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                        AffineMap(), workgroup));
  } else {
    rewriter.modifyOpInPlace(launch, [&] {
      kb.buffer = launch.addWorkgroupAttribution(
          MemRefType::get({bytes}, rewriter.getI8Type(), AffineMap(),
                          workgroup),
          loc);
    });
    rewriter.setInsertionPointToStart(&body);
  }
  // Thread coordinates, available to everything below.
  kb.tid = launch.getThreadIds().x;
  Value warp = divConst(rewriter, loc, kb.tid, kWarpSize);
  kb.lane = remConst(rewriter, loc, kb.tid, kWarpSize);
  kb.warpM = divConst(rewriter, loc, warp, warpsN);
  kb.warpN = remConst(rewriter, loc, warp, warpsN);

  Operation *anchor = program.kLoop ? program.kLoop.getOperation()
                                    : program.contract.getOperation();
  rewriter.setInsertionPoint(anchor);
  for (StagedOperand *op : {&kb.program.lhs, &kb.program.rhs}) {
    Value view = kb.view(rewriter, op->byteOffset,
                         {kb.program.stages, op->outer, op->innerPadded},
                         kb.program.elementType);
    if (op->swizzled)
      view.getDefiningOp()->setAttr(gmm::kSwizzleAttrName,
                                    rewriter.getUnitAttr());
    kb.views.push_back(view);
  }
  FailureOr<SmallVector<Value>> accs = kb.buildLoop(rewriter);
  if (failed(accs)) // analyze() checked the step
    return failure();
  rewriter.setInsertionPoint(kb.program.write);
  if (failed(kb.buildEpilogue(rewriter, *accs)))
    return failure();

  // Drop the old contraction and its write; what fed only them goes too.
  rewriter.eraseOp(kb.program.write);
  Operation *oldLoop = program.kLoop ? program.kLoop.getOperation() : nullptr;
  gmm::eraseDeadOps(rewriter, launch, [&](Operation *op) {
    return op == oldLoop || isa<vector::TransferReadOp>(op) ||
           isMemoryEffectFree(op);
  });
  // The configuration is spent: the kernel is built.
  rewriter.modifyOpInPlace(
      launch, [&] { launch->removeAttr(gmm::kKernelConfigAttrName); });
  // Folding, not dead code: constants are hoisted and uniqued and vector ops
  // of constants folded, which the vector lowering after it relies on
  // (without it the tile kernels spill to an 80-byte local array).
  RewritePatternSet patterns(launch.getContext());
  (void)applyPatternsGreedily(launch, std::move(patterns));
  return success();
}

void TileKernel::runOnOperation() {
  IRRewriter rewriter(&getContext());
  SmallVector<gpu::LaunchOp> launches;
  getOperation()->walk([&](gpu::LaunchOp op) {
    if (op->hasAttr(gmm::kKernelConfigAttrName))
      launches.push_back(op);
  });
  for (gpu::LaunchOp launch : launches) {
    BlockProgram program;
    if (failed(analyze(launch, program)) || failed(build(rewriter, program)))
      return signalPassFailure();
  }
}

} // namespace
