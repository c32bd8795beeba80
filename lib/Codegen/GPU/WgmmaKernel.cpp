//===- WgmmaKernel.cpp - the Hopper tile kernel ---------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-wgmma-kernel (Passes.td says what it builds): matches the block
// program of a tile kernel configured with mma = wgmma, then replaces its k
// loop and its block write with the warp-specialized TMA + wgmma kernel.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Codegen/GPU/Utils.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPUWGMMAKERNEL
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

using namespace mlir::gmm::kernel_index;
using namespace mlir::gmm::wgmma_shapes;

/// The parts of a tile kernel's block program that the Hopper kernel
/// replaces or reads.
struct BlockProgram {
  scf::ForOp loop;
  vector::TransferReadOp lhs, rhs;
  /// The conversion of the block to the result type, or null.
  Operation *convert = nullptr;
  vector::TransferWriteOp write;
};

/// Whether `value` is defined outside `launch`'s body.
bool isDefinedAbove(Value value, gpu::LaunchOp launch) {
  return !launch.getBody().isAncestor(value.getParentRegion());
}

/// Why `read` cannot be staged by TMA as the operand whose index `kDim`
/// (from the end) is the k loop's, or an empty string: a read of a static,
/// contiguous memref from above the launch, of 16-bit elements, in the
/// memref's own order, padded with zero, whose rows are whole 16-byte
/// chunks and whose sizes TMA's 32-bit coordinates reach.
std::string tmaRefusal(vector::TransferReadOp read, gpu::LaunchOp launch,
                       scf::ForOp loop, unsigned kDim) {
  auto type = dyn_cast<MemRefType>(read.getBase().getType());
  if (!type || !isDefinedAbove(read.getBase(), launch))
    return "an operand is not a memref from outside the kernel";
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return "an operand has a dynamic shape or a strided layout";
  if (type.getRank() < 2 || type.getRank() > 5)
    return "an operand's rank is outside TMA's 2 to 5";
  if (type.getNumElements() == 0)
    return "an operand is empty (a tensor map has no dimension of size 0)";
  if (type.getElementTypeBitWidth() != 16)
    return "the operands are not 16-bit";
  if (!read.getPermutationMap().isMinorIdentity())
    return "an operand is read transposed (k-major weights)";
  if (read.getMask() || !matchPattern(read.getPadding(), m_AnyZeroFloat()))
    return "an operand read is masked or padded with a value other than 0";
  if (!gmm::gpu_shapes::isWholeChunkRow(type.getShape().back(), 2))
    return "an operand's rows are not whole 16-byte chunks (TMA's strides)";
  if (llvm::any_of(type.getShape(),
                   [](int64_t size) { return size > INT32_MAX; }))
    return "an operand has a dimension past TMA's 32-bit coordinates";
  ValueRange indices = read.getIndices();
  if (indices[indices.size() - 1 - kDim] != loop.getInductionVar())
    return "an operand is not read at the k loop's step";
  for (Value index : indices)
    if (index != loop.getInductionVar() && !loop.isDefinedOutsideOfLoop(index))
      return "an operand's index depends on the k loop";
  return "";
}

