//===- Scheduler.cpp - running the warps of a block
//-------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The SIMT model. Each lane has its own program counter (independent thread
// scheduling, PTX ISA 3.2); a warp executes the lowest program counter
// among its ready lanes with every ready lane that is there, so diverged
// lanes reconverge as soon as they reach the same instruction. A warp runs
// until its lanes all wait (at a barrier or a warp-collective instruction)
// or exit, or for a quantum; the block's warps take turns until all exit.
//
// Warp-collective instructions (.aligned ones need the whole warp, .sync
// ones the lanes of their member mask) park the lanes that reach them
// until every needed lane is there; barriers count arriving threads. When
// nothing can run and threads still wait, the block is stuck: a barrier
// that part of the block never reaches, a collective executed by a
// divergent or partial warp, or a deadlock; each is a finding. The
// instructions' handlers are in ControlFlow.cpp, Barriers.cpp,
// WarpCollectives.cpp and Builtins.cpp (Control.h).
//
//===----------------------------------------------------------------------===//

#include "Control.h"
#include "DeviceModel.h"

#include <cinttypes>
#include <cstdio>

using namespace gmm::sim;
using namespace gmm::sim::control;

//===----------------------------------------------------------------------===//
// Findings
//===----------------------------------------------------------------------===//

std::string gmm::sim::describeLocation(const ExecState &state, int lane) {
  const LaunchContext &launch = state.launch;
  const Block &block = state.block;
  uint32_t t = state.warp ? state.threadIndex(lane) : 0;
  const Dim3 &bd = launch.config.block;
  std::string where =
      "kernel " + state.prog.name + ", block (" +
      std::to_string(block.ctaid[0]) + "," + std::to_string(block.ctaid[1]) +
      "," + std::to_string(block.ctaid[2]) + "), thread (" +
      std::to_string(t % bd.x) + "," + std::to_string((t / bd.x) % bd.y) + "," +
      std::to_string(t / (bd.x * bd.y)) + ")";
  if (state.pc < state.prog.code.size()) {
    const Instr &in = state.prog.code[state.pc];
    where += ", PTX line " + std::to_string(in.line) + ": " +
             state.prog.texts[in.textIndex];
  }
  return where;
}

void ExecState::fail(FindingKind kind, int lane, const std::string &message) {
  failed = true;
  std::string line = message + " (" + describeLocation(*this, lane) + ")";
  std::lock_guard<std::mutex> guard(launch.mutex);
  if (!launch.hasFinding || block.linear < launch.findingBlock) {
    launch.hasFinding = true;
    launch.findingBlock = block.linear;
    launch.findingKind = kind;
    launch.findingMessage = line;
    launch.stopAfter.store(block.linear);
  }
}

