//===- MBarrier.cpp - mbarrier objects ------------------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The mbarrier family (PTX ISA, "Parallel synchronization and communication
// instructions: mbarrier"): barrier objects in shared memory with a phase,
// an expected arrival count and (sm_90) a transaction count. A phase
// completes when its pending arrivals and its transaction count both reach
// zero; the object then moves to the next phase with the expected count
// pending again.
//
// - mbarrier.try_wait parks the lanes whose phase has not completed (the
//   ISA lets it wait up to a time limit; the simulator waits until the
//   phase completes), so that a wait nothing can end is a deadlock the
//   scheduler reports, naming the mbarrier and its phase, instead of a
//   time-out. test_wait never waits.
// - Misuse fails the launch (MbarrierMisuse): an object used before
//   mbarrier.init or after mbarrier.inval, more arrivals than the phase
//   still expects, an arrive.noComplete that completes a phase, counts out
//   of the ISA's ranges, and a transaction count that goes below zero once
//   every arrival of the phase is in (more bytes completed than expected).
// - The 8 bytes of the object are accessed as atomics (inval as a write)
//   through the memory checks, and hold an opaque mirror of the state.
// - Several threads may initialize one object with the same count: it is
//   initialized once (see mbarrierInit).
//
// The state token that arrive returns holds the phase it arrived in (high
// 32 bits) and the arrivals then still pending (low 32 bits).
//
//===----------------------------------------------------------------------===//

#include "Control.h"
#include "DeviceModel.h"
#include "PTXSyntax.h"

#include <cstdio>

using namespace gmm::sim;
using namespace gmm::sim::control;

namespace {

/// The ISA's limits on arrival counts and transaction counts.
constexpr uint32_t kMaxArrivals = (1u << 20) - 1;
constexpr int64_t kMaxTransactionBytes = (1 << 20) - 1;

enum class MbarrierOp : uint8_t {
  Init,
  Inval,
  Arrive,
  ExpectTx,
  CompleteTx,
  TestWait,
  TryWait,
  PendingCount,
  /// cp.async.mbarrier.arrive.
  AsyncArrive,
};

const char *const kOpNames[] = {
    "mbarrier.init",      "mbarrier.inval",         "mbarrier.arrive",
    "mbarrier.expect_tx", "mbarrier.complete_tx",   "mbarrier.test_wait",
    "mbarrier.try_wait",  "mbarrier.pending_count", "cp.async.mbarrier.arrive"};

/// Every mbarrier instruction. Operands: init [addr, count]; inval [addr];
/// arrive [state or sink, addr, count or bytes]; expect_tx and complete_tx
/// [addr, bytes]; test_wait and try_wait [waitComplete, addr, state or
/// parity]; pending_count [count, state].
struct MbarrierArgs {
  MbarrierOp op;
  /// The address is generic (no state space on the instruction).
  bool generic;
  /// arrive.noComplete: must not complete the phase.
  bool noComplete;
  /// arrive_drop: also lowers the expected count of later phases.
  bool drop;
  /// arrive.expect_tx: the third operand is a byte count, the arrival one.
  bool expectTx;
  /// test_wait/try_wait.parity: the third operand is a phase parity (else
  /// a state token).
  bool parity;
  /// cp.async.mbarrier.arrive.noinc: the arrival counts as one of the
  /// phase's (else the pending count is raised by one first).
  bool noinc;
};

unsigned addressOperand(MbarrierOp op) {
  return op == MbarrierOp::Arrive || op == MbarrierOp::TestWait ||
                 op == MbarrierOp::TryWait
             ? 1
             : 0;
}

std::string hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%llx",
                static_cast<unsigned long long>(value));
  return buffer;
}

/// The shared offset lane `l` of warp `w` names in `in` (no checks); false
/// when a generic address lies outside shared memory.
bool laneOffset(Warp &w, const Instr &in, int l, uint64_t &offset) {
  const MbarrierArgs &args = in.payload<MbarrierArgs>();
  uint64_t address =
      w.reg(in.ops[addressOperand(args.op)])[l] + static_cast<uint64_t>(in.imm);
  if (args.generic) {
    if (classifyGeneric(address) != Space::Shared)
      return false;
    address = fromGeneric(Space::Shared, address);
  }
  offset = address;
  return true;
}