/// Matches the block program of `launch`, or returns why it has another
/// form.
FailureOr<BlockProgram> matchBlockProgram(gpu::LaunchOp launch,
                                          gmm::KernelConfigAttr config,
                                          std::string &why) {
  SmallVector<vector::ContractionOp> contracts;
  launch.walk([&](vector::ContractionOp op) { contracts.push_back(op); });
  auto refuse = [&](StringRef reason) -> FailureOr<BlockProgram> {
    why = reason.str();
    return failure();
  };
  if (contracts.size() != 1)
    return refuse("the kernel has no single block contraction");
  vector::ContractionOp contract = contracts.front();
  BlockProgram program;
  program.loop = dyn_cast<scf::ForOp>(contract->getParentOp());
  scf::ForOp loop = program.loop;
  if (!loop || loop.getNumRegionIterArgs() != 1 ||
      contract.getAcc() != loop.getRegionIterArgs()[0] ||
      !contract->hasOneUse() ||
      !isa<scf::YieldOp>(*contract->getUsers().begin()))
    return refuse("the contraction does not accumulate a k loop's block");
  if (!matchPattern(loop.getLowerBound(), m_Zero()) ||
      getConstantIntValue(loop.getStep()) != config.getTileK())
    return refuse("the k loop does not run from 0 in steps of tile k");
  if (!matchPattern(loop.getInits()[0], m_AnyZeroFloat()))
    return refuse("the block does not start from zero (init accumulation)");
  // Standard matmul maps: (m, k) x (k, n) -> (m, n).
  MLIRContext *ctx = launch.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<AffineMap> maps = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {k, n}, {m, n}}, ctx);
  if (contract.getIndexingMapsArray() != maps ||
      contract.getKind() != vector::CombiningKind::ADD)
    return refuse("the contraction is not a row-major matmul");
  auto readOf = [](Value operand) -> vector::TransferReadOp {
    if (auto ext = operand.getDefiningOp<arith::ExtFOp>())
      operand = ext.getIn();
    return operand.getDefiningOp<vector::TransferReadOp>();
  };
  program.lhs = readOf(contract.getLhs());
  program.rhs = readOf(contract.getRhs());
  if (!program.lhs || !program.rhs)
    return refuse("an operand is not a transfer_read");
  VectorType lhsType = program.lhs.getVectorType();
  VectorType rhsType = program.rhs.getVectorType();
  if (lhsType.getShape() != ArrayRef<int64_t>{kTileM, kTileK} ||
      rhsType.getShape() != ArrayRef<int64_t>{kTileK, config.getTileN()})
    return refuse("the operand blocks are not the configuration's tile");
  if (lhsType.getElementType() != rhsType.getElementType())
    return refuse("the operands have different element types");
  for (auto [read, kDim] :
       {std::make_pair(program.lhs, 0u), std::make_pair(program.rhs, 1u)}) {
    std::string refusal = tmaRefusal(read, launch, loop, kDim);
    if (!refusal.empty())
      return refuse(refusal);
  }
  auto lhsMemref = cast<MemRefType>(program.lhs.getBase().getType());
  auto rhsMemref = cast<MemRefType>(program.rhs.getBase().getType());
  if (rhsMemref.getRank() < 3 ||
      lhsMemref.getShape().back() !=
          rhsMemref.getShape()[rhsMemref.getRank() - 2])
    return refuse("the rhs has no group dimension or another k");
  // The block's one use: the write, maybe through a conversion.
  Value block = loop.getResult(0);
  if (!block.hasOneUse())
    return refuse("the block has more than one use");
  Operation *user = *block.getUsers().begin();
  if (isa<arith::TruncFOp>(user)) {
    program.convert = user;
    if (!user->hasOneUse())
      return refuse("the converted block has more than one use");
    user = *user->getUsers().begin();
  }
  if (isa<arith::AddFOp>(user))
    return refuse("the block is added to an init (accumulation)");
  program.write = dyn_cast<vector::TransferWriteOp>(user);
  if (!program.write || program.write.getMask() ||
      !program.write.getPermutationMap().isMinorIdentity())
    return refuse("the block is not written by one unmasked transfer_write");
  auto dest = dyn_cast<MemRefType>(program.write.getBase().getType());
  if (!dest || dest.getRank() != 2 || !isa<FloatType>(dest.getElementType()) ||
      (dest.getElementTypeBitWidth() != 16 &&
       dest.getElementTypeBitWidth() != 32))
    return refuse("the block is not written to a 2-D view of f32, bf16 or "
                  "f16");
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(dest.getStridesAndOffset(strides, offset)) || strides[1] != 1)
    return refuse("the result's rows are not contiguous");
  // The epilogue stores 16-byte chunks: rows start on 16-byte boundaries
  // (of a buffer that does).
  if (ShapedType::isDynamic(strides[0]) ||
      !gmm::gpu_shapes::isWholeChunkRow(strides[0],
                                        dest.getElementTypeBitWidth() / 8))
    return refuse("the result's rows are not whole 16-byte chunks");
  if (program.write->getBlock() != loop->getBlock())
    return refuse("the block is written in another block than the k loop's");
  return program;
}

