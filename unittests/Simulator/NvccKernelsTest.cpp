//===- NvccKernelsTest.cpp - PTX that LLVM did not write ------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Runs the kernels of NvccKernels.cu, compiled to PTX by nvcc for sm_80 and
// sm_90 (NvccKernels.cmake), on the simulator and checks every output
// element against a plain CPU computation: exactly where the result is
// exact, within a stated tolerance otherwise. The PTX files are read at run
// time; without nvcc at configure time every test skips itself.
//
// Built with GMM_NVCC_ON_GPU (GMMNvccKernelsOnGPU), the same tests, with the
// same assertions, run on a real GPU through the CUDA driver API instead
// (NvccKernelsOnGPU.h): the PTX (and, beside it, cubins if there are any)
// comes from the directory in $GMM_NVCC_KERNELS_DIR, else from the build.
//
//===----------------------------------------------------------------------===//

#ifdef GMM_NVCC_ON_GPU
#include "NvccKernelsOnGPU.h"
#else
#include "SimTestUtils.h"

#include "gmm/Simulator/TensorMap.h"
#endif

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#ifndef GMM_NVCC_PTX
#define GMM_NVCC_PTX ""
#endif
#ifndef GMM_NVCC_PTX_SM90A
#define GMM_NVCC_PTX_SM90A ""
#endif
#ifndef GMM_NVCC_PTX_SM90
#define GMM_NVCC_PTX_SM90 ""
#endif

#ifdef GMM_NVCC_ON_GPU
using namespace gmm::gputest;
using SimRun = gmm::gputest::GpuRun;
#else
using namespace gmm::sim;
using gmm::sim::test::Buffer;
using gmm::sim::test::SimRun;
#endif

namespace {

#ifdef GMM_NVCC_ON_GPU
const bool kGpuEnvironment =
    (::testing::AddGlobalTestEnvironment(new GpuEnvironment), true);
#endif

//===----------------------------------------------------------------------===//
// CPU references
//===----------------------------------------------------------------------===//

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// f32 -> f16 bits, round to nearest even (NaN: some NaN).
uint16_t halfBitsRN(float value) {
  uint16_t sign = (floatBits(value) >> 16) & 0x8000;
  if (std::isnan(value))
    return sign | 0x7e00;
  double a = std::fabs(static_cast<double>(value));
  // 65520 is halfway between 65504 (the largest half) and 2^16.
  if (a >= 65520.0)
    return sign | 0x7c00;
  int exponent = a == 0 ? -14 : std::max(std::ilogb(a), -14);
  double ulp = std::ldexp(1.0, exponent - 10);
  double rounded = std::nearbyint(a / ulp) * ulp;
  if (rounded < std::ldexp(1.0, -14))
    return sign | static_cast<uint16_t>(rounded * std::ldexp(1.0, 24));
  int e = std::ilogb(rounded);
  uint16_t mantissa =
      static_cast<uint16_t>(rounded / std::ldexp(1.0, e - 10) - 1024);
  return sign | static_cast<uint16_t>((e + 15) << 10) | mantissa;
}

float halfToFloat(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0x1f)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(mantissa, -24);
  else
    magnitude = std::ldexp(1024 + mantissa, exponent - 25);
  return static_cast<float>((bits & 0x8000) ? -magnitude : magnitude);
}

bool isHalfNaN(uint32_t bits) {
  return ((bits >> 10) & 0x1f) == 0x1f && (bits & 0x3ff) != 0;
}

/// f32 -> bf16 bits, round to nearest even / toward zero (finite values).
uint16_t bf16BitsRN(float value) {
  uint32_t x = floatBits(value);
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}
uint16_t bf16BitsRZ(float value) {
  return static_cast<uint16_t>(floatBits(value) >> 16);
}
bool isBF16NaN(uint32_t bits) {
  return ((bits >> 7) & 0xff) == 0xff && (bits & 0x7f) != 0;
}

/// x * y rounded toward zero: the product of two floats is exact in double.
float mulRZ(float x, float y) {
  if (!std::isfinite(x) || !std::isfinite(y))
    return x * y;
  double exact = static_cast<double>(x) * y;
  float nearest = static_cast<float>(exact);
  if (std::isinf(nearest))
    return std::copysign(FLT_MAX, nearest);
  if (std::fabs(static_cast<double>(nearest)) > std::fabs(exact))
    nearest = std::nextafter(nearest, 0.0f);
  return nearest;
}

/// x + y rounded down (direction < 0) or up (direction > 0), from the
/// round-to-nearest sum and its exact error (TwoSum).
float addDirected(float x, float y, int direction) {
  if (!std::isfinite(x) || !std::isfinite(y))
    return x + y;
  float sum = x + y;
  if (std::isinf(sum)) {
    if (direction < 0)
      return sum > 0 ? FLT_MAX : sum;
    return sum < 0 ? -FLT_MAX : sum;
  }
  if (sum == 0) {
    // An exact zero: -0 when rounding down unless both are +0.
    if (direction < 0)
      return (x == 0 && y == 0 && !std::signbit(x) && !std::signbit(y)) ? 0.0f
                                                                        : -0.0f;
    return sum;
  }
  float yPart = sum - x;
  float error = (x - (sum - yPart)) + (y - yPart);
  if (direction < 0 && error < 0)
    return std::nextafter(sum, -INFINITY);
  if (direction > 0 && error > 0)
    return std::nextafter(sum, INFINITY);
  return sum;
}

/// cvt.rni / cvt.rzi float -> integer: saturating; NaN gives 0 for 32-bit
/// destinations and 1 << 63 for 64-bit ones (PTX ISA, cvt).
int32_t floatToIntRN(float x) {
  if (std::isnan(x))
    return 0;
  if (x >= 2147483648.0f)
    return INT32_MAX;
  if (x < -2147483648.0f)
    return INT32_MIN;
  return static_cast<int32_t>(std::nearbyint(x));
}
int32_t floatToIntRZ(float x) {
  if (std::isnan(x))
    return 0;
  if (x >= 2147483648.0f)
    return INT32_MAX;
  if (x < -2147483648.0f)
    return INT32_MIN;
  return static_cast<int32_t>(std::trunc(x));
}
uint32_t floatToUintRN(float x) {
  if (std::isnan(x))
    return 0;
  double r = std::nearbyint(static_cast<double>(x));
  if (r <= 0)
    return 0;
  if (r >= 4294967296.0)
    return UINT32_MAX;
  return static_cast<uint32_t>(r);
}
int64_t floatToLongRN(float x) {
  if (std::isnan(x))
    return INT64_MIN;
  if (x >= 9223372036854775808.0f)
    return INT64_MAX;
  if (x < -9223372036854775808.0f)
    return INT64_MIN;
  return static_cast<int64_t>(std::nearbyint(x));
}

//===----------------------------------------------------------------------===//
// Test helpers
//===----------------------------------------------------------------------===//

/// Mismatches of one test, by output field: reported once per field with
/// the count and the first few, so that a systematic error stays readable.
class Mismatches {
public:
  template <typename T>
  void expectEq(const std::string &field, T got, T want,
                const std::string &where) {
    if (got == want)
      return;
    std::ostringstream detail;
    detail << where << ": got " << toText(got) << ", want " << toText(want);
    add(field, detail.str());
  }
  /// Bitwise equality of floats; any NaN matches a NaN.
  void expectFloat(const std::string &field, uint32_t gotBits, float want,
                   const std::string &where) {
    float got = bitsFloat(gotBits);
    if (std::isnan(want) ? std::isnan(got) : gotBits == floatBits(want))
      return;
    std::ostringstream detail;
    detail.precision(9);
    detail << where << ": got " << got << " (0x" << std::hex << gotBits
           << "), want " << want << " (0x" << floatBits(want) << ")";
    add(field, detail.str());
  }
  void add(const std::string &field, const std::string &detail) {
    Entry &entry = fields[field];
    if (++entry.count <= 4)
      entry.examples += "\n    " + detail;
  }
  void report() const {
    for (const auto &[field, entry] : fields)
      ADD_FAILURE() << field << ": " << entry.count << " mismatch(es)"
                    << entry.examples;
  }

private:
  struct Entry {
    int count = 0;
    std::string examples;
  };
  template <typename T> static std::string toText(T value) {
    std::ostringstream text;
    if constexpr (std::is_floating_point_v<T>) {
      text.precision(9);
      text << value;
    } else {
      text << value << " (0x" << std::hex
           << static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(value))
           << ")";
    }
    return text.str();
  }
  std::map<std::string, Entry> fields;
};

