//===- WgmmaTest.cpp - warpgroup MMA on the simulated GPU -----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// wgmma.mma_async on hand-written sm_90a PTX: the host lays A and B out in
// shared memory as the PTX ISA's canonical layouts describe them (8-row
// core matrices of 16 bytes without swizzle, `leading` bytes apart along K
// and `stride` bytes apart along M/N; rows of the swizzle's span with
// 16-byte chunk c of row r at chunk c ^ (r mod 8, 4, 2); MN-major operands
// with M/N contiguous), builds the matrix descriptors, and checks every
// accumulator register against the product computed here, placed by the
// ISA's fragment figure (thread t, register i: row 16 (t / 32) + (t % 32) /
// 4 + 8 ((i % 4) / 2), column 8 (i / 4) + 2 (t % 4) + i % 2). Values are
// small integers, so that every sum is exact. A descriptor base offset
// (A laid out by the minus rule an H200 showed). And one negative test per
// wgmma check.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtils.h"

#include <algorithm>
#include <cmath>

using namespace gmm::sim;
using namespace gmm::sim::test;

namespace {

uint16_t toHalf(float v) {
  // Exact for the small integers used here.
  if (v == 0)
    return std::signbit(v) ? 0x8000 : 0;
  int e;
  float m = std::frexp(std::fabs(v), &e); // v = m * 2^e, m in [0.5, 1)
  uint16_t mant = static_cast<uint16_t>((m * 2 - 1) * 1024);
  return static_cast<uint16_t>((v < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) |
                               mant);
}
uint16_t toBF16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return static_cast<uint16_t>(bits >> 16);
}
uint32_t toTF32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return bits;
}
uint8_t toE4M3(float v) {
  // Small integers 0..7 and their negatives.
  if (v == 0)
    return 0;
  int e;
  float m = std::frexp(std::fabs(v), &e);
  uint8_t mant = static_cast<uint8_t>((m * 2 - 1) * 8);
  return static_cast<uint8_t>((v < 0 ? 0x80 : 0) | ((e - 1 + 7) << 3) | mant);
}

enum Type { F16, BF16, TF32, E4M3 };

struct Case {
  Type type = BF16;
  unsigned n = 16;
  bool f16Accumulator = false;
  // Layouts: swizzle span in bytes (0: none), MN-major operands.
  unsigned swizzleA = 0, swizzleB = 0;
  bool transposeA = false, transposeB = false;
  bool aInRegisters = false;
  bool accumulate = false;
  bool negateB = false;
  // A's start address, the base offset its descriptor carries, and the
  // base offset its host layout assumes (see Layout).
  uint32_t aStart = 0;
  unsigned aBaseOffset = 0, aLayoutBaseOffset = 0;
};

unsigned bytesOf(Type t) { return t == TF32 ? 4 : t == E4M3 ? 1 : 2; }

/// The canonical layout of an operand (rows = M or N, K columns):
/// `leading` and `stride` as the descriptor holds them.
struct Layout {
  unsigned swizzle = 0; // span bytes, 0 none
  bool mnMajor = false;
  uint32_t start = 0, leading = 0, stride = 0;
  /// The descriptor's base offset (bits 49-51), and the one the host lays
  /// the operand out by: the 16-byte chunk phase of the row at shared
  /// address addr is ((addr >> 7) - layoutBaseOffset) masked to the
  /// swizzle's bits (the rule an H200 showed for the 128-byte swizzle).
  unsigned baseOffset = 0, layoutBaseOffset = 0;

