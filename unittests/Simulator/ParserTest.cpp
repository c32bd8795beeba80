//===- ParserTest.cpp - PTX syntax, decoding and load-time errors --------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the PTX front end accepts (the forms LLVM's NVPTX back end and nvcc
// write) and how it refuses the rest: an instruction or modifier the
// simulator does not implement is a load-time error naming it, its line and
// its function; malformed text is an error with a line, never a crash.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtils.h"

using namespace gmm::sim;
using namespace gmm::sim::test;

namespace {

std::string loadError(const std::string &ptx) {
  Device device(SimRun::defaultOptions());
  std::string log;
  std::unique_ptr<LoadedModule> module = device.load(ptx, log);
  EXPECT_FALSE(module) << "loaded: " << ptx;
  return log;
}

TEST(Parser, UnsupportedInstructionNamesLineAndFunction) {
  std::string log = loadError(ptxHeader() + R"(
.visible .entry my_kernel()
{
  .reg .b32 %r<2>;
  mov.u32 %r0, 1;
  frobnicate.b32 %r1, %r0;
  ret;
}
)");
  EXPECT_EQ(log, "ptx line 9: unsupported instruction in 'frobnicate.b32' "
                 "(function 'my_kernel')");
}

TEST(Parser, UnsupportedModifierIsNotIgnored) {
  std::string log = loadError(ptxHeader() + R"(
.visible .entry k()
{
  .reg .b32 %r<2>;
  add.wobbly.s32 %r1, %r0, %r0;
  ret;
}
)");
  EXPECT_EQ(log, "ptx line 8: unsupported modifier .wobbly in "
                 "'add.wobbly.s32' (function 'k')");
}

TEST(Parser, SyntaxErrorsHaveLines) {
  EXPECT_EQ(loadError(ptxHeader() + ".visible .entry k(\n{\n"),
            "ptx line 5: expected a parameter, found '{'");
  EXPECT_EQ(loadError(ptxHeader() + "/* never closed\n"),
            "ptx line 4: unterminated block comment");
  EXPECT_EQ(loadError(ptxHeader() + ".visible .entry k() { mov.u32 %r1, "
                                    "0x; }\n"),
            "ptx line 4: malformed number '0x;'");
  EXPECT_EQ(loadError(ptxHeader() + ".visible .entry k() { bra L; }\n"),
            "ptx line 4: unknown label 'L' in 'bra' (function 'k')");
  EXPECT_EQ(loadError(ptxHeader() + ".visible .entry k() { mov.u32 %q, 1; "
                                    "}\n"),
            "ptx line 4: unknown register %q in 'mov.u32' (function 'k')");
}

TEST(Parser, TargetsNewerThanTheDeviceAreRefused) {
  Options options = SimRun::defaultOptions();
  options.arch = 80;
  Device device(options);
  std::string log;
  EXPECT_FALSE(
      device.load(ptxHeader("sm_90") + ".visible .entry k() { ret; }", log));
  EXPECT_EQ(log, "ptx: the module targets sm_90, which the simulated device "
                 "(sm_80) cannot run");
  EXPECT_TRUE(
      device.load(ptxHeader("sm_60") + ".visible .entry k() { ret; }", log))
      << log;
}

TEST(Parser, CallsToUndefinedFunctionsAreRefused) {
  std::string log = loadError(ptxHeader() + R"(
.extern .func (.param .b32 func_retval0) __nv_expf(.param .b32 x);
.visible .entry k()
{
  .reg .b32 %r<2>;
  { .param .b32 p0; .param .b32 r0;
    st.param.b32 [p0], %r0;
    call.uni (r0), __nv_expf, (p0);
    ld.param.b32 %r1, [r0];
  }
  ret;
}
)");
  EXPECT_NE(log.find("call to external function '__nv_expf', which the "
                     "module does not define"),
            std::string::npos)
      << log;
}

TEST(Parser, LLVMAndNvccForms) {
  // Forms of both producers: .ptr params with pointee alignment, byval
  // arrays, ranges of registers, vector operands, predicate pairs, `_`,
  // nested scopes with shadowed names (nvcc's inline asm), .loc, .pragma,
  // initialized globals with generic() addresses, float literals.
  std::string ptx = ptxHeader() + R"(
.file 1 "k.cu"
.global .align 4 .u32 table[4] = {1, 2, 3, 4};
.global .align 8 .u64 ptr = generic(table);
.const .align 4 .f32 scale = 0f40000000;
.visible .entry k(
  .param .u64 .ptr .global .align 16 k_param_0,
  .param .align 8 .b8 k_param_1[16],
  .param .u32 k_param_2
)
.maxntid 64, 1, 1
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<6>;
  .loc 1 10 3
  ld.param.u64 %rd1, [k_param_0];
  ld.param.v2.u32 {%r1, %r2}, [k_param_1+8];
  ld.param.u32 %r3, [k_param_2];
  ld.global.u64 %rd2, [ptr];
  ld.u32 %r4, [%rd2+12];
  ld.const.f32 %f1, [scale];
  mov.f32 %f2, 0f3F800000;
  fma.rn.f32 %f3, %f1, %f2, 0f00000000;
  {
    .reg .b32 tmp;
    add.u32 tmp, %r1, %r2;
    mov.u32 %r5, tmp;
  }
  {
    .reg .b32 tmp;
    sub.u32 tmp, %r5, %r3;
    mov.u32 %r6, tmp;
  }
  .pragma "nounroll";
  setp.ne.u32 %p1|%p2, %r6, 0;
  cvt.rzi.u32.f32 %r7, %f3;
  add.u32 %r8, %r6, %r4;
  add.u32 %r8, %r8, %r7;
  cvta.to.global.u64 %rd3, %rd1;
  st.global.u32 [%rd3], %r8;
  ret;
}
)";
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(16);
  // k_param_1 is a 16-byte struct: words 2 and 3 hold 30 and 12.
  Kernel *k = sim.module->kernel("k");
  ASSERT_TRUE(k);
  ASSERT_EQ(k->params().size(), 3u);
  EXPECT_EQ(k->params()[1].offset, 8u);
  EXPECT_EQ(k->params()[2].offset, 24u);
  std::vector<uint8_t> params(k->paramBufferBytes());
  uint64_t address = out.address;
  uint32_t words[4] = {0, 0, 30, 12}, five = 5;
  std::memcpy(params.data(), &address, 8);
  std::memcpy(params.data() + 8, words, 16);
  std::memcpy(params.data() + 24, &five, 4);
  for (Buffer &b : sim.buffers)
    std::memcpy(sim.device.hostPointer(b.address, b.bytes.size()),
                b.bytes.data(), b.bytes.size());
  LaunchConfig config;
  config.block = {1, 1, 1};
  LaunchResult r = sim.device.launch(*k, config, params.data());
  ASSERT_TRUE(r.ok) << r.message;
  uint32_t result = 0;
  std::memcpy(&result, sim.device.hostPointer(out.address, 4), 4);
  // (30 + 12 - 5) + table[3] + 2.0 * 1.0 = 37 + 4 + 2.
  EXPECT_EQ(result, 43u);
}

