//===- TensorTest.cpp - Fragment layouts and warp-collective instructions -===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The per-lane layouts of ldmatrix and mma.sync, checked on cases computed by
// hand from the PTX ISA's figures (g = laneid / 4, t = laneid % 4), and the
// warp-collective instructions (shfl.sync, vote.sync, redux.sync,
// match.sync).
//
//===----------------------------------------------------------------------===//

#include "SimTestUtils.h"

using namespace gmm::sim;
using namespace gmm::sim::test;

namespace {

/// ldmatrix.x4{.trans} of four 8x8 matrices whose element (m, r, c) is
/// m * 64 + r * 8 + c, rows stored one after the other in shared memory; lane
/// l gives the address of row l % 8 of matrix l / 8. Returns the four
/// registers of every lane.
std::vector<uint32_t> loadMatrices(bool trans) {
  std::string ptx = ptxHeader() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 tile[512];
  mov.u32 %r0, %tid.x;
  // Fill: thread t writes elements 8t .. 8t+7 (row t of the 32 rows).
  shl.b32 %r1, %r0, 4;
  mov.u32 %r2, tile;
  add.u32 %r3, %r2, %r1;
  shl.b32 %r4, %r0, 3;
  add.u32 %r5, %r4, 1;
  shl.b32 %r5, %r5, 16;
  or.b32 %r6, %r4, %r5;
  add.u32 %r7, %r6, 0x00020002;
  add.u32 %r8, %r6, 0x00040004;
  add.u32 %r9, %r6, 0x00060006;
  st.shared.v4.b32 [%r3], {%r6, %r7, %r8, %r9};
  bar.sync 0;
  ldmatrix.sync.aligned.m8n8.x4)" +
                    std::string(trans ? ".trans" : "") +
                    R"(.shared.b16 {%r10, %r11, %r12, %r13}, [%r3];
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r0, 16;
  add.s64 %rd2, %rd0, %rd1;
  st.global.v4.b32 [%rd2], {%r10, %r11, %r12, %r13};
  ret;
}
)";
  SimRun sim;
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(32 * 16);
  LaunchResult r = sim.launch("k", {1, 1, 1}, {32, 1, 1}, {out.address});
  EXPECT_TRUE(r.ok) << r.message;
  std::vector<uint32_t> regs(128);
  std::memcpy(regs.data(), sim.buffers[0].bytes.data(), 512);
  return regs;
}

uint32_t pair(uint32_t lo, uint32_t hi) { return lo | hi << 16; }

TEST(Ldmatrix, RowMajorFragments) {
  std::vector<uint32_t> regs = loadMatrices(false);
  // Lane 0 holds row 0, columns 0 and 1 of each matrix.
  EXPECT_EQ(regs[0 * 4 + 0], pair(0, 1));
  // Lane 5 (g = 1, t = 1), matrix 2: row 1, columns 2 and 3.
  EXPECT_EQ(regs[5 * 4 + 2], pair(138, 139));
  // Lane 31 (g = 7, t = 3), matrix 3: row 7, columns 6 and 7.
  EXPECT_EQ(regs[31 * 4 + 3], pair(254, 255));
  for (int lane = 0; lane < 32; ++lane)
    for (int m = 0; m < 4; ++m) {
      uint32_t base = m * 64 + (lane / 4) * 8 + 2 * (lane % 4);
      EXPECT_EQ(regs[lane * 4 + m], pair(base, base + 1))
          << "lane " << lane << " matrix " << m;
    }
}

TEST(Ldmatrix, TransposedFragments) {
  std::vector<uint32_t> regs = loadMatrices(true);
  // .trans: lane 0 holds rows 0 and 1 of column 0.
  EXPECT_EQ(regs[0 * 4 + 0], pair(0, 8));
  // Lane 5 (g = 1, t = 1), matrix 2: rows 2 and 3 of column 1.
  EXPECT_EQ(regs[5 * 4 + 2], pair(145, 153));
  // Lane 31 (g = 7, t = 3), matrix 3: rows 6 and 7 of column 7.
  EXPECT_EQ(regs[31 * 4 + 3], pair(247, 255));
  for (int lane = 0; lane < 32; ++lane)
    for (int m = 0; m < 4; ++m) {
      uint32_t base = m * 64 + 2 * (lane % 4) * 8 + lane / 4;
      EXPECT_EQ(regs[lane * 4 + m], pair(base, base + 8))
          << "lane " << lane << " matrix " << m;
    }
}

