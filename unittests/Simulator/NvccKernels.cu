//===- NvccKernels.cu - CUDA kernels whose PTX nvcc writes ----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Kernels that nvcc (not LLVM) compiles to PTX, so that the simulator meets
// the instruction selection, modifiers and idioms of NVIDIA's compiler:
// inline-PTX tensor-core code (ldmatrix, mma.sync, cp.async), warp
// shuffles and votes, shared-memory tiling, atomics, and the integer and
// floating-point intrinsics of the CUDA math API. NvccKernelsTest.cpp runs
// them on the simulator and checks them against the CPU; built as
// GMMNvccKernelsOnGPU, it runs them on a real GPU (scripts/gpu-check.sh),
// with wgmma_sw128_base_offset, the experiment on the wgmma descriptor's
// base offset.
//
// Build: nvcc -ptx -arch=sm_80 -O3 -lineinfo NvccKernels.cu
// (NvccKernels.cmake). Every kernel is extern "C", so its PTX name is its
// C name.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace {

__device__ __forceinline__ unsigned sharedAddress(const void *pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

/// D = A * B + C for a 16x16 A (row-major, `Half` elements), a 16 x (8 *
/// warps) B (row-major, K x N) and C/D (row-major f32): warp w computes
/// columns [8w, 8w + 8). A and B go through shared memory and ldmatrix;
/// `BF16` picks the mma's multiplicand type.
template <typename Half, bool BF16, int Warps>
__device__ __forceinline__ void mmaM16N8K16(const Half *a, const Half *b,
                                            const float *c, float *d) {
  constexpr int N = 8 * Warps;
  __shared__ __align__(16) Half as[16 * 16];
  __shared__ __align__(16) Half bs[16 * N];
  int tid = threadIdx.x;
  for (int i = tid; i < 16 * 16; i += 32 * Warps)
    as[i] = a[i];
  for (int i = tid; i < 16 * N; i += 32 * Warps)
    bs[i] = b[i];
  __syncthreads();

  int lane = tid % 32, warp = tid / 32;
  // A: four 8x8 matrices (rows 0-7 / 8-15 x columns 0-7 / 8-15), in the
  // order of the fragment registers a0a1, a2a3, a4a5, a6a7. Lanes 8i..8i+7
  // give the row addresses of matrix i.
  int aRow = (lane % 8) + ((lane / 8) % 2) * 8;
  int aCol = (lane / 16) * 8;
  unsigned aAddr = sharedAddress(&as[aRow * 16 + aCol]);
  unsigned a0, a1, a2, a3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, "
               "[%4];\n"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
               : "r"(aAddr));
  // B: two 8x8 matrices (k 0-7 and k 8-15) stored k-major; .trans hands
  // each lane the column-major fragment mma expects. Lanes 0-15 give the
  // addresses of rows k = 0..15 (lanes 16-31 must be valid addresses too,
  // they are ignored for .x2).
  int bRow = lane % 16;
  unsigned bAddr = sharedAddress(&bs[bRow * N + warp * 8]);
  unsigned b0, b1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, "
               "[%2];\n"
               : "=r"(b0), "=r"(b1)
               : "r"(bAddr));

  int g = lane / 4, t = lane % 4;
  int col = warp * 8 + 2 * t;
  float c0 = c[g * N + col], c1 = c[g * N + col + 1];
  float c2 = c[(g + 8) * N + col], c3 = c[(g + 8) * N + col + 1];
  float d0, d1, d2, d3;
  if constexpr (!BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%10, %11, %12, %13};\n"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),
                   "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%10, %11, %12, %13};\n"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),
                   "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  d[g * N + col] = d0;
  d[g * N + col + 1] = d1;
  d[(g + 8) * N + col] = d2;
  d[(g + 8) * N + col + 1] = d3;
}

} // namespace

//===----------------------------------------------------------------------===//
// mma.sync
//===----------------------------------------------------------------------===//

/// 2 warps: D (16x16, f32) = A (16x16, f16) * B (16x16, f16) + C.
extern "C" __global__ void mma_f16(const __half *a, const __half *b,
                                   const float *c, float *d) {
  mmaM16N8K16<__half, false, 2>(a, b, c, d);
}

/// 2 warps: D (16x16, f32) = A (16x16, bf16) * B (16x16, bf16) + C.
extern "C" __global__ void mma_bf16(const __nv_bfloat16 *a,
                                    const __nv_bfloat16 *b, const float *c,
                                    float *d) {
  mmaM16N8K16<__nv_bfloat16, true, 2>(a, b, c, d);
}

/// 1 warp: D (16x8) = A (16x8, row-major) * B (8x8, row-major K x N) + C,
/// with tf32 multiplicands loaded by plain loads into the documented
/// fragment layout: a_i at (g + 8 * (i % 2), t + 4 * (i / 2)), b_i at
/// (k = t + 4 * i, n = g), c_i at (g + 8 * (i / 2), 2t + i % 2). A goes
/// through cvt.rna.tf32.f32 (a no-op on tf32-exact values); B is passed as
/// its f32 bits.
extern "C" __global__ void mma_tf32(const float *a, const float *b,
                                    const float *c, float *d) {
  int lane = threadIdx.x % 32;
  int g = lane / 4, t = lane % 4;
  unsigned af[4], bf[2];
  for (int i = 0; i < 4; ++i) {
    float x = a[(g + 8 * (i % 2)) * 8 + t + 4 * (i / 2)];
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(af[i]) : "f"(x));
  }
  for (int i = 0; i < 2; ++i)
    bf[i] = __float_as_uint(b[(t + 4 * i) * 8 + g]);
  float cf[4], df[4];
  for (int i = 0; i < 4; ++i)
    cf[i] = c[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%10, %11, %12, %13};\n"
               : "=f"(df[0]), "=f"(df[1]), "=f"(df[2]), "=f"(df[3])
               : "r"(af[0]), "r"(af[1]), "r"(af[2]), "r"(af[3]), "r"(bf[0]),
                 "r"(bf[1]), "f"(cf[0]), "f"(cf[1]), "f"(cf[2]), "f"(cf[3]));
  for (int i = 0; i < 4; ++i)
    d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = df[i];
}

