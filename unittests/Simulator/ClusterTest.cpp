//===- ClusterTest.cpp - thread block clusters on the simulated GPU -------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Clusters (sm_90) on hand-written PTX: the cluster special registers,
// distributed shared memory through mapa and ld/st.shared::cluster,
// barrier.cluster, an mbarrier arrival from another CTA, a TMA load
// multicast to both CTAs of a cluster, .reqnctapercluster; and the launch
// rules and misuse findings.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtils.h"

#include "gmm/Simulator/TensorMap.h"

using namespace gmm::sim;
using namespace gmm::sim::test;

namespace {

LaunchResult launchClusters(SimRun &sim, const std::string &name, Dim3 grid,
                            Dim3 block, Dim3 cluster,
                            const std::vector<uint64_t> &params) {
  return sim.launch(name, grid, block, params, 0, cluster);
}

/// Each CTA of a 2-CTA cluster fills its shared array with 1000 * rank +
/// tid, the cluster synchronizes, and each thread reads its partner CTA's
/// element through mapa and ld.shared::cluster. Thread t of block b writes
/// 8 words at out[8 (64 b + t)]: the partner's value and the cluster
/// registers.
const char *kExchange = R"(
.visible .entry exchange(.param .u64 out)
.explicitcluster
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 data[64];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %cluster_ctarank;
  mul.lo.u32 %r2, %r1, 1000;
  add.u32 %r2, %r2, %r0;
  mov.u32 %r3, data;
  shl.b32 %r4, %r0, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  xor.b32 %r6, %r1, 1;
  mapa.shared::cluster.u32 %r7, %r5, %r6;
  ld.shared::cluster.u32 %r8, [%r7];
  getctarank.shared::cluster.u32 %r9, %r7;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  mov.u32 %r10, %ctaid.x;
  mad.lo.u32 %r11, %r10, 64, %r0;
  mul.wide.u32 %rd0, %r11, 32;
  ld.param.u64 %rd1, [out];
  add.s64 %rd2, %rd1, %rd0;
  mov.u32 %r12, %cluster_nctarank;
  mov.u32 %r13, %clusterid.x;
  mov.u32 %r14, %nclusterid.x;
  mov.u32 %r15, %is_explicit_cluster;
  st.global.v4.u32 [%rd2], {%r8, %r9, %r1, %r12};
  st.global.v4.u32 [%rd2+16], {%r13, %r14, %r15, %r10};
  ret;
}
)";

TEST(Cluster, DistributedSharedMemoryAndTheClusterBarrier) {
  SimRun sim;
  ASSERT_TRUE(sim.load(ptxHeader("sm_90") + kExchange)) << sim.loadLog;
  Buffer &out = sim.buffer(4 * 64 * 32);
  LaunchResult r = launchClusters(sim, "exchange", {4, 1, 1}, {64, 1, 1},
                                  {2, 1, 1}, {out.address});
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t b = 0; b < 4; ++b)
    for (uint32_t t = 0; t < 64; ++t) {
      size_t at = 8 * (64 * b + t);
      uint32_t rank = b % 2, partner = rank ^ 1;
      EXPECT_EQ(out.get<uint32_t>(at), 1000 * partner + t) << b << " " << t;
      EXPECT_EQ(out.get<uint32_t>(at + 1), partner);
      EXPECT_EQ(out.get<uint32_t>(at + 2), rank);
      EXPECT_EQ(out.get<uint32_t>(at + 3), 2u);
      EXPECT_EQ(out.get<uint32_t>(at + 4), b / 2); // %clusterid.x
      EXPECT_EQ(out.get<uint32_t>(at + 5), 2u);    // %nclusterid.x
      EXPECT_EQ(out.get<uint32_t>(at + 6), 1u);    // %is_explicit_cluster
      EXPECT_EQ(out.get<uint32_t>(at + 7), b);
    }
}