/// Runs `mma` with every lane's a, b registers from `a`/`b` (words per lane:
/// na, nb) and zero accumulators; returns the four f32 results per lane.
std::vector<float> runMma(const char *mma, int na, int nb,
                          const std::vector<uint32_t> &a,
                          const std::vector<uint32_t> &b) {
  std::string aRegs, bRegs;
  for (int i = 0; i < na; ++i)
    aRegs += (i ? ", %a" : "%a") + std::to_string(i);
  for (int i = 0; i < nb; ++i)
    bRegs += (i ? ", %b" : "%b") + std::to_string(i);
  std::string loads;
  for (int i = 0; i < na; ++i)
    loads += "  ld.global.b32 %a" + std::to_string(i) + ", [%rd2+" +
             std::to_string(4 * i) + "];\n";
  for (int i = 0; i < nb; ++i)
    loads += "  ld.global.b32 %b" + std::to_string(i) + ", [%rd4+" +
             std::to_string(4 * i) + "];\n";
  std::string ptx = ptxHeader() + R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
  .reg .b32 %r<4>, %a<4>, %b<2>;
  .reg .f32 %d<4>;
  .reg .b64 %rd<8>;
  mov.u32 %r0, %tid.x;
  ld.param.u64 %rd0, [pa];
  mul.wide.u32 %rd1, %r0, )" +
                    std::to_string(4 * na) + R"(;
  add.s64 %rd2, %rd0, %rd1;
  ld.param.u64 %rd0, [pb];
  mul.wide.u32 %rd3, %r0, )" +
                    std::to_string(4 * nb) + R"(;
  add.s64 %rd4, %rd0, %rd3;
)" + loads + "  " + mma +
                    " {%d0, %d1, %d2, %d3}, {" + aRegs + "}, {" + bRegs +
                    R"(}, {0f00000000, 0f00000000, 0f00000000, 0f00000000};
  ld.param.u64 %rd0, [pd];
  mul.wide.u32 %rd5, %r0, 16;
  add.s64 %rd6, %rd0, %rd5;
  st.global.v4.f32 [%rd6], {%d0, %d1, %d2, %d3};
  ret;
}
)";
  SimRun sim;
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &ba = sim.buffer(a);
  Buffer &bb = sim.buffer(b);
  Buffer &bd = sim.buffer(32 * 16);
  LaunchResult r = sim.launch("k", {1, 1, 1}, {32, 1, 1},
                              {ba.address, bb.address, bd.address});
  EXPECT_TRUE(r.ok) << r.message;
  std::vector<float> d(128);
  std::memcpy(d.data(), sim.buffers[2].bytes.data(), 512);
  return d;
}

/// Expects exactly one non-zero result: 1.0 in `lane`'s register `reg`.
void expectSingleOne(const std::vector<float> &d, int lane, int reg) {
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(d[l * 4 + i], l == lane && i == reg ? 1.0f : 0.0f)
          << "lane " << l << " c" << i;
}

