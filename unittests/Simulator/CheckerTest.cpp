//===- CheckerTest.cpp - The memory, race, init and sync checks ----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// One negative test per check: a kernel with the bug must be reported (with
// kernel, block, thread and PTX line), and its corrected twin must pass, so
// that each check is shown to fire for the bug and only for it.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtils.h"

#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

using namespace gmm::sim;
using namespace gmm::sim::test;

namespace {

/// A kernel of 64 threads (two warps) with `body` between a prologue that
/// sets %tid, %sh (the thread's 4-byte slot of the shared array `sm`),
/// %other (the slot of thread tid ^ 32, in the other warp) and %out (the
/// thread's 4-byte slot of the output), and `ret`.
std::string kernel(const std::string &body, const std::string &decls = "") {
  return ptxHeader() + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %tid, %sh, %other, %v, %w, %r<8>;
  .reg .b64 %out, %rd<8>;
  .shared .align 16 .b8 sm[512];
)" + decls +
         R"(
  mov.u32 %tid, %tid.x;
  mov.u32 %r0, sm;
  shl.b32 %r1, %tid, 2;
  add.u32 %sh, %r0, %r1;
  xor.b32 %r2, %tid, 32;
  shl.b32 %r2, %r2, 2;
  add.u32 %other, %r0, %r2;
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %tid, 4;
  add.s64 %out, %rd0, %rd1;
)" + body +
         R"(
  ret;
}
)";
}

LaunchResult runKernel(const std::string &ptx, unsigned threads = 64,
                       size_t outBytes = 256,
                       Options options = SimRun::defaultOptions()) {
  SimRun sim(options);
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(outBytes);
  return sim.launch("k", {2, 1, 1}, {threads, 1, 1}, {out.address});
}

void expectFinding(const LaunchResult &r, FindingKind kind,
                   const std::string &what, unsigned line) {
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(findingKindName(r.kind), std::string(findingKindName(kind)))
      << r.message;
  EXPECT_NE(r.message.find(what), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("kernel k, block ("), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find(", thread ("), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("PTX line " + std::to_string(line) + ":"),
            std::string::npos)
      << r.message;
}

/// The PTX line (1-based) of the first line containing `text`.
unsigned lineOf(const std::string &ptx, const std::string &text) {
  size_t at = ptx.find(text);
  return static_cast<unsigned>(
             std::count(ptx.begin(), ptx.begin() + at, '\n')) +
         1;
}

TEST(RaceCheck, MissingBarrierBetweenWarps) {
  // Everyone writes its slot; after a barrier each thread overwrites its
  // slot and reads the other warp's, with no barrier between.
  std::string body = R"(
  st.shared.u32 [%sh], 0;
  bar.sync 0;
  st.shared.u32 [%sh], %tid;
  ld.shared.u32 %v, [%other];
  st.global.u32 [%out], %v;
)";
  std::string ptx = kernel(body);
  LaunchResult r = runKernel(ptx);
  // Warp 0 reads warp 1's slot first; warp 1 then overwrites what warp 0
  // read in the same interval.
  expectFinding(r, FindingKind::SharedRace,
                "shared-memory race: write of byte 0 that thread (32,0,0) "
                "read since the last barrier",
                lineOf(ptx, "st.shared.u32 [%sh], %tid"));
  std::string fixed = body;
  fixed.replace(fixed.find("  ld.shared"), 0, "  bar.sync 0;\n");
  EXPECT_TRUE(runKernel(kernel(fixed)).ok);
}