  uint32_t offset(unsigned mn, unsigned k, unsigned eb) const {
    unsigned t = 16 / eb; // elements per 16 bytes
    uint32_t linear;
    if (!mnMajor && !swizzle) {
      // Core matrix (mn / 8, k / t): 8 rows of 16 bytes.
      linear = start + (mn / 8) * stride + (k / t) * leading + (mn % 8) * 16 +
               (k % t) * eb;
    } else if (!mnMajor) {
      // 8-row atoms of `swizzle`-byte rows along M/N.
      linear = start + (mn / 8) * stride + (mn % 8) * swizzle + k * eb;
    } else if (!swizzle) {
      // MN-major without swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)).
      linear = start + (mn % t) * eb + (mn / t) * stride + (k % 8) * 16 +
               (k / 8) * leading;
    } else {
      // Swizzled MN-major: ((T,c,m),(8,k)):((1,T,LBO),(cT,SBO)).
      unsigned run = swizzle / eb; // M/N elements in one row
      linear = start + (mn % run) * eb + (mn / run) * leading +
               (k % 8) * swizzle + (k / 8) * stride;
    }
    if (!swizzle)
      return linear;
    unsigned mask = swizzle == 128 ? 7 : swizzle == 64 ? 3 : 1;
    unsigned row = linear / 128 - layoutBaseOffset, chunk = (linear / 16) % 8;
    return (linear & ~0x7fu) | (((chunk ^ (row & mask)) & 7) << 4) |
           (linear & 15);
  }

  uint64_t descriptor() const {
    uint64_t mode = swizzle == 128  ? 1
                    : swizzle == 64 ? 2
                    : swizzle == 32 ? 3
                                    : 0;
    return uint64_t((start >> 4) & 0x3fff) |
           (uint64_t((leading >> 4) & 0x3fff) << 16) |
           (uint64_t((stride >> 4) & 0x3fff) << 32) |
           (uint64_t(baseOffset & 7) << 49) | (mode << 62);
  }
};

/// A layout for a `rows` x `k` operand at `start`.
Layout layoutFor(unsigned swizzle, bool mnMajor, unsigned rows, unsigned k,
                 unsigned eb, uint32_t start) {
  Layout l;
  l.swizzle = swizzle;
  l.mnMajor = mnMajor;
  l.start = start;
  unsigned kBytes = k * eb;
  if (!mnMajor && !swizzle) {
    l.leading = 128;                // core matrices along K: adjacent
    l.stride = (kBytes / 16) * 128; // 8-row groups after all K
  } else if (!mnMajor) {
    l.stride = 8 * swizzle; // one atom per 8 rows
    l.leading = 16;         // unused
  } else if (!swizzle) {
    unsigned kGroups = (k + 7) / 8;
    l.leading = 8 * 16;          // the next 8 K-rows of 16 bytes
    l.stride = 8 * 16 * kGroups; // the next 16 bytes of M/N after all K
  } else {
    unsigned kGroups = (k + 7) / 8;
    l.stride = 8 * swizzle;            // 8 K-rows of one span
    l.leading = 8 * swizzle * kGroups; // next run of M/N after all K
  }
  (void)rows;
  return l;
}

std::string kernel(const Case &c, unsigned numD) {
  std::string ptx = ptxHeader("sm_90a") + R"(
.visible .entry k(.param .u64 ga, .param .u64 gb, .param .u32 words,
                  .param .u64 da, .param .u64 db, .param .u64 out,
                  .param .u64 gregs)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>, %d<)" +
                    std::to_string(numD) +
                    R"(>, %a<4>;
  .reg .b64 %rd<16>;
  .shared .align 1024 .b8 smem[49152];
  mov.u32 %r0, %tid.x;
  ld.param.u64 %rd0, [ga];
  ld.param.u32 %r1, [words];
  mov.u32 %r2, %r0;
COPY:
  setp.ge.u32 %p0, %r2, %r1;
  @%p0 bra COPIED;
  mul.wide.u32 %rd1, %r2, 4;
  add.s64 %rd2, %rd0, %rd1;
  ld.global.b32 %r3, [%rd2];
  mov.u32 %r4, smem;
  cvt.u32.u64 %r5, %rd1;
  add.u32 %r4, %r4, %r5;
  st.shared.b32 [%r4], %r3;
  add.u32 %r2, %r2, 128;
  bra COPY;
