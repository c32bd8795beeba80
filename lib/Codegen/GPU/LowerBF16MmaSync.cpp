//===- LowerBF16MmaSync.cpp - bf16 nvgpu.mma.sync to nvvm.mma.sync --------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-gpu-lower-bf16-mma-sync: a bf16 nvgpu.mma.sync becomes nvvm.mma.sync on
// the fragments' 32-bit registers; every other nvgpu.mma.sync is left to
// convert-nvgpu-to-nvvm. See the pass description in
// include/gmm/Codegen/GPU/Passes.td.
//
// An upstream workaround. MLIR 22's convert-nvgpu-to-nvvm takes the PTX
// type of mma.sync's A and B operands from getNvvmMmaType
// (mlir/lib/Conversion/NVGPUToNVVM/NVGPUToNVVM.cpp), which has no case for
// bf16 ("failed to deduce operand PTX types"), although nvgpu.mma.sync
// verifies bf16 operands and nvvm.mma.sync takes them with explicit PTX
// types. Later MLIR deduces bf16 there: llvm/llvm-project#194203,
// "[mlir][NVGPUToNVVM] Support BF16 mma.sync lowering" (merged April 2026,
// after the 22 branch; 22.1.8 still fails). Delete this pass, and its place
// in gmm-to-ptx's gpu.module pipeline, on the LLVM upgrade that has it,
// comparing the bf16 kernels' PTX before and after.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMGPULOWERBF16MMASYNC
#include "gmm/Codegen/GPU/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

/// The 32-bit registers of a [rows x 2] 16-bit fragment, one per row.
SmallVector<Value> registersOf(OpBuilder &b, Location loc, Value fragment) {
  auto i32x1 = VectorType::get({1}, b.getI32Type());
  SmallVector<Value> regs;
  int64_t rows = cast<VectorType>(fragment.getType()).getDimSize(0);
  for (int64_t r = 0; r < rows; ++r) {
    Value row = vector::ExtractOp::create(b, loc, fragment, r);
    Value reg = vector::BitCastOp::create(b, loc, i32x1, row);
    regs.push_back(vector::ExtractOp::create(b, loc, reg, 0));
  }
  return regs;
}

LogicalResult lower(RewriterBase &rewriter, nvgpu::MmaSyncOp op) {
  auto accType = cast<VectorType>(op.getMatrixC().getType());
  if (!accType.getElementType().isF32())
    return op.emitOpError("with bf16 operands needs an f32 accumulator");
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> a = registersOf(rewriter, loc, op.getMatrixA());
  SmallVector<Value> b = registersOf(rewriter, loc, op.getMatrixB());
  SmallVector<Value> c;
  for (int64_t r = 0; r < accType.getDimSize(0); ++r)
    for (int64_t e = 0; e < accType.getDimSize(1); ++e)
      c.push_back(vector::ExtractOp::create(rewriter, loc, op.getMatrixC(),
                                            ArrayRef<int64_t>{r, e}));
  auto resultType = LLVM::LLVMStructType::getLiteral(
      rewriter.getContext(),
      SmallVector<Type>(c.size(), rewriter.getF32Type()));
  std::array<NVVM::MMATypes, 2> types = {NVVM::MMATypes::bf16,
                                         NVVM::MMATypes::bf16};
  std::array<NVVM::MMALayout, 2> layouts = {NVVM::MMALayout::row,
                                            NVVM::MMALayout::col};
  SmallVector<int64_t> shape = llvm::to_vector(op.getMmaShapeAsArray());
  auto mma = NVVM::MmaOp::create(rewriter, loc, resultType, a, b, c, shape,
                                 /*b1Op=*/std::nullopt,
                                 /*intOverflow=*/std::nullopt, types, layouts);
  SmallVector<Value> elements;
  for (int64_t i = 0, e = c.size(); i < e; ++i)
    elements.push_back(
        LLVM::ExtractValueOp::create(rewriter, loc, mma.getResult(), i));
  rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, accType, elements);
  return success();
}

struct LowerBF16MmaSync
    : public mlir::gmm::impl::GMMGPULowerBF16MmaSyncBase<LowerBF16MmaSync> {
  void runOnOperation() override {
    // The op's verifier makes A and B agree on their element type.
    SmallVector<nvgpu::MmaSyncOp> ops;
    getOperation()->walk([&](nvgpu::MmaSyncOp op) {
      if (getElementTypeOrSelf(op.getMatrixA().getType()).isBF16())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (nvgpu::MmaSyncOp op : ops)
      if (failed(lower(rewriter, op)))
        return signalPassFailure();
  }
};

} // namespace