/// Whether the phase a wait names (by parity or by a state token) has
/// completed.
bool phaseDone(const MBarrier &b, const MbarrierArgs &args, uint64_t value) {
  if (args.parity)
    return (b.phase & 1) != (value & 1);
  return b.phase != static_cast<uint32_t>(value >> 32);
}

std::string describe(const MBarrier &b, uint32_t offset) {
  return "the mbarrier at shared offset " + hex(offset) +
         " (initialized at PTX line " + std::to_string(b.initLine) +
         "; phase " + std::to_string(b.phase) + ": " +
         std::to_string(b.pending) + " of " + std::to_string(b.expected) +
         " arrivals pending, transaction count " + std::to_string(b.tx) + ")";
}

void mirror(uint8_t *bytes, const MBarrier &b) {
  uint64_t word = uint64_t(b.pending & kMaxArrivals) |
                  (uint64_t(b.expected & kMaxArrivals) << 21) |
                  ((static_cast<uint64_t>(b.tx) & 0x1fffff) << 42) |
                  (uint64_t(b.phase & 1) << 63);
  std::memcpy(bytes, &word, 8);
}

/// Wakes the lanes parked at try_wait on the mbarrier at `offset` whose
/// phase has now completed.
void wakeWaiters(ExecState &s, Block &block, uint32_t offset,
                 const MBarrier &b) {
  for (uint32_t wi = 0; wi < block.numWarps; ++wi) {
    Warp &w = block.warps[wi];
    uint32_t woken = 0;
    forEachLane(w.live & ~w.ready, [&](int l) {
      if (w.state[l] != LaneState::AtMbarrier)
        return;
      const Instr &in = s.prog.code[w.pc[l]];
      uint64_t at = 0;
      if (laneOffset(w, in, l, at) &&
          at % limits::kClusterWindowBytes == offset &&
          phaseDone(b, in.payload<MbarrierArgs>(), w.reg(in.ops[2])[l]))
        woken |= 1u << l;
    });
    if (!woken)
      continue;
    materialize(w);
    forEachLane(woken, [&](int l) {
      const Instr &in = s.prog.code[w.pc[l]];
      w.reg(in.ops[0])[l] = 1;
      w.state[l] = LaneState::Ready;
      w.pc[l] += 1;
    });
    w.ready |= woken;
    // The scheduler makes the running warp uniform after its step.
    if (&w != s.warp)
      tryUniform(w);
  }
}

/// After an arrival or a transaction-count change: completes the phase
/// when nothing is pending, or reports (through `reporter`, the thread and
/// instruction to blame) a count that went below zero. False after a
/// finding.
bool settle(ExecState &s, ExecState &reporter, int lane, bool noComplete,
            Block &owner, uint32_t offset, MBarrier &b) {
  if (b.pending != 0)
    return true;
  if (b.tx < 0) {
    reporter.fail(
        FindingKind::MbarrierMisuse, lane,
        "mbarrier transaction count underflow: " + std::to_string(-b.tx) +
            " more bytes completed than expected after every arrival of "
            "the phase is in, on " +
            describe(b, offset));
    return false;
  }
  if (b.tx > 0)
    return true;
  if (noComplete) {
    reporter.fail(FindingKind::MbarrierMisuse, lane,
                  "mbarrier.arrive.noComplete completes the phase of " +
                      describe(b, offset));
    return false;
  }
  b.phase += 1;
  b.pending = b.expected;
  b.tx = 0;
  // The race check orders accesses by barrier intervals: a completed phase
  // starts a new one for the whole block (see docs/Simulator.md).
  owner.epoch = ++*owner.epochClock;
  wakeWaiters(s, owner, offset, b);
  return true;
}

