//===- MbarrierTest.cpp - mbarrier objects on the simulated GPU -----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The mbarrier family on hand-written sm_90 PTX: phase flips, arrival and
// transaction counts, state tokens, parking try_wait, a producer/consumer
// ring, and one negative test per misuse the simulator reports. Expected
// values are worked out by hand from the PTX ISA's definition.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtils.h"

#include <algorithm>
#include <set>

using namespace gmm::sim;
using namespace gmm::sim::test;

namespace {

/// A kernel `k(.param .u64 out)` on sm_90 with an 8-byte mbarrier `bar`
/// (and `bar2`) in shared memory; %tid is the thread index and %out its
/// 8-byte slot of the output.
std::string kernel(const std::string &body) {
  return ptxHeader("sm_90") + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %tid, %r<8>;
  .reg .b64 %out, %rd<8>, %st<4>;
  .shared .align 8 .b64 bar;
  .shared .align 8 .b64 bar2;
  .shared .align 16 .b8 ring[512];
  mov.u32 %tid, %tid.x;
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %tid, 8;
  add.s64 %out, %rd0, %rd1;
  setp.eq.u32 %p7, %tid, 0;
)" + body +
         R"(
  ret;
}
)";
}

LaunchResult run(const std::string &ptx, std::vector<uint64_t> &out,
                 unsigned threads = 64,
                 Options options = SimRun::defaultOptions()) {
  SimRun sim(options);
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &buffer = sim.buffer(threads * 8);
  LaunchResult r =
      sim.launch("k", {1, 1, 1}, {threads, 1, 1}, {buffer.address});
  out.resize(threads);
  for (unsigned t = 0; t < threads; ++t)
    out[t] = buffer.get<uint64_t>(t);
  return r;
}

unsigned lineOf(const std::string &ptx, const std::string &text) {
  size_t at = ptx.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  return static_cast<unsigned>(
             std::count(ptx.begin(), ptx.begin() + at, '\n')) +
         1;
}

void expectFinding(const LaunchResult &r, FindingKind kind,
                   const std::string &what, unsigned line) {
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, kind) << r.message;
  EXPECT_NE(r.message.find(what), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("PTX line " + std::to_string(line) + ":"),
            std::string::npos)
      << r.message;
}

