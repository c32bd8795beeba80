//===- Passes.h - gmm GPU code generation passes ----------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CODEGEN_GPU_PASSES_H
#define GMM_CODEGEN_GPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace gmm {

/// The unit attribute gmm-gpu-promote-operands puts on a workgroup view whose
/// rows it stores unpadded, for gmm-gpu-swizzle-shared-memory to swizzle.
constexpr StringLiteral kSwizzleAttrName = "gmm.swizzle";

/// The integer attribute gmm-gpu-promote-operands puts on a contraction loop it
/// builds unpipelined: its stages, for gmm-gpu-pipeline-stages.
constexpr StringLiteral kPipelineStagesAttrName = "gmm.pipeline_stages";

/// The argument attribute of the stream argument that gmm-gpu-async-host
/// {caller-stream} adds to a function: the caller's CUstream (a
/// `!gpu.async.token`, an `!llvm.ptr` once lowered).
constexpr StringLiteral kStreamAttrName = "gmm.stream";

/// The argument attribute of the workspace argument that
/// gmm-gpu-merge-allocations{workspace-argument} adds (a memref<?xi8>), and
/// the attribute of the function it adds beside each function `@f`,
/// `@f_workspace_bytes` (same arguments, returns the bytes the workspace
/// needs), naming `@f`.
constexpr StringLiteral kWorkspaceAttrName = "gmm.workspace";
constexpr StringLiteral kWorkspaceSizeOfAttrName = "gmm.workspace_size_of";
/// The suffix of that function's name.
constexpr StringLiteral kWorkspaceBytesSuffix = "_workspace_bytes";

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "gmm/Codegen/GPU/Passes.h.inc"

} // namespace gmm
} // namespace mlir

#endif // GMM_CODEGEN_GPU_PASSES_H
