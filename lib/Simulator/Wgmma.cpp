//===- Wgmma.cpp - warpgroup matrix multiply-accumulate -------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The warpgroup instructions of sm_90a: setmaxnreg.inc/.dec, and the wgmma
// family (PTX ISA, "Asynchronous warpgroup level matrix
// multiply-accumulate"): wgmma.fence, wgmma.mma_async m64nNk16 (f16, bf16),
// m64nNk8 (tf32) and m64nNk32 (e4m3, e5m2) with f32 or f16 accumulators, A
// from a shared-memory matrix descriptor or from registers, B from a
// descriptor; wgmma.commit_group and wgmma.wait_group.
//
// Every instruction is a warpgroup collective (.sync.aligned): the four
// warps 4g .. 4g+3 reach it (the scheduler gathers them), and the last warp
// to arrive executes it for all 128 threads.
//
// mma_async is asynchronous, and the simulator makes it as late as the ISA
// allows: the operation is recorded, its accumulator registers are moved
// into the warpgroup's in-flight table and overwritten with a poison NaN
// (reading them before the wait gives visibly wrong values), and it
// executes at the wait_group that covers its commit group, reading shared
// memory then. Writing an in-flight accumulator or register-A operand
// before that wait is a finding.
//
// Operands in shared memory follow the ISA's canonical layouts, addressed
// from the 64-bit matrix descriptor (start address, leading and stride
// byte offsets, swizzle mode, base offset); a swizzle moves 16-byte chunks
// as a function of the absolute shared address, as the TMA unit writes them
// (TensorMap.h), its row phase less the descriptor's base offset. The
// products are exact and the sums are accumulated in double, then rounded
// once per instruction to the accumulator type.
//
//===----------------------------------------------------------------------===//

#include "Control.h"
#include "PTXSyntax.h"

#include <cmath>
#include <cstdio>

using namespace gmm::sim;
using namespace gmm::sim::control;

namespace {

enum class WgmmaOp : uint8_t { Fence, MmaAsync, Commit, Wait };
enum class WgmmaType : uint8_t { F16, BF16, TF32, E4M3, E5M2 };

/// wgmma instructions. mma_async operands: d0 .. d(n-1), then the A
/// descriptor (one slot) or 4 A registers, the B descriptor, scale-d (a
/// predicate slot), and the immediates in the payload.
struct WgmmaArgs {
  WgmmaOp op;
  WgmmaType type;
  /// N / 8 (N = 8 .. 256).
  uint8_t n8;
  bool f16Accumulator : 1;
  bool aInRegisters : 1;
  /// imm-scale-a/b == -1, imm-trans-a/b == 1.
  bool negateA : 1, negateB : 1, transposeA : 1, transposeB : 1;
};

constexpr uint32_t kPoison = 0x7fbadbadu;

unsigned elementBytes(WgmmaType t) {
  switch (t) {
  case WgmmaType::TF32:
    return 4;
  case WgmmaType::E4M3:
  case WgmmaType::E5M2:
    return 1;
  default:
    return 2;
  }
}

/// K of one instruction: 32 bytes of elements.
unsigned kOf(WgmmaType t) { return 32 / elementBytes(t); }

unsigned accumulatorRegisters(const WgmmaArgs &a) {
  unsigned n = a.n8 * 8u;
  return a.f16Accumulator ? n / 4 : n / 2;
}

double fp8ToDouble(uint8_t bits, bool e5m2) {
  int sign = bits >> 7;
  int exponentBits = e5m2 ? 5 : 4, mantissaBits = e5m2 ? 2 : 3;
  int bias = e5m2 ? 15 : 7;
  int exponent = (bits >> mantissaBits) & ((1 << exponentBits) - 1);
  int mantissa = bits & ((1 << mantissaBits) - 1);
  double value;
  if (e5m2 && exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else if (!e5m2 && exponent == 15 && mantissa == 7)
    value = NAN; // e4m3 has no infinities
  else if (exponent == 0)
    value = std::ldexp(mantissa, 1 - bias - mantissaBits);
  else
    value = std::ldexp(mantissa + (1 << mantissaBits),
                       exponent - bias - mantissaBits);
  return sign ? -value : value;
}

double elementValue(WgmmaType t, const uint8_t *p) {
  switch (t) {
  case WgmmaType::F16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return halfToFloat(v);
  }
  case WgmmaType::BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return bf16ToFloat(v);
  }
  case WgmmaType::TF32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return bitsAs<float>(v & 0xffffe000u);
  }
  case WgmmaType::E4M3:
    return fp8ToDouble(*p, false);
  case WgmmaType::E5M2:
    return fp8ToDouble(*p, true);
  }
  return 0;
}