std::string at(size_t i) { return "[" + std::to_string(i) + "]"; }
std::string at(size_t i, size_t j) {
  return "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}

/// A deterministic source of test data (raw mt19937 output, which is the
/// same on every standard library).
class Random {
public:
  explicit Random(uint32_t seed) : engine(seed) {}
  uint32_t next() { return static_cast<uint32_t>(engine()); }
  uint64_t next64() { return (uint64_t(next()) << 32) | next(); }
  /// Uniform enough in [lo, hi].
  int range(int lo, int hi) {
    return lo + static_cast<int>(next() % uint32_t(hi - lo + 1));
  }

private:
  std::mt19937 engine;
};

/// One PTX file: nvcc's output for one target.
struct PtxTarget {
  const char *name;
  const char *path;
  unsigned arch;
};

std::ostream &operator<<(std::ostream &os, const PtxTarget &target) {
  return os << target.name;
}

#define ASSERT_LAUNCHED(result)                                                \
  ASSERT_TRUE((result).ok) << findingKindName((result).kind) << ": "           \
                           << (result).message

/// Loads the PTX nvcc wrote for the target into a fresh simulated device
/// (of the target's compute capability).
class NvccKernels : public ::testing::TestWithParam<PtxTarget> {
protected:
  void SetUp() override {
    const PtxTarget &target = GetParam();
    if (!*target.path)
      GTEST_SKIP() << "nvcc not found: the CUDA toolkit's nvcc was not found "
                      "when the build was configured, so NvccKernels.cu was "
                      "not compiled to "
                   << target.name << " PTX";
#ifdef GMM_NVCC_ON_GPU
    // $GMM_NVCC_KERNELS_DIR/NvccKernels.<target>.ptx (what the GPU kit
    // carries), else the build's; a .cubin beside it is loaded first.
    std::string path = target.path;
    if (const char *dir = std::getenv("GMM_NVCC_KERNELS_DIR"))
      path = std::string(dir) + "/NvccKernels." + target.name + ".ptx";
    unsigned arch = GpuEnvironment::arch();
    if (target.arch > arch)
      GTEST_SKIP() << target.name << " PTX needs compute capability "
                   << target.arch / 10 << "." << target.arch % 10
                   << "; the GPU has " << arch / 10 << "." << arch % 10;
    if (std::string(target.name) == "sm_90a" && arch != 90)
      GTEST_SKIP() << "sm_90a PTX runs on compute capability 9.0 only";
    std::string ptx = readFile(path);
    ASSERT_FALSE(ptx.empty()) << "cannot read " << path;
    std::string cubinPath = path.substr(0, path.size() - 4) + ".cubin";
    run = std::make_unique<SimRun>();
    ASSERT_TRUE(run->load(ptx, readFile(cubinPath), cubinPath))
        << path << " does not load:\n"
        << run->loadLog;
#else
    std::ifstream file(target.path);
    ASSERT_TRUE(file.good()) << "cannot read " << target.path;
    std::stringstream text;
    text << file.rdbuf();
    Options options = SimRun::defaultOptions();
    options.arch = target.arch;
    run = std::make_unique<SimRun>(options);
    ASSERT_TRUE(run->load(text.str())) << target.path << " does not load:\n"
                                       << run->loadLog;
#endif
  }

  template <typename T> Buffer &buffer(const std::vector<T> &values) {
    return run->buffer(values);
  }
  Buffer &zeros(size_t bytes) { return run->buffer(bytes); }

  std::unique_ptr<SimRun> run;
};

//===----------------------------------------------------------------------===//
// mma.sync m16n8k16 with ldmatrix
//===----------------------------------------------------------------------===//

/// D (16x16) = A (16x16) * B (16x16) + C on two warps; `toBits` encodes the
/// multiplicands, whose values are chosen so that every sum is exact.
void checkMma16(SimRun &run, const char *kernel, const std::vector<float> &a,
                const std::vector<float> &b, uint16_t (*toBits)(float)) {
  Random random(7);
  std::vector<uint16_t> aBits, bBits;
  for (float x : a)
    aBits.push_back(toBits(x));
  for (float x : b)
    bBits.push_back(toBits(x));
  std::vector<float> c(256);
  for (float &x : c)
    x = random.range(-64, 64) * 0.5f;
  Buffer &aBuf = run.buffer(aBits);
  Buffer &bBuf = run.buffer(bBits);
  Buffer &cBuf = run.buffer(c);
  Buffer &dBuf = run.buffer(256 * sizeof(float));
  LaunchResult result =
      run.launch(kernel, {1, 1, 1}, {64, 1, 1},
                 {aBuf.address, bBuf.address, cBuf.address, dBuf.address});
  ASSERT_LAUNCHED(result);
  Mismatches mismatches;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      double want = c[i * 16 + j];
      for (int k = 0; k < 16; ++k)
        want += double(a[i * 16 + k]) * b[k * 16 + j];
      mismatches.expectEq("D", dBuf.get<float>(i * 16 + j),
                          static_cast<float>(want), "D" + at(i, j));
    }
  mismatches.report();
}

TEST_P(NvccKernels, MmaF16WithLdmatrix) {
  // Quarters up to 10 in magnitude: exact in f16, every sum exact in f32.
  Random random(1);
  std::vector<float> a(256), b(256);
  for (float &x : a)
    x = random.range(-40, 40) * 0.25f;
  for (float &x : b)
    x = random.range(-40, 40) * 0.25f;
  checkMma16(*run, "mma_f16", a, b, halfBitsRN);
}

TEST_P(NvccKernels, MmaBF16WithLdmatrix) {
  // Eighths with 8 significant bits: exact in bf16, sums exact in f32.
  Random random(2);
  std::vector<float> a(256), b(256);
  for (float &x : a)
    x = random.range(-255, 255) * 0.125f;
  for (float &x : b)
    x = random.range(-255, 255) * 0.125f;
  checkMma16(*run, "mma_bf16", a, b, bf16BitsRN);
}

//===----------------------------------------------------------------------===//
// mma.sync m16n8k8 tf32
//===----------------------------------------------------------------------===//

TEST_P(NvccKernels, MmaTF32) {
  // A: 7 significant bits, B: 11 (all of tf32's); sums exact in f32.
  Random random(3);
  std::vector<float> a(16 * 8), b(8 * 8), c(16 * 8);
  for (float &x : a)
    x = random.range(-127, 127) / 64.0f;
  for (float &x : b)
    x = random.range(-2047, 2047) / 32.0f;
  for (float &x : c)
    x = random.range(-100, 100) * 0.5f;
  Buffer &aBuf = buffer(a);
  Buffer &bBuf = buffer(b);
  Buffer &cBuf = buffer(c);
  Buffer &dBuf = zeros(16 * 8 * sizeof(float));
  LaunchResult result =
      run->launch("mma_tf32", {1, 1, 1}, {32, 1, 1},
                  {aBuf.address, bBuf.address, cBuf.address, dBuf.address});
  ASSERT_LAUNCHED(result);
  Mismatches mismatches;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double want = c[i * 8 + j];
      for (int k = 0; k < 8; ++k)
        want += double(a[i * 8 + k]) * b[k * 8 + j];
      mismatches.expectEq("D", dBuf.get<float>(i * 8 + j),
                          static_cast<float>(want), "D" + at(i, j));
    }
  mismatches.report();
}

//===----------------------------------------------------------------------===//
// cp.async
//===----------------------------------------------------------------------===//

TEST_P(NvccKernels, CpAsyncDoubleBuffer) {
  // 5 full tiles of 256 floats and a last one of 37: thread 9 copies 4 of
  // its 16 bytes, threads 10-63 none; the rest of the tile must be zeros
  // (not what tile 3 left in the same buffer).
  constexpr int kThreads = 64, kTile = 256, n = 5 * kTile + 37;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = static_cast<float>((i * 7) % 23 - 11);
  Buffer &inBuf = buffer(in);
  Buffer &sums = zeros(kThreads * sizeof(float));
  std::vector<float> sentinel(kTile, -1000.0f);
  Buffer &tile = buffer(sentinel);
  LaunchResult result =
      run->launch("cp_async_double_buffer", {1, 1, 1}, {kThreads, 1, 1},
                  {inBuf.address, uint64_t(n), sums.address, tile.address});
  ASSERT_LAUNCHED(result);
  int numTiles = (n + kTile - 1) / kTile;
  auto element = [&](int index) { return index < n ? in[index] : 0.0f; };
  Mismatches mismatches;
  for (int t = 0; t < kThreads; ++t) {
    float want = 0;
    for (int k = 0; k < numTiles; ++k)
      for (int j = 0; j < 4; ++j)
        want += element(k * kTile + t + j * kThreads);
    mismatches.expectEq("sums", sums.get<float>(t), want, "sums" + at(t));
  }
  for (int i = 0; i < kTile; ++i)
    mismatches.expectEq("last tile", tile.get<float>(i),
                        element((numTiles - 1) * kTile + i), "tile" + at(i));
  mismatches.report();
}

TEST_P(NvccKernels, CpAsyncZeroFill) {
  constexpr int kThreads = 64;
  Random random(4);
  std::vector<uint64_t> in8(kThreads);
  std::vector<uint32_t> in4(kThreads);
  for (uint64_t &x : in8)
    x = random.next64() | 0x0101010101010101ull; // no zero bytes
  for (uint32_t &x : in4)
    x = random.next() | 0x01010101u;
  Buffer &in8Buf = buffer(in8);
  Buffer &in4Buf = buffer(in4);
  Buffer &out8 = zeros(kThreads * 8);
  Buffer &out4 = zeros(kThreads * 4);
  LaunchResult result =
      run->launch("cp_async_zfill", {1, 1, 1}, {kThreads, 1, 1},
                  {in8Buf.address, in4Buf.address, out8.address, out4.address});
  ASSERT_LAUNCHED(result);
  Mismatches mismatches;
  for (int t = 0; t < kThreads; ++t) {
    int from = (t + 1) % kThreads;
    // src-size bytes copied, the rest of cp-size zero-filled.
    uint64_t keep8 = (from % 9) == 8 ? ~0ull : (1ull << (8 * (from % 9))) - 1;
    uint32_t keep4 = (from % 5) == 4 ? ~0u : (1u << (8 * (from % 5))) - 1;
    mismatches.expectEq("8-byte copy", out8.get<uint64_t>(t), in8[from] & keep8,
                        "out8" + at(t) + " (src-size " +
                            std::to_string(from % 9) + ")");
    mismatches.expectEq("4-byte copy", out4.get<uint32_t>(t), in4[from] & keep4,
                        "out4" + at(t) + " (src-size " +
                            std::to_string(from % 5) + ")");
  }
  mismatches.report();
}

//===----------------------------------------------------------------------===//
// warp shuffles and votes
//===----------------------------------------------------------------------===//

using Lanes = std::array<int, 32>;

/// CUDA's __shfl_*_sync on a full warp, with `width`-lane segments: a lane
/// whose source lies outside its segment gets its own value.
enum class Shfl { Idx, Up, Down, Xor };
Lanes shuffle(const Lanes &v, Shfl kind, int operand, int width = 32) {
  Lanes out;
  for (int lane = 0; lane < 32; ++lane) {
    int start = lane & ~(width - 1), end = start + width - 1, source = lane;
    switch (kind) {
    case Shfl::Idx:
      source = start + (operand % width);
      break;
    case Shfl::Up:
      source = lane - operand >= start ? lane - operand : lane;
      break;
    case Shfl::Down:
      source = lane + operand <= end ? lane + operand : lane;
      break;
    case Shfl::Xor:
      source = (lane ^ operand) <= end ? lane ^ operand : lane;
      break;
    }
    out[lane] = v[source];
  }
  return out;
}