COPIED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  ld.param.u64 %rd3, [da];
  ld.param.u64 %rd4, [db];
  // This thread's registers: initial accumulators, then A fragments.
  ld.param.u64 %rd5, [gregs];
  mul.wide.u32 %rd6, %r0, )" +
                    std::to_string((numD + 4) * 4) + R"(;
  add.s64 %rd7, %rd5, %rd6;
)";
  for (unsigned i = 0; i < numD; ++i)
    ptx += "  ld.global.b32 %d" + std::to_string(i) + ", [%rd7+" +
           std::to_string(4 * i) + "];\n";
  for (unsigned i = 0; i < 4; ++i)
    ptx += "  ld.global.b32 %a" + std::to_string(i) + ", [%rd7+" +
           std::to_string(4 * (numD + i)) + "];\n";
  static const char *const kTypes[] = {"f16", "bf16", "tf32", "e4m3"};
  unsigned k = 32 / bytesOf(c.type);
  std::string shape = "m64n" + std::to_string(c.n) + "k" + std::to_string(k);
  std::string dregs;
  for (unsigned i = 0; i < numD; ++i)
    dregs += std::string(i ? ", " : "") + "%d" + std::to_string(i);
  bool sixteen = c.type == F16 || c.type == BF16;
  std::string a = c.aInRegisters ? "{%a0, %a1, %a2, %a3}" : "%rd3";
  std::string tail = std::string(", 1, ") + (c.negateB ? "-1" : "1");
  if (sixteen)
    tail += c.aInRegisters ? std::string(", ") + (c.transposeB ? "1" : "0")
                           : std::string(", ") + (c.transposeA ? "1" : "0") +
                                 ", " + (c.transposeB ? "1" : "0");
  ptx += "  wgmma.fence.sync.aligned;\n";
  ptx += std::string("  wgmma.mma_async.sync.aligned.") + shape + "." +
         (c.f16Accumulator ? "f16" : "f32") + "." + kTypes[c.type] + "." +
         kTypes[c.type] + " {" + dregs + "}, " + a + ", %rd4, " +
         (c.accumulate ? "1" : "0") + tail + ";\n";
  ptx += "  wgmma.commit_group.sync.aligned;\n";
  ptx += "  wgmma.wait_group.sync.aligned 0;\n";
  ptx += R"(  ld.param.u64 %rd8, [out];
  mul.wide.u32 %rd9, %r0, )" +
         std::to_string(numD * 4) + R"(;
  add.s64 %rd10, %rd8, %rd9;
)";
  for (unsigned i = 0; i < numD; ++i)
    ptx += "  st.global.b32 [%rd10+" + std::to_string(4 * i) + "], %d" +
           std::to_string(i) + ";\n";
  ptx += "  ret;\n}\n";
  return ptx;
}

void encode(Type t, float v, uint8_t *p) {
  switch (t) {
  case F16: {
    uint16_t h = toHalf(v);
    std::memcpy(p, &h, 2);
    break;
  }
  case BF16: {
    uint16_t h = toBF16(v);
    std::memcpy(p, &h, 2);
    break;
  }
  case TF32: {
    uint32_t w = toTF32(v);
    std::memcpy(p, &w, 4);
    break;
  }
  case E4M3:
    *p = toE4M3(v);
    break;
  }
}

float halfValue(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float v = e ? std::ldexp(1024.0f + m, e - 25) : std::ldexp(float(m), -24);
  return (h & 0x8000) ? -v : v;
}

