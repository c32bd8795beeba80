//===- Control.cpp - Scheduling, control flow, barriers, warp collectives -===//
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
// divergent or partial warp, or a deadlock; each is a finding.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"
#include "PTXSyntax.h"

#include <cinttypes>
#include <cstdio>

using namespace gmm::sim;

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
// Lane bookkeeping
//===----------------------------------------------------------------------===//

/// Makes pc[] exact for every ready lane and leaves uniform mode.
inline void materialize(Warp &w) {
  if (!w.uniform)
    return;
  forEachLane(w.ready, [&](int l) { w.pc[l] = w.upc; });
  w.uniform = false;
}

/// Enters uniform mode when every ready lane has the same program counter.
inline void tryUniform(Warp &w) {
  if (w.uniform || !w.ready)
    return;
  int first = __builtin_ctz(w.ready);
  uint32_t pc = w.pc[first];
  bool same = true;
  forEachLane(w.ready, [&](int l) { same &= w.pc[l] == pc; });
  if (same) {
    w.uniform = true;
    w.upc = pc;
  }
}

/// Moves the lanes of `mask` (which reached `pc`) to `next`.
inline void advance(Warp &w, uint32_t mask, uint32_t next) {
  if (w.uniform && mask == w.ready) {
    w.upc = next;
    return;
  }
  materialize(w);
  forEachLane(mask, [&](int l) { w.pc[l] = next; });
}

/// The lanes of `w` that exist and are not ready (for messages).
std::string laneList(uint32_t mask) {
  std::string text;
  int start = -1;
  for (int l = 0; l <= 32; ++l) {
    bool in = l < 32 && ((mask >> l) & 1);
    if (in && start < 0)
      start = l;
    if (!in && start >= 0) {
      if (!text.empty())
        text += ",";
      text += std::to_string(start);
      if (l - 1 > start)
        text += "-" + std::to_string(l - 1);
      start = -1;
    }
  }
  return text.empty() ? "none" : text;
}

