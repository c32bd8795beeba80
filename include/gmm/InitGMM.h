//===- InitGMM.h - register the gmm dialect and passes ----------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The two entry points a compiler that embeds gmm calls: one fills a
// DialectRegistry with everything a gmm module and gmm's passes need, the
// other registers gmm's passes and pipelines with the global pass registry
// (for textual pipelines, `--help` and mlir-opt style drivers). Both are
// idempotent and neither registers anything upstream beyond what gmm needs,
// so they compose with an embedder's own registration.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_INITGMM_H
#define GMM_INITGMM_H

namespace mlir {
class DialectRegistry;

namespace gmm {

/// Adds to `registry`:
/// - the gmm dialect;
/// - the dialects a gmm module and the output of convert-gmm-to-loops are
///   written in (arith, func, linalg, scf, tensor);
/// - the upstream interface models that gmm's pipelines need but that no
///   dialect registers on its own: One-Shot Bufferize's models for arith,
///   linalg, scf, tensor, cf and function boundaries (func), and the buffer
///   deallocation models for arith, scf and cf.
/// Dialects that gmm's passes create (memref, llvm, ...) are loaded by those
/// passes as dependent dialects and need no registration.
void registerGMMDialects(DialectRegistry &registry);

/// Registers gmm's passes (convert-gmm-to-loops, convert-chlo-to-gmm, ...)
/// and named pipelines (gmm-reference-to-llvm, ...) with the global pass
/// registry. Safe to call more than once.
void registerGMMPasses();

} // namespace gmm
} // namespace mlir

#endif // GMM_INITGMM_H