/// Runs `c` and checks every result; with `mismatchCount`, counts the
/// results that differ from the product there instead of failing; with
/// `launched`, gives the launch's result there (and stops if it failed).
void runCase(const Case &c, int *mismatchCount = nullptr,
             LaunchResult *launched = nullptr) {
  unsigned eb = bytesOf(c.type), k = 32 / eb, n = c.n;
  unsigned numD = c.f16Accumulator ? n / 4 : n / 2;
  // Values: A in [-3, 3], B in [-2, 2], C in [-8, 8]: exact everywhere.
  std::vector<float> av(64 * k), bv(k * n), cv(64 * n);
  for (unsigned i = 0; i < av.size(); ++i)
    av[i] = float(int((i * 13 + i / 7 + 3) % 7) - 3);
  for (unsigned i = 0; i < bv.size(); ++i)
    bv[i] = float(int((i * 3 + i / 5 + 1) % 5) - 2);
  for (unsigned i = 0; i < cv.size(); ++i)
    cv[i] = float(int((i * 11 + 5) % 17) - 8);
  std::vector<uint8_t> image(49152, 0);
  Layout la = layoutFor(c.swizzleA, c.transposeA, 64, k, eb, c.aStart);
  la.baseOffset = c.aBaseOffset;
  la.layoutBaseOffset = c.aLayoutBaseOffset;
  Layout lb = layoutFor(c.swizzleB, c.transposeB, n, k, eb, 16384);
  uint32_t used = 0;
  for (unsigned m = 0; m < 64; ++m)
    for (unsigned kk = 0; kk < k; ++kk) {
      uint32_t at = la.offset(m, kk, eb);
      encode(c.type, av[m * k + kk], &image[at]);
      used = std::max(used, at + eb);
    }
  for (unsigned j = 0; j < n; ++j)
    for (unsigned kk = 0; kk < k; ++kk) {
      uint32_t at = lb.offset(j, kk, eb);
      ASSERT_LE(at + eb, image.size());
      encode(c.type, bv[kk * n + j], &image[at]);
      used = std::max(used, at + eb);
    }
  // Registers: initial D and A fragments (mma.m16nXk layout per warp).
  std::vector<uint32_t> regs(128 * (numD + 4), 0);
  auto dPlace = [&](unsigned t, unsigned i, unsigned e, unsigned &row,
                    unsigned &col) {
    unsigned w = t / 32, l = t % 32;
    if (c.f16Accumulator) {
      row = 16 * w + l / 4 + 8 * (i % 2);
      col = 8 * (i / 2) + 2 * (l % 4) + e;
    } else {
      row = 16 * w + l / 4 + 8 * ((i % 4) / 2);
      col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
    }
  };
  for (unsigned t = 0; t < 128; ++t) {
    for (unsigned i = 0; i < numD; ++i) {
      unsigned row, col;
      if (c.f16Accumulator) {
        uint32_t word = 0;
        for (unsigned e = 0; e < 2; ++e) {
          dPlace(t, i, e, row, col);
          word |= uint32_t(toHalf(cv[row * n + col])) << (16 * e);
        }
        regs[t * (numD + 4) + i] = word;
      } else {
        dPlace(t, i, 0, row, col);
        float v = cv[row * n + col];
        std::memcpy(&regs[t * (numD + 4) + i], &v, 4);
      }
    }
    unsigned w = t / 32, l = t % 32, g = l / 4, q = l % 4;
    for (unsigned r = 0; r < 4; ++r) {
      unsigned row = 16 * w + g + 8 * (r % 2);
      unsigned per = 4 / eb;
      unsigned col0 = eb == 2   ? 2 * q + 8 * (r / 2)
                      : eb == 4 ? q + 4 * (r / 2)
                                : 4 * q + 16 * (r / 2);
      uint8_t bytes[4] = {};
      for (unsigned e = 0; e < per; ++e)
        encode(c.type, av[row * k + col0 + e], bytes + e * eb);
      std::memcpy(&regs[t * (numD + 4) + numD + r], bytes, 4);
    }
  }
  SimRun sim;
  ASSERT_TRUE(sim.load(kernel(c, numD))) << sim.loadLog;
  image.resize((std::max(used, 16384u + 1) + 3) / 4 * 4);
  Buffer &g = sim.buffer(image);
  Buffer &gregs = sim.buffer(regs);
  Buffer &out = sim.buffer(128 * numD * 4);
  LaunchResult r =
      sim.launch("k", {1, 1, 1}, {128, 1, 1},
                 {g.address, 0, uint64_t(image.size() / 4), la.descriptor(),
                  lb.descriptor(), out.address, gregs.address});
  if (launched) {
    *launched = r;
    if (!r.ok)
      return;
  }
  ASSERT_TRUE(r.ok) << r.message;
  int mismatches = 0;
  if (mismatchCount)
    *mismatchCount = 0;
  for (unsigned t = 0; t < 128 && (mismatchCount || mismatches < 8); ++t)
    for (unsigned i = 0; i < numD && (mismatchCount || mismatches < 8); ++i)
      for (unsigned e = 0; e < (c.f16Accumulator ? 2u : 1u); ++e) {
        unsigned row, col;
        dPlace(t, i, e, row, col);
        double want = c.accumulate ? cv[row * n + col] : 0;
        for (unsigned kk = 0; kk < k; ++kk)
          want += double(av[row * k + kk]) * bv[kk * n + col] *
                  (c.negateB ? -1 : 1);
        uint32_t word = out.get<uint32_t>(t * numD + i);
        float got;
        if (c.f16Accumulator)
          got = halfValue(static_cast<uint16_t>(word >> (16 * e)));
        else
          std::memcpy(&got, &word, 4);
        if (got != float(want) && mismatchCount) {
          ++*mismatchCount;
        } else if (got != float(want)) {
          ADD_FAILURE() << "thread " << t << " register " << i << " (row "
                        << row << ", column " << col << "): got " << got
                        << ", want " << want;
          ++mismatches;
        }
      }
}

