//===- WarpCollectives.cpp - shfl, vote, redux, match, activemask, elect
//----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The warp-collective instructions: each runs once the lanes it needs have
// arrived (the scheduler gathers them), on the values of those lanes.
//
//===----------------------------------------------------------------------===//

#include "Control.h"

using namespace gmm::sim;

namespace gmm {
namespace sim {
namespace control {

//===----------------------------------------------------------------------===//
// Warp collectives
//===----------------------------------------------------------------------===//

/// shfl.sync (ops: d, p or sink, a, b, c, membermask; m0: mode 0 up, 1 down,
/// 2 bfly, 3 idx).
void shfl(ExecState &s, const Instr &in, uint32_t exec) {
  uint64_t *d = s.reg(in.ops[0]), *p = s.reg(in.ops[1]);
  const uint64_t *a = s.reg(in.ops[2]), *b = s.reg(in.ops[3]),
                 *c = s.reg(in.ops[4]);
  uint64_t source[32];
  for (int l = 0; l < 32; ++l)
    source[l] = a[l];
  bool writeP = in.ops[1] != kSlotSink;
  forEachLane(exec, [&](int lane) {
    uint32_t bval = static_cast<uint32_t>(b[lane]) & 0x1f;
    uint32_t cval = static_cast<uint32_t>(c[lane]) & 0x1f;
    uint32_t segmask = (static_cast<uint32_t>(c[lane]) >> 8) & 0x1f;
    uint32_t maxLane = (lane & segmask) | (cval & ~segmask);
    uint32_t minLane = lane & segmask;
    int32_t j = lane;
    bool valid = false;
    switch (in.m0) {
    case 0:
      j = lane - static_cast<int32_t>(bval);
      valid = j >= static_cast<int32_t>(maxLane);
      break;
    case 1:
      j = lane + static_cast<int32_t>(bval);
      valid = j <= static_cast<int32_t>(maxLane);
      break;
    case 2:
      j = lane ^ static_cast<int32_t>(bval);
      valid = j <= static_cast<int32_t>(maxLane);
      break;
    case 3:
      j = static_cast<int32_t>(minLane | (bval & ~segmask));
      valid = j <= static_cast<int32_t>(maxLane);
      break;
    }
    if (!valid)
      j = lane;
    d[lane] = source[j & 31] & 0xffffffffu;
    if (writeP)
      p[lane] = valid;
  });
}

/// vote.sync (ops: d, p, membermask; m0: 0 all, 1 any, 2 uni, 3 ballot;
/// m2: p negated).
void vote(ExecState &s, const Instr &in, uint32_t exec) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *p = s.reg(in.ops[1]);
  uint32_t ballot = 0;
  forEachLane(exec, [&](int l) {
    if ((p[l] & 1) != in.m2)
      ballot |= 1u << l;
  });
  bool all = ballot == exec, any = ballot != 0;
  bool uni = all || !any;
  forEachLane(exec, [&](int l) {
    switch (in.m0) {
    case 0:
      d[l] = all;
      break;
    case 1:
      d[l] = any;
      break;
    case 2:
      d[l] = uni;
      break;
    case 3:
      d[l] = ballot;
      break;
    }
  });
}

/// redux.sync (ops: d, a, membermask; m0: 0 add, 1 min, 2 max, 3 and, 4 or,
/// 5 xor; m1: signed).
void redux(ExecState &s, const Instr &in, uint32_t exec) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  int first = __builtin_ctz(exec);
  uint32_t acc = static_cast<uint32_t>(a[first]);
  forEachLane(exec & (exec - 1), [&](int l) {
    uint32_t v = static_cast<uint32_t>(a[l]);
    switch (in.m0) {
    case 0:
      acc += v;
      break;
    case 1:
      acc = in.m1 ? static_cast<uint32_t>(std::min<int32_t>(acc, v))
                  : std::min(acc, v);
      break;
    case 2:
      acc = in.m1 ? static_cast<uint32_t>(std::max<int32_t>(acc, v))
                  : std::max(acc, v);
      break;
    case 3:
      acc &= v;
      break;
    case 4:
      acc |= v;
      break;
    case 5:
      acc ^= v;
      break;
    }
  });
  forEachLane(exec, [&](int l) { d[l] = acc; });
}

/// match.sync.{any,all} (ops: d, p or sink, a, membermask; m0: 1 = all).
void match(ExecState &s, const Instr &in, uint32_t exec) {
  uint64_t *d = s.reg(in.ops[0]), *p = s.reg(in.ops[1]);
  const uint64_t *a = s.reg(in.ops[2]);
  uint64_t keep = bitWidth(in.type) == 64 ? ~0ull : 0xffffffffull;
  forEachLane(exec, [&](int l) {
    uint32_t same = 0;
    forEachLane(exec, [&](int k) {
      if ((a[k] & keep) == (a[l] & keep))
        same |= 1u << k;
    });
    if (in.m0) {
      bool all = same == exec;
      d[l] = all ? exec : 0;
      if (in.ops[1] != kSlotSink)
        p[l] = all;
    } else {
      d[l] = same;
    }
  });
}

/// activemask.b32 d.
void activemask(ExecState &s, const Instr &in, uint32_t exec) {
  uint64_t *d = s.reg(in.ops[0]);
  forEachLane(exec, [&](int l) { d[l] = s.arrived; });
}

/// elect.sync d|p, membermask.
void elect(ExecState &s, const Instr &in, uint32_t exec) {
  uint64_t *d = s.reg(in.ops[0]), *p = s.reg(in.ops[1]);
  int leader = __builtin_ctz(exec);
  forEachLane(exec, [&](int l) {
    d[l] = static_cast<uint32_t>(leader);
    if (in.ops[1] != kSlotSink)
      p[l] = l == leader;
  });
}

} // namespace control
} // namespace sim
} // namespace gmm