//===----------------------------------------------------------------------===//
// cp.async
//===----------------------------------------------------------------------===//

namespace {
constexpr int kCopyThreads = 64;
constexpr int kCopyTile = kCopyThreads * 4; // floats: 16 bytes a thread
} // namespace

/// One block of 64 threads streams `n` floats through two shared tiles of
/// 256 floats with cp.async.cg (16 bytes a thread; the last tile is cut
/// short with src-size, the rest zero-filled). Thread t adds up, over all
/// tiles, elements t, t + 64, t + 128 and t + 192 of each tile (written by
/// other threads) into sums[t]; tileOut receives the last tile as copied.
extern "C" __global__ void cp_async_double_buffer(const float *in, int n,
                                                  float *sums, float *tileOut) {
  __shared__ __align__(16) float tiles[2][kCopyTile];
  int tid = threadIdx.x;
  int numTiles = (n + kCopyTile - 1) / kCopyTile;
  auto issue = [&](int tile) {
    int first = tile * kCopyTile + tid * 4;
    int valid = n - first;
    valid = valid < 0 ? 0 : (valid > 4 ? 4 : valid);
    // With nothing to read, point at the (valid) start of the array.
    const float *src = valid ? in + first : in;
    unsigned dst = sharedAddress(&tiles[tile % 2][tid * 4]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(src), "r"(valid * 4)
                 : "memory");
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };
  float sum = 0;
  issue(0);
  for (int tile = 0; tile < numTiles; ++tile) {
    if (tile + 1 < numTiles) {
      issue(tile + 1);
      asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    }
    __syncthreads();
    const float *buffer = tiles[tile % 2];
    for (int j = 0; j < 4; ++j)
      sum += buffer[tid + j * kCopyThreads];
    if (tile == numTiles - 1)
      for (int j = 0; j < 4; ++j)
        tileOut[tid * 4 + j] = buffer[tid * 4 + j];
    __syncthreads();
  }
  sums[tid] = sum;
}

/// cp.async.ca of 8 and 4 bytes with src-size below cp-size: thread t
/// copies (t % 9) bytes of its 8 and (t % 5) bytes of its 4 (the rest of
/// each destination is zero-filled) over shared memory first set to 0xA5
/// bytes. Thread t then reads thread (t + 1) % 64's destinations.
extern "C" __global__ void cp_async_zfill(const uint2 *in8, const unsigned *in4,
                                          uint2 *out8, unsigned *out4) {
  __shared__ __align__(8) uint2 s8[kCopyThreads];
  __shared__ unsigned s4[kCopyThreads];
  int tid = threadIdx.x;
  s8[tid] = make_uint2(0xA5A5A5A5u, 0xA5A5A5A5u);
  s4[tid] = 0xA5A5A5A5u;
  __syncthreads();
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(
                   sharedAddress(&s8[tid])),
               "l"(in8 + tid), "r"(tid % 9)
               : "memory");
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(
                   sharedAddress(&s4[tid])),
               "l"(in4 + tid), "r"(tid % 5)
               : "memory");
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  int next = (tid + 1) % kCopyThreads;
  out8[tid] = s8[next];
  out4[tid] = s4[next];
}

//===----------------------------------------------------------------------===//
// warp shuffles and votes
//===----------------------------------------------------------------------===//

/// One block of 64 threads (2 warps); out has 16 ints per thread:
///  0: warp sum by __shfl_xor_sync (every lane)
///  1: warp max by __shfl_down_sync (lane 0 meaningful; others as computed)
///  2: inclusive prefix sum by __shfl_up_sync
///  3: broadcast of lane (5 * warp + 3) % 32 by __shfl_sync
///  4: __shfl_sync from lane (7 * lane + 3) % 32 (a permutation)
///  5: sum over each 8-lane segment by __shfl_xor_sync(..., width 8)
///  6: __shfl_down_sync(v, 3, 16) (width 16: out-of-segment keeps own value)
///  7: __shfl_up_sync(v, 5, 8)
///  8: __ballot_sync(full, v > 50)
///  9: __all_sync(full, v >= 0)
/// 10: __all_sync(full, v > 10)
/// 11: __any_sync(full, v == 77)
/// 12: __any_sync(full, v < 0)
/// 13: on odd lanes only, __ballot_sync(0xAAAAAAAA, v & 1), else -1
/// 14: float warp sum of v * 0.25 by __shfl_xor_sync, as bits
/// 15: __popc(__ballot_sync(full, lane < v % 32))
extern "C" __global__ void warp_shuffle(const int *in, int *out) {
  const unsigned full = 0xffffffffu;
  int tid = threadIdx.x;
  int lane = tid % 32, warp = tid / 32;
  int v = in[tid];
  int *o = out + tid * 16;

  int sum = v;
  for (int m = 16; m >= 1; m /= 2)
    sum += __shfl_xor_sync(full, sum, m);
  o[0] = sum;

  int mx = v;
  for (int d = 16; d >= 1; d /= 2)
    mx = max(mx, __shfl_down_sync(full, mx, d));
  o[1] = mx;

  int scan = v;
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(full, scan, d);
    if (lane >= d)
      scan += up;
  }
  o[2] = scan;

  o[3] = __shfl_sync(full, v, (5 * warp + 3) % 32);
  o[4] = __shfl_sync(full, v, (7 * lane + 3) % 32);

  int seg = v;
  for (int m = 4; m >= 1; m /= 2)
    seg += __shfl_xor_sync(full, seg, m, 8);
  o[5] = seg;

  o[6] = __shfl_down_sync(full, v, 3, 16);
  o[7] = __shfl_up_sync(full, v, 5, 8);

  o[8] = static_cast<int>(__ballot_sync(full, v > 50));
  o[9] = __all_sync(full, v >= 0);
  o[10] = __all_sync(full, v > 10);
  o[11] = __any_sync(full, v == 77);
  o[12] = __any_sync(full, v < 0);

  int odd = -1;
  if (lane & 1)
    odd = static_cast<int>(__ballot_sync(0xAAAAAAAAu, v & 1));
  o[13] = odd;

  float f = v * 0.25f;
  for (int m = 16; m >= 1; m /= 2)
    f += __shfl_xor_sync(full, f, m);
  o[14] = __float_as_int(f);

  o[15] = __popc(__ballot_sync(full, lane < v % 32));
}