/// A shared-memory matrix descriptor.
struct MatrixDescriptor {
  uint32_t start = 0, leading = 0, stride = 0, baseOffset = 0;
  /// The swizzle as TensorMapSwizzle (0 none, 1 32B, 2 64B, 3 128B).
  int swizzle = kSwizzleNone;

  static MatrixDescriptor decode(uint64_t bits) {
    MatrixDescriptor d;
    d.start = static_cast<uint32_t>(bits & 0x3fff) << 4;
    d.leading = static_cast<uint32_t>((bits >> 16) & 0x3fff) << 4;
    d.stride = static_cast<uint32_t>((bits >> 32) & 0x3fff) << 4;
    d.baseOffset = static_cast<uint32_t>((bits >> 49) & 7);
    // Layout type: 0 interleave (none), 1 128B, 2 64B, 3 32B.
    static const int kModes[4] = {kSwizzleNone, kSwizzle128B, kSwizzle64B,
                                  kSwizzle32B};
    d.swizzle = kModes[(bits >> 62) & 3];
    return d;
  }
  uint32_t span() const {
    return swizzle == kSwizzle128B  ? 128
           : swizzle == kSwizzle64B ? 64
           : swizzle == kSwizzle32B ? 32
                                    : 16;
  }
  /// The shared address of element (mn, k) of a K-major (mnMajor false) or
  /// MN-major operand, in the ISA's canonical layouts (T: elements per 16
  /// bytes). K-major: rows of `span` bytes (16 without swizzle, where 8-row
  /// core matrices repeat along K every `leading` bytes), 8-row groups every
  /// `stride` bytes. MN-major: runs of span/16 chunks of 16 bytes along MN,
  /// rows of K every `span` bytes; the runs repeat every `leading` bytes and
  /// 8-row groups every `stride` bytes, except without swizzle, where the
  /// runs repeat every `stride` bytes and the 8-row groups every `leading`.
  uint32_t address(unsigned mn, unsigned k, unsigned eb, bool mnMajor) const {
    unsigned t = 16 / eb;
    uint32_t s = span();
    uint32_t linear;
    if (!mnMajor) {
      if (swizzle == kSwizzleNone)
        linear = start + (mn / 8) * stride + (k / t) * leading + (mn % 8) * 16 +
                 (k % t) * eb;
      else
        linear = start + (mn / 8) * stride + (mn % 8) * s + k * eb;
    } else if (swizzle == kSwizzleNone) {
      // ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)): 16-byte runs along MN every
      // `stride` bytes, 8-row groups of K every `leading` bytes.
      linear = start + (mn % t) * eb + (mn / t) * stride + (k % 8) * 16 +
               (k / 8) * leading;
    } else {
      // ((T,c,m),(8,k)):((1,T,LBO),(cT,SBO)): the roles swap with a swizzle.
      unsigned run = (s / 16) * t; // elements of MN in one row
      linear = start + (mn % run) * eb + (mn / run) * leading + (k % 8) * s +
               (k / 8) * stride;
    }
    // The swizzle XORs the phase of the row at shared address `addr`,
    // ((addr >> 7) - baseOffset) masked to the swizzle's 1, 2 or 3 bits,
    // into its 16-byte chunk (bits 4-6): with base offset 0 the absolute
    // address's bits 7-9. An H200 settled the minus (not xor) rule for the
    // 128-byte swizzle (NvccKernelsTest.cpp, WgmmaBaseOffsetRule); the 32-
    // and 64-byte swizzles follow it by analogy (not measured).
    uint32_t shift = baseOffset * 128;
    return swizzleAddress(linear - shift, swizzle) + shift;
  }
};

