//===- Utils.h - helpers shared by the GPU codegen passes -------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CODEGEN_GPU_UTILS_H
#define GMM_CODEGEN_GPU_UTILS_H

#include "gmm/Dialect/GMM/IR/GMMAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// Marks `launch` as a kernel of `role` (metadata, serial, tile):
/// `gmm.kernel = role`, and the name that gpu-kernel-outlining gives the
/// kernel and its module (the launch's `function` attribute): the enclosing
/// function's name, the role and, for a tile kernel, its `config`, e.g.
/// `moe_tile_128x128x32_w2x4_s2` (gmm-gpu-share-kernels makes the names unique
/// in the program).
void nameLaunch(gpu::LaunchOp launch, StringRef role,
                KernelConfigAttr config = {});

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

/// Index arithmetic of the tile kernels' builders (gmm-gpu-promote-operands,
/// gmm-gpu-stage-epilogue, gmm-gpu-distribute-warps) on values that are never
/// negative (thread, lane and step numbers, offsets); constant operands fold
/// as the ops are built.
namespace kernel_index {
inline Value cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
inline Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
inline Value addConst(OpBuilder &b, Location loc, Value x, int64_t y) {
  return add(b, loc, x, cst(b, loc, y));
}
inline Value mul(OpBuilder &b, Location loc, Value x, int64_t y) {
  return b.createOrFold<arith::MulIOp>(loc, x, cst(b, loc, y));
}
inline Value divConst(OpBuilder &b, Location loc, Value x, int64_t y) {
  return b.createOrFold<arith::DivUIOp>(loc, x, cst(b, loc, y));
}
inline Value remConst(OpBuilder &b, Location loc, Value x, int64_t y) {
  return b.createOrFold<arith::RemUIOp>(loc, x, cst(b, loc, y));
}
inline Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
                 Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
} // namespace kernel_index

/// Folds the ops of a tile kernel being built and hoists and uniques its
/// constants (a greedy rewrite without patterns): what its builders leave
/// foldable goes, and the vector lowering after them relies on folded
/// constants (without it the tile kernels spill to an 80-byte local array).
void foldKernel(gpu::LaunchOp launch);

/// The tile kernels under `root` still being built: the gpu.launch ops
/// that carry a kernel configuration (gmm-gpu-map-blocks puts it on them,
/// gmm-gpu-distribute-warps removes it).
SmallVector<gpu::LaunchOp> tileKernelsInProgress(Operation *root);

/// The launch's GPU kernel configuration (`gmm.kernel_config`, put there by
/// gmm-gpu-map-blocks and read by the tile kernel's passes), or an error
/// at the launch naming `pass`.
FailureOr<KernelConfigAttr> getLaunchKernelConfig(gpu::LaunchOp launch,
                                                  StringRef pass);

/// The i8 workgroup buffer of a tile kernel (gmm-gpu-promote-operands made
/// it): the launch's one workgroup attribution, or its
/// gpu.dynamic_shared_memory; null when it has neither.
Value getKernelSharedBuffer(gpu::LaunchOp launch);

/// The staged contraction loop of a tile kernel (gmm-gpu-promote-operands
/// marks it with kPipelineStagesAttrName), which must be the launch's only
/// one and carry the tileM x tileN f32 block alone; or an error at the
/// launch naming `pass`.
FailureOr<scf::ForOp> getStagedLoop(gpu::LaunchOp launch, int64_t tileM,
                                    int64_t tileN, StringRef pass);

/// A view of `shape` x `elementType` at `byteOffset` of a tile kernel's i8
/// workgroup buffer.
Value workgroupView(OpBuilder &b, Location loc, Value buffer,
                    int64_t byteOffset, ArrayRef<int64_t> shape,
                    Type elementType);
/// The same view at a byte offset computed in the kernel.
Value workgroupView(OpBuilder &b, Location loc, Value buffer, Value byteOffset,
                    ArrayRef<int64_t> shape, Type elementType);

/// A [rows, cols] block (vector dims as in the contraction: rows along the
/// tile's first dimension) of a staged operand: `view` holds the stages
/// [stages, outer, inner], stored [rows][cols], or [cols][rows] when
/// `transposed`; read at vector coordinates (r, c) of stage `s`.
Value readStagedBlock(OpBuilder &b, Location loc, Value view, bool transposed,
                      Value s, Value r, Value c, int64_t rows, int64_t cols);

/// Whether `read` is a readStagedBlock read (of a 3-D workgroup view), and
/// then whether it is transposed.
std::optional<bool> stagedBlockTransposed(Operation *read);

} // namespace gmm
} // namespace mlir

#endif // GMM_CODEGEN_GPU_UTILS_H
