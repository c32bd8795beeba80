//===- FloatConversion.h - Element types and f16/bf16 rounding --*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The element types the reference knows, bit-exact conversions between float
// and the 16-bit formats, and rounding of a double to the value set of an
// element type. Plain C++17 with no MLIR or LLVM dependency, so that the
// reference can be checked on its own.
//
// All conversions round to nearest, ties to even, keep the sign of zero,
// handle subnormals, overflow to infinity and turn NaN into a quiet NaN of the
// same sign.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_REFERENCE_FLOATCONVERSION_H
#define GMM_REFERENCE_FLOATCONVERSION_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace gmm {
namespace reference {

/// The floating-point element types of ragged dot operands and results.
enum class ElementType { F16, BF16, F32, F64 };

/// The MLIR spelling of `type`: "f16", "bf16", "f32" or "f64".
const char *toString(ElementType type);

/// Parses the MLIR spelling of an element type; std::nullopt for anything
/// else.
std::optional<ElementType> parseElementType(std::string_view name);

/// Rounds `value` to bfloat16 (8 significand bits, float's exponent range).
uint16_t floatToBF16Bits(float value);
/// Widens a bfloat16 bit pattern to float (exact).
float bf16BitsToFloat(uint16_t bits);

/// Rounds `value` to IEEE binary16 (11 significand bits, exponents -14..15,
/// subnormals down to 2^-24). Values of magnitude >= 65520 become infinity.
uint16_t floatToF16Bits(float value);
/// Widens an IEEE binary16 bit pattern to float (exact).
float f16BitsToFloat(uint16_t bits);

/// Rounds `value` once, directly from double, to the nearest value of `type`
/// (no double rounding through float) and returns it as a double. F64 returns
/// `value` unchanged.
double roundToElementType(double value, ElementType type);

} // namespace reference
} // namespace gmm

#endif // GMM_REFERENCE_FLOATCONVERSION_H