/// A recorded mma_async.
struct PendingMma {
  WgmmaArgs args;
  uint32_t pc = 0;
  uint32_t group = 0;
  uint64_t descA = 0, descB = 0;
  bool accumulate = true;
  /// The accumulator slots, and the register-A slots with their values
  /// (128 threads x 4) at issue.
  std::vector<uint32_t> dSlots;
  uint32_t aSlots[4] = {};
  std::vector<uint64_t> aValues;
};

/// A warpgroup's wgmma state.
struct WarpgroupState {
  std::vector<PendingMma> pending;
  uint32_t committed = 0;
  /// Registers per thread that setmaxnreg gave the warpgroup (0: never set).
  uint32_t maxRegisters = 0;
  /// The warpgroup has executed a wgmma.fence.
  bool fenced = false;
  /// In-flight accumulator slots: their logical values, 128 per slot.
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> accumulators;
  std::vector<uint64_t> *find(uint32_t slot) {
    for (auto &entry : accumulators)
      if (entry.first == slot)
        return &entry.second;
    return nullptr;
  }
};

WarpgroupState &stateOf(ExecState &s, unsigned group) {
  auto &states = s.block.warpgroups;
  if (states.size() <= group)
    states.resize(group + 1);
  if (!states[group])
    states[group] = std::make_shared<WarpgroupState>();
  return *std::static_pointer_cast<WarpgroupState>(states[group]);
}

Warp &warpOf(ExecState &s, unsigned group, unsigned w) {
  return s.block.warps[group * 4 + w];
}

