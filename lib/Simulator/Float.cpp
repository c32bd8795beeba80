//===- Float.cpp - Rounding to PTX's floating-point formats ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// One rounding routine serves every narrowing: an exact (or rounded-to-odd)
// double is rounded to a binary format of `precision` significand bits and
// exponent range [emin, emax] with .rn/.rz/.rm/.rp/.rna, with subnormals and
// overflow as IEEE 754 specifies. f16, bf16, tf32 and directed-rounding f32
// results are all built on it. Rounding to odd first (at 53 bits) and then
// to a format of at most 51 bits gives the correctly rounded result, which
// is how fma and directed f32 arithmetic are computed.
//
//===----------------------------------------------------------------------===//

#include "Exec.h"

#include <cmath>

using namespace gmm::sim;

namespace {

struct Format {
  int precision; // significand bits, with the implicit one
  int emin, emax;
};
constexpr Format kHalf = {11, -14, 15};
constexpr Format kBF16 = {8, -126, 127};
constexpr Format kFloat = {24, -126, 127};

/// The largest finite value of `format`.
double maxFinite(const Format &format) {
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - format.precision), format.emax);
}

/// Rounds |value| (finite, non-zero) of sign `negative` to `format`.
/// Returns the rounded magnitude (possibly infinity).
double roundMagnitude(double magnitude, bool negative, const Format &format,
                      Round round, bool saturateFinite) {
  int exponent = 0;
  std::frexp(magnitude, &exponent); // magnitude = f * 2^exponent, f in [.5,1)
  int e = exponent - 1;             // magnitude in [2^e, 2^(e+1))
  if (e < format.emin)
    e = format.emin;
  // The quantum of the result is 2^(e - precision + 1).
  int shift = format.precision - 1 - e;
  double scaled = std::ldexp(magnitude, shift); // exact
  double integral = std::floor(scaled);
  double fraction = scaled - integral; // exact
  bool up = false;
  switch (round) {
  case Round::None:
  case Round::RN:
    up = fraction > 0.5 || (fraction == 0.5 && std::fmod(integral, 2.0) != 0.0);
    break;
  case Round::RNA:
    up = fraction >= 0.5;
    break;
  case Round::RZ:
    break;
  case Round::RM:
    up = negative && fraction > 0;
    break;
  case Round::RP:
    up = !negative && fraction > 0;
    break;
  }
  double result = std::ldexp(integral + (up ? 1.0 : 0.0), -shift);
  if (result > maxFinite(format)) {
    bool toInfinity =
        !saturateFinite &&
        (round == Round::RN || round == Round::RNA || round == Round::None ||
         (round == Round::RP && !negative) || (round == Round::RM && negative));
    return toInfinity ? INFINITY : maxFinite(format);
  }
  return result;
}

/// Encodes a rounded magnitude of a 16-bit format with `mantissaBits`.
uint16_t encode16(double magnitude, bool negative, const Format &format,
                  int exponentBits) {
  int mantissaBits = format.precision - 1;
  uint16_t sign = negative ? 0x8000 : 0;
  int bias = (1 << (exponentBits - 1)) - 1;
  if (std::isinf(magnitude))
    return sign |
           static_cast<uint16_t>(((1 << exponentBits) - 1) << mantissaBits);
  if (magnitude == 0)
    return sign;
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  int e = exponent - 1;
  if (e < format.emin) {
    // Subnormal: mantissa = magnitude / 2^(emin - mantissaBits).
    auto mantissa = static_cast<uint16_t>(
        std::ldexp(magnitude, mantissaBits - format.emin));
    return sign | mantissa;
  }
  auto mantissa = static_cast<uint16_t>(
      std::ldexp(magnitude, mantissaBits - e) - std::ldexp(1.0, mantissaBits));
  return sign | static_cast<uint16_t>((e + bias) << mantissaBits) | mantissa;
}

uint16_t doubleTo16(double value, Round round, bool saturateFinite,
                    const Format &format, int exponentBits) {
  if (std::isnan(value))
    return 0x7fff; // PTX's canonical NaN of f16 and bf16
  bool negative = std::signbit(value);
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) {
    if (saturateFinite)
      return encode16(maxFinite(format), negative, format, exponentBits);
    return encode16(INFINITY, negative, format, exponentBits);
  }
  if (magnitude == 0)
    return negative ? 0x8000 : 0;
  double rounded =
      roundMagnitude(magnitude, negative, format, round, saturateFinite);
  return encode16(rounded, negative, format, exponentBits);
}

} // namespace

uint16_t gmm::sim::doubleToHalf(double value, Round round,
                                bool saturateFinite) {
  return doubleTo16(value, round, saturateFinite, kHalf, 5);
}

uint16_t gmm::sim::doubleToBF16(double value, Round round,
                                bool saturateFinite) {
  return doubleTo16(value, round, saturateFinite, kBF16, 8);
}

uint16_t gmm::sim::floatToHalf(float value, Round round, bool saturateFinite) {
  return doubleToHalf(value, round, saturateFinite);
}

uint16_t gmm::sim::floatToBF16(float value, Round round, bool saturateFinite) {
  return doubleToBF16(value, round, saturateFinite);
}

float gmm::sim::halfToFloat(uint16_t bits) {
  bool negative = bits & 0x8000;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return negative ? -magnitude : magnitude;
}