TEST_P(NvccKernels, WarpShuffleAndVote) {
  constexpr int kThreads = 64, kOutputs = 16;
  std::vector<int> in(kThreads);
  for (int i = 0; i < 32; ++i)
    in[i] = (i * 37 + 11) % 100; // warp 0: 11..99 and 3 below
  for (int i = 32; i < 64; ++i)
    in[i] = 20 + (i * 13) % 80; // warp 1: all above 10, one negative
  in[5] = 77;
  in[9] = 3;
  in[40] = -5;
  Buffer &inBuf = buffer(in);
  Buffer &out = zeros(kThreads * kOutputs * sizeof(int));
  LaunchResult result = run->launch("warp_shuffle", {1, 1, 1}, {kThreads, 1, 1},
                                    {inBuf.address, out.address});
  ASSERT_LAUNCHED(result);

  static const char *const names[kOutputs] = {
      "xor sum",     "down max",        "up scan",         "idx broadcast",
      "idx permute", "xor sum width 8", "down 3 width 16", "up 5 width 8",
      "ballot v>50", "all v>=0",        "all v>10",        "any v==77",
      "any v<0",     "partial ballot",  "float xor sum",   "popc ballot"};
  Mismatches mismatches;
  for (int warp = 0; warp < 2; ++warp) {
    Lanes v;
    for (int lane = 0; lane < 32; ++lane)
      v[lane] = in[warp * 32 + lane];
    std::array<Lanes, kOutputs> want;

    Lanes sum = v;
    for (int m = 16; m >= 1; m /= 2) {
      Lanes other = shuffle(sum, Shfl::Xor, m);
      for (int l = 0; l < 32; ++l)
        sum[l] += other[l];
    }
    want[0] = sum;
    Lanes mx = v;
    for (int d = 16; d >= 1; d /= 2) {
      Lanes other = shuffle(mx, Shfl::Down, d);
      for (int l = 0; l < 32; ++l)
        mx[l] = std::max(mx[l], other[l]);
    }
    want[1] = mx;
    Lanes scan = v;
    for (int d = 1; d < 32; d *= 2) {
      Lanes up = shuffle(scan, Shfl::Up, d);
      for (int l = 0; l < 32; ++l)
        if (l >= d)
          scan[l] += up[l];
    }
    want[2] = scan;
    want[3] = shuffle(v, Shfl::Idx, (5 * warp + 3) % 32);
    for (int l = 0; l < 32; ++l)
      want[4][l] = v[(7 * l + 3) % 32];
    Lanes seg = v;
    for (int m = 4; m >= 1; m /= 2) {
      Lanes other = shuffle(seg, Shfl::Xor, m, 8);
      for (int l = 0; l < 32; ++l)
        seg[l] += other[l];
    }
    want[5] = seg;
    want[6] = shuffle(v, Shfl::Down, 3, 16);
    want[7] = shuffle(v, Shfl::Up, 5, 8);
    uint32_t ballot = 0, oddBallot = 0, laneBallot = 0;
    bool allNonNegative = true, allAbove10 = true, any77 = false,
         anyNegative = false;
    int total = 0;
    for (int l = 0; l < 32; ++l) {
      ballot |= uint32_t(v[l] > 50) << l;
      if (l & 1)
        oddBallot |= uint32_t(v[l] & 1) << l;
      laneBallot |= uint32_t(l < v[l] % 32) << l;
      allNonNegative &= v[l] >= 0;
      allAbove10 &= v[l] > 10;
      any77 |= v[l] == 77;
      anyNegative |= v[l] < 0;
      total += v[l];
    }
    for (int l = 0; l < 32; ++l) {
      want[8][l] = static_cast<int>(ballot);
      want[9][l] = allNonNegative;
      want[10][l] = allAbove10;
      want[11][l] = any77;
      want[12][l] = anyNegative;
      want[13][l] = (l & 1) ? static_cast<int>(oddBallot) : -1;
      want[14][l] = static_cast<int>(floatBits(total * 0.25f));
      want[15][l] = __builtin_popcount(laneBallot);
    }
    for (int l = 0; l < 32; ++l) {
      int tid = warp * 32 + l;
      for (int k = 0; k < kOutputs; ++k)
        mismatches.expectEq(names[k], out.get<int>(tid * kOutputs + k),
                            want[k][l], "thread " + std::to_string(tid));
    }
  }
  mismatches.report();
}

//===----------------------------------------------------------------------===//
// shared-memory tiled matmul
//===----------------------------------------------------------------------===//

TEST_P(NvccKernels, TiledMatmulOddSizes) {
  constexpr int m = 37, k = 29, n = 41;
  Random random(5);
  std::vector<float> a(m * k), b(k * n);
  for (float &x : a)
    x = static_cast<float>(random.range(-1000000, 1000000)) * 1e-6f;
  for (float &x : b)
    x = static_cast<float>(random.range(-1000000, 1000000)) * 1e-6f;
  Buffer &aBuf = buffer(a);
  Buffer &bBuf = buffer(b);
  std::vector<float> sentinel(m * n, NAN);
  Buffer &cBuf = buffer(sentinel);
  LaunchResult result = run->launch(
      "tiled_matmul", {(n + 15) / 16, (m + 15) / 16, 1}, {16, 16, 1},
      {aBuf.address, bBuf.address, cBuf.address, uint64_t(m), uint64_t(n),
       uint64_t(k)});
  ASSERT_LAUNCHED(result);
  // f32 fma chains of length 29 against a double reference: within
  // 1e-5 * sum |a_ik * b_kj| (about 30 ulps of the magnitudes involved).
  Mismatches mismatches;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0, magnitude = 0;
      for (int kk = 0; kk < k; ++kk) {
        want += double(a[i * k + kk]) * b[kk * n + j];
        magnitude += std::fabs(double(a[i * k + kk]) * b[kk * n + j]);
      }
      float got = cBuf.get<float>(i * n + j);
      if (!(std::fabs(got - want) <= 1e-5 * magnitude + 1e-7)) {
        std::ostringstream detail;
        detail.precision(9);
        detail << "C" << at(i, j) << ": got " << got << ", want " << want;
        mismatches.add("C", detail.str());
      }
    }
  mismatches.report();
}

//===----------------------------------------------------------------------===//
// atomics
//===----------------------------------------------------------------------===//

TEST_P(NvccKernels, Atomics) {
  constexpr int kBlocks = 4, kThreads = 128, total = kBlocks * kThreads;
  Random random(6);
  std::vector<int> values(total);
  for (int &v : values)
    v = random.range(-1000, 1000);
  std::vector<int> ints = {0,          INT32_MIN,  INT32_MAX,
                           0x7fffffff, 0x40000000, 0x12345678,
                           1000000,    0,          0};
  std::vector<float> floats = {0.0f, 0.0f};
  std::vector<uint64_t> packed = {0};
  std::vector<int> fmax = {static_cast<int>(floatBits(-1e30f))};
  Buffer &valuesBuf = buffer(values);
  Buffer &intsBuf = buffer(ints);
  Buffer &floatsBuf = buffer(floats);
  Buffer &packedBuf = buffer(packed);
  Buffer &fmaxBuf = buffer(fmax);
  Buffer &hist = zeros(32 * sizeof(unsigned));
  Buffer &tickets = zeros(total * sizeof(int));
  LaunchResult result = run->launch(
      "atomics", {kBlocks, 1, 1}, {kThreads, 1, 1},
      {valuesBuf.address, intsBuf.address, floatsBuf.address, packedBuf.address,
       fmaxBuf.address, hist.address, tickets.address});
  ASSERT_LAUNCHED(result);

  int vmax = INT32_MIN, vmin = INT32_MAX, andBits = ints[3], orBits = ints[4],
      xorBits = ints[5], sub = ints[6], sum = 0;
  uint64_t low = 0;
  std::vector<unsigned> wantHist(32, 0);
  for (int v : values) {
    vmax = std::max(vmax, v);
    vmin = std::min(vmin, v);
    andBits &= ~(1 << ((v & 7) * 3 + 1));
    orBits |= 1 << ((v & 7) * 3);
    xorBits ^= v;
    sub -= v;
    sum += v;
    low += static_cast<unsigned>(v & 0xff);
    ++wantHist[v & 31];
  }
  Mismatches mismatches;
  mismatches.expectEq("atomicAdd count", intsBuf.get<int>(0), total, "ints[0]");
  mismatches.expectEq("atomicMax", intsBuf.get<int>(1), vmax, "ints[1]");
  mismatches.expectEq("atomicMin", intsBuf.get<int>(2), vmin, "ints[2]");
  mismatches.expectEq("atomicAnd", intsBuf.get<int>(3), andBits, "ints[3]");
  mismatches.expectEq("atomicOr", intsBuf.get<int>(4), orBits, "ints[4]");
  mismatches.expectEq("atomicXor", intsBuf.get<int>(5), xorBits, "ints[5]");
  mismatches.expectEq("atomicSub", intsBuf.get<int>(6), sub, "ints[6]");
  // atomicInc wraps to 0 past 12: 512 increments from 0 end at 512 % 13.
  mismatches.expectEq("atomicInc", intsBuf.get<int>(7), total % 13, "ints[7]");
  mismatches.expectEq("atomicAdd (red)", intsBuf.get<int>(8), sum, "ints[8]");
  // Multiples of 1/2 and 1/4 far below 2^24 ulps: exact in any order.
  mismatches.expectEq("atomicAdd f32", floatsBuf.get<float>(0), sum * 0.5f,
                      "floats[0]");
  mismatches.expectEq("shared atomicAdd f32", floatsBuf.get<float>(1),
                      sum * 0.25f, "floats[1]");
  mismatches.expectEq("atomicCAS 64-bit", packedBuf.get<uint64_t>(0),
                      (uint64_t(total) << 32) + low, "packed");
  mismatches.expectEq("atomicCAS float max",
                      bitsFloat(fmaxBuf.get<uint32_t>(0)), vmax * 0.125f,
                      "fmax");
  for (int i = 0; i < 32; ++i)
    mismatches.expectEq("histogram", hist.get<unsigned>(i), wantHist[i],
                        "hist" + at(i));
  // The values atomicAdd returned: every ticket 0..511 exactly once.
  std::vector<int> seen(total, 0);
  for (int i = 0; i < total; ++i) {
    int ticket = tickets.get<int>(i);
    if (ticket < 0 || ticket >= total)
      mismatches.add("tickets", "tickets" + at(i) + " = " +
                                    std::to_string(ticket) + " out of range");
    else if (seen[ticket]++)
      mismatches.add("tickets",
                     "ticket " + std::to_string(ticket) + " returned twice");
  }
  mismatches.report();
}