/// Executes one mma_async of warpgroup `g` on the accumulator table.
bool execute(ExecState &s, unsigned g, WarpgroupState &state,
             const PendingMma &op) {
  const WgmmaArgs &a = op.args;
  unsigned n = a.n8 * 8u, k = kOf(a.type), eb = elementBytes(a.type);
  const uint8_t *shared = s.block.shared.data();
  uint32_t limit = s.launch.sharedBytes;
  ExecState at = s;
  at.warp = &warpOf(s, g, 0);
  at.pc = op.pc;
  MatrixDescriptor da = MatrixDescriptor::decode(op.descA);
  MatrixDescriptor db = MatrixDescriptor::decode(op.descB);
  for (const MatrixDescriptor *d : {&da, &db})
    if (d->baseOffset != 0 && d->swizzle == kSwizzleNone) {
      at.fail(FindingKind::Unsupported, 0,
              "wgmma matrix descriptor with a base offset of " +
                  std::to_string(d->baseOffset) +
                  " and no swizzle: the ISA defines the base offset for the "
                  "swizzled layouts only");
      s.failed = true;
      return false;
    }
  auto load = [&](const MatrixDescriptor &d, unsigned mn, unsigned kk,
                  bool mnMajor, double &value) {
    uint32_t address = d.address(mn, kk, eb, mnMajor);
    if (address + eb > limit) {
      at.fail(FindingKind::OutOfBounds, 0,
              "wgmma operand element (" + std::to_string(mn) + ", " +
                  std::to_string(kk) + ") at shared offset " +
                  std::to_string(address) + " is past the block's " +
                  std::to_string(limit) +
                  " bytes of shared memory (check the matrix descriptor)");
      s.failed = true;
      return false;
    }
    if (!checkAsyncProxyRead(at, 0, address, eb, "wgmma.mma_async")) {
      s.failed = true;
      return false;
    }
    value = elementValue(a.type, shared + address);
    return true;
  };
  // A (64 x k) and B (k x n) as doubles.
  std::vector<double> av(64 * k), bv(size_t(k) * n);
  if (a.aInRegisters) {
    // Per warp w, rows 16w .. 16w+15; the mma.m16nXk fragment layout.
    for (unsigned w = 0; w < 4; ++w)
      for (unsigned lane = 0; lane < 32; ++lane) {
        unsigned gr = lane / 4, t = lane % 4;
        for (unsigned r = 0; r < 4; ++r) {
          uint32_t bits =
              static_cast<uint32_t>(op.aValues[(w * 32 + lane) * 4 + r]);
          unsigned row = 16 * w + gr + 8 * (r % 2);
          unsigned per = 4 / eb; // elements per register
          unsigned col0 = eb == 4   ? t + 4 * (r / 2)
                          : eb == 2 ? 2 * t + 8 * (r / 2)
                                    : 4 * t + 16 * (r / 2);
          for (unsigned e = 0; e < per; ++e) {
            uint8_t bytes[4];
            std::memcpy(bytes, &bits, 4);
            av[row * k + col0 + e] = elementValue(a.type, bytes + e * eb);
          }
        }
      }
  } else {
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned kk = 0; kk < k; ++kk)
        if (!load(da, m, kk, a.transposeA, av[m * k + kk]))
          return false;
  }
  for (unsigned j = 0; j < n; ++j)
    for (unsigned kk = 0; kk < k; ++kk)
      if (!load(db, j, kk, a.transposeB, bv[kk * n + j]))
        return false;
  if (a.negateA)
    for (double &x : av)
      x = -x;
  if (a.negateB)
    for (double &x : bv)
      x = -x;
  // D (64 x n) from the in-flight accumulators.
  std::vector<double> dv(64 * size_t(n), 0.0);
  std::vector<std::vector<uint64_t> *> tables;
  for (uint32_t slot : op.dSlots)
    tables.push_back(state.find(slot));
  auto visit = [&](auto &&f) {
    // f(table index, thread, element 0/1 of the register, row, column)
    for (unsigned w = 0; w < 4; ++w)
      for (unsigned lane = 0; lane < 32; ++lane) {
        unsigned gr = lane / 4, t = lane % 4, thread = w * 32 + lane;
        for (unsigned i = 0; i < op.dSlots.size(); ++i) {
          if (a.f16Accumulator) {
            unsigned j = i / 2, row = 16 * w + gr + 8 * (i % 2);
            f(i, thread, 0u, row, 8 * j + 2 * t);
            f(i, thread, 1u, row, 8 * j + 2 * t + 1);
          } else {
            unsigned j = i / 4, q = i % 4;
            unsigned row = 16 * w + gr + 8 * (q / 2);
            f(i, thread, 0u, row, 8 * j + 2 * t + (q % 2));
          }
        }
      }
  };
  if (op.accumulate)
    visit([&](unsigned i, unsigned thread, unsigned e, unsigned row,
              unsigned col) {
      uint64_t bits = (*tables[i])[thread];
      dv[row * n + col] =
          a.f16Accumulator
              ? halfToFloat(static_cast<uint16_t>(bits >> (16 * e)))
              : bitsAs<float>(static_cast<uint32_t>(bits));
    });
  for (unsigned m = 0; m < 64; ++m)
    for (unsigned j = 0; j < n; ++j) {
      double sum = dv[m * n + j];
      for (unsigned kk = 0; kk < k; ++kk)
        sum += av[m * k + kk] * bv[kk * n + j];
      dv[m * n + j] = sum;
    }
  visit(
      [&](unsigned i, unsigned thread, unsigned e, unsigned row, unsigned col) {
        uint64_t &bits = (*tables[i])[thread];
        double v = dv[row * n + col];
        if (a.f16Accumulator) {
          uint64_t h = doubleToHalf(v, Round::RN);
          bits = (bits & ~(uint64_t(0xffff) << (16 * e))) | (h << (16 * e));
        } else {
          bits = asBits(doubleToFloat(v, Round::RN));
        }
      });
  return true;
}