//===----------------------------------------------------------------------===//
// shared-memory tiled matmul
//===----------------------------------------------------------------------===//

/// C (m x n) = A (m x k) * B (k x n), all row-major f32, with 16x16 tiles
/// in shared memory; blocks of 16x16 threads, a grid covering C.
extern "C" __global__ void tiled_matmul(const float *a, const float *b,
                                        float *c, int m, int n, int k) {
  constexpr int T = 16;
  __shared__ float at[T][T];
  __shared__ float bt[T][T + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0;
  for (int k0 = 0; k0 < k; k0 += T) {
    at[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bt[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < T; ++kk)
      acc += at[ty][kk] * bt[kk][tx];
    __syncthreads();
  }
  if (row < m && col < n)
    c[row * n + col] = acc;
}

//===----------------------------------------------------------------------===//
// atomics
//===----------------------------------------------------------------------===//

/// Counters (ints unless noted), updated by every thread i of the grid
/// with v = values[i]:
///   ints[0]: atomicAdd(1), its return value stored in tickets[i]
///   ints[1]: atomicMax(v)       ints[2]: atomicMin(v)
///   ints[3]: atomicAnd(~(1 << ((v & 7) * 3 + 1)))
///   ints[4]: atomicOr(1 << ((v & 7) * 3))
///   ints[5]: atomicXor(v)       ints[6]: atomicSub(v)
///   ints[7]: atomicInc(limit 12) (unsigned)
///   ints[8]: atomicAdd(v), result unused (red)
///   floats[0]: atomicAdd(v * 0.5f)
///   floats[1]: atomicAdd(v * 0.25f) in shared memory, then one
///              atomicAdd per block
///   packed: CAS loop adding (1 << 32) | (v & 0xff)
///   fmax (float bits): CAS loop computing the max of v * 0.125f
///   hist[32]: a shared histogram of v & 31, merged with atomicAdd
extern "C" __global__ void atomics(const int *values, int *ints, float *floats,
                                   unsigned long long *packed, int *fmax,
                                   unsigned *hist, int *tickets) {
  __shared__ unsigned sh[32];
  __shared__ float shSum;
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  if (tid < 32)
    sh[tid] = 0;
  if (tid == 0)
    shSum = 0;
  __syncthreads();

  int v = values[i];
  tickets[i] = atomicAdd(&ints[0], 1);
  atomicMax(&ints[1], v);
  atomicMin(&ints[2], v);
  atomicAnd(&ints[3], ~(1 << ((v & 7) * 3 + 1)));
  atomicOr(&ints[4], 1 << ((v & 7) * 3));
  atomicXor(&ints[5], v);
  atomicSub(&ints[6], v);
  atomicInc(reinterpret_cast<unsigned *>(&ints[7]), 12u);
  atomicAdd(&ints[8], v);
  atomicAdd(&floats[0], v * 0.5f);
  atomicAdd(&shSum, v * 0.25f);

  unsigned long long add = (1ull << 32) | static_cast<unsigned>(v & 0xff);
  unsigned long long old = *packed, assumed;
  do {
    assumed = old;
    old = atomicCAS(packed, assumed, assumed + add);
  } while (old != assumed);

  float f = v * 0.125f;
  int oldBits = *fmax, assumedBits;
  do {
    assumedBits = oldBits;
    if (__int_as_float(assumedBits) >= f)
      break;
    oldBits = atomicCAS(fmax, assumedBits, __float_as_int(f));
  } while (oldBits != assumedBits);

  atomicAdd(&sh[v & 31], 1u);
  __syncthreads();
  if (tid < 32)
    atomicAdd(&hist[tid], sh[tid]);
  if (tid == 0)
    atomicAdd(&floats[1], shSum);
}

//===----------------------------------------------------------------------===//
// integer and floating-point corner cases
//===----------------------------------------------------------------------===//

/// For each i < n, with x = xs[i], y = ys[i], writes 16 words to out:
///  0: __float2half_rn(x) bits    1: __float2bfloat16(x) bits
///  2: __fmul_rz(x, y)            3: __fadd_rd(x, y)
///  4: __fadd_ru(x, y)            5: __fmul_rn(x, y)
///  6: __float2int_rn(x)          7: __float2int_rz(x)
///  8: __float2uint_rn(x)         9, 10: __float2ll_rn(x) (low, high)
/// 11: __fsqrt_rn(x)             12: __frcp_rn(x)
/// 13: __half2float(__float2half_rn(x))
/// 14: __bfloat162float(__float2bfloat16_rz(x))
/// 15: __fdiv_rn(x, y)
extern "C" __global__ void float_corners(const float *xs, const float *ys,
                                         int n, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = xs[i], y = ys[i];
  unsigned *o = out + i * 16;
  o[0] = __half_as_ushort(__float2half_rn(x));
  o[1] = __bfloat16_as_ushort(__float2bfloat16(x));
  o[2] = __float_as_uint(__fmul_rz(x, y));
  o[3] = __float_as_uint(__fadd_rd(x, y));
  o[4] = __float_as_uint(__fadd_ru(x, y));
  o[5] = __float_as_uint(__fmul_rn(x, y));
  o[6] = static_cast<unsigned>(__float2int_rn(x));
  o[7] = static_cast<unsigned>(__float2int_rz(x));
  o[8] = __float2uint_rn(x);
  long long ll = __float2ll_rn(x);
  o[9] = static_cast<unsigned>(ll);
  o[10] = static_cast<unsigned>(static_cast<unsigned long long>(ll) >> 32);
  o[11] = __float_as_uint(__fsqrt_rn(x));
  o[12] = __float_as_uint(__frcp_rn(x));
  o[13] = __float_as_uint(__half2float(__float2half_rn(x)));
  o[14] = __float_as_uint(__bfloat162float(__float2bfloat16_rz(x)));
  o[15] = __float_as_uint(__fdiv_rn(x, y));
}

/// For each i < n, with 32-bit a = as[i], b = bs[i], c = cs[i] and 64-bit
/// p = ps[i], q = qs[i], writes 24 words to out:
///  0: __popc(a)   1: __clz(a)   2: __brev(a)   3: __ffs(a)
///  4: __byte_perm(a, b, c & 0x7777)   5: prmt.b32 a, b, c (sign mode bits)
///  6: __funnelshift_l(a, b, c)        7: __funnelshift_lc(a, b, c)
///  8: __funnelshift_r(a, b, c)        9: __umulhi(a, b)
/// 10: __mulhi(a, b)                  11: __popcll(p)  12: __clzll(p)
/// 13, 14: __umul64hi(p, q)           15, 16: __mul64hi(p, q)
/// 17, 18: p / q (signed)             19, 20: p % q (signed)
/// 21, 22: p / q (unsigned)           23: (unsigned)(p % q) (unsigned, low)
extern "C" __global__ void int_corners(const unsigned *as, const unsigned *bs,
                                       const unsigned *cs, const long long *ps,
                                       const long long *qs, int n,
                                       unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned a = as[i], b = bs[i], c = cs[i];
  long long p = ps[i], q = qs[i];
  unsigned long long up = p, uq = q;
  unsigned *o = out + i * 24;
  o[0] = __popc(a);
  o[1] = __clz(static_cast<int>(a));
  o[2] = __brev(a);
  o[3] = __ffs(static_cast<int>(a));
  o[4] = __byte_perm(a, b, c & 0x7777);
  unsigned perm;
  asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(perm) : "r"(a), "r"(b), "r"(c));
  o[5] = perm;
  o[6] = __funnelshift_l(a, b, c);
  o[7] = __funnelshift_lc(a, b, c);
  o[8] = __funnelshift_r(a, b, c);
  o[9] = __umulhi(a, b);
  o[10] =
      static_cast<unsigned>(__mulhi(static_cast<int>(a), static_cast<int>(b)));
  o[11] = __popcll(up);
  o[12] = __clzll(p);
  auto put64 = [&](int at, unsigned long long value) {
    o[at] = static_cast<unsigned>(value);
    o[at + 1] = static_cast<unsigned>(value >> 32);
  };
  put64(13, __umul64hi(up, uq));
  put64(15, static_cast<unsigned long long>(__mul64hi(p, q)));
  put64(17, static_cast<unsigned long long>(p / q));
  put64(19, static_cast<unsigned long long>(p % q));
  put64(21, up / uq);
  o[23] = static_cast<unsigned>(up % uq);
}

//===----------------------------------------------------------------------===//
// mbarrier (sm_90): a producer/consumer ring
//===----------------------------------------------------------------------===//

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
namespace {

__device__ __forceinline__ void mbarrierInit(uint64_t *bar, unsigned count) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(sharedAddress(bar)),
      "r"(count)
      : "memory");
}

