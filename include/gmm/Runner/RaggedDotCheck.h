//===- RaggedDotCheck.h - Check a run against the reference -----*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Ties the gmm.ragged_dot of an entry function to the entry's arguments and
// results, so that gmm-runner can generate its group sizes, check the
// compiled result against gmm::reference::raggedDot() with the same inputs,
// and count the useful floating-point operations of a run.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_RAGGEDDOTCHECK_H
#define GMM_RUNNER_RAGGEDDOTCHECK_H

#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Runner/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace gmm {
namespace runner {

/// The single gmm.ragged_dot of an entry function and where its operands and
/// result come from. An operand index is the entry argument that is the
/// operand itself, or std::nullopt when the operand is computed (or absent).
struct RaggedDotBinding {
  mlir::gmm::RaggedDotOp op;
  std::optional<unsigned> lhs, rhs, groupSizes, groupOffset, init;
  /// The entry result that is the op's result returned directly.
  std::optional<unsigned> result;
};

/// Finds the one gmm.ragged_dot in `entry` (nested regions included). It is
/// an error when there is none or more than one.
llvm::Expected<RaggedDotBinding> findRaggedDot(mlir::func::FuncOp entry);

/// Checks that every operand of the op is an entry argument and that the
/// entry returns the op's result directly, which checkAgainstReference()
/// needs.
llvm::Error checkReferenceBinding(const RaggedDotBinding &binding);

/// Checks that the actual shapes of the entry arguments fit the op, with the
/// verifier's rules (RaggedDotOp::inferResultType) applied to the sizes that
/// are dynamic in the IR, and that an init argument has the result's shape.
/// Compiled code assumes consistent shapes, so this runs before a call.
llvm::Error checkRaggedDotShapes(const RaggedDotBinding &binding,
                                 llvm::ArrayRef<HostTensor> arguments);

/// The outcome of checkAgainstReference().
struct CheckOutcome {
  bool passed = false;
  /// One line: "check: PASS (...)" or "check: FAIL (...)".
  std::string line;
  int64_t numElements = 0;
  reference::Tolerance tolerance = {0, 0};
  reference::Comparison comparison;
};

/// Runs the reference on the op's inputs taken from `arguments` and compares
/// its result with the entry's output `outputs[*binding.result]`, elementwise
/// with reference::defaultTolerance(input type, result type, k), where k is
/// the product of the lhs contracting sizes and atol is scaled by
/// max(1, max|lhs| * max|rhs|) for inputs larger than 1. Fails with an error
/// only when the binding does not allow a check (checkReferenceBinding()).
llvm::Expected<CheckOutcome>
checkAgainstReference(const RaggedDotBinding &binding,
                      llvm::ArrayRef<HostTensor> arguments,
                      llvm::ArrayRef<HostTensor> outputs);

/// Compares result `index` of `outputs` with `expected` (values that another
/// system computed, e.g. JAX): with checkAgainstReference()'s tolerance when
/// `binding` (may be null) says the result is its ragged dot's, exactly
/// otherwise. The line reads "expect INDEX: PASS (...)" or "... FAIL (...)".
/// Fails with an error when there is no such result or the shapes differ.
llvm::Expected<CheckOutcome>
checkAgainstExpected(const RaggedDotBinding *binding,
                     llvm::ArrayRef<HostTensor> arguments,
                     llvm::ArrayRef<HostTensor> outputs, unsigned index,
                     const HostTensor &expected);

/// The useful floating-point operations of one call: 2 * the number of
/// multiply-adds that the semantics call for, counting only products inside
/// computed groups with the clamped group bounds (empty groups, uncovered
/// rows and k-slices, and groups outside the group_offset window cost
/// nothing; mode 3 counts the full batched dot). std::nullopt when the
/// operands it needs are not entry arguments.
std::optional<double> countUsefulFlops(const RaggedDotBinding &binding,
                                       llvm::ArrayRef<HostTensor> arguments,
                                       llvm::ArrayRef<HostTensor> outputs);

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_RAGGEDDOTCHECK_H