/// A 2-CTA cluster kernel k(out): each CTA's threads write 100 rank + t + 1
/// into `src` (fence.proxy.async for the async proxy that reads it), thread 0
/// expects 64 bytes on its own mbarrier, and after a cluster barrier (both
/// mbarriers ready) sends its `src` into the peer's `dst` with a
/// shared-to-shared bulk copy that completes on the peer's mbarrier. Each CTA
/// then waits and writes its `dst`: the peer's words. Without `fence`, the
/// writers of `src` skip fence.proxy.async.
std::string peerCopyKernel(bool fence,
                           const std::string &copy =
                               "cp.async.bulk.shared::cluster.shared::cta."
                               "mbarrier::complete_tx::bytes") {
  std::string ptx = ptxHeader("sm_90") + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 src[64];
  .shared .align 16 .b8 dst[64];
  .shared .align 8 .b64 bar;
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p0, %r0, 0;
  setp.lt.u32 %p1, %r0, 16;
  @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
  mad.lo.u32 %r2, %r1, 100, %r0;
  add.u32 %r2, %r2, 1;
  mov.u32 %r3, src;
  shl.b32 %r4, %r0, 2;
  add.u32 %r5, %r3, %r4;
  @%p1 st.shared.u32 [%r5], %r2;
  mov.u32 %r14, dst;
  add.u32 %r15, %r14, %r4;
  mul.lo.u32 %r2, %r0, 7;
  @%p1 st.shared.u32 [%r15], %r2;
  fence.proxy.async.shared::cta;
  fence.mbarrier_init.release.cluster;
  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  xor.b32 %r6, %r1, 1;
  mov.u32 %r7, dst;
  mapa.shared::cluster.u32 %r8, %r7, %r6;
  mov.u32 %r9, bar;
  mapa.shared::cluster.u32 %r10, %r9, %r6;
  @%p0 COPY [%r8], [src], 64, [%r10];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  @!%p1 bra DONE;
  add.u32 %r11, %r7, %r4;
  ld.shared.u32 %r12, [%r11];
  ld.param.u64 %rd0, [out];
  mad.lo.u32 %r13, %r1, 16, %r0;
  mul.wide.u32 %rd1, %r13, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r12;
DONE:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";
  if (!fence)
    ptx.erase(ptx.find("  fence.proxy.async.shared::cta;\n"),
              std::strlen("  fence.proxy.async.shared::cta;\n"));
  ptx.replace(ptx.find("COPY"), 4, copy);
  return ptx;
}

/// Runs `ptx` (a peerCopyKernel) on one cluster of 2 CTAs and expects
/// CTA rank r's output word i to be `base(i)` plus the peer's word
/// 100 (r ^ 1) + i + 1.
void expectPeerWords(const std::string &ptx,
                     uint32_t (*base)(uint32_t) = nullptr) {
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(2 * 16 * 4);
  LaunchResult r =
      launchClusters(sim, "k", {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {out.address});
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t rank = 0; rank < 2; ++rank)
    for (uint32_t i = 0; i < 16; ++i)
      EXPECT_EQ(out.get<uint32_t>(16 * rank + i),
                (base ? base(i) : 0) + 100 * (rank ^ 1) + i + 1)
          << rank << " " << i;
}

TEST(Cluster, BulkCopyIntoThePeersSharedMemory) {
  expectPeerWords(peerCopyKernel(true));
}

TEST(Cluster, BulkReductionIntoThePeersSharedMemory) {
  // The same exchange as an add.u32 reduction into the peer's `dst`,
  // which its threads set to 7 t.
  expectPeerWords(
      peerCopyKernel(true, "cp.reduce.async.bulk.shared::cluster.shared::cta."
                           "mbarrier::complete_tx::bytes.add.u32"),
      [](uint32_t i) { return 7 * i; });
  // Into shared::cluster the ISA defines fewer pairs than into .global.
  SimRun refused;
  EXPECT_FALSE(refused.load(peerCopyKernel(
      true, "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::"
            "complete_tx::bytes.min.u64")));
  EXPECT_NE(refused.loadLog.find(".min is not defined on .u64 into "
                                 "shared::cluster"),
            std::string::npos)
      << refused.loadLog;
}