TEST(Mbarrier, PhasesArrivalsAndTransactionCounts) {
  // Phase 0: 64 arrivals and 256 transaction bytes (expected by thread 0,
  // completed by thread 1 after every arrival is in). Phase 1: thread 0's
  // arrive.expect_tx adds 128 bytes that thread 5 completes.
  std::string ptx = kernel(R"(
  @%p7 mbarrier.init.shared::cta.b64 [bar], 64;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  @%p7 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 256;
  bar.sync 0;
  mbarrier.arrive.release.cta.shared::cta.b64 %st0, [bar];
  mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;
  bar.sync 0;
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 0;
  bar.sync 0;
  setp.eq.u32 %p0, %tid, 1;
  @%p0 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 256;
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
  mbarrier.test_wait.parity.shared::cta.b64 %p4, [bar], 1;
  mbarrier.test_wait.shared::cta.b64 %p5, [bar], %st0;
  bar.sync 0;
  @%p7 mbarrier.arrive.expect_tx.shared::cta.b64 %st1, [bar], 128;
  @!%p7 mbarrier.arrive.shared::cta.b64 %st1, [bar];
  setp.eq.u32 %p0, %tid, 5;
  @%p0 mbarrier.complete_tx.shared::cta.b64 [bar], 128;
  mbarrier.try_wait.parity.shared::cta.b64 %p6, [bar], 1;
  mbarrier.pending_count.b64 %r0, %st0;
  cvt.u64.u32 %rd2, %r0;
  shl.b64 %rd2, %rd2, 8;
  shr.u64 %rd3, %st0, 32;
  shl.b64 %rd3, %rd3, 16;
  or.b64 %rd2, %rd2, %rd3;
  shr.u64 %rd3, %st1, 32;
  shl.b64 %rd3, %rd3, 24;
  or.b64 %rd2, %rd2, %rd3;
  selp.u64 %rd3, 1, 0, %p1;
  or.b64 %rd2, %rd2, %rd3;
  selp.u64 %rd3, 2, 0, %p2;
  or.b64 %rd2, %rd2, %rd3;
  selp.u64 %rd3, 4, 0, %p3;
  or.b64 %rd2, %rd2, %rd3;
  selp.u64 %rd3, 8, 0, %p4;
  or.b64 %rd2, %rd2, %rd3;
  selp.u64 %rd3, 16, 0, %p5;
  or.b64 %rd2, %rd2, %rd3;
  selp.u64 %rd3, 32, 0, %p6;
  or.b64 %rd2, %rd2, %rd3;
  st.global.u64 [%out], %rd2;
)");
  std::vector<uint64_t> out;
  LaunchResult r = run(ptx, out);
  ASSERT_TRUE(r.ok) << r.message;
  std::set<uint64_t> pending;
  for (unsigned t = 0; t < 64; ++t) {
    uint64_t v = out[t];
    // Phase 0 waits for its 256 bytes after the last arrival: test_wait
    // says no until thread 1 completes them; try_wait then returns true.
    EXPECT_EQ(v & 1, 0u) << t;
    EXPECT_EQ(v & 2, 0u) << t;
    EXPECT_EQ(v & 4, 4u) << t;
    // Parity 1 is phase 1, in progress; the state of phase 0 is done.
    EXPECT_EQ(v & 8, 0u) << t;
    EXPECT_EQ(v & 16, 16u) << t;
    EXPECT_EQ(v & 32, 32u) << t;
    // Tokens: arrivals of phase 0 and of phase 1.
    EXPECT_EQ((v >> 16) & 0xff, 0u) << t;
    EXPECT_EQ((v >> 24) & 0xff, 1u) << t;
    pending.insert((v >> 8) & 0xff);
  }
  // Each arrival leaves a different number of arrivals pending: 63 .. 0.
  EXPECT_EQ(pending.size(), 64u);
  EXPECT_EQ(*pending.rbegin(), 63u);
}

TEST(Mbarrier, ArriveCountAndDrop) {
  // One arrive of count 3 and arrive_drop: phase 0 needs 4 arrivals (3 + 1
  // from lane 1); lane 1's arrive_drop lowers later phases to 3, which lane
  // 0's second arrive of 3 completes.
  std::string ptx = kernel(R"(
  @%p7 mbarrier.init.shared.b64 [bar], 4;
  bar.sync 0;
  setp.eq.u32 %p0, %tid, 1;
  @%p7 mbarrier.arrive.shared.b64 %st0, [bar], 3;
  @%p0 mbarrier.arrive_drop.shared.b64 %st0, [bar];
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @%p7 mbarrier.arrive.shared.b64 %st1, [bar], 3;
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 1;
  selp.u64 %rd2, 1, 0, %p1;
  selp.u64 %rd3, 2, 0, %p2;
  or.b64 %rd2, %rd2, %rd3;
  st.global.u64 [%out], %rd2;
)");
  std::vector<uint64_t> out;
  LaunchResult r = run(ptx, out, 32);
  ASSERT_TRUE(r.ok) << r.message;
  for (unsigned t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], 3u) << t;
}