TEST(RaceCheck, SameWarpNeedsNoBarrier) {
  // Lanes of one warp exchange values through shared memory in program
  // order: not a race between warps.
  LaunchResult r = runKernel(kernel(R"(
  st.shared.u32 [%sh], %tid;
  xor.b32 %r3, %tid, 1;
  shl.b32 %r3, %r3, 2;
  mov.u32 %r4, sm;
  add.u32 %r3, %r4, %r3;
  ld.shared.u32 %v, [%r3];
  st.global.u32 [%out], %v;
)"));
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(AsyncCopy, MissingWaitIsReported) {
  // Each thread copies 4 bytes of the output buffer into its shared slot;
  // without cp.async.wait_group the data has not landed when it is read.
  std::string body = R"(
  cp.async.ca.shared.global [%sh], [%out], 4;
  cp.async.commit_group;
  bar.sync 0;
  ld.shared.u32 %v, [%sh];
  st.global.u32 [%out], %v;
)";
  std::string ptx = kernel(body);
  expectFinding(runKernel(ptx), FindingKind::AsyncCopyHazard,
                "that has not completed (missing cp.async.wait_group/wait_all",
                lineOf(ptx, "ld.shared.u32 %v, [%sh]"));
  std::string fixed = body;
  fixed.replace(fixed.find("  bar.sync"), 0, "  cp.async.wait_group 0;\n");
  EXPECT_TRUE(runKernel(kernel(fixed)).ok);
}

TEST(AsyncCopy, WaitWithoutBarrierIsARace) {
  // Thread t waits for its own copy, then reads the other warp's slot: that
  // copy completed in the other warp, and no barrier orders the two.
  std::string body = R"(
  cp.async.ca.shared.global [%sh], [%out], 4;
  cp.async.wait_all;
  ld.shared.u32 %v, [%other];
  st.global.u32 [%out], %v;
)";
  std::string ptx = kernel(body);
  LaunchResult r = runKernel(ptx);
  EXPECT_FALSE(r.ok);
  // Warp 0 runs first and finds warp 1's copy not even issued, or landed
  // but unordered: either way the read is reported.
  EXPECT_TRUE(r.kind == FindingKind::UninitializedRead ||
              r.kind == FindingKind::SharedRace)
      << r.message;
  std::string fixed = body;
  fixed.replace(fixed.find("  ld.shared"), 0, "  bar.sync 0;\n");
  EXPECT_TRUE(runKernel(kernel(fixed)).ok);
}

TEST(AsyncCopy, SourceSizeZeroFillsAndGroupsLandInOrder) {
  // Two groups: wait_group 1 lands only the first.
  std::string ptx = kernel(R"(
  st.global.u32 [%out], 0x01020304;
  cp.async.ca.shared.global [%sh], [%out], 4, 2;
  cp.async.commit_group;
  add.u32 %r5, %sh, 256;
  cp.async.ca.shared.global [%r5], [%out], 4;
  cp.async.commit_group;
  cp.async.wait_group 1;
  ld.shared.u32 %v, [%sh];
  cp.async.wait_group 0;
  ld.shared.u32 %w, [%r5];
  add.u32 %v, %v, %w;
  st.global.u32 [%out], %v;
)");
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(256);
  LaunchResult r = sim.launch("k", {1, 1, 1}, {64, 1, 1}, {out.address});
  ASSERT_TRUE(r.ok) << r.message;
  // src-size 2: the low two bytes copied, the high two zero.
  EXPECT_EQ(sim.buffers[0].get<uint32_t>(5), 0x0304u + 0x01020304u);
}

TEST(MemCheck, OutOfBoundsAndMisaligned) {
  std::string body = R"(
  mul.wide.u32 %rd2, %tid, 8;
  ld.param.u64 %rd3, [out];
  add.s64 %rd4, %rd3, %rd2;
  st.global.u32 [%rd4], %tid;
)";
  std::string ptx = kernel(body);
  // 64 threads write 4 bytes 8 bytes apart: thread 32 is past 256 bytes.
  expectFinding(runKernel(ptx), FindingKind::OutOfBounds,
                "out-of-bounds global write of 4 bytes at",
                lineOf(ptx, "st.global.u32 [%rd4], %tid"));
  EXPECT_TRUE(runKernel(ptx, 64, 512).ok);
  std::string misaligned = body;
  misaligned.replace(misaligned.find("%tid, 8"), 7, "%tid, 6");
  std::string ptx2 = kernel(misaligned);
  expectFinding(runKernel(ptx2, 64, 512), FindingKind::Misaligned,
                "misaligned global write of 4 bytes",
                lineOf(ptx2, "st.global.u32 [%rd4], %tid"));
  // Shared memory past the block's allocation.
  std::string shared = kernel("  add.u32 %r5, %sh, 300;\n"
                              "  st.shared.u32 [%r5], %tid;\n");
  expectFinding(runKernel(shared), FindingKind::OutOfBounds,
                "out-of-bounds shared write of 4 bytes at offset 512 (the "
                "block has 512 bytes of shared memory)",
                lineOf(shared, "st.shared.u32 [%r5], %tid"));
}