/// Lanes of `mask` leave the kernel: their pending copies land (the
/// hardware completes them), and they no longer count.
void exitLanes(ExecState &s, Warp &w, uint32_t mask) {
  materialize(w);
  if (!w.async.empty()) {
    uint32_t limits[32];
    for (uint32_t &limit : limits)
      limit = UINT32_MAX;
    size_t kept = 0;
    for (size_t i = 0; i < w.async.size(); ++i) {
      const AsyncCopy &copy = w.async[i];
      if ((mask >> copy.lane) & 1) {
        landAsyncCopy(s, copy);
        continue;
      }
      w.async[kept++] = copy;
    }
    w.async.resize(kept);
  }
  forEachLane(mask, [&](int l) { w.state[l] = LaneState::Exited; });
  w.live &= ~mask;
  w.ready &= ~mask;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

void branch(ExecState &s, const Instr &in, uint32_t exec) {
  Warp &w = *s.warp;
  uint32_t arrived = s.arrived;
  if (w.uniform && arrived == w.ready) {
    if (exec == arrived) {
      w.upc = in.target;
      return;
    }
    if (exec == 0) {
      w.upc = s.pc + 1;
      return;
    }
  }
  materialize(w);
  forEachLane(arrived, [&](int l) {
    w.pc[l] = ((exec >> l) & 1) ? in.target : s.pc + 1;
  });
}

/// Copies `size` bytes of lane `l`'s parameter memory.
inline void copyParam(Warp &w, const Program &prog, int l, uint32_t to,
                      uint32_t from, uint32_t size) {
  uint8_t *base = w.param.data() + size_t(l) * prog.paramBytes;
  std::memmove(base + to, base + from, size);
}

void vprintfBuiltin(ExecState &s, const CallSite &site, int lane);
void assertBuiltin(ExecState &s, const CallSite &site, int lane);

void call(ExecState &s, const Instr &in, uint32_t exec) {
  Warp &w = *s.warp;
  const CallSite &site = s.prog.calls[in.aux];
  materialize(w);
  forEachLane(s.arrived, [&](int l) {
    if (!((exec >> l) & 1)) {
      w.pc[l] = s.pc + 1;
      return;
    }
    switch (site.builtin) {
    case CallSite::Vprintf:
      vprintfBuiltin(s, site, l);
      w.pc[l] = s.pc + 1;
      return;
    case CallSite::AssertFail:
      assertBuiltin(s, site, l);
      w.pc[l] = s.pc + 1;
      return;
    case CallSite::Malloc:
    case CallSite::Free:
      s.fail(FindingKind::Unsupported, l,
             "device-side " + site.calleeName + " is not supported");
      return;
    case CallSite::None:
      break;
    }
    for (size_t i = 0; i < site.argOffsets.size(); ++i)
      copyParam(w, s.prog, l, site.calleeArgOffsets[i], site.argOffsets[i],
                std::min(site.argSizes[i], i < site.calleeArgOffsets.size()
                                               ? site.argSizes[i]
                                               : 0u));
    if (w.callStack[l].size() >= 1024) {
      s.fail(FindingKind::Unsupported, l, "call stack overflow");
      return;
    }
    w.callStack[l].push_back(s.pc + 1);
    w.pc[l] = in.target;
  });
}

/// ret: back to the caller, or the end of the thread in the kernel.
void ret(ExecState &s, const Instr &, uint32_t exec) {
  Warp &w = *s.warp;
  materialize(w);
  uint32_t exiting = 0;
  forEachLane(s.arrived, [&](int l) {
    if (!((exec >> l) & 1)) {
      w.pc[l] = s.pc + 1;
      return;
    }
    if (w.callStack[l].empty()) {
      exiting |= 1u << l;
      return;
    }
    uint32_t back = w.callStack[l].back();
    w.callStack[l].pop_back();
    // The results: from the callee's return parameters to the call's.
    const Instr &callInstr = s.prog.code[back - 1];
    const CallSite &site = s.prog.calls[callInstr.aux];
    for (size_t i = 0; i < site.retOffsets.size(); ++i)
      copyParam(w, s.prog, l, site.retOffsets[i], site.calleeRetOffsets[i],
                site.retSizes[i]);
    w.pc[l] = back;
  });
  if (exiting)
    exitLanes(s, w, exiting);
}

void exitHandler(ExecState &s, const Instr &, uint32_t exec) {
  Warp &w = *s.warp;
  materialize(w);
  forEachLane(s.arrived & ~exec, [&](int l) { w.pc[l] = s.pc + 1; });
  if (exec)
    exitLanes(s, w, exec);
}

void trap(ExecState &s, const Instr &in, uint32_t exec) {
  Warp &w = *s.warp;
  if (!exec) {
    advance(w, s.arrived, s.pc + 1);
    return;
  }
  s.fail(FindingKind::Trap, __builtin_ctz(exec),
         in.m0 ? "brkpt executed (no debugger)" : "trap executed");
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

enum BarrierKind : uint8_t {
  BarSync,
  BarArrive,
  BarRedPopc,
  BarRedAnd,
  BarRedOr
};

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
      if (!same && in.m1) {
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
      if (in.m0 >= BarRedPopc) {
        uint64_t value = in.m0 == BarRedPopc  ? barrier.redCount
                         : in.m0 == BarRedAnd ? (barrier.redAnd ? 1 : 0)
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

/// bar.sync / bar.arrive / bar.red / barrier.sync (ops: id, count or
/// kSlotSink, red destination, red predicate; m0: BarrierKind; m1: aligned;
/// m2: red predicate negated).
void barrierHandler(ExecState &s, const Instr &in, uint32_t exec) {
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
  if (in.m0 >= BarRedPopc) {
    const uint64_t *p = s.reg(in.ops[3]);
    forEachLane(exec, [&](int l) {
      bool v = (p[l] & 1) != in.m2;
      barrier.redCount += v;
      barrier.redAnd = barrier.redAnd && v;
      barrier.redOr = barrier.redOr || v;
    });
  }
  barrier.arrived += arriving;
  if (in.m0 == BarArrive) {
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

void nothing(ExecState &, const Instr &, uint32_t) {}

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

//===----------------------------------------------------------------------===//
// Builtins: vprintf and __assertfail
//===----------------------------------------------------------------------===//

/// Reads a parameter of lane `l` (a pointer or integer of `size` bytes).
uint64_t readParam(Warp &w, const Program &prog, int l, uint32_t offset,
                   uint32_t size) {
  uint64_t v = 0;
  std::memcpy(&v, w.param.data() + size_t(l) * prog.paramBytes + offset,
              std::min<uint32_t>(size, 8));
  return v;
}

/// Reads a NUL-terminated string at a generic address (at most 4096 bytes).
bool readString(ExecState &s, int lane, uint64_t address, std::string &out) {
  out.clear();
  for (int i = 0; i < 4096; ++i) {
    const uint8_t *p =
        accessMemory(s, lane, Space::Generic, address + i, 1, Access::Read, 0);
    if (!p)
      return false;
    if (*p == 0)
      return true;
    out.push_back(static_cast<char>(*p));
  }
  return true;
}

void vprintfBuiltin(ExecState &s, const CallSite &site, int lane) {
  Warp &w = *s.warp;
  if (site.argOffsets.size() != 2) {
    s.fail(FindingKind::Unsupported, lane, "vprintf takes two arguments");
    return;
  }
  uint64_t format = readParam(w, s.prog, lane, site.argOffsets[0], 8);
  uint64_t args = readParam(w, s.prog, lane, site.argOffsets[1], 8);
  std::string text;
  if (!readString(s, lane, format, text))
    return;
  std::string out;
  uint64_t offset = 0;
  int count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    size_t start = i++;
    if (i < text.size() && text[i] == '%') {
      out.push_back('%');
      continue;
    }
    while (i < text.size() && std::strchr("-+ #0", text[i]))
      ++i;
    while (
        i < text.size() &&
        (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    int longs = 0;
    bool isShort = false;
    while (i < text.size() && std::strchr("hlLqjzt", text[i])) {
      if (text[i] == 'l' || text[i] == 'q' || text[i] == 'j' ||
          text[i] == 'z' || text[i] == 't' || text[i] == 'L')
        ++longs;
      else
        isShort = true;
      ++i;
    }
    if (i >= text.size())
      break;
    char conversion = text[i];
    std::string spec = text.substr(start, i - start);
    // Strip length modifiers; the host call gets the promoted value.
    std::string flags;
    for (char ch : spec)
      if (!std::strchr("hlLqjzt", ch))
        flags.push_back(ch);
    unsigned size = 4;
    bool isFloat = std::strchr("fFeEgGaA", conversion) != nullptr;
    if (isFloat || longs || conversion == 's' || conversion == 'p')
      size = 8;
    offset = (offset + size - 1) / size * size;
    uint64_t value = 0;
    if (args) {
      const uint8_t *p = accessMemory(s, lane, Space::Generic, args + offset,
                                      size, Access::Read, 0);
      if (!p)
        return;
      std::memcpy(&value, p, size);
    }
    offset += size;
    ++count;
    char buffer[512];
    if (isFloat) {
      std::snprintf(buffer, sizeof(buffer), (flags + conversion).c_str(),
                    bitsAs<double>(value));
    } else if (conversion == 's') {
      std::string str;
      if (!readString(s, lane, value, str))
        return;
      std::snprintf(buffer, sizeof(buffer), (flags + "s").c_str(), str.c_str());
    } else if (conversion == 'c') {
      std::snprintf(buffer, sizeof(buffer), (flags + "c").c_str(),
                    static_cast<int>(value));
    } else if (conversion == 'p') {
      std::snprintf(buffer, sizeof(buffer), (flags + "p").c_str(),
                    reinterpret_cast<void *>(value));
    } else if (std::strchr("diuxXo", conversion)) {
      bool isSigned = conversion == 'd' || conversion == 'i';
      if (size == 4) {
        value = isSigned ? static_cast<uint64_t>(static_cast<int64_t>(
                               static_cast<int32_t>(value)))
                         : static_cast<uint32_t>(value);
        if (isShort)
          value = isSigned ? static_cast<uint64_t>(static_cast<int64_t>(
                                 static_cast<int16_t>(value)))
                           : static_cast<uint16_t>(value);
      }
      std::snprintf(buffer, sizeof(buffer), (flags + "ll" + conversion).c_str(),
                    static_cast<long long>(value));
    } else {
      out += spec + conversion;
      continue;
    }
    out += buffer;
  }
  s.block.output += out;
  // vprintf returns the number of arguments.
  if (!site.retOffsets.empty()) {
    auto result = static_cast<int32_t>(count);
    std::memcpy(w.param.data() + size_t(lane) * s.prog.paramBytes +
                    site.retOffsets[0],
                &result, 4);
  }
}

void assertBuiltin(ExecState &s, const CallSite &site, int lane) {
  Warp &w = *s.warp;
  if (site.argOffsets.size() < 4) {
    s.fail(FindingKind::AssertFailed, lane, "device-side assertion failed");
    return;
  }
  std::string message, file, function;
  uint64_t messageAddress = readParam(w, s.prog, lane, site.argOffsets[0], 8);
  uint64_t fileAddress = readParam(w, s.prog, lane, site.argOffsets[1], 8);
  auto line = static_cast<uint32_t>(
      readParam(w, s.prog, lane, site.argOffsets[2], site.argSizes[2]));
  uint64_t functionAddress = readParam(w, s.prog, lane, site.argOffsets[3], 8);
  if (!readString(s, lane, messageAddress, message) ||
      !readString(s, lane, fileAddress, file) ||
      !readString(s, lane, functionAddress, function))
    return;
  const Block &b = s.block;
  uint32_t t = s.threadIndex(lane);
  const Dim3 &bd = s.launch.config.block;
  char text[1024];
  std::snprintf(text, sizeof(text),
                "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion "
                "`%s` failed.\n",
                file.c_str(), line, function.c_str(), b.ctaid[0], b.ctaid[1],
                b.ctaid[2], t % bd.x, (t / bd.x) % bd.y, t / (bd.x * bd.y),
                message.c_str());
  s.block.assertions += text;
  // Every lane of the warp that reaches the assertion reports it; the
  // launch fails after the instruction.
  s.block.assertFailed = true;
  if (s.block.assertLane < 0)
    s.block.assertLane = lane;
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

class ControlDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run(bool &handled);

private:
  /// The member mask operand (an immediate or register) at `index`.
  bool memberMask(size_t index, uint32_t &slot) {
    out.collective = Collective::MemberMask;
    return d.source(ops[index], Ty::B32, slot);
  }
  bool decodeBarrier(const std::string &base);
};

bool ControlDecoder::decodeBarrier(const std::string &base) {
  // bar{.cta}.sync / .arrive / .red.op.pred, barrier{.cta}{.aligned}.sync
  // ..., bar.warp.sync (a collective of the member mask).
  mods.take("cta");
  if (base == "bar" && mods.take("warp")) {
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
  bool aligned = base == "bar" || mods.take("aligned");
  int kind = mods.takeOneOf({"sync", "arrive", "red"});
  if (kind < 0)
    return d.fail("expected .sync, .arrive or .red");
  out.flow = Flow::Control;
  out.exec = &barrierHandler;
  out.m1 = aligned;
  if (kind == 2) {
    int op = mods.takeOneOf({"popc", "and", "or"});
    std::vector<Ty> types = mods.takeTypes();
    if (op < 0 || types.size() != 1)
      return d.fail("expected bar.red.{popc,and,or}.{u32,pred}");
    out.m0 = static_cast<uint8_t>(BarRedPopc + op);
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
    out.m2 = negated;
    d.setOperands(out, {id, cnt, dst, pred});
    return true;
  }
  out.m0 = kind == 0 ? BarSync : BarArrive;
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

bool ControlDecoder::run(bool &handled) {
  const std::string &base = mods.base();
  if (base == "bra") {
    mods.take("uni");
    if (!count(1) || ops[0].kind != ptx::Operand::Register)
      return d.fail("expected a label");
    out.flow = Flow::Control;
    out.target = d.label(ops[0].name);
    out.exec = &branch;
    return true;
  }
  if (base == "brx") {
    if (!mods.take("idx"))
      return d.fail("expected brx.idx");
    mods.take("uni");
    return d.fail("brx.idx with .branchtargets is not supported");
  }
  if (base == "call") {
    out.flow = Flow::Control;
    out.exec = &call;
    return true;
  }
  if (base == "ret") {
    mods.take("uni");
    if (!ops.empty())
      return d.fail("ret takes no operands");
    out.flow = Flow::Control;
    out.exec = &ret;
    return true;
  }
  if (base == "exit") {
    if (!ops.empty())
      return d.fail("exit takes no operands");
    out.flow = Flow::Control;
    out.exec = &exitHandler;
    return true;
  }
  if (base == "trap" || base == "brkpt") {
    out.flow = Flow::Control;
    out.m0 = base == "brkpt";
    out.exec = &trap;
    return true;
  }
  if (base == "bar" || base == "barrier")
    return decodeBarrier(base);
  if (base == "membar" || base == "fence") {
    // The simulator is sequentially consistent: fences order nothing more.
    mods.takeIgnorable();
    mods.takeOneOf({"sc", "proxy", "op_restrict"});
    mods.takeOneOf({"async", "alias", "tensormap", "generic"});
    mods.take("shared::cta");
    mods.take("shared::cluster");
    mods.take("global");
    out.exec = &nothing;
    return true;
  }
  if (base == "nanosleep" || base == "pmevent") {
    mods.take("u32");
    mods.take("mask");
    out.exec = &nothing;
    return true;
  }
  if (base == "shfl") {
    if (!mods.take("sync"))
      return d.fail("shfl without .sync (sm_70 removed it)");
    int mode = mods.takeOneOf({"up", "down", "bfly", "idx"});
    std::vector<Ty> types = mods.takeTypes();
    if (mode < 0 || types.size() != 1 || types[0] != Ty::B32)
      return d.fail("expected shfl.sync.{up,down,bfly,idx}.b32");
    out.m0 = static_cast<uint8_t>(mode);
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
  if (base == "vote") {
    if (!mods.take("sync"))
      return d.fail("vote without .sync (sm_70 removed it)");
    int mode = mods.takeOneOf({"all", "any", "uni", "ballot"});
    std::vector<Ty> types = mods.takeTypes();
    if (mode < 0 || types.size() != 1)
      return d.fail("expected vote.sync.{all,any,uni,ballot}");
    out.m0 = static_cast<uint8_t>(mode);
    if (!count(3))
      return false;
    uint32_t dst = 0, p = 0, mask = 0;
    bool negated = false;
    if (!d.dest(ops[0], dst) || !d.predicate(ops[1], p, negated) ||
        !memberMask(2, mask))
      return false;
    out.m2 = negated;
    d.setOperands(out, {dst, p, mask});
    out.memberMaskOperand = 2;
    out.exec = &vote;
    return true;
  }
  if (base == "redux") {
    if (!mods.take("sync"))
      return d.fail("expected redux.sync");
    int op = mods.takeOneOf({"add", "min", "max", "and", "or", "xor"});
    std::vector<Ty> types = mods.takeTypes();
    if (op < 0 || types.size() != 1 ||
        (types[0] != Ty::U32 && types[0] != Ty::S32 && types[0] != Ty::B32))
      return d.fail("unsupported redux.sync");
    out.m0 = static_cast<uint8_t>(op);
    out.m1 = types[0] == Ty::S32;
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
  if (base == "match") {
    if (!mods.take("sync"))
      return d.fail("expected match.sync");
    int mode = mods.takeOneOf({"any", "all"});
    std::vector<Ty> types = mods.takeTypes();
    if (mode < 0 || types.size() != 1 ||
        (types[0] != Ty::B32 && types[0] != Ty::B64))
      return d.fail("unsupported match.sync");
    out.type = types[0];
    out.m0 = static_cast<uint8_t>(mode);
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
  if (base == "activemask") {
    if (!mods.take("b32") || !count(1))
      return d.fail("expected activemask.b32 d");
    uint32_t dst = 0;
    if (!d.dest(ops[0], dst))
      return false;
    d.setOperands(out, {dst});
    out.exec = &activemask;
    return true;
  }
  if (base == "elect") {
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
  handled = false;
  return false;
}

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
    if (in.collective != Collective::None) {
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

bool gmm::sim::decodeControl(Decoder &decoder, const ptx::Instruction &instr,
                             Modifiers &mods, Instr &out, bool &handled) {
  ControlDecoder control(decoder, instr, mods, out);
  return control.run(handled);
}

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
    fill(kSlotClusterCtarank, 0);
    fill(kSlotClusterNctarank, 1);
    fill(kSlotIsExplicitCluster, 0);
    fill(kSlotClusterNctaidX, 1);
    fill(kSlotClusterNctaidY, 1);
    fill(kSlotClusterNctaidZ, 1);
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

bool gmm::sim::stepBlock(LaunchContext &launch, Block &block, uint64_t budget,
                         uint64_t &warpInstructions,
                         uint64_t &threadInstructions) {
  ExecState state(launch.prog, launch, block);
  std::vector<Warp> &warps = block.warps;
  uint32_t numWarps = block.numWarps;
  constexpr uint64_t kQuantum = 4096;
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
    if (state.failed || done)
      return true;
    if (!progress) {
      bool anyReady = false;
      for (uint32_t wi = 0; wi < numWarps; ++wi)
        anyReady |= warps[wi].ready != 0;
      if (!anyReady) {
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