TEST(MmaSync, F16FragmentLayout) {
  // A(9, 3) = 1: row 9 = g + 8 -> g = 1; column 3 = 2t + 1 -> t = 1: lane 5,
  // element a3 (the high half of register 1).
  // B(3, 5) = 1: column 5 = g; row 3 = 2t + 1 -> t = 1: lane 21, element b1
  // (the high half of register 0).
  // D(9, 5): row 9 -> g = 1, c2/c3; column 5 = 2t + 1 -> t = 2: lane 6, c3.
  std::vector<uint32_t> a(32 * 4, 0), b(32 * 2, 0);
  a[5 * 4 + 1] = 0x3c00u << 16;
  b[21 * 2 + 0] = 0x3c00u << 16;
  expectSingleOne(
      runMma("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, a, b),
      6, 3);
  // A(0, 12): g = 0, column 12 = 2t + 8 -> t = 2, element a4: lane 2,
  // register 2 low. B(12, 0): g = 0, row 12 = 2t + 8 -> t = 2, element b2:
  // lane 2, register 1 low. D(0, 0): lane 0, c0.
  std::fill(a.begin(), a.end(), 0);
  std::fill(b.begin(), b.end(), 0);
  a[2 * 4 + 2] = 0x3c00u;
  b[2 * 2 + 1] = 0x3c00u;
  expectSingleOne(
      runMma("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, a, b),
      0, 0);
}

TEST(MmaSync, BF16FragmentLayoutAndProducts) {
  // The same positions as the first f16 case, with bf16 2.0 * 3.0.
  std::vector<uint32_t> a(32 * 4, 0), b(32 * 2, 0);
  a[5 * 4 + 1] = 0x4000u << 16;  // 2.0
  b[21 * 2 + 0] = 0x4040u << 16; // 3.0
  std::vector<float> d =
      runMma("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2, a, b);
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(d[l * 4 + i], l == 6 && i == 3 ? 6.0f : 0.0f);
}

TEST(MmaSync, Tf32FragmentLayout) {
  // m16n8k8.tf32: A row = g + 8 (i & 1), column = t + 4 (i >> 1).
  // A(10, 6): g = 2, t = 2, i = 3: lane 10, register 3.
  // B row = t + 4 i, column = g. B(6, 1): t = 2, i = 1, g = 1: lane 6,
  // register 1. D(10, 1): g = 2, column 1 = 2t + 1 -> t = 0: lane 8, c3.
  std::vector<uint32_t> a(32 * 4, 0), b(32 * 2, 0);
  a[10 * 4 + 3] = 0x3f800000u;
  // tf32 ignores the low 13 bits.
  b[6 * 2 + 1] = 0x3f800fffu;
  expectSingleOne(
      runMma("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, a, b),
      8, 3);
}

TEST(MmaSync, FullProductMatchesTheLayout) {
  // A[r][k] = (r + 2k) % 7 - 3, B[k][n] = (3k + n) % 5 - 2, placed with the
  // ISA's fragment formulas; D read back through them.
  auto aValue = [](int r, int k) { return float((r + 2 * k) % 7 - 3); };
  auto bValue = [](int k, int n) { return float((3 * k + n) % 5 - 2); };
  auto half = [](float v) -> uint32_t {
    // Small integers: sign, exponent, and at most 3 mantissa bits.
    if (v == 0)
      return 0;
    uint32_t sign = v < 0 ? 0x8000 : 0;
    float m = std::abs(v);
    int e = 0;
    while (m >= 2) {
      m /= 2;
      ++e;
    }
    return sign | uint32_t(e + 15) << 10 | uint32_t((m - 1) * 1024);
  };
  std::vector<uint32_t> a(32 * 4, 0), b(32 * 2, 0);
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 8; ++i) {
      int row = g + 8 * ((i / 2) % 2), col = 2 * t + i % 2 + 8 * (i / 4);
      a[lane * 4 + i / 2] |= half(aValue(row, col)) << (16 * (i % 2));
    }
    for (int i = 0; i < 4; ++i) {
      int row = 2 * t + i % 2 + 8 * (i / 2), col = g;
      b[lane * 2 + i / 2] |= half(bValue(row, col)) << (16 * (i % 2));
    }
  }
  std::vector<float> d =
      runMma("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, a, b);
  for (int lane = 0; lane < 32; ++lane) {
    int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      int row = g + 8 * (i / 2), col = 2 * t + i % 2;
      float expected = 0;
      for (int k = 0; k < 16; ++k)
        expected += aValue(row, k) * bValue(k, col);
      EXPECT_EQ(d[lane * 4 + i], expected) << "D(" << row << ", " << col << ")";
    }
  }
}

/// Runs `body` on one warp: %v = lane * 10 + 1 on entry; %d is stored.
std::vector<uint32_t> warp(const std::string &body, unsigned threads = 32) {
  std::string ptx = ptxHeader() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>, %v, %d, %e;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %laneid;
  mad.lo.u32 %v, %r0, 10, 1;
)" + body + R"(
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.b32 [%rd2], %d;
  ret;
}
)";
  SimRun sim;
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(threads * 4);
  LaunchResult r = sim.launch("k", {1, 1, 1}, {threads, 1, 1}, {out.address});
  EXPECT_TRUE(r.ok) << r.message;
  std::vector<uint32_t> d(threads);
  std::memcpy(d.data(), sim.buffers[0].bytes.data(), threads * 4);
  return d;
}

