//===- TmaTest.cpp - TMA tensor maps and bulk copies ----------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// cuTensorMapEncodeTiled's rules, and cp.async.bulk.tensor loads and stores
// on hand-written sm_90 PTX: boxes across the tensor's edges (zero and NaN
// fill), element strides, 3-d boxes, the 32-, 64- and 128-byte swizzles,
// clipped stores; and a negative test per TMA misuse. The expected shared
// memory is computed here from the ISA's description (a dense box,
// innermost dimension first; a swizzle moves 16-byte chunk j of 128-byte
// row r to chunk j ^ (r mod 2, 4 or 8)), with literal spot checks.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtils.h"

#include "gmm/Simulator/TensorMap.h"

#include <algorithm>
#include <array>
#include <cmath>

using namespace gmm::sim;
using namespace gmm::sim::test;

namespace {

constexpr int kF32 = 7, kU16 = 1, kBF16 = 9, kU8 = 0;

struct alignas(64) Map {
  uint8_t bytes[128];
};

TiledTensorMapArgs args2d(int type, uint64_t address, uint64_t w, uint64_t h,
                          uint64_t pitch, uint32_t bw, uint32_t bh,
                          int swizzle = kSwizzleNone) {
  TiledTensorMapArgs a;
  a.dataType = type;
  a.rank = 2;
  a.globalAddress = address;
  a.globalDim[0] = w;
  a.globalDim[1] = h;
  a.globalStrides[0] = pitch;
  a.boxDim[0] = bw;
  a.boxDim[1] = bh;
  a.elementStrides[0] = a.elementStrides[1] = 1;
  a.swizzle = swizzle;
  return a;
}

void expectInvalid(const TiledTensorMapArgs &a, const std::string &what) {
  Map map;
  std::string error;
  EXPECT_EQ(encodeTiledTensorMap(a, map.bytes, error), TensorMapError::Invalid)
      << what;
  EXPECT_NE(error.find(what), std::string::npos) << error;
}

TEST(TensorMapEncode, EveryDocumentedRule) {
  TiledTensorMapArgs good = args2d(kF32, 0x10000, 100, 50, 400, 32, 8);
  Map map;
  std::string error;
  ASSERT_EQ(encodeTiledTensorMap(good, map.bytes, error), TensorMapError::None)
      << error;
  TensorMap decoded;
  ASSERT_TRUE(decodeTensorMap(map.bytes, decoded));
  EXPECT_EQ(decoded.rank, 2u);
  EXPECT_EQ(decoded.elementBytes, 4u);
  EXPECT_EQ(decoded.globalStrides[1], 400u);
  EXPECT_EQ(decoded.boxBytes(), 32u * 8 * 4);

  auto with = [&](auto change) {
    TiledTensorMapArgs a = good;
    change(a);
    return a;
  };
  // The map itself: 64-byte aligned.
  EXPECT_EQ(encodeTiledTensorMap(good, map.bytes + 16, error),
            TensorMapError::Invalid);
  EXPECT_NE(error.find("aligned to 64 bytes"), std::string::npos) << error;
  expectInvalid(with([](auto &a) { a.dataType = 16; }),
                "is not a CUtensorMapDataType");
  expectInvalid(with([](auto &a) { a.rank = 0; }), "must be 1 to 5");
  expectInvalid(with([](auto &a) { a.rank = 6; }), "must be 1 to 5");
  expectInvalid(with([](auto &a) { a.globalAddress = 0x10008; }),
                "must be 16-byte aligned");
  expectInvalid(with([](auto &a) { a.globalDim[1] = 0; }),
                "globalDim[1] = 0 must be 1 to 2^32");
  expectInvalid(with([](auto &a) { a.globalDim[0] = (uint64_t(1) << 32) + 1; }),
                "must be 1 to 2^32");
  expectInvalid(with([](auto &a) { a.globalStrides[0] = 404; }),
                "globalStrides[0] = 404 must be a multiple of 16");
  expectInvalid(with([](auto &a) { a.globalStrides[0] = uint64_t(1) << 40; }),
                "below 2^40");
  expectInvalid(with([](auto &a) { a.boxDim[1] = 257; }),
                "boxDim[1] = 257 must be 1 to 256");
  expectInvalid(with([](auto &a) { a.boxDim[0] = 0; }), "must be 1 to 256");
  expectInvalid(with([](auto &a) { a.elementStrides[1] = 9; }),
                "elementStrides[1] = 9 must be 1 to 8");
  expectInvalid(with([](auto &a) { a.elementStrides[0] = 0; }),
                "elementStrides[0] = 0 must be 1 to 8");
  // 3 f32 = 12 bytes: not a multiple of 16.
  expectInvalid(with([](auto &a) { a.boxDim[0] = 3; }),
                "must be a multiple of 16 bytes");
  // 64 f32 = 256 bytes > the 128-byte swizzle span.
  expectInvalid(with([](auto &a) {
                  a.boxDim[0] = 64;
                  a.swizzle = kSwizzle128B;
                }),
                "exceeds the 128-byte swizzle span");
  expectInvalid(with([](auto &a) {
                  a.boxDim[0] = 16;
                  a.swizzle = kSwizzle32B;
                }),
                "exceeds the 32-byte swizzle span");
  expectInvalid(with([](auto &a) { a.swizzle = 7; }),
                "is not a CUtensorMapSwizzle");
  expectInvalid(with([](auto &a) { a.interleave = 3; }),
                "is not a CUtensorMapInterleave");
  expectInvalid(with([](auto &a) { a.interleave = 1; }),
                "an interleaved layout needs tensorRank >= 3");
  expectInvalid(with([](auto &a) { a.l2Promotion = 4; }),
                "is not a CUtensorMapL2promotion");
  expectInvalid(with([](auto &a) { a.oobFill = 2; }),
                "is not a CUtensorMapFloatOOBfill");
  expectInvalid(with([](auto &a) {
                  a.dataType = kU16;
                  a.oobFill = 1;
                }),
                "needs a floating-point tensorDataType, not UINT16");
  // Valid but not modelled: interleaved layouts, packed types, sm_100
  // swizzles.
  TiledTensorMapArgs interleaved = with([](auto &a) {
    a.rank = 3;
    a.globalDim[2] = 2;
    a.globalStrides[1] = 400 * 50;
    a.boxDim[2] = 1;
    a.elementStrides[2] = 1;
    a.interleave = 1;
  });
  EXPECT_EQ(encodeTiledTensorMap(interleaved, map.bytes, error),
            TensorMapError::Unsupported);
  EXPECT_EQ(encodeTiledTensorMap(with([](auto &a) { a.swizzle = 4; }),
                                 map.bytes, error),
            TensorMapError::Unsupported);
  // Not a map.
  Map zeros{};
  EXPECT_FALSE(decodeTensorMap(zeros.bytes, decoded));
}

TEST(TensorMapEncode, PatchedBytesAreCheckedAgain) {
  // A kernel can write a map's bytes: decoding accepts only what the
  // encoder itself would. Find the bytes of boxDim[0] by encoding two maps
  // that differ only there, then patch in an inner box of 8 bytes (below
  // the 16-byte minimum).
  Map a, b;
  std::string error;
  ASSERT_EQ(encodeTiledTensorMap(args2d(kF32, 0x10000, 100, 50, 400, 32, 8),
                                 a.bytes, error),
            TensorMapError::None);
  ASSERT_EQ(encodeTiledTensorMap(args2d(kF32, 0x10000, 100, 50, 400, 36, 8),
                                 b.bytes, error),
            TensorMapError::None);
  int at = -1;
  for (int i = 0; i < 128; ++i)
    if (a.bytes[i] != b.bytes[i]) {
      EXPECT_EQ(at, -1) << "one byte differs";
      at = i;
    }
  ASSERT_GE(at, 0);
  TensorMap decoded;
  EXPECT_TRUE(decodeTensorMap(a.bytes, decoded));
  a.bytes[at] = 2;
  EXPECT_FALSE(decodeTensorMap(a.bytes, decoded));
}

TEST(TensorMapEncode, SwizzleMapsChunksWithinTheirRow) {
  // Literal cases: chunk j of 128-byte row r goes to chunk j ^ (r mod 8)
  // (128B), j ^ (r mod 4) (64B), j ^ (r mod 2) (32B); bytes inside a chunk
  // keep their place.
  EXPECT_EQ(swizzleAddress(0 * 128 + 0 * 16 + 3, kSwizzle128B), 3u);
  EXPECT_EQ(swizzleAddress(1 * 128 + 0 * 16, kSwizzle128B), 1u * 128 + 16);
  EXPECT_EQ(swizzleAddress(3 * 128 + 5 * 16 + 7, kSwizzle128B),
            3u * 128 + 6 * 16 + 7);
  EXPECT_EQ(swizzleAddress(15 * 128 + 2 * 16, kSwizzle128B),
            15u * 128 + 5 * 16);
  EXPECT_EQ(swizzleAddress(1024 + 7 * 128 + 7 * 16, kSwizzle128B),
            1024u + 7 * 128);
  EXPECT_EQ(swizzleAddress(5 * 128 + 1 * 16, kSwizzle64B), 5u * 128 + 0 * 16);
  EXPECT_EQ(swizzleAddress(6 * 128 + 3 * 16, kSwizzle64B), 6u * 128 + 1 * 16);
  EXPECT_EQ(swizzleAddress(6 * 128 + 5 * 16, kSwizzle64B), 6u * 128 + 7 * 16);
  EXPECT_EQ(swizzleAddress(1 * 128 + 0 * 16, kSwizzle32B), 1u * 128 + 16);
  EXPECT_EQ(swizzleAddress(2 * 128 + 1 * 16, kSwizzle32B), 2u * 128 + 16);
  EXPECT_EQ(swizzleAddress(3 * 128 + 6 * 16, kSwizzle32B), 3u * 128 + 7 * 16);
  EXPECT_EQ(swizzleAddress(3 * 128 + 6 * 16, kSwizzleNone), 3u * 128 + 6 * 16);
}

/// A kernel that loads one box with TMA into shared memory at `tile` and
/// copies the tile's bytes to `out` (one word per thread and step).
/// `expectBytes` is what thread 0 expects on the mbarrier.
std::string loadKernel(unsigned rank, unsigned tileBytes, unsigned expectBytes,
                       const std::string &beforeWait = "",
                       const std::string &tileOffset = "0") {
  std::string coords;
  for (unsigned d = 0; d < rank; ++d)
    coords += std::string(d ? ", " : "") + "%c" + std::to_string(d);
  return ptxHeader("sm_90") + R"(
.visible .entry k(.param .align 64 .b8 map[128], .param .u32 c0,
                  .param .u32 c1, .param .u32 c2, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>, %c<3>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 tile[)" +
         std::to_string(tileBytes + 1024) + R"(];
  .shared .align 8 .b64 bar;
  mov.u32 %r0, %tid.x;
  setp.eq.u32 %p0, %r0, 0;
  mov.b64 %rd0, map;
  cvta.param.u64 %rd1, %rd0;
  ld.param.u32 %c0, [c0];
  ld.param.u32 %c1, [c1];
  ld.param.u32 %c2, [c2];
  mov.u32 %r9, tile;
  add.u32 %r9, %r9, )" +
         tileOffset + R"(;
  @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], )" +
         std::to_string(expectBytes) + R"(;
  @%p0 cp.async.bulk.tensor.)" +
         std::to_string(rank) +
         R"(d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r9], [%rd1, {)" +
         coords + R"(}], [bar];
)" + beforeWait +
         R"(
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra WAIT;
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %r0;
COPY:
  setp.ge.u32 %p2, %r1, )" +
         std::to_string(tileBytes / 4) + R"(;
  @%p2 bra DONE;
  shl.b32 %r2, %r1, 2;
  add.u32 %r3, %r9, %r2;
  ld.shared.u32 %r4, [%r3];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  add.u32 %r1, %r1, 64;
  bra COPY;