namespace {

//===----------------------------------------------------------------------===//
// The scheduler
//===----------------------------------------------------------------------===//

/// Parks the lanes that reached a collective until every lane it needs is
/// there. Returns the lanes to execute it with (0: not yet).
uint32_t gatherCollective(ExecState &s, Warp &w, const Instr &in, uint32_t pc,
                          uint32_t arrived) {
  uint32_t required;
  if (in.collective == Collective::FullWarp) {
    if (w.exists != 0xffffffffu) {
      s.fail(FindingKind::CollectiveDivergence, __builtin_ctz(arrived),
             "warp-collective instruction in a partial warp (lanes " +
                 laneList(w.exists) + " exist; it needs all 32)");
      return 0;
    }
    required = 0xffffffffu;
  } else {
    const uint64_t *masks = s.reg(in.ops[in.memberMaskOperand]);
    int first = __builtin_ctz(arrived);
    required = static_cast<uint32_t>(masks[first]);
    bool same = true;
    forEachLane(arrived, [&](int l) {
      same &= static_cast<uint32_t>(masks[l]) == required;
    });
    if (!same) {
      s.fail(FindingKind::CollectiveDivergence, first,
             "lanes of a warp give different member masks");
      return 0;
    }
    if (arrived & ~required) {
      s.fail(FindingKind::CollectiveDivergence,
             __builtin_ctz(arrived & ~required),
             "lane executes a .sync instruction whose member mask " +
                 laneList(required) + " does not include it");
      return 0;
    }
    if (required & ~w.exists) {
      s.fail(FindingKind::CollectiveDivergence, first,
             "member mask " + laneList(required) +
                 " names lanes that do not exist (the warp has lanes " +
                 laneList(w.exists) + ")");
      return 0;
    }
  }
  if ((arrived & required) == required)
    return arrived;
  uint32_t waiting = 0;
  forEachLane(w.live & ~w.ready, [&](int l) {
    if (w.state[l] == LaneState::AtCollective && w.pc[l] == pc)
      waiting |= 1u << l;
  });
  uint32_t have = arrived | waiting;
  if ((have & required) == required) {
    materialize(w);
    forEachLane(waiting, [&](int l) { w.state[l] = LaneState::Ready; });
    w.ready |= waiting;
    return have;
  }
  if (required & ~w.live) {
    s.fail(FindingKind::CollectiveDivergence, __builtin_ctz(arrived),
           "warp-collective instruction executed while lanes " +
               laneList(required & ~w.live) + " of its warp have exited");
    return 0;
  }
  // Park and let the others catch up.
  materialize(w);
  forEachLane(arrived, [&](int l) {
    w.state[l] = LaneState::AtCollective;
    w.pc[l] = pc;
  });
  w.ready &= ~arrived;
  return 0;
}

/// Gathers the four warps of a warpgroup at a .sync.aligned warpgroup
/// instruction: every warp parks there until the last one arrives, which
/// executes it for all and releases the others past it. Returns the lanes
/// to execute (0: parked, or a finding).
uint32_t gatherWarpgroup(ExecState &s, Warp &w, const Instr &in, uint32_t pc,
                         uint32_t arrived) {
  Block &block = s.block;
  uint32_t group = w.index / 4;
  if (4 * group + 4 > block.numWarps ||
      block.warps[4 * group + 3].exists != 0xffffffffu) {
    s.fail(FindingKind::CollectiveDivergence, __builtin_ctz(arrived),
           "warpgroup instruction in a partial warpgroup: warps " +
               std::to_string(4 * group) + "-" + std::to_string(4 * group + 3) +
               " need all 128 threads, the block has " +
               std::to_string(block.numThreads));
    return 0;
  }
  if (arrived != 0xffffffffu) {
    // Lanes of a warp reach an .aligned instruction at different times
    // when they reconverge after a branch only some took (the scheduler
    // runs the lowest program counter first): the early ones wait for the
    // rest of their warp. Lanes that never come leave a deadlock, which
    // names where each lane waits; lanes that exited are a finding now.
    if (w.live != 0xffffffffu) {
      s.fail(FindingKind::CollectiveDivergence, __builtin_ctz(arrived),
             "warpgroup instruction reached while lanes " + laneList(~w.live) +
                 " of warp " + std::to_string(w.index) +
                 " have exited (.aligned: all 32 lanes of each warp of the "
                 "warpgroup)");
      return 0;
    }
    uint32_t waiting = 0;
    forEachLane(w.live & ~w.ready, [&](int l) {
      if (w.state[l] == LaneState::AtWarpgroup && w.pc[l] == pc)
        waiting |= 1u << l;
    });
    materialize(w);
    if ((arrived | waiting) != 0xffffffffu) {
      forEachLane(arrived, [&](int l) {
        w.state[l] = LaneState::AtWarpgroup;
        w.pc[l] = pc;
      });
      w.ready &= ~arrived;
      return 0;
    }
    forEachLane(waiting, [&](int l) { w.state[l] = LaneState::Ready; });
    w.ready |= waiting;
    arrived = 0xffffffffu;
  }
  bool all = true;
  for (uint32_t i = 0; i < 4; ++i) {
    Warp &other = block.warps[4 * group + i];
    if (&other == &w)
      continue;
    if (other.live != 0xffffffffu) {
      s.fail(FindingKind::CollectiveDivergence, __builtin_ctz(arrived),
             "warpgroup instruction reached while lanes " +
                 laneList(~other.live) + " of warp " +
                 std::to_string(other.index) +
                 " of its warpgroup have exited (.aligned: all 128 threads "
                 "execute it)");
      return 0;
    }
    bool there = other.ready == 0 && other.live == 0xffffffffu;
    forEachLane(other.live, [&](int l) {
      there &= other.state[l] == LaneState::AtWarpgroup && other.pc[l] == pc;
    });
    all &= there;
  }
  if (!all) {
    materialize(w);
    forEachLane(arrived, [&](int l) {
      w.state[l] = LaneState::AtWarpgroup;
      w.pc[l] = pc;
    });
    w.ready &= ~arrived;
    return 0;
  }
  // .aligned: the guard is uniform over the warpgroup (all 128 threads
  // execute it, or none does).
  if (in.guard != kNoSlot) {
    unsigned passing = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      Warp &member = block.warps[4 * group + i];
      const uint64_t *g = member.reg(in.guard);
      for (int l = 0; l < 32; ++l)
        passing += (g[l] & 1) != static_cast<uint64_t>(in.guardNegated);
    }
    if (passing != 0 && passing != 128) {
      s.fail(FindingKind::CollectiveDivergence, __builtin_ctz(arrived),
             "warpgroup instruction whose guard predicate holds for " +
                 std::to_string(passing) +
                 " of the 128 threads of its warpgroup (.aligned: all or "
                 "none)");
      return 0;
    }
  }
  for (uint32_t i = 0; i < 4; ++i) {
    Warp &other = block.warps[4 * group + i];
    if (&other == &w)
      continue;
    forEachLane(other.live, [&](int l) {
      other.state[l] = LaneState::Ready;
      other.pc[l] = pc + 1;
    });
    other.ready = other.live;
    tryUniform(other);
  }
  return arrived;
}

