//===- RaggedDotCall.h - one ragged dot call as a module --------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The front door for frontends that describe a ragged dot by its operands'
// shapes and element types and its dimension numbers (gmm.jax, through the
// JAX FFI library's gmm_jax_signature): gmm builds the gmm.ragged_dot op,
// infers its result type with the op's own rules
// (RaggedDotOp::inferResultType) and verifies it, and answers with what the
// frontend needs: the module text to compile, the result shape, the mode
// and the free dimensions. Bad calls get the op verifier's message.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_RAGGEDDOTCALL_H
#define GMM_RUNNER_RAGGEDDOTCALL_H

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace gmm {
namespace runner {

/// One ragged dot call: element types in MLIR's syntax ("f32", "bf16",
/// "i32", ...), shapes static.
struct RaggedDotCall {
  struct Operand {
    std::vector<int64_t> shape;
    std::string elementType;
  };
  Operand lhs, rhs, groupSizes;
  std::optional<Operand> groupOffset, init;
  std::vector<int64_t> lhsBatchingDimensions, rhsBatchingDimensions;
  std::vector<int64_t> lhsContractingDimensions, rhsContractingDimensions;
  std::vector<int64_t> lhsRaggedDimensions, rhsGroupDimensions;
  std::string resultElementType;
  /// Mode 2 with a group offset: the result's number of local groups
  /// (default: all groups).
  std::optional<int64_t> numLocalGroups;
  /// (m, n, k): the op's #gmm.kernel_config request instead of
  /// gmm-configure's heuristic.
  std::optional<std::array<int64_t, 3>> tileSizes;
};

/// What gmm decides about a RaggedDotCall.
struct RaggedDotSignature {
  /// One func.func @ragged_dot: the call's operands as tensors (not
  /// writable), then a memref for the result, which the ragged dot is
  /// materialized into.
  std::string moduleText;
  std::vector<int64_t> resultShape;
  /// 1: ragged free lhs dimension, 2: ragged contracting, 3: ragged batch
  /// (docs/Semantics.md).
  int mode;
  std::vector<int64_t> lhsFreeDimensions, rhsFreeDimensions;
};

/// Builds and verifies `call` in `context` (which has gmm's dialects): its
/// signature, or the first error (the op verifier's message for bad shapes,
/// dimension numbers or element types).
llvm::Expected<RaggedDotSignature>
describeRaggedDotCall(mlir::MLIRContext &context, const RaggedDotCall &call);

/// The same, with requests and answers in JSON, as the JAX FFI library's C
/// entry takes them: {"lhs": {"shape": [...], "element_type": "f32"}, "rhs":
/// ..., "group_sizes": ..., "group_offset": ... or null, "init": ... or
/// null, "dimension_numbers": {"lhs_batching_dimensions": [...], ...},
/// "result_element_type": "f32", "num_local_groups": n or null,
/// "tile_sizes": [m, n, k] or null} -> {"module": "...", "result_shape":
/// [...], "mode": 1, "lhs_free_dimensions": [...], "rhs_free_dimensions":
/// [...]}.
llvm::Expected<std::string>
describeRaggedDotCallJSON(mlir::MLIRContext &context, llvm::StringRef request);

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_RAGGEDDOTCALL_H