__device__ __forceinline__ void mbarrierArrive(uint64_t *bar) {
  asm volatile("{\n"
               "  .reg .b64 state;\n"
               "  mbarrier.arrive.release.cta.shared::cta.b64 state, [%0];\n"
               "}\n" ::"r"(sharedAddress(bar))
               : "memory");
}

/// Spins on try_wait until the phase of `parity` completes.
__device__ __forceinline__ void mbarrierWait(uint64_t *bar, unsigned parity) {
  asm volatile("{\n"
               "  .reg .pred done;\n"
               "WAIT_%=:\n"
               "  mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 done, "
               "[%0], %1;\n"
               "  @!done bra WAIT_%=;\n"
               "}\n" ::"r"(sharedAddress(bar)),
               "r"(parity)
               : "memory");
}

__device__ __forceinline__ void mbarrierTx(uint64_t *bar, unsigned bytes,
                                           bool complete) {
  if (complete)
    asm volatile(
        "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(
            sharedAddress(bar)),
        "r"(bytes)
        : "memory");
  else
    asm volatile(
        "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(
            sharedAddress(bar)),
        "r"(bytes)
        : "memory");
}

__device__ __forceinline__ bool electOne() {
  unsigned elected;
  asm volatile("{\n"
               "  .reg .pred p;\n"
               "  elect.sync _|p, 0xffffffff;\n"
               "  selp.u32 %0, 1, 0, p;\n"
               "}\n"
               : "=r"(elected));
  return elected != 0;
}

} // namespace
#endif