TEST(InitCheck, SharedReadBeforeAnyWrite) {
  std::string ptx = kernel("  ld.shared.u32 %v, [%sh];\n"
                           "  st.global.u32 [%out], %v;\n");
  expectFinding(runKernel(ptx), FindingKind::UninitializedRead,
                "shared read of 4 bytes at offset 0: byte 0 was never written "
                "by this block",
                lineOf(ptx, "ld.shared.u32 %v, [%sh]"));
  EXPECT_TRUE(runKernel(kernel("  st.shared.u32 [%sh], 1;\n"
                               "  ld.shared.u32 %v, [%sh];\n"
                               "  st.global.u32 [%out], %v;\n"))
                  .ok);
}

TEST(SyncCheck, BarrierThatPartOfTheBlockSkips) {
  std::string ptx = kernel(R"(
  setp.ge.u32 %p0, %tid, 32;
  @%p0 bra SKIP;
  bar.sync 0;
SKIP:
)");
  expectFinding(runKernel(ptx), FindingKind::BarrierDivergence,
                "barrier 0 reached by only part of the block: 32 of 64 "
                "threads arrived, 32 threads exited without reaching it",
                lineOf(ptx, "bar.sync 0"));
}

TEST(SyncCheck, DivergentBarrierWithinAWarp) {
  // Half of each warp waits at one bar.sync, half at another.
  std::string ptx = kernel(R"(
  and.b32 %r3, %tid, 16;
  setp.ne.u32 %p0, %r3, 0;
  @%p0 bra OTHER;
  bar.sync 0;
  bra.uni DONE;
OTHER:
  bar.sync 0;
DONE:
)");
  LaunchResult r = runKernel(ptx);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::BarrierDivergence) << r.message;
  EXPECT_NE(r.message.find("divergent barrier: lanes of warp 0 wait at "
                           "different bar.sync instructions"),
            std::string::npos)
      << r.message;
}

TEST(SyncCheck, ShuffleInADivergentBranch) {
  std::string ptx = kernel(R"(
  setp.lt.u32 %p0, %tid, 16;
  @%p0 bra SKIP;
  shfl.sync.bfly.b32 %v, %tid, 1, 31, -1;
SKIP:
)");
  expectFinding(runKernel(ptx), FindingKind::CollectiveDivergence,
                "warp-collective instruction reached by lanes 16-31 of warp 0 "
                "only",
                lineOf(ptx, "shfl.sync"));
  // The same shuffle with a member mask of the lanes that take it is fine.
  std::string fixed = kernel(R"(
  and.b32 %r3, %tid, 31;
  setp.lt.u32 %p0, %r3, 16;
  @%p0 bra SKIP;
  shfl.sync.bfly.b32 %v, %tid, 1, 31, 0xffff0000;
SKIP:
)");
  EXPECT_TRUE(runKernel(fixed).ok);
}

TEST(SyncCheck, MmaNeedsTheWholeWarp) {
  std::string ptx = kernel(R"(
  mov.b32 %r3, 0;
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r4, %r5, %r6, %r7}, {%r3, %r3, %r3, %r3}, {%r3, %r3}, {%r3, %r3, %r3, %r3};
)");
  // 48 threads: the second warp has lanes 0-15 only.
  LaunchResult r = runKernel(ptx, 48);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::CollectiveDivergence);
  EXPECT_NE(r.message.find("in a partial warp (lanes 0-15 exist"),
            std::string::npos)
      << r.message;
}

TEST(SyncCheck, Deadlock) {
  // Each warp waits at its own named barrier of 64 threads.
  std::string ptx = kernel(R"(
  setp.lt.u32 %p0, %tid, 32;
  @%p0 bar.sync 1, 64;
  @!%p0 bar.sync 2, 64;
)");
  LaunchResult r = runKernel(ptx);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::Deadlock);
  EXPECT_NE(r.message.find("deadlock: 64 threads wait at barriers that never "
                           "complete"),
            std::string::npos)
      << r.message;
}

TEST(Stops, TrapAndEndlessLoop) {
  std::string ptx = kernel("  trap;\n");
  expectFinding(runKernel(ptx), FindingKind::Trap, "trap executed",
                lineOf(ptx, "trap;"));
  Options options = SimRun::defaultOptions();
  options.timeoutSeconds = 1;
  LaunchResult r =
      runKernel(kernel("LOOP:\n  bra.uni LOOP;\n"), 64, 256, options);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::Deadlock);
  EXPECT_NE(r.message.find("did not finish within 1 s"), std::string::npos)
      << r.message;
}