TEST(ClusterChecks, PeerCopyOfSharedMemoryWrittenWithoutTheProxyFence) {
  SimRun sim;
  ASSERT_TRUE(sim.load(peerCopyKernel(false))) << sim.loadLog;
  Buffer &out = sim.buffer(2 * 16 * 4);
  expectFinding(
      launchClusters(sim, "k", {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {out.address}),
      FindingKind::SharedRace,
      "a shared-to-shared cp.async.bulk reads shared byte");
}

TEST(Cluster, RequiredClusterSizeOfTheKernel) {
  // .reqnctapercluster 2 with a launch that gives no cluster.
  std::string ptx = ptxHeader("sm_90") + kExchange;
  ptx.replace(ptx.find(".explicitcluster"), 16, ".reqnctapercluster 2, 1, 1");
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(2 * 64 * 32);
  LaunchResult r = launchClusters(sim, "exchange", {2, 1, 1}, {64, 1, 1},
                                  {1, 1, 1}, {out.address});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(out.get<uint32_t>(0), 1000u); // block 0 read rank 1's thread 0
  // Another cluster size than the kernel's is refused.
  r = launchClusters(sim, "exchange", {4, 1, 1}, {64, 1, 1}, {4, 1, 1},
                     {out.address});
  EXPECT_EQ(r.kind, FindingKind::InvalidLaunch) << r.message;
  EXPECT_NE(r.message.find("differs from the kernel's .reqnctapercluster"),
            std::string::npos)
      << r.message;
}

TEST(Cluster, LaunchRules) {
  SimRun sim;
  ASSERT_TRUE(sim.load(ptxHeader("sm_90") + kExchange)) << sim.loadLog;
  Buffer &out = sim.buffer(4 * 64 * 32);
  LaunchResult r = launchClusters(sim, "exchange", {3, 1, 1}, {64, 1, 1},
                                  {2, 1, 1}, {out.address});
  EXPECT_EQ(r.kind, FindingKind::InvalidLaunch);
  EXPECT_NE(r.message.find("grid (3,1,1) is not a multiple of the cluster "
                           "(2,1,1)"),
            std::string::npos)
      << r.message;
  r = launchClusters(sim, "exchange", {32, 1, 1}, {64, 1, 1}, {32, 1, 1},
                     {out.address});
  EXPECT_EQ(r.kind, FindingKind::InvalidLaunch);
  EXPECT_NE(r.message.find("cluster of 32 blocks (the limit is 16)"),
            std::string::npos)
      << r.message;
  Options options = SimRun::defaultOptions();
  options.arch = 80;
  SimRun old(options);
  ASSERT_TRUE(old.load(ptxHeader("sm_80") + R"(
.visible .entry k()
{
  ret;
}
)")) << old.loadLog;
  r = launchClusters(old, "k", {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {});
  EXPECT_NE(r.message.find("thread block clusters need sm_90"),
            std::string::npos)
      << r.message;
}

TEST(Cluster, RemoteMbarrierArrival) {
  // CTA 1's threads arrive on CTA 0's mbarrier (expecting 32 arrivals);
  // CTA 0 waits for the phase, then reads what CTA 1 wrote into its shared
  // memory before arriving.
  std::string ptx = ptxHeader("sm_90") + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 slot[32];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p0, %r0, 0;
  setp.eq.u32 %p1, %r1, 0;
  @%p0 mbarrier.init.shared::cta.b64 [bar], 32;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  @%p1 bra WAIT;
  mov.u32 %r2, slot;
  shl.b32 %r3, %r0, 2;
  add.u32 %r2, %r2, %r3;
  mapa.shared::cluster.u32 %r4, %r2, 0;
  add.u32 %r5, %r0, 500;
  st.shared::cluster.u32 [%r4], %r5;
  mov.u32 %r6, bar;
  mapa.shared::cluster.u32 %r7, %r6, 0;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r7];
  bra DONE;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  mov.u32 %r2, slot;
  shl.b32 %r3, %r0, 2;
  add.u32 %r2, %r2, %r3;
  ld.shared.u32 %r8, [%r2];
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r8;
DONE:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(32 * 4);
  LaunchResult r =
      launchClusters(sim, "k", {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {out.address});
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(out.get<uint32_t>(t), 500 + t);
}

/// The end of the multicast kernels: every CTA copies its 256-word tile to
/// out[rank], and the cluster leaves together.
const std::string kCopyTileOut = R"(  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 1024;
  add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r2, %r0;
COPY:
  setp.ge.u32 %p3, %r2, 256;
  @%p3 bra DONE;
  mov.u32 %r3, tile;
  shl.b32 %r4, %r2, 2;
  add.u32 %r5, %r3, %r4;
  ld.shared.u32 %r6, [%r5];
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r6;
  add.u32 %r2, %r2, 32;
  bra COPY;
DONE:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";

/// Launches `ptx`'s kernel k(map, out) on a 2-CTA cluster of 32 threads
/// each with a 32 x 8 f32 tensor map, and expects each CTA's copy of the
/// box in out[rank].
void expectBothCopies(const std::string &ptx) {
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  std::vector<float> tensor(32 * 8);
  for (size_t i = 0; i < tensor.size(); ++i)
    tensor[i] = static_cast<float>(i) + 0.5f;
  Buffer &in = sim.buffer(tensor);
  Buffer &out = sim.buffer(2 * 1024);
  alignas(64) uint8_t map[128];
  TiledTensorMapArgs a;
  a.dataType = 7;
  a.rank = 2;
  a.globalAddress = in.address;
  a.globalDim[0] = 32;
  a.globalDim[1] = 8;
  a.globalStrides[0] = 128;
  a.boxDim[0] = 32;
  a.boxDim[1] = 8;
  a.elementStrides[0] = a.elementStrides[1] = 1;
  std::string error;
  ASSERT_EQ(encodeTiledTensorMap(a, map, error), TensorMapError::None) << error;
  for (Buffer &b : sim.buffers)
    std::memcpy(sim.device.hostPointer(b.address, b.bytes.size()),
                b.bytes.data(), b.bytes.size());
  Kernel *kernel = sim.module->kernel("k");
  std::vector<uint8_t> params(kernel->paramBufferBytes(), 0);
  std::memcpy(params.data() + kernel->params()[0].offset, map, 128);
  std::memcpy(params.data() + kernel->params()[1].offset, &out.address, 8);
  LaunchConfig config;
  config.grid = {2, 1, 1};
  config.block = {32, 1, 1};
  config.cluster = {2, 1, 1};
  LaunchResult r = sim.device.launch(*kernel, config, params.data());
  ASSERT_TRUE(r.ok) << r.message;
  const float *got = reinterpret_cast<const float *>(
      sim.device.hostPointer(out.address, 2 * 1024));
  for (int rank = 0; rank < 2; ++rank)
    for (int i = 0; i < 256; ++i)
      EXPECT_EQ(got[rank * 256 + i], tensor[i]) << rank << " " << i;
}

/// A kernel in which thread 0 of CTA `issuer` loads a 32 x 8 f32 box with
/// multicast to both CTAs of the cluster; each CTA expects the 1024 bytes on
/// its own mbarrier, waits, and writes its copy to out[rank]. `publish`
/// makes the mbarriers' initialization visible to the cluster (before the
/// expect_tx); `afterWait` runs after the mbarrier wait.
std::string multicastKernel(unsigned issuer, const std::string &publish,
                            const std::string &afterWait = "") {
  return ptxHeader("sm_90") + R"(
.visible .entry k(.param .align 64 .b8 map[128], .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .b16 %h<2>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p0, %r0, 0;
  @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
)" + publish +
         R"(
  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 1024;
  setp.eq.u32 %p1, %r1, )" +
         std::to_string(issuer) + R"(;
  and.pred %p1, %p1, %p0;
  mov.b64 %rd0, map;
  cvta.param.u64 %rd1, %rd0;
  mov.u16 %h0, 3;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [tile], [%rd1, {0, 0}], [bar], %h0;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
)" + afterWait +
         kCopyTileOut;
}

TEST(Cluster, TmaMulticast) {
  expectBothCopies(multicastKernel(0, "  barrier.cluster.arrive.aligned;\n"
                                      "  barrier.cluster.wait.aligned;\n"));
}

TEST(Cluster, MulticastIssuedAfterTheOtherCTAWaits) {
  // CTA 1 issues the multicast, after CTA 0 already waits on its mbarrier
  // (CTA 0 only arrives at the cluster barrier that publishes its
  // mbarrier's initialization, and waits on it later): when CTA 1 then
  // stops at the last cluster barrier, the box still to land in CTA 0 must
  // keep the cluster from being called deadlocked.
  expectBothCopies(
      multicastKernel(1,
                      "  fence.mbarrier_init.release.cluster;\n"
                      "  barrier.cluster.arrive.release.aligned;\n"
                      "  setp.eq.u32 %p1, %r1, 1;\n"
                      "  @%p1 barrier.cluster.wait.acquire.aligned;\n",
                      "  setp.eq.u32 %p1, %r1, 0;\n"
                      "  @%p1 barrier.cluster.wait.acquire.aligned;\n"));
}

TEST(ClusterChecks, BarrierThatPartOfTheClusterSkips) {
  // CTA 1 exits without arriving: CTA 0 waits forever.
  std::string ptx = ptxHeader("sm_90") + R"(
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r0, %cluster_ctarank;
  setp.ne.u32 %p0, %r0, 0;
  @%p0 bra DONE;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
DONE:
  ret;
}
)";
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  LaunchResult r =
      launchClusters(sim, "k", {2, 1, 1}, {64, 1, 1}, {2, 1, 1}, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::Deadlock) << r.message;
  EXPECT_NE(r.message.find("wait at barrier.cluster for the cluster's other "
                           "threads (64 of 128 arrived)"),
            std::string::npos)
      << r.message;
}