/// The TMA tensor map type of boxes `box` of `elementType` in shared memory.
nvgpu::TensorMapDescriptorType
tensorMapType(MLIRContext *ctx, ArrayRef<int64_t> box, Type elementType) {
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  return nvgpu::TensorMapDescriptorType::get(
      ctx,
      MemRefType::get(box, elementType, MemRefLayoutAttrInterface(), workgroup),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

/// Builds, before `launch`, the tensor map of `read`'s memref in boxes of
/// 1 x ... x 1 x rows x cols.
Value buildTensorMap(OpBuilder &b, gpu::LaunchOp launch,
                     vector::TransferReadOp read, int64_t rows, int64_t cols,
                     nvgpu::TensorMapDescriptorType &type) {
  Location loc = read.getLoc();
  auto memref = cast<MemRefType>(read.getBase().getType());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(launch);
  SmallVector<int64_t> box(memref.getRank(), 1);
  box[box.size() - 2] = rows;
  box.back() = cols;
  type = tensorMapType(b.getContext(), box, memref.getElementType());
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(memref.getElementType(), Attribute()),
      read.getBase());
  SmallVector<Value> boxValues;
  for (int64_t size : box)
    boxValues.push_back(cst(b, loc, size));
  return nvgpu::TmaCreateDescriptorOp::create(b, loc, type, unranked,
                                              boxValues);
}

/// The TMA coordinates (innermost first) of `read`'s box at step `kOffset`
/// of the k loop, whose index it replaces, and `innerOffset` added to the
/// innermost one.
SmallVector<Value> boxCoordinates(OpBuilder &b, Location loc,
                                  vector::TransferReadOp read, Value iv,
                                  Value kOffset, Value innerOffset) {
  SmallVector<Value> coordinates;
  for (Value index : llvm::reverse(read.getIndices()))
    coordinates.push_back(index == iv ? kOffset : index);
  if (innerOffset)
    coordinates.front() = add(b, loc, coordinates.front(), innerOffset);
  return coordinates;
}

/// The phase parity of k step `kt` in a ring of `stages`: (kt / stages) % 2,
/// flipped by `flip`.
Value phaseParity(OpBuilder &b, Location loc, Value kt, int64_t stages,
                  bool flip) {
  Value round = remConst(b, loc, divConst(b, loc, kt, stages), 2);
  if (flip)
    round = arith::XOrIOp::create(b, loc, round, cst(b, loc, 1));
  return arith::IndexCastOp::create(b, loc, b.getI1Type(), round);
}

/// Makes the kernel take each of `maps` (tensor maps built before `launch`
/// and used in it) as a pointer to the device memory that holds it:
/// gpu-kernel-outlining and convert-gpu-to-nvvm know no NVGPU types, and
/// convert-nvgpu-to-nvvm (which lowers a map to that pointer) runs after
/// outlining in gmm's pipeline. The casts pair up once both sides are
/// lowered. (Folding the kernel afterwards would fold the casts away.) An
/// MLIR 22 workaround: the maps can be passed as they are once outlining
/// and convert-gpu-to-nvvm know the NVGPU types.
void passMapsByPointer(gpu::LaunchOp launch, ArrayRef<Value> maps) {
  OpBuilder b(launch), inKernel(launch.getContext());
  inKernel.setInsertionPointToStart(&launch.getBody().front());
  auto pointerType = LLVM::LLVMPointerType::get(launch.getContext());
  for (Value map : maps) {
    Value pointer = UnrealizedConversionCastOp::create(
                        b, map.getLoc(), TypeRange(pointerType), map)
                        .getResult(0);
    Value inside =
        UnrealizedConversionCastOp::create(inKernel, map.getLoc(),
                                           TypeRange(map.getType()), pointer)
            .getResult(0);
    map.replaceUsesWithIf(inside, [&](OpOperand &use) {
      return launch->isProperAncestor(use.getOwner());
    });
  }
}

/// The block's view of the result, as the epilogues store to it: the
/// write's memref and indices, the view's sizes (of a subview: its size
/// operands) and where its first element lies.
struct ResultView {
  Value dest, rowBase, colBase, rowLimit, colLimit, address;
  Type elementType;
  int64_t elementBytes;

  /// Whether the view's first element lies on a multiple of `bytes`.
  Value startsAlignedTo(OpBuilder &b, Location loc, int64_t bytes) const {
    return cmp(b, loc, arith::CmpIPredicate::eq,
               remConst(b, loc, address, bytes), cst(b, loc, 0));
  }
};

ResultView resultView(OpBuilder &b, Location loc, const BlockProgram &program) {
  ResultView view;
  vector::TransferWriteOp write = program.write;
  view.dest = write.getBase();
  view.elementType = cast<MemRefType>(view.dest.getType()).getElementType();
  view.elementBytes = view.elementType.getIntOrFloatBitWidth() / 8;
  view.rowBase = write.getIndices()[0];
  view.colBase = write.getIndices()[1];
  view.rowLimit = b.createOrFold<memref::DimOp>(loc, view.dest, 0);
  view.colLimit = b.createOrFold<memref::DimOp>(loc, view.dest, 1);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, view.dest);
  view.address = add(
      b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view.dest),
      mul(b, loc, metadata.getOffset(), view.elementBytes));
  return view;
}