/// Executes the recorded operations of warpgroup `g` whose commit group is
/// older than the `keep` most recent, then writes back the accumulators no
/// remaining operation uses.
void complete(ExecState &s, unsigned g, uint32_t keep) {
  WarpgroupState &state = stateOf(s, g);
  std::vector<PendingMma> remaining;
  for (const PendingMma &op : state.pending) {
    bool covered =
        op.group < state.committed && state.committed - op.group > keep;
    if (!covered) {
      remaining.push_back(op);
      continue;
    }
    if (s.failed)
      continue;
    // Register-A operands must not change while in flight.
    if (op.args.aInRegisters)
      for (unsigned w = 0; w < 4 && !s.failed; ++w)
        for (unsigned r = 0; r < 4; ++r) {
          const uint64_t *reg = warpOf(s, g, w).reg(op.aSlots[r]);
          for (unsigned lane = 0; lane < 32; ++lane)
            if (reg[lane] != op.aValues[(w * 32 + lane) * 4 + r]) {
              ExecState at = s;
              at.warp = &warpOf(s, g, w);
              at.pc = op.pc;
              at.fail(FindingKind::WgmmaHazard, static_cast<int>(lane),
                      "a register-A operand of this wgmma.mma_async was "
                      "written before the wgmma.wait_group that covers it");
              s.failed = true;
              break;
            }
          if (s.failed)
            break;
        }
    if (!s.failed)
      execute(s, g, state, op);
  }
  state.pending = std::move(remaining);
  // Accumulators no pending operation uses go back to the registers.
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> still;
  for (auto &entry : state.accumulators) {
    bool used = false;
    for (const PendingMma &op : state.pending)
      for (uint32_t slot : op.dSlots)
        used |= slot == entry.first;
    if (used) {
      still.push_back(std::move(entry));
      continue;
    }
    for (unsigned w = 0; w < 4; ++w) {
      uint64_t *reg = warpOf(s, g, w).reg(entry.first);
      for (unsigned lane = 0; lane < 32; ++lane) {
        if (!s.failed && reg[lane] != kPoison) {
          ExecState at = s;
          at.warp = &warpOf(s, g, w);
          at.fail(FindingKind::WgmmaHazard, static_cast<int>(lane),
                  "an accumulator register of an in-flight wgmma.mma_async "
                  "was written before the wgmma.wait_group that covers it");
          s.failed = true;
        }
        reg[lane] = entry.second[w * 32 + lane];
      }
    }
  }
  state.accumulators = std::move(still);
}

unsigned groupOf(ExecState &s) { return s.warp->index / 4; }

void wgmmaFence(ExecState &s, const Instr &, uint32_t) {
  stateOf(s, groupOf(s)).fenced = true;
}

void wgmmaCommit(ExecState &s, const Instr &, uint32_t) {
  ++stateOf(s, groupOf(s)).committed;
}

void wgmmaWait(ExecState &s, const Instr &in, uint32_t) {
  complete(s, groupOf(s), static_cast<uint32_t>(in.imm));
}

/// setmaxnreg (the register count in Instr::imm).
struct SetMaxNRegArgs {
  /// .inc (else .dec).
  bool increase;
};