void trace(ExecState &s, const Instr &in, uint32_t arrived, uint32_t exec) {
  const Options &o = s.launch.options;
  if (o.traceThread < 0 || static_cast<int64_t>(s.block.linear) != o.traceBlock)
    return;
  if (!o.traceKernel.empty() && o.traceKernel != s.prog.name)
    return;
  int64_t t = o.traceThread - int64_t(s.warp->index) * 32;
  if (t < 0 || t >= 32 || !((arrived >> t) & 1))
    return;
  int lane = static_cast<int>(t);
  std::string values;
  for (uint16_t i = 0; i < in.numOps; ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), " %" PRIx64, s.reg(in.ops[i])[lane]);
    values += buffer;
  }
  std::fprintf(stderr, "gmm-sim trace: %s line %u: %s%s |%s\n",
               s.prog.name.c_str(), in.line, s.prog.texts[in.textIndex].c_str(),
               ((exec >> lane) & 1) ? "" : " (predicated off)", values.c_str());
}

/// Runs `w` until it has no ready lane or for `budget` instructions.
void runWarp(ExecState &s, Warp &w, uint64_t budget, uint64_t &warpCount,
             uint64_t &threadCount) {
  s.warp = &w;
  const Instr *code = s.prog.code.data();
  bool tracing = s.launch.options.traceThread >= 0;
  while (budget-- && w.ready && !s.failed) {
    uint32_t pc, arrived;
    if (w.uniform) {
      pc = w.upc;
      arrived = w.ready;
    } else {
      pc = UINT32_MAX;
      forEachLane(w.ready, [&](int l) { pc = std::min(pc, w.pc[l]); });
      arrived = 0;
      forEachLane(w.ready, [&](int l) {
        if (w.pc[l] == pc)
          arrived |= 1u << l;
      });
    }
    const Instr &in = code[pc];
    s.pc = pc;
    if (in.collective == Collective::Warpgroup) {
      arrived = gatherWarpgroup(s, w, in, pc, arrived);
      if (!arrived)
        continue;
    } else if (in.collective != Collective::None) {
      arrived = gatherCollective(s, w, in, pc, arrived);
      if (!arrived)
        continue;
    }
    uint32_t exec = arrived;
    if (in.guard != kNoSlot) {
      const uint64_t *g = w.reg(in.guard);
      uint32_t pass = 0;
      forEachLane(arrived, [&](int l) {
        if ((g[l] & 1) != static_cast<uint64_t>(in.guardNegated))
          pass |= 1u << l;
      });
      exec = pass;
    }
    s.arrived = arrived;
    ++w.steps;
    ++warpCount;
    threadCount += __builtin_popcount(exec);
    if (tracing)
      trace(s, in, arrived, exec);
    if (in.flow == Flow::Next) {
      if (exec)
        in.exec(s, in, exec);
      advance(w, arrived, pc + 1);
    } else {
      in.exec(s, in, exec);
    }
    if (s.block.assertFailed && !s.failed) {
      s.fail(FindingKind::AssertFailed, s.block.assertLane,
             "device-side assertion failed");
    }
    if (!w.uniform)
      tryUniform(w);
  }
}

