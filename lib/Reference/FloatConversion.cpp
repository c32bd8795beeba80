//===- FloatConversion.cpp - Element types and f16/bf16 rounding ----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Reference/FloatConversion.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace gmm::reference;

namespace {

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Rounds `value` to the binary format with `precision` significand bits
/// (implicit bit included), normal exponents in [minExp, maxExp] and
/// subnormals below 2^minExp, ties to even. Works on the exact double value,
/// so there is exactly one rounding.
double roundToFormat(double value, int precision, int minExp, int maxExp) {
  if (std::isnan(value) || std::isinf(value) || value == 0.0)
    return value;
  double magnitude = std::fabs(value);
  int frexpExp;
  (void)std::frexp(magnitude, &frexpExp);
  // magnitude lies in [2^exp, 2^(exp+1)); below 2^minExp the quantum stays
  // that of the smallest binade (subnormals).
  int exp = frexpExp - 1;
  int quantumExp = (exp < minExp ? minExp : exp) - (precision - 1);
  // Scaling by a power of two is exact, and the scaled value is below
  // 2^(precision + 1) <= 2^53, so its integer and fractional parts are exact.
  double scaled = std::ldexp(magnitude, -quantumExp);
  double integral = std::floor(scaled);
  double fraction = scaled - integral;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(integral, 2.0) != 0.0))
    integral += 1.0;
  double rounded = std::ldexp(integral, quantumExp);
  double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, 1 - precision), maxExp);
  if (rounded > maxFinite)
    rounded = std::numeric_limits<double>::infinity();
  return std::copysign(rounded, value);
}

} // namespace

const char *gmm::reference::toString(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  }
  return "<unknown element type>";
}

std::optional<ElementType>
gmm::reference::parseElementType(std::string_view name) {
  if (name == "f16")
    return ElementType::F16;
  if (name == "bf16")
    return ElementType::BF16;
  if (name == "f32")
    return ElementType::F32;
  if (name == "f64")
    return ElementType::F64;
  return std::nullopt;
}

uint16_t gmm::reference::floatToBF16Bits(float value) {
  uint32_t bits = floatBits(value);
  // NaN: keep the sign and the top payload bits, and set the quiet bit so
  // that a payload living only in the low bits does not become infinity.
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Adding 0x7FFF plus the lowest kept bit rounds to nearest, ties to even;
  // a carry out of the significand bumps the exponent, up to infinity.
  uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7FFFu + lsb) >> 16);
}

float gmm::reference::bf16BitsToFloat(uint16_t bits) {
  return floatFromBits(static_cast<uint32_t>(bits) << 16);
}

uint16_t gmm::reference::floatToF16Bits(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  uint32_t mantissa = magnitude & 0x7FFFFFu;
  if (magnitude >= 0x7F800000u) {
    if (magnitude == 0x7F800000u)
      return sign | 0x7C00u;
    // Quiet NaN with the top payload bits.
    return static_cast<uint16_t>(sign | 0x7E00u | (mantissa >> 13));
  }
  int exp = static_cast<int>(magnitude >> 23) - 127;
  if (exp > 15)
    return sign | 0x7C00u;
  if (exp >= -14) {
    // Normal range: drop 13 significand bits, round to nearest even. A carry
    // propagates into the exponent field, and from 0x7BFF into infinity.
    uint32_t half = static_cast<uint32_t>(exp + 15) << 10 | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  // Subnormal result: count units of 2^-24. The value is
  // (mantissa | 2^23) * 2^(exp - 23), i.e. (mantissa | 2^23) >> -(exp + 1)
  // units. Below 2^-25 (which itself ties to zero) everything rounds to zero;
  // this also covers float subnormals and zeros.
  if (exp < -25)
    return sign;
  uint32_t significand = mantissa | 0x800000u;
  int shift = -(exp + 1); // 14..24
  uint32_t units = significand >> shift;
  uint32_t rest = significand & ((1u << shift) - 1u);
  uint32_t halfUnit = 1u << (shift - 1);
  if (rest > halfUnit || (rest == halfUnit && (units & 1u)))
    ++units; // May become 0x400, the smallest normal: the encoding carries.
  return static_cast<uint16_t>(sign | units);
}

float gmm::reference::f16BitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  if (exp == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exp == 0x1Fu) {
    if (mantissa == 0)
      return floatFromBits(sign | 0x7F800000u);
    return floatFromBits(sign | 0x7FC00000u | (mantissa << 13));
  }
  return floatFromBits(sign | ((exp - 15 + 127) << 23) | (mantissa << 13));
}

double gmm::reference::roundToElementType(double value, ElementType type) {
  switch (type) {
  case ElementType::F16:
    return roundToFormat(value, 11, -14, 15);
  case ElementType::BF16:
    return roundToFormat(value, 8, -126, 127);
  case ElementType::F32:
    // Not a cast: converting an out-of-range double to float is undefined.
    return roundToFormat(value, 24, -126, 127);
  case ElementType::F64:
    return value;
  }
  return value;
}
