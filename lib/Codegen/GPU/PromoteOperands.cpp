//===- PromoteOperands.cpp - shared-memory stages of each tile kernel ----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-promote-operands, the first of the three passes that build a tile
// kernel: the visit's contraction loop is rebuilt around multi-buffered
// shared-memory stages, unpipelined, its math still one block-level
// vector.contract. See the pass description in
// include/gmm/Codegen/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Dialect/GMM/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUPROMOTEOPERANDS
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;
using mlir::gmm::buildMatmulContraction;

namespace {

using namespace mlir::gmm::kernel_index;

// The kernel's shapes, which gmm-configure checks configurations against.
using namespace mlir::gmm::gpu_shapes;

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

/// Everything gmm-gpu-promote-operands needs to know about one tile kernel.
struct BlockProgram {
  gpu::LaunchOp launch;
  vector::ContractionOp contract;
  scf::ForOp kLoop; // null when the contraction runs once
  StagedOperand lhs, rhs;
  Value result; // the accumulated block, as the epilogue consumes it
  /// The contraction's initial accumulator when it is not zero: the block's
  /// current values (accumulation into init folded into the contraction).
  /// The staged loop accumulates from zero and adds it after the loop.
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

struct PromoteOperands
    : public mlir::gmm::impl::GMMGPUPromoteOperandsBase<PromoteOperands> {
  void runOnOperation() override;

  LogicalResult analyze(gpu::LaunchOp launch, BlockProgram &program);
  LogicalResult build(RewriterBase &rewriter, BlockProgram &program);

  /// The warps of the tile loop being mapped, from its configuration.
  int64_t warpsM = 0, warpsN = 0;
  int64_t numThreads() const { return threadsPerBlock(warpsM, warpsN); }
};

LogicalResult PromoteOperands::analyze(gpu::LaunchOp launch,
                                       BlockProgram &program) {
  program.launch = launch;
  // The configuration gmm-gpu-map-blocks put on the launch.
  FailureOr<gmm::KernelConfigAttr> maybeConfig =
      gmm::getLaunchKernelConfig(launch, "gmm-gpu-promote-operands");
  if (failed(maybeConfig))
    return failure();
  gmm::KernelConfigAttr config = *maybeConfig;
  SmallVector<vector::ContractionOp> contracts;
  launch.walk([&](vector::ContractionOp op) { contracts.push_back(op); });
  if (contracts.size() != 1)
    return launch.emitOpError(
               "gmm-gpu-promote-operands expects one vector.contract "
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
    return contract.emitOpError("gmm-gpu-promote-operands expects an (m, k) x "
                                "(k, n) -> (m, n) addition");
  if (failed(matchOperand(contract.getLhs(), program.lhs)) ||
      failed(matchOperand(contract.getRhs(), program.rhs)))
    return contract.emitOpError(
        "gmm-gpu-promote-operands expects the contraction's "
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
    return launch.emitOpError("gmm-gpu-promote-operands expects blocks of ")
           << numThreads() << " x 1 x 1 threads (the configuration's " << warpsM
           << "x" << warpsN << " warps)";
  if (!launch.getWorkgroupAttributions().empty() ||
      launch.getDynamicSharedMemorySize())
    return launch.emitOpError(
        "gmm-gpu-promote-operands expects a launch without "
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
          "gmm-gpu-promote-operands expects the accumulator to "
          "be carried by the contraction loop");
    // The stages hold fixed steps: checked before anything is rewritten.
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step || *step <= 0)
      return loop.emitOpError(
          "gmm-gpu-promote-operands expects a contraction loop "
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
      return contract.emitOpError(
          "gmm-gpu-promote-operands expects the initial "
          "accumulator outside the loop");
    program.init = init;
  }

  return success();
}

//===----------------------------------------------------------------------===//
// The block kernel
//===----------------------------------------------------------------------===//

/// Builds the staged contraction loop of one visit block.
struct KernelBuilder {
  int64_t numThreads;
  BlockProgram program;
  Value buffer; // the workgroup i8 buffer
  Value tid;
  Location loc;
  int64_t elementBytes, chunk;
  SmallVector<Value> views; // per operand, its stages in the workgroup buffer

  KernelBuilder(int64_t numThreads, const BlockProgram &program, Location loc)
      : numThreads(numThreads), program(program), loc(loc) {
    elementBytes = program.elementType.getIntOrFloatBitWidth() / 8;
    chunk = kChunkBytes / elementBytes;
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

  /// The staged contraction loop, unpipelined; returns the accumulated
  /// block.
  FailureOr<Value> buildLoop(OpBuilder &b) {
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
    auto accType =
        VectorType::get({program.tileM, program.tileN}, b.getF32Type());
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(accType));
    auto loop = scf::ForOp::create(
        b, loc, c0, trips, c1, ValueRange{zero},
        [&](OpBuilder &b, Location loc, Value j, ValueRange accs) {
          // The copy part (before the barrier) stages step j, the rest
          // computes it; gmm-gpu-pipeline-stages moves the copies
          // stages - 1 steps ahead.
          Value s = remConst(b, loc, j, stages);
          Value iv = add(b, loc, lb, mul(b, loc, j, step));
          stage(b, program.lhs, 0, iv, s);
          stage(b, program.rhs, 1, iv, s);
          gpu::BarrierOp::create(b, loc);
          // The block's contraction of the stage, for
          // gmm-gpu-distribute-warps to share among the warps.
          Value a =
              gmm::readStagedBlock(b, loc, views[0], program.lhs.transposed, s,
                                   c0, c0, program.tileM, program.tileK);
          Value w =
              gmm::readStagedBlock(b, loc, views[1], program.rhs.transposed, s,
                                   c0, c0, program.tileK, program.tileN);
          Value next = buildMatmulContraction(b, loc, a, w, accs.front());
          // The next iteration's copies may refill the stage just read.
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc, next);
        });
    loop->setAttr(gmm::kPipelineStagesAttrName, b.getI64IntegerAttr(stages));
    return loop.getResult(0);
  }
};

LogicalResult PromoteOperands::build(RewriterBase &rewriter,
                                     BlockProgram &program) {
  gpu::LaunchOp launch = program.launch;
  Location loc = launch.getLoc();
  int64_t elementBytes = program.elementType.getIntOrFloatBitWidth() / 8;
  int64_t offset = 0;
  KernelBuilder::layout(program.lhs, elementBytes, program.stages, offset);
  KernelBuilder::layout(program.rhs, elementBytes, program.stages, offset);
  // The buffer is also the epilogue's staging (gmm-gpu-stage-epilogue
  // reuses the stages' bytes for one warp row of f32 accumulators).
  int64_t bytes = std::max(
      offset, epilogueStagingBytes(program.tileM, program.tileN, warpsM));
  // Up to 48 KiB the buffer is a static workgroup attribution; above, it is
  // dynamic shared memory, which the runtime opts the kernel into at launch
  // (gmm-configure checked the chip's limit).
  bool dynamicShared = bytes > gmm::kStaticSharedBytes;
  auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                              gpu::AddressSpace::Workgroup);