TEST(Mbarrier, ProducerConsumerRing) {
  // Warp 0 produces 8 tiles of 32 words into a ring of 2 slots (ring[0,
  // 256)); warp 1 consumes them. Slot s has a "full" mbarrier at ring[256 +
  // 8 s] and an "empty" one at ring[272 + 8 s], 32 arrivals each. The
  // producer's first wait on "empty" (parity 1 in phase 0) passes at once.
  // The race check sees the slots' reuse ordered by the phases.
  std::string ptx = kernel(R"(
  .reg .b32 %i, %slot, %phase, %addr, %val, %sum, %lane, %full, %empty;
  mov.u32 %r0, ring;
  and.b32 %lane, %tid, 31;
  @%p7 mbarrier.init.shared.b64 [ring+256], 32;
  @%p7 mbarrier.init.shared.b64 [ring+264], 32;
  @%p7 mbarrier.init.shared.b64 [ring+272], 32;
  @%p7 mbarrier.init.shared.b64 [ring+280], 32;
  bar.sync 0;
  mov.u32 %i, 0;
  mov.u32 %sum, 0;
  setp.lt.u32 %p6, %tid, 32;
LOOP:
  and.b32 %slot, %i, 1;
  shr.u32 %phase, %i, 1;
  and.b32 %phase, %phase, 1;
  shl.b32 %r1, %slot, 3;
  add.u32 %full, %r0, 256;
  add.u32 %full, %full, %r1;
  add.u32 %empty, %full, 16;
  shl.b32 %r2, %slot, 7;
  shl.b32 %r3, %lane, 2;
  add.u32 %addr, %r0, %r2;
  add.u32 %addr, %addr, %r3;
  @!%p6 bra CONSUME;
  xor.b32 %r4, %phase, 1;
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%empty], %r4;
  mul.lo.u32 %val, %i, 100;
  add.u32 %val, %val, %lane;
  st.shared.u32 [%addr], %val;
  mbarrier.arrive.shared.b64 %st0, [%full];
  bra NEXT;
CONSUME:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%full], %phase;
  ld.shared.u32 %val, [%addr];
  add.u32 %sum, %sum, %val;
  mbarrier.arrive.shared.b64 %st0, [%empty];
NEXT:
  add.u32 %i, %i, 1;
  setp.lt.u32 %p2, %i, 8;
  @%p2 bra LOOP;
  cvt.u64.u32 %rd2, %sum;
  st.global.u64 [%out], %rd2;
)");
  std::vector<uint64_t> out;
  LaunchResult r = run(ptx, out);
  ASSERT_TRUE(r.ok) << r.message;
  for (unsigned lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[lane], 0u);
    // sum over i < 8 of 100 i + lane.
    EXPECT_EQ(out[32 + lane], 2800u + 8 * lane) << lane;
  }
}

TEST(Mbarrier, UseBeforeInit) {
  std::string ptx = kernel(R"(
  mbarrier.arrive.shared.b64 %st0, [bar];
)");
  std::vector<uint64_t> out;
  expectFinding(run(ptx, out), FindingKind::MbarrierMisuse,
                "which holds no mbarrier (mbarrier.init must come first",
                lineOf(ptx, "mbarrier.arrive"));
}

TEST(Mbarrier, UseAfterInval) {
  std::string ptx = kernel(R"(
  @%p7 mbarrier.init.shared.b64 [bar], 1;
  @%p7 mbarrier.inval.shared.b64 [bar];
  @%p7 mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;
)");
  std::vector<uint64_t> out;
  expectFinding(run(ptx, out, 32), FindingKind::MbarrierMisuse,
                "which holds no mbarrier", lineOf(ptx, "mbarrier.test_wait"));
}

