//===- Pipelines.h - named gmm pass pipelines -------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Named pipelines are sequences of registered passes, assembled here and only
// here. Each is available in gmm-opt as `--<name>` and from C++ through its
// build function.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_PIPELINES_PIPELINES_H
#define GMM_PIPELINES_PIPELINES_H

namespace mlir {
class OpPassManager;

namespace gmm {

/// `gmm-reference-to-llvm`: lowers every gmm.ragged_dot directly to loops
/// (convert-gmm-to-loops), bufferizes (function boundaries included, identity
/// layouts), and converts everything to the LLVM dialect. The result is ready
/// for mlir::ExecutionEngine or mlir-translate. This is the reference CPU
/// path that the optimized pipelines are checked against.
void buildReferenceToLLVMPipeline(OpPassManager &pm);

/// Registers every named gmm pipeline with the global pass registry.
void registerGMMPipelines();

} // namespace gmm
} // namespace mlir

#endif // GMM_PIPELINES_PIPELINES_H