/// The mbarrier lane `l` addresses, after the memory checks; `bytes` is
/// its storage, `owner` the block whose shared memory holds it (another CTA
/// of the cluster for a shared::cluster address) and `offset` its offset
/// there. Null after a finding.
MBarrier *lookup(ExecState &s, const Instr &in, int l, uint32_t &offset,
                 uint8_t *&bytes, Block *&owner) {
  const MbarrierArgs &args = in.payload<MbarrierArgs>();
  const char *what = kOpNames[static_cast<int>(args.op)];
  uint64_t at = 0;
  if (!laneOffset(*s.warp, in, l, at)) {
    s.fail(FindingKind::OutOfBounds, l,
           std::string(what) + " on an address outside shared memory");
    return nullptr;
  }
  // Every operation, init too, is an atomic access of the object: several
  // threads may initialize it at once (see mbarrierInit).
  bytes = accessMemory(
      s, l, Space::Shared, at, 8,
      args.op == MbarrierOp::Inval ? Access::Write : Access::Atomic, 8);
  if (!bytes)
    return nullptr;
  owner = &s.block;
  if (at >= limits::kClusterWindowBytes) {
    owner =
        s.block.clusterState().members[at / limits::kClusterWindowBytes - 1];
    at %= limits::kClusterWindowBytes;
    bool remoteAllowed = args.op == MbarrierOp::Arrive ||
                         args.op == MbarrierOp::ExpectTx ||
                         args.op == MbarrierOp::CompleteTx;
    if (owner != &s.block && !remoteAllowed) {
      s.fail(FindingKind::MbarrierMisuse, l,
             std::string(what) +
                 " on another CTA's mbarrier (only arrive, expect_tx and "
                 "complete_tx reach across the cluster)");
      return nullptr;
    }
  }
  offset = static_cast<uint32_t>(at);
  if (args.op == MbarrierOp::Init)
    return &owner->mbarriers[offset];
  auto it = owner->mbarriers.find(offset);
  if (it == owner->mbarriers.end()) {
    s.fail(FindingKind::MbarrierMisuse, l,
           std::string(what) + " on shared offset " + hex(offset) +
               ", which holds no mbarrier (mbarrier.init must come first, "
               "and mbarrier.inval ends it)");
    return nullptr;
  }
  return &it->second;
}

/// Runs `f(lane, offset, bytes, mbarrier, owner)` for each lane of `exec`
/// on the mbarrier it addresses, until a finding.
template <typename F>
void forEachMbarrier(ExecState &s, const Instr &in, uint32_t exec, F &&f) {
  forEachLane(exec, [&](int l) {
    if (s.failed)
      return;
    uint32_t offset = 0;
    uint8_t *bytes = nullptr;
    Block *owner = nullptr;
    if (MBarrier *b = lookup(s, in, l, offset, bytes, owner))
      f(l, offset, bytes, *b, *owner);
  });
}

/// Checks a transaction byte count operand.
bool txOperand(ExecState &s, int lane, uint64_t value, int64_t &bytes) {
  uint32_t count = static_cast<uint32_t>(value);
  if (count > kMaxTransactionBytes) {
    s.fail(FindingKind::MbarrierMisuse, lane,
           "mbarrier transaction count " + std::to_string(count) +
               " is out of range (at most 2^20 - 1)");
    return false;
  }
  bytes = count;
  return true;
}

/// Adds `delta` to the transaction count within its range.
bool addTx(ExecState &s, int lane, uint32_t offset, MBarrier &b,
           int64_t delta) {
  int64_t tx = b.tx + delta;
  if (tx > kMaxTransactionBytes || tx < -kMaxTransactionBytes) {
    s.fail(FindingKind::MbarrierMisuse, lane,
           "mbarrier transaction count leaves its range (|count| < 2^20) on " +
               describe(b, offset));
    return false;
  }
  b.tx = tx;
  return true;
}

void mbarrierInit(ExecState &s, const Instr &in, uint32_t exec) {
  const uint64_t *counts = s.reg(in.ops[1]);
  forEachMbarrier(
      s, in, exec,
      [&](int l, uint32_t, uint8_t *bytes, MBarrier &b, Block &owner) {
        uint32_t count = static_cast<uint32_t>(counts[l]);
        if (count == 0 || count > kMaxArrivals) {
          s.fail(FindingKind::MbarrierMisuse, l,
                 "mbarrier.init with " + std::to_string(count) +
                     " expected arrivals (the count must be 1 to 2^20 - 1)");
          return;
        }
        // Threads that initialize one object with the same count (upstream
        // MLIR's NVGPU examples have the whole block do it) initialize it
        // once: on a GPU their inits happen together, before any arrival,
        // while the simulator runs one warp after the other, so a later
        // warp's init may come after the first phases. (An init of a live
        // object is undefined in the ISA; mbarrier.inval ends one.)
        if (b.initLine != 0 && b.expected == count)
          return;
        b = MBarrier();
        b.expected = b.pending = count;
        b.initLine = in.line;
        mirror(bytes, b);
      });
}

