//===- Passes.h - gmm conversion passes -------------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CONVERSION_PASSES_H
#define GMM_CONVERSION_PASSES_H

#include "gmm/Conversion/CHLOToGMM/CHLOToGMM.h"
#include "gmm/Conversion/GMMToLoops/GMMToLoops.h"
#include "gmm/Dialect/GMM/IR/GMMDialect.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace gmm {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "gmm/Conversion/Passes.h.inc"

} // namespace gmm
} // namespace mlir

#endif // GMM_CONVERSION_PASSES_H
