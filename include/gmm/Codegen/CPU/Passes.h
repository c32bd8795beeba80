//===- Passes.h - gmm CPU code generation passes ----------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CODEGEN_CPU_PASSES_H
#define GMM_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace gmm {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "gmm/Codegen/CPU/Passes.h.inc"

} // namespace gmm
} // namespace mlir

#endif // GMM_CODEGEN_CPU_PASSES_H
