//===- StageEpilogue.cpp - the epilogue of each tile kernel ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-stage-epilogue, the second of the three passes that build a tile
// kernel: the block write goes through shared memory a warp row at a time,
// and every thread replays the tile program's epilogue on row chunks. See
// the pass description in include/gmm/Codegen/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUSTAGEEPILOGUE
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

using namespace mlir::gmm::kernel_index;
using namespace mlir::gmm::gpu_shapes;

constexpr StringLiteral kPass = "gmm-gpu-stage-epilogue";

/// What the epilogue of one tile kernel is built from.
struct EpilogueProgram {
  gpu::LaunchOp launch;
  /// The accumulated block: the staged loop's result.
  Value result;
  vector::TransferWriteOp write;
  Value buffer; // the workgroup i8 buffer
  int64_t tileM = 0, tileN = 0, warpsM = 0, warpsN = 0;
};

/// Builds the epilogue of one tile kernel.
struct EpilogueBuilder {
  EpilogueProgram &program;
  Location loc;

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

  /// Refuses, before anything is rebuilt, a block epilogue that `build`
  /// could not replay per chunk.
  LogicalResult check() {
    DenseMap<Value, Value> done;
    if (failed(replay(nullptr, program.write.getVector(), Value(), Value(),
                      Value(), done)))
      return program.write.emitOpError(
          "gmm-gpu-stage-epilogue cannot replay the block epilogue (expected "
          "elementwise ops and reads of the written block)");
    return success();
  }

  /// Writes the block back through shared memory, one warp row at a time,
  /// applying the tile program's epilogue per chunk.
  void build(OpBuilder &b) {
    // The last iteration's (zero-filling) copies may still be in flight and
    // the output staging reuses their bytes: drain them first.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0));
    gpu::BarrierOp::create(b, loc);
    int64_t wtm = program.tileM / program.warpsM;
    int64_t ldc = program.tileN + kOutChunk;
    Value out = gmm::workgroupView(b, loc, program.buffer, 0, {wtm, ldc},
                                   b.getF32Type());
    auto write = program.write;
    Value target = write.getBase();
    Value rowsInTarget = memref::DimOp::create(b, loc, target, 0);
    Value tid = program.launch.getThreadIds().x;
    int64_t numThreads = threadsPerBlock(program.warpsM, program.warpsN);
    int64_t numChunks = wtm * program.tileN / kOutChunk;
    int64_t chunksPerRow = program.tileN / kOutChunk;
    for (int64_t phase = 0; phase < program.warpsM; ++phase) {
      // The block's rows of this warp row, staged (each warp its own
      // fragments, once gmm-gpu-distribute-warps has run).
      Value rows = vector::ExtractStridedSliceOp::create(
          b, loc, program.result, ArrayRef<int64_t>{phase * wtm, 0},
          ArrayRef<int64_t>{wtm, program.tileN}, ArrayRef<int64_t>{1, 1});
      Value c0 = cst(b, loc, 0);
      vector::TransferWriteOp::create(b, loc, rows, out, ValueRange{c0, c0},
                                      ArrayRef<bool>{true, true});
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
        scf::IfOp::create(b, loc, inRows, [&](OpBuilder &b, Location loc) {
          Value pad = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
          Value chunkValue = vector::TransferReadOp::create(
              b, loc, VectorType::get({1, kOutChunk}, b.getF32Type()), out,
              ValueRange{r, c}, pad, ArrayRef<bool>{true, true});
          DenseMap<Value, Value> done;
          // check() replayed the same chain.
          Value value =
              *replay(&b, write.getVector(), chunkValue, row, c, done);
          SmallVector<Value> at = {add(b, loc, write.getIndices()[0], row),
                                   add(b, loc, write.getIndices()[1], c)};
          vector::TransferWriteOp::create(b, loc, value, target, at,
                                          ArrayRef<bool>{false, false});
          scf::YieldOp::create(b, loc);
        });
      }
      gpu::BarrierOp::create(b, loc);
    }
  }
};

LogicalResult analyze(gpu::LaunchOp launch, EpilogueProgram &program) {
  program.launch = launch;
  FailureOr<gmm::KernelConfigAttr> config =
      gmm::getLaunchKernelConfig(launch, kPass);
  if (failed(config))
    return failure();
  program.tileM = config->getTileM();
  program.tileN = config->getTileN();
  program.warpsM = config->getWarps()[0];
  program.warpsN = config->getWarps()[1];
  if (program.tileM % program.warpsM || program.tileN % kOutChunk)
    return launch.emitOpError(kPass)
           << " expects the tile to split into warp rows and " << kOutChunk
           << "-element chunks (" << *config << ")";
  FailureOr<scf::ForOp> loop =
      gmm::getStagedLoop(launch, program.tileM, program.tileN, kPass);
  if (failed(loop))
    return failure();
  program.result = loop->getResult(0);
  program.buffer = gmm::getKernelSharedBuffer(launch);
  int64_t staging =
      epilogueStagingBytes(program.tileM, program.tileN, program.warpsM);
  std::optional<int64_t> bytes;
  if (program.buffer) {
    auto type = cast<MemRefType>(program.buffer.getType());
    if (type.hasStaticShape())
      bytes = type.getNumElements();
    else if (Value size = launch.getDynamicSharedMemorySize())
      bytes = getConstantIntValue(size);
  }
  if (!bytes || *bytes < staging)
    return launch.emitOpError(kPass)
           << " expects a workgroup buffer of at least " << staging
           << " bytes for the epilogue's staging (gmm-gpu-promote-operands "
              "sizes it)";
  // The block write: the one 2-D write outside shared memory.
  SmallVector<vector::TransferWriteOp> writes;
  launch.walk([&](vector::TransferWriteOp op) {
    auto type = dyn_cast<MemRefType>(op.getBase().getType());
    if (!type || !gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type))
      writes.push_back(op);
  });
  if (writes.size() != 1 ||
      !isa<MemRefType>(writes.front().getBase().getType()) ||
      cast<MemRefType>(writes.front().getBase().getType()).getRank() != 2 ||
      writes.front().getVectorType().getRank() != 2 ||
      !writes.front().getPermutationMap().isMinorIdentity() ||
      writes.front().getMask())
    return launch.emitOpError(kPass)
           << " expects one 2-D block write per tile loop";
  program.write = writes.front();
  return success();
}

struct StageEpilogue
    : public mlir::gmm::impl::GMMGPUStageEpilogueBase<StageEpilogue> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : gmm::tileKernelsInProgress(getOperation())) {
      EpilogueProgram program;
      if (failed(analyze(launch, program)))
        return signalPassFailure();
      EpilogueBuilder builder{program, launch.getLoc()};
      if (failed(builder.check()))
        return signalPassFailure();
      rewriter.setInsertionPoint(program.write);
      builder.build(rewriter);
      // Drop the block write; what fed only it goes too.
      rewriter.eraseOp(program.write);
      gmm::eraseDeadOps(rewriter, launch, [&](Operation *op) {
        return isa<vector::TransferReadOp>(op) || isMemoryEffectFree(op);
      });
      gmm::foldKernel(launch);
    }
  }
};

} // namespace
