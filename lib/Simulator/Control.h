//===- Control.h - the SIMT model's handlers and lane bookkeeping -*- C++
//-*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the files of the SIMT model share (Scheduler.cpp runs the warps;
// ControlFlow.cpp, Barriers.cpp, WarpCollectives.cpp and Builtins.cpp
// execute the instructions of their kind; ControlDecoder.cpp decodes them):
// the lane bookkeeping of a warp and the handlers of those instructions.
// Private to lib/Simulator.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_SIMULATOR_CONTROL_H
#define GMM_LIB_SIMULATOR_CONTROL_H

#include "Launch.h"

#include <functional>
#include <string>

namespace gmm {
namespace sim {
namespace control {

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

/// The lanes of `mask` as "0-3,8" (for messages).
std::string laneList(uint32_t mask);

/// Lanes of `mask` leave the kernel: their pending copies land (the
/// hardware completes them), and they no longer count.
void exitLanes(ExecState &s, Warp &w, uint32_t mask);

//===----------------------------------------------------------------------===//
// Handlers (Handler in Exec.h)
//===----------------------------------------------------------------------===//

// Control flow (ControlFlow.cpp).
void branch(ExecState &s, const Instr &in, uint32_t exec);
void call(ExecState &s, const Instr &in, uint32_t exec);
void ret(ExecState &s, const Instr &in, uint32_t exec);
void exitHandler(ExecState &s, const Instr &in, uint32_t exec);
void trap(ExecState &s, const Instr &in, uint32_t exec);

/// trap and brkpt.
struct TrapArgs {
  bool breakpoint;
};

// Barriers (Barriers.cpp).
enum BarrierKind : uint8_t {
  BarSync,
  BarArrive,
  BarRedPopc,
  BarRedAnd,
  BarRedOr
};

/// bar/barrier .sync, .arrive and .red (ops: id, count or kSlotSink, red
/// destination, red predicate).
struct BarrierArgs {
  BarrierKind kind;
  /// All lanes of a warp must wait at the same instruction.
  bool aligned;
  /// bar.red's predicate is negated.
  bool predicateNegated;
};

void barrierHandler(ExecState &s, const Instr &in, uint32_t exec);
/// barrier.cluster.arrive and .wait (the cluster's split barrier: every
/// thread of every block of the cluster arrives, then waits).
void clusterArrive(ExecState &s, const Instr &in, uint32_t exec);
void clusterWait(ExecState &s, const Instr &in, uint32_t exec);
/// Releases the threads waiting at barrier `id`.
void completeBarrier(ExecState &s, uint32_t id);
/// An instruction with no effect (a fence that the model needs not).
void nothing(ExecState &s, const Instr &in, uint32_t exec);
/// fence.proxy.async: the thread's earlier writes of shared memory become
/// visible to the async proxy.
void proxyFence(ExecState &s, const Instr &in, uint32_t exec);
/// fence.proxy.tensormap::generic.acquire [addr], 128 (BulkCopy.cpp).
void tensormapAcquire(ExecState &s, const Instr &in, uint32_t exec);

// Warp collectives (WarpCollectives.cpp).
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
/// shfl.sync (ops: d, p or sink, a, b, c, membermask).
struct ShflArgs {
  ShflMode mode;
};

enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
/// vote.sync (ops: d, p, membermask).
struct VoteArgs {
  VoteMode mode;
  bool predicateNegated;
};

enum class ReduxOp : uint8_t { Add, Min, Max, And, Or, Xor };
/// redux.sync (ops: d, a, membermask).
struct ReduxArgs {
  ReduxOp op;
  bool isSigned;
};

/// match.sync (ops: d, p or sink, a, membermask).
struct MatchArgs {
  /// .all (else .any).
  bool all;
};

void shfl(ExecState &s, const Instr &in, uint32_t exec);
void vote(ExecState &s, const Instr &in, uint32_t exec);
void redux(ExecState &s, const Instr &in, uint32_t exec);
void match(ExecState &s, const Instr &in, uint32_t exec);
void activemask(ExecState &s, const Instr &in, uint32_t exec);
void elect(ExecState &s, const Instr &in, uint32_t exec);

// mbarrier objects (MBarrier.cpp).
/// What lane `lane` of `w`, parked at an mbarrier.try_wait, waits for: the
/// phase, the mbarrier and its state (for deadlock messages).
std::string describeMbarrierWait(ExecState &s, Warp &w, int lane);
/// Completes `bytes` transaction bytes on the mbarrier at shared `offset`
/// (a bulk copy landing), as complete_tx would; findings name `reporter`'s
/// thread and instruction. False after a finding.
bool completeMbarrierTransaction(ExecState &s, ExecState &reporter, int lane,
                                 uint32_t offset, uint64_t bytes);

/// Performs the cp.async.mbarrier.arrive operations of the block that
/// `which(arrival)` selects: their copies land, then they arrive (as late
/// as the ISA allows: when a thread tests the mbarrier's phase, waits for
/// the copies, exits, or nothing else can run). `landed` (when given)
/// counts them. False after a finding (MBarrier.cpp).
bool landAsyncArrivals(ExecState &s,
                       const std::function<bool(const AsyncArrival &)> &which,
                       unsigned *landed = nullptr);

// Bulk (TMA) copies (BulkCopy.cpp).
/// Lands the bulk loads in flight that complete on the mbarrier at shared
/// `offset`. False after a finding.
bool landBulkLoads(ExecState &s, uint32_t offset);
/// Lands every bulk load in flight (when no thread can run); `landed` is
/// how many. False after a finding.
bool landAllBulkLoads(ExecState &s, unsigned &landed);
/// When the block's threads have all exited: a bulk store still in flight
/// (reading shared memory that no longer exists) is a finding; loads that
/// nobody waited for are dropped.
void finishBulkCopies(ExecState &s);

// The builtins that call sites of vprintf and __assertfail run
// (Builtins.cpp).
void vprintfBuiltin(ExecState &s, const CallSite &site, int lane);
void assertBuiltin(ExecState &s, const CallSite &site, int lane);

} // namespace control
} // namespace sim
} // namespace gmm

#endif // GMM_LIB_SIMULATOR_CONTROL_H