DONE:
  ret;
}
)";
}

struct TmaRun {
  SimRun sim;
  Buffer *tensor = nullptr;
  Map map{};

  explicit TmaRun(const std::string &ptx) {
    EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  }

  /// A tensor of `bytes` bytes whose byte i is i * 7 + 1 (mod 256), in
  /// elements of `eb` bytes: element e's bytes are distinct per element.
  Buffer &makeTensor(size_t bytes) {
    std::vector<uint8_t> values(bytes);
    for (size_t i = 0; i < bytes; ++i)
      values[i] = static_cast<uint8_t>(i * 7 + 1 + i / 256);
    tensor = &sim.buffer(values);
    return *tensor;
  }

  bool encode(TiledTensorMapArgs a) {
    a.globalAddress = tensor->address;
    std::string error;
    bool ok = encodeTiledTensorMap(a, map.bytes, error) == TensorMapError::None;
    EXPECT_TRUE(ok) << error;
    return ok;
  }

  LaunchResult run(int32_t c0, int32_t c1, int32_t c2, size_t outBytes,
                   std::vector<uint8_t> &out) {
    Buffer &o = sim.buffer(outBytes);
    Kernel *kernel = sim.module ? sim.module->kernel("k") : nullptr;
    if (!kernel) {
      ADD_FAILURE() << "no kernel";
      return {};
    }
    std::vector<uint8_t> params(kernel->paramBufferBytes(), 0);
    const auto &p = kernel->params();
    std::memcpy(params.data() + p[0].offset, map.bytes, 128);
    std::memcpy(params.data() + p[1].offset, &c0, 4);
    std::memcpy(params.data() + p[2].offset, &c1, 4);
    std::memcpy(params.data() + p[3].offset, &c2, 4);
    std::memcpy(params.data() + p[4].offset, &o.address, 8);
    for (Buffer &b : sim.buffers)
      std::memcpy(sim.device.hostPointer(b.address, b.bytes.size()),
                  b.bytes.data(), b.bytes.size());
    LaunchConfig config;
    config.block = {64, 1, 1};
    LaunchResult r = sim.device.launch(*kernel, config, params.data());
    out.assign(outBytes, 0);
    std::memcpy(out.data(), sim.device.hostPointer(o.address, outBytes),
                outBytes);
    return r;
  }
};

