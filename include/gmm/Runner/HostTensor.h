//===- HostTensor.h - Dense host tensors for gmm-runner ---------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The host-side values that gmm-runner feeds to and reads back from compiled
// code: a dense, row-major byte buffer with an element type and a shape,
// plus conversions to the reference's double tensors, a numpy-like printer,
// seeded random values and the group-size distributions of `--group-sizes`.
//
// Everything here works on plain bytes; nothing depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_HOSTTENSOR_H
#define GMM_RUNNER_HOSTTENSOR_H

#include "gmm/Reference/GroupSizes.h"
#include "gmm/Reference/RaggedDot.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gmm {
namespace runner {

/// The element types that gmm-runner can pass to compiled code.
enum class DType { F16, BF16, F32, F64, I32, I64 };

/// The MLIR spelling of `type`: "f16", "bf16", "f32", "f64", "i32", "i64".
const char *toString(DType type);
/// Size of one element in bytes.
size_t getByteWidth(DType type);
/// True for F16, BF16, F32 and F64.
bool isFloat(DType type);
/// The reference's element type for a float type; std::nullopt for integers.
std::optional<reference::ElementType> toElementType(DType type);
/// The float type of the reference's element type `type`.
DType fromElementType(reference::ElementType type);

/// "[2, 3]" (and "[]" for rank 0).
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// A dense row-major tensor on the host. `bytes` holds exactly
/// numElements(shape) * getByteWidth(type) bytes, little-endian as the host
/// stores them; f16 and bf16 elements are their 16-bit patterns.
struct HostTensor {
  DType type = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  /// A tensor of zeros. The shape must have no negative sizes.
  static HostTensor zeros(DType type, llvm::ArrayRef<int64_t> shape);

  /// Number of elements: the product of the shape (1 for rank 0).
  int64_t getNumElements() const;
  /// True when `bytes` has the size that `type` and `shape` call for.
  bool isConsistent() const;

  void *data() { return bytes.data(); }
  const void *data() const { return bytes.data(); }

  /// Element `index` (row-major) as a double; exact for every type except
  /// i64 values beyond 2^53.
  double getDouble(int64_t index) const;
  /// Element `index` as an integer; floats are truncated toward zero and
  /// saturate (NaN reads as 0).
  int64_t getInt(int64_t index) const;
  /// Stores `value` into element `index`, rounding to nearest, ties to even,
  /// for float types; integer types take the value rounded to nearest and
  /// saturated to their range (NaN stores 0).
  void setDouble(int64_t index, double value);
  /// Stores `value` into element `index`; integer types wrap to their width,
  /// float types round.
  void setInt(int64_t index, int64_t value);
};

/// The values of a float or integer tensor as doubles, for the reference.
reference::Tensor toReferenceTensor(const HostTensor &tensor);
/// The values of an integer tensor, for the reference's group sizes.
reference::IndexTensor toIndexTensor(const HostTensor &tensor);
/// A tensor of `type` holding `tensor`'s values, each rounded to `type`.
HostTensor fromReferenceTensor(const reference::Tensor &tensor, DType type);

/// Converts `tensor` to `type` where no information beyond rounding is lost:
/// the same type is returned as is; f32 becomes f16 or bf16 (round to
/// nearest, ties to even); i32 and i64 convert into each other when every
/// value fits. Anything else is an error naming both types.
llvm::Expected<HostTensor> convertTensor(const HostTensor &tensor, DType type);

/// How formatTensor() prints.
struct FormatOptions {
  /// Significant digits of float elements (printf's %.*g).
  int precision = 6;
};

/// Prints `tensor` like numpy: nested brackets, elements separated by ", ",
/// one innermost row per line, continuation lines indented to their nesting
/// depth, no column alignment and no summarisation. Integer types print as
/// integers. Float elements print with %.<precision>g, so exact small
/// integers print without a decimal point ("3", "-0"), others as "0.5",
/// "1.5e-05"; infinities and NaN print as "inf", "-inf" and "nan". A rank-0
/// tensor prints as its single element. The result does not end in a newline.
std::string formatTensor(const HostTensor &tensor,
                         const FormatOptions &options = {});

/// Fills `tensor` with seeded values: floats uniform in [-1, 1) rounded to
/// the element type, integers uniform in [0, 8). The stream depends only on
/// `seed` and `stream` (gmm-runner passes the argument index), so one
/// argument's values do not change when another argument is given by hand.
void fillRandom(HostTensor &tensor, uint64_t seed, uint64_t stream);

// Seeded values and group sizes come from the reference library
// (gmm/Reference/GroupSizes.h), which the benchmarks share without MLIR.
using reference::GroupSizeDistribution;
using reference::makeGroupSizes;
using reference::Random;

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_HOSTTENSOR_H