// GMM_SIM_TIMEOUT counts for the whole launch, not only within a block: a
// launch of very many short blocks times out too (it ran to the end,
// checking the time only while a block outlived its slice). Run in a child
// with an alarm, so that a launch that never times out fails the test.
[[noreturn]] void launchManyShortBlocks() {
  alarm(60);
  Options options = SimRun::defaultOptions();
  options.timeoutSeconds = 1;
  SimRun sim(options);
  if (!sim.load(kernel("")))
    std::_Exit(2);
  Buffer &out = sim.buffer(256);
  LaunchResult r =
      sim.launch("k", {2147483647u, 65535, 1}, {32, 1, 1}, {out.address});
  std::fprintf(stderr, "ok=%d deadlock=%d [%s]\n", r.ok,
               r.kind == FindingKind::Deadlock, r.message.c_str());
  std::_Exit(0);
}

TEST(Stops, TimeoutCoversALaunchOfManyShortBlocks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(launchManyShortBlocks(), ::testing::ExitedWithCode(0),
              "ok=0 deadlock=1 \\[kernel k did not finish within 1 s of "
              "simulation");
}

// Launches that run together (kernels of different streams) interleave
// their blocks; the order is computed per block, not listed up front (two
// launches of 2^25 blocks listed 2^26 entries, a gigabyte, before the first
// block ran; the largest grids would need 2^50), and the timeout covers
// them.
[[noreturn]] void launchConcurrentlyManyBlocks() {
  alarm(60);
  Options options = SimRun::defaultOptions();
  options.timeoutSeconds = 1;
  SimRun sim(options);
  if (!sim.load(kernel("")))
    std::_Exit(2);
  Buffer &out = sim.buffer(256);
  const Kernel *k = sim.module->kernel("k");
  std::vector<uint8_t> params(k->paramBufferBytes() + 8, 0);
  std::memcpy(params.data(), &out.address, 8);
  LaunchConfig config;
  config.grid.x = uint32_t(1) << 25;
  config.block.x = 32;
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  std::vector<LaunchResult> results = sim.device.launchAll(
      {{k, config, params.data()}, {k, config, params.data()}});
  getrusage(RUSAGE_SELF, &after);
  long grownMiB = (after.ru_maxrss - before.ru_maxrss) / 1024;
  std::fprintf(stderr, "%d %d %d %d grew %s\n", results[0].ok,
               results[0].kind == FindingKind::Deadlock, results[1].ok,
               results[1].kind == FindingKind::Deadlock,
               grownMiB < 128 ? "little" : "much");
  std::_Exit(0);
}

TEST(Stops, ConcurrentLaunchesOfManyBlocks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(launchConcurrentlyManyBlocks(), ::testing::ExitedWithCode(0),
              "^0 1 0 1 grew little\n$");
}

TEST(Checks, OffMeansNotReported) {
  Options options = SimRun::defaultOptions();
  options.checks.racecheck = options.checks.initcheck = false;
  EXPECT_TRUE(
      runKernel(kernel("  ld.shared.u32 %v, [%sh];\n"), 64, 256, options).ok);
  std::string error;
  Checks checks;
  EXPECT_FALSE(Checks::parse("memcheck,bogus", checks, error));
  EXPECT_NE(error.find("unknown check 'bogus'"), std::string::npos);
  EXPECT_TRUE(Checks::parse("memcheck,synccheck", checks, error));
  EXPECT_TRUE(checks.memcheck && checks.synccheck && !checks.racecheck &&
              !checks.initcheck);
}

TEST(Device, MultiprocessorCountIsConfigurable) {
  // %nsmid reports the configured count, %smid stays below it.
  std::string ptx = ptxHeader("sm_90") + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %nsmid;
  mov.u32 %r1, %smid;
  mov.u32 %r2, %ctaid.x;
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r2, 8;
  add.s64 %rd2, %rd0, %rd1;
  st.global.v2.u32 [%rd2], {%r0, %r1};
  ret;
}
)";
  for (unsigned sms : {0u, 7u}) {
    Options options = SimRun::defaultOptions();
    options.smCount = sms;
    SimRun sim(options);
    ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
    Buffer &out = sim.buffer(16 * 8);
    LaunchResult r = sim.launch("k", {16, 1, 1}, {32, 1, 1}, {out.address});
    ASSERT_TRUE(r.ok) << r.message;
    unsigned want = sms ? sms : 132;
    for (unsigned b = 0; b < 16; ++b) {
      EXPECT_EQ(out.get<uint32_t>(2 * b), want);
      EXPECT_LT(out.get<uint32_t>(2 * b + 1), want);
    }
  }
}

} // namespace