/// The reference: byte `i` of the dense box (before swizzling) for a 2-d
/// or 3-d map over a tensor made by makeTensor.
std::vector<uint8_t> referenceBox(const TiledTensorMapArgs &a,
                                  const std::vector<uint8_t> &tensor,
                                  const int32_t *c, unsigned eb,
                                  const uint8_t *fill) {
  uint32_t n[3] = {1, 1, 1};
  for (unsigned d = 0; d < a.rank; ++d)
    n[d] = d == 0
               ? a.boxDim[0]
               : (a.boxDim[d] + a.elementStrides[d] - 1) / a.elementStrides[d];
  std::vector<uint8_t> box;
  for (uint32_t z = 0; z < n[2]; ++z)
    for (uint32_t y = 0; y < n[1]; ++y)
      for (uint32_t x = 0; x < n[0]; ++x) {
        int64_t gx = c[0] + int64_t(x);
        int64_t gy = c[1] + int64_t(y) * a.elementStrides[1];
        int64_t gz = a.rank > 2 ? c[2] + int64_t(z) * a.elementStrides[2] : 0;
        bool inside = gx >= 0 && gx < int64_t(a.globalDim[0]) && gy >= 0 &&
                      gy < int64_t(a.globalDim[1]) && gz >= 0 &&
                      (a.rank < 3 || gz < int64_t(a.globalDim[2]));
        for (unsigned b = 0; b < eb; ++b)
          box.push_back(
              inside ? tensor[gz * (a.rank > 2 ? a.globalStrides[1] : 0) +
                              gy * a.globalStrides[0] + gx * eb + b]
                     : fill[b]);
      }
  return box;
}

/// Where the TMA puts dense byte `i` of a box at a 1024-aligned address.
uint32_t swizzled(uint32_t i, int swizzle) {
  uint32_t row = i / 128, chunk = (i / 16) % 8;
  uint32_t mask = swizzle == kSwizzle128B  ? 7
                  : swizzle == kSwizzle64B ? 3
                  : swizzle == kSwizzle32B ? 1
                                           : 0;
  return row * 128 + ((chunk ^ (row & mask)) * 16) + i % 16;
}

void checkLoad(const TiledTensorMapArgs &shape, unsigned eb,
               std::array<int32_t, 3> c, bool nan = false) {
  TiledTensorMapArgs a = shape;
  uint64_t tensorBytes = a.rank > 2 ? a.globalStrides[1] * a.globalDim[2]
                                    : a.globalStrides[0] * a.globalDim[1];
  uint32_t boxBytes = eb;
  for (unsigned d = 0; d < a.rank; ++d)
    boxBytes *=
        d == 0 ? a.boxDim[0]
               : (a.boxDim[d] + a.elementStrides[d] - 1) / a.elementStrides[d];
  TmaRun run(loadKernel(a.rank, boxBytes, boxBytes));
  Buffer &tensor = run.makeTensor(tensorBytes);
  if (nan)
    a.oobFill = 1;
  ASSERT_TRUE(run.encode(a));
  std::vector<uint8_t> out;
  LaunchResult r = run.run(c[0], c[1], c[2], boxBytes, out);
  ASSERT_TRUE(r.ok) << r.message;
  uint8_t fill[8] = {};
  if (nan) {
    if (eb == 4) {
      uint32_t v = 0x7fffffff;
      std::memcpy(fill, &v, 4);
    } else {
      uint16_t v = 0x7fff;
      std::memcpy(fill, &v, 2);
    }
  }
  std::vector<uint8_t> box = referenceBox(a, tensor.bytes, c.data(), eb, fill);
  ASSERT_EQ(box.size(), boxBytes);
  int mismatches = 0;
  for (uint32_t i = 0; i < boxBytes && mismatches < 8; ++i)
    if (out[swizzled(i, a.swizzle)] != box[i]) {
      ADD_FAILURE() << "box byte " << i << " at shared byte "
                    << swizzled(i, a.swizzle) << ": got "
                    << int(out[swizzled(i, a.swizzle)]) << ", want "
                    << int(box[i]);
      ++mismatches;
    }
}

TEST(Tma, LoadsAcrossEveryEdge) {
  // f32, 10 x 7 with a 48-byte pitch (two padding elements), box 8 x 4.
  // The inner coordinates are multiples of 4 elements (16 bytes), as the
  // GPU requires.
  TiledTensorMapArgs a = args2d(kF32, 0, 10, 7, 48, 8, 4);
  checkLoad(a, 4, {-4, -1, 0}); // top-left corner outside
  checkLoad(a, 4, {4, 5, 0});   // bottom-right corner outside
  checkLoad(a, 4, {0, 2, 0});   // inside
  checkLoad(a, 4, {-8, 0, 0});  // entirely left of the tensor
  checkLoad(a, 4, {0, 7, 0});   // entirely below
  checkLoad(a, 4, {-4, -1, 0}, /*nan=*/true);
}

TEST(Tma, ElementStridesAndThreeDimensions) {
  // u16, 24 x 9 x 3 (pitch 64, plane 640), box 16 x 5 x 2 with element
  // strides 2 in y and 2 in z: 3 rows and 1 plane. The inner coordinates
  // are multiples of 8 elements (16 bytes).
  TiledTensorMapArgs a;
  a.dataType = kU16;
  a.rank = 3;
  a.globalDim[0] = 24;
  a.globalDim[1] = 9;
  a.globalDim[2] = 3;
  a.globalStrides[0] = 64;
  a.globalStrides[1] = 640;
  a.boxDim[0] = 16;
  a.boxDim[1] = 5;
  a.boxDim[2] = 2;
  a.elementStrides[0] = 1;
  a.elementStrides[1] = 2;
  a.elementStrides[2] = 2;
  checkLoad(a, 2, {16, 6, 1});
  checkLoad(a, 2, {-8, -2, -1});
}