TEST(Wgmma, KMajorWithoutSwizzle) {
  Case c;
  c.type = BF16;
  c.n = 16;
  runCase(c);
  c.accumulate = true;
  runCase(c);
}

TEST(Wgmma, KMajorSwizzlesAndTheWidestN) {
  Case c;
  c.type = F16;
  c.n = 256;
  c.swizzleA = c.swizzleB = 128;
  c.accumulate = true;
  runCase(c);
  c.n = 24;
  c.swizzleA = 64;
  c.swizzleB = 32;
  runCase(c);
}

TEST(Wgmma, MNMajorOperands) {
  Case c;
  c.type = BF16;
  c.n = 64;
  c.transposeB = true;
  c.swizzleA = 128;
  c.swizzleB = 128;
  runCase(c);
  c.transposeA = true;
  c.swizzleA = 64;
  c.swizzleB = 0;
  c.n = 32;
  runCase(c);
}

TEST(Wgmma, AFromRegistersAndNegatedB) {
  Case c;
  c.type = BF16;
  c.n = 32;
  c.aInRegisters = true;
  c.swizzleB = 64;
  c.negateB = true;
  c.accumulate = true;
  runCase(c);
}

TEST(Wgmma, OtherTypesAndHalfAccumulators) {
  Case c;
  c.type = TF32;
  c.n = 16;
  c.swizzleA = c.swizzleB = 128;
  runCase(c);
  c.aInRegisters = true;
  runCase(c);
  c.type = E4M3;
  c.n = 16;
  runCase(c);
  c.aInRegisters = false;
  runCase(c);
  c.type = F16;
  c.f16Accumulator = true;
  c.accumulate = true;
  c.swizzleA = c.swizzleB = 0;
  runCase(c);
}

std::string hazardKernel(const std::string &between, bool fence = true) {
  return ptxHeader("sm_90a") + R"(
.visible .entry k(.param .u64 da, .param .u64 db)
{
  .reg .b32 %d<4>, %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 1024 .b8 smem[4096];
  mov.u32 %r0, %tid.x;
  shl.b32 %r1, %r0, 2;
  mov.u32 %r2, smem;
  add.u32 %r2, %r2, %r1;
  st.shared.b32 [%r2], 0;
)" + (fence ? "  fence.proxy.async.shared::cta;\n" : "") +
         R"(
  bar.sync 0;
  ld.param.u64 %rd0, [da];
  ld.param.u64 %rd1, [db];
  mov.b32 %d0, 0;
  mov.b32 %d1, 0;
  mov.b32 %d2, 0;
  mov.b32 %d3, 0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, %rd0, %rd1, 1, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
)" + between +
         R"(
  wgmma.wait_group.sync.aligned 0;
  ret;
}
)";
}