/// Stores a run of consecutive elements at (`row`, `col`) of the view where
/// that element lies inside it: the vector `values()` makes there, in one
/// store of `alignment` bytes where the view's start is `aligned` and the
/// run ends inside its columns, else element by element, each bounded by
/// the columns. Both epilogues store their partial blocks this way.
void storeRunInside(OpBuilder &b, Location loc, const ResultView &view,
                    Value row, Value col, Value aligned, int64_t alignment,
                    function_ref<Value()> values) {
  OpBuilder::InsertionGuard guard(b);
  Value inside = arith::AndIOp::create(
      b, loc, cmp(b, loc, arith::CmpIPredicate::slt, row, view.rowLimit),
      cmp(b, loc, arith::CmpIPredicate::slt, col, view.colLimit));
  auto ifInside = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
  b.setInsertionPointToStart(ifInside.thenBlock());
  Value run = values();
  int64_t count = cast<VectorType>(run.getType()).getNumElements();
  Value whole =
      arith::AndIOp::create(b, loc, aligned,
                            cmp(b, loc, arith::CmpIPredicate::sle,
                                addConst(b, loc, col, count), view.colLimit));
  auto ifWhole = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
  b.setInsertionPointToStart(ifWhole.thenBlock());
  vector::StoreOp::create(b, loc, run, view.dest, ValueRange{row, col},
                          /*nontemporal=*/false, llvm::MaybeAlign(alignment));
  b.setInsertionPointToStart(ifWhole.elseBlock());
  for (int64_t e = 0; e < count; ++e) {
    OpBuilder::InsertionGuard inner(b);
    Value column = addConst(b, loc, col, e);
    auto ifColumn = scf::IfOp::create(
        b, loc, cmp(b, loc, arith::CmpIPredicate::slt, column, view.colLimit),
        /*withElse=*/false);
    b.setInsertionPointToStart(ifColumn.thenBlock());
    memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, run, e),
                            view.dest, ValueRange{row, column});
  }
}

/// The epilogue of an f32 result, per consumer warpgroup: each thread
/// stores its fragments of the 64 x tileN accumulator `acc` (rows 64
/// `consumer` + 16 w + lane / 4 (+ 8), columns 8 i + 2 (lane % 4) (+ 1),
/// for warp w of the warpgroup: the ISA's wgmma D fragment) straight from
/// its registers to the block's view of the result, a pair of columns (8
/// bytes, whole 32-byte sectors of a row across the quad) per store: no
/// shared memory and no barrier, so that nothing waits for the other
/// consumer. A block whose rows and columns all lie inside the view stores
/// unchecked; another checks each pair against the view's sizes, and a
/// view whose start is not pair-aligned (a column slice of a larger
/// result) gets element stores. (Measured on an H200: 0.99-1.15 times the
/// shared-memory epilogue for f32 results, 0.92-1.00 times for bf16
/// results, whose 4-byte pairs fill half sectors: bench/README.md.)
void storeAccumulators(OpBuilder &b, Location loc, const BlockProgram &program,
                       int64_t tileN, Value tid, Value consumer, Value acc) {
  MLIRContext *ctx = b.getContext();
  ResultView view = resultView(b, loc, program);
  Value dest = view.dest, rowBase = view.rowBase, colBase = view.colBase;
  Value rowLimit = view.rowLimit, colLimit = view.colLimit;
  int64_t resultBytes = view.elementBytes;
  // The rows are whole 16-byte chunks (matchBlockProgram), so every pair
  // (an even column) is aligned when the view's start is.
  Value pairAligned = view.startsAlignedTo(b, loc, 2 * resultBytes);
  Value lane = remConst(b, loc, tid, 32);
  Value warp = remConst(b, loc, divConst(b, loc, tid, 32), kWarpsPerWarpgroup);
  Value fragmentRow =
      add(b, loc, rowBase,
          add(b, loc, mul(b, loc, consumer, kWgmmaM),
              add(b, loc, mul(b, loc, warp, 16), divConst(b, loc, lane, 4))));
  Value fragmentCol =
      add(b, loc, colBase, mul(b, loc, remConst(b, loc, lane, 4), 2));
  // The accumulator as convert-nvgpu-to-nvvm lowers it: a struct of one
  // struct of tileN / 2 f32 per 64 rows. The cast meets the lowering's own
  // once both are lowered (test/Codegen/GPU/upstream-accumulator.mlir fails
  // when upstream changes that type).
  Type f32 = b.getF32Type();
  auto inner =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(tileN / 2, f32));
  auto outer = LLVM::LLVMStructType::getLiteral(ctx, {inner});
  Value fragments =
      UnrealizedConversionCastOp::create(b, loc, TypeRange(outer), acc)
          .getResult(0);
  Value values = LLVM::ExtractValueOp::create(b, loc, fragments, {0});
  SmallVector<Value> pairs;
  for (int64_t j = 0; j < tileN / 2; j += 2)
    pairs.push_back(vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, f32),
        ValueRange{LLVM::ExtractValueOp::create(b, loc, values, {j}),
                   LLVM::ExtractValueOp::create(b, loc, values, {j + 1})}));
  auto store = [&](bool checked) {
    for (int64_t i = 0; i < tileN / 8; ++i)
      for (int64_t half = 0; half < 2; ++half) {
        OpBuilder::InsertionGuard guard(b);
        Value pair = pairs[2 * i + half];
        Value row = addConst(b, loc, fragmentRow, 8 * half);
        Value col = addConst(b, loc, fragmentCol, 8 * i);
        if (checked)
          storeRunInside(b, loc, view, row, col, pairAligned, 2 * resultBytes,
                         [&] { return pair; });
        else
          vector::StoreOp::create(b, loc, pair, dest, ValueRange{row, col},
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(2 * resultBytes));
      }
  };
  // The whole block inside the view, pair-aligned: unchecked stores.
  Value whole = arith::AndIOp::create(
      b, loc, pairAligned,
      arith::AndIOp::create(b, loc,
                            cmp(b, loc, arith::CmpIPredicate::sle,
                                addConst(b, loc, rowBase, kTileM), rowLimit),
                            cmp(b, loc, arith::CmpIPredicate::sle,
                                addConst(b, loc, colBase, tileN), colLimit)));
  auto ifWhole = scf::IfOp::create(b, loc, whole, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifWhole.thenBlock());
  store(/*checked=*/false);
  b.setInsertionPointToStart(ifWhole.elseBlock());
  store(/*checked=*/true);
}