void setMaxNReg(ExecState &s, const Instr &in, uint32_t) {
  bool increase = in.payload<SetMaxNRegArgs>().increase;
  uint32_t count = static_cast<uint32_t>(in.imm);
  unsigned g = groupOf(s);
  WarpgroupState &state = stateOf(s, g);
  if (state.maxRegisters &&
      (increase ? count < state.maxRegisters : count > state.maxRegisters)) {
    s.fail(FindingKind::CollectiveDivergence, 0,
           std::string("setmaxnreg.") + (increase ? "inc" : "dec") + " to " +
               std::to_string(count) + " registers from " +
               std::to_string(state.maxRegisters) +
               (increase ? " (.inc cannot lower the count)"
                         : " (.dec cannot raise the count)"));
    return;
  }
  state.maxRegisters = count;
  // The warpgroups that set their count share the SM's register file.
  uint64_t total = 0;
  std::string parts;
  for (size_t i = 0; i < s.block.warpgroups.size(); ++i) {
    if (!s.block.warpgroups[i])
      continue;
    uint32_t n = stateOf(s, static_cast<unsigned>(i)).maxRegisters;
    if (!n)
      continue;
    total += uint64_t(n) * 128;
    parts += std::string(parts.empty() ? "" : ", ") + "warpgroup " +
             std::to_string(i) + ": " + std::to_string(n);
  }
  constexpr uint64_t kRegisterFile = 65536;
  if (total > kRegisterFile)
    s.fail(FindingKind::CollectiveDivergence, 0,
           "setmaxnreg asks for " + std::to_string(total) +
               " registers in all, more than the SM's register file of " +
               std::to_string(kRegisterFile) + " (" + parts +
               " per thread): the warpgroup would wait forever");
}

void wgmmaMmaAsync(ExecState &s, const Instr &in, uint32_t) {
  const WgmmaArgs &a = in.payload<WgmmaArgs>();
  unsigned g = groupOf(s);
  WarpgroupState &state = stateOf(s, g);
  // The ISA requires a wgmma.fence before the first mma_async. (Later
  // register accesses that a fence should order are not tracked: LLVM's
  // NVPTX back end itself moves values into accumulators after the fence.)
  if (!state.fenced) {
    s.fail(FindingKind::WgmmaHazard, 0,
           "wgmma.mma_async before any wgmma.fence of its warpgroup (the "
           "ISA requires one before the first mma_async)");
    return;
  }
  unsigned numD = accumulatorRegisters(a);
  unsigned at = numD;
  PendingMma op;
  op.args = a;
  op.pc = s.pc;
  op.group = state.committed;
  op.dSlots.assign(in.ops, in.ops + numD);
  // Warpgroup-uniform operands: the first thread's.
  Warp &w0 = warpOf(s, g, 0);
  if (a.aInRegisters) {
    op.aValues.resize(128 * 4);
    for (unsigned r = 0; r < 4; ++r) {
      op.aSlots[r] = in.ops[at + r];
      for (unsigned w = 0; w < 4; ++w) {
        const uint64_t *reg = warpOf(s, g, w).reg(op.aSlots[r]);
        for (unsigned lane = 0; lane < 32; ++lane)
          op.aValues[(w * 32 + lane) * 4 + r] = reg[lane];
      }
    }
    at += 4;
  } else {
    op.descA = w0.reg(in.ops[at++])[0];
  }
  op.descB = w0.reg(in.ops[at++])[0];
  op.accumulate = (w0.reg(in.ops[at])[0] & 1) != 0;
  // Descriptors must be the same in every thread.
  for (unsigned w = 0; w < 4 && !s.failed; ++w) {
    Warp &warp = warpOf(s, g, w);
    for (unsigned lane = 0; lane < 32; ++lane) {
      bool same = warp.reg(in.ops[at - 1])[lane] == op.descB &&
                  (a.aInRegisters || warp.reg(in.ops[numD])[lane] == op.descA);
      if (!same) {
        ExecState where = s;
        where.warp = &warp;
        where.fail(FindingKind::WgmmaHazard, static_cast<int>(lane),
                   "wgmma.mma_async with matrix descriptors that differ "
                   "between the threads of the warpgroup");
        return;
      }
    }
  }
  // The accumulators go in flight: their values to the table (unless an
  // earlier operation has them there), the registers poisoned.
  for (uint32_t slot : op.dSlots) {
    if (state.find(slot))
      continue;
    std::vector<uint64_t> values(128);
    for (unsigned w = 0; w < 4; ++w) {
      uint64_t *reg = warpOf(s, g, w).reg(slot);
      for (unsigned lane = 0; lane < 32; ++lane) {
        values[w * 32 + lane] = reg[lane];
        reg[lane] = kPoison;
      }
    }
    state.accumulators.emplace_back(slot, std::move(values));
  }
  state.pending.push_back(std::move(op));
}

class WgmmaDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run() {
    if (out.opcode == Opcode::Setmaxnreg)
      return decodeSetMaxNReg();
    if (d.arch() < 90)
      return d.fail("wgmma needs sm_90a");
    if (!mods.take("sync") || !mods.take("aligned"))
      return d.fail("wgmma instructions are .sync.aligned");
    out.collective = Collective::Warpgroup;
    WgmmaArgs &args = out.setPayload<WgmmaArgs>();
    if (mods.take("fence")) {
      args.op = WgmmaOp::Fence;
      out.exec = &wgmmaFence;
      return ops.empty() || d.fail("wgmma.fence takes no operands");
    }
    if (mods.take("commit_group")) {
      args.op = WgmmaOp::Commit;
      out.exec = &wgmmaCommit;
      return ops.empty() || d.fail("wgmma.commit_group takes no operands");
    }
    if (mods.take("wait_group")) {
      args.op = WgmmaOp::Wait;
      if (!count(1) || ops[0].kind != ptx::Operand::Integer ||
          ops[0].bits > 255)
        return d.fail("wgmma.wait_group takes an integer");
      out.imm = static_cast<int64_t>(ops[0].bits);
      out.exec = &wgmmaWait;
      return true;
    }
    if (!mods.take("mma_async"))
      return d.fail("unsupported wgmma operation");
    args.op = WgmmaOp::MmaAsync;
    return decodeMma(args);
  }

