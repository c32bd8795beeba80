//===- FloatConversionTest.cpp - f16/bf16 conversions and rounding --------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Reference/FloatConversion.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace gmm::reference;

namespace {

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint32_t toBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

const double kInf = std::numeric_limits<double>::infinity();

TEST(ReferenceElementTypeTest, NamesRoundTrip) {
  EXPECT_STREQ(toString(ElementType::F16), "f16");
  EXPECT_STREQ(toString(ElementType::BF16), "bf16");
  EXPECT_STREQ(toString(ElementType::F32), "f32");
  EXPECT_STREQ(toString(ElementType::F64), "f64");
  for (ElementType type : {ElementType::F16, ElementType::BF16,
                           ElementType::F32, ElementType::F64})
    EXPECT_EQ(parseElementType(toString(type)), type);
  EXPECT_FALSE(parseElementType("f8"));
  EXPECT_FALSE(parseElementType("F32"));
  EXPECT_FALSE(parseElementType(""));
}

TEST(ReferenceBF16Test, KnownBitPatterns) {
  EXPECT_EQ(floatToBF16Bits(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16Bits(-2.0f), 0xC000);
  EXPECT_EQ(floatToBF16Bits(0.0f), 0x0000);
  EXPECT_EQ(floatToBF16Bits(-0.0f), 0x8000);
  EXPECT_EQ(floatToBF16Bits(3.140625f), 0x4049);
  EXPECT_EQ(bf16BitsToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16BitsToFloat(0xC000), -2.0f);
  EXPECT_EQ(bf16BitsToFloat(0x4049), 3.140625f);
}

TEST(ReferenceBF16Test, RoundsToNearestEven) {
  // Exactly halfway: to the even neighbour.
  EXPECT_EQ(floatToBF16Bits(fromBits(0x3F808000)), 0x3F80);
  EXPECT_EQ(floatToBF16Bits(fromBits(0x3F818000)), 0x3F82);
  // Just above / below halfway.
  EXPECT_EQ(floatToBF16Bits(fromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(floatToBF16Bits(fromBits(0x3F817FFF)), 0x3F81);
  // A carry into the exponent: 1.99999 -> 2.
  EXPECT_EQ(floatToBF16Bits(fromBits(0x3FFFFFFF)), 0x4000);
}

TEST(ReferenceBF16Test, InfinityOverflowAndNaN) {
  EXPECT_EQ(floatToBF16Bits(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(floatToBF16Bits(-std::numeric_limits<float>::infinity()), 0xFF80);
  // FLT_MAX rounds up past bf16's largest finite value 0x7F7F.
  EXPECT_EQ(floatToBF16Bits(fromBits(0x7F7FFFFF)), 0x7F80);
  EXPECT_EQ(floatToBF16Bits(fromBits(0x7F7F7FFF)), 0x7F7F);
  EXPECT_EQ(floatToBF16Bits(fromBits(0x7FC00000)), 0x7FC0);
  // A NaN whose payload lives only in the dropped bits stays NaN.
  uint16_t nan = floatToBF16Bits(fromBits(0x7F800001));
  EXPECT_EQ(nan & 0x7F80, 0x7F80);
  EXPECT_NE(nan & 0x007F, 0);
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(nan)));
  EXPECT_EQ(floatToBF16Bits(fromBits(0xFFC00000)), 0xFFC0);
}

TEST(ReferenceF16Test, KnownBitPatterns) {
  EXPECT_EQ(floatToF16Bits(1.0f), 0x3C00);
  EXPECT_EQ(floatToF16Bits(-2.0f), 0xC000);
  EXPECT_EQ(floatToF16Bits(0.5f), 0x3800);
  EXPECT_EQ(floatToF16Bits(0.0f), 0x0000);
  EXPECT_EQ(floatToF16Bits(-0.0f), 0x8000);
  EXPECT_EQ(floatToF16Bits(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16Bits(0.1f), 0x2E66);
  EXPECT_EQ(f16BitsToFloat(0x3C00), 1.0f);
  EXPECT_EQ(f16BitsToFloat(0xC000), -2.0f);
  EXPECT_EQ(f16BitsToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(f16BitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(toBits(f16BitsToFloat(0x8000)), 0x80000000u);
}

TEST(ReferenceF16Test, Subnormals) {
  // Smallest subnormal 2^-24 and largest subnormal 1023 * 2^-24.
  EXPECT_EQ(floatToF16Bits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(f16BitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(floatToF16Bits(1023 * std::ldexp(1.0f, -24)), 0x03FF);
  EXPECT_EQ(f16BitsToFloat(0x03FF), 1023 * std::ldexp(1.0f, -24));
  // Smallest normal.
  EXPECT_EQ(floatToF16Bits(std::ldexp(1.0f, -14)), 0x0400);
  // 2^-25 is halfway between 0 and 2^-24: ties to the even 0.
  EXPECT_EQ(floatToF16Bits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(floatToF16Bits(-std::ldexp(1.0f, -25)), 0x8000);
  // Above the tie rounds up; 1.5 units ties to 2 units.
  EXPECT_EQ(floatToF16Bits(1.5f * std::ldexp(1.0f, -25)), 0x0001);
  EXPECT_EQ(floatToF16Bits(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(floatToF16Bits(5 * std::ldexp(1.0f, -25)), 0x0002);
  // 1023.5 units ties to 1024 units: the smallest normal.
  EXPECT_EQ(floatToF16Bits(2047 * std::ldexp(1.0f, -25)), 0x0400);
  // Tiny and float-subnormal inputs flush to a signed zero.
  EXPECT_EQ(floatToF16Bits(1e-30f), 0x0000);
  EXPECT_EQ(floatToF16Bits(fromBits(0x00000001)), 0x0000);
  EXPECT_EQ(floatToF16Bits(fromBits(0x80000001)), 0x8000);
}

TEST(ReferenceF16Test, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to the even 1.
  EXPECT_EQ(floatToF16Bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 0x3C01 and 0x3C02: to 0x3C02.
  EXPECT_EQ(floatToF16Bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(floatToF16Bits(2049.0f), 0x6800); // 2048
  EXPECT_EQ(floatToF16Bits(2051.0f), 0x6802); // 2052
}

TEST(ReferenceF16Test, OverflowInfinityAndNaN) {
  EXPECT_EQ(floatToF16Bits(65519.0f), 0x7BFF);
  // 65520 is halfway between 65504 (odd) and 65536: rounds to infinity.
  EXPECT_EQ(floatToF16Bits(65520.0f), 0x7C00);
  EXPECT_EQ(floatToF16Bits(1e6f), 0x7C00);
  EXPECT_EQ(floatToF16Bits(-1e6f), 0xFC00);
  EXPECT_EQ(floatToF16Bits(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(floatToF16Bits(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(f16BitsToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(f16BitsToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  uint16_t nan = floatToF16Bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  // A NaN whose payload lives only in the dropped bits stays NaN.
  uint16_t lowNan = floatToF16Bits(fromBits(0x7F800001));
  EXPECT_EQ(lowNan & 0x7C00, 0x7C00);
  EXPECT_NE(lowNan & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(f16BitsToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(f16BitsToFloat(0x7C01)));
  EXPECT_TRUE(std::isnan(f16BitsToFloat(0xFE00)));
}

TEST(ReferenceF16Test, EveryPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    float value = f16BitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(value)) {
      EXPECT_EQ(((bits >> 10) & 0x1F), 0x1Fu);
      continue;
    }
    EXPECT_EQ(floatToF16Bits(value), bits) << "bits 0x" << std::hex << bits;
  }
}

TEST(ReferenceBF16Test, EveryPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    float value = bf16BitsToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(value))
      continue;
    EXPECT_EQ(floatToBF16Bits(value), bits) << "bits 0x" << std::hex << bits;
  }
}

TEST(ReferenceRoundToElementTypeTest, F16) {
  EXPECT_EQ(roundToElementType(1.0, ElementType::F16), 1.0);
  EXPECT_EQ(roundToElementType(2049.0, ElementType::F16), 2048.0);
  EXPECT_EQ(roundToElementType(2051.0, ElementType::F16), 2052.0);
  EXPECT_EQ(roundToElementType(65519.99, ElementType::F16), 65504.0);
  EXPECT_EQ(roundToElementType(65520.0, ElementType::F16), kInf);
  EXPECT_EQ(roundToElementType(-70000.0, ElementType::F16), -kInf);
  EXPECT_EQ(roundToElementType(std::ldexp(1.0, -25), ElementType::F16), 0.0);
  EXPECT_EQ(roundToElementType(std::ldexp(1.0, -25) + std::ldexp(1.0, -60),
                               ElementType::F16),
            std::ldexp(1.0, -24));
  EXPECT_EQ(roundToElementType(0.1, ElementType::F16), 0.0999755859375);
  // Just above a tie: one direct rounding goes up, while rounding through
  // float first would land on the tie and go to the even 1.
  EXPECT_EQ(
      roundToElementType(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                         ElementType::F16),
      1.0 + std::ldexp(1.0, -10));
  EXPECT_TRUE(std::signbit(roundToElementType(-0.0, ElementType::F16)));
  EXPECT_TRUE(std::signbit(roundToElementType(-1e-30, ElementType::F16)));
}

TEST(ReferenceRoundToElementTypeTest, BF16) {
  EXPECT_EQ(roundToElementType(257.0, ElementType::BF16), 256.0);
  EXPECT_EQ(roundToElementType(259.0, ElementType::BF16), 260.0);
  EXPECT_EQ(roundToElementType(-259.0, ElementType::BF16), -260.0);
  EXPECT_EQ(roundToElementType(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40),
                               ElementType::BF16),
            1.0 + std::ldexp(1.0, -7));
  EXPECT_EQ(roundToElementType(1e39, ElementType::BF16), kInf);
  EXPECT_EQ(roundToElementType(std::ldexp(1.0, -133), ElementType::BF16),
            std::ldexp(1.0, -133));
  EXPECT_EQ(roundToElementType(std::ldexp(1.0, -134), ElementType::BF16), 0.0);
}

TEST(ReferenceRoundToElementTypeTest, F32AndF64) {
  EXPECT_EQ(roundToElementType(1.0 + std::ldexp(1.0, -24), ElementType::F32),
            1.0);
  EXPECT_EQ(
      roundToElementType(1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -40),
                         ElementType::F32),
      1.0 + std::ldexp(1.0, -23));
  EXPECT_EQ(roundToElementType(1e300, ElementType::F32), kInf);
  EXPECT_EQ(roundToElementType(-1e300, ElementType::F32), -kInf);
  EXPECT_EQ(roundToElementType(std::ldexp(1.0, -149), ElementType::F32),
            std::ldexp(1.0, -149));
  EXPECT_EQ(roundToElementType(0.1, ElementType::F32),
            static_cast<double>(0.1f));
  EXPECT_EQ(roundToElementType(0.1, ElementType::F64), 0.1);
  EXPECT_EQ(roundToElementType(1e300, ElementType::F64), 1e300);
}

TEST(ReferenceRoundToElementTypeTest, NaNAndInfinityPass) {
  for (ElementType type : {ElementType::F16, ElementType::BF16,
                           ElementType::F32, ElementType::F64}) {
    EXPECT_TRUE(std::isnan(
        roundToElementType(std::numeric_limits<double>::quiet_NaN(), type)));
    EXPECT_EQ(roundToElementType(kInf, type), kInf);
    EXPECT_EQ(roundToElementType(-kInf, type), -kInf);
  }
}

// The double path and the bit-level float path are written independently;
// on floats (exactly representable in double) they must agree.
TEST(ReferenceRoundToElementTypeTest, AgreesWithBitConversions) {
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 4099) {
    float value = fromBits(static_cast<uint32_t>(bits));
    if (std::isnan(value))
      continue;
    double viaF16 = f16BitsToFloat(floatToF16Bits(value));
    double viaBF16 = bf16BitsToFloat(floatToBF16Bits(value));
    ASSERT_EQ(roundToElementType(value, ElementType::F16), viaF16)
        << "float bits 0x" << std::hex << bits;
    ASSERT_EQ(roundToElementType(value, ElementType::BF16), viaBF16)
        << "float bits 0x" << std::hex << bits;
    ASSERT_EQ(roundToElementType(value, ElementType::F32),
              static_cast<double>(value));
  }
}

} // namespace