LaunchResult runHazard(const std::string &ptx, unsigned threads,
                       uint64_t da = 0, uint64_t db = 0) {
  SimRun sim;
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  return sim.launch("k", {1, 1, 1}, {threads, 1, 1}, {da, db});
}

TEST(Wgmma, DescriptorBaseOffset) {
  // A (K-major, 128-byte swizzle) 384 bytes past a 1024-byte boundary with
  // the ISA's base offset 3 ((384 >> 7) & 7): the hardware (an H200,
  // NvccKernelsTest.cpp's WgmmaBaseOffsetRule) swizzles the row at shared
  // address addr by the phase ((addr >> 7) - 3) & 7, i.e. relative to A's
  // start here. A laid out so gives A * B.
  Case c;
  c.type = BF16;
  c.n = 64;
  c.swizzleA = c.swizzleB = 128;
  c.aStart = 384;
  c.aBaseOffset = c.aLayoutBaseOffset = 3;
  runCase(c);
  // A laid out by absolute address (phase (addr >> 7) & 7) with base
  // offset 3: another product. With base offset 0 it is A * B again.
  int mismatches = -1;
  c.aLayoutBaseOffset = 0;
  runCase(c, &mismatches);
  EXPECT_GT(mismatches, 0) << "absolute layout, base offset 3";
  c.aBaseOffset = 0;
  runCase(c);
  // The 64- and 32-byte swizzles by the same rule (phase masked to 2 and 1
  // bits; by analogy, not measured): A at 128 with base offset 1, and at
  // 384 with base offset 3.
  c.n = 16;
  c.swizzleA = 64;
  c.aStart = 128;
  c.aBaseOffset = c.aLayoutBaseOffset = 1;
  runCase(c);
  c.swizzleA = 32;
  c.aStart = 384;
  c.aBaseOffset = c.aLayoutBaseOffset = 3;
  runCase(c);
  c.aLayoutBaseOffset = 0;
  runCase(c, &mismatches);
  EXPECT_GT(mismatches, 0) << "32-byte swizzle, absolute layout, base "
                              "offset 3";
}

TEST(WgmmaChecks, BaseOffsetWithoutSwizzle) {
  Case c;
  c.type = BF16;
  c.n = 16;
  c.aBaseOffset = 2;
  LaunchResult r;
  runCase(c, nullptr, &r);
  expectFinding(r, FindingKind::Unsupported,
                "wgmma matrix descriptor with a base offset of 2 and no "
                "swizzle");
}

TEST(WgmmaChecks, AccumulatorWrittenBeforeTheWait) {
  LaunchResult r =
      runHazard(hazardKernel("  add.f32 %d1, %d1, 0f3F800000;\n"), 128);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::WgmmaHazard) << r.message;
  EXPECT_NE(r.message.find("an accumulator register of an in-flight "
                           "wgmma.mma_async was written before the "
                           "wgmma.wait_group that covers it"),
            std::string::npos)
      << r.message;
}

TEST(WgmmaChecks, OperandsWrittenWithoutTheProxyFence) {
  LaunchResult r = runHazard(hazardKernel("", /*fence=*/false), 128);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::SharedRace) << r.message;
  EXPECT_NE(r.message.find("wgmma.mma_async reads shared byte 0, which thread "
                           "(0,0,0) wrote through the generic proxy with no "
                           "fence.proxy.async after it"),
            std::string::npos)
      << r.message;
}

TEST(WgmmaChecks, NoFenceBeforeTheFirstMma) {
  std::string ptx = hazardKernel("");
  size_t at = ptx.find("  wgmma.fence.sync.aligned;\n");
  ASSERT_NE(at, std::string::npos);
  ptx.erase(at, std::strlen("  wgmma.fence.sync.aligned;\n"));
  expectFinding(runHazard(ptx, 128), FindingKind::WgmmaHazard,
                "wgmma.mma_async before any wgmma.fence of its warpgroup");
}