/// The epilogue of a 16-bit result: once both consumers are done with the
/// stages (a named barrier of their threads; the producer issued nothing
/// since their last wait), the f32 accumulators go through shared memory
/// (the stages, rows padded by kEpiloguePad) and from there, converted, to
/// the block's view of the result in 16-byte chunks spread over the
/// consumers' threads (element stores for a view that does not start and
/// end on 16-byte boundaries): whole sectors, where the registers' 4-byte
/// pairs would fill half of each.
void stageAccumulators(OpBuilder &b, Location loc, const BlockProgram &program,
                       int64_t tileN, Value tid, Value buffer, Value start,
                       Value acc) {

  Value barrierId = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  Value consumerThreads = arith::ConstantIntOp::create(
      b, loc, b.getI32Type(), kConsumerWarpgroups * kWarpgroupThreads);
  auto consumerBarrier = [&] {
    NVVM::BarrierOp::create(b, loc, Type(), barrierId, consumerThreads,
                            NVVM::BarrierReductionAttr(), Value());
  };
  consumerBarrier();
  int64_t rowElements = tileN + kEpiloguePad;
  Value staging = gmm::workgroupView(b, loc, buffer, start,
                                     {kTileM, rowElements}, b.getF32Type());
  // MLIR 22's nvgpu.warpgroup.mma.store takes a destination of the
  // accumulator's 64 rows, but writes a thread's fragments at rows 16 x
  // (thread id / 32) + lane / 4 (+ 8) of it, counting warps from the
  // block's first rather than the warpgroup's: so both consumers store
  // through the tile's first 64 rows, and warpgroup 1's land in rows 64 to
  // 127 (docs/Lowering.md, upstream workarounds). When upstream counts
  // warps within the warpgroup, test/Codegen/GPU/upstream-mma-store.mlir
  // fails: then give each consumer its own 64 rows here.
  Value firstRows = memref::SubViewOp::create(
      b, loc, staging,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(kWgmmaM), b.getIndexAttr(tileN)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  nvgpu::WarpgroupMmaStoreOp::create(b, loc, acc, firstRows);
  consumerBarrier();

  // Chunks of 16 bytes of the result, spread over the consumers' threads.
  // The tile program's views start on 16-byte boundaries and end on chunk
  // boundaries (its rows are whole chunks, and so are its tiles), and a
  // chunk is then one aligned 16-byte store; a view that does not (a
  // column slice of a larger result) gets element stores, bounded by its
  // columns.
  ResultView view = resultView(b, loc, program);
  Type resultType = view.elementType;
  int64_t chunk = gmm::gpu_shapes::kChunkBytes / view.elementBytes;
  int64_t chunksPerRow = tileN / chunk;
  Value aligned = view.startsAlignedTo(b, loc, gmm::gpu_shapes::kChunkBytes);
  auto copy =
      scf::ForOp::create(b, loc, tid, cst(b, loc, kTileM * chunksPerRow),
                         cst(b, loc, kConsumerWarpgroups * kWarpgroupThreads));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(copy.getBody());
    Value index = copy.getInductionVar();
    Value r = divConst(b, loc, index, chunksPerRow);
    Value c = mul(b, loc, remConst(b, loc, index, chunksPerRow), chunk);
    Value row = add(b, loc, view.rowBase, r);
    Value col = add(b, loc, view.colBase, c);
    storeRunInside(
        b, loc, view, row, col, aligned, gmm::gpu_shapes::kChunkBytes, [&] {
          Value values = vector::LoadOp::create(
              b, loc, VectorType::get({chunk}, b.getF32Type()), staging,
              ValueRange{r, c}, /*nontemporal=*/false, llvm::MaybeAlign(16));
          return arith::TruncFOp::create(
                     b, loc, VectorType::get({chunk}, resultType), values)
              .getResult();
        });
  }
}