TEST(Parser, HostileInputsGiveErrorsNotCrashes) {
  const char *inputs[] = {
      "",
      ".version",
      ".version 8.0\n.target",
      ".version 8.0 .target sm_80 .address_size 64 .entry",
      ".version 8.0 .target sm_80 .address_size 64 .entry k( .param",
      "{{{{{{{{",
      ".version 8.0 .target sm_80 .address_size 64 .entry k() { @ }",
      ".version 8.0 .target sm_80 .address_size 64 .entry k() { add.u32 "
      "[[[[; }",
      ".version 8.0 .target sm_80 .address_size 64 .global .b8 x[99999999999]"
      "[99999999999];",
      ".version 8.0 .target sm_80 .address_size 64 .entry k() { .reg .b32 "
      "%r<4294967295>; }",
      ".version 8.0 .target sm_80 .address_size 64 .shared .b8 x[100000]; "
      ".entry k() { .reg .b64 %r; mov.u64 %r, x; ret; }",
      "\x01\x02\x03",
      ".version 8.0 .target sm_80 .address_size 64 .entry k() { bra k; }",
      // Version numbers that lex as doubles but are not major.minor.
      ".version 7..const",
      ".version .5 .target sm_80",
      ".version 1e5 .target sm_80",
      ".version 99999999999.0 .target sm_80",
  };
  for (const char *input : inputs) {
    Device device(SimRun::defaultOptions());
    std::string log;
    EXPECT_FALSE(device.load(input, log)) << input;
    EXPECT_FALSE(log.empty()) << input;
  }
}

} // namespace