//===----------------------------------------------------------------------===//
// integer and floating-point corner cases
//===----------------------------------------------------------------------===//

TEST_P(NvccKernels, FloatCorners) {
  const float inf = INFINITY, nan = std::numeric_limits<float>::quiet_NaN();
  // (x, y) pairs: conversions look at x, arithmetic at both.
  std::vector<std::pair<float, float>> cases = {
      {0.0f, 0.0f},
      {-0.0f, 0.0f},
      {-0.0f, -0.0f},
      {1.0f, -1.0f},
      {0.5f, 3.0f},
      {1.5f, 1.0f / 3.0f},
      {2.5f, -1.0f / 3.0f},
      {-2.5f, 1e-30f},
      {-0.5f, 2.0f},
      {-0.7f, 0.1f},
      {65504.0f, 2.0f},
      {65519.99f, 1.0f},
      {65520.0f, 1.0f},
      {100000.0f, -1.0f},
      {-100000.0f, 1.0f},
      {6e-8f, 1.0f},           // f16 subnormal range
      {2.98023224e-08f, 1.0f}, // 2^-25: ties to 0 in f16
      {4.4703484e-08f, 1.0f},  // 3 * 2^-26: rounds up to 2^-24
      {1e-10f, 1e-10f},
      {1e-40f, 1e-40f}, // f32 subnormals
      {1e-40f, -2e-40f},
      {FLT_MIN, 0.5f},
      {FLT_MAX, FLT_MAX},
      {-FLT_MAX, -FLT_MAX},
      {FLT_MAX, -2.0f},
      {1.0f, 1e-30f},
      {1.0f, -1e-30f},
      {-1.0f, 1e-30f},
      {1.00048828f, 1.0f},    // 1 + 2^-11: f16 tie to even (down)
      {1.00146484f, 1.0f},    // 1 + 3 * 2^-11: f16 tie to even (up)
      {1.00390625f, 1.0f},    // 1 + 2^-8: bf16 tie (down)
      {1.01171875f, 1.0f},    // 1 + 3 * 2^-8: bf16 tie (up)
      {1.00390637f, 1.0f},    // just above a bf16 tie
      {2147483520.0f, 1.0f},  // largest float below 2^31
      {2147483648.0f, 1.0f},  // 2^31
      {-2147483648.0f, 1.0f}, // -2^31
      {-2147483904.0f, 1.0f}, // below -2^31
      {3e9f, 1.0f},
      {-3e9f, 1.0f},
      {4294967040.0f, 1.0f}, // largest float below 2^32
      {4294967296.0f, 1.0f}, // 2^32
      {9.2233715e18f, 1.0f}, // 2^63
      {9.2233714e18f, 1.0f}, // largest float below 2^63
      {-9.2233715e18f, 1.0f},
      {-1e19f, 1.0f},
      {1e20f, 1.0f},
      {inf, 1.0f},
      {-inf, 2.0f},
      {inf, -inf},
      {inf, 0.0f},
      {nan, 1.0f},
      {-nan, 1.0f},
      {3.0f, nan},
      {0.0f, inf},
  };
  Random random(8);
  auto randomFloat = [&](int minExponent, int maxExponent) {
    uint32_t sign = random.next() & 0x80000000u;
    uint32_t exponent = 127 + random.range(minExponent, maxExponent);
    return bitsFloat(sign | (exponent << 23) | (random.next() & 0x7fffff));
  };
  for (int i = 0; i < 200; ++i)
    cases.push_back({randomFloat(-30, 30), randomFloat(-30, 30)});
  for (int i = 0; i < 100; ++i) // f16 subnormals to overflow
    cases.push_back({randomFloat(-26, 17), randomFloat(-5, 5)});
  for (int i = 0; i < 50; ++i) // near the integer limits
    cases.push_back({randomFloat(28, 65), randomFloat(-5, 5)});
  for (int i = 0; i < 50; ++i) // halfway cases of the integer conversions
    cases.push_back({random.range(-1000, 1000) + 0.5f, randomFloat(-5, 5)});

  const int n = static_cast<int>(cases.size());
  std::vector<float> xs, ys;
  for (auto [x, y] : cases) {
    xs.push_back(x);
    ys.push_back(y);
  }
  Buffer &xBuf = buffer(xs);
  Buffer &yBuf = buffer(ys);
  Buffer &out = zeros(size_t(n) * 16 * 4);
  LaunchResult result =
      run->launch("float_corners", {unsigned(n + 127) / 128, 1, 1}, {128, 1, 1},
                  {xBuf.address, yBuf.address, uint64_t(n), out.address});
  ASSERT_LAUNCHED(result);

  Mismatches mismatches;
  for (int i = 0; i < n; ++i) {
    float x = xs[i], y = ys[i];
    std::ostringstream where;
    where.precision(9);
    where << "x=" << x << " (0x" << std::hex << floatBits(x) << "), y=" << y
          << " (0x" << floatBits(y) << ")";
    auto word = [&](int k) { return out.get<uint32_t>(size_t(i) * 16 + k); };
    if (std::isnan(x)) {
      if (!isHalfNaN(word(0)) || word(0) > 0xffff)
        mismatches.add("__float2half_rn", where.str() + ": not a NaN");
      if (!isBF16NaN(word(1)) || word(1) > 0xffff)
        mismatches.add("__float2bfloat16", where.str() + ": not a NaN");
    } else {
      mismatches.expectEq("__float2half_rn", word(0), uint32_t(halfBitsRN(x)),
                          where.str());
      mismatches.expectEq("__float2bfloat16", word(1), uint32_t(bf16BitsRN(x)),
                          where.str());
    }
    mismatches.expectFloat("__fmul_rz", word(2), mulRZ(x, y), where.str());
    mismatches.expectFloat("__fadd_rd", word(3), addDirected(x, y, -1),
                           where.str());
    mismatches.expectFloat("__fadd_ru", word(4), addDirected(x, y, 1),
                           where.str());
    mismatches.expectFloat("__fmul_rn", word(5), x * y, where.str());
    mismatches.expectEq("__float2int_rn", int32_t(word(6)), floatToIntRN(x),
                        where.str());
    mismatches.expectEq("__float2int_rz", int32_t(word(7)), floatToIntRZ(x),
                        where.str());
    mismatches.expectEq("__float2uint_rn", word(8), floatToUintRN(x),
                        where.str());
    mismatches.expectEq("__float2ll_rn",
                        int64_t(uint64_t(word(9)) | uint64_t(word(10)) << 32),
                        floatToLongRN(x), where.str());
    mismatches.expectFloat("__fsqrt_rn", word(11), std::sqrt(x), where.str());
    mismatches.expectFloat("__frcp_rn", word(12), 1.0f / x, where.str());
    mismatches.expectFloat("__half2float(__float2half_rn)", word(13),
                           std::isnan(x) ? x : halfToFloat(halfBitsRN(x)),
                           where.str());
    mismatches.expectFloat(
        "__float2bfloat16_rz", word(14),
        std::isnan(x) ? x : bitsFloat(uint32_t(bf16BitsRZ(x)) << 16),
        where.str());
    mismatches.expectFloat("__fdiv_rn", word(15), x / y, where.str());
  }
  mismatches.report();
}