/// Rewrites the block program of `launch` into the Hopper kernel; returns
/// the tensor maps it builds before the launch.
SmallVector<Value> buildKernel(gpu::LaunchOp launch,
                               gmm::KernelConfigAttr config,
                               BlockProgram &program) {
  MLIRContext *ctx = launch.getContext();
  OpBuilder b(ctx);
  Location loc = program.loop.getLoc();
  int64_t stages = config.getStages(), tileN = config.getTileN();
  int64_t rhsBoxes = tileN / kTileNStep;
  Type elementType = program.lhs.getVectorType().getElementType();
  int64_t lhsBoxBytes = kTileM * kTileK * 2,
          rhsBoxBytes = kTileK * kTileNStep * 2;
  int64_t stageLhsBytes = stages * lhsBoxBytes;

  // The host's tensor maps and the launch's shape.
  nvgpu::TensorMapDescriptorType lhsMapType, rhsMapType;
  Value lhsMap =
      buildTensorMap(b, launch, program.lhs, kTileM, kTileK, lhsMapType);
  Value rhsMap =
      buildTensorMap(b, launch, program.rhs, kTileK, kTileNStep, rhsMapType);
  b.setInsertionPoint(launch);
  launch.getBlockSizeXMutable().assign(cst(b, loc, kThreads));
  launch.getDynamicSharedMemorySizeMutable().assign(
      arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                   sharedBytes(tileN, stages)));

  // The ring's barriers, initialized by thread 0 before anyone waits.
  scf::ForOp loop = program.loop;
  b.setInsertionPoint(loop);
  Value tid = launch.getThreadIds().x;
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  auto barriersType = nvgpu::MBarrierGroupType::get(ctx, workgroup, stages);
  Value full = nvgpu::MBarrierCreateOp::create(b, loc, barriersType);
  Value empty = nvgpu::MBarrierCreateOp::create(b, loc, barriersType);
  Value c0 = cst(b, loc, 0), c1 = cst(b, loc, 1);
  Value isThread0 = cmp(b, loc, arith::CmpIPredicate::eq, tid, c0);
  auto init = scf::IfOp::create(b, loc, isThread0, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(init.thenBlock());
    for (int64_t s = 0; s < stages; ++s) {
      nvgpu::MBarrierInitOp::create(b, loc, full, c1, cst(b, loc, s), Value());
      // One arrival per consumer warpgroup releases a stage.
      nvgpu::MBarrierInitOp::create(b, loc, empty,
                                    cst(b, loc, kConsumerWarpgroups),
                                    cst(b, loc, s), Value());
    }
    // The initialized barriers, visible to the copy engine (the async
    // proxy) that completes their transactions.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    nvgpu::TmaPrefetchOp::create(b, loc, lhsMap, Value());
    nvgpu::TmaPrefetchOp::create(b, loc, rhsMap, Value());
  }
  gpu::BarrierOp::create(b, loc);

  Value buffer = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  // Where the stages start: the first multiple of kSwizzleAlignment of the
  // shared window at least kStaticGuard bytes into the buffer (TMA's and
  // wgmma's 128-byte swizzle repeats every 1024 bytes of address).
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value start = b.createOrFold<arith::SubIOp>(
      loc,
      mul(b, loc,
          divConst(
              b, loc,
              addConst(b, loc, address, kStaticGuard + kSwizzleAlignment - 1),
              kSwizzleAlignment),
          kSwizzleAlignment),
      address);
  // k steps: ceil(extent / tile k); the extent is 0 for a visit of no group.
  Value steps = arith::CeilDivUIOp::create(b, loc, loop.getUpperBound(),
                                           cst(b, loc, kTileK));
  Value warpgroup = divConst(b, loc, tid, kWarpgroupThreads);
  // The consumers are warpgroups 0 and 1, the producer warpgroup 2:
  // nvgpu.warpgroup.mma.store places a thread's fragments at rows 16 x
  // (thread id / 32) of its destination, which are the tile's rows for
  // threads 0 to 255 only.
  Value isProducer = cmp(b, loc, arith::CmpIPredicate::eq, warpgroup,
                         cst(b, loc, kConsumerWarpgroups));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  Value iv = loop.getInductionVar();
  auto lhsStage = [&](Value s) {
    return add(b, loc, start, mul(b, loc, s, lhsBoxBytes));
  };
  auto rhsStage = [&](Value s) {
    return add(b, loc, addConst(b, loc, start, stageLhsBytes),
               mul(b, loc, s, rhsBoxBytes * rhsBoxes));
  };

  // The producer: the first thread of warpgroup 2 loads k step kt into stage
  // kt % stages once its consumers have released it.
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(roles.thenBlock());
    Value isIssuer = cmp(b, loc, arith::CmpIPredicate::eq, tid,
                         cst(b, loc, kConsumerWarpgroups * kWarpgroupThreads));
    auto issuer = scf::IfOp::create(b, loc, isIssuer, /*withElse=*/false);
    b.setInsertionPointToStart(issuer.thenBlock());
    auto produce = scf::ForOp::create(b, loc, c0, steps, c1);
    b.setInsertionPointToStart(produce.getBody());
    Value kt = produce.getInductionVar();
    Value s = remConst(b, loc, kt, stages);
    Value refill =
        cmp(b, loc, arith::CmpIPredicate::uge, kt, cst(b, loc, stages));
    auto wait = scf::IfOp::create(b, loc, refill, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(wait.thenBlock());
      nvgpu::MBarrierTryWaitParityOp::create(
          b, loc, empty, phaseParity(b, loc, kt, stages, /*flip=*/true),
          cst(b, loc, 10000000), s);
    }
    nvgpu::MBarrierArriveExpectTxOp::create(
        b, loc, full, cst(b, loc, stageBytes(tileN)), s, Value());
    Value kOffset = mul(b, loc, kt, kTileK);
    Value lhsView =
        gmm::workgroupView(b, loc, buffer, lhsStage(s),
                           lhsMapType.getTensor().getShape(), elementType);
    nvgpu::TmaAsyncLoadOp::create(
        b, loc, lhsView, full, lhsMap,
        boxCoordinates(b, loc, program.lhs, iv, kOffset, Value()), s, Value(),
        Value());
    for (int64_t box = 0; box < rhsBoxes; ++box) {
      Value offset = add(b, loc, rhsStage(s), cst(b, loc, box * rhsBoxBytes));
      Value rhsView =
          gmm::workgroupView(b, loc, buffer, offset,
                             rhsMapType.getTensor().getShape(), elementType);
      nvgpu::TmaAsyncLoadOp::create(
          b, loc, rhsView, full, rhsMap,
          boxCoordinates(b, loc, program.rhs, iv, kOffset,
                         cst(b, loc, box * kTileNStep)),
          s, Value(), Value());
    }
  }

  // The consumers: warpgroup c multiplies rows [64 c, 64 c + 64).
  b.setInsertionPointToStart(roles.elseBlock());
  Value consumer = warpgroup;
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get({kWgmmaM, tileN}, b.getF32Type()));
  auto sharedType = [&](ArrayRef<int64_t> shape) {
    return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                           workgroup);
  };
  auto lhsDescType = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, sharedType({kWgmmaM, kTileK}));
  auto rhsDescType = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, sharedType({kTileK, tileN}));
  // wgmma's descriptor of the rhs stage: its leading byte offset (from one
  // 64-column box to the next) is read off the tensor map's type, whose
  // box must then be the 2-D 64 x 64 one; the rhs map's own type has the
  // leading unit dimensions of its memref. The cast only retypes the value
  // for nvgpu.warpgroup.generate.descriptor, which reads no more than the
  // type (an MLIR 22 workaround, to drop once generate.descriptor takes
  // the offset right from a map whose box has leading unit dimensions).
  Value rhsDescMap =
      UnrealizedConversionCastOp::create(
          b, loc,
          TypeRange(tensorMapType(ctx, {kTileK, kTileNStep}, elementType)),
          rhsMap)
          .getResult(0);
  Value zero = nvgpu::WarpgroupMmaInitAccumulatorOp::create(b, loc, accType);
  auto consume = scf::ForOp::create(b, loc, c0, steps, c1, ValueRange{zero});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(consume.getBody());
    Value kt = consume.getInductionVar();
    Value s = remConst(b, loc, kt, stages);
    nvgpu::MBarrierTryWaitParityOp::create(
        b, loc, full, phaseParity(b, loc, kt, stages, /*flip=*/false),
        cst(b, loc, 10000000), s);
    Value lhsOffset =
        add(b, loc, lhsStage(s), mul(b, loc, consumer, kWgmmaM * kTileK * 2));
    Value lhsView = gmm::workgroupView(b, loc, buffer, lhsOffset,
                                       {kWgmmaM, kTileK}, elementType);
    Value rhsView = gmm::workgroupView(b, loc, buffer, rhsStage(s),
                                       {kTileK, tileN}, elementType);
    Value lhsDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
        b, loc, lhsDescType, lhsView, lhsMap);
    Value rhsDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
        b, loc, rhsDescType, rhsView, rhsDescMap);
    // The rhs is stored k x n (n contiguous): wgmma reads it transposed.
    Value acc = nvgpu::WarpgroupMmaOp::create(
        b, loc, accType, lhsDesc, rhsDesc, /*waitGroup=*/uint64_t(1),
        /*transposeA=*/UnitAttr(), /*transposeB=*/b.getUnitAttr(),
        consume.getRegionIterArgs()[0]);
    // With one group left in flight, step kt - 1's reads are done: its
    // stage goes back to the producer, one arrival per warpgroup.
    Value released = arith::AndIOp::create(
        b, loc, cmp(b, loc, arith::CmpIPredicate::ugt, kt, c0),
        cmp(b, loc, arith::CmpIPredicate::eq,
            remConst(b, loc, tid, kWarpgroupThreads), c0));
    auto release = scf::IfOp::create(b, loc, released, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(release.thenBlock());
      Value previous =
          remConst(b, loc, b.createOrFold<arith::SubIOp>(loc, kt, c1), stages);
      nvgpu::MBarrierArriveOp::create(b, loc, empty, previous);
    }
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, uint64_t(0));
  if (program.convert)
    stageAccumulators(b, loc, program, tileN, tid, buffer, start,
                      consume.getResult(0));
  else
    storeAccumulators(b, loc, program, tileN, tid, consumer,
                      consume.getResult(0));

  program.write.erase();
  if (program.convert)
    program.convert->erase();
  loop.erase();
  return {lhsMap, rhsMap};
}

