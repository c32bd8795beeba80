//===- Barriers.cpp - bar, barrier and their reductions
//---------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Barriers count arriving threads (bar.sync/arrive, barrier.sync, the
// bar.red reductions) and release the waiting ones when the count is
// reached.
//
//===----------------------------------------------------------------------===//

#include "Control.h"

using namespace gmm::sim;

namespace gmm {
namespace sim {
namespace control {

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

/// Releases the threads waiting at barrier `id`.
void completeBarrier(ExecState &s, uint32_t id) {
  Block &block = s.block;
  Barrier &barrier = block.barriers[id];
  const Checks &checks = s.launch.options.checks;
  for (uint32_t wi = 0; wi < block.numWarps; ++wi) {
    Warp &w = block.warps[wi];
    uint32_t waiting = 0;
    forEachLane(w.live & ~w.ready, [&](int l) {
      if (w.state[l] == LaneState::AtBarrier) {
        // Which barrier: the operand of the instruction it waits at.
        const Instr &in = s.prog.code[w.pc[l]];
        if (w.reg(in.ops[0])[l] == id)
          waiting |= 1u << l;
      }
    });
    if (!waiting)
      continue;
    if (checks.synccheck) {
      // .aligned barriers: the lanes of a warp wait at one instruction.
      uint32_t pc = w.pc[__builtin_ctz(waiting)];
      bool same = true;
      forEachLane(waiting, [&](int l) { same &= w.pc[l] == pc; });
      const Instr &in = s.prog.code[pc];
      if (!same && in.payload<BarrierArgs>().aligned) {
        ExecState at = s;
        at.warp = &w;
        at.pc = pc;
        uint32_t other = 0;
        forEachLane(waiting, [&](int l) {
          if (w.pc[l] != pc)
            other = s.prog.code[w.pc[l]].line;
        });
        at.fail(FindingKind::BarrierDivergence, __builtin_ctz(waiting),
                "divergent barrier: lanes of warp " + std::to_string(w.index) +
                    " wait at different bar.sync instructions (PTX lines " +
                    std::to_string(in.line) + " and " + std::to_string(other) +
                    ")");
        s.failed = true;
        return;
      }
    }
    materialize(w);
    forEachLane(waiting, [&](int l) {
      const Instr &in = s.prog.code[w.pc[l]];
      BarrierKind kind = in.payload<BarrierArgs>().kind;
      if (kind >= BarRedPopc) {
        uint64_t value = kind == BarRedPopc  ? barrier.redCount
                         : kind == BarRedAnd ? (barrier.redAnd ? 1 : 0)
                                             : (barrier.redOr ? 1 : 0);
        w.reg(in.ops[2])[l] = value;
      }
      w.state[l] = LaneState::Ready;
      w.pc[l] += 1;
    });
    w.ready |= waiting;
    tryUniform(w);
  }
  barrier = Barrier();
  // A new barrier interval: accesses before it are ordered with those after.
  block.epoch = ++*block.epochClock;
}

/// bar.sync / bar.arrive / bar.red / barrier.sync (BarrierArgs).
void barrierHandler(ExecState &s, const Instr &in, uint32_t exec) {
  const BarrierArgs &args = in.payload<BarrierArgs>();
  Warp &w = *s.warp;
  Block &block = s.block;
  materialize(w);
  forEachLane(s.arrived & ~exec, [&](int l) { w.pc[l] = s.pc + 1; });
  if (!exec)
    return;
  const uint64_t *ids = s.reg(in.ops[0]);
  int first = __builtin_ctz(exec);
  uint64_t id = ids[first];
  uint64_t count = in.ops[1] == kSlotSink ? 0 : s.reg(in.ops[1])[first];
  bool consistent = true;
  forEachLane(exec, [&](int l) {
    consistent &= ids[l] == id &&
                  (in.ops[1] == kSlotSink || s.reg(in.ops[1])[l] == count);
  });
  if (!consistent || id >= 16) {
    s.fail(FindingKind::BarrierDivergence, first,
           id >= 16 ? "barrier id " + std::to_string(id) + " out of range"
                    : "lanes of a warp name different barriers or counts");
    return;
  }
  if (count % 32 != 0 || count > block.numThreads) {
    if (count != 0) {
      s.fail(FindingKind::BarrierDivergence, first,
             "barrier thread count " + std::to_string(count) +
                 (count % 32
                      ? " is not a multiple of 32"
                      : " exceeds the block's " +
                            std::to_string(block.numThreads) + " threads"));
      return;
    }
  }
  // Threads of a partial last warp count for its whole warp.
  Barrier &barrier = block.barriers[id];
  uint32_t expected = count ? static_cast<uint32_t>(count) : block.numThreads;
  if (!barrier.active) {
    barrier.active = true;
    barrier.expected = expected;
  } else if (barrier.expected != expected) {
    s.fail(FindingKind::BarrierDivergence, first,
           "barrier " + std::to_string(id) + " used with thread counts " +
               std::to_string(barrier.expected) + " and " +
               std::to_string(expected) + " at once");
    return;
  }
  uint32_t arriving = __builtin_popcount(exec);
  if (args.kind >= BarRedPopc) {
    const uint64_t *p = s.reg(in.ops[3]);
    forEachLane(exec, [&](int l) {
      bool v = (p[l] & 1) != args.predicateNegated;
      barrier.redCount += v;
      barrier.redAnd = barrier.redAnd && v;
      barrier.redOr = barrier.redOr || v;
    });
  }
  barrier.arrived += arriving;
  if (args.kind == BarArrive) {
    forEachLane(exec, [&](int l) { w.pc[l] = s.pc + 1; });
  } else {
    forEachLane(exec, [&](int l) {
      w.state[l] = LaneState::AtBarrier;
      w.pc[l] = s.pc;
    });
    w.ready &= ~exec;
  }
  if (barrier.arrived >= barrier.expected)
    completeBarrier(s, static_cast<uint32_t>(id));
}

void clusterArrive(ExecState &s, const Instr &, uint32_t exec) {
  Cluster &cluster = s.block.clusterState();
  forEachLane(exec, [&](int l) {
    if (s.failed)
      return;
    uint32_t &arrival = s.block.clusterArrivals[s.threadIndex(l)];
    if (arrival) {
      s.fail(FindingKind::BarrierDivergence, l,
             "barrier.cluster.arrive twice without a barrier.cluster.wait "
             "between");
      return;
    }
    arrival = cluster.phase + 1;
    if (++cluster.arrived < cluster.threads)
      return;
    // Every thread of the cluster arrived: the phase completes, the
    // waiting threads go on, and accesses after it are ordered with those
    // before it in every block of the cluster.
    cluster.arrived = 0;
    ++cluster.phase;
    for (Block *member : cluster.members) {
      member->epoch = ++*member->epochClock;
      for (uint32_t wi = 0; wi < member->numWarps; ++wi) {
        Warp &w = member->warps[wi];
        uint32_t woken = 0;
        forEachLane(w.live & ~w.ready, [&](int k) {
          if (w.state[k] == LaneState::AtClusterBarrier)
            woken |= 1u << k;
        });
        if (!woken)
          continue;
        materialize(w);
        forEachLane(woken, [&](int k) {
          w.state[k] = LaneState::Ready;
          w.pc[k] += 1;
          member->clusterArrivals[w.index * 32 + k] = 0;
        });
        w.ready |= woken;
        if (&w != s.warp)
          tryUniform(w);
      }
    }
  });
}

void clusterWait(ExecState &s, const Instr &, uint32_t exec) {
  Warp &w = *s.warp;
  Cluster &cluster = s.block.clusterState();
  materialize(w);
  forEachLane(s.arrived & ~exec, [&](int l) { w.pc[l] = s.pc + 1; });
  uint32_t parked = 0;
  forEachLane(exec, [&](int l) {
    if (s.failed)
      return;
    uint32_t &arrival = s.block.clusterArrivals[s.threadIndex(l)];
    if (!arrival) {
      s.fail(FindingKind::BarrierDivergence, l,
             "barrier.cluster.wait without a barrier.cluster.arrive before "
             "it");
      return;
    }
    if (arrival - 1 < cluster.phase) {
      arrival = 0;
      w.pc[l] = s.pc + 1;
      return;
    }
    parked |= 1u << l;
    w.state[l] = LaneState::AtClusterBarrier;
    w.pc[l] = s.pc;
  });
  w.ready &= ~parked;
}

void nothing(ExecState &, const Instr &, uint32_t) {}

void proxyFence(ExecState &s, const Instr &, uint32_t exec) {
  std::vector<uint16_t> &fences = s.block.proxyFences;
  forEachLane(exec, [&](int l) { ++fences[s.threadIndex(l)]; });
}

} // namespace control
} // namespace sim
} // namespace gmm
