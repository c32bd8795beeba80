//===- NpyTest.cpp - Reading and writing .npy files -----------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace gmm::runner;

namespace {

/// A .npy file as numpy writes it: magic, version, header length, the
/// header padded with spaces to a multiple of 64 bytes and a newline.
std::string makeNpy(const std::string &dict, const std::string &data,
                    int major = 1) {
  std::string header = dict;
  size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string errorOf(llvm::Expected<HostTensor> tensor) {
  if (tensor)
    return "<no error>";
  return llvm::toString(tensor.takeError());
}

HostTensor makeTensor(DType type, std::vector<int64_t> shape) {
  HostTensor tensor = HostTensor::zeros(type, shape);
  for (int64_t i = 0; i < tensor.getNumElements(); ++i) {
    if (isFloat(type))
      tensor.setDouble(i, 0.25 * i - 1);
    else
      tensor.setInt(i, 3 * i - 5);
  }
  return tensor;
}

TEST(NpyTest, RoundTripEveryDType) {
  for (DType type : {DType::F16, DType::BF16, DType::F32, DType::F64,
                     DType::I32, DType::I64}) {
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{}, {5}, {2, 3}, {2, 1, 3}, {0, 4}}) {
      HostTensor tensor = makeTensor(type, shape);
      std::string file = serializeNpy(tensor);
      // Data starts on a 64-byte boundary, as numpy writes it.
      EXPECT_EQ((file.size() - tensor.bytes.size()) % 64, 0u);
      llvm::Expected<HostTensor> back = parseNpy(file, "t.npy");
      ASSERT_TRUE(static_cast<bool>(back)) << errorOf(std::move(back));
      EXPECT_EQ(back->type, type) << toString(type);
      EXPECT_EQ(back->shape, shape);
      EXPECT_EQ(back->bytes, tensor.bytes);
    }
  }
}

TEST(NpyTest, HeaderIsNumpys) {
  HostTensor tensor = makeTensor(DType::F32, {2, 3});
  std::string expected =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
              std::string(reinterpret_cast<const char *>(tensor.bytes.data()),
                          tensor.bytes.size()));
  EXPECT_EQ(serializeNpy(tensor), expected);
  HostTensor vector = makeTensor(DType::BF16, {4});
  EXPECT_NE(serializeNpy(vector).find(
                "{'descr': '|V2', 'fortran_order': False, 'shape': (4,), }"),
            std::string::npos);
  HostTensor scalar = makeTensor(DType::I64, {});
  EXPECT_NE(serializeNpy(scalar).find("'shape': (), }"), std::string::npos);
}

TEST(NpyTest, ParsesVariants) {
  std::string data(8, '\0');
  // Version 2.0 and 3.0 headers have a 4-byte length; key order and
  // spacing vary; '=' is native order.
  for (int major : {1, 2, 3}) {
    llvm::Expected<HostTensor> t =
        parseNpy(makeNpy("{'shape': (2,),'fortran_order':False,'descr':'=i4'}",
                         data, major),
                 "v.npy");
    ASSERT_TRUE(static_cast<bool>(t)) << errorOf(std::move(t));
    EXPECT_EQ(t->type, DType::I32);
    EXPECT_EQ(t->shape, (std::vector<int64_t>{2}));
  }
  // bf16 as raw 2-byte void or ml_dtypes' name.
  for (const char *descr : {"<V2", "|V2", "bfloat16"}) {
    llvm::Expected<HostTensor> t =
        parseNpy(makeNpy(std::string("{'descr': '") + descr +
                             "', 'fortran_order': False, 'shape': (4,), }",
                         data),
                 "b.npy");
    ASSERT_TRUE(static_cast<bool>(t)) << errorOf(std::move(t));
    EXPECT_EQ(t->type, DType::BF16);
  }
  // Trailing bytes are ignored, as numpy does.
  llvm::Expected<HostTensor> t = parseNpy(
      makeNpy("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }",
              data),
      "h.npy");
  ASSERT_TRUE(static_cast<bool>(t)) << errorOf(std::move(t));
  EXPECT_EQ(t->bytes.size(), 6u);
}