void mbarrierInval(ExecState &s, const Instr &in, uint32_t exec) {
  forEachMbarrier(
      s, in, exec,
      [&](int, uint32_t offset, uint8_t *bytes, MBarrier &, Block &) {
        s.block.mbarriers.erase(offset);
        std::memset(bytes, 0, 8);
      });
}

void mbarrierArrive(ExecState &s, const Instr &in, uint32_t exec) {
  const MbarrierArgs &args = in.payload<MbarrierArgs>();
  uint64_t *state = s.reg(in.ops[0]);
  const uint64_t *third = s.reg(in.ops[2]);
  forEachMbarrier(
      s, in, exec,
      [&](int l, uint32_t offset, uint8_t *bytes, MBarrier &b, Block &owner) {
        uint32_t count = 1;
        if (args.expectTx) {
          int64_t tx = 0;
          if (!txOperand(s, l, third[l], tx) || !addTx(s, l, offset, b, tx))
            return;
        } else {
          count = static_cast<uint32_t>(third[l]);
        }
        if (count == 0 || count > kMaxArrivals) {
          s.fail(FindingKind::MbarrierMisuse, l,
                 "mbarrier.arrive with a count of " + std::to_string(count) +
                     " (the count must be 1 to 2^20 - 1)");
          return;
        }
        if (count > b.pending) {
          s.fail(FindingKind::MbarrierMisuse, l,
                 "mbarrier.arrive of " + std::to_string(count) +
                     " arrivals exceeds what the phase still expects, on " +
                     describe(b, offset));
          return;
        }
        uint32_t arrivedIn = b.phase;
        b.pending -= count;
        if (args.drop)
          b.expected -= count;
        uint64_t token = (uint64_t(arrivedIn) << 32) | b.pending;
        if (!settle(s, s, l, args.noComplete, owner, offset, b))
          return;
        mirror(bytes, b);
        state[l] = token;
      });
}

/// expect_tx adds to the transaction count, complete_tx takes from it.
void mbarrierTx(ExecState &s, const Instr &in, uint32_t exec) {
  bool complete = in.payload<MbarrierArgs>().op == MbarrierOp::CompleteTx;
  const uint64_t *counts = s.reg(in.ops[1]);
  forEachMbarrier(
      s, in, exec,
      [&](int l, uint32_t offset, uint8_t *bytes, MBarrier &b, Block &owner) {
        int64_t tx = 0;
        if (!txOperand(s, l, counts[l], tx) ||
            !addTx(s, l, offset, b, complete ? -tx : tx) ||
            !settle(s, s, l, /*noComplete=*/false, owner, offset, b))
          return;
        mirror(bytes, b);
      });
}

void mbarrierTestWait(ExecState &s, const Instr &in, uint32_t exec) {
  const MbarrierArgs &args = in.payload<MbarrierArgs>();
  uint64_t *done = s.reg(in.ops[0]);
  const uint64_t *values = s.reg(in.ops[2]);
  forEachMbarrier(
      s, in, exec,
      [&](int l, uint32_t offset, uint8_t *, MBarrier &b, Block &owner) {
        // The bulk copies that complete on it may have landed.
        if (landBulkLoads(s, offset))
          done[l] = phaseDone(b, args, values[l]);
      });
}

/// try_wait: lanes whose phase completed go on with waitComplete set; the
/// others park until it completes.
void mbarrierTryWait(ExecState &s, const Instr &in, uint32_t exec) {
  const MbarrierArgs &args = in.payload<MbarrierArgs>();
  Warp &w = *s.warp;
  materialize(w);
  forEachLane(s.arrived & ~exec, [&](int l) { w.pc[l] = s.pc + 1; });
  uint64_t *done = s.reg(in.ops[0]);
  const uint64_t *values = s.reg(in.ops[2]);
  uint32_t parked = 0;
  forEachMbarrier(
      s, in, exec,
      [&](int l, uint32_t offset, uint8_t *, MBarrier &b, Block &owner) {
        if (!landBulkLoads(s, offset))
          return;
        if (phaseDone(b, args, values[l])) {
          done[l] = 1;
          w.pc[l] = s.pc + 1;
          return;
        }
        parked |= 1u << l;
        w.state[l] = LaneState::AtMbarrier;
        w.pc[l] = s.pc;
      });
  w.ready &= ~parked;
}