/// 96 threads: warp 0 produces `tiles` tiles of 64 floats of `in` into a
/// ring of two stages; warps 1-2 (64 consumers) sum element c of every
/// tile into out[c]. Stage s has a "full" mbarrier (32 producer arrivals,
/// and 256 transaction bytes that an elected producer lane expects and
/// completes) and an "empty" one (64 consumer arrivals).
extern "C" __global__ void mbarrier_ring(const float *in, int tiles,
                                         float *out) {
#if __CUDA_ARCH__ >= 900
  __shared__ __align__(16) float ring[2][64];
  __shared__ __align__(8) uint64_t full[2], empty[2];
  int tid = threadIdx.x;
  if (tid == 0) {
    for (int s = 0; s < 2; ++s) {
      mbarrierInit(&full[s], 32);
      mbarrierInit(&empty[s], 64);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (tid < 32) {
    for (int t = 0; t < tiles; ++t) {
      int s = t % 2;
      unsigned phase = (t / 2) % 2;
      mbarrierWait(&empty[s], phase ^ 1);
      bool leader = electOne();
      if (leader)
        mbarrierTx(&full[s], 256, false);
      __syncwarp();
      ring[s][2 * tid] = in[t * 64 + 2 * tid];
      ring[s][2 * tid + 1] = in[t * 64 + 2 * tid + 1];
      mbarrierArrive(&full[s]);
      if (leader)
        mbarrierTx(&full[s], 256, true);
    }
  } else {
    int c = tid - 32;
    float sum = 0;
    for (int t = 0; t < tiles; ++t) {
      int s = t % 2;
      mbarrierWait(&full[s], (t / 2) % 2);
      sum += ring[s][c];
      mbarrierArrive(&empty[s]);
    }
    out[c] = sum;
  }
#else
  __trap();
#endif
}

//===----------------------------------------------------------------------===//
// TMA (sm_90): a box through shared memory
//===----------------------------------------------------------------------===//

#if __CUDA_ARCH__ >= 900
/// 128 threads: TMA loads an 8 x 64 box of u16 at (x, y) of the map at
/// `in` (128-byte swizzle, zeros outside the tensor) into shared memory,
/// every element is incremented in place (and, where `raw` is not null,
/// copied there by ordinary stores: the box as it lies in shared memory,
/// swizzled as loaded), and, where `store` is nonzero, TMA stores the box
/// at (ox, oy) of the map at `out` (clipped at its edges). x and ox (times
/// 2 bytes) must be multiples of 16 bytes: otherwise the GPU raises an
/// illegal instruction (TmaBoxVariant_* in NvccKernelsTest.cpp).
__device__ __forceinline__ void
tmaBoxThroughShared(const CUtensorMap *in, const CUtensorMap *out, int x, int y,
                    int ox, int oy, uint16_t *raw, int store) {
  __shared__ __align__(1024) uint16_t tile[8 * 64];
  __shared__ __align__(8) uint64_t bar;
  int tid = threadIdx.x;
  if (tid == 0) {
    mbarrierInit(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (tid == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
            sharedAddress(&bar)),
        "r"(static_cast<unsigned>(sizeof(tile)))
        : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile."
        "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
            sharedAddress(tile)),
        "l"(in), "r"(x), "r"(y), "r"(sharedAddress(&bar))
        : "memory");
  }
  mbarrierWait(&bar, 0);
  for (int i = tid; i < 8 * 64; i += blockDim.x) {
    uint16_t value = static_cast<uint16_t>(tile[i] + 1);
    tile[i] = value;
    if (raw)
      raw[i] = value;
  }
  // Ordinary stores, read next by the TMA unit: the async proxy's fence.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  if (tid == 0 && store) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group "
                 "[%0, {%1, %2}], [%3];\n" ::"l"(out),
                 "r"(ox), "r"(oy), "r"(sharedAddress(tile))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
  }
}
#endif

/// The box through shared memory, loaded and stored. The maps are
/// __grid_constant__ parameters.
extern "C" __global__ void
tma_box_increment(const __grid_constant__ CUtensorMap in,
                  const __grid_constant__ CUtensorMap out, int x, int y, int ox,
                  int oy) {
#if __CUDA_ARCH__ >= 900
  tmaBoxThroughShared(&in, &out, x, y, ox, oy, nullptr, 1);
#else
  __trap();
#endif
}

/// The same for the bisection of its fault on the GPU (NvccKernelsTest.cpp,
/// TmaBoxVariant_*), whatever the maps' element type and swizzle: the box
/// also copied to `raw`, the TMA store only where `store` is nonzero.
extern "C" __global__ void
tma_box_variant(const __grid_constant__ CUtensorMap in,
                const __grid_constant__ CUtensorMap out, int x, int y, int ox,
                int oy, uint16_t *raw, int store) {
#if __CUDA_ARCH__ >= 900
  tmaBoxThroughShared(&in, &out, x, y, ox, oy, raw, store);
#else
  __trap();
#endif
}

//===----------------------------------------------------------------------===//
// Warp specialization (sm_90a): setmaxnreg, elect.sync, a TMA ring
//===----------------------------------------------------------------------===//

