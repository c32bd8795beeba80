//===- RaggedDot.h - Plain C++ reference for ragged dot ---------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// An independent, deliberately simple implementation of gmm.ragged_dot on
// dense row-major double tensors, used to check compiled code. It follows the
// "Semantics" section of the design notes:
//
// - The lhs ragged dimension picks the mode: in the lhs batching dimensions
//   -> mode 3 (a plain batched dot; group sizes and offset are ignored), in
//   the lhs contracting dimensions -> mode 2, otherwise mode 1.
// - Result shape: [G] (mode 2 only; g, or G_local with a group offset), then
//   the lhs batching dimension sizes (attribute order), the lhs free
//   dimensions (ascending) and the rhs free dimensions (ascending, the rhs
//   group dimension excluded).
// - group_sizes is [g] (one partition shared by everything) or
//   [prefix..., g] where prefix is all lhs batching dimensions (attribute
//   order), then in mode 1 the lhs free dimensions before the ragged one
//   (ascending), in mode 2 the lhs contracting dimensions listed before the
//   ragged one (list order); in mode 3 only the lhs batching dimensions listed
//   before the ragged one. Every prefix index tuple has its own partition.
// - Group i covers ragged indices [start_i, end_i), see groupBounds().
// - Mode 1: a result element whose ragged row lies in global group j uses
//   rhs group index j - offset when j is in [offset, offset + G_local), where
//   G_local is the size of the rhs group dimension; other rows are uncovered
//   and produce init (or 0).
// - Mode 2: result[i, ...] for local group i (global group j = offset + i)
//   sums only the ragged contracting indices in [start_j, end_j); a group
//   outside [0, g) or an empty group produces init (or 0).
// - Products are summed in double, init is added, and the sum is rounded once
//   to the result element type.
//
// No MLIR or LLVM dependency; no exceptions. Bad input is reported through a
// returned message, never by asserting.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_REFERENCE_RAGGEDDOT_H
#define GMM_REFERENCE_RAGGEDDOT_H

#include "gmm/Reference/FloatConversion.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gmm {
namespace reference {

/// Dimension numbers, with the meaning of CHLO's ragged_dot.
struct DimensionNumbers {
  std::vector<int64_t> lhsBatching, rhsBatching;
  std::vector<int64_t> lhsContracting, rhsContracting;
  std::vector<int64_t> lhsRagged;
  std::vector<int64_t> rhsGroup;
};

/// A dense row-major tensor of values held as doubles.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> data;
};

/// A dense row-major tensor of integers (group sizes).
struct IndexTensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;
};

/// The number of elements of `shape`: 1 for rank 0, 0 when any size is 0,
/// and -1 when a size is negative or the product overflows int64.
int64_t numElements(const std::vector<int64_t> &shape);

/// The range [start_i, end_i) of ragged indices that each of the `numGroups`
/// groups covers, over a ragged dimension of size `extent`:
///   start_i = min(sum_{j<i} max(sizes[j], 0), extent)
///   end_i   = min(start_i + max(sizes[i], 0), extent)
/// Negative sizes count as 0 and groups past the extent are cut; the sums
/// saturate, so no size, however large, overflows. A negative extent counts
/// as 0 and a negative `numGroups` as no groups.
std::vector<std::pair<int64_t, int64_t>>
groupBounds(const int64_t *sizes, int64_t numGroups, int64_t extent);

/// Computes the ragged dot of `lhs` and `rhs` into `result`.
///
/// `groupOffset` is the optional group_offset operand. `resultShape` is the
/// result shape the caller expects; it is checked against the shape the
/// dimension numbers give, except that in mode 2 with a group offset its
/// dimension 0 defines G_local. `init`, when not null, must have exactly that
/// shape and is the accumulator that uncovered elements keep. Every result
/// element is rounded to `resultType` (ties to even).
///
/// Large problems run on the machine's threads, each element's products
/// summed in the same order whatever the threads. `progress`, when given,
/// is called from the calling thread about four times a second with the
/// share of the result done (0 to 1), and once with 1 at the end.
///
/// Returns "" on success. Otherwise returns a one-line message naming the
/// offending dimension and sizes, and leaves `result` unchanged.
using ProgressFn = std::function<void(double)>;
std::string raggedDot(const DimensionNumbers &dims, const Tensor &lhs,
                      const Tensor &rhs, const IndexTensor &groupSizes,
                      std::optional<int64_t> groupOffset, const Tensor *init,
                      const std::vector<int64_t> &resultShape,
                      ElementType resultType, Tensor &result,
                      const ProgressFn &progress = {});

/// An elementwise tolerance: |got - expected| <= atol + rtol * |expected|.
struct Tolerance {
  double atol, rtol;
};

/// The tolerance for comparing a compiled ragged dot against raggedDot() when
/// the inputs are values of `inputType`, products are accumulated in f32 (f64
/// for f64 inputs), the result is rounded to `resultType`, and `k` products
/// contribute to each element. With kk = max(k, 1):
///
///   u_acc = 2^-24 (f32 accumulation) or 2^-53 (f64 inputs)
///   u_res = 2^-11 (f16), 2^-8 (bf16), 2^-24 (f32), 2^-53 (f64)
///   rtol  = 4 * u_res + kk * u_acc
///   atol  = 2 * kk * sqrt(kk) * u_acc + minSubnormal(resultType)
///
/// Why: inputs are exact in both computations and products of two f16/bf16
/// values are exact in f32, so the two results differ by the accumulation
/// error before the final rounding, plus at most about one result ulp (up to
/// 2 * u_res relative; doubled for margin) after it. The accumulation error
/// of k terms is below kk * u_acc * sum|a*b|; with no cancellation that is
/// kk * u_acc relative to the result (rtol). With cancellation, sum|a*b| <= kk
/// for inputs of magnitude <= 1 (what gmm-runner generates) and the error
/// grows like sqrt(kk) * u_acc * sum|a*b| in practice, giving atol. Scale atol
/// by max|lhs| * max|rhs| for larger inputs. The bound does not cover TF32 or
/// other reduced-precision multiplication of f32 inputs.
Tolerance defaultTolerance(ElementType inputType, ElementType resultType,
                           int64_t k);

/// The outcome of compare().
struct Comparison {
  /// Elements outside the tolerance.
  int64_t mismatches = 0;
  /// Row-major index of the first mismatch, -1 when there is none.
  int64_t firstMismatch = -1;
  /// Largest |got - expected| over elements where both are finite; +inf when
  /// a NaN or infinity mismatches.
  double maxAbsError = 0;
  /// Largest |got - expected| / |expected| over elements where both are
  /// finite and expected is not 0.
  double maxRelError = 0;
};

/// Compares `got` with `expected` elementwise: an element matches when
/// |got - expected| <= atol + rtol * |expected|, or when both are the same
/// infinity, or both are NaN. A NaN or infinity in `got` where `expected` is
/// finite is a mismatch. When the shapes differ (or data sizes disagree with
/// the shapes) every element mismatches: mismatches is the larger element
/// count (at least 1) and firstMismatch is 0.
Comparison compare(const Tensor &got, const Tensor &expected, Tolerance tol);

} // namespace reference
} // namespace gmm

#endif // GMM_REFERENCE_RAGGEDDOT_H
