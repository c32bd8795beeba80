//===- ControlFlow.cpp - branches, calls, returns, exit, trap
//---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The handlers of control flow: bra, call (of device functions and of the
// vprintf and __assertfail builtins), ret, exit, trap and brkpt; and how lanes
// leave a kernel.
//
//===----------------------------------------------------------------------===//

#include "Control.h"

#include <cstring>

using namespace gmm::sim;

namespace gmm {
namespace sim {
namespace control {

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
  // Their cp.async.mbarrier.arrive operations arrive: the copies are done.
  if (!s.block.asyncArrivals.empty())
    landAsyncArrivals(s, [&](const AsyncArrival &a) {
      return a.warp == w.index && ((mask >> a.lane) & 1);
    });
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
         in.payload<TrapArgs>().breakpoint ? "brkpt executed (no debugger)"
                                           : "trap executed");
}

} // namespace control
} // namespace sim
} // namespace gmm
