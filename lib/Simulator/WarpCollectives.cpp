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

/// shfl.sync (ShflArgs).
void shfl(ExecState &s, const Instr &in, uint32_t exec) {
  ShflMode mode = in.payload<ShflArgs>().mode;
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
    switch (mode) {
    case ShflMode::Up:
      j = lane - static_cast<int32_t>(bval);
      valid = j >= static_cast<int32_t>(maxLane);
      break;
    case ShflMode::Down:
      j = lane + static_cast<int32_t>(bval);
      valid = j <= static_cast<int32_t>(maxLane);
      break;
    case ShflMode::Bfly:
      j = lane ^ static_cast<int32_t>(bval);
      valid = j <= static_cast<int32_t>(maxLane);
      break;
    case ShflMode::Idx:
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

/// vote.sync (VoteArgs).
void vote(ExecState &s, const Instr &in, uint32_t exec) {
  const VoteArgs &args = in.payload<VoteArgs>();
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *p = s.reg(in.ops[1]);
  uint32_t ballot = 0;
  forEachLane(exec, [&](int l) {
    if ((p[l] & 1) != args.predicateNegated)
      ballot |= 1u << l;
  });
  bool all = ballot == exec, any = ballot != 0;
  bool uni = all || !any;
  forEachLane(exec, [&](int l) {
    switch (args.mode) {
    case VoteMode::All:
      d[l] = all;
      break;
    case VoteMode::Any:
      d[l] = any;
      break;
    case VoteMode::Uni:
      d[l] = uni;
      break;
    case VoteMode::Ballot:
      d[l] = ballot;
      break;
    }
  });
}

/// redux.sync (ReduxArgs).
void redux(ExecState &s, const Instr &in, uint32_t exec) {
  const ReduxArgs &args = in.payload<ReduxArgs>();
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  int first = __builtin_ctz(exec);
  uint32_t acc = static_cast<uint32_t>(a[first]);
  forEachLane(exec & (exec - 1), [&](int l) {
    uint32_t v = static_cast<uint32_t>(a[l]);
    switch (args.op) {
    case ReduxOp::Add:
      acc += v;
      break;
    case ReduxOp::Min:
      acc = args.isSigned ? static_cast<uint32_t>(std::min<int32_t>(acc, v))
                          : std::min(acc, v);
      break;
    case ReduxOp::Max:
      acc = args.isSigned ? static_cast<uint32_t>(std::max<int32_t>(acc, v))
                          : std::max(acc, v);
      break;
    case ReduxOp::And:
      acc &= v;
      break;
    case ReduxOp::Or:
      acc |= v;
      break;
    case ReduxOp::Xor:
      acc ^= v;
      break;
    }
  });
  forEachLane(exec, [&](int l) { d[l] = acc; });
}

/// match.sync.{any,all} (MatchArgs).
void match(ExecState &s, const Instr &in, uint32_t exec) {
  bool matchAll = in.payload<MatchArgs>().all;
  uint64_t *d = s.reg(in.ops[0]), *p = s.reg(in.ops[1]);
  const uint64_t *a = s.reg(in.ops[2]);
  uint64_t keep = bitWidth(in.type) == 64 ? ~0ull : 0xffffffffull;
  forEachLane(exec, [&](int l) {
    uint32_t same = 0;
    forEachLane(exec, [&](int k) {
      if ((a[k] & keep) == (a[l] & keep))
        same |= 1u << k;
    });
    if (matchAll) {
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