/// 128 threads: lane 0 of each warp runs `laneZero` on its way to a
/// wgmma.fence that the other lanes, branching to it at a lower address,
/// reach first.
LaunchResult runReconverging(const std::string &laneZero) {
  std::string ptx = ptxHeader("sm_90a") + R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r0, %tid.x;
  and.b32 %r1, %r0, 31;
  setp.ne.u32 %p0, %r1, 0;
  bra.uni START;
JOIN:
  wgmma.fence.sync.aligned;
  ret;
START:
  @%p0 bra JOIN;
)" + laneZero + R"(
  bra.uni JOIN;
}
)";
  SimRun sim;
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  return sim.launch("k", {1, 1, 1}, {128, 1, 1}, {});
}

TEST(Wgmma, LanesReconvergeBeforeAnAlignedInstruction) {
  LaunchResult r = runReconverging("  add.u32 %r2, %r0, 1;\n");
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(WgmmaChecks, LanesThatExitBeforeAnAlignedInstruction) {
  // Lanes 1-31 wait for lane 0, which exits: nothing can go on.
  expectFinding(runReconverging("  ret;\n"), FindingKind::Deadlock,
                "warp 0 lanes 1-31 wait for lanes 0 of their warp and the "
                "other warps of warpgroup 0 at this instruction (PTX line 14: "
                "wgmma.fence.sync.aligned); warp 0 lanes 0 exited");
}

TEST(WgmmaChecks, PartialWarpgroup) {
  LaunchResult r = runHazard(hazardKernel(""), 64);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::CollectiveDivergence) << r.message;
  EXPECT_NE(r.message.find("warpgroup instruction in a partial warpgroup"),
            std::string::npos)
      << r.message;
}

TEST(WgmmaChecks, DescriptorsThatDifferBetweenThreads) {
  std::string ptx = hazardKernel("");
  // Thread 40's B descriptor differs.
  size_t at = ptx.find("  wgmma.fence.sync.aligned;");
  ptx.insert(at,
             "  setp.eq.u32 %p0, %r0, 40;\n  @%p0 add.s64 %rd1, %rd1, 16;\n");
  ptx.insert(ptx.find("  .reg .b64 %rd<4>;"), "  .reg .pred %p<2>;\n");
  LaunchResult r = runHazard(ptx, 128);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::WgmmaHazard) << r.message;
  EXPECT_NE(r.message.find("matrix descriptors that differ between the "
                           "threads of the warpgroup"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("thread (40,0,0)"), std::string::npos) << r.message;
}

TEST(WgmmaChecks, NeedsSm90) {
  Options options = SimRun::defaultOptions();
  options.arch = 80;
  SimRun sim(options);
  EXPECT_FALSE(sim.load(hazardKernel("")));
}

/// 384 threads in three warpgroups: warpgroup 0 runs `first`, the others
/// `others` (setmaxnreg instructions), then every thread writes its
/// warpgroup index.
LaunchResult runRegisters(const std::string &first, const std::string &others,
                          std::vector<uint32_t> *written = nullptr) {
  std::string ptx = ptxHeader("sm_90a") + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %tid.x;
  shr.u32 %r1, %r0, 7;
  setp.eq.u32 %p0, %r1, 0;
  @!%p0 bra OTHERS;
)" + first + R"(
  bra DONE;
OTHERS:
)" + others + R"(
DONE:
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";
  SimRun sim;
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(384 * 4);
  LaunchResult r = sim.launch("k", {1, 1, 1}, {384, 1, 1}, {out.address});
  if (written)
    for (unsigned t = 0; t < 384; ++t)
      written->push_back(out.get<uint32_t>(t));
  return r;
}

