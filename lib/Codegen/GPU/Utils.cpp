//===- Utils.cpp - helpers shared by the GPU codegen passes ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Codegen/GPU/Utils.h"
#include "gmm/Codegen/GPU/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

void mlir::gmm::eraseDeadOps(RewriterBase &rewriter, Operation *root,
                             function_ref<bool(Operation *)> erasable) {
  auto dead = [&](Operation *op) {
    return op != root && op->use_empty() &&
           !op->hasTrait<OpTrait::IsTerminator>() && erasable(op);
  };
  llvm::SetVector<Operation *> worklist;
  root->walk([&](Operation *op) {
    if (dead(op))
      worklist.insert(op);
  });
  // Erasing an op may leave its operands' producers dead: they follow.
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    SmallVector<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (root->isProperAncestor(producer))
          producers.push_back(producer);
    // Ops nested in it go with it.
    op->walk([&](Operation *nested) {
      if (nested != op)
        worklist.remove(nested);
    });
    rewriter.eraseOp(op);
    for (Operation *producer : producers)
      if (dead(producer))
        worklist.insert(producer);
  }
}

LogicalResult mlir::gmm::appendArgumentEverywhere(
    ArrayRef<func::FuncOp> funcs, Type type, StringRef attrName,
    function_ref<Value(OpBuilder &, func::CallOp, Value)> forward) {
  if (funcs.empty())
    return success();
  OpBuilder b(type.getContext());
  llvm::DenseSet<StringAttr> callees;
  for (func::FuncOp func : funcs) {
    if (failed(func.insertArgument(
            func.getNumArguments(), type,
            b.getDictionaryAttr(b.getNamedAttr(attrName, b.getUnitAttr())),
            func.getLoc())))
      return failure();
    callees.insert(func.getSymNameAttr());
  }
  for (func::FuncOp func : funcs) {
    Value argument = func.getArguments().back();
    func.walk([&](func::CallOp call) {
      if (!callees.contains(call.getCalleeAttr().getAttr()))
        return;
      b.setInsertionPoint(call);
      Value operand = forward(b, call, argument);
      call.getOperandsMutable().append(operand);
    });
  }
  return success();
}

SmallVector<func::FuncOp> mlir::gmm::hostFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func->hasAttr(kWorkspaceSizeOfAttrName))
      funcs.push_back(func);
  return funcs;
}