private:
  bool decodeSetMaxNReg() {
    if (d.arch() < 90)
      return d.fail("setmaxnreg needs sm_90a");
    int which = mods.takeOneOf({"inc", "dec"});
    if (which < 0 || !mods.take("sync") || !mods.take("aligned") ||
        !mods.take("u32"))
      return d.fail("expected setmaxnreg.{inc,dec}.sync.aligned.u32");
    if (!count(1) || ops[0].kind != ptx::Operand::Integer)
      return d.fail("setmaxnreg takes an immediate register count");
    uint64_t n = ops[0].bits;
    if (n < 24 || n > 256 || n % 8)
      return d.fail("setmaxnreg register count " + std::to_string(n) +
                    " must be a multiple of 8 from 24 to 256");
    out.collective = Collective::Warpgroup;
    out.setPayload<SetMaxNRegArgs>().increase = which == 0;
    out.imm = static_cast<int64_t>(n);
    out.exec = &setMaxNReg;
    return true;
  }

  bool decodeMma(WgmmaArgs &args) {
    // .shape.dtype.atype.btype
    unsigned n = 0, k = 0;
    bool shapeFound = false;
    for (const std::string &part : mods.all())
      if (std::sscanf(part.c_str(), "m64n%uk%u", &n, &k) == 2) {
        if (!mods.take(part.c_str()))
          break;
        shapeFound = true;
        break;
      }
    if (!shapeFound || n == 0 || n > 256 || n % 8)
      return d.fail("expected .m64nNk16/.m64nNk8/.m64nNk32 with N a multiple "
                    "of 8 up to 256");
    int dtype = mods.takeOneOf({"f32", "f16"});
    if (dtype < 0)
      return d.fail("expected an .f32 or .f16 accumulator");
    args.f16Accumulator = dtype == 1;
    static const char *const kTypes[] = {"f16", "bf16", "tf32", "e4m3", "e5m2"};
    int atype = mods.takeOneOf({"f16", "bf16", "tf32", "e4m3", "e5m2"});
    int btype = mods.takeOneOf({"f16", "bf16", "tf32", "e4m3", "e5m2"});
    if (atype < 0 || btype < 0)
      return d.fail("expected the A and B types");
    bool fp8 = atype >= 3 && btype >= 3;
    if (atype != btype && !fp8)
      return d.fail(std::string("wgmma with .") + kTypes[atype] + " A and ." +
                    kTypes[btype] + " B");
    if (fp8 && atype != btype)
      return d.fail("wgmma with mixed fp8 types is not supported yet");
    args.type = static_cast<WgmmaType>(atype);
    if (k != kOf(args.type))
      return d.fail("the shape's K does not match the type (k16 for f16 and "
                    "bf16, k8 for tf32, k32 for e4m3 and e5m2)");
    if (args.f16Accumulator &&
        (args.type == WgmmaType::BF16 || args.type == WgmmaType::TF32))
      return d.fail("an .f16 accumulator needs .f16 or fp8 inputs");
    args.n8 = static_cast<uint8_t>(n / 8);
    unsigned numD = accumulatorRegisters(args);
    bool sixteenBit =
        args.type == WgmmaType::F16 || args.type == WgmmaType::BF16;
    if (ops.empty() || ops[0].kind != ptx::Operand::Vector ||
        ops[0].elements.size() != numD)
      return d.fail("expected " + std::to_string(numD) +
                    " accumulator registers");
    args.aInRegisters = ops.size() > 1 && ops[1].kind == ptx::Operand::Vector;
    size_t want = 6 + (sixteenBit ? (args.aInRegisters ? 1 : 2) : 0);
    if (ops.size() != want)
      return d.fail("expected " + std::to_string(want) + " operands");
    std::vector<uint32_t> slots;
    for (const ptx::Operand &e : ops[0].elements) {
      uint32_t slot = 0;
      if (!d.dest(e, slot))
        return false;
      if (d.registerWidth(e) != 32)
        return d.fail("accumulator registers are 32 bits wide");
      slots.push_back(slot);
    }
    if (args.aInRegisters) {
      if (args.transposeA)
        return d.fail("A in registers cannot be transposed");
      if (ops[1].elements.size() != 4)
        return d.fail("A in registers is 4 registers");
      for (const ptx::Operand &e : ops[1].elements) {
        uint32_t slot = 0;
        if (!d.source(e, Ty::B32, slot))
          return false;
        slots.push_back(slot);
      }
    } else {
      uint32_t slot = 0;
      if (!d.source(ops[1], Ty::B64, slot))
        return false;
      slots.push_back(slot);
    }
    uint32_t slot = 0;
    if (!d.source(ops[2], Ty::B64, slot))
      return false;
    slots.push_back(slot);
    // scale-d: a predicate or 0/1.
    bool negated = false;
    if (ops[3].kind == ptx::Operand::Integer) {
      slot = d.constant(ops[3].bits & 1);
    } else {
      if (!d.predicate(ops[3], slot, negated))
        return false;
      if (negated)
        return d.fail("a negated scale-d is not supported");
    }
    slots.push_back(slot);
    auto immediate = [&](size_t i, std::initializer_list<int64_t> allowed,
                         int64_t &value) {
      if (ops[i].kind != ptx::Operand::Integer)
        return d.fail("expected an immediate");
      value = static_cast<int64_t>(ops[i].bits);
      for (int64_t a : allowed)
        if (value == a)
          return true;
      return d.fail("immediate " + std::to_string(value) + " out of range");
    };
    int64_t scaleA = 1, scaleB = 1, transA = 0, transB = 0;
    if (!immediate(4, {1, -1}, scaleA) || !immediate(5, {1, -1}, scaleB))
      return false;
    if (sixteenBit) {
      size_t i = 6;
      if (!args.aInRegisters && !immediate(i++, {0, 1}, transA))
        return false;
      if (!immediate(i, {0, 1}, transB))
        return false;
    }
    args.negateA = scaleA == -1;
    args.negateB = scaleB == -1;
    args.transposeA = transA == 1;
    args.transposeB = transB == 1;
    d.setOperands(out, slots);
    out.exec = &wgmmaMmaAsync;
    return true;
  }
};

} // namespace

bool gmm::sim::decodeWgmma(Decoder &decoder, const ptx::Instruction &instr,
                           Modifiers &mods, Instr &out) {
  WgmmaDecoder wgmma(decoder, instr, mods, out);
  return wgmma.run();
}