/// Explains why no thread of the block can run.
void diagnoseStuck(ExecState &s) {
  Block &block = s.block;
  // A collective some lanes wait at.
  for (uint32_t wi = 0; wi < block.numWarps; ++wi) {
    Warp &w = block.warps[wi];
    forEachLane(w.live & ~w.ready, [&](int l) {
      if (s.failed || w.state[l] != LaneState::AtCollective)
        return;
      uint32_t pc = w.pc[l];
      uint32_t waiting = 0, elsewhere = 0;
      forEachLane(w.live & ~w.ready, [&](int k) {
        if (w.state[k] == LaneState::AtCollective && w.pc[k] == pc)
          waiting |= 1u << k;
        else
          elsewhere |= 1u << k;
      });
      uint32_t exited = w.exists & ~w.live;
      s.warp = &w;
      s.pc = pc;
      std::string others;
      if (elsewhere) {
        int k = __builtin_ctz(elsewhere);
        others = "lanes " + laneList(elsewhere) + " wait elsewhere (PTX line " +
                 std::to_string(s.prog.code[w.pc[k]].line) + ")";
      }
      if (exited)
        others += std::string(others.empty() ? "" : "; ") + "lanes " +
                  laneList(exited) + " exited";
      s.fail(FindingKind::CollectiveDivergence, l,
             "warp-collective instruction reached by lanes " +
                 laneList(waiting) + " of warp " + std::to_string(w.index) +
                 " only (" + others + ")");
    });
    if (s.failed)
      return;
  }
  // Waits on mbarriers (perhaps beside barriers): name every warp's.
  std::string waits;
  int mbarrierWarp = -1, mbarrierLane = 0;
  for (uint32_t wi = 0; wi < block.numWarps; ++wi) {
    Warp &w = block.warps[wi];
    uint32_t pending = w.live & ~w.ready;
    while (pending) {
      int l = __builtin_ctz(pending);
      uint32_t pc = w.pc[l];
      LaneState state = w.state[l];
      uint32_t same = 0;
      forEachLane(pending, [&](int k) {
        if (w.pc[k] == pc && w.state[k] == state)
          same |= 1u << k;
      });
      pending &= ~same;
      const Instr &in = s.prog.code[pc];
      std::string what =
          state == LaneState::AtMbarrier
              ? "wait for " + describeMbarrierWait(s, w, l)
          : state == LaneState::AtWarpgroup
              ? "wait for " +
                    (same == w.exists ? std::string()
                                      : "lanes " + laneList(w.exists & ~same) +
                                            " of their warp and ") +
                    "the other warps of warpgroup " +
                    std::to_string(w.index / 4) + " at this instruction"
          : state == LaneState::AtClusterBarrier
              ? "wait at barrier.cluster for the cluster's "
                "other threads (" +
                    std::to_string(block.clusterState().arrived) + " of " +
                    std::to_string(block.clusterState().threads) + " arrived)"
              : "wait at a barrier";
      if ((state == LaneState::AtMbarrier || state == LaneState::AtWarpgroup ||
           state == LaneState::AtClusterBarrier) &&
          mbarrierWarp < 0) {
        mbarrierWarp = static_cast<int>(wi);
        mbarrierLane = l;
      }
      waits += std::string(waits.empty() ? "" : "; ") + "warp " +
               std::to_string(w.index) + " lanes " + laneList(same) + " " +
               what + " (PTX line " + std::to_string(in.line) + ": " +
               s.prog.texts[in.textIndex] + ")";
    }
    if (w.exists & ~w.live)
      waits += std::string(waits.empty() ? "" : "; ") + "warp " +
               std::to_string(w.index) + " lanes " +
               laneList(w.exists & ~w.live) + " exited";
  }
  if (mbarrierWarp >= 0) {
    Warp &w = block.warps[mbarrierWarp];
    s.warp = &w;
    s.pc = w.pc[mbarrierLane];
    s.fail(FindingKind::Deadlock, mbarrierLane,
           "deadlock: no thread of the block can go on: " + waits);
    return;
  }
  // A barrier.
  uint32_t exitedThreads = 0, waitingThreads = 0;
  int firstWarp = -1, firstLane = 0;
  for (uint32_t wi = 0; wi < block.numWarps; ++wi) {
    Warp &w = block.warps[wi];
    exitedThreads += __builtin_popcount(w.exists & ~w.live);
    uint32_t waiting = 0;
    forEachLane(w.live & ~w.ready, [&](int l) {
      if (w.state[l] == LaneState::AtBarrier)
        waiting |= 1u << l;
    });
    waitingThreads += __builtin_popcount(waiting);
    if (waiting && firstWarp < 0) {
      firstWarp = static_cast<int>(w.index);
      firstLane = __builtin_ctz(waiting);
    }
  }
  if (firstWarp < 0) {
    s.warp = &block.warps[0];
    s.fail(FindingKind::Deadlock, 0, "the block stopped making progress");
    return;
  }
  Warp &w = block.warps[firstWarp];
  s.warp = &w;
  s.pc = w.pc[firstLane];
  const Instr &in = s.prog.code[s.pc];
  uint32_t id = static_cast<uint32_t>(w.reg(in.ops[0])[firstLane]);
  const Barrier &barrier = block.barriers[id < 16 ? id : 0];
  if (exitedThreads) {
    s.fail(FindingKind::BarrierDivergence, firstLane,
           "barrier " + std::to_string(id) +
               " reached by only part of the "
               "block: " +
               std::to_string(barrier.arrived) + " of " +
               std::to_string(barrier.expected) + " threads arrived, " +
               std::to_string(exitedThreads) +
               " threads exited without reaching it");
    return;
  }
  s.fail(FindingKind::Deadlock, firstLane,
         "deadlock: " + std::to_string(waitingThreads) +
             " threads wait at barriers that never complete (barrier " +
             std::to_string(id) + " has " + std::to_string(barrier.arrived) +
             " of its " + std::to_string(barrier.expected) + " threads)");
}

} // namespace