TEST(Tma, SwizzledLoads) {
  // bf16 rows of 64 elements (128 bytes), u16 rows of 32 (64 bytes) and 16
  // (32 bytes): 12 rows, so that the 128-byte pattern repeats.
  checkLoad(args2d(kBF16, 0, 200, 40, 512, 64, 12, kSwizzle128B), 2,
            {104, 30, 0});
  checkLoad(args2d(kU16, 0, 200, 40, 512, 32, 12, kSwizzle64B), 2, {8, -4, 0});
  checkLoad(args2d(kU16, 0, 200, 40, 512, 16, 12, kSwizzle32B), 2, {192, 2, 0});
  checkLoad(args2d(kU8, 0, 256, 16, 256, 128, 9, kSwizzle128B), 1, {0, 0, 0});
}

TEST(Tma, StoresClipAtTheTensorsEdges) {
  // Fill shared memory with a pattern (with a 128-byte swizzle on the way:
  // thread t writes dense word t), store a 32 x 4 bf16 box at (-8, 10) of a
  // 40 x 12 tensor: rows 10 and 11 and columns 0 .. 23 are written, nothing
  // else.
  std::string ptx = ptxHeader("sm_90") + R"(
.visible .entry k(.param .align 64 .b8 map[128], .param .u32 c0,
                  .param .u32 c1, .param .u32 c2, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>, %c<3>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 tile[1024];
  mov.u32 %r0, %tid.x;
  mov.b64 %rd0, map;
  cvta.param.u64 %rd1, %rd0;
  ld.param.u32 %c0, [c0];
  ld.param.u32 %c1, [c1];
  // Dense word t (64 words of 4 bytes = 256 bytes = 4 rows of 64 bytes).
  shl.b32 %r1, %r0, 2;
  // 64-byte swizzle: chunk ^= row & 3, row = byte / 128.
  shr.u32 %r2, %r1, 7;
  and.b32 %r2, %r2, 3;
  shl.b32 %r2, %r2, 4;
  xor.b32 %r3, %r1, %r2;
  mov.u32 %r4, tile;
  add.u32 %r5, %r4, %r3;
  add.u32 %r6, %r0, 1000;
  st.shared.u32 [%r5], %r6;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p0, %r0, 0;
  @%p0 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%c0, %c1}], [tile];
  @%p0 cp.async.bulk.commit_group;
  @%p0 cp.async.bulk.wait_group.read 0;
  ret;
}
)";
  TmaRun run(ptx);
  std::vector<uint16_t> zeros(40 * 12, 0xeeee);
  run.tensor = &run.sim.buffer(zeros);
  ASSERT_TRUE(run.encode(args2d(kU16, 0, 40, 12, 80, 32, 4, kSwizzle64B)));
  std::vector<uint8_t> unused;
  LaunchResult r = run.run(-8, 10, 0, 4, unused);
  ASSERT_TRUE(r.ok) << r.message;
  std::vector<uint16_t> got(40 * 12);
  std::memcpy(got.data(),
              run.sim.device.hostPointer(run.tensor->address, got.size() * 2),
              got.size() * 2);
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 40; ++x) {
      uint16_t want = 0xeeee;
      int bx = x + 8, by = y - 10;
      if (by >= 0 && by < 4 && bx >= 0 && bx < 32) {
        // Dense element (by, bx) is half `bx % 2` of word (by * 32 + bx) / 2.
        uint32_t word = (by * 32 + bx) / 2 + 1000;
        want = static_cast<uint16_t>(bx % 2 ? word >> 16 : word);
      }
      EXPECT_EQ(got[y * 40 + x], want) << "x " << x << " y " << y;
    }
}

TiledTensorMapArgs smallMap() { return args2d(kF32, 0, 16, 8, 64, 16, 4); }

LaunchResult runSmall(const std::string &ptx, TiledTensorMapArgs a = smallMap(),
                      int32_t c0 = 0) {
  TmaRun run(ptx);
  run.makeTensor(64 * 8);
  if (!run.encode(a))
    return {};
  std::vector<uint8_t> out;
  return run.run(c0, 0, 0, 256, out);
}

unsigned lineOf(const std::string &ptx, const std::string &text) {
  size_t at = ptx.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  return static_cast<unsigned>(
             std::count(ptx.begin(), ptx.begin() + at, '\n')) +
         1;
}

TEST(TmaChecks, ReadingTheDestinationBeforeTheWait) {
  // The issuing thread reads its destination right after the copy.
  std::string ptx =
      loadKernel(2, 256, 256, "  @%p0 ld.shared.u32 %r8, [%r9+4];\n");
  LaunchResult r = runSmall(ptx);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::AsyncCopyHazard) << r.message;
  EXPECT_NE(r.message.find("the destination of a cp.async.bulk.tensor of "
                           "thread (0,0,0) that has not completed (missing "
                           "wait on its mbarrier's phase before it)"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find(
                "PTX line " +
                std::to_string(lineOf(ptx, "@%p0 ld.shared.u32 %r8")) + ":"),
            std::string::npos)
      << r.message;
}

TEST(TmaChecks, ExpectTxSmallerThanTheBox) {
  // 128 bytes expected, 256 delivered: once the only arrival is in, the
  // count goes below zero.
  LaunchResult r = runSmall(loadKernel(2, 256, 128));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::MbarrierMisuse) << r.message;
  EXPECT_NE(r.message.find("transaction count underflow: 128 more bytes "
                           "completed than expected"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("cp.async.bulk.tensor"), std::string::npos)
      << r.message;
}

TEST(TmaChecks, ExpectTxLargerThanTheBoxDeadlocks) {
  LaunchResult r = runSmall(loadKernel(2, 256, 512));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::Deadlock) << r.message;
  EXPECT_NE(r.message.find("0 of 1 arrivals pending, transaction count 256"),
            std::string::npos)
      << r.message;
}

TEST(TmaChecks, WrongRankMisalignedSwizzleAndNotAMap) {
  // A 3d copy with a rank-2 map.
  LaunchResult r = runSmall(loadKernel(3, 256, 256));
  EXPECT_EQ(r.kind, FindingKind::TmaMisuse) << r.message;
  EXPECT_NE(r.message.find("a 3d copy with a tensor map of rank 2"),
            std::string::npos)
      << r.message;
  // A 128-byte swizzle into a tile 128 bytes past a 1024-byte boundary.
  TiledTensorMapArgs swizzled =
      args2d(kF32, 0, 64, 8, 256, 32, 8, kSwizzle128B);
  r = runSmall(loadKernel(2, 1024, 1024, "", "128"), swizzled);
  EXPECT_EQ(r.kind, FindingKind::TmaMisuse) << r.message;
  EXPECT_NE(r.message.find("is not aligned to the 1024-byte repeat of the "
                           "map's 128-byte swizzle"),
            std::string::npos)
      << r.message;
  // Not 128-byte aligned at all.
  r = runSmall(loadKernel(2, 256, 256, "", "16"));
  EXPECT_EQ(r.kind, FindingKind::Misaligned) << r.message;
  // 128 bytes that cuTensorMapEncodeTiled did not write.
  TmaRun run(loadKernel(2, 256, 256));
  run.makeTensor(512);
  std::vector<uint8_t> out;
  r = run.run(0, 0, 0, 256, out);
  EXPECT_EQ(r.kind, FindingKind::TmaMisuse) << r.message;
  EXPECT_NE(r.message.find("are not a tensor map: neither "
                           "cuTensorMapEncodeTiled nor tensormap.replace "
                           "wrote it"),
            std::string::npos)
      << r.message;
}