void mbarrierPendingCount(ExecState &s, const Instr &in, uint32_t exec) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *state = s.reg(in.ops[1]);
  forEachLane(exec, [&](int l) { d[l] = static_cast<uint32_t>(state[l]); });
}

/// cp.async.mbarrier.arrive{.noinc} [addr]: the mbarrier receives an
/// arrival when every cp.async the thread issued before lands. Without
/// .noinc the pending count is raised by one now, so that the arrival
/// leaves it as it was. A thread with no copies in flight arrives at once.
void cpAsyncMbarrierArrive(ExecState &s, const Instr &in, uint32_t exec) {
  const MbarrierArgs &args = in.payload<MbarrierArgs>();
  Warp &w = *s.warp;
  forEachMbarrier(
      s, in, exec,
      [&](int l, uint32_t offset, uint8_t *bytes, MBarrier &b, Block &owner) {
        bool inFlight = false;
        for (const AsyncCopy &copy : w.async)
          inFlight |= copy.lane == l;
        if (!inFlight && !args.noinc)
          return; // +1 and -1 at once
        if (!inFlight || !args.noinc) {
          // An arrival now (.noinc), or the raise before a later one.
          if (inFlight ? b.pending >= kMaxArrivals : b.pending == 0) {
            s.fail(FindingKind::MbarrierMisuse, l,
                   std::string("cp.async.mbarrier.arrive ") +
                       (inFlight ? "raises the pending count past 2^20 - 1"
                                 : "exceeds what the phase still expects") +
                       ", on " + describe(b, offset));
            return;
          }
          if (inFlight) {
            b.pending += 1;
          } else {
            b.pending -= 1;
            if (!settle(s, s, l, false, owner, offset, b))
              return;
          }
          mirror(bytes, b);
        }
        if (inFlight)
          s.block.asyncArrivals.push_back({offset, w.index, w.asyncGroups[l],
                                           s.pc, static_cast<uint8_t>(l)});
      });
}

class MbarrierDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run() {
    int which = mods.takeOneOf({"init", "inval", "arrive", "arrive_drop",
                                "expect_tx", "complete_tx", "test_wait",
                                "try_wait", "pending_count"});
    if (which < 0)
      return d.fail("unsupported mbarrier operation");
    MbarrierArgs &args = out.setPayload<MbarrierArgs>();
    static const MbarrierOp kOps[] = {
        MbarrierOp::Init,     MbarrierOp::Inval,    MbarrierOp::Arrive,
        MbarrierOp::Arrive,   MbarrierOp::ExpectTx, MbarrierOp::CompleteTx,
        MbarrierOp::TestWait, MbarrierOp::TryWait,  MbarrierOp::PendingCount};
    args.op = kOps[which];
    args.drop = which == 3;
    bool isArrive = args.op == MbarrierOp::Arrive;
    bool isWait =
        args.op == MbarrierOp::TestWait || args.op == MbarrierOp::TryWait;
    if (isArrive) {
      args.expectTx = mods.take("expect_tx");
      args.noComplete = mods.take("noComplete");
    }
    if (isWait)
      args.parity = mods.take("parity");
    mods.takeIgnorable(); // .release, .acquire, .relaxed, .cta, .cluster
    bool cluster = mods.take("shared::cluster");
    Space space = Space::Generic;
    if (!cluster && mods.takeSpace(space) && space != Space::Shared)
      return d.fail("mbarrier objects live in shared memory");
    if (cluster)
      space = Space::Shared;
    args.generic = space == Space::Generic;
    if (!mods.take("b64"))
      return d.fail("expected .b64");
    bool hopper = args.expectTx || args.op == MbarrierOp::ExpectTx ||
                  args.op == MbarrierOp::CompleteTx ||
                  args.op == MbarrierOp::TryWait || cluster;
    if (hopper && d.arch() < 90)
      return d.fail("this mbarrier form needs sm_90");
    out.exec = handler(args.op);
    out.flow = args.op == MbarrierOp::TryWait ? Flow::Control : Flow::Next;