  OpBuilder::InsertionGuard guard(rewriter);
  KernelBuilder kb(numThreads(), program, loc);
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
  }
  kb.tid = launch.getThreadIds().x;

  Operation *anchor = program.kLoop ? program.kLoop.getOperation()
                                    : program.contract.getOperation();
  rewriter.setInsertionPoint(anchor);
  for (StagedOperand *op : {&kb.program.lhs, &kb.program.rhs}) {
    Value view =
        gmm::workgroupView(rewriter, loc, kb.buffer, op->byteOffset,
                           {kb.program.stages, op->outer, op->innerPadded},
                           kb.program.elementType);
    if (op->swizzled)
      view.getDefiningOp()->setAttr(gmm::kSwizzleAttrName,
                                    rewriter.getUnitAttr());
    kb.views.push_back(view);
  }
  FailureOr<Value> block = kb.buildLoop(rewriter);
  if (failed(block)) // analyze() checked the step
    return failure();
  // The loop accumulates from zero; the block's initial values (init's)
  // are added after it, where the epilogue reads them.
  Value result = *block;
  if (program.init)
    result = arith::AddFOp::create(rewriter, loc, result, program.init);
  rewriter.replaceAllUsesWith(program.result, result);

  // Drop the old contraction; what fed only it goes too.
  Operation *oldLoop = program.kLoop ? program.kLoop.getOperation() : nullptr;
  gmm::eraseDeadOps(rewriter, launch, [&](Operation *op) {
    return op == oldLoop || isa<vector::TransferReadOp>(op) ||
           isMemoryEffectFree(op);
  });
  gmm::foldKernel(launch);
  return success();
}

void PromoteOperands::runOnOperation() {
  IRRewriter rewriter(&getContext());
  for (gpu::LaunchOp launch : gmm::tileKernelsInProgress(getOperation())) {
    BlockProgram program;
    if (failed(analyze(launch, program)) || failed(build(rewriter, program)))
      return signalPassFailure();
  }
}

} // namespace