void gmm::sim::startBlock(LaunchContext &launch, Block &block, uint64_t linear,
                          uint32_t &epochCounter) {
  const Program &prog = launch.prog;
  const LaunchConfig &config = launch.config;
  block.linear = linear;
  block.ctaid[0] = static_cast<uint32_t>(linear % config.grid.x);
  block.ctaid[1] =
      static_cast<uint32_t>((linear / config.grid.x) % config.grid.y);
  block.ctaid[2] =
      static_cast<uint32_t>(linear / (uint64_t(config.grid.x) * config.grid.y));
  block.numThreads = launch.threadsPerBlock;
  block.output.clear();
  block.assertions.clear();
  block.assertFailed = false;
  block.assertLane = -1;
  block.steps = 0;
  block.epochClock = &epochCounter;
  block.baseEpoch = block.epoch = ++epochCounter;
  for (Barrier &barrier : block.barriers)
    barrier = Barrier();
  block.mbarriers.clear();
  block.bulkCopies.clear();
  block.asyncArrivals.clear();
  block.warpgroups.clear();
  block.proxyFences.assign(block.numThreads, 0);
  block.clusterArrivals.assign(block.numThreads, 0);
  block.mapAcquired.clear();
  block.solo = Cluster();
  block.solo.members.assign(1, &block);
  block.solo.threads = block.numThreads;
  block.solo.count[0] = config.grid.x;
  block.solo.count[1] = config.grid.y;
  block.solo.count[2] = config.grid.z;
  if (block.shared.size() < launch.sharedBytes) {
    block.shared.resize(launch.sharedBytes);
    block.shadow.resize(launch.sharedBytes);
  }
  uint32_t numWarps = (block.numThreads + 31) / 32;
  block.numWarps = numWarps;
  if (block.warps.size() < numWarps)
    block.warps.resize(numWarps);
  // The warps of this block only (a reused Block may have more).
  std::vector<Warp> &warps = block.warps;
  uint32_t lanesInLast = block.numThreads - (numWarps - 1) * 32;
  for (uint32_t wi = 0; wi < numWarps; ++wi) {
    Warp &w = warps[wi];
    w.index = wi;
    w.exists = wi + 1 < numWarps || lanesInLast == 32 ? 0xffffffffu
                                                      : (1u << lanesInLast) - 1;
    w.live = w.ready = w.exists;
    w.uniform = true;
    w.upc = 0;
    w.steps = 0;
    w.async.clear();
    for (int l = 0; l < 32; ++l) {
      w.pc[l] = 0;
      w.state[l] =
          ((w.exists >> l) & 1) ? LaneState::Ready : LaneState::Inactive;
      w.callStack[l].clear();
      w.asyncGroups[l] = 0;
      w.bulkGroups[l] = 0;
    }
    w.regs.assign(size_t(prog.numSlots) * 32, 0);
    if (prog.localBytes)
      w.local.assign(size_t(prog.localBytes) * 32, 0);
    if (prog.paramBytes)
      w.param.assign(size_t(prog.paramBytes) * 32, 0);
    auto fill = [&](uint32_t slot, uint64_t value) {
      uint64_t *r = w.reg(slot);
      for (int l = 0; l < 32; ++l)
        r[l] = value;
    };
    for (const auto &[slot, value] : prog.constants)
      fill(slot, value);
    fill(kSlotNtidX, config.block.x);
    fill(kSlotNtidY, config.block.y);
    fill(kSlotNtidZ, config.block.z);
    fill(kSlotCtaidX, block.ctaid[0]);
    fill(kSlotCtaidY, block.ctaid[1]);
    fill(kSlotCtaidZ, block.ctaid[2]);
    fill(kSlotNctaidX, config.grid.x);
    fill(kSlotNctaidY, config.grid.y);
    fill(kSlotNctaidZ, config.grid.z);
    fill(kSlotWarpid, wi);
    fill(kSlotNwarpid, 64);
    fill(kSlotSmid, static_cast<uint32_t>(linear % launch.smCount));
    fill(kSlotNsmid, launch.smCount);
    fill(kSlotGridid, 1);
    fill(kSlotDynamicSmemSize, config.dynamicSharedBytes);
    fill(kSlotTotalSmemSize, launch.sharedBytes);
    // Without clusters every block is a cluster of one.
    if (const Cluster *c = block.cluster) {
      uint32_t rank = block.clusterRank;
      fill(kSlotClusterCtarank, rank);
      fill(kSlotClusterNctarank, static_cast<uint32_t>(c->members.size()));
      fill(kSlotIsExplicitCluster, c->isExplicit);
      fill(kSlotClusterCtaidX, rank % c->dims[0]);
      fill(kSlotClusterCtaidY, (rank / c->dims[0]) % c->dims[1]);
      fill(kSlotClusterCtaidZ, rank / (c->dims[0] * c->dims[1]));
      fill(kSlotClusterNctaidX, c->dims[0]);
      fill(kSlotClusterNctaidY, c->dims[1]);
      fill(kSlotClusterNctaidZ, c->dims[2]);
      fill(kSlotClusteridX, c->id[0]);
      fill(kSlotClusteridY, c->id[1]);
      fill(kSlotClusteridZ, c->id[2]);
      fill(kSlotNclusteridX, c->count[0]);
      fill(kSlotNclusteridY, c->count[1]);
      fill(kSlotNclusteridZ, c->count[2]);
    } else {
      fill(kSlotClusterCtarank, 0);
      fill(kSlotClusterNctarank, 1);
      fill(kSlotIsExplicitCluster, 0);
      fill(kSlotClusterNctaidX, 1);
      fill(kSlotClusterNctaidY, 1);
      fill(kSlotClusterNctaidZ, 1);
      fill(kSlotClusteridX, block.ctaid[0]);
      fill(kSlotClusteridY, block.ctaid[1]);
      fill(kSlotClusteridZ, block.ctaid[2]);
      fill(kSlotNclusteridX, config.grid.x);
      fill(kSlotNclusteridY, config.grid.y);
      fill(kSlotNclusteridZ, config.grid.z);
    }
    for (int l = 0; l < 32; ++l) {
      uint32_t t = wi * 32 + l;
      w.reg(kSlotTidX)[l] = t % config.block.x;
      w.reg(kSlotTidY)[l] = (t / config.block.x) % config.block.y;
      w.reg(kSlotTidZ)[l] = t / (config.block.x * config.block.y);
      w.reg(kSlotLaneid)[l] = l;
      w.reg(kSlotLanemaskEq)[l] = 1u << l;
      w.reg(kSlotLanemaskLt)[l] = (1u << l) - 1;
      w.reg(kSlotLanemaskLe)[l] = l == 31 ? 0xffffffffu : (2u << l) - 1;
      w.reg(kSlotLanemaskGt)[l] = l == 31 ? 0 : ~((2u << l) - 1);
      w.reg(kSlotLanemaskGe)[l] = ~((1u << l) - 1);
    }
  }
}