TEST(Shfl, Modes) {
  std::vector<uint32_t> idx = warp("  sub.u32 %r1, 31, %r0;\n"
                                   "  shfl.sync.idx.b32 %d, %v, %r1, 31, -1;");
  std::vector<uint32_t> down =
      warp("  shfl.sync.down.b32 %e|%p0, %v, 1, 31, -1;\n"
           "  selp.b32 %d, %e, 999, %p0;");
  std::vector<uint32_t> up = warp("  shfl.sync.up.b32 %e|%p0, %v, 2, 0, -1;\n"
                                  "  selp.b32 %d, %e, 999, %p0;");
  std::vector<uint32_t> bfly = warp("  shfl.sync.bfly.b32 %d, %v, 1, 31, -1;");
  // Segments of 8: c = ((32 - 8) << 8) | 7; idx 0 reads each segment's first.
  std::vector<uint32_t> segment =
      warp("  shfl.sync.idx.b32 %d, %v, 0, 0x1807, -1;");
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(idx[l], (31 - l) * 10 + 1u);
    EXPECT_EQ(down[l], l == 31 ? 999u : (l + 1) * 10 + 1u) << l;
    EXPECT_EQ(up[l], l < 2 ? 999u : (l - 2) * 10 + 1u) << l;
    EXPECT_EQ(bfly[l], (l ^ 1) * 10 + 1u);
    EXPECT_EQ(segment[l], (l / 8 * 8) * 10 + 1u);
  }
}

TEST(Shfl, PartialWarpWithItsMemberMask) {
  // 13 threads: the member mask names lanes 0-12, clamp 12.
  std::vector<uint32_t> d =
      warp("  shfl.sync.bfly.b32 %e|%p0, %v, 4, 12, 0x1fff;\n"
           "  selp.b32 %d, %e, 999, %p0;",
           13);
  for (int l = 0; l < 13; ++l)
    EXPECT_EQ(d[l], (l ^ 4) <= 12 ? (l ^ 4) * 10 + 1u : 999u) << l;
}

TEST(Vote, BallotAllAnyUni) {
  std::vector<uint32_t> ballot = warp("  rem.u32 %r1, %r0, 3;\n"
                                      "  setp.eq.u32 %p0, %r1, 0;\n"
                                      "  vote.sync.ballot.b32 %d, %p0, -1;");
  std::vector<uint32_t> all = warp("  setp.lt.u32 %p0, %r0, 32;\n"
                                   "  vote.sync.all.pred %p1, %p0, -1;\n"
                                   "  vote.sync.any.pred %p2, !%p0, -1;\n"
                                   "  selp.b32 %r1, 2, 0, %p1;\n"
                                   "  selp.b32 %r2, 1, 0, %p2;\n"
                                   "  or.b32 %d, %r1, %r2;");
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(ballot[l], 0x49249249u);
    EXPECT_EQ(all[l], 2u);
  }
}

TEST(Redux, AddMinAndMatch) {
  std::vector<uint32_t> add = warp("  redux.sync.add.u32 %d, %r0, -1;");
  std::vector<uint32_t> min = warp("  sub.u32 %r1, 5, %r0;\n"
                                   "  redux.sync.min.s32 %d, %r1, -1;");
  // Lanes with equal lane % 4 match.
  std::vector<uint32_t> match = warp("  and.b32 %r1, %r0, 3;\n"
                                     "  match.any.sync.b32 %d, %r1, -1;");
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(add[l], 496u);
    EXPECT_EQ(static_cast<int32_t>(min[l]), 5 - 31);
    EXPECT_EQ(match[l], 0x11111111u << (l % 4));
  }
}

TEST(Atomics, GlobalAndShared) {
  std::string ptx = ptxHeader() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<1>;
  .reg .b32 %r<8>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 counter;
  mov.u32 %r0, %tid.x;
  setp.eq.u32 %p0, %r0, 0;
  @%p0 st.shared.u32 [counter], 0;
  bar.sync 0;
  atom.shared.add.u32 %r1, [counter], 1;
  ld.param.u64 %rd0, [out];
  atom.global.add.u32 %r2, [%rd0], 2;
  atom.global.max.s32 %r3, [%rd0+4], %r0;
  cvt.rn.f32.u32 %f0, %r0;
  atom.global.add.f32 %f1, [%rd0+8], %f0;
  bar.sync 0;
  ld.shared.u32 %r4, [counter];
  @%p0 st.global.u32 [%rd0+12], %r4;
  ret;
}
)";
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(16);
  LaunchResult r = sim.launch("k", {4, 1, 1}, {64, 1, 1}, {out.address});
  ASSERT_TRUE(r.ok) << r.message;
  const Buffer &b = sim.buffers[0];
  EXPECT_EQ(b.get<uint32_t>(0), 4u * 64 * 2);
  EXPECT_EQ(b.get<int32_t>(1), 63);
  EXPECT_EQ(b.get<float>(2), 4.0f * (63 * 64 / 2));
  EXPECT_EQ(b.get<uint32_t>(3), 64u);
}

} // namespace
