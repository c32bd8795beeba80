//===- Utils.h - helpers shared by the GPU codegen passes -------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CODEGEN_GPU_UTILS_H
#define GMM_CODEGEN_GPU_UTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace gmm {

/// Erases the unused ops under `root` (not `root` itself, nor terminators)
/// that `erasable` accepts, then the producers under `root` that this
/// leaves unused and `erasable` accepts, until none is left. Unlike a greedy
/// rewrite it neither folds nor hoists: the ops that stay are where they
/// were.
void eraseDeadOps(RewriterBase &rewriter, Operation *root,
                  function_ref<bool(Operation *)> erasable);

/// The functions of `module` that the host side's passes rewrite: those
/// with a body, except the workspace size functions (`@f_workspace_bytes`,
/// which touch no device).
SmallVector<func::FuncOp> hostFunctions(ModuleOp module);

/// Appends an argument of `type`, marked with the unit attribute
/// `attrName`, to each of `funcs` (functions with bodies of one module), and
/// an operand to each call of one of them from one of them:
/// `forward(builder, call, callerArgument)`, built before the call.
LogicalResult appendArgumentEverywhere(
    ArrayRef<func::FuncOp> funcs, Type type, StringRef attrName,
    function_ref<Value(OpBuilder &, func::CallOp, Value)> forward);

} // namespace gmm
} // namespace mlir

#endif // GMM_CODEGEN_GPU_UTILS_H
