//===- InstructionTest.cpp - Integer, float, conversion instructions -----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Each test runs one instruction on hand-chosen operands, one lane per case,
// and compares with values computed by hand from the PTX ISA's definition
// (rounding modes, saturation, clamping of shifts and bit fields, NaN rules).
//
//===----------------------------------------------------------------------===//

#include "SimTestUtils.h"

#include <cmath>
#include <limits>

using namespace gmm::sim;
using namespace gmm::sim::test;

namespace {

/// Runs `body` in lane i with %a, %b, %c loaded from three input arrays and
/// stores %d to the output array. `in` and `out` name the register types
/// (b16, b32, b64, f32, f64), so that loads/stores and declarations match.
struct Case {
  uint64_t a = 0, b = 0, c = 0;
};

std::vector<uint64_t> run(const std::string &body, const char *in,
                          const char *out, const std::vector<Case> &cases,
                          const char *target = "sm_80") {
  auto width = [](const char *t) {
    std::string s = t;
    return s.find("16") != std::string::npos   ? 2
           : s.find("64") != std::string::npos ? 8
                                               : 4;
  };
  int wi = width(in), wo = width(out);
  std::string ptx = ptxHeader(target) + R"(
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
  .reg .pred %p<4>;
  .reg .b32 %t<4>;
  .reg .b64 %x<12>;
  .reg .)" + std::string(in) +
                    R"( %a, %b, %c;
  .reg .)" + std::string(out) +
                    R"( %d, %e;
  mov.u32 %t0, %tid.x;
  cvt.u64.u32 %x0, %t0;
  mul.lo.u64 %x1, %x0, )" +
                    std::to_string(wi) + R"(;
  mul.lo.u64 %x2, %x0, )" +
                    std::to_string(wo) + R"(;
  ld.param.u64 %x3, [pa];
  ld.param.u64 %x4, [pb];
  ld.param.u64 %x5, [pc];
  ld.param.u64 %x6, [pd];
  add.s64 %x3, %x3, %x1;
  add.s64 %x4, %x4, %x1;
  add.s64 %x5, %x5, %x1;
  add.s64 %x6, %x6, %x2;
  ld.global.)" + std::string(in) +
                    R"( %a, [%x3];
  ld.global.)" + std::string(in) +
                    R"( %b, [%x4];
  ld.global.)" + std::string(in) +
                    R"( %c, [%x5];
)" + body + R"(
  st.global.)" + std::string(out) +
                    R"( [%x6], %d;
  ret;
}
)";
  SimRun sim;
  if (!sim.load(ptx)) {
    ADD_FAILURE() << sim.loadLog << "\n" << ptx;
    return {};
  }
  size_t n = cases.size();
  std::vector<uint8_t> a(n * wi), b(n * wi), c(n * wi);
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(a.data() + i * wi, &cases[i].a, wi);
    std::memcpy(b.data() + i * wi, &cases[i].b, wi);
    std::memcpy(c.data() + i * wi, &cases[i].c, wi);
  }
  Buffer &ba = sim.buffer(a);
  Buffer &bb = sim.buffer(b);
  Buffer &bc = sim.buffer(c);
  Buffer &bd = sim.buffer(n * wo);
  LaunchResult result =
      sim.launch("k", {1, 1, 1}, {static_cast<unsigned>(n), 1, 1},
                 {ba.address, bb.address, bc.address, bd.address});
  EXPECT_TRUE(result.ok) << result.message;
  std::vector<uint64_t> values(n);
  for (size_t i = 0; i < n; ++i)
    std::memcpy(&values[i], sim.buffers[3].bytes.data() + i * wo, wo);
  return values;
}

uint64_t f32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return bits;
}
uint64_t f64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return bits;
}
uint64_t u32(int64_t v) { return static_cast<uint32_t>(v); }

TEST(Integer, AddSatAndCarryChain) {
  EXPECT_EQ(run("add.sat.s32 %d, %a, %b;", "b32", "b32",
                {{0x7fffffff, 1}, {0x80000000u, u32(-1)}, {5, u32(-7)}}),
            (std::vector<uint64_t>{0x7fffffff, 0x80000000u, u32(-2)}));
  // A 64-bit add from 32-bit halves: (1:0xffffffff) + (2:1).
  EXPECT_EQ(run("add.cc.u32 %e, %a, %b;\n  addc.u32 %d, %c, 2;", "b32", "b32",
                {{0xffffffffu, 1, 1}, {5, 6, 1}}),
            (std::vector<uint64_t>{4, 3}));
  // Borrow: 0 - 1 borrows, so the high word loses one.
  EXPECT_EQ(run("sub.cc.u32 %e, %a, %b;\n  subc.u32 %d, %c, 0;", "b32", "b32",
                {{0, 1, 7}, {2, 1, 7}}),
            (std::vector<uint64_t>{6, 7}));
}