TEST(Mbarrier, MoreArrivalsThanExpected) {
  // Lanes 0 and 1 arrive with .noComplete; lane 2's arrival completes the
  // phase, which .noComplete forbids.
  std::string ptx = kernel(R"(
  @%p7 mbarrier.init.shared.b64 [bar], 3;
  bar.sync 0;
  mbarrier.arrive.noComplete.shared.b64 %st0, [bar], 1;
)");
  std::vector<uint64_t> out;
  expectFinding(run(ptx, out, 32), FindingKind::MbarrierMisuse,
                "mbarrier.arrive.noComplete completes the phase of the "
                "mbarrier at shared offset 0x0",
                lineOf(ptx, "mbarrier.arrive"));
  std::string tooMany = kernel(R"(
  @%p7 mbarrier.init.shared.b64 [bar], 2;
  bar.sync 0;
  mbarrier.arrive.shared.b64 %st0, [bar], 3;
)");
  expectFinding(run(tooMany, out, 32), FindingKind::MbarrierMisuse,
                "mbarrier.arrive of 3 arrivals exceeds what the phase still "
                "expects, on the mbarrier at shared offset 0x0 (initialized "
                "at PTX line " +
                    std::to_string(lineOf(tooMany, "mbarrier.init")) +
                    "; phase 0: 2 of 2 arrivals pending",
                lineOf(tooMany, "mbarrier.arrive"));
}

TEST(Mbarrier, TransactionCountUnderflow) {
  // 64 bytes expected, 128 completed after the only arrival.
  std::string ptx = kernel(R"(
  @%p7 mbarrier.init.shared.b64 [bar], 1;
  @%p7 mbarrier.arrive.expect_tx.shared.b64 %st0, [bar], 64;
  @%p7 mbarrier.complete_tx.shared.b64 [bar], 128;
)");
  std::vector<uint64_t> out;
  expectFinding(run(ptx, out, 32), FindingKind::MbarrierMisuse,
                "mbarrier transaction count underflow: 64 more bytes "
                "completed than expected",
                lineOf(ptx, "mbarrier.complete_tx"));
}

TEST(Mbarrier, CountsOutOfRange) {
  std::string ptx = kernel(R"(
  @%p7 mbarrier.init.shared.b64 [bar], 0;
)");
  std::vector<uint64_t> out;
  expectFinding(run(ptx, out, 32), FindingKind::MbarrierMisuse,
                "mbarrier.init with 0 expected arrivals",
                lineOf(ptx, "mbarrier.init"));
  std::string tx = kernel(R"(
  @%p7 mbarrier.init.shared.b64 [bar], 1;
  @%p7 mbarrier.expect_tx.shared.b64 [bar], 1048576;
)");
  expectFinding(run(tx, out, 32), FindingKind::MbarrierMisuse,
                "mbarrier transaction count 1048576 is out of range",
                lineOf(tx, "mbarrier.expect_tx"));
}

TEST(Mbarrier, MisalignedObject) {
  std::string ptx = kernel(R"(
  mov.u32 %r0, ring;
  @%p7 mbarrier.init.shared.b64 [%r0+4], 1;
)");
  std::vector<uint64_t> out;
  LaunchResult r = run(ptx, out, 32);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::Misaligned) << r.message;
}

TEST(Mbarrier, DeadlockNamesEveryWait) {
  // Only warp 0 arrives; both warps wait for phase 0 of `bar`, which needs
  // 64 arrivals.
  std::string ptx = kernel(R"(
  @%p7 mbarrier.init.shared.b64 [bar], 64;
  bar.sync 0;
  setp.lt.u32 %p0, %tid, 32;
  @%p0 mbarrier.arrive.shared.b64 %st0, [bar];
  mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;
)");
  std::vector<uint64_t> out;
  LaunchResult r = run(ptx, out);
  unsigned line = lineOf(ptx, "mbarrier.try_wait");
  expectFinding(r, FindingKind::Deadlock,
                "deadlock: no thread of the block can go on: warp 0 lanes "
                "0-31 wait for the phase of parity 0 of the mbarrier at "
                "shared offset 0x0 (initialized at PTX line " +
                    std::to_string(lineOf(ptx, "mbarrier.init")) +
                    "; phase 0: 32 of 64 arrivals pending, transaction count "
                    "0) (PTX line " +
                    std::to_string(line) + ": mbarrier.try_wait",
                line);
  EXPECT_NE(r.message.find("; warp 1 lanes 0-31 wait for the phase of parity "
                           "0 of the mbarrier at shared offset 0x0"),
            std::string::npos)
      << r.message;
}