TEST_P(NvccKernels, IntegerCorners) {
  struct Case {
    uint32_t a, b, c;
    int64_t p, q;
  };
  std::vector<Case> cases = {
      {0, 0, 0, 0, 1},
      {0xffffffffu, 0xffffffffu, 31, -1, 1},
      {0x80000000u, 1, 32, INT64_MIN, 1},
      {1, 0x80000000u, 33, INT64_MAX, -1},
      {0x12345678u, 0x9abcdef0u, 0x3210, 100, 7},
      {0x89abcdefu, 0x01234567u, 0xba98, -100, 7},
      {0x7f80ff01u, 0x80017fffu, 0xcccc, 100, -7},
      {0xdeadbeefu, 0xcafebabeu, 0xffff, -100, -7},
      {1u << 31, 3, 64, 0xffffffffLL, 0xffffffffLL}, // fast path
      {65536, 65536, 1, 0xffffffffLL, 1},
      {3, 5, 0xffffffe1u, 0x100000000LL, 2}, // just past the fast path
      {0x00ff00ffu, 0xff00ff00u, 0x88888888u, 12345, 0x100000000LL},
      {0x55555555u, 0xaaaaaaaau, 0x4567, 0x7fffffffffffffffLL, 0x12345LL},
      {1, 1, 0x7777, INT64_MIN + 1, INT64_MAX},
      {0x00000010u, 0, 63, 0x0000000100000000LL, 0x00000000ffffffffLL},
  };
  Random random(9);
  for (int i = 0; i < 120; ++i) {
    Case c;
    c.a = random.next();
    c.b = random.next();
    c.c = (i % 3) ? random.next() % 70 : random.next();
    // Operand sizes chosen to take both of nvcc's division paths (both
    // below 2^32, or not) and signed and unsigned extremes.
    int shape = i % 4;
    auto operand = [&](int bits) -> int64_t {
      uint64_t x = random.next64();
      return bits == 64 ? int64_t(x) : int64_t(x >> (64 - bits));
    };
    c.p = operand(shape == 0 ? 32 : (shape == 1 ? 40 : 64));
    c.q = operand(shape == 0 ? 16 : (shape == 1 ? 32 : (shape == 2 ? 20 : 64)));
    if (c.q == 0)
      c.q = 3;
    if (c.p == INT64_MIN && c.q == -1)
      c.q = 1;
    cases.push_back(c);
  }
  const int n = static_cast<int>(cases.size());
  std::vector<uint32_t> as, bs, cs;
  std::vector<int64_t> ps, qs;
  for (const Case &c : cases) {
    as.push_back(c.a);
    bs.push_back(c.b);
    cs.push_back(c.c);
    ps.push_back(c.p);
    qs.push_back(c.q);
  }
  Buffer &aBuf = buffer(as);
  Buffer &bBuf = buffer(bs);
  Buffer &cBuf = buffer(cs);
  Buffer &pBuf = buffer(ps);
  Buffer &qBuf = buffer(qs);
  Buffer &out = zeros(size_t(n) * 24 * 4);
  LaunchResult result =
      run->launch("int_corners", {unsigned(n + 63) / 64, 1, 1}, {64, 1, 1},
                  {aBuf.address, bBuf.address, cBuf.address, pBuf.address,
                   qBuf.address, uint64_t(n), out.address});
  ASSERT_LAUNCHED(result);

  auto bytePerm = [](uint32_t x, uint32_t y, uint32_t s, bool signMode) {
    uint64_t bytes = (uint64_t(y) << 32) | x;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
      uint32_t selector = (s >> (4 * i)) & 0xf;
      uint32_t byte = (bytes >> (8 * (selector & 7))) & 0xff;
      if (signMode && (selector & 8))
        byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    return r;
  };
  Mismatches mismatches;
  for (int i = 0; i < n; ++i) {
    const Case &c = cases[i];
    uint32_t a = c.a, b = c.b, s = c.c;
    uint64_t up = c.p, uq = c.q;
    std::ostringstream where;
    where << std::hex << "a=0x" << a << " b=0x" << b << " c=0x" << s << " p=0x"
          << up << " q=0x" << uq;
    auto word = [&](int k) { return out.get<uint32_t>(size_t(i) * 24 + k); };
    auto word64 = [&](int k) {
      return uint64_t(word(k)) | (uint64_t(word(k + 1)) << 32);
    };
    uint32_t brev = 0;
    for (int bit = 0; bit < 32; ++bit)
      brev |= ((a >> bit) & 1u) << (31 - bit);
    uint64_t wide = (uint64_t(b) << 32) | a;
    uint32_t clamped = std::min<uint32_t>(s, 32); // (hi:lo << 32) >> 32 = lo
    mismatches.expectEq("__popc", word(0), uint32_t(__builtin_popcount(a)),
                        where.str());
    mismatches.expectEq("__clz", word(1), a ? uint32_t(__builtin_clz(a)) : 32u,
                        where.str());
    mismatches.expectEq("__brev", word(2), brev, where.str());
    mismatches.expectEq("__ffs", word(3),
                        a ? uint32_t(__builtin_ctz(a) + 1) : 0u, where.str());
    mismatches.expectEq("__byte_perm", word(4),
                        bytePerm(a, b, s & 0x7777, false), where.str());
    mismatches.expectEq("prmt.b32", word(5), bytePerm(a, b, s, true),
                        where.str());
    mismatches.expectEq("__funnelshift_l", word(6),
                        uint32_t((wide << (s & 31)) >> 32), where.str());
    mismatches.expectEq("__funnelshift_lc", word(7),
                        uint32_t((wide << clamped) >> 32), where.str());
    mismatches.expectEq("__funnelshift_r", word(8), uint32_t(wide >> (s & 31)),
                        where.str());
    mismatches.expectEq("__umulhi", word(9), uint32_t((uint64_t(a) * b) >> 32),
                        where.str());
    mismatches.expectEq(
        "__mulhi", word(10),
        uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32),
        where.str());
    mismatches.expectEq("__popcll", word(11),
                        uint32_t(__builtin_popcountll(up)), where.str());
    mismatches.expectEq("__clzll", word(12),
                        up ? uint32_t(__builtin_clzll(up)) : 64u, where.str());
    mismatches.expectEq("__umul64hi", word64(13),
                        uint64_t((unsigned __int128)up * uq >> 64),
                        where.str());
    mismatches.expectEq("__mul64hi", word64(15),
                        uint64_t((__int128)c.p * c.q >> 64), where.str());
    mismatches.expectEq("s64 division", word64(17), uint64_t(c.p / c.q),
                        where.str());
    mismatches.expectEq("s64 remainder", word64(19), uint64_t(c.p % c.q),
                        where.str());
    mismatches.expectEq("u64 division", word64(21), up / uq, where.str());
    mismatches.expectEq("u64 remainder", word(23), uint32_t(up % uq),
                        where.str());
  }
  mismatches.report();
}

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

TEST_P(NvccKernels, MbarrierProducerConsumerRing) {
  if (GetParam().arch < 90)
    GTEST_SKIP() << "try_wait and transaction counts need sm_90";
  // 7 tiles: the ring's two stages go through phases 0-3 (full) and the
  // producer's first two waits on "empty" pass at once.
  constexpr int kTiles = 7;
  std::vector<float> in(kTiles * 64);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 50);
  Buffer &inBuf = buffer(in);
  Buffer &out = zeros(64 * sizeof(float));
  LaunchResult result =
      run->launch("mbarrier_ring", {1, 1, 1}, {96, 1, 1},
                  {inBuf.address, uint64_t(kTiles), out.address});
  ASSERT_LAUNCHED(result);
  Mismatches mismatches;
  for (int c = 0; c < 64; ++c) {
    float want = 0;
    for (int t = 0; t < kTiles; ++t)
      want += in[t * 64 + c];
    mismatches.expectEq("out", out.get<float>(c), want, "out" + at(c));
  }
  mismatches.report();
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

/// Encodes the tensor map of a `w` x `h` 2-D tensor of `pitch`-byte rows at
/// `address` in 64 x 8 boxes (the TMA box tests' map) into `map`.
void encodeBoxMap(uint64_t address, uint64_t w, uint64_t h, uint64_t pitch,
                  int dataType, int swizzle, void *map) {
  TiledTensorMapArgs a;
  a.dataType = dataType;
  a.rank = 2;
  a.globalAddress = address;
  a.globalDim[0] = w;
  a.globalDim[1] = h;
  a.globalStrides[0] = pitch;
  a.boxDim[0] = 64;
  a.boxDim[1] = 8;
  a.elementStrides[0] = a.elementStrides[1] = 1;
  a.swizzle = swizzle;
  std::string error;
  EXPECT_EQ(encodeTiledTensorMap(a, map, error), TensorMapError::None) << error;
}

TEST_P(NvccKernels, TmaBoxThroughSharedMemory) {
  if (GetParam().arch < 90)
    GTEST_SKIP() << "TMA needs sm_90";
  // in: 100 x 20 u16 (pitch 208 bytes); out: 80 x 30 (pitch 160). The box
  // (64 x 8) is loaded at (56, 15), partly outside `in` (zeros there), and
  // stored at (24, 25), partly outside `out` (clipped). The inner
  // coordinates are 16-byte multiples (112 and 48 bytes): at (60, 15) and
  // (20, 25), 120 and 40 bytes, the GPU raises an illegal instruction
  // (TmaBoxVariant_Baseline).
  constexpr int x = 56, y = 15, ox = 24, oy = 25;
  constexpr int inW = 100, inH = 20, inPitch = 104, outW = 80, outH = 30;
  std::vector<uint16_t> in(inPitch * inH);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<uint16_t>(i * 37 + 11);
  std::vector<uint16_t> out(outW * outH, 0x5555);
  Buffer &inBuf = buffer(in);
  Buffer &outBuf = buffer(out);
  auto encode = [](uint64_t address, uint64_t w, uint64_t h, uint64_t pitch,
                   void *map) {
    encodeBoxMap(address, w, h, pitch, /*UINT16*/ 1, kSwizzle128B, map);
  };
  Kernel *kernel = run->module->kernel("tma_box_increment");
  ASSERT_NE(kernel, nullptr);
  const std::vector<KernelParam> &p = kernel->params();
  ASSERT_EQ(p.size(), 6u);
  alignas(64) uint8_t params[512] = {};
  ASSERT_LE(kernel->paramBufferBytes(), sizeof(params));
  encode(inBuf.address, inW, inH, inPitch * 2, params + p[0].offset);
  encode(outBuf.address, outW, outH, outW * 2, params + p[1].offset);
  int32_t coords[4] = {x, y, ox, oy};
  for (int i = 0; i < 4; ++i)
    std::memcpy(params + p[2 + i].offset, &coords[i], 4);
  for (Buffer *b : {&inBuf, &outBuf})
    std::memcpy(run->device.hostPointer(b->address, b->bytes.size()),
                b->bytes.data(), b->bytes.size());
  LaunchConfig config;
  config.block = {128, 1, 1};
  LaunchResult result = run->device.launch(*kernel, config, params);
  ASSERT_LAUNCHED(result);
  std::memcpy(out.data(),
              run->device.hostPointer(outBuf.address, out.size() * 2),
              out.size() * 2);
  Mismatches mismatches;
  for (int yy = 0; yy < outH; ++yy)
    for (int xx = 0; xx < outW; ++xx) {
      uint16_t want = 0x5555;
      int bx = xx - ox, by = yy - oy;
      if (bx >= 0 && bx < 64 && by >= 0 && by < 8) {
        int gx = x + bx, gy = y + by;
        uint16_t loaded =
            gx < inW && gy < inH ? in[gy * inPitch + gx] : uint16_t(0);
        want = static_cast<uint16_t>(loaded + 1);
      }
      mismatches.expectEq("out", out[yy * outW + xx], want, "out" + at(yy, xx));
    }
  mismatches.report();
}

/// The bisection of TmaBoxThroughSharedMemory's fault on an H200
/// (CUDA_ERROR_ILLEGAL_INSTRUCTION at the TMA load of tma_box_increment
/// when it loaded at (60, 15) and stored at (20, 25)): tma_box_variant on a
/// u16 tensor 100 x 20 (pitch 208 bytes), box 64 x 8, 128-byte swizzle,
/// loaded at (60, 15) and stored at (20, 25) into an 80 x 30 tensor (pitch
/// 160), the failing case (Baseline), and variants that each change one
/// thing (or two, named). The H200's answer (2026-11-28): a copy whose
/// innermost coordinate times the element size is not a multiple of 16
/// bytes raises the illegal instruction, load or store, swizzled or not,
/// inside the tensor or not. So a variant with such a coordinate (the
/// load's, or the store's where it stores) expects the fault: on the
/// simulator a TMA misuse finding that says so (at the load, or else at
/// the store), on the GPU the launch's CUDA_ERROR_ILLEGAL_INSTRUCTION. The
/// others check the box as it lay in shared memory (`raw`: swizzled, zeros
/// outside the tensor, incremented) and `out` against the CPU. Run on
/// sm_90 PTX only (sm_90a failed the same way): suite NvccKernelsTmaBox.
struct TmaBoxCase {
  int dataType = 1; // CU_TENSOR_MAP_DATA_TYPE_UINT16
  int swizzle = kSwizzle128B;
  int inPitch = 104;    // elements (208 bytes)
  int x = 60, y = 15;   // the load's box corner in `in`
  int ox = 20, oy = 25; // the store's box corner in `out`
  bool store = true;    // false: no TMA store (`out` stays as it was)
};