/// 256 threads in two warpgroups. Warpgroup 0 gives up registers
/// (setmaxnreg.dec 40) and its first warp produces: for each of `tiles`
/// 16 x 32 f32 boxes of the map (rows 16 t .. 16 t + 15), an elected lane
/// waits until the ring's stage is empty, expects its 2048 bytes and issues
/// the TMA load. Warpgroup 1 takes registers (setmaxnreg.inc 232) and
/// consumes: thread c adds elements 4c .. 4c + 3 of every box to out[c],
/// then frees the stage (128 arrivals).
extern "C" __global__ void __launch_bounds__(256)
    warp_specialized_ring(const __grid_constant__ CUtensorMap map, int tiles,
                          float *out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(1024) float ring[2][16 * 32];
  __shared__ __align__(8) uint64_t full[2], empty[2];
  int tid = threadIdx.x;
  if (tid == 0) {
    for (int s = 0; s < 2; ++s) {
      mbarrierInit(&full[s], 1);
      mbarrierInit(&empty[s], 128);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (tid < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    if (tid < 32) {
      for (int t = 0; t < tiles; ++t) {
        int s = t % 2;
        mbarrierWait(&empty[s], ((t / 2) % 2) ^ 1);
        if (electOne()) {
          asm volatile(
              "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 2048;\n" ::
                  "r"(sharedAddress(&full[s]))
              : "memory");
          asm volatile(
              "cp.async.bulk.tensor.2d.shared::cluster.global.tile."
              "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
                  "r"(sharedAddress(ring[s])),
              "l"(&map), "r"(0), "r"(16 * t), "r"(sharedAddress(&full[s]))
              : "memory");
        }
        __syncwarp();
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    int c = tid - 128;
    float sum = 0;
    for (int t = 0; t < tiles; ++t) {
      int s = t % 2;
      mbarrierWait(&full[s], (t / 2) % 2);
      for (int e = 0; e < 4; ++e)
        sum += ring[s][4 * c + e];
      mbarrierArrive(&empty[s]);
    }
    out[c] = sum;
  }
#else
  __trap();
#endif
}

//===----------------------------------------------------------------------===//
// stmatrix (sm_90)
//===----------------------------------------------------------------------===//

/// One warp: lane l holds, in register i, elements (l / 4, 2 (l % 4)) and
/// (l / 4, 2 (l % 4) + 1) of the 8 x 8 b16 matrix i, whose element (r, c)
/// is 64 i + 8 r + c; stmatrix .x4 (.trans when `trans`) stores the four
/// matrices, lanes 8i .. 8i+7 giving the addresses of matrix i's rows
/// (matrix i row r at byte 16 (8 i + r)); the 512 bytes go to `out`.
extern "C" __global__ void stmatrix_x4(unsigned *out, int trans) {
#if __CUDA_ARCH__ >= 900
  __shared__ __align__(16) uint16_t tile[4 * 64];
  int lane = threadIdx.x;
  unsigned regs[4];
  for (int i = 0; i < 4; ++i) {
    unsigned r = lane / 4, c = 2 * (lane % 4);
    regs[i] = (64 * i + 8 * r + c) | ((64 * i + 8 * r + c + 1) << 16);
  }
  unsigned row = sharedAddress(&tile[8 * lane]);
  if (trans)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, "
                 "%2, %3, %4};\n" ::"r"(row),
                 "r"(regs[0]), "r"(regs[1]), "r"(regs[2]), "r"(regs[3])
                 : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, "
                 "%3, %4};\n" ::"r"(row),
                 "r"(regs[0]), "r"(regs[1]), "r"(regs[2]), "r"(regs[3])
                 : "memory");
  __syncwarp();
  for (int w = lane; w < 128; w += 32)
    out[w] = reinterpret_cast<unsigned *>(tile)[w];
#else
  __trap();
#endif
}

//===----------------------------------------------------------------------===//
// wgmma (sm_90a): one warpgroup, operands in shared memory
//===----------------------------------------------------------------------===//

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
namespace {

/// A wgmma matrix descriptor: the start address, the leading and stride
/// byte offsets (all >> 4), the base offset (bits 49-51) and the layout type
/// (0: interleave, no swizzle; 1: 128-byte swizzle). The base offset is 0
/// where every tile starts on its swizzle pattern's 1024-byte boundary; only
/// wgmma_sw128_base_offset (the experiment) sets it.
__device__ __forceinline__ uint64_t wgmmaDescriptor(unsigned address,
                                                    unsigned leading,
                                                    unsigned stride,
                                                    unsigned layout,
                                                    unsigned baseOffset = 0) {
  return uint64_t((address >> 4) & 0x3fff) |
         (uint64_t((leading >> 4) & 0x3fff) << 16) |
         (uint64_t((stride >> 4) & 0x3fff) << 32) |
         (uint64_t(baseOffset & 7) << 49) | (uint64_t(layout) << 62);
}

// The accumulator operands of the asm below: GMM_ACCn(i) is "+f"(d[i]),
// ..., "+f"(d[i + n - 1]).
#define GMM_ACC4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define GMM_ACC16(i)                                                           \
  GMM_ACC4(i), GMM_ACC4(i + 4), GMM_ACC4(i + 8), GMM_ACC4(i + 12)
#define GMM_ACC32(i) GMM_ACC16(i), GMM_ACC16(i + 16)
#define GMM_ACC128 GMM_ACC32(0), GMM_ACC32(32), GMM_ACC32(64), GMM_ACC32(96)
// Their names in the asm text: "%0, %1, ..."; GMM_REG10(t) names
// %t0 .. %t9.
// clang-format off
#define GMM_REG10(t)                                                           \
  "%" #t "0, %" #t "1, %" #t "2, %" #t "3, %" #t "4, %" #t "5, %" #t "6, "     \
  "%" #t "7, %" #t "8, %" #t "9"
#define GMM_REGS32                                                             \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, " GMM_REG10(1) ", " GMM_REG10(2)   \
  ", %30, %31"
#define GMM_REGS128                                                            \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, " GMM_REG10(1) ", " GMM_REG10(2)   \
  ", " GMM_REG10(3) ", " GMM_REG10(4) ", " GMM_REG10(5) ", " GMM_REG10(6)     \
  ", " GMM_REG10(7) ", " GMM_REG10(8) ", " GMM_REG10(9) ", " GMM_REG10(10)    \
  ", " GMM_REG10(11) ", %120, %121, %122, %123, %124, %125, %126, %127"
// clang-format on

/// wgmma.mma_async m64nNk16 with f32 accumulators d[0 .. N/2), both
/// operands K-major from descriptors; `accumulate` is scale-d (0: D = A B,
/// 1: D += A B). `type` is "f16" or "bf16", `regs` the accumulators' names
/// (%0 .. %(N/2 - 1)), `descs` and `scale` the names of the operands after
/// them.
#define GMM_WGMMA(n, type, regs, descs, scale, acc)                            \
  asm volatile("{\n"                                                           \
               "  .reg .pred scaleD;\n"                                        \
               "  setp.ne.b32 scaleD, " scale ", 0;\n"                         \
               "  wgmma.mma_async.sync.aligned.m64n" #n "k16.f32." type        \
               "." type " {" regs "}, " descs ", scaleD, 1, 1, 0, 0;\n"        \
               "}\n"                                                           \
               : acc                                                           \
               : "l"(descA), "l"(descB), "r"(accumulate)                       \
               : "memory")

template <int N, bool BF16>
__device__ __forceinline__ void wgmmaM64K16(float (&d)[N / 2], uint64_t descA,
                                            uint64_t descB, int accumulate) {
  static_assert(N == 64 || N == 256, "an accumulator list for N");
  if constexpr (N == 64 && BF16)
    GMM_WGMMA(64, "bf16", GMM_REGS32, "%32, %33", "%34", GMM_ACC32(0));
  else if constexpr (N == 64)
    GMM_WGMMA(64, "f16", GMM_REGS32, "%32, %33", "%34", GMM_ACC32(0));
  else if constexpr (BF16)
    GMM_WGMMA(256, "bf16", GMM_REGS128, "%128, %129", "%130", GMM_ACC128);
  else
    GMM_WGMMA(256, "f16", GMM_REGS128, "%128, %129", "%130", GMM_ACC128);
}

/// D (64 x N, row-major f32) = A (64 x k) * B (k x N), where B comes as its
/// transpose (N x k, row-major: both operands K-major), k a multiple of 16:
/// k / 16 wgmma of one group, the first with scale-d 0 over accumulators
/// that hold garbage. Thread t (warp w, lane l) holds in register i the
/// element (16 w + l / 4 + 8 ((i / 2) % 2), 8 (i / 4) + 2 (l % 4) + i % 2).
/// `baseOffsetA` goes into A's descriptors.
template <int N, bool BF16>
__device__ __forceinline__ void
wgmmaGemm(unsigned a, unsigned leadingA, unsigned strideA, unsigned stepA,
          unsigned b, unsigned leadingB, unsigned strideB, unsigned stepB,
          unsigned layout, int k, float *out, unsigned baseOffsetA = 0) {
  float d[N / 2];
  // Garbage that scale-d 0 must ignore, written before wgmma.fence (the
  // empty asm keeps nvcc from sinking the moves past it).
  for (int i = 0; i < N / 2; ++i) {
    d[i] = -1.0f;
    asm volatile("" : "+f"(d[i])::"memory");
  }
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int s = 0; s < k / 16; ++s)
    wgmmaM64K16<N, BF16>(
        d,
        wgmmaDescriptor(a + s * stepA, leadingA, strideA, layout, baseOffsetA),
        wgmmaDescriptor(b + s * stepB, leadingB, strideB, layout), s > 0);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  int t = threadIdx.x, w = t / 32, l = t % 32;
  for (int i = 0; i < N / 2; ++i) {
    int row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
    int col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
    out[row * N + col] = d[i];
  }
}

/// 128 threads: TMA loads A (64 x k, k <= 64) and B^T (256 x k) as boxes
/// of 64 elements along K (128 bytes: what k does not fill is zeros) with
/// the 128-byte swizzle, the canonical K-major 128B layout: row r of the
/// tile at 128 r, its 16-byte chunk c at chunk c ^ (r % 8). SBO = 1024 (8
/// rows); LBO unused (1); step s along K starts 32 s bytes into the row.
template <bool BF16>
__device__ __forceinline__ void wgmmaSwizzled(const CUtensorMap &mapA,
                                              const CUtensorMap &mapB, int k,
                                              float *d) {
  constexpr int N = 256;
  __shared__ __align__(1024) uint16_t tileA[64 * 64];
  __shared__ __align__(1024) uint16_t tileB[N * 64];
  __shared__ __align__(8) uint64_t bar;
  if (threadIdx.x == 0) {
    mbarrierInit(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
            sharedAddress(&bar)),
        "r"(static_cast<unsigned>(sizeof(tileA) + sizeof(tileB)))
        : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile."
        "mbarrier::complete_tx::bytes [%0], [%1, {0, 0}], [%2];\n" ::"r"(
            sharedAddress(tileA)),
        "l"(&mapA), "r"(sharedAddress(&bar))
        : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile."
        "mbarrier::complete_tx::bytes [%0], [%1, {0, 0}], [%2];\n" ::"r"(
            sharedAddress(tileB)),
        "l"(&mapB), "r"(sharedAddress(&bar))
        : "memory");
  }
  mbarrierWait(&bar, 0);
  wgmmaGemm<N, BF16>(sharedAddress(tileA), 16, 1024, 32, sharedAddress(tileB),
                     16, 1024, 32, 1, k, d);
}

/// 128 threads copy A (64 x k, k <= 64) and B^T (64 x k) to shared memory
/// in the interleaved (no swizzle) K-major layout, 16 bytes at a time: core
/// matrices of 8 rows x 16 bytes, the one holding rows 8 g .. 8 g + 7 and
/// K elements 8 j .. 8 j + 7 at j LBO + g SBO. A keeps a row group's core
/// matrices together (LBO = 128, SBO = k / 8 * 128), B a K slice's (LBO =
/// 8 * 128, SBO = 128). Step s along K starts 2 s LBO bytes in. The
/// stores are the generic proxy's, read next by wgmma (the async proxy).
template <bool BF16>
__device__ __forceinline__ void wgmmaInterleaved(const uint4 *a, const uint4 *b,
                                                 int k, float *d) {
  constexpr int N = 64;
  __shared__ __align__(128) uint4 tileA[64 * 64 / 8];
  __shared__ __align__(128) uint4 tileB[N * 64 / 8];
  const unsigned chunks = k / 8; // 16-byte chunks in a row
  const unsigned leadingA = 128, strideA = chunks * 128;
  const unsigned leadingB = (N / 8) * 128, strideB = 128;
  for (unsigned c = threadIdx.x; c < 64 * chunks; c += blockDim.x) {
    unsigned row = c / chunks, j = c % chunks;
    unsigned at = j * leadingA + (row / 8) * strideA + (row % 8) * 16;
    tileA[at / 16] = a[c];
  }
  for (unsigned c = threadIdx.x; c < N * chunks; c += blockDim.x) {
    unsigned row = c / chunks, j = c % chunks;
    unsigned at = j * leadingB + (row / 8) * strideB + (row % 8) * 16;
    tileB[at / 16] = b[c];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  wgmmaGemm<N, BF16>(sharedAddress(tileA), leadingA, strideA, 2 * leadingA,
                     sharedAddress(tileB), leadingB, strideB, 2 * leadingB, 0,
                     k, d);
}

/// The experiment on the base offset: A (64 x 64 bf16) and B^T (64 x 64)
/// as the host laid them out (`imageA`, `imageB`: 8 KiB each, 128 bytes a
/// row, the 16-byte chunks already permuted by the swizzle), copied verbatim
/// to shared memory: B^T on a 1024-byte boundary (the canonical layout,
/// base offset 0), A `padA` bytes past one, and four chained m64n64k16 wgmma
/// over them with the 128-byte swizzle and `baseOffsetA` in A's descriptors.
/// (Only A moves: the same permutation of K in both operands would leave
/// A * B unchanged.) `where` gets the shared addresses of the two tiles.
__device__ __forceinline__ void
wgmmaBaseOffset(const uint4 *imageA, const uint4 *imageB, unsigned padA,
                unsigned baseOffsetA, float *d, unsigned *where) {
  constexpr unsigned kTile = 64 * 128;
  __shared__ __align__(1024) uint4 space[(2 * kTile + 1024) / 16];
  uint4 *tileB = space;
  uint4 *tileA = space + (kTile + padA) / 16;
  for (unsigned i = threadIdx.x; i < kTile / 16; i += blockDim.x) {
    tileA[i] = imageA[i];
    tileB[i] = imageB[i];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    where[0] = sharedAddress(tileA);
    where[1] = sharedAddress(tileB);
  }
  wgmmaGemm<64, true>(sharedAddress(tileA), 16, 1024, 32, sharedAddress(tileB),
                      16, 1024, 32, 1, 64, d, baseOffsetA);
}

} // namespace
#endif

/// wgmma_sw128_base_offset: D (64 x 64 f32) = A (64 x 64 bf16) * B (64 x
/// 64), A's tile `padA` bytes past a 1024-byte boundary with `baseOffsetA`
/// in its descriptors (see wgmmaBaseOffset). 128 threads.
extern "C" __global__ void __launch_bounds__(128)
    wgmma_sw128_base_offset(const uint4 *imageA, const uint4 *imageB,
                            unsigned padA, unsigned baseOffsetA, float *d,
                            unsigned *where) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  wgmmaBaseOffset(imageA, imageB, padA, baseOffsetA, d, where);
#else
  __trap();
#endif
}

/// wgmma_sw128_{bf16,f16}: D (64 x 256 f32) = A (64 x k) * B (k x 256)
/// through 128-byte swizzled tiles that TMA loads from the maps of A and
/// B^T (see wgmmaSwizzled). 128 threads.
extern "C" __global__ void __launch_bounds__(128)
    wgmma_sw128_bf16(const __grid_constant__ CUtensorMap mapA,
                     const __grid_constant__ CUtensorMap mapB, int k,
                     float *d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  wgmmaSwizzled<true>(mapA, mapB, k, d);
#else
  __trap();
#endif
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_sw128_f16(const __grid_constant__ CUtensorMap mapA,
                    const __grid_constant__ CUtensorMap mapB, int k, float *d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  wgmmaSwizzled<false>(mapA, mapB, k, d);
#else
  __trap();
#endif
}

/// wgmma_interleave_{bf16,f16}: D (64 x 64 f32) = A (64 x k) * B (k x 64),
/// A and B^T row-major in global memory (k elements a row, k a multiple of
/// 16 up to 64), copied by the threads into no-swizzle tiles (see
/// wgmmaInterleaved). 128 threads.
extern "C" __global__ void __launch_bounds__(128)
    wgmma_interleave_bf16(const uint4 *a, const uint4 *b, int k, float *d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  wgmmaInterleaved<true>(a, b, k, d);
#else
  __trap();
#endif
}

extern "C" __global__ void __launch_bounds__(128)
    wgmma_interleave_f16(const uint4 *a, const uint4 *b, int k, float *d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  wgmmaInterleaved<false>(a, b, k, d);
#else
  __trap();
#endif
}

//===----------------------------------------------------------------------===//
// Clusters (sm_90): a TMA multicast and distributed shared memory
//===----------------------------------------------------------------------===//

// nvcc refuses __cluster_dims__ below sm_90 (where the kernel traps).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GMM_CLUSTER_OF_TWO __cluster_dims__(2, 1, 1)
#else
#define GMM_CLUSTER_OF_TWO
#endif

/// Clusters of 2 CTAs of 128 threads. In cluster c, rank 0's elected lane
/// loads the 32 x 8 f32 box at (x - 24 c, y + 2 c) of the map (zeros
/// outside the tensor) with multicast to both CTAs, each of which completes
/// the 1024 bytes on its own mbarrier (count 1). Block b then writes
/// tile[i] + 100 (rank + 1) to out[256 b + i], keeps mine[t] = tile[2 t] *
/// 2 + rank for thread t, and, after a cluster barrier, reads the peer's
/// mine[(t + 5) % 128] through mapa and ld.shared::cluster into
/// peer[128 b + t]; a last cluster barrier keeps every CTA's shared memory
/// alive until the peer has read it.
extern "C" __global__ void GMM_CLUSTER_OF_TWO
cluster_multicast(const __grid_constant__ CUtensorMap map, int x, int y,
                  float *out, float *peer) {
#if __CUDA_ARCH__ >= 900
  __shared__ __align__(128) float tile[8 * 32];
  __shared__ float mine[128];
  __shared__ __align__(8) uint64_t bar;
  int tid = threadIdx.x;
  unsigned rank, cluster;
  asm("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  asm("mov.u32 %0, %%clusterid.x;\n" : "=r"(cluster));
  if (tid == 0) {
    mbarrierInit(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    // The one arrival, expecting the box's bytes, before the cluster
    // barrier: no byte of the multicast can land before it.
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
            sharedAddress(&bar)),
        "r"(static_cast<unsigned>(sizeof(tile)))
        : "memory");
  }
  // Both mbarriers initialized (and expecting) before rank 0 multicasts.
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
  if (rank == 0 && tid < 32 && electOne())
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
        "complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], "
        "%5;\n" ::"r"(sharedAddress(tile)),
        "l"(&map), "r"(x - 24 * static_cast<int>(cluster)),
        "r"(y + 2 * static_cast<int>(cluster)), "r"(sharedAddress(&bar)),
        "h"(static_cast<uint16_t>(0b11))
        : "memory");
  mbarrierWait(&bar, 0);
  for (int i = tid; i < 8 * 32; i += blockDim.x)
    out[256 * blockIdx.x + i] = tile[i] + 100.0f * (rank + 1);
  mine[tid] = tile[2 * tid] * 2.0f + rank;
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(remote)
               : "r"(sharedAddress(&mine[(tid + 5) % 128])), "r"(rank ^ 1));
  float value;
  asm volatile("ld.shared::cluster.f32 %0, [%1];\n"
               : "=f"(value)
               : "r"(remote)
               : "memory");
  peer[128 * blockIdx.x + tid] = value;
  asm volatile("barrier.cluster.arrive.aligned;\n"
               "barrier.cluster.wait.aligned;\n" ::
                   : "memory");
#else
  __trap();
#endif
}