TEST(Integer, MultiplyHighWideAndMad) {
  EXPECT_EQ(run("mul.hi.s32 %d, %a, %b;", "b32", "b32",
                {{0x40000000, 4}, {u32(-1), u32(-1)}, {u32(-2), 0x40000000}}),
            (std::vector<uint64_t>{1, 0, 0xffffffffu}));
  EXPECT_EQ(
      run("mul.hi.u32 %d, %a, %b;", "b32", "b32", {{0xffffffffu, 0xffffffffu}}),
      (std::vector<uint64_t>{0xfffffffeu}));
  EXPECT_EQ(run("mul.hi.u64 %d, %a, %b;", "b64", "b64",
                {{~0ull, ~0ull}, {1ull << 63, 4}}),
            (std::vector<uint64_t>{~0ull - 1, 2}));
  EXPECT_EQ(
      run("mad.lo.s32 %d, %a, %b, %c;", "b32", "b32", {{3, u32(-4), 100}}),
      (std::vector<uint64_t>{88}));
  EXPECT_EQ(run("mul24.lo.s32 %d, %a, %b;", "b32", "b32",
                {{0x00800000, 2}, {0xff000003, 3}}),
            // 24-bit operands: 0x800000 is -2^23; 0xff000003 is 3.
            (std::vector<uint64_t>{u32(-(1 << 24)), 9}));
}

TEST(Integer, DivisionRoundsTowardZero) {
  EXPECT_EQ(run("div.s32 %d, %a, %b;", "b32", "b32",
                {{7, u32(-2)}, {u32(-7), 2}, {0x80000000u, u32(-1)}}),
            (std::vector<uint64_t>{u32(-3), u32(-3), 0x80000000u}));
  EXPECT_EQ(
      run("rem.s32 %d, %a, %b;", "b32", "b32", {{7, u32(-2)}, {u32(-7), 2}}),
      (std::vector<uint64_t>{1, u32(-1)}));
  EXPECT_EQ(run("div.u64 %d, %a, %b;", "b64", "b64", {{~0ull, 3}}),
            (std::vector<uint64_t>{0x5555555555555555ull}));
}

TEST(Integer, ShiftsClampTheirAmount) {
  EXPECT_EQ(
      run("shl.b32 %d, %a, %b;", "b32", "b32", {{1, 31}, {1, 32}, {1, 1000}}),
      (std::vector<uint64_t>{0x80000000u, 0, 0}));
  EXPECT_EQ(run("shr.s32 %d, %a, %b;", "b32", "b32",
                {{0x80000000u, 40}, {0x40000000, 40}, {u32(-8), 1}}),
            (std::vector<uint64_t>{0xffffffffu, 0, u32(-4)}));
  EXPECT_EQ(run("shr.u32 %d, %a, %b;", "b32", "b32", {{0x80000000u, 31}}),
            (std::vector<uint64_t>{1}));
  EXPECT_EQ(run("shf.l.wrap.b32 %d, %a, %b, %c;", "b32", "b32",
                {{0x12345678, 0x9abcdef0, 8}, {0x12345678, 0x9abcdef0, 40}}),
            (std::vector<uint64_t>{0xbcdef012u, 0xbcdef012u}));
  EXPECT_EQ(run("shf.r.clamp.b32 %d, %a, %b, %c;", "b32", "b32",
                {{0x12345678, 0x9abcdef0, 40}, {0x12345678, 0x9abcdef0, 4}}),
            (std::vector<uint64_t>{0x9abcdef0u, 0x01234567u}));
}