/// Threads write a 256-byte tile with st.shared (then fence.proxy.async
/// when `fence`), and thread 0 stores it with TMA (waiting for the store
/// when `wait`).
std::string storeKernel(bool fence, bool wait) {
  return ptxHeader("sm_90") + R"(
.visible .entry k(.param .align 64 .b8 map[128], .param .u32 c0,
                  .param .u32 c1, .param .u32 c2, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 1024 .b8 tile[256];
  mov.u32 %r0, %tid.x;
  shl.b32 %r1, %r0, 2;
  mov.u32 %r2, tile;
  add.u32 %r2, %r2, %r1;
  st.shared.u32 [%r2], %r0;
)" + (fence ? "  fence.proxy.async.shared::cta;\n" : "") +
         R"(  bar.sync 0;
  setp.eq.u32 %p0, %r0, 0;
  mov.b64 %rd0, map;
  cvta.param.u64 %rd1, %rd0;
  @%p0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {0, 0}], [tile];
  @%p0 cp.async.bulk.commit_group;
)" + (wait ? "  @%p0 cp.async.bulk.wait_group.read 0;\n" : "") +
         R"(  ret;
}
)";
}

TEST(TmaChecks, StoreStillReadingWhenTheBlockExits) {
  std::string ptx = storeKernel(/*fence=*/true, /*wait=*/false);
  LaunchResult r = runSmall(ptx);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::TmaMisuse) << r.message;
  EXPECT_NE(r.message.find("the block exited while this cp.async.bulk.tensor "
                           "store was still reading shared memory"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find(
                "PTX line " +
                std::to_string(lineOf(ptx, "@%p0 cp.async.bulk.tensor")) + ":"),
            std::string::npos)
      << r.message;
}

TEST(TmaChecks, StoreOfSharedMemoryWrittenWithoutTheProxyFence) {
  // The tile is stored after a barrier, but without fence.proxy.async in
  // the writing threads.
  std::string ptx = storeKernel(/*fence=*/false, /*wait=*/true);
  LaunchResult r = runSmall(ptx);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::SharedRace) << r.message;
  EXPECT_NE(r.message.find("a cp.async.bulk.tensor store reads shared byte 0, "
                           "which thread (0,0,0) wrote through the generic "
                           "proxy with no fence.proxy.async after it"),
            std::string::npos)
      << r.message;
}

/// Warp 0 copies the parameter map to shared memory (or, `fromZeros`,
/// zeros the 128 bytes there), thread 0 replaces fields there (`replace`:
/// the text after "tensormap.replace.tile."; with `fromZeros`, whole lines,
/// with the tensor's address in %rd9), the warp publishes the map to global
/// memory with tensormap.cp_fenceproxy, thread 0 acquires it (when
/// `acquire`) and loads the 32 x 8 f32 box through it into `out`.
std::string replaceKernel(const std::string &replace, bool acquire,
                          bool fromZeros = false) {
  return ptxHeader("sm_90a") + R"(
.visible .entry k(.param .align 64 .b8 map[128], .param .u64 gmap,
                  .param .u64 out, .param .u64 tensor)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  .shared .align 128 .b8 smap[128];
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  mov.u32 %r0, %tid.x;
  setp.eq.u32 %p0, %r0, 0;
  setp.lt.u32 %p1, %r0, 16;
  mov.b64 %rd0, map;
  cvta.param.u64 %rd1, %rd0;
  mul.wide.u32 %rd2, %r0, 8;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r1, smap;
  cvt.u32.u64 %r2, %rd2;
  add.u32 %r3, %r1, %r2;
  ld.param.u64 %rd9, [tensor];
)" + (fromZeros ? "  mov.b64 %rd4, 0;\n" : "  @%p1 ld.b64 %rd4, [%rd3];\n") +
         R"(
  @%p1 st.shared.b64 [%r3], %rd4;
  bar.sync 0;
)" + (fromZeros ? replace : "  @%p0 tensormap.replace.tile." + replace) +
         R"(
  bar.sync 0;
  ld.param.u64 %rd5, [gmap];
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd5], [smap], 128;
)" +
         (acquire ? "  @%p0 fence.proxy.tensormap::generic.acquire.gpu [%rd5], "
                    "128;\n"
                  : "") +
         R"(
  @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 1024;
  @%p0 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd5, {0, 0}], [bar];
  @!%p0 bra DONE;
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  ld.param.u64 %rd6, [out];
  mov.u32 %r4, 0;
COPY:
  mov.u32 %r5, tile;
  shl.b32 %r6, %r4, 2;
  add.u32 %r5, %r5, %r6;
  ld.shared.u32 %r7, [%r5];
  mul.wide.u32 %rd7, %r4, 4;
  add.s64 %rd8, %rd6, %rd7;
  st.global.u32 [%rd8], %r7;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p3, %r4, 256;
  @%p3 bra COPY;
DONE:
  ret;
}
)";
}

LaunchResult runReplace(const std::string &ptx, std::vector<float> &out) {
  SimRun sim;
  EXPECT_TRUE(sim.load(ptx)) << sim.loadLog;
  std::vector<float> tensor(32 * 8);
  for (size_t i = 0; i < tensor.size(); ++i)
    tensor[i] = static_cast<float>(i) + 0.25f;
  Buffer &in = sim.buffer(tensor);
  Buffer &gmap = sim.buffer(128);
  Buffer &o = sim.buffer(1024);
  alignas(64) uint8_t map[128];
  TiledTensorMapArgs a = args2d(kF32, in.address, 32, 8, 128, 32, 8);
  std::string error;
  EXPECT_EQ(encodeTiledTensorMap(a, map, error), TensorMapError::None) << error;
  for (Buffer &b : sim.buffers)
    std::memcpy(sim.device.hostPointer(b.address, b.bytes.size()),
                b.bytes.data(), b.bytes.size());
  Kernel *kernel = sim.module ? sim.module->kernel("k") : nullptr;
  if (!kernel)
    return {};
  std::vector<uint8_t> params(kernel->paramBufferBytes(), 0);
  std::memcpy(params.data() + kernel->params()[0].offset, map, 128);
  std::memcpy(params.data() + kernel->params()[1].offset, &gmap.address, 8);
  std::memcpy(params.data() + kernel->params()[2].offset, &o.address, 8);
  std::memcpy(params.data() + kernel->params()[3].offset, &in.address, 8);
  LaunchConfig config;
  config.block = {32, 1, 1};
  LaunchResult r = sim.device.launch(*kernel, config, params.data());
  out.resize(256);
  std::memcpy(out.data(), sim.device.hostPointer(o.address, 1024), 1024);
  return r;
}

