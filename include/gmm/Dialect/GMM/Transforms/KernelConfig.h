//===- KernelConfig.h - choosing and checking configurations -*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The one place where a ragged dot's #gmm.kernel_config is chosen (the op's
// own fields, then the pipeline's options, then a heuristic for the target
// and the element types); the rules it must satisfy are the dialect's
// (gmm/Dialect/GMM/IR/KernelConfigRules.h). gmm-configure calls it for every
// ragged dot; gmm-tile and the GPU tile kernel's passes read the result.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_TRANSFORMS_KERNELCONFIG_H
#define GMM_DIALECT_GMM_TRANSFORMS_KERNELCONFIG_H

#include "gmm/Dialect/GMM/IR/GMMAttrs.h"
#include "gmm/Dialect/GMM/IR/KernelConfigRules.h"
#include "gmm/Dialect/GMM/IR/TileLimits.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"
#include "gmm/Dialect/GMM/Transforms/TargetDescription.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Types.h"
#include "llvm/Support/MathExtras.h"

#include <optional>
#include <string>

namespace mlir {
namespace gmm {
class RaggedDotOp;

/// What the pipeline asks for; 0 leaves a field to the heuristic. It is
/// gmm-configure's options struct (generated from Passes.td), so that the
/// pipelines hand their kernel fields to the pass as they are: target, tile
/// (m, n, k), warps (m, n) and stages (gpu), register block (micro m, n),
/// vector bits (cpu; 0: the host CPU's widest) and threads (cpu; 0: those
/// the process may run on), and the chip (gpu; bounds a block's shared
/// memory, empty: the 48 KiB every chip gives statically).
using KernelConfigRequest = GMMConfigureOptions;

/// Why each field of a configuration has its value, in words: pairs of a
/// field (tile, warps, stages, register_block, micro_kernel) and where it
/// came from (the op's own configuration, the pipeline's request, or the
/// heuristic and its reason). gmm-configure's remark says them.
using ConfigReasons = SmallVector<std::pair<std::string, std::string>>;

/// The category of gmm-configure's remarks (one analysis remark per ragged
/// dot: its configuration and the ConfigReasons).
constexpr llvm::StringLiteral kConfigureRemarkCategory = "gmm-configure";

/// Checks a request's values on their own (signs, ranges), reporting the
/// first bad one, named by its option ("tile-m = -3 is out of range: ..."),
/// through `report`. A GPU chip, when one is named, must pass verifyGPUChip.
LogicalResult
verifyKernelConfigRequest(const KernelConfigRequest &request,
                          function_ref<void(const Twine &)> report);

/// The configuration of `op`: the fields of its gmm.kernel_config, where it
/// has one, completed from `request` and the heuristic, and verified for the
/// op. Errors are reported at the op, in terms of the configuration.
FailureOr<KernelConfigAttr>
configureRaggedDot(RaggedDotOp op, const KernelConfigRequest &request,
                   ConfigReasons *reasons = nullptr);

} // namespace gmm
} // namespace mlir

#endif // GMM_DIALECT_GMM_TRANSFORMS_KERNELCONFIG_H
