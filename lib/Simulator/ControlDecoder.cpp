//===- ControlDecoder.cpp - decoding control instructions
//-------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The decoder of the SIMT model's instructions (control flow, barriers, warp
// collectives, fences): the handler of each and its operands.
//
//===----------------------------------------------------------------------===//

#include "Control.h"

#include "PTXSyntax.h"

using namespace gmm::sim;

namespace gmm {
namespace sim {
namespace control {

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

class ControlDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run();

private:
  /// The member mask operand (an immediate or register) at `index`.
  bool memberMask(size_t index, uint32_t &slot) {
    out.collective = Collective::MemberMask;
    return d.source(ops[index], Ty::B32, slot);
  }
  bool decodeBarrier();
};

bool ControlDecoder::decodeBarrier() {
  // barrier.cluster.arrive{.release,.relaxed}{.aligned} and
  // barrier.cluster.wait{.acquire}{.aligned}: the cluster's split barrier.
  if (out.opcode == Opcode::Barrier && mods.take("cluster")) {
    int which = mods.takeOneOf({"arrive", "wait"});
    mods.takeIgnorable();
    mods.take("aligned");
    if (which < 0 || !ops.empty())
      return d.fail("expected barrier.cluster.arrive or .wait");
    if (d.arch() < 90)
      return d.fail("barrier.cluster needs sm_90");
    out.flow = which == 0 ? Flow::Next : Flow::Control;
    out.exec = which == 0 ? &clusterArrive : &clusterWait;
    return true;
  }
  // bar{.cta}.sync / .arrive / .red.op.pred, barrier{.cta}{.aligned}.sync
  // ..., bar.warp.sync (a collective of the member mask).
  mods.take("cta");
  if (out.opcode == Opcode::Bar && mods.take("warp")) {
    if (!mods.take("sync") || !count(1))
      return d.fail("expected bar.warp.sync membermask");
    uint32_t mask = 0;
    if (!memberMask(0, mask))
      return false;
    d.setOperands(out, {mask});
    out.memberMaskOperand = 0;
    out.exec = &nothing;
    return true;
  }
  bool aligned = out.opcode == Opcode::Bar || mods.take("aligned");
  int kind = mods.takeOneOf({"sync", "arrive", "red"});
  if (kind < 0)
    return d.fail("expected .sync, .arrive or .red");
  out.flow = Flow::Control;
  out.exec = &barrierHandler;
  BarrierArgs &args = out.setPayload<BarrierArgs>();
  args.aligned = aligned;
  if (kind == 2) {
    int op = mods.takeOneOf({"popc", "and", "or"});
    std::vector<Ty> types = mods.takeTypes();
    if (op < 0 || types.size() != 1)
      return d.fail("expected bar.red.{popc,and,or}.{u32,pred}");
    args.kind = static_cast<BarrierKind>(BarRedPopc + op);
    // bar.red.popc.u32 d, a{, b}, {!}c
    if (ops.size() != 3 && ops.size() != 4)
      return d.fail("expected bar.red d, a{, b}, {!}c");
    uint32_t dst = 0, id = 0, cnt = kSlotSink, pred = 0;
    bool negated = false;
    if (!d.dest(ops[0], dst) || !d.source(ops[1], Ty::U32, id))
      return false;
    if (ops.size() == 4 && !d.source(ops[2], Ty::U32, cnt))
      return false;
    if (!d.predicate(ops.back(), pred, negated))
      return false;
    args.predicateNegated = negated;
    d.setOperands(out, {id, cnt, dst, pred});
    return true;
  }
  args.kind = kind == 0 ? BarSync : BarArrive;
  if (ops.empty() || ops.size() > 2)
    return d.fail("expected a barrier id and an optional thread count");
  uint32_t id = 0, cnt = kSlotSink;
  if (!d.source(ops[0], Ty::U32, id) ||
      (ops.size() == 2 && !d.source(ops[1], Ty::U32, cnt)))
    return false;
  if (kind == 1 && ops.size() != 2)
    return d.fail("bar.arrive needs a thread count");
  d.setOperands(out, {id, cnt, kSlotSink, kSlotZero});
  return true;
}

bool ControlDecoder::run() {
  switch (out.opcode) {
  case Opcode::Bra: {
    mods.take("uni");
    if (!count(1) || ops[0].kind != ptx::Operand::Register)
      return d.fail("expected a label");
    out.flow = Flow::Control;
    out.target = d.label(ops[0].name);
    out.exec = &branch;
    return true;
  }
  case Opcode::Brx: {
    if (!mods.take("idx"))
      return d.fail("expected brx.idx");
    mods.take("uni");
    return d.fail("brx.idx with .branchtargets is not supported");
  }
  case Opcode::Call: {
    out.flow = Flow::Control;
    out.exec = &call;
    return true;
  }
  case Opcode::Ret: {
    mods.take("uni");
    if (!ops.empty())
      return d.fail("ret takes no operands");
    out.flow = Flow::Control;
    out.exec = &ret;
    return true;
  }
  case Opcode::Exit: {
    if (!ops.empty())
      return d.fail("exit takes no operands");
    out.flow = Flow::Control;
    out.exec = &exitHandler;
    return true;
  }
  case Opcode::Trap:
  case Opcode::Brkpt: {
    out.flow = Flow::Control;
    out.setPayload<TrapArgs>().breakpoint = out.opcode == Opcode::Brkpt;
    out.exec = &trap;
    return true;
  }
  case Opcode::Bar:
  case Opcode::Barrier:
    return decodeBarrier();
  case Opcode::Membar:
  case Opcode::Fence: {
    // The simulator is sequentially consistent: fences order nothing more,
    // except that fence.proxy.async makes the thread's generic-proxy writes
    // of shared memory visible to the async proxy (TMA, wgmma), which the
    // racecheck tracks.
    mods.takeIgnorable();
    int kind = mods.takeOneOf({"sc", "proxy", "op_restrict", "mbarrier_init"});
    int proxy = mods.takeOneOf(
        {"async", "alias", "tensormap", "generic", "tensormap::generic"});
    bool global = mods.take("global");
    bool shared = mods.take("shared::cta") || mods.take("shared::cluster");
    (void)shared;
    if (kind == 1 && proxy == 4) {
      // fence.proxy.tensormap::generic.release.scope, or .acquire.scope
      // [addr], 128: the acquire makes a modified tensor map usable by
      // this thread's TMA instructions.
      if (ops.empty()) {
        out.exec = &nothing;
        return true;
      }
      if (!count(2) || ops[1].kind != ptx::Operand::Integer ||
          ops[1].bits != 128)
        return d.fail("expected fence.proxy.tensormap::generic.acquire "
                      "[addr], 128");
      uint32_t base = 0;
      if (!d.address(ops[0], Space::Generic, base, out.imm))
        return false;
      d.setOperands(out, {base});
      out.exec = &tensormapAcquire;
      return true;
    }
    out.exec = kind == 1 && proxy == 0 && !global ? &proxyFence : &nothing;
    return true;
  }
  case Opcode::Griddepcontrol: {
    // Programmatic dependent launch: launches run one after the other, so
    // the grids a kernel may depend on have completed, and signalling
    // dependents early changes nothing.
    if (mods.takeOneOf({"launch_dependents", "wait"}) < 0 || !ops.empty())
      return d.fail("expected griddepcontrol.launch_dependents or .wait");
    out.exec = &nothing;
    return true;
  }
  case Opcode::Nanosleep:
  case Opcode::Pmevent: {
    mods.take("u32");
    mods.take("mask");
    out.exec = &nothing;
    return true;
  }
  case Opcode::Shfl: {
    if (!mods.take("sync"))
      return d.fail("shfl without .sync (sm_70 removed it)");
    int mode = mods.takeOneOf({"up", "down", "bfly", "idx"});
    std::vector<Ty> types = mods.takeTypes();
    if (mode < 0 || types.size() != 1 || types[0] != Ty::B32)
      return d.fail("expected shfl.sync.{up,down,bfly,idx}.b32");
    out.setPayload<ShflArgs>().mode = static_cast<ShflMode>(mode);
    if (!count(5))
      return false;
    uint32_t dst = 0, p = kSlotSink, a = 0, b = 0, c = 0, mask = 0;
    if (ops[0].kind == ptx::Operand::Pair) {
      if (!d.dest(ops[0].elements[0], dst) || !d.dest(ops[0].elements[1], p))
        return false;
    } else if (!d.dest(ops[0], dst)) {
      return false;
    }
    if (!d.source(ops[1], Ty::B32, a) || !d.source(ops[2], Ty::B32, b) ||
        !d.source(ops[3], Ty::B32, c) || !memberMask(4, mask))
      return false;
    d.setOperands(out, {dst, p, a, b, c, mask});
    out.memberMaskOperand = 5;
    out.exec = &shfl;
    return true;
  }
  case Opcode::Vote: {
    if (!mods.take("sync"))
      return d.fail("vote without .sync (sm_70 removed it)");
    int mode = mods.takeOneOf({"all", "any", "uni", "ballot"});
    std::vector<Ty> types = mods.takeTypes();
    if (mode < 0 || types.size() != 1)
      return d.fail("expected vote.sync.{all,any,uni,ballot}");
    VoteArgs &args = out.setPayload<VoteArgs>();
    args.mode = static_cast<VoteMode>(mode);
    if (!count(3))
      return false;
    uint32_t dst = 0, p = 0, mask = 0;
    bool negated = false;
    if (!d.dest(ops[0], dst) || !d.predicate(ops[1], p, negated) ||
        !memberMask(2, mask))
      return false;
    args.predicateNegated = negated;
    d.setOperands(out, {dst, p, mask});
    out.memberMaskOperand = 2;
    out.exec = &vote;
    return true;
  }
  case Opcode::Redux: {
    if (!mods.take("sync"))
      return d.fail("expected redux.sync");
    int op = mods.takeOneOf({"add", "min", "max", "and", "or", "xor"});
    std::vector<Ty> types = mods.takeTypes();
    if (op < 0 || types.size() != 1 ||
        (types[0] != Ty::U32 && types[0] != Ty::S32 && types[0] != Ty::B32))
      return d.fail("unsupported redux.sync");
    ReduxArgs &args = out.setPayload<ReduxArgs>();
    args.op = static_cast<ReduxOp>(op);
    args.isSigned = types[0] == Ty::S32;
    if (!count(3))
      return false;
    uint32_t dst = 0, a = 0, mask = 0;
    if (!d.dest(ops[0], dst) || !d.source(ops[1], types[0], a) ||
        !memberMask(2, mask))
      return false;
    d.setOperands(out, {dst, a, mask});
    out.memberMaskOperand = 2;
    out.exec = &redux;
    return true;
  }
  case Opcode::Match: {
    if (!mods.take("sync"))
      return d.fail("expected match.sync");
    int mode = mods.takeOneOf({"any", "all"});
    std::vector<Ty> types = mods.takeTypes();
    if (mode < 0 || types.size() != 1 ||
        (types[0] != Ty::B32 && types[0] != Ty::B64))
      return d.fail("unsupported match.sync");
    out.type = types[0];
    out.setPayload<MatchArgs>().all = mode == 1;
    if (!count(3))
      return false;
    uint32_t dst = 0, p = kSlotSink, a = 0, mask = 0;
    if (ops[0].kind == ptx::Operand::Pair) {
      if (!d.dest(ops[0].elements[0], dst) || !d.dest(ops[0].elements[1], p))
        return false;
    } else if (!d.dest(ops[0], dst)) {
      return false;
    }
    if (!d.source(ops[1], types[0], a) || !memberMask(2, mask))
      return false;
    d.setOperands(out, {dst, p, a, mask});
    out.memberMaskOperand = 3;
    out.exec = &match;
    return true;
  }
  case Opcode::Activemask: {
    if (!mods.take("b32") || !count(1))
      return d.fail("expected activemask.b32 d");
    uint32_t dst = 0;
    if (!d.dest(ops[0], dst))
      return false;
    d.setOperands(out, {dst});
    out.exec = &activemask;
    return true;
  }
  case Opcode::Elect: {
    if (!mods.take("sync") || !count(2))
      return d.fail("expected elect.sync d|p, membermask");
    uint32_t dst = 0, p = kSlotSink, mask = 0;
    if (ops[0].kind == ptx::Operand::Pair) {
      if (!d.dest(ops[0].elements[0], dst) || !d.dest(ops[0].elements[1], p))
        return false;
    } else if (!d.dest(ops[0], dst)) {
      return false;
    }
    if (!memberMask(1, mask))
      return false;
    d.setOperands(out, {dst, p, mask});
    out.memberMaskOperand = 2;
    out.exec = &elect;
    return true;
  }
  default:
    break;
  }
  return d.fail("internal error: not a control opcode");
}

} // namespace control
} // namespace sim
} // namespace gmm

bool gmm::sim::decodeControl(Decoder &decoder, const ptx::Instruction &instr,
                             Modifiers &mods, Instr &out) {
  control::ControlDecoder control(decoder, instr, mods, out);
  return control.run();
}

namespace gmm {
namespace sim {
namespace control {} // namespace control
} // namespace sim
} // namespace gmm
