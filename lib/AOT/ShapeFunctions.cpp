//===- ShapeFunctions.cpp - size checks and result sizes of a function ----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-aot-shape-functions: next to each public function @f, @f_shapes checks
// its arguments' sizes and computes its results' sizes from them, without
// touching an element (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "gmm/AOT/Passes.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace gmm {
#define GEN_PASS_DEF_GMMAOTSHAPEFUNCTIONS
#include "gmm/AOT/Passes.h.inc"
} // namespace gmm
} // namespace mlir

using namespace mlir;

namespace {

constexpr StringLiteral kShapesOfAttr = "gmm.aot_shapes_of";

/// Whether `op` only computes a size from the function's arguments: a dim
/// of an argument, or scalar arithmetic without memory effects or regions.
bool isSizeArithmetic(Operation *op, Block *body) {
  if (isa<tensor::DimOp, memref::DimOp>(op)) {
    auto source = dyn_cast<BlockArgument>(op->getOperand(0));
    return source && source.getOwner() == body;
  }
  // Reading an element (tensor.extract) is not reading a size.
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
      llvm::any_of(op->getOperandTypes(),
                   [](Type type) { return isa<ShapedType>(type); }))
    return false;
  return llvm::all_of(op->getResultTypes(),
                      [](Type type) { return type.isIntOrIndexOrFloat(); });
}

/// Fills the body of `shapes`, a clone of `func` with the sizes buffer as
/// its last argument.
LogicalResult buildShapeFunction(
    func::FuncOp func, func::FuncOp shapes,
    function_ref<LogicalResult(OpPassManager &, Operation *)> runPipeline) {
  Block &body = shapes.getBody().front();
  Value sizes = body.getArguments().back();

  // The checks of the ragged dots, as gmm-check-sizes writes them.
  OpPassManager checks(func::FuncOp::getOperationName());
  checks.addPass(gmm::createGMMCheckSizes());
  if (failed(runPipeline(checks, shapes)))
    return failure();

  auto returnOp = cast<func::ReturnOp>(body.getTerminator());
  OpBuilder builder(returnOp);
  Location loc = func.getLoc();
  Value valid = arith::ConstantIntOp::create(builder, loc, 1, 1);
  SmallVector<cf::AssertOp> asserts;
  WalkResult walk = shapes.walk([&](cf::AssertOp op) {
    if (op->getBlock() != &body) {
      op.emitError() << "a size check of @" << func.getSymName()
                     << " is not in its entry block, so gmm-aot cannot make "
                        "it before the call";
      return WalkResult::interrupt();
    }
    asserts.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (cf::AssertOp op : asserts) {
    valid = arith::AndIOp::create(builder, loc, valid, op.getArg());
    op.erase();
  }

  // [valid, the results' sizes...] into the buffer.
  auto store = [&](Value value, int64_t position) {
    Value index = arith::ConstantIndexOp::create(builder, loc, position);
    memref::StoreOp::create(builder, loc, value, sizes, index);
  };
  store(arith::ExtUIOp::create(builder, loc, builder.getI64Type(), valid), 0);
  int64_t position = 1;
  for (Value result : returnOp.getOperands()) {
    auto type = cast<RankedTensorType>(result.getType());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value size;
      if (type.isDynamicDim(d))
        size = arith::IndexCastOp::create(
            builder, loc, builder.getI64Type(),
            tensor::DimOp::create(builder, loc, result, d));
      else
        size =
            arith::ConstantIntOp::create(builder, loc, type.getDimSize(d), 64);
      store(size, position++);
    }
  }
  func::ReturnOp::create(builder, returnOp.getLoc());
  returnOp.erase();
  shapes.setFunctionType(FunctionType::get(
      shapes.getContext(), shapes.getArgumentTypes(), TypeRange()));

  // The result sizes in terms of the arguments' sizes.
  RewritePatternSet patterns(shapes.getContext());
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  memref::populateResolveShapedTypeResultDimsPatterns(patterns);
  tensor::DimOp::getCanonicalizationPatterns(patterns, shapes.getContext());
  memref::DimOp::getCanonicalizationPatterns(patterns, shapes.getContext());
  if (failed(applyPatternsGreedily(shapes, std::move(patterns))))
    return shapes.emitError()
           << "the sizes of @" << func.getSymName() << " did not settle";

  // Keep what the stores need; the computation itself goes.
  SetVector<Operation *> needed;
  for (Operation &op : body)
    if (auto store = dyn_cast<memref::StoreOp>(op);
        store && store.getMemRef() == sizes) {
      BackwardSliceOptions options;
      options.omitBlockArguments = true;
      // The slice leaves its root out.
      (void)getBackwardSlice(&op, &needed, options);
      needed.insert(&op);
    }
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
    if (needed.contains(&op) || op.hasTrait<OpTrait::IsTerminator>())
      continue;
    op.dropAllUses();
    op.erase();
  }
  for (Operation *op : needed) {
    if (isa<memref::StoreOp>(op) || isSizeArithmetic(op, &body))
      continue;
    InFlightDiagnostic diag = op->emitError()
                              << "the sizes of @" << func.getSymName()
                              << "'s results depend on '" << op->getName()
                              << "', not only on its arguments' sizes";
    diag.attachNote(func.getLoc()) << "in the function compiled here";
    return failure();
  }
  return success();
}