void checkTmaBoxVariant(SimRun &run, const std::string &name,
                        const TmaBoxCase &c) {
  constexpr int inW = 100, inH = 20, outW = 80, outH = 30;
  // Finite in f16 and bf16 even after the increment: no NaN to canonicalize.
  std::vector<uint16_t> in(size_t(c.inPitch) * inH);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<uint16_t>((i * 37 + 11) & 0x3bff);
  std::vector<uint16_t> out(outW * outH, 0x5555);
  std::vector<uint16_t> raw(8 * 64, 0x7777);
  Buffer &inBuf = run.buffer(in);
  Buffer &outBuf = run.buffer(out);
  Buffer &rawBuf = run.buffer(raw);
  auto encode = [&](uint64_t address, uint64_t w, uint64_t h, uint64_t pitch,
                    void *map) {
    encodeBoxMap(address, w, h, pitch, c.dataType, c.swizzle, map);
  };
  Kernel *kernel = run.module->kernel("tma_box_variant");
  ASSERT_NE(kernel, nullptr);
  const std::vector<KernelParam> &p = kernel->params();
  ASSERT_EQ(p.size(), 8u);
  alignas(64) uint8_t params[512] = {};
  ASSERT_LE(kernel->paramBufferBytes(), sizeof(params));
  encode(inBuf.address, inW, inH, uint64_t(c.inPitch) * 2,
         params + p[0].offset);
  encode(outBuf.address, outW, outH, outW * 2, params + p[1].offset);
  int32_t ints[4] = {c.x, c.y, c.ox, c.oy};
  for (int i = 0; i < 4; ++i)
    std::memcpy(params + p[2 + i].offset, &ints[i], 4);
  std::memcpy(params + p[6].offset, &rawBuf.address, 8);
  int32_t store = c.store;
  std::memcpy(params + p[7].offset, &store, 4);
  for (Buffer *b : {&inBuf, &outBuf, &rawBuf})
    std::memcpy(run.device.hostPointer(b->address, b->bytes.size()),
                b->bytes.data(), b->bytes.size());
  LaunchConfig config;
  config.block = {128, 1, 1};
  LaunchResult result = run.device.launch(*kernel, config, params);
  std::cout << "tma box variant " << name << ": "
            << (result.ok
                    ? "launched"
                    : std::string("FAULTED: ") + findingKindName(result.kind) +
                          ": " + result.message)
            << "\n"
            << std::flush;
  // The inner coordinates' byte offsets (2-byte elements): the GPU faults
  // unless both (the store's only where it stores) are multiples of 16.
  bool loadAligned = c.x * 2 % 16 == 0;
  bool storeAligned = !c.store || c.ox * 2 % 16 == 0;
  if (!loadAligned || !storeAligned) {
    std::string why =
        !loadAligned ? "the load's inner coordinate " + std::to_string(c.x) +
                           " (" + std::to_string(c.x * 2) + " bytes)"
                     : "the store's inner coordinate " + std::to_string(c.ox) +
                           " (" + std::to_string(c.ox * 2) + " bytes)";
    std::cout << "tma box variant " << name << ": a fault is expected: " << why
              << " is not a multiple of 16 bytes\n"
              << std::flush;
    ASSERT_FALSE(result.ok)
        << "expected a fault: " << why << " is not a multiple of 16 bytes";
#ifdef GMM_NVCC_ON_GPU
    EXPECT_NE(result.message.find("CUDA_ERROR_ILLEGAL_INSTRUCTION"),
              std::string::npos)
        << result.message;
#else
    EXPECT_EQ(result.kind, FindingKind::TmaMisuse) << result.message;
    std::string finding =
        std::string(!loadAligned ? "cp.async.bulk.tensor load"
                                 : "cp.async.bulk.tensor store") +
        ": the innermost box coordinate " +
        std::to_string(!loadAligned ? c.x : c.ox) + " (byte offset " +
        std::to_string((!loadAligned ? c.x : c.ox) * 2) +
        ", 2-byte elements) is not a multiple of 16 bytes; the GPU raises an "
        "illegal instruction";
    EXPECT_NE(result.message.find(finding), std::string::npos)
        << result.message;
#endif
    return;
  }
  ASSERT_LAUNCHED(result);
  std::memcpy(out.data(),
              run.device.hostPointer(outBuf.address, out.size() * 2),
              out.size() * 2);
  std::memcpy(raw.data(),
              run.device.hostPointer(rawBuf.address, raw.size() * 2),
              raw.size() * 2);
  // Element (r, j) of the box, incremented.
  auto box = [&](int r, int j) {
    int gx = c.x + j, gy = c.y + r;
    uint16_t loaded = gx >= 0 && gx < inW && gy >= 0 && gy < inH
                          ? in[size_t(gy) * c.inPitch + gx]
                          : uint16_t(0);
    return static_cast<uint16_t>(loaded + 1);
  };
  Mismatches mismatches;
  // The tile starts on a 1024-byte boundary: with the 128-byte swizzle the
  // 16-byte chunk k of row r lies at chunk k ^ (r % 8).
  for (int r = 0; r < 8; ++r)
    for (int j = 0; j < 64; ++j) {
      int at16 =
          c.swizzle == kSwizzle128B ? ((j / 8) ^ (r % 8)) * 8 + j % 8 : j;
      mismatches.expectEq("shared-memory box", raw[r * 64 + at16], box(r, j),
                          "box" + at(r, j));
    }
  for (int yy = 0; yy < outH; ++yy)
    for (int xx = 0; xx < outW; ++xx) {
      uint16_t want = 0x5555;
      int bx = xx - c.ox, by = yy - c.oy;
      if (c.store && bx >= 0 && bx < 64 && by >= 0 && by < 8)
        want = box(by, bx);
      mismatches.expectEq("out", out[yy * outW + xx], want, "out" + at(yy, xx));
    }
  mismatches.report();
}

/// The variants' suite: instantiated for sm_90 PTX only (below), so that
/// the GPU check, a process a test, starts no process for other targets.
class NvccKernelsTmaBox : public NvccKernels {};