TEST(Integer, BitFields) {
  EXPECT_EQ(run("bfe.u32 %d, %a, %b, %c;", "b32", "b32",
                {{0x12345678, 4, 8}, {0x12345678, 28, 8}, {0xffff, 3, 0}}),
            (std::vector<uint64_t>{0x67, 0x1, 0}));
  // A signed field takes the sign of its top bit (or of bit 31 past it).
  EXPECT_EQ(run("bfe.s32 %d, %a, %b, %c;", "b32", "b32",
                {{0xf0, 4, 4}, {0x70, 4, 4}, {0x80000000u, 28, 8}}),
            (std::vector<uint64_t>{0xffffffffu, 7, 0xfffffff8u}));
  EXPECT_EQ(
      run("bfi.b32 %d, %a, %b, 8, 8;", "b32", "b32", {{0xff, 0x12345678}}),
      (std::vector<uint64_t>{0x1234ff78u}));
  EXPECT_EQ(run("popc.b32 %d, %a;", "b32", "b32", {{0xf0f0}, {0}, {~0u}}),
            (std::vector<uint64_t>{8, 0, 32}));
  EXPECT_EQ(run("clz.b32 %d, %a;", "b32", "b32", {{0x00010000}, {0}, {~0u}}),
            (std::vector<uint64_t>{15, 32, 0}));
  EXPECT_EQ(run("brev.b32 %d, %a;", "b32", "b32", {{1}, {0x0000ff01}}),
            (std::vector<uint64_t>{0x80000000u, 0x80ff0000u}));
  EXPECT_EQ(run("bfind.u32 %d, %a;", "b32", "b32", {{0x00010000}, {0}}),
            (std::vector<uint64_t>{16, 0xffffffffu}));
  EXPECT_EQ(
      run("bfind.s32 %d, %a;", "b32", "b32", {{u32(-1)}, {u32(-4096)}, {5}}),
      (std::vector<uint64_t>{0xffffffffu, 11, 2}));
  EXPECT_EQ(run("bfind.shiftamt.u32 %d, %a;", "b32", "b32", {{0x00010000}}),
            (std::vector<uint64_t>{15}));
}

TEST(Integer, PermuteAndLogic) {
  EXPECT_EQ(run("prmt.b32 %d, %a, %b, %c;", "b32", "b32",
                {{0x33221100, 0x77665544, 0x5410},
                 {0x00000080, 0, 0x0008},
                 {0x33221100, 0x77665544, 0x7654}}),
            (std::vector<uint64_t>{0x55441100u, 0x808080ffu, 0x77665544u}));
  // lop3 with 0x96 is a three-way xor; 0xe8 is the majority function.
  EXPECT_EQ(run("lop3.b32 %d, %a, %b, %c, 0x96;", "b32", "b32",
                {{0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa}}),
            (std::vector<uint64_t>{0x96969696u}));
  EXPECT_EQ(run("lop3.b32 %d, %a, %b, %c, 0xe8;", "b32", "b32",
                {{0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa}}),
            (std::vector<uint64_t>{0xe8e8e8e8u}));
  EXPECT_EQ(run("dp4a.u32.s32 %d, %a, %b, %c;", "b32", "b32",
                {{0x01020304, 0xff0102fe, 10}}),
            // 4*-2 + 3*2 + 2*1 + 1*-1 + 10 = 9
            (std::vector<uint64_t>{9}));
}

