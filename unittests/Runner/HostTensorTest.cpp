//===- HostTensorTest.cpp - Host tensors, printing and generators ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/HostTensor.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace gmm::runner;

namespace {

HostTensor makeTensor(DType type, std::vector<int64_t> shape,
                      std::vector<double> values) {
  HostTensor tensor = HostTensor::zeros(type, shape);
  EXPECT_EQ(tensor.getNumElements(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i)
    tensor.setDouble(i, values[i]);
  return tensor;
}

TEST(HostTensorTest, DTypes) {
  EXPECT_STREQ(toString(DType::F16), "f16");
  EXPECT_STREQ(toString(DType::BF16), "bf16");
  EXPECT_STREQ(toString(DType::I64), "i64");
  EXPECT_EQ(getByteWidth(DType::BF16), 2u);
  EXPECT_EQ(getByteWidth(DType::I32), 4u);
  EXPECT_EQ(getByteWidth(DType::F64), 8u);
  EXPECT_TRUE(isFloat(DType::BF16));
  EXPECT_FALSE(isFloat(DType::I32));
  EXPECT_EQ(toElementType(DType::F16), gmm::reference::ElementType::F16);
  EXPECT_EQ(toElementType(DType::I64), std::nullopt);
}

TEST(HostTensorTest, ZerosAndShapes) {
  HostTensor t = HostTensor::zeros(DType::F32, {2, 3});
  EXPECT_EQ(t.getNumElements(), 6);
  EXPECT_EQ(t.bytes.size(), 24u);
  EXPECT_TRUE(t.isConsistent());
  HostTensor scalar = HostTensor::zeros(DType::I64, {});
  EXPECT_EQ(scalar.getNumElements(), 1);
  EXPECT_EQ(scalar.bytes.size(), 8u);
  HostTensor empty = HostTensor::zeros(DType::BF16, {4, 0});
  EXPECT_EQ(empty.getNumElements(), 0);
  EXPECT_TRUE(empty.bytes.empty());
  t.bytes.pop_back();
  EXPECT_FALSE(t.isConsistent());
  EXPECT_EQ(formatShape({2, 3}), "[2, 3]");
  EXPECT_EQ(formatShape({}), "[]");
}

TEST(HostTensorTest, SetRoundsToNearestEven) {
  // bf16 keeps 8 significant bits: 1 + 2^-8 is a tie between 1 and
  // 1 + 2^-7 and goes to the even 1; 1 + 3 * 2^-8 goes to 1 + 2^-6.
  HostTensor bf16 =
      makeTensor(DType::BF16, {3}, {1 + 0x1p-8, 1 + 3 * 0x1p-8, 1 + 0x1p-7});
  EXPECT_EQ(bf16.getDouble(0), 1.0);
  EXPECT_EQ(bf16.getDouble(1), 1 + 0x1p-6);
  EXPECT_EQ(bf16.getDouble(2), 1 + 0x1p-7);
  // f16 keeps 11: 1 + 2^-11 ties to 1.
  HostTensor f16 = makeTensor(DType::F16, {2}, {1 + 0x1p-11, 65520.0});
  EXPECT_EQ(f16.getDouble(0), 1.0);
  EXPECT_TRUE(std::isinf(f16.getDouble(1)));
  // Rounded once from double, not through float.
  HostTensor f32 = makeTensor(DType::F32, {1}, {0.1});
  EXPECT_EQ(f32.getDouble(0), static_cast<double>(0.1f));
}

TEST(HostTensorTest, Integers) {
  HostTensor i32 = HostTensor::zeros(DType::I32, {4});
  i32.setInt(0, -7);
  i32.setDouble(1, 2.5);  // ties to even
  i32.setDouble(2, 1e20); // saturates
  i32.setDouble(3, std::nan(""));
  EXPECT_EQ(i32.getInt(0), -7);
  EXPECT_EQ(i32.getInt(1), 2);
  EXPECT_EQ(i32.getInt(2), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(i32.getInt(3), 0);
  HostTensor i64 = HostTensor::zeros(DType::I64, {1});
  i64.setInt(0, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i64.getInt(0), std::numeric_limits<int64_t>::min());
}

TEST(HostTensorTest, ReferenceConversions) {
  HostTensor t = makeTensor(DType::F16, {2, 2}, {1, -2, 0.5, 3});
  gmm::reference::Tensor ref = toReferenceTensor(t);
  EXPECT_EQ(ref.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ref.data, (std::vector<double>{1, -2, 0.5, 3}));
  HostTensor back = fromReferenceTensor(ref, DType::BF16);
  EXPECT_EQ(back.type, DType::BF16);
  EXPECT_EQ(back.getDouble(2), 0.5);

  HostTensor sizes = HostTensor::zeros(DType::I32, {3});
  sizes.setInt(0, 3);
  sizes.setInt(1, -1);
  sizes.setInt(2, 5);
  gmm::reference::IndexTensor index = toIndexTensor(sizes);
  EXPECT_EQ(index.data, (std::vector<int64_t>{3, -1, 5}));
}

TEST(HostTensorTest, ConvertTensor) {
  HostTensor f32 = makeTensor(DType::F32, {2}, {1 + 0x1p-8, -3});
  llvm::Expected<HostTensor> bf16 = convertTensor(f32, DType::BF16);
  ASSERT_TRUE(static_cast<bool>(bf16));
  EXPECT_EQ(bf16->type, DType::BF16);
  EXPECT_EQ(bf16->getDouble(0), 1.0);
  EXPECT_EQ(bf16->getDouble(1), -3.0);

  HostTensor i64 = HostTensor::zeros(DType::I64, {2});
  i64.setInt(0, 5);
  i64.setInt(1, -5);
  llvm::Expected<HostTensor> i32 = convertTensor(i64, DType::I32);
  ASSERT_TRUE(static_cast<bool>(i32));
  EXPECT_EQ(i32->getInt(1), -5);
  i64.setInt(1, int64_t(1) << 40);
  llvm::Expected<HostTensor> tooBig = convertTensor(i64, DType::I32);
  ASSERT_FALSE(static_cast<bool>(tooBig));
  EXPECT_EQ(llvm::toString(tooBig.takeError()),
            "has element type i64, expected i32 (element 1 = 1099511627776 "
            "does not fit in i32)");

  llvm::Expected<HostTensor> wrong = convertTensor(f32, DType::F64);
  ASSERT_FALSE(static_cast<bool>(wrong));
  EXPECT_EQ(llvm::toString(wrong.takeError()),
            "has element type f32, expected f64");
}

TEST(HostTensorTest, FormatRanks) {
  EXPECT_EQ(formatTensor(makeTensor(DType::F32, {}, {2.5})), "2.5");
  EXPECT_EQ(formatTensor(makeTensor(DType::F32, {3}, {1, -2, 0})),
            "[1, -2, 0]");
  EXPECT_EQ(formatTensor(makeTensor(DType::F32, {2, 2}, {1, 0, 0, 3})),
            "[[1, 0],\n [0, 3]]");
  EXPECT_EQ(formatTensor(makeTensor(DType::F64, {2, 2, 1}, {1, 2, 3, 4})),
            "[[[1],\n  [2]],\n [[3],\n  [4]]]");
  EXPECT_EQ(formatTensor(HostTensor::zeros(DType::F32, {0})), "[]");
  // numpy's way: an array without elements prints as "[]".
  EXPECT_EQ(formatTensor(HostTensor::zeros(DType::F32, {2, 0})), "[]");
  EXPECT_EQ(formatTensor(HostTensor::zeros(
                DType::F32, {int64_t(1) << 40, 0, int64_t(1) << 40})),
            "[]");
}

TEST(HostTensorTest, FormatValues) {
  HostTensor floats = makeTensor(
      DType::F64, {8},
      {0.5, 1.0 / 3, 1.5e-5, -0.0, 123456789, INFINITY, -INFINITY, NAN});
  EXPECT_EQ(formatTensor(floats),
            "[0.5, 0.333333, 1.5e-05, -0, 1.23457e+08, inf, -inf, nan]");
  FormatOptions precise;
  precise.precision = 3;
  EXPECT_EQ(formatTensor(makeTensor(DType::F32, {1}, {1.0 / 3}), precise),
            "[0.333]");
  HostTensor ints = HostTensor::zeros(DType::I64, {3});
  ints.setInt(0, 3);
  ints.setInt(1, -1);
  ints.setInt(2, int64_t(1) << 60);
  EXPECT_EQ(formatTensor(ints), "[3, -1, 1152921504606846976]");
  // bf16 values print as the value they hold.
  EXPECT_EQ(formatTensor(makeTensor(DType::BF16, {2}, {1 + 0x1p-8, 0.1})),
            "[1, 0.100098]");
}

TEST(HostTensorTest, RandomIsDeterministic) {
  HostTensor a = HostTensor::zeros(DType::F32, {100});
  HostTensor b = HostTensor::zeros(DType::F32, {100});
  HostTensor c = HostTensor::zeros(DType::F32, {100});
  fillRandom(a, 7, 0);
  fillRandom(b, 7, 0);
  fillRandom(c, 7, 1);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_NE(a.bytes, c.bytes);
  for (int64_t i = 0; i < 100; ++i) {
    EXPECT_GE(a.getDouble(i), -1.0);
    EXPECT_LT(a.getDouble(i), 1.0);
  }
  HostTensor ints = HostTensor::zeros(DType::I32, {100});
  fillRandom(ints, 7, 2);
  for (int64_t i = 0; i < 100; ++i) {
    EXPECT_GE(ints.getInt(i), 0);
    EXPECT_LT(ints.getInt(i), 8);
  }
  // The stream is fixed by the algorithm, not by the standard library.
  Random random(0);
  EXPECT_EQ(random.next(), 0xe220a8397b1dcdafULL);
}

TEST(HostTensorTest, GroupSizes) {
  using D = GroupSizeDistribution;
  EXPECT_EQ(makeGroupSizes(D::Uniform, 10, 4),
            (std::vector<int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(makeGroupSizes(D::Uniform, 2, 4),
            (std::vector<int64_t>{1, 1, 0, 0}));
  // Weights 13, 5, 0, 2 of 20: floor gives 41, 16, 0, 6; the remaining row
  // goes to group 0.
  EXPECT_EQ(makeGroupSizes(D::Skewed, 64, 4),
            (std::vector<int64_t>{42, 16, 0, 6}));
  EXPECT_EQ(makeGroupSizes(D::Skewed, 0, 3), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(makeGroupSizes(D::Skewed, 5, 1), (std::vector<int64_t>{5}));
  for (D distribution : {D::Uniform, D::Skewed, D::Random}) {
    for (int64_t extent : {0, 1, 7, 64, 1000}) {
      for (int64_t groups : {1, 2, 3, 4, 8, 13, 64}) {
        std::vector<int64_t> sizes =
            makeGroupSizes(distribution, extent, groups, 3);
        ASSERT_EQ(static_cast<int64_t>(sizes.size()), groups);
        EXPECT_EQ(std::accumulate(sizes.begin(), sizes.end(), int64_t(0)),
                  extent);
        for (int64_t size : sizes)
          EXPECT_GE(size, 0);
        if (distribution == D::Skewed)
          for (int64_t i = 2; i < groups; i += 4)
            EXPECT_EQ(sizes[i], 0) << "group " << i << " should be empty";
      }
    }
  }
  // The skew that --group-sizes=skewed promises: max / mean = 2.6.
  std::vector<int64_t> skewed = makeGroupSizes(D::Skewed, 6400, 64);
  EXPECT_EQ(*std::max_element(skewed.begin(), skewed.end()), 260);
  EXPECT_EQ(makeGroupSizes(D::Random, 100, 5, 9),
            makeGroupSizes(D::Random, 100, 5, 9));
  EXPECT_NE(makeGroupSizes(D::Random, 100, 5, 9),
            makeGroupSizes(D::Random, 100, 5, 10));
}

} // namespace