struct GMMGPUWgmmaKernelPass
    : public gmm::impl::GMMGPUWgmmaKernelBase<GMMGPUWgmmaKernelPass> {
  void runOnOperation() override {
    for (gpu::LaunchOp launch : gmm::tileKernelsInProgress(getOperation())) {
      FailureOr<gmm::KernelConfigAttr> config =
          gmm::getLaunchKernelConfig(launch, getArgument());
      if (failed(config))
        return signalPassFailure();
      if (config->getMmaOrDefault() != gmm::GPUMma::Wgmma)
        continue;
      std::string why;
      FailureOr<BlockProgram> program = matchBlockProgram(launch, *config, why);
      if (failed(program)) {
        // The sm_80 kernel, in stages that it fits in.
        auto fallback = gmm::KernelConfigAttr::get(
            launch.getContext(), config->getTarget(), config->getTile(),
            config->getWarps(), gmm::stageBounds(gmm::GPUMma::MmaSync).min, {},
            /*microKernel=*/std::nullopt, /*mma=*/std::nullopt,
            config->getRaster());
        // wgmma configurations are made for 16-bit inputs only.
        Type inputType = FloatType(BFloat16Type::get(launch.getContext()));
        if (failed(gmm::verifyKernelConfig(
                fallback, inputType, gmm::kMaxSharedBytesPerBlock,
                [&] { return launch.emitOpError(); })))
          return signalPassFailure();
        emitRemark(launch.getLoc(), "the wgmma kernel does not apply (")
            << why << "): the sm_80 kernel runs it, " << fallback;
        launch->setAttr(gmm::kKernelConfigAttrName, fallback);
        gmm::nameLaunch(launch, "tile", fallback);
        continue;
      }
      // The configuration is checked again (the pass may run on IR that
      // gmm-configure did not make): one stage deadlocks the ring, a tile
      // of partial rhs boxes computes garbage.
      if (failed(gmm::verifyKernelConfig(
              *config, program->lhs.getVectorType().getElementType(),
              gmm::kMaxSharedBytesPerBlock,
              [&] { return launch.emitOpError(getArgument()) << ": "; })))
        return signalPassFailure();
      // Not folded (gmm::foldKernel): its hoisted constants reach ptxas as
      // registers (the named barrier's id among them, which then reserves
      // all 16 barriers) and cost 14 registers a thread.
      passMapsByPointer(launch, buildKernel(launch, *config, *program));
      // Built: the sm_80 passes after this one leave it alone.
      launch->removeAttr(gmm::kKernelConfigAttrName);
    }
  }
};

} // namespace