TEST(Tma, ReplacedMapPublishedAndAcquired) {
  // Dimension 1 shrinks from 8 rows to 5: rows 5-7 of the box read zeros.
  std::vector<float> out;
  LaunchResult r = runReplace(
      replaceKernel("global_dim.shared::cta.b1024.b32 [smap], 1, 5;", true),
      out);
  ASSERT_TRUE(r.ok) << r.message;
  for (int row = 0; row < 8; ++row)
    for (int col = 0; col < 32; ++col)
      EXPECT_EQ(out[row * 32 + col],
                row < 5 ? static_cast<float>(row * 32 + col) + 0.25f : 0.0f)
          << row << " " << col;
}

TEST(TmaChecks, ReplacedMapUsedWithoutItsFence) {
  std::vector<float> out;
  LaunchResult r = runReplace(
      replaceKernel("global_dim.shared::cta.b1024.b32 [smap], 1, 5;", false),
      out);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::TmaMisuse) << r.message;
  EXPECT_NE(r.message.find("was modified (tensormap.replace or "
                           "tensormap.cp_fenceproxy) and is used without a "
                           "fence.proxy.tensormap::generic.acquire of it in "
                           "this thread since"),
            std::string::npos)
      << r.message;
}

TEST(TmaChecks, ReplaceThatBreaksTheRules) {
  std::vector<float> out;
  LaunchResult r = runReplace(
      replaceKernel("global_stride.shared::cta.b1024.b64 [smap], 0, 100;",
                    true),
      out);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FindingKind::TmaMisuse) << r.message;
  // The replace itself succeeds (maps pass through invalid states while
  // they are built); the load that uses the map finds it.
  EXPECT_NE(r.message.find("are not a tensor map: it breaks a rule of "
                           "cuTensorMapEncodeTiled: globalStrides[0] = 100 "
                           "must be a multiple of 16"),
            std::string::npos)
      << r.message;
}

/// Thread 0's replaces that build the 32 x 8 f32 map of runReplace's
/// tensor from zeros, field by field in the order Triton's device-side
/// descriptors use (element strides of the dimensions in `strides`).
std::string buildMapLines(unsigned strides = 2) {
  std::string lines;
  auto replace = [&](const std::string &text) {
    lines += "  @%p0 tensormap.replace.tile." + text + "\n";
  };
  replace("global_address.shared::cta.b1024.b64 [smap], %rd9;");
  replace("rank.shared::cta.b1024.b32 [smap], 1;");
  replace("box_dim.shared::cta.b1024.b32 [smap], 0, 32;");
  replace("box_dim.shared::cta.b1024.b32 [smap], 1, 8;");
  replace("global_dim.shared::cta.b1024.b32 [smap], 0, 32;");
  replace("global_dim.shared::cta.b1024.b32 [smap], 1, 8;");
  replace("global_stride.shared::cta.b1024.b64 [smap], 0, 128;");
  for (unsigned d = 0; d < strides; ++d)
    replace("element_stride.shared::cta.b1024.b32 [smap], " +
            std::to_string(d) + ", 1;");
  replace("elemtype.shared::cta.b1024.b32 [smap], 7;");
  replace("interleave_layout.shared::cta.b1024.b32 [smap], 0;");
  replace("swizzle_mode.shared::cta.b1024.b32 [smap], 0;");
  replace("fill_mode.shared::cta.b1024.b32 [smap], 0;");
  return lines;
}

TEST(Tma, MapBuiltOnTheDeviceFromZeros) {
  std::vector<float> out;
  LaunchResult r =
      runReplace(replaceKernel(buildMapLines(), true, /*fromZeros=*/true), out);
  ASSERT_TRUE(r.ok) << r.message;
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(out[i], static_cast<float>(i) + 0.25f) << i;
}

TEST(TmaChecks, MapBuiltOnTheDeviceUnfinished) {
  // Dimension 1's element stride is never set.
  std::vector<float> out;
  expectFinding(
      runReplace(replaceKernel(buildMapLines(1), true, /*fromZeros=*/true),
                 out),
      FindingKind::TmaMisuse,
      "are not a tensor map: it breaks a rule of cuTensorMapEncodeTiled: "
      "elementStrides[1]");
}

TEST(TmaChecks, ReplaceFormsRefusedAtLoad) {
  const std::pair<const char *, const char *> refused[] = {
      {"swizzle_atomicity.shared::cta.b1024.b32 [smap], 0;", "needs sm_100a"},
      {"rank.shared::cta.b1024.b64 [smap], 1;", "this field takes .b32"},
      {"global_stride.shared::cta.b1024.b32 [smap], 0, 128;",
       "global_address and global_stride take .b64"},
      {"elemtype.shared::cta.b1024.b32 [smap], %r0;", "must be an immediate"},
      {"box_dim.shared::cta.b1024.b32 [smap], %r0, 8;",
       "the ordinal must be an immediate"}};
  for (const auto &[form, message] : refused) {
    SimRun sim;
    EXPECT_FALSE(sim.load(replaceKernel(form, true))) << form;
    EXPECT_NE(sim.loadLog.find(message), std::string::npos) << sim.loadLog;
  }
}