void gmm::sim::diagnoseBlock(LaunchContext &launch, Block &block) {
  ExecState state(launch.prog, launch, block);
  diagnoseStuck(state);
}

bool gmm::sim::stepBlock(LaunchContext &launch, Block &block, uint64_t budget,
                         uint64_t &warpInstructions,
                         uint64_t &threadInstructions, bool *blocked) {
  ExecState state(launch.prog, launch, block);
  std::vector<Warp> &warps = block.warps;
  uint32_t numWarps = block.numWarps;
  // Warps take turns every 32 instructions, so that they advance nearly in
  // step as on a GPU: a program that races (a race the checks report) then
  // computes, with the checks off, what it computes on a GPU more often
  // (upstream MLIR's sm_90 GEMM test, which stores accumulators and reads
  // other warps' rows without a barrier, is right with 32 and a third
  // wrong with 4096). The speed is the same.
  constexpr uint64_t kQuantum = 32;
  uint64_t start = warpInstructions;
  while (!state.failed) {
    bool progress = false, done = true;
    for (uint32_t wi = 0; wi < numWarps && !state.failed; ++wi) {
      Warp &w = warps[wi];
      if (w.ready) {
        uint64_t before = w.steps;
        runWarp(state, w, kQuantum, warpInstructions, threadInstructions);
        progress |= w.steps != before || !w.ready;
      }
      done &= w.live == 0;
    }
    if (done && !state.failed)
      finishBulkCopies(state);
    if (state.failed || done)
      return true;
    if (!progress) {
      bool anyReady = false;
      for (uint32_t wi = 0; wi < numWarps; ++wi)
        anyReady |= warps[wi].ready != 0;
      if (!anyReady) {
        // Bulk loads in flight land when nothing else can happen: they
        // may complete the phases that the threads wait for.
        unsigned landed = 0;
        if (!landAllBulkLoads(state, landed))
          return true;
        if (landed)
          continue;
        // A block of a cluster may wait for the cluster's other blocks.
        if (block.cluster && blocked) {
          *blocked = true;
          return false;
        }
        diagnoseStuck(state);
        return true;
      }
    }
    // Stop early when an earlier block already failed.
    if (launch.stopAfter.load(std::memory_order_relaxed) < block.linear)
      return true;
    if (warpInstructions - start >= budget)
      return false;
  }
  return true;
}