float gmm::sim::bf16ToFloat(uint16_t bits) {
  return bitsAs<float>(static_cast<uint64_t>(bits) << 16);
}

float gmm::sim::doubleToFloat(double value, Round round) {
  if (std::isnan(value) || std::isinf(value) || value == 0)
    return static_cast<float>(value);
  if (round == Round::RN || round == Round::None)
    return static_cast<float>(value);
  bool negative = std::signbit(value);
  double rounded =
      roundMagnitude(std::fabs(value), negative, kFloat, round, false);
  auto result = static_cast<float>(rounded); // exact
  return negative ? -result : result;
}

uint32_t gmm::sim::floatToTF32(float value, Round round) {
  auto bits = static_cast<uint32_t>(asBits(value));
  if (std::isnan(value))
    return 0x7fffffffu;
  if (std::isinf(value))
    return bits;
  uint32_t low = bits & 0x1fffu;
  bits &= ~0x1fffu;
  // Sign-magnitude: adding one unit rounds the magnitude up (and carries
  // into the exponent, up to infinity, as rounding should).
  switch (round) {
  case Round::RNA:
    if (low >= 0x1000u)
      bits += 0x2000u;
    break;
  case Round::RN:
  case Round::None:
    if (low > 0x1000u || (low == 0x1000u && (bits & 0x2000u)))
      bits += 0x2000u;
    break;
  case Round::RZ:
    break;
  case Round::RM:
    if (low && (bits & 0x80000000u))
      bits += 0x2000u;
    break;
  case Round::RP:
    if (low && !(bits & 0x80000000u))
      bits += 0x2000u;
    break;
  }
  return bits;
}

/// Moves `rounded` (a round-to-nearest result) to the neighbour in the
/// direction of `error` when its last bit is even: round to odd.
static double toOdd(double rounded, double error) {
  if (error == 0 || std::isinf(rounded) || std::isnan(rounded))
    return rounded;
  uint64_t bits = asBits(rounded);
  if (bits & 1)
    return rounded;
  return std::nextafter(rounded, error > 0 ? INFINITY : -INFINITY);
}

double gmm::sim::fmaRoundToOdd(double a, double b, double c) {
  double product = a * b; // exact for operands of at most 26 bits
  double sum = product + c;
  if (std::isinf(sum) || std::isnan(sum))
    return sum;
  // TwoSum: the exact error of the addition.
  double bv = sum - product;
  double av = sum - bv;
  double error = (product - av) + (c - bv);
  return toOdd(sum, error);
}

float gmm::sim::roundedF32(int op, float a, float b, float c, Round round) {
  double x = a, y = b, z = c;
  double result = 0, error = 0;
  switch (op) {
  case kOpAdd:
  case kOpSub: {
    if (op == kOpSub)
      y = -y;
    result = x + y;
    double bv = result - x;
    double av = result - bv;
    error = (x - av) + (y - bv);
    break;
  }
  case kOpMul:
    result = x * y; // exact
    break;
  case kOpFma:
    result = fmaRoundToOdd(x, y, z);
    break;
  case kOpDiv:
  case kOpRcp: {
    if (op == kOpRcp) {
      y = x;
      x = 1.0;
    }
    result = x / y;
    if (std::isfinite(result) && result != 0) {
      double remainder = std::fma(-result, y, x);
      error = remainder * (y < 0 ? -1 : 1);
    }
    break;
  }
  case kOpSqrt:
    result = std::sqrt(x);
    if (std::isfinite(result) && result > 0)
      error = std::fma(-result, result, x);
    break;
  }
  // An exact zero sum of operands of opposite signs (x - x, or an fma
  // whose product cancels the addend) is -0 when rounding down, +0 else
  // (IEEE 754-2008 6.3); two zeros of the same sign keep it.
  if (result == 0 && error == 0 &&
      (op == kOpAdd || op == kOpSub || op == kOpFma)) {
    double first = op == kOpFma ? x * y : x;
    double second = op == kOpFma ? z : y;
    bool sameSignZeros = first == 0 && second == 0 &&
                         std::signbit(first) == std::signbit(second);
    if (!sameSignZeros)
      return round == Round::RM ? -0.0f : 0.0f;
  }
  return doubleToFloat(toOdd(result, error), round);
}

double gmm::sim::integerToFloating(uint64_t magnitude, bool negative,
                                   bool toDouble, Round round) {
  int precision = toDouble ? 53 : 24;
  int bits = magnitude ? 64 - __builtin_clzll(magnitude) : 0;
  double result;
  if (bits <= precision) {
    result = static_cast<double>(magnitude);
  } else {
    int shift = bits - precision;
    uint64_t kept = magnitude >> shift;
    uint64_t rest = magnitude & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    bool up = false;
    switch (round) {
    case Round::None:
    case Round::RN:
      up = rest > half || (rest == half && (kept & 1));
      break;
    case Round::RNA:
      up = rest >= half;
      break;
    case Round::RZ:
      break;
    case Round::RM:
      up = negative && rest;
      break;
    case Round::RP:
      up = !negative && rest;
      break;
    }
    result = std::ldexp(static_cast<double>(kept + (up ? 1 : 0)), shift);
  }
  return negative ? -result : result;
}