TEST(SetMaxNReg, ProducerGivesRegistersToConsumers) {
  // 40 + 232 + 232 registers per thread, times 128: 64512 of 65536.
  std::vector<uint32_t> written;
  LaunchResult r =
      runRegisters("  setmaxnreg.dec.sync.aligned.u32 40;\n",
                   "  setmaxnreg.inc.sync.aligned.u32 232;\n", &written);
  ASSERT_TRUE(r.ok) << r.message;
  for (unsigned t = 0; t < 384; ++t)
    EXPECT_EQ(written[t], t / 128) << t;
}

TEST(SetMaxNRegChecks, MoreThanTheRegisterFile) {
  // 40 + 240 + 240: 66560 registers.
  LaunchResult r = runRegisters("  setmaxnreg.dec.sync.aligned.u32 40;\n",
                                "  setmaxnreg.inc.sync.aligned.u32 240;\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("setmaxnreg asks for 66560 registers in all, more "
                           "than the SM's register file of 65536"),
            std::string::npos)
      << r.message;
}

TEST(SetMaxNRegChecks, IncThatLowersTheCount) {
  LaunchResult r = runRegisters("  setmaxnreg.dec.sync.aligned.u32 40;\n"
                                "  setmaxnreg.inc.sync.aligned.u32 32;\n",
                                "");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("setmaxnreg.inc to 32 registers from 40 (.inc "
                           "cannot lower the count)"),
            std::string::npos)
      << r.message;
}

TEST(SetMaxNRegChecks, NotUniformOverTheWarpgroup) {
  // Only warp 0 of warpgroup 0 executes it: it waits for warps 1-3.
  std::string first = "  setp.lt.u32 %p1, %r0, 32;\n"
                      "  @!%p1 bra SKIP;\n"
                      "  setmaxnreg.dec.sync.aligned.u32 40;\n"
                      "SKIP:\n";
  LaunchResult r = runRegisters(first, "");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::Deadlock) << r.message;
  EXPECT_NE(r.message.find("warp 0 lanes 0-31 wait for the other warps of "
                           "warpgroup 0 at this instruction"),
            std::string::npos)
      << r.message;
}

TEST(SetMaxNRegChecks, AWarpOfTheWarpgroupHasExited) {
  // Warp 1 returns at once; the last of warps 0, 2 and 3 to arrive finds it
  // gone.
  std::string first = "  shr.u32 %r2, %r0, 5;\n"
                      "  setp.eq.u32 %p1, %r2, 1;\n"
                      "  @%p1 ret;\n"
                      "  setmaxnreg.dec.sync.aligned.u32 40;\n";
  expectFinding(runRegisters(first, ""), FindingKind::CollectiveDivergence,
                "warpgroup instruction reached while lanes 0-31 of warp 1 of "
                "its warpgroup have exited");
}

TEST(SetMaxNRegChecks, GuardThatDiffersOverTheWarpgroup) {
  std::string first = "  setp.lt.u32 %p1, %r0, 32;\n"
                      "  @%p1 setmaxnreg.dec.sync.aligned.u32 40;\n";
  expectFinding(runRegisters(first, ""), FindingKind::CollectiveDivergence,
                "warpgroup instruction whose guard predicate holds for 32 of "
                "the 128 threads of its warpgroup");
}

TEST(SetMaxNReg, GuardFalseForTheWholeWarpgroupSkipsIt) {
  // Executed, the .inc to 32 after the .dec to 40 would be a finding.
  std::vector<uint32_t> written;
  LaunchResult r = runRegisters("  setmaxnreg.dec.sync.aligned.u32 40;\n"
                                "  setp.gt.u32 %p1, %r0, 1000;\n"
                                "  @%p1 setmaxnreg.inc.sync.aligned.u32 32;\n",
                                "", &written);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(written[0], 0u);
}

TEST(SetMaxNRegChecks, CountOutOfRange) {
  SimRun sim;
  EXPECT_FALSE(sim.load(ptxHeader("sm_90a") + R"(
.visible .entry k()
{
  setmaxnreg.inc.sync.aligned.u32 20;
  ret;
}
)"));
  EXPECT_NE(sim.loadLog.find("must be a multiple of 8 from 24 to 256"),
            std::string::npos)
      << sim.loadLog;
}

} // namespace