TEST(TensorMapEncode, ReplaceUsesTheISAsNumbering) {
  // From zeros, field by field: the ISA's element types 8, 9 and 10 are
  // CUtensorMapDataType's 10 (f32 ftz), 8 (f64) and 9 (bf16).
  Map map{};
  std::string error;
  auto set = [&](TensorMapField field, unsigned ord, uint64_t value) {
    EXPECT_TRUE(replaceTensorMapField(map.bytes, field, ord, value, error))
        << error;
  };
  set(TensorMapField::GlobalAddress, 0, 0x10000);
  set(TensorMapField::Rank, 0, 1);
  set(TensorMapField::BoxDim, 0, 8);
  set(TensorMapField::BoxDim, 1, 4);
  set(TensorMapField::GlobalDim, 0, 64);
  set(TensorMapField::GlobalDim, 1, 64);
  set(TensorMapField::GlobalStride, 0, 512);
  set(TensorMapField::ElementStride, 0, 1);
  set(TensorMapField::ElementStride, 1, 1);
  const std::pair<unsigned, int> types[] = {{8, 10}, {9, 8}, {10, 9}, {7, 7}};
  for (auto [isa, driver] : types) {
    set(TensorMapField::ElementType, 0, isa);
    TensorMap decoded;
    std::string why;
    ASSERT_TRUE(decodeTensorMap(map.bytes, decoded, &why)) << why;
    EXPECT_EQ(decoded.dataType, driver) << isa;
    EXPECT_EQ(decoded.rank, 2u);
  }
  // Values the fields cannot take, and bytes that are neither a map nor
  // zeros.
  EXPECT_FALSE(
      replaceTensorMapField(map.bytes, TensorMapField::Rank, 0, 5, error));
  EXPECT_NE(error.find("must be 0 to 4"), std::string::npos) << error;
  EXPECT_FALSE(replaceTensorMapField(map.bytes, TensorMapField::SwizzleMode, 0,
                                     4, error));
  EXPECT_NE(error.find("needs sm_103a"), std::string::npos) << error;
  EXPECT_FALSE(replaceTensorMapField(map.bytes, TensorMapField::ElementType, 0,
                                     13, error));
  EXPECT_NE(error.find("needs sm_100"), std::string::npos) << error;
  Map junk{};
  junk.bytes[5] = 1;
  EXPECT_FALSE(
      replaceTensorMapField(junk.bytes, TensorMapField::Rank, 0, 1, error));
  EXPECT_NE(error.find("neither a tensor map nor zeros"), std::string::npos)
      << error;
}

TEST(Tma, PlainBulkCopiesBothWays) {
  // 256 bytes in with cp.async.bulk (completing on an mbarrier), every
  // word incremented, 256 bytes out with a bulk_group store.
  std::string ptx = ptxHeader("sm_90") + R"(
.visible .entry k(.param .u64 src, .param .u64 dst)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 128 .b8 tile[256];
  .shared .align 8 .b64 bar;
  mov.u32 %r0, %tid.x;
  setp.eq.u32 %p0, %r0, 0;
  ld.param.u64 %rd0, [src];
  ld.param.u64 %rd1, [dst];
  @%p0 mbarrier.init.shared::cta.b64 [bar], 1;
  bar.sync 0;
  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;
  @%p0 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd0], 256, [bar];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
  @!%p1 bra WAIT;
  mov.u32 %r1, tile;
  shl.b32 %r2, %r0, 2;
  add.u32 %r1, %r1, %r2;
  ld.shared.u32 %r3, [%r1];
  add.u32 %r3, %r3, 1;
  st.shared.u32 [%r1], %r3;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p0 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 256;
  @%p0 cp.async.bulk.commit_group;
  @%p0 cp.async.bulk.wait_group.read 0;
  ret;
}
)";
  SimRun sim;
  ASSERT_TRUE(sim.load(ptx)) << sim.loadLog;
  std::vector<uint32_t> in(64);
  for (uint32_t i = 0; i < 64; ++i)
    in[i] = i * 1000;
  Buffer &src = sim.buffer(in);
  Buffer &dst = sim.buffer(256);
  LaunchResult r =
      sim.launch("k", {1, 1, 1}, {64, 1, 1}, {src.address, dst.address});
  ASSERT_TRUE(r.ok) << r.message;
  for (uint32_t i = 0; i < 64; ++i)
    EXPECT_EQ(dst.get<uint32_t>(i), i * 1000 + 1) << i;
}

/// A kernel whose 64 threads fill a dense 512-byte tile with words
/// t + 1000 and t + 1064, and whose thread 0 then runs `issue` (with the
/// map's generic address in %rd1, coordinates %c0 and %c1, the out pointer
/// in %rd2) and waits for its bulk group.
std::string reduceKernel(const std::string &issue) {
  return ptxHeader("sm_90") + R"(
.visible .entry k(.param .align 64 .b8 map[128], .param .u32 c0,
                  .param .u32 c1, .param .u32 c2, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>, %c<3>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 tile[512];
  mov.u32 %r0, %tid.x;
  mov.b64 %rd0, map;
  cvta.param.u64 %rd1, %rd0;
  ld.param.u32 %c0, [c0];
  ld.param.u32 %c1, [c1];
  ld.param.u64 %rd2, [out];
  shl.b32 %r1, %r0, 2;
  mov.u32 %r4, tile;
  add.u32 %r5, %r4, %r1;
  add.u32 %r6, %r0, 1000;
  st.shared.u32 [%r5], %r6;
  add.u32 %r6, %r0, 1064;
  st.shared.u32 [%r5+256], %r6;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p0, %r0, 0;
)" + issue +
         R"(
  @%p0 cp.async.bulk.commit_group;
  @%p0 cp.async.bulk.wait_group 0;
  ret;
}
)";
}

TEST(Tma, TensorReductionsClipAtTheEdges) {
  // Add a 32 x 4 u32 box at (-8, 10) into a 40 x 12 tensor: rows 10 and 11,
  // columns 0 .. 23 gain the box's words, nothing else changes.
  TmaRun run(reduceKernel(
      "  @%p0 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile."
      "bulk_group [%rd1, {%c0, %c1}], [tile];"));
  std::vector<uint32_t> init(40 * 12);
  for (uint32_t i = 0; i < init.size(); ++i)
    init[i] = i * 7;
  run.tensor = &run.sim.buffer(init);
  ASSERT_TRUE(run.encode(args2d(2 /*UINT32*/, 0, 40, 12, 160, 32, 4)));
  std::vector<uint8_t> unused;
  LaunchResult r = run.run(-8, 10, 0, 4, unused);
  ASSERT_TRUE(r.ok) << r.message;
  std::vector<uint32_t> got(init.size());
  std::memcpy(got.data(),
              run.sim.device.hostPointer(run.tensor->address, got.size() * 4),
              got.size() * 4);
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 40; ++x) {
      uint32_t want = init[y * 40 + x];
      int bx = x + 8, by = y - 10;
      if (by >= 0 && by < 4 && bx >= 0 && bx < 32)
        want += static_cast<uint32_t>(by * 32 + bx) + 1000;
      EXPECT_EQ(got[y * 40 + x], want) << "x " << x << " y " << y;
    }
}