#define GMM_TMA_BOX_VARIANT(Name, ...)                                         \
  TEST_P(NvccKernelsTmaBox, TmaBoxVariant_##Name) {                            \
    if (GetParam().arch < 90)                                                  \
      GTEST_SKIP() << "TMA needs sm_90";                                       \
    TmaBoxCase c;                                                              \
    __VA_ARGS__;                                                               \
    checkTmaBoxVariant(*run, #Name, c);                                        \
  }

// The failing case, through tma_box_variant: faults as
// TmaBoxThroughSharedMemory did at these coordinates.
GMM_TMA_BOX_VARIANT(Baseline, )
// No TMA store: the load (and the generic-proxy copy to `raw`) only.
GMM_TMA_BOX_VARIANT(LoadOnly, c.store = false)
// The load's inner coordinate 64 (byte offset 128, 16-byte aligned) instead
// of 60 (120 bytes); the store's stays at 20 (40 bytes, not aligned).
GMM_TMA_BOX_VARIANT(LoadX64, c.x = 64)
// No store and the load at x = 64: the load alone with an aligned start.
GMM_TMA_BOX_VARIANT(LoadOnlyX64, c.store = false; c.x = 64)
// The store's inner coordinate 16 (32 bytes) instead of 20 (40 bytes).
GMM_TMA_BOX_VARIANT(StoreX16, c.ox = 16)
// Both inner coordinates 16-byte aligned (load x = 64, store x = 16).
GMM_TMA_BOX_VARIANT(LoadX64StoreX16, c.x = 64; c.ox = 16)
// Both 16-byte aligned, the load's not on the swizzle span (x = 56: 112
// bytes): is the rule 16 bytes or 128? (16: it launches.)
GMM_TMA_BOX_VARIANT(LoadX56StoreX16, c.x = 56; c.ox = 16)
// Both boxes inside their tensors, at (0, 0): aligned and in bounds.
GMM_TMA_BOX_VARIANT(InBounds, c.x = c.y = c.ox = c.oy = 0)
// Both boxes inside their tensors, at (4, 2): in bounds, inner coordinates
// 8 bytes (not 16-byte aligned).
GMM_TMA_BOX_VARIANT(InBoundsUnaligned, c.x = c.ox = 4; c.y = c.oy = 2)
// No swizzle (both maps), the failing coordinates.
GMM_TMA_BOX_VARIANT(NoSwizzle, c.swizzle = kSwizzleNone)
// f16 maps (the same bytes), the failing coordinates.
GMM_TMA_BOX_VARIANT(F16, c.dataType = 6)
// bf16 maps (the same bytes), the failing coordinates.
GMM_TMA_BOX_VARIANT(BF16, c.dataType = 9)
// `in` with a pitch of 256 bytes instead of 208.
GMM_TMA_BOX_VARIANT(Pitch256, c.inPitch = 128)

#undef GMM_TMA_BOX_VARIANT

TEST_P(NvccKernels, WarpSpecializedRingWithSetMaxNReg) {
  if (std::string(GetParam().name) != "sm_90a")
    GTEST_SKIP() << "setmaxnreg needs sm_90a";
  constexpr int kTiles = 5;
  std::vector<float> in(16 * kTiles * 32);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<float>(static_cast<int>(i * 29 % 61) - 30);
  Buffer &inBuf = buffer(in);
  Buffer &out = zeros(128 * sizeof(float));
  Kernel *kernel = run->module->kernel("warp_specialized_ring");
  ASSERT_NE(kernel, nullptr);
  const std::vector<KernelParam> &p = kernel->params();
  alignas(64) uint8_t params[256] = {};
  TiledTensorMapArgs a;
  a.dataType = 7; // FLOAT32
  a.rank = 2;
  a.globalAddress = inBuf.address;
  a.globalDim[0] = 32;
  a.globalDim[1] = 16 * kTiles;
  a.globalStrides[0] = 32 * 4;
  a.boxDim[0] = 32;
  a.boxDim[1] = 16;
  a.elementStrides[0] = a.elementStrides[1] = 1;
  std::string error;
  ASSERT_EQ(encodeTiledTensorMap(a, params + p[0].offset, error),
            TensorMapError::None)
      << error;
  int32_t tiles = kTiles;
  std::memcpy(params + p[1].offset, &tiles, 4);
  std::memcpy(params + p[2].offset, &out.address, 8);
  for (Buffer *b : {&inBuf, &out})
    std::memcpy(run->device.hostPointer(b->address, b->bytes.size()),
                b->bytes.data(), b->bytes.size());
  LaunchConfig config;
  config.block = {256, 1, 1};
  LaunchResult result = run->device.launch(*kernel, config, params);
  ASSERT_LAUNCHED(result);
  Mismatches mismatches;
  for (int c = 0; c < 128; ++c) {
    float want = 0;
    for (int t = 0; t < kTiles; ++t)
      for (int e = 0; e < 4; ++e)
        want += in[t * 512 + 4 * c + e];
    mismatches.expectEq("out",
                        *reinterpret_cast<const float *>(
                            run->device.hostPointer(out.address + 4 * c, 4)),
                        want, "out" + at(c));
  }
  mismatches.report();
}

TEST_P(NvccKernels, StmatrixLaysOutFragments) {
  if (GetParam().arch < 90)
    GTEST_SKIP() << "stmatrix needs sm_90";
  for (int trans = 0; trans < 2; ++trans) {
    Buffer &out = zeros(512);
    LaunchResult result = run->launch("stmatrix_x4", {1, 1, 1}, {32, 1, 1},
                                      {out.address, uint64_t(trans)});
    ASSERT_LAUNCHED(result);
    Mismatches mismatches;
    for (int i = 0; i < 4; ++i)
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c) {
          // Matrix i, row r, column c; transposed, element (c, r).
          uint16_t want = static_cast<uint16_t>(trans ? 64 * i + 8 * c + r
                                                      : 64 * i + 8 * r + c);
          mismatches.expectEq("tile", out.get<uint16_t>(64 * i + 8 * r + c),
                              want, "matrix " + std::to_string(i) + at(r, c));
        }
    mismatches.report();
  }
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// Copies the run's buffers to the device, launches `kernel` on the
/// parameter bytes `params`, and copies the buffers back.
LaunchResult launchWithParams(SimRun &run, Kernel &kernel,
                              const LaunchConfig &config,
                              const uint8_t *params) {
  for (Buffer &b : run.buffers)
    std::memcpy(run.device.hostPointer(b.address, b.bytes.size()),
                b.bytes.data(), b.bytes.size());
  LaunchResult result = run.device.launch(kernel, config, params);
  for (Buffer &b : run.buffers)
    std::memcpy(b.bytes.data(),
                run.device.hostPointer(b.address, b.bytes.size()),
                b.bytes.size());
  return result;
}

/// The multiplicands of a 64 x n x k wgmma test: A (64 x k) and B^T (n x k),
/// row-major, as values and as `bf16` or f16 bits: eighths with up to 6
/// significant bits for bf16, 8 for f16 (exact in either), so that every
/// sum of up to 64 products is exact in f32 whatever the order.
struct WgmmaOperands {
  std::vector<float> a, bt;
  std::vector<uint16_t> aBits, btBits;

  WgmmaOperands(int n, int k, bool bf16, uint32_t seed) {
    Random random(seed);
    int range = bf16 ? 63 : 255;
    auto fill = [&](std::vector<float> &values, std::vector<uint16_t> &bits,
                    size_t count) {
      for (size_t i = 0; i < count; ++i) {
        float x = random.range(-range, range) * 0.125f;
        values.push_back(x);
        bits.push_back(bf16 ? bf16BitsRN(x) : halfBitsRN(x));
      }
    };
    fill(a, aBits, size_t(64) * k);
    fill(bt, btBits, size_t(n) * k);
  }

  /// Compares D (64 x n, row-major f32, in `d`) with A * B.
  void check(const Buffer &d, int n, int k, const std::string &label) const {
    Mismatches mismatches;
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < n; ++j) {
        double want = 0;
        for (int kk = 0; kk < k; ++kk)
          want += double(a[i * k + kk]) * bt[j * k + kk];
        mismatches.expectEq(label, d.get<float>(size_t(i) * n + j),
                            static_cast<float>(want), label + " D" + at(i, j));
      }
    mismatches.report();
  }
};

TEST_P(NvccKernels, WgmmaM64N256K16Swizzled128FromTma) {
  if (std::string(GetParam().name) != "sm_90a")
    GTEST_SKIP() << "wgmma needs sm_90a";
  // k = 16: one wgmma over the first 32 bytes of each 128-byte row (the
  // rest of the box is the zeros beyond the tensor); k = 64: four, chained
  // on the accumulators, the descriptors' start 32 bytes further each time
  // inside the swizzle pattern.
  for (bool bf16 : {true, false})
    for (int k : {16, 64}) {
      std::string label =
          std::string(bf16 ? "bf16" : "f16") + " k=" + std::to_string(k);
      SCOPED_TRACE(label);
      constexpr int N = 256;
      WgmmaOperands operands(N, k, bf16, 100 + k + bf16);
      Buffer &aBuf = buffer(operands.aBits);
      Buffer &bBuf = buffer(operands.btBits);
      Buffer &dBuf = buffer(std::vector<float>(64 * N, -12345.0f));
      Kernel *kernel =
          run->module->kernel(bf16 ? "wgmma_sw128_bf16" : "wgmma_sw128_f16");
      ASSERT_NE(kernel, nullptr);
      const std::vector<KernelParam> &p = kernel->params();
      ASSERT_EQ(p.size(), 4u);
      alignas(128) uint8_t params[512] = {};
      ASSERT_LE(kernel->paramBufferBytes(), sizeof(params));
      // Rows of k elements; a box of 64 along K (128 bytes, the swizzle's
      // span) by `rows`.
      auto encode = [&](uint64_t address, uint32_t rows, uint8_t *map) {
        TiledTensorMapArgs m;
        m.dataType = bf16 ? 9 : 6; // BFLOAT16 : FLOAT16
        m.rank = 2;
        m.globalAddress = address;
        m.globalDim[0] = k;
        m.globalDim[1] = rows;
        m.globalStrides[0] = k * 2;
        m.boxDim[0] = 64;
        m.boxDim[1] = rows;
        m.elementStrides[0] = m.elementStrides[1] = 1;
        m.swizzle = kSwizzle128B;
        std::string error;
        EXPECT_EQ(encodeTiledTensorMap(m, map, error), TensorMapError::None)
            << error;
      };
      encode(aBuf.address, 64, params + p[0].offset);
      encode(bBuf.address, N, params + p[1].offset);
      int32_t kParam = k;
      std::memcpy(params + p[2].offset, &kParam, 4);
      std::memcpy(params + p[3].offset, &dBuf.address, 8);
      LaunchConfig config;
      config.block = {128, 1, 1};
      LaunchResult result = launchWithParams(*run, *kernel, config, params);
      ASSERT_LAUNCHED(result);
      operands.check(dBuf, N, k, label);
    }
}

TEST_P(NvccKernels, WgmmaM64N64K16Interleaved) {
  if (std::string(GetParam().name) != "sm_90a")
    GTEST_SKIP() << "wgmma needs sm_90a";
  // No swizzle: 8 x 16-byte core matrices, A's LBO 128 and SBO k / 8 * 128,
  // B's LBO 1024 and SBO 128 (the two offsets swapped would read the wrong
  // core matrices); k = 32 and 64 chain 2 and 4 wgmma.
  for (bool bf16 : {true, false})
    for (int k : {16, 32, 64}) {
      std::string label =
          std::string(bf16 ? "bf16" : "f16") + " k=" + std::to_string(k);
      SCOPED_TRACE(label);
      constexpr int N = 64;
      WgmmaOperands operands(N, k, bf16, 200 + k + bf16);
      Buffer &aBuf = buffer(operands.aBits);
      Buffer &bBuf = buffer(operands.btBits);
      Buffer &dBuf = buffer(std::vector<float>(64 * N, -12345.0f));
      LaunchResult result = run->launch(
          bf16 ? "wgmma_interleave_bf16" : "wgmma_interleave_f16", {1, 1, 1},
          {128, 1, 1}, {aBuf.address, bBuf.address, uint64_t(k), dBuf.address});
      ASSERT_LAUNCHED(result);
      operands.check(dBuf, N, k, label);
    }
}