struct GMMAOTShapeFunctions
    : public mlir::gmm::impl::GMMAOTShapeFunctionsBase<GMMAOTShapeFunctions> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    bool failedAny = false;
    SmallVector<func::FuncOp> functions;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() &&
          !func->hasAttr(kShapesOfAttr))
        functions.push_back(func);
    for (func::FuncOp func : functions)
      if (failed(addShapeFunction(func, symbols)))
        failedAny = true;
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult addShapeFunction(func::FuncOp func, SymbolTable &symbols) {
    if (!func.getBody().hasOneBlock())
      return func.emitOpError()
             << "has " << func.getBlocks().size()
             << " blocks; gmm-aot computes the sizes of functions of one "
                "block (structured control flow)";
    FunctionType type = func.getFunctionType();
    for (auto [i, input] : llvm::enumerate(type.getInputs()))
      if (!isa<RankedTensorType, MemRefType>(input))
        return func.emitOpError() << "argument " << i << " is " << input
                                  << ": gmm-aot passes ranked tensors and "
                                     "memrefs only";
    int64_t count = 1;
    for (auto [i, result] : llvm::enumerate(type.getResults())) {
      auto tensor = dyn_cast<RankedTensorType>(result);
      if (!tensor)
        return func.emitOpError() << "result " << i << " is " << result
                                  << ": gmm-aot returns ranked tensors only";
      count += tensor.getRank();
    }
    std::string name = (func.getSymName() + "_shapes").str();
    if (symbols.lookup(name))
      return func.emitOpError()
             << "needs the name @" << name
             << " for its shape function, which the module already uses";

    auto shapes = cast<func::FuncOp>(func->clone());
    shapes.setSymName(name);
    shapes->setAttr(kShapesOfAttr, FlatSymbolRefAttr::get(func));
    OpBuilder builder(func.getContext());
    auto sizesType = MemRefType::get({count}, builder.getI64Type());
    if (failed(shapes.insertArgument(type.getNumInputs(), sizesType, {},
                                     func.getLoc()))) {
      shapes.erase();
      return func.emitOpError() << "could not take a sizes buffer";
    }
    symbols.insert(shapes, std::next(Block::iterator(func)));
    if (failed(buildShapeFunction(func, shapes,
                                  [&](OpPassManager &pm, Operation *op) {
                                    return runPipeline(pm, op);
                                  }))) {
      symbols.erase(shapes);
      return failure();
    }
    return success();
  }
};

} // namespace