TEST(Tma, PlainReductions) {
  // min.s32 over 256 bytes, then add.u64 over the same bytes read as 32
  // u64 (the tile's words pair up), then add.f32 (the tile's words are
  // subnormal floats, which the reduction flushes to zero, as it does a
  // subnormal in memory).
  TmaRun run(reduceKernel(
      "  @%p0 cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 "
      "[%rd2], [tile], 256;\n"
      "  @%p0 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64 "
      "[%rd2+256], [tile], 256;\n"
      "  @%p0 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 "
      "[%rd2+512], [tile], 256;"));
  std::vector<int32_t> init(192);
  for (int i = 0; i < 128; ++i)
    init[i] = i < 64 ? (i % 2 ? -5 : 1010) : 3;
  for (int i = 128; i < 192; ++i) {
    float value = i % 2 ? -1e-40f : 2.5f; // subnormal, normal
    std::memcpy(&init[i], &value, 4);
  }
  run.tensor = &run.sim.buffer(init);
  ASSERT_TRUE(run.encode(args2d(kF32, 0, 16, 8, 64, 16, 4)));
  // The output pointer: the tensor itself.
  Kernel *kernel = run.sim.module->kernel("k");
  ASSERT_NE(kernel, nullptr);
  std::vector<uint8_t> params(kernel->paramBufferBytes(), 0);
  const auto &p = kernel->params();
  std::memcpy(params.data() + p[0].offset, run.map.bytes, 128);
  std::memcpy(params.data() + p[4].offset, &run.tensor->address, 8);
  std::memcpy(run.sim.device.hostPointer(run.tensor->address, 768), init.data(),
              768);
  LaunchConfig config;
  config.block = {64, 1, 1};
  LaunchResult r = run.sim.device.launch(*kernel, config, params.data());
  ASSERT_TRUE(r.ok) << r.message;
  const auto *got = static_cast<const uint8_t *>(
      run.sim.device.hostPointer(run.tensor->address, 768));
  for (int i = 0; i < 64; ++i) {
    int32_t v;
    std::memcpy(&v, got + 4 * i, 4);
    EXPECT_EQ(v, std::min(init[i], 1000 + i)) << i;
  }
  for (int i = 0; i < 32; ++i) {
    uint64_t v, before, tile = (uint64_t(1001 + 2 * i) << 32) | (1000 + 2 * i);
    std::memcpy(&v, got + 256 + 8 * i, 8);
    std::memcpy(&before,
                reinterpret_cast<const uint8_t *>(init.data()) + 256 + 8 * i,
                8);
    EXPECT_EQ(v, before + tile) << i;
  }
  for (int i = 0; i < 64; ++i) {
    uint32_t bits;
    std::memcpy(&bits, got + 512 + 4 * i, 4);
    // 2.5 + 0, or -0 + 0 = +0.
    EXPECT_EQ(bits, i % 2 ? 0u : 0x40200000u) << i;
  }
}

TEST(TmaChecks, ReductionsTheISADoesNotDefine) {
  // min on an f32 map: found when the map is read.
  TmaRun run(reduceKernel(
      "  @%p0 cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile."
      "bulk_group [%rd1, {%c0, %c1}], [tile];"));
  run.makeTensor(64 * 8);
  ASSERT_TRUE(run.encode(args2d(kF32, 0, 16, 8, 64, 16, 4)));
  std::vector<uint8_t> unused;
  expectFinding(run.run(0, 0, 0, 4, unused), FindingKind::TmaMisuse,
                "cp.reduce.async.bulk.tensor .min with a tensor map of "
                "element type 7");
  // The plain forms are refused when the PTX is loaded.
  const std::pair<const char *, const char *> refused[] = {
      {"add.f16", "needs .noftz"},
      {"inc.s32", ".inc is not defined on .s32"},
      {"add.noftz.f32", ".noftz is for .add on f16 and bf16"}};
  for (const auto &[form, message] : refused) {
    SimRun sim;
    EXPECT_FALSE(sim.load(
        reduceKernel(std::string("  @%p0 cp.reduce.async.bulk.global.shared::"
                                 "cta.bulk_group.") +
                     form + " [%rd2], [tile], 256;")))
        << form;
    EXPECT_NE(sim.loadLog.find(message), std::string::npos) << sim.loadLog;
  }
}

TEST(TmaChecks, InnerCoordinateNotAMultipleOf16Bytes) {
  // An H200 raises CUDA_ERROR_ILLEGAL_INSTRUCTION for a tile-mode copy
  // whose innermost coordinate times the element size is not a multiple of
  // 16 bytes (loads, stores and reductions; NvccKernelsTest.cpp's
  // TmaBoxVariant_*). A load at x = 2 of an f32 map: 8 bytes.
  std::string load = loadKernel(2, 256, 256);
  LaunchResult r = runSmall(load, smallMap(), 2);
  expectFinding(r, FindingKind::TmaMisuse,
                "cp.async.bulk.tensor load: the innermost box coordinate 2 "
                "(byte offset 8, 4-byte elements) is not a multiple of 16 "
                "bytes; the GPU raises an illegal instruction");
  EXPECT_NE(r.message.find("PTX line " +
                           std::to_string(lineOf(load, "@%p0 cp.async.bulk")) +
                           ":"),
            std::string::npos)
      << r.message;
  // Negative: -2 (-8 bytes) is reported, -4 (-16 bytes, the box's first
  // four columns outside the tensor) is not.
  expectFinding(runSmall(load, smallMap(), -2), FindingKind::TmaMisuse,
                "the innermost box coordinate -2 (byte offset -8");
  r = runSmall(load, smallMap(), -4);
  EXPECT_TRUE(r.ok) << r.message;
  // A store and a reduction of a 32 x 4 u32 box at x = 6 (24 bytes); at
  // x = -4 both run.
  const std::pair<const char *, const char *> copies[] = {
      {"cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group",
       "cp.async.bulk.tensor store"},
      {"cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group",
       "cp.reduce.async.bulk.tensor"}};
  for (const auto &[instruction, name] : copies) {
    SCOPED_TRACE(instruction);
    std::string ptx = reduceKernel(std::string("  @%p0 ") + instruction +
                                   " [%rd1, {%c0, %c1}], [tile];");
    for (int32_t x : {6, -4}) {
      TmaRun run(ptx);
      std::vector<uint32_t> init(40 * 12, 7);
      run.tensor = &run.sim.buffer(init);
      ASSERT_TRUE(run.encode(args2d(2 /*UINT32*/, 0, 40, 12, 160, 32, 4)));
      std::vector<uint8_t> unused;
      r = run.run(x, 2, 0, 4, unused);
      if (x == -4) {
        EXPECT_TRUE(r.ok) << r.message;
        continue;
      }
      expectFinding(r, FindingKind::TmaMisuse,
                    std::string(name) +
                        ": the innermost box coordinate 6 (byte offset 24, "
                        "4-byte elements) is not a multiple of 16 bytes");
      EXPECT_NE(r.message.find("PTX line " +
                               std::to_string(lineOf(
                                   ptx, "@%p0 " + std::string(instruction))) +
                               ":"),
                std::string::npos)
          << r.message;
    }
  }
}

} // namespace