/// The wgmma descriptor's base offset (bits 49-51; the PTX ISA's "matrix
/// descriptor": for a swizzled layout whose pattern does not start on its
/// repeat boundary, 1024 bytes for the 128-byte swizzle, base offset =
/// (start >> 7) & 7), which the ISA gives without saying how the unit
/// combines it with the address. A (64 x 64 bf16, K-major, 128-byte
/// swizzle) sits 128 p bytes past a 1024-byte boundary for p = 1 .. 7 (the
/// ISA's base offset p; B^T on a boundary, base offset 0: the same
/// permutation of K in both operands would not change A * B), laid out by
/// the host under the two candidate rules for the phase of the 16-byte
/// chunks of the tile row at shared address `addr`,
///   minus: ((addr >> 7) - base offset) & 7 (the pattern relative to its
///          start),
///   xor:   ((addr >> 7) ^ base offset) & 7,
/// which agree only at p = 4 (adding 4 mod 8 is XOR 4), and by absolute
/// address (phase (addr >> 7) & 7), run with base offset p (and 0 for the
/// absolute layout, the control). The test prints what matched at each
/// offset and the rule, and fails unless the minus rule holds at every
/// offset and the xor rule does not: what an H200 answered (2026-11-28)
/// and what the simulator models.
TEST_P(NvccKernels, WgmmaBaseOffsetRule) {
  if (std::string(GetParam().name) != "sm_90a")
    GTEST_SKIP() << "wgmma needs sm_90a";
  constexpr int N = 64, K = 64;
  WgmmaOperands operands(N, K, /*bf16=*/true, 301);
  enum Layout { Absolute, Minus, Xor };
  const char *const layoutNames[] = {"absolute", "minus", "xor"};
  // The phase of row r of A at 128 p mod 1024 (base offset p) under a
  // layout: (addr >> 7) & 7 is (p + r) & 7.
  auto phase = [](Layout layout, unsigned p, unsigned r) -> unsigned {
    unsigned row = (p + r) & 7;
    return layout == Absolute ? row : layout == Minus ? (row - p) & 7 : row ^ p;
  };
  // A tile (rows x 128 bytes) with row r's chunk c (elements 8 c .. 8 c +
  // 7) at chunk c ^ phase(r).
  auto image = [&](const std::vector<uint16_t> &bits, Layout layout,
                   unsigned p) {
    std::vector<uint16_t> tile(size_t(64) * 64);
    for (unsigned r = 0; r < 64; ++r)
      for (unsigned c = 0; c < 8; ++c)
        for (unsigned e = 0; e < 8; ++e)
          tile[r * 64 + (c ^ phase(layout, p, r)) * 8 + e] =
              bits[r * K + c * 8 + e];
    return tile;
  };
  // The two rules differ wherever p != 4 (and p != 0).
  for (unsigned p = 1; p < 8; ++p)
    EXPECT_EQ(image(operands.aBits, Minus, p) == image(operands.aBits, Xor, p),
              p == 4)
        << "p = " << p;
  // The buffers, made once (and rewritten before each launch: the launch
  // copies every buffer in and back).
  Buffer &aBuf = buffer(std::vector<uint16_t>(64 * 64));
  Buffer &bBuf = buffer(image(operands.btBits, Absolute, 0));
  Buffer &dBuf = buffer(std::vector<float>(64 * N));
  Buffer &where = buffer(std::vector<uint32_t>(2));
  // Elements of D (of 64 x 64) that differ from A * B; -1: the launch
  // failed (the test has failed).
  auto mismatchesOf = [&](Layout layout, unsigned p,
                          unsigned baseOffset) -> int {
    std::vector<uint16_t> a = image(operands.aBits, layout, p);
    std::memcpy(aBuf.bytes.data(), a.data(), a.size() * 2);
    for (int i = 0; i < 64 * N; ++i)
      dBuf.set<float>(i, -12345.0f);
    where.set<uint32_t>(0, ~0u);
    where.set<uint32_t>(1, ~0u);
    LaunchResult result =
        run->launch("wgmma_sw128_base_offset", {1, 1, 1}, {128, 1, 1},
                    {aBuf.address, bBuf.address, uint64_t(128 * p),
                     uint64_t(baseOffset), dBuf.address, where.address});
    EXPECT_TRUE(result.ok) << layoutNames[layout] << " p=" << p
                           << " base offset " << baseOffset << ": "
                           << findingKindName(result.kind) << ": "
                           << result.message;
    if (!result.ok)
      return -1;
    EXPECT_EQ(where.get<uint32_t>(0) % 1024, 128 * p);
    EXPECT_EQ(where.get<uint32_t>(1) % 1024, 0u);
    int count = 0;
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < N; ++j) {
        double want = 0;
        for (int kk = 0; kk < K; ++kk)
          want += double(operands.a[i * K + kk]) * operands.bt[j * K + kk];
        count += dBuf.get<float>(size_t(i) * N + j) != static_cast<float>(want);
      }
    return count;
  };
  auto describe = [](int mismatches) {
    return mismatches == 0  ? std::string("matches")
           : mismatches < 0 ? std::string("launch failed")
                            : std::to_string(mismatches) + " of 4096 differ";
  };
  std::ostringstream report;
  report << "wgmma base offset experiment (the rule): m64n64k16 bf16 x 4, "
            "K-major, 128-byte swizzle, A at 128 p mod 1024 with base offset "
            "p, B^T at 0; minus: phase ((addr >> 7) - p) & 7, xor: "
            "((addr >> 7) ^ p) & 7\n";
  bool minusHolds = true, xorHolds = true, failed = false;
  for (unsigned p = 1; p < 8; ++p) {
    int control = mismatchesOf(Absolute, p, 0);
    int ignored = control < 0 ? -1 : mismatchesOf(Absolute, p, p);
    int minus = ignored < 0 ? -1 : mismatchesOf(Minus, p, p);
    int xorRule = minus < 0 ? -1 : mismatchesOf(Xor, p, p);
    failed |= xorRule < 0;
    EXPECT_EQ(control, 0) << "A at " << 128 * p
                          << ": absolute, base offset 0: " << describe(control);
    EXPECT_GT(ignored, 0) << "A at " << 128 * p << ": absolute, base offset "
                          << p << ": " << describe(ignored);
    report << "  A at " << 128 * p
           << ": absolute, base offset 0: " << describe(control)
           << "; absolute, base offset " << p << ": " << describe(ignored)
           << "; minus, base offset " << p << ": " << describe(minus)
           << "; xor, base offset " << p << ": " << describe(xorRule)
           << (p == 4 ? " (minus = xor here)" : "") << "\n";
    minusHolds &= minus == 0;
    xorHolds &= xorRule == 0;
  }
  if (failed)
    report << "wgmma base offset: the rule is unknown (a launch failed)\n";
  else if (minusHolds && !xorHolds)
    report << "wgmma base offset: the rule is minus: the 16-byte chunk "
              "phase of the row at addr is ((addr >> 7) - base offset) & 7\n";
  else if (xorHolds && !minusHolds)
    report << "wgmma base offset: the rule is xor: the 16-byte chunk phase "
              "of the row at addr is ((addr >> 7) ^ base offset) & 7\n";
  else
    report << "wgmma base offset: neither the minus rule nor the xor rule "
              "holds at every offset\n";
  std::cout << report.str() << std::flush;
  RecordProperty("wgmma_base_offset_rule", report.str());
  EXPECT_TRUE(!failed && minusHolds && !xorHolds) << report.str();
}

//===----------------------------------------------------------------------===//
// Clusters
//===----------------------------------------------------------------------===//

TEST_P(NvccKernels, ClusterMulticastAndDistributedSharedMemory) {
  if (GetParam().arch < 90)
    GTEST_SKIP() << "clusters need sm_90";
  // A 40 x 12 f32 tensor; the 32 x 8 box of cluster 0 at (16, 6) crosses
  // the right and bottom edges, cluster 1's at (-8, 8) the left and bottom
  // ones: zeros there.
  constexpr int W = 40, H = 12, x = 16, y = 6, kBlocks = 4;
  std::vector<float> tensor(W * H);
  for (size_t i = 0; i < tensor.size(); ++i)
    tensor[i] = static_cast<float>(i + 1);
  Buffer &inBuf = buffer(tensor);
  Buffer &out = buffer(std::vector<float>(kBlocks * 256, -1.0f));
  Buffer &peer = buffer(std::vector<float>(kBlocks * 128, -1.0f));
  Kernel *kernel = run->module->kernel("cluster_multicast");
  ASSERT_NE(kernel, nullptr);
  const std::vector<KernelParam> &p = kernel->params();
  ASSERT_EQ(p.size(), 5u);
  alignas(128) uint8_t params[512] = {};
  ASSERT_LE(kernel->paramBufferBytes(), sizeof(params));
  TiledTensorMapArgs m;
  m.dataType = 7; // FLOAT32
  m.rank = 2;
  m.globalAddress = inBuf.address;
  m.globalDim[0] = W;
  m.globalDim[1] = H;
  m.globalStrides[0] = W * 4;
  m.boxDim[0] = 32;
  m.boxDim[1] = 8;
  m.elementStrides[0] = m.elementStrides[1] = 1;
  std::string error;
  ASSERT_EQ(encodeTiledTensorMap(m, params + p[0].offset, error),
            TensorMapError::None)
      << error;
  int32_t coords[2] = {x, y};
  std::memcpy(params + p[1].offset, &coords[0], 4);
  std::memcpy(params + p[2].offset, &coords[1], 4);
  std::memcpy(params + p[3].offset, &out.address, 8);
  std::memcpy(params + p[4].offset, &peer.address, 8);
  LaunchConfig config;
  config.grid = {kBlocks, 1, 1};
  config.block = {128, 1, 1};
  config.cluster = {2, 1, 1};
  LaunchResult result = launchWithParams(*run, *kernel, config, params);
  ASSERT_LAUNCHED(result);

  // Element i (row i / 32, column i % 32) of cluster c's box.
  auto box = [&](int c, int i) {
    int gx = x - 24 * c + i % 32, gy = y + 2 * c + i / 32;
    return gx >= 0 && gx < W && gy >= 0 && gy < H ? tensor[gy * W + gx] : 0.0f;
  };
  Mismatches mismatches;
  for (int b = 0; b < kBlocks; ++b) {
    int c = b / 2, rank = b % 2;
    for (int i = 0; i < 256; ++i)
      mismatches.expectEq("out", out.get<float>(256 * b + i),
                          box(c, i) + 100.0f * (rank + 1),
                          "block " + std::to_string(b) + " out" + at(i));
    for (int t = 0; t < 128; ++t)
      mismatches.expectEq("peer", peer.get<float>(128 * b + t),
                          box(c, 2 * ((t + 5) % 128)) * 2.0f + (rank ^ 1),
                          "block " + std::to_string(b) + " peer" + at(t));
  }
  mismatches.report();
}

const PtxTarget kTargets[] = {{"sm_80", GMM_NVCC_PTX, 80},
                              {"sm_90", GMM_NVCC_PTX_SM90, 90},
                              {"sm_90a", GMM_NVCC_PTX_SM90A, 90}};

INSTANTIATE_TEST_SUITE_P(Nvcc, NvccKernels, ::testing::ValuesIn(kTargets),
                         [](const ::testing::TestParamInfo<PtxTarget> &info) {
                           return std::string(info.param.name);
                         });
INSTANTIATE_TEST_SUITE_P(Nvcc, NvccKernelsTmaBox,
                         ::testing::Values(kTargets[1]),
                         [](const ::testing::TestParamInfo<PtxTarget> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