TEST(Integer, CompareAndSelect) {
  EXPECT_EQ(run("setp.lt.s32 %p0, %a, %b;\n  selp.b32 %d, 1, 0, %p0;", "b32",
                "b32", {{1, u32(-1)}, {u32(-1), 1}}),
            (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(run("setp.lo.u32 %p0, %a, %b;\n  selp.b32 %d, 1, 0, %p0;", "b32",
                "b32", {{1, u32(-1)}, {u32(-1), 1}}),
            (std::vector<uint64_t>{1, 0}));
  // Two destinations and a combining predicate: p = (a == b) & c, q = (a !=
  // b) & c.
  EXPECT_EQ(run("setp.ne.u32 %p1, %c, 0;\n"
                "  setp.eq.and.u32 %p0|%p2, %a, %b, %p1;\n"
                "  selp.b32 %t1, 2, 0, %p0;\n"
                "  selp.b32 %t2, 1, 0, %p2;\n"
                "  or.b32 %d, %t1, %t2;",
                "b32", "b32", {{3, 3, 1}, {3, 4, 1}, {3, 3, 0}}),
            (std::vector<uint64_t>{2, 1, 0}));
}

TEST(Float, FusedMultiplyAddRoundsOnce) {
  float a = 1.0f + std::ldexp(1.0f, -23), b = 1.0f - std::ldexp(1.0f, -23);
  EXPECT_EQ(run("fma.rn.f32 %d, %a, %b, %c;", "f32", "f32",
                {{f32(a), f32(b), f32(-1.0f)}}),
            (std::vector<uint64_t>{f32(-std::ldexp(1.0f, -46))}));
  // The same product rounded first loses it.
  EXPECT_EQ(run("mul.rn.f32 %e, %a, %b;\n  add.rn.f32 %d, %e, %c;", "f32",
                "f32", {{f32(a), f32(b), f32(-1.0f)}}),
            (std::vector<uint64_t>{f32(0.0f)}));
}

TEST(Float, DirectedRounding) {
  float tiny = 1.5f * std::ldexp(1.0f, -24);
  EXPECT_EQ(run("add.rz.f32 %d, %a, %b;", "f32", "f32",
                {{f32(1.0f), f32(tiny)}, {f32(-1.0f), f32(-tiny)}}),
            (std::vector<uint64_t>{f32(1.0f), f32(-1.0f)}));
  EXPECT_EQ(run("add.rp.f32 %d, %a, %b;", "f32", "f32",
                {{f32(1.0f), f32(tiny)}, {f32(-1.0f), f32(-tiny)}}),
            (std::vector<uint64_t>{0x3f800001u, f32(-1.0f)}));
  EXPECT_EQ(
      run("add.rm.f32 %d, %a, %b;", "f32", "f32", {{f32(-1.0f), f32(-tiny)}}),
      (std::vector<uint64_t>{0xbf800001u}));
  EXPECT_EQ(
      run("div.rn.f32 %d, %a, %b;", "f32", "f32", {{f32(1.0f), f32(3.0f)}}),
      (std::vector<uint64_t>{0x3eaaaaabu}));
  EXPECT_EQ(
      run("div.rz.f32 %d, %a, %b;", "f32", "f32", {{f32(1.0f), f32(3.0f)}}),
      (std::vector<uint64_t>{0x3eaaaaaau}));
  EXPECT_EQ(run("sqrt.rn.f32 %d, %a;", "f32", "f32", {{f32(2.0f)}}),
            (std::vector<uint64_t>{0x3fb504f3u}));
  EXPECT_EQ(run("sqrt.rp.f32 %d, %a;", "f32", "f32", {{f32(2.0f)}}),
            (std::vector<uint64_t>{0x3fb504f4u}));
  EXPECT_EQ(run("fma.rz.f32 %d, %a, %b, %c;", "f32", "f32",
                {{f32(1.0f), f32(1.0f), f32(tiny)}}),
            (std::vector<uint64_t>{f32(1.0f)}));
  EXPECT_EQ(run("add.rp.f64 %d, %a, %b;", "f64", "f64",
                {{f64(1.0), f64(std::ldexp(1.0, -60))}}),
            (std::vector<uint64_t>{f64(1.0) + 1}));
}

TEST(Float, MinMaxNaNAndSignedZero) {
  const uint64_t nan = 0x7fc00001u;
  EXPECT_EQ(run("min.f32 %d, %a, %b;", "b32", "b32",
                {{nan, f32(1.0f)}, {f32(-0.0f), f32(0.0f)}, {nan, nan}}),
            (std::vector<uint64_t>{f32(1.0f), f32(-0.0f), 0x7fffffffu}));
  EXPECT_EQ(run("max.f32 %d, %a, %b;", "b32", "b32",
                {{f32(-0.0f), f32(0.0f)}, {f32(2.0f), nan}}),
            (std::vector<uint64_t>{f32(0.0f), f32(2.0f)}));
  EXPECT_EQ(run("min.NaN.f32 %d, %a, %b;", "b32", "b32", {{nan, f32(1.0f)}}),
            (std::vector<uint64_t>{0x7fffffffu}));
}

TEST(Float, FlushToZeroAndSaturate) {
  float denormal = std::ldexp(1.0f, -130);
  EXPECT_EQ(
      run("add.f32 %d, %a, %b;", "f32", "f32", {{f32(denormal), f32(0.0f)}}),
      (std::vector<uint64_t>{f32(denormal)}));
  EXPECT_EQ(run("add.ftz.f32 %d, %a, %b;", "f32", "f32",
                {{f32(denormal), f32(0.0f)}, {f32(-denormal), f32(-0.0f)}}),
            (std::vector<uint64_t>{f32(0.0f), f32(-0.0f)}));
  EXPECT_EQ(run("add.sat.f32 %d, %a, %b;", "f32", "f32",
                {{f32(0.75f), f32(0.5f)}, {f32(-1.0f), f32(0.5f)}}),
            (std::vector<uint64_t>{f32(1.0f), f32(0.0f)}));
}

TEST(Float, UnorderedComparisons) {
  const uint64_t nan = 0x7fc00000u;
  EXPECT_EQ(run("setp.lt.f32 %p0, %a, %b;\n  selp.b32 %d, 1, 0, %p0;", "f32",
                "b32", {{nan, f32(1.0f)}, {f32(0.0f), f32(1.0f)}}),
            (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(run("setp.ltu.f32 %p0, %a, %b;\n  selp.b32 %d, 1, 0, %p0;", "f32",
                "b32", {{nan, f32(1.0f)}, {f32(2.0f), f32(1.0f)}}),
            (std::vector<uint64_t>{1, 0}));
  EXPECT_EQ(run("testp.notanumber.f32 %p0, %a;\n  selp.b32 %d, 1, 0, %p0;",
                "f32", "b32", {{nan}, {f32(1.0f)}}),
            (std::vector<uint64_t>{1, 0}));
}

TEST(Half, PackedArithmeticAndFusedRounding) {
  // {hi, lo} = {1, 2} + {1, 1} = {2, 3}.
  EXPECT_EQ(
      run("add.f16x2 %d, %a, %b;", "b32", "b32", {{0x3c004000u, 0x3c003c00u}}),
      (std::vector<uint64_t>{0x40004200u}));
  // a = (1 + 2^-10) 2^-6 and b = (1 - 2^-10) 2^-5, so a * b = 2^-11 (1 -
  // 2^-20); c = 1 + 2^-10. The exact sum lies just below the tie between
  // 1 + 2^-10 and 1 + 2^-9. Rounding it to f32 first would land on the tie
  // and round to even (0x3c02); fma rounds once.
  EXPECT_EQ(run("fma.rn.f16 %d, %a, %b, %c;", "b16", "b16",
                {{0x2401, 0x27fe, 0x3c01}}),
            (std::vector<uint64_t>{0x3c01}));
}

TEST(Convert, FloatToIntegerSaturatesAndRounds) {
  const uint64_t nan = 0x7fc00000u;
  EXPECT_EQ(run("cvt.rzi.s32.f32 %d, %a;", "f32", "b32",
                {{nan}, {f32(3e9f)}, {f32(-3.7f)}, {f32(-3e9f)}}),
            (std::vector<uint64_t>{0, 0x7fffffffu, u32(-3), 0x80000000u}));
  EXPECT_EQ(run("cvt.rni.s32.f32 %d, %a;", "f32", "b32",
                {{f32(2.5f)}, {f32(3.5f)}, {f32(-2.5f)}}),
            (std::vector<uint64_t>{2, 4, u32(-2)}));
  EXPECT_EQ(run("cvt.rmi.s32.f32 %d, %a;", "f32", "b32", {{f32(-0.5f)}}),
            (std::vector<uint64_t>{u32(-1)}));
  EXPECT_EQ(
      run("cvt.rpi.u32.f32 %d, %a;", "f32", "b32", {{f32(0.2f)}, {f32(-1.0f)}}),
      (std::vector<uint64_t>{1, 0}));
}

TEST(Convert, FloatToHalfRoundingModes) {
  // 65520 is the tie between 65504 (the largest half) and infinity.
  float third = 1.0f / 3.0f;
  float small = 1e-7f; // 1.68 quanta of the smallest subnormal (2^-24)
  std::vector<Case> cases = {
      {f32(1.0f)}, {f32(65520.0f)}, {f32(third)}, {f32(small)}, {f32(-small)}};
  EXPECT_EQ(run("cvt.rn.f16.f32 %d, %a;", "f32", "b16", cases),
            (std::vector<uint64_t>{0x3c00, 0x7c00, 0x3555, 0x0002, 0x8002}));
  EXPECT_EQ(run("cvt.rz.f16.f32 %d, %a;", "f32", "b16", cases),
            (std::vector<uint64_t>{0x3c00, 0x7bff, 0x3555, 0x0001, 0x8001}));
  EXPECT_EQ(run("cvt.rp.f16.f32 %d, %a;", "f32", "b16", cases),
            (std::vector<uint64_t>{0x3c00, 0x7c00, 0x3556, 0x0002, 0x8001}));
  EXPECT_EQ(run("cvt.rm.f16.f32 %d, %a;", "f32", "b16", cases),
            (std::vector<uint64_t>{0x3c00, 0x7bff, 0x3555, 0x0001, 0x8002}));
  EXPECT_EQ(
      run("cvt.f32.f16 %d, %a;", "b16", "f32", {{0x0001}, {0x7c00}, {0xc000}}),
      (std::vector<uint64_t>{f32(std::ldexp(1.0f, -24)), f32(INFINITY),
                             f32(-2.0f)}));
}

TEST(Convert, BFloat16AndTf32) {
  // 1 + 2^-8 and 1 + 3 * 2^-8 are ties: to even.
  EXPECT_EQ(run("cvt.rn.bf16.f32 %d, %a;", "f32", "b16",
                {{f32(1.00390625f)}, {f32(1.01171875f)}, {0x7fc00001u}}),
            (std::vector<uint64_t>{0x3f80, 0x3f82, 0x7fff}));
  EXPECT_EQ(run("cvt.rna.tf32.f32 %d, %a;", "b32", "b32",
                {{0x3f801000u}, {0x3f800fffu}, {0xbf801000u}}),
            (std::vector<uint64_t>{0x3f802000u, 0x3f800000u, 0xbf802000u}));
  // a goes to the upper half.
  EXPECT_EQ(run("cvt.rn.f16x2.f32 %d, %a, %b;", "f32", "b32",
                {{f32(1.0f), f32(2.0f)}}),
            (std::vector<uint64_t>{0x3c004000u}));
  EXPECT_EQ(run("cvt.rn.bf16x2.f32 %d, %a, %b;", "f32", "b32",
                {{f32(1.0f), f32(-2.0f)}}),
            (std::vector<uint64_t>{0x3f80c000u}));
}

TEST(Convert, IntegerToFloatAndIntegerWidths) {
  EXPECT_EQ(
      run("cvt.rn.f32.s32 %d, %a;", "b32", "f32", {{16777217}, {16777219}}),
      (std::vector<uint64_t>{f32(16777216.0f), f32(16777220.0f)}));
  EXPECT_EQ(run("cvt.rz.f32.u64 %d, %a;", "b64", "f32", {{~0ull}}),
            (std::vector<uint64_t>{0x5f7fffffu}));
  EXPECT_EQ(run("cvt.rn.f32.u64 %d, %a;", "b64", "f32", {{~0ull}}),
            (std::vector<uint64_t>{0x5f800000u}));
  EXPECT_EQ(run("cvt.s64.s32 %d, %a;", "b32", "b64", {{u32(-5)}}),
            (std::vector<uint64_t>{static_cast<uint64_t>(-5)}));
  EXPECT_EQ(run("cvt.u64.u32 %d, %a;", "b32", "b64", {{u32(-5)}}),
            (std::vector<uint64_t>{0xfffffffbu}));
  EXPECT_EQ(
      run("cvt.sat.s8.s32 %d, %a;", "b32", "b32", {{300}, {u32(-300)}, {5}}),
      // An 8-bit result is sign-extended into its register.
      (std::vector<uint64_t>{127, u32(-128), 5}));
  EXPECT_EQ(run("cvt.u16.u32 %d, %a;", "b32", "b32", {{0x12345}}),
            (std::vector<uint64_t>{0x2345}));
}

TEST(Data, MovPacksAndUnpacks) {
  EXPECT_EQ(run("mov.b64 {%t1, %t2}, %a;\n"
                "  mov.b64 %d, {%t2, %t1};",
                "b64", "b64", {{0x1111111122222222ull}}),
            (std::vector<uint64_t>{0x2222222211111111ull}));
}

TEST(Control, LabelsAreScopedByBlocks) {
  // Inline asm repeats its labels, each time in a { } block of its own:
  // each branch goes to the label of its own block (or of an enclosing
  // one). d = a + 1 + 10 + 100 (the outer SKIP is never the target).
  EXPECT_EQ(run(R"(
  mov.b32 %d, %a;
  {
    bra.uni DONE;
    add.u32 %d, %d, 1000;
  DONE:
    add.u32 %d, %d, 1;
  }
  {
    bra.uni DONE;
    add.u32 %d, %d, 2000;
  DONE:
    add.u32 %d, %d, 10;
    {
      bra.uni OUTER;
      add.u32 %d, %d, 3000;
    }
  OUTER:
    add.u32 %d, %d, 100;
  }
  bra.uni SKIP;
SKIP:)",
                "b32", "b32", {{5}}),
            (std::vector<uint64_t>{116}));
}

} // namespace