    std::vector<uint32_t> slots;
    auto addressAt = [&](size_t i) {
      uint32_t base = 0;
      if (!d.address(ops[i], space, base, out.imm))
        return false;
      slots.push_back(base);
      return true;
    };
    auto sourceAt = [&](size_t i, Ty type) {
      uint32_t slot = 0;
      if (!d.source(ops[i], type, slot))
        return false;
      slots.push_back(slot);
      return true;
    };
    auto destAt = [&](size_t i) {
      uint32_t slot = 0;
      if (!d.dest(ops[i], slot))
        return false;
      slots.push_back(slot);
      return true;
    };
    switch (args.op) {
    case MbarrierOp::Init:
    case MbarrierOp::ExpectTx:
    case MbarrierOp::CompleteTx:
      if (!count(2) || !addressAt(0) || !sourceAt(1, Ty::U32))
        return false;
      break;
    case MbarrierOp::Inval:
      if (!count(1) || !addressAt(0))
        return false;
      break;
    case MbarrierOp::Arrive: {
      bool third = args.expectTx || args.noComplete;
      if (third ? ops.size() != 3 : (ops.size() != 2 && ops.size() != 3))
        return d.fail(third ? "expected state, [addr], count"
                            : "expected state, [addr]{, count}");
      if (!destAt(0) || !addressAt(1))
        return false;
      if (ops.size() == 3) {
        if (!sourceAt(2, Ty::U32))
          return false;
      } else {
        slots.push_back(d.constant(1));
      }
      break;
    }
    case MbarrierOp::TestWait:
    case MbarrierOp::TryWait:
      if (ops.size() != 3 &&
          !(args.op == MbarrierOp::TryWait && ops.size() == 4))
        return d.fail("expected waitComplete, [addr], state or parity");
      if (!destAt(0) || !addressAt(1) ||
          !sourceAt(2, args.parity ? Ty::U32 : Ty::B64))
        return false;
      // The suspend-time hint changes how long a wait may last, not what
      // it returns.
      if (ops.size() == 4 && !sourceAt(3, Ty::U32))
        return false;
      break;
    case MbarrierOp::PendingCount:
      if (!count(2) || !destAt(0) || !sourceAt(1, Ty::B64))
        return false;
      break;
    }
    d.setOperands(out, slots);
    return true;
  }

  /// cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr] (the
  /// Memory family took "cp.async.mbarrier").
  bool runAsyncArrive() {
    if (!mods.take("arrive"))
      return d.fail("expected cp.async.mbarrier.arrive");
    MbarrierArgs &args = out.setPayload<MbarrierArgs>();
    args.op = MbarrierOp::AsyncArrive;
    args.noinc = mods.take("noinc");
    Space space = Space::Generic;
    if (mods.take("shared::cta"))
      space = Space::Shared;
    else if (mods.takeSpace(space) && space != Space::Shared)
      return d.fail("mbarrier objects live in shared memory");
    args.generic = space == Space::Generic;
    if (!mods.take("b64"))
      return d.fail("expected .b64");
    if (!count(1))
      return false;
    uint32_t base = 0;
    if (!d.address(ops[0], space, base, out.imm))
      return false;
    d.setOperands(out, {base});
    out.exec = &cpAsyncMbarrierArrive;
    return true;
  }

private:
  static Handler handler(MbarrierOp op) {
    switch (op) {
    case MbarrierOp::Init:
      return &mbarrierInit;
    case MbarrierOp::Inval:
      return &mbarrierInval;
    case MbarrierOp::Arrive:
      return &mbarrierArrive;
    case MbarrierOp::ExpectTx:
    case MbarrierOp::CompleteTx:
      return &mbarrierTx;
    case MbarrierOp::TestWait:
      return &mbarrierTestWait;
    case MbarrierOp::TryWait:
      return &mbarrierTryWait;
    case MbarrierOp::PendingCount:
      return &mbarrierPendingCount;
    case MbarrierOp::AsyncArrive:
      return &cpAsyncMbarrierArrive;
    }
    return nullptr;
  }
};

} // namespace