TEST(NpyTest, HeaderErrors) {
  std::string data(24, '\0');
  auto parse = [](const std::string &contents) {
    return errorOf(parseNpy(contents, "x.npy"));
  };
  EXPECT_EQ(parse("PK\x03\x04 not numpy"),
            "x.npy: not a .npy file (bad magic string; expected "
            "\"\\x93NUMPY\")");
  EXPECT_EQ(parse(""), "x.npy: not a .npy file (bad magic string; expected "
                       "\"\\x93NUMPY\")");
  EXPECT_EQ(parse("\x93NUMPY"), "x.npy: truncated header (no format version)");
  EXPECT_EQ(parse(std::string("\x93NUMPY\x04\x00", 8)),
            "x.npy: unsupported .npy format version 4.0 (supported: 1.0, 2.0, "
            "3.0)");
  std::string full = makeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data);
  EXPECT_EQ(parse(full.substr(0, 9)), "x.npy: truncated header (no header "
                                      "length)");
  EXPECT_EQ(parse(full.substr(0, 40)),
            "x.npy: truncated header (expected 118 bytes of header, found 30)");
  EXPECT_EQ(parse(full.substr(0, full.size() - 1)),
            "x.npy: truncated data (shape [2, 3] of f32 needs 24 bytes, found "
            "23)");
  EXPECT_EQ(
      parse(makeNpy(
          "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", data)),
      "x.npy: Fortran-order data is not supported (save a C-order "
      "array, e.g. np.ascontiguousarray)");
  EXPECT_EQ(
      parse(makeNpy("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
                    data)),
      "x.npy: unsupported dtype '<u2' (supported: <f2, <f4, <f8, <i4, "
      "<i8, and bf16 as <V2, |V2 or bfloat16)");
  EXPECT_EQ(
      parse(makeNpy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                    data)),
      "x.npy: unsupported dtype '>f4': big-endian data is not "
      "supported");
  EXPECT_EQ(parse(makeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, "
                          "'shape': (2,), }",
                          data)),
            "x.npy: unsupported dtype: structured arrays are not supported");
  EXPECT_EQ(parse(makeNpy("{'descr': '<f4', 'shape': (2,), }", data)),
            "x.npy: malformed header: missing 'fortran_order' in '{'descr': "
            "'<f4', 'shape': (2,), }'");
  EXPECT_EQ(
      parse(makeNpy(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data)),
      "x.npy: malformed header: expected a tuple of sizes for 'shape' "
      "in '{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }'");
}

class NpyFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("gmm-npy-test", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) {
    llvm::SmallString<128> result(dir);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }

  llvm::SmallString<128> dir;
};

TEST_F(NpyFileTest, WriteAndRead) {
  HostTensor tensor = makeTensor(DType::F64, {3, 2});
  ASSERT_FALSE(static_cast<bool>(writeNpy(path("a.npy"), tensor)));
  llvm::Expected<HostTensor> back = readNpy(path("a.npy"));
  ASSERT_TRUE(static_cast<bool>(back)) << errorOf(std::move(back));
  EXPECT_EQ(back->bytes, tensor.bytes);
}

TEST_F(NpyFileTest, F32LoadsIntoBF16AndF16RoundedToNearestEven) {
  HostTensor f32 = HostTensor::zeros(DType::F32, {4});
  f32.setDouble(0, 1 + 0x1p-8);     // bf16 tie -> 1 (even)
  f32.setDouble(1, 1 + 3 * 0x1p-8); // bf16 tie -> 1 + 2^-6 (even)
  f32.setDouble(2, 1 + 0x1p-11);    // f16 tie -> 1
  f32.setDouble(3, -2.75);
  ASSERT_FALSE(static_cast<bool>(writeNpy(path("f.npy"), f32)));

  llvm::Expected<HostTensor> bf16 = readNpy(path("f.npy"), DType::BF16);
  ASSERT_TRUE(static_cast<bool>(bf16)) << errorOf(std::move(bf16));
  EXPECT_EQ(bf16->type, DType::BF16);
  EXPECT_EQ(bf16->getDouble(0), 1.0);
  EXPECT_EQ(bf16->getDouble(1), 1 + 0x1p-6);
  EXPECT_EQ(bf16->getDouble(3), -2.75);

  llvm::Expected<HostTensor> f16 = readNpy(path("f.npy"), DType::F16);
  ASSERT_TRUE(static_cast<bool>(f16)) << errorOf(std::move(f16));
  EXPECT_EQ(f16->getDouble(1), 1 + 3 * 0x1p-8);
  EXPECT_EQ(f16->getDouble(2), 1.0);

  EXPECT_EQ(errorOf(readNpy(path("f.npy"), DType::I32)),
            path("f.npy") + ": has element type f32, expected i32");
}

TEST_F(NpyFileTest, FileErrors) {
  std::string missing = path("missing.npy");
  EXPECT_EQ(errorOf(readNpy(missing)),
            missing + ": cannot read: No such file or directory");
  std::string bad = path("nodir/out.npy");
  llvm::Error error = writeNpy(bad, makeTensor(DType::F32, {1}));
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            bad + ": cannot write: No such file or directory");
}

} // namespace