/// Each of 64 threads writes 3t + 1 to its output slot, copies it into
/// ring[t] with cp.async, runs `arrive` (on `bar`, initialized for 64
/// arrivals), then (when `wait`) waits for phase 0 and writes ring[t + 1]
/// to its slot.
std::string asyncArriveKernel(const std::string &arrive, bool wait = true) {
  return kernel(R"(
  @%p7 mbarrier.init.shared::cta.b64 [bar], 64;
  bar.sync 0;
  mul.lo.u32 %r0, %tid, 3;
  add.u32 %r0, %r0, 1;
  cvt.u64.u32 %rd2, %r0;
  st.global.u64 [%out], %rd2;
  mov.u32 %r1, ring;
  shl.b32 %r2, %tid, 3;
  add.u32 %r3, %r1, %r2;
  cp.async.ca.shared.global [%r3], [%out], 8;
)" + arrive +
                (wait ? R"(
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p0, [bar], 0;
  @!%p0 bra WAIT;
)"
                      : "") +
                R"(
  add.u32 %r4, %tid, 1;
  and.b32 %r4, %r4, 63;
  shl.b32 %r4, %r4, 3;
  add.u32 %r5, %r1, %r4;
  ld.shared.u64 %rd3, [%r5];
  st.global.u64 [%out], %rd3;
)");
}

TEST(Mbarrier, CpAsyncArrivesWhenItsCopiesLand) {
  // .noinc: the copies' arrivals are the phase's 64. Without .noinc the
  // pending count goes up by one per thread first, and the threads' own
  // arrivals are the 64: either way the phase completes only once every
  // copy has landed.
  for (const char *arrive :
       {"  cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n",
        "  cp.async.mbarrier.arrive.shared::cta.b64 [bar];\n"
        "  mbarrier.arrive.shared::cta.b64 %st0, [bar];\n"}) {
    std::vector<uint64_t> out;
    LaunchResult r = run(asyncArriveKernel(arrive), out);
    ASSERT_TRUE(r.ok) << arrive << r.message;
    for (unsigned t = 0; t < 64; ++t)
      EXPECT_EQ(out[t], ((t + 1) % 64) * 3 + 1) << arrive << t;
  }
}

TEST(Mbarrier, CpAsyncDestinationReadBeforeThePhase) {
  std::vector<uint64_t> out;
  std::string ptx = asyncArriveKernel(
      "  cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n", false);
  expectFinding(run(ptx, out), FindingKind::AsyncCopyHazard,
                "that has not completed (missing cp.async.wait_group/wait_all, "
                "or the wait on the mbarrier of a cp.async.mbarrier.arrive, "
                "before it)",
                lineOf(ptx, "ld.shared.u64 %rd3"));
}

TEST(Mbarrier, CpAsyncArrivalOnNoMbarrier) {
  std::vector<uint64_t> out;
  std::string ptx = asyncArriveKernel(
      "  cp.async.mbarrier.arrive.noinc.shared.b64 [bar2];\n");
  expectFinding(run(ptx, out), FindingKind::MbarrierMisuse,
                "cp.async.mbarrier.arrive on shared offset 0x8, which holds "
                "no mbarrier",
                lineOf(ptx, "cp.async.mbarrier.arrive"));
}

TEST(Mbarrier, Sm90FormsNeedSm90) {
  Options options = SimRun::defaultOptions();
  options.arch = 80;
  SimRun sim(options);
  std::string ptx = ptxHeader("sm_80") + R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .shared .align 8 .b64 bar;
  mbarrier.try_wait.parity.shared.b64 %p1, [bar], 0;
  ret;
}
)";
  EXPECT_FALSE(sim.load(ptx));
  EXPECT_NE(sim.loadLog.find("this mbarrier form needs sm_90"),
            std::string::npos)
      << sim.loadLog;
}

} // namespace