TEST(ClusterChecks, PeerReadWithoutTheClusterBarrier) {
  // Without the barrier that orders the partner's stores before the reads,
  // CTA 0 reads its partner's array before the partner ran at all.
  std::string ptx = ptxHeader("sm_90") + kExchange;
  const char *barrier = "  barrier.cluster.arrive.release.aligned;\n"
                        "  barrier.cluster.wait.acquire.aligned;\n";
  ptx.erase(ptx.find(barrier), std::strlen(barrier));
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  Buffer &out = sim.buffer(2 * 64 * 32);
  expectFinding(launchClusters(sim, "exchange", {2, 1, 1}, {64, 1, 1},
                               {2, 1, 1}, {out.address}),
                FindingKind::UninitializedRead,
                "shared::cluster read of 4 bytes at offset 0 of CTA rank 1: "
                "byte 0 was never written by that CTA (a barrier.cluster "
                "missing between its writes and this read?)");
}

TEST(ClusterChecks, RankOutsideTheCluster) {
  std::string ptx = ptxHeader("sm_90") + R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  .shared .align 4 .b32 data[4];
  mov.u32 %r0, data;
  mapa.shared::cluster.u32 %r1, %r0, 2;
  ret;
}
)";
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  LaunchResult r =
      launchClusters(sim, "k", {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {});
  EXPECT_EQ(r.kind, FindingKind::OutOfBounds) << r.message;
  EXPECT_NE(r.message.find("mapa to CTA rank 2 in a cluster of 2"),
            std::string::npos)
      << r.message;
}

} // namespace