bool gmm::sim::decodeMbarrier(Decoder &decoder, const ptx::Instruction &instr,
                              Modifiers &mods, Instr &out) {
  MbarrierDecoder mbarrier(decoder, instr, mods, out);
  return mbarrier.run();
}

bool gmm::sim::decodeCpAsyncMbarrier(Decoder &decoder,
                                     const ptx::Instruction &instr,
                                     Modifiers &mods, Instr &out) {
  MbarrierDecoder mbarrier(decoder, instr, mods, out);
  return mbarrier.runAsyncArrive();
}

bool gmm::sim::control::landAsyncArrivals(
    ExecState &s, const std::function<bool(const AsyncArrival &)> &which,
    unsigned *landed) {
  std::vector<AsyncArrival> now, kept;
  for (const AsyncArrival &a : s.block.asyncArrivals)
    (which(a) ? now : kept).push_back(a);
  if (now.empty())
    return true;
  s.block.asyncArrivals = std::move(kept);
  for (const AsyncArrival &a : now) {
    ExecState at = s;
    at.warp = &s.block.warps[a.warp];
    at.pc = a.pc;
    landAsyncCopiesOf(at, a.lane, a.group + 1);
    if (s.failed || at.failed) {
      s.failed = true;
      return false;
    }
    auto it = s.block.mbarriers.find(a.mbarrier);
    if (it == s.block.mbarriers.end()) {
      at.fail(FindingKind::MbarrierMisuse, a.lane,
              "the mbarrier at shared offset " + hex(a.mbarrier) +
                  " that this cp.async.mbarrier.arrive arrives on was "
                  "invalidated before its copies completed");
      s.failed = true;
      return false;
    }
    MBarrier &b = it->second;
    if (b.pending == 0) {
      at.fail(FindingKind::MbarrierMisuse, a.lane,
              "cp.async.mbarrier.arrive exceeds what the phase still "
              "expects, on " +
                  describe(b, a.mbarrier));
      s.failed = true;
      return false;
    }
    b.pending -= 1;
    if (!settle(s, at, a.lane, false, s.block, a.mbarrier, b)) {
      s.failed = true;
      return false;
    }
    mirror(s.block.shared.data() + a.mbarrier, b);
    if (landed)
      ++*landed;
  }
  return true;
}

std::string gmm::sim::control::describeMbarrierWait(ExecState &s, Warp &w,
                                                    int lane) {
  const Instr &in = s.prog.code[w.pc[lane]];
  const MbarrierArgs &args = in.payload<MbarrierArgs>();
  uint64_t offset = 0;
  if (!laneOffset(w, in, lane, offset))
    return "an mbarrier outside shared memory";
  uint64_t value = w.reg(in.ops[2])[lane];
  std::string phase = args.parity
                          ? "the phase of parity " + std::to_string(value & 1)
                          : "phase " + std::to_string(value >> 32);
  offset %= limits::kClusterWindowBytes;
  auto it = s.block.mbarriers.find(static_cast<uint32_t>(offset));
  if (it == s.block.mbarriers.end())
    return phase + " of an mbarrier at shared offset " + hex(offset) +
           " that was invalidated";
  return phase + " of " + describe(it->second, static_cast<uint32_t>(offset));
}

bool gmm::sim::control::completeMbarrierTransaction(ExecState &s,
                                                    ExecState &reporter,
                                                    int lane, uint32_t offset,
                                                    uint64_t bytes) {
  auto it = s.block.mbarriers.find(offset);
  if (it == s.block.mbarriers.end()) {
    reporter.fail(FindingKind::MbarrierMisuse, lane,
                  "a bulk copy completes on shared offset " + hex(offset) +
                      ", which holds no mbarrier (was it invalidated while "
                      "the copy was in flight?)");
    s.failed = true;
    return false;
  }
  MBarrier &b = it->second;
  if (!addTx(reporter, lane, offset, b, -static_cast<int64_t>(bytes)) ||
      !settle(s, reporter, lane, /*noComplete=*/false, s.block, offset, b)) {
    s.failed = true;
    return false;
  }
  mirror(s.block.shared.data() + offset, b);
  return true;
}
