//===- PackedProgram.h - the CPU's visit program for gmm-tile ---*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CODEGEN_CPU_PACKEDPROGRAM_H
#define GMM_CODEGEN_CPU_PACKEDPROGRAM_H

namespace mlir {
class DialectRegistry;

namespace gmm {

/// Attaches the CPU backend's packed visit program (CPUVisitProgramInterface
/// in gmm/Dialect/GMM/Transforms/VisitProgram.h) to the gmm dialect when it
/// is loaded: gmm-tile builds it for configurations with target = cpu.
/// registerGMMDialects calls it.
void registerCPUVisitProgram(DialectRegistry &registry);

} // namespace gmm
} // namespace mlir

#endif // GMM_CODEGEN_CPU_PACKEDPROGRAM_H
