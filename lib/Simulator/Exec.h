//===- Exec.h - Decoded programs and the state that runs them ---*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The simulator's internal model, shared by the decoder and the instruction
// families:
//
// - A Program is one kernel, decoded: its code and that of every function
//   it calls, flattened into one array of Instr; registers, immediates and
//   special registers all become *slots* of one register file.
// - A Warp holds 32 lanes' registers as slot-major arrays (slot * 32 +
//   lane), a program counter per lane (independent thread scheduling), and
//   the lanes' state. A Block holds its warps, shared memory and barriers.
// - An Instr's handler executes it for a mask of lanes. Handlers of normal
//   instructions leave the program counters to the scheduler; control-flow
//   and synchronizing handlers move them themselves.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_SIMULATOR_EXEC_H
#define GMM_LIB_SIMULATOR_EXEC_H

#include "gmm/Simulator/Simulator.h"
#include "gmm/Simulator/TensorMap.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace gmm {
namespace sim {

namespace ptx {
struct Instruction;
struct Operand;
} // namespace ptx

//===----------------------------------------------------------------------===//
// Types and modifiers
//===----------------------------------------------------------------------===//

enum class Ty : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  F16x2,
  BF16,
  BF16x2,
  TF32,
  F32,
  F64,
};

/// Width in bits (Pred: 1; None: 0).
unsigned bitWidth(Ty type);
inline unsigned byteWidth(Ty type) { return (bitWidth(type) + 7) / 8; }
bool isSignedInt(Ty type);
bool isUnsignedInt(Ty type);
/// B*, U*, S*.
bool isInteger(Ty type);
bool isFloatType(Ty type);
const char *typeName(Ty type);
/// "s32" -> Ty::S32; Ty::None if not a type.
Ty parseType(const std::string &name);

enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };
const char *spaceName(Space space);

/// Rounding of floating-point results (.rn .rz .rm .rp, .rna) and of
/// float-to-integer conversions (.rni .rzi .rmi .rpi).
enum class Round : uint8_t { None, RN, RZ, RM, RP, RNA };

//===----------------------------------------------------------------------===//
// Slots
//===----------------------------------------------------------------------===//

/// The fixed slots at the start of every register file.
enum FixedSlot : uint32_t {
  kSlotZero,
  kSlotTidX,
  kSlotTidY,
  kSlotTidZ,
  kSlotNtidX,
  kSlotNtidY,
  kSlotNtidZ,
  kSlotCtaidX,
  kSlotCtaidY,
  kSlotCtaidZ,
  kSlotNctaidX,
  kSlotNctaidY,
  kSlotNctaidZ,
  kSlotLaneid,
  kSlotWarpid,
  kSlotNwarpid,
  kSlotSmid,
  kSlotNsmid,
  kSlotGridid,
  kSlotLanemaskEq,
  kSlotLanemaskLt,
  kSlotLanemaskLe,
  kSlotLanemaskGt,
  kSlotLanemaskGe,
  kSlotDynamicSmemSize,
  kSlotTotalSmemSize,
  kSlotClusterCtarank,
  kSlotClusterNctarank,
  kSlotIsExplicitCluster,
  kSlotClusterCtaidX, // 0 0 0 without clusters
  kSlotClusterCtaidY,
  kSlotClusterCtaidZ,
  kSlotClusterNctaidX, // 1 1 1
  kSlotClusterNctaidY,
  kSlotClusterNctaidZ,
  kSlotClusteridX, // the cluster's index in the grid of clusters
  kSlotClusteridY,
  kSlotClusteridZ,
  kSlotNclusteridX,
  kSlotNclusteridY,
  kSlotNclusteridZ,
  kSlotCarry, // the CC register of add.cc/addc
  kSlotSink,  // writes to `_`
  kNumFixedSlots
};

constexpr uint32_t kNoSlot = UINT32_MAX;

/// Parameter-space addresses: a kernel's parameters at [0, bytes), the
/// per-thread parameter memory of calls from this base up.
constexpr uint64_t kThreadParamBase = uint64_t(1) << 32;

//===----------------------------------------------------------------------===//
// Opcodes (Opcodes.def)
//===----------------------------------------------------------------------===//

enum class Opcode : uint8_t {
#define GMM_SIM_OPCODE(name, mnemonic, family) name,
#include "Opcodes.def"
};

/// The family decoder that owns an opcode.
enum class OpcodeFamily : uint8_t {
  Arithmetic,
  Memory,
  Control,
  Tensor,
  Mbarrier,
  Wgmma
};

/// The PTX mnemonic of `op` ("add").
const char *opcodeName(Opcode op);
OpcodeFamily opcodeFamily(Opcode op);
/// The opcode of a base mnemonic; false if the simulator has none.
bool lookupOpcode(const std::string &mnemonic, Opcode &op);

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

struct ExecState;
struct Instr;
/// Executes `in` for the lanes of `mask` (those that reached it and whose
/// guard predicate holds).
using Handler = void (*)(ExecState &state, const Instr &in, uint32_t mask);

/// How an instruction interacts with the scheduler.
enum class Flow : uint8_t {
  /// Executes, then every lane that reached it continues with the next.
  Next,
  /// The handler sets the program counters of every lane that reached it
  /// (branches, calls, returns, exit, barriers).
  Control,
};

/// Warp-synchronous instructions: every lane that must take part has to
/// reach the same instruction before it executes.
enum class Collective : uint8_t {
  None,
  /// .aligned: all 32 lanes of the warp (mma, ldmatrix, wmma).
  FullWarp,
  /// .sync with a member mask in operand `memberMaskOperand`.
  MemberMask,
  /// .sync.aligned over a warpgroup (wgmma): the four warps 4g .. 4g+3,
  /// every lane; the last warp to arrive executes it for all.
  Warpgroup,
};

/// What a family decoder records for its handlers beyond the common fields
/// of Instr (a comparison, a vector width, a mode, ...). Each family declares
/// one trivially copyable struct per kind of handler, with named fields,
/// and reaches it through Instr::setPayload / Instr::payload.
constexpr size_t kPayloadBytes = 8;

struct Instr {
  Handler exec = nullptr;
  /// Operand slots (meaning per instruction family), in Program::pool.
  const uint32_t *ops = nullptr;
  uint32_t opsOffset = 0;
  uint16_t numOps = 0;
  Flow flow = Flow::Next;
  Collective collective = Collective::None;
  uint8_t memberMaskOperand = 0;
  Ty type = Ty::None;
  Ty type2 = Ty::None;
  Ty type3 = Ty::None;
  Round round = Round::None;
  bool ftz = false;
  bool sat = false;
  Space space = Space::Generic;
  Opcode opcode = Opcode::Add;
  bool guardNegated = false;
  /// Guard predicate slot, or kNoSlot.
  uint32_t guard = kNoSlot;
  /// Address offset or another immediate.
  int64_t imm = 0;
  /// Branch target or callee entry (an index into Program::code).
  uint32_t target = 0;
  /// Family-specific index (e.g. into Program::calls).
  uint32_t aux = 0;
  /// PTX source line and the opcode as written.
  uint32_t line = 0;
  uint32_t textIndex = 0;

  /// Starts the family payload `P` (value-initialized) and returns it for
  /// the decoder to fill.
  template <typename P> P &setPayload() {
    checkPayload<P>();
    return *::new (static_cast<void *>(payloadStorage)) P();
  }
  /// The payload `P` a decoder set (handlers read the one their decoder
  /// wrote).
  template <typename P> const P &payload() const {
    checkPayload<P>();
    return *std::launder(reinterpret_cast<const P *>(payloadStorage));
  }

private:
  template <typename P> static constexpr void checkPayload() {
    static_assert(std::is_trivially_copyable<P>::value &&
                      std::is_trivially_destructible<P>::value,
                  "payloads are plain data");
    static_assert(sizeof(P) <= kPayloadBytes && alignof(P) <= 8,
                  "payload too large");
  }
  alignas(8) unsigned char payloadStorage[kPayloadBytes] = {};
};

/// A kernel parameter: offset and size in the launch's parameter buffer.
struct ParamInfo {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t align = 1;
};

/// A call site of a .func in the program.
struct CallSite {
  /// Entry of the callee in Program::code, or a builtin.
  uint32_t calleeIndex = 0;
  enum Builtin : uint8_t {
    None,
    Vprintf,
    AssertFail,
    Malloc,
    Free
  } builtin = None;
  /// Per-thread param-memory offsets and sizes of the arguments as the
  /// caller wrote them, and where the callee reads them.
  std::vector<uint32_t> argOffsets, argSizes, calleeArgOffsets;
  /// The return values: caller's retval offsets, callee's, sizes.
  std::vector<uint32_t> retOffsets, retSizes, calleeRetOffsets;
  std::string calleeName;
};

/// One decoded kernel and everything it calls.
struct Program {
  std::string name;
  std::vector<Instr> code;
  std::vector<uint32_t> pool;
  /// Slots holding constants (immediates, symbol addresses), filled into
  /// every lane when a warp starts.
  std::vector<std::pair<uint32_t, uint64_t>> constants;
  uint32_t numSlots = kNumFixedSlots;
  /// Per-thread local memory (.local variables of every function).
  uint32_t localBytes = 0;
  /// Per-thread parameter memory of calls (.param of call scopes and of
  /// callees).
  uint32_t paramBytes = 0;
  /// Static shared memory, and where dynamic shared memory starts.
  uint32_t staticSharedBytes = 0;
  uint32_t dynamicSharedOffset = 0;
  std::vector<ParamInfo> params;
  uint32_t paramBufferBytes = 0;
  unsigned maxntid[3] = {0, 0, 0};
  unsigned reqntid[3] = {0, 0, 0};
  unsigned reqnctapercluster[3] = {0, 0, 0};
  bool explicitCluster = false;
  /// Opcode text of each instruction (Instr::textIndex).
  std::vector<std::string> texts;
  std::vector<CallSite> calls;
  /// Function entry points, for naming the function of a PTX line.
  std::vector<std::pair<uint32_t, std::string>> functionStarts;
  /// Whether any instruction needs per-thread local or parameter memory.
  bool usesCalls = false;
};

//===----------------------------------------------------------------------===//
// Execution state
//===----------------------------------------------------------------------===//

enum class LaneState : uint8_t {
  Inactive, // beyond the block's thread count
  Ready,
  Exited,
  AtBarrier,
  AtCollective,
  /// At an mbarrier.try_wait whose phase has not completed.
  AtMbarrier,
  /// At a warpgroup instruction, for the other warps of the warpgroup.
  AtWarpgroup,
  /// At barrier.cluster.wait, for the cluster's other threads.
  AtClusterBarrier,
};

/// A cp.async in flight.
struct AsyncCopy {
  uint32_t dst;       // shared offset
  const uint8_t *src; // host address of the (checked) source
  uint8_t size, srcSize;
  uint8_t lane;
  uint32_t group;
  uint32_t line;
};

/// A cp.async.mbarrier.arrive whose copies have not landed: the arrival
/// on the mbarrier at shared `mbarrier` happens when the copies of thread
/// (warp, lane) up to its async-group `group` land.
struct AsyncArrival {
  uint32_t mbarrier;
  uint32_t warp;
  uint32_t group;
  uint32_t pc;
  uint8_t lane;
};

/// The read-modify-write operations of atom, red and the bulk reductions.
enum AtomOp : uint8_t {
  AAdd,
  AMin,
  AMax,
  AInc,
  ADec,
  AAnd,
  AOr,
  AXor,
  AExch,
  ACas,
};

struct Block;

/// A bulk (TMA) copy in flight: it lands as late as the ISA allows, a load
/// when a thread tests the phase of its mbarrier (or nothing else can run),
/// a store at the cp.async.bulk.wait_group that covers it.
struct BulkCopy {
  enum Kind : uint8_t { TensorLoad, TensorStore } kind = TensorLoad;
  TensorMap map;
  int32_t coords[5] = {};
  /// The shared offset of the destination (loads) or source (stores).
  uint32_t shared = 0;
  /// A plain (not .tensor) copy's global address (map.rank is 0).
  uint64_t global = 0;
  /// A shared-to-shared copy (cp.async.bulk.shared::cluster.shared::cta):
  /// the source bytes, read when it was issued.
  std::shared_ptr<std::vector<uint8_t>> source;
  uint32_t bytes = 0;
  /// A reduction (cp.reduce.async.bulk{.tensor}): a store that lands as
  /// `op` on each element of type `type` in global memory.
  bool reduce = false;
  AtomOp op = AAdd;
  Ty type = Ty::B32;
  /// Loads: the shared offset of the mbarrier the copy completes on.
  uint32_t mbarrier = 0;
  /// Stores: the issuing thread's bulk async-group.
  uint32_t group = 0;
  /// The issuing block (another CTA of the cluster for a multicast or a
  /// load into another CTA's shared memory), warp and lane, and the
  /// instruction (for findings).
  Block *issuer = nullptr;
  uint32_t warp = 0;
  uint8_t lane = 0;
  uint32_t pc = 0;
};

struct Warp {
  uint32_t index = 0;
  /// Lanes that exist (a block's last warp may be partial).
  uint32_t exists = 0;
  /// Lanes that exist and have not exited.
  uint32_t live = 0;
  /// Lanes that can run now (live, not waiting).
  uint32_t ready = 0;
  /// When set, every ready lane's program counter is `upc` (pc[] may be
  /// stale for them).
  bool uniform = true;
  uint32_t upc = 0;
  uint32_t pc[32] = {};
  LaneState state[32] = {};
  std::vector<uint64_t> regs;
  std::vector<uint8_t> local;
  std::vector<uint8_t> param;
  std::vector<uint32_t> callStack[32];
  std::vector<AsyncCopy> async;
  uint32_t asyncGroups[32] = {};
  /// Bulk async-groups each lane has committed (cp.async.bulk.commit_group).
  uint32_t bulkGroups[32] = {};
  /// Instructions executed (for %clock).
  uint64_t steps = 0;

  uint64_t *reg(uint32_t slot) { return regs.data() + size_t(slot) * 32; }
};

/// The shadow of one byte of shared memory, for the race, initialization
/// and cp.async checks.
struct ShadowByte {
  uint32_t writeEpoch = 0;
  uint16_t writer = 0;
  uint8_t writeFlags = 0;
  uint8_t readFlags = 0;
  uint32_t readEpoch = 0;
  uint16_t reader = 0;
  /// Generic-proxy writes: the writer's count of fence.proxy.async at the
  /// write (Block::proxyFences).
  uint16_t writerFences = 0;
};
enum : uint8_t {
  kShadowPending = 1,      // a cp.async will write it
  kShadowAsync = 2,        // written by a cp.async
  kShadowAtomic = 4,       // written by an atomic
  kShadowBulk = 8,         // with kShadowPending: a bulk (TMA) copy's
  kShadowGeneric = 16,     // written through the generic proxy (st, atom)
  kShadowRemote = 32,      // written by another CTA of the cluster
  kShadowMultiReaders = 1, // readFlags: readers from several warps
};

struct Barrier {
  uint32_t arrived = 0;
  uint32_t expected = 0;
  /// bar.red accumulation.
  uint32_t redCount = 0;
  bool redAnd = true, redOr = false;
  bool active = false;
};

/// An mbarrier object (PTX ISA, "Parallel synchronization and
/// communication instructions: mbarrier"). The simulator keeps its state
/// beside shared memory, keyed by the object's shared offset; the 8 bytes
/// themselves hold an opaque mirror of it.
struct MBarrier {
  /// Arrivals per phase, and those the current phase still needs.
  uint32_t expected = 0;
  uint32_t pending = 0;
  /// The current phase's transaction count (bytes expected minus bytes
  /// completed; negative while completions run ahead of expect_tx).
  int64_t tx = 0;
  /// Phases completed; the current phase's parity is `phase & 1`.
  uint32_t phase = 0;
  /// The PTX line of the mbarrier.init (for messages).
  uint32_t initLine = 0;
};

/// A thread block cluster (sm_90): its blocks are resident on one worker
/// together and stepped in turn, so that they can wait for each other
/// (barrier.cluster) and use each other's shared memory.
struct Cluster {
  /// The blocks by rank (%cluster_ctarank).
  std::vector<Block *> members;
  uint32_t dims[3] = {1, 1, 1};
  uint32_t id[3] = {0, 0, 0};
  uint32_t count[3] = {1, 1, 1};
  /// The launch asked for clusters (%is_explicit_cluster).
  bool isExplicit = false;
  /// barrier.cluster: threads arrived in the current phase, of `threads`.
  uint32_t threads = 0;
  uint32_t arrived = 0;
  uint32_t phase = 0;
};

struct Block {
  uint32_t ctaid[3] = {0, 0, 0};
  uint64_t linear = 0;
  uint32_t numThreads = 0;
  /// The first numWarps of `warps` are this block's (the vector is reused
  /// across blocks).
  uint32_t numWarps = 0;
  std::vector<Warp> warps;
  std::vector<uint8_t> shared;
  std::vector<ShadowByte> shadow;
  /// Epochs: a barrier completes -> a new epoch. Accesses of the same epoch
  /// by different warps may race. Bytes written before `baseEpoch` were not
  /// written by this block.
  uint32_t epoch = 0;
  uint32_t baseEpoch = 0;
  /// The worker's epoch clock (epochs are unique across its blocks).
  uint32_t *epochClock = nullptr;
  Barrier barriers[16];
  /// The live mbarrier objects, by shared offset.
  std::unordered_map<uint32_t, MBarrier> mbarriers;
  /// Bulk (TMA) copies in flight.
  std::vector<BulkCopy> bulkCopies;
  /// cp.async.mbarrier.arrive operations waiting for their copies.
  std::vector<AsyncArrival> asyncArrivals;
  /// The block's cluster and rank in it (null: not launched in clusters).
  Cluster *cluster = nullptr;
  uint32_t clusterRank = 0;
  /// The cluster of one a block outside clusters forms (barrier.cluster,
  /// shared::cluster addresses of rank 0).
  Cluster solo;
  Cluster &clusterState() { return cluster ? *cluster : solo; }
  /// barrier.cluster.arrive: per thread, 1 + the cluster barrier phase it
  /// arrived in (0: not arrived).
  std::vector<uint32_t> clusterArrivals;
  /// The versions of modified tensor maps (LaunchContext::mapVersions)
  /// each thread acquired with fence.proxy.tensormap::generic.acquire,
  /// by (thread, map address).
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> mapAcquired;
  /// fence.proxy.async executed by each thread (for the async-proxy
  /// check: ShadowByte::writerFences).
  std::vector<uint16_t> proxyFences;
  /// Each warpgroup's wgmma state (Wgmma.cpp's; created on first use).
  std::vector<std::shared_ptr<void>> warpgroups;
  std::string output;     // printf
  std::string assertions; // __assertfail messages
  bool assertFailed = false;
  int assertLane = -1;
  uint64_t steps = 0;
};

struct LaunchContext;

/// Everything a handler needs.
struct ExecState {
  const Program &prog;
  LaunchContext &launch;
  Block &block;
  Warp *warp = nullptr;
  /// Lanes that reached the current instruction, and its index.
  uint32_t arrived = 0;
  uint32_t pc = 0;
  /// Set when a check fails; execution stops.
  bool failed = false;
  /// Cache of the last global allocation touched.
  const void *lastAllocation = nullptr;

  ExecState(const Program &prog, LaunchContext &launch, Block &block)
      : prog(prog), launch(launch), block(block) {}

  uint64_t *reg(uint32_t slot) { return warp->reg(slot); }
  uint32_t threadIndex(int lane) const { return warp->index * 32 + lane; }

  /// Records a finding for `lane` at the current instruction (the first
  /// one of a launch wins) and stops the block.
  void fail(FindingKind kind, int lane, const std::string &message);
};

/// Iterates over the lanes of `mask`.
template <typename F> inline void forEachLane(uint32_t mask, F &&f) {
  if (mask == 0xffffffffu) {
    for (int lane = 0; lane < 32; ++lane)
      f(lane);
    return;
  }
  while (mask) {
    int lane = __builtin_ctz(mask);
    mask &= mask - 1;
    f(lane);
  }
}

template <typename T> inline T bitsAs(uint64_t bits) {
  static_assert(sizeof(T) <= 8, "");
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}
template <typename T> inline uint64_t asBits(T value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}
inline uint64_t truncBits(uint64_t value, unsigned bits) {
  return bits >= 64 ? value : value & ((uint64_t(1) << bits) - 1);
}

//===----------------------------------------------------------------------===//
// Memory access (Memory.cpp)
//===----------------------------------------------------------------------===//

enum class Access : uint8_t { Read, Write, Atomic };

/// The host address of `size` bytes at `address` in `space` for `lane`,
/// after the bounds, alignment, initialization and race checks; null after
/// recording a finding. `alignment` is the required alignment (0: none).
uint8_t *accessMemory(ExecState &state, int lane, Space space, uint64_t address,
                      unsigned size, Access access, unsigned alignment);

/// Applies `op` with operands `b` (and `c` for cas) to the `type` value at
/// host address `p` atomically (other blocks may run on other host
/// threads); returns the old value (MemoryOps.cpp).
uint64_t atomicApply(uint8_t *p, AtomOp op, Ty type, uint64_t b, uint64_t c);

/// The state space a generic address falls in (Global for anything that is
/// not shared or local).
Space classifyGeneric(uint64_t address);
/// Generic <-> state-space addresses (cvta).
uint64_t toGeneric(Space space, uint64_t address);
uint64_t fromGeneric(Space space, uint64_t address);

/// Checks a read of `size` shared bytes at `offset` by the async proxy (a
/// TMA store's source, a wgmma operand): bytes that a thread wrote through
/// the generic proxy without a fence.proxy.async since are a finding
/// (racecheck). False after a finding.
bool checkAsyncProxyRead(ExecState &state, int lane, uint32_t offset,
                         unsigned size, const char *reader);

/// Marks `size` shared bytes at `offset` as the destination of a pending
/// cp.async of `lane` (checked like a write); false after a finding.
bool markAsyncDestination(ExecState &state, int lane, uint32_t offset,
                          unsigned size);
/// Completes a cp.async: reads its source and writes its destination.
bool landAsyncCopy(ExecState &state, const AsyncCopy &copy);
/// Lands the cp.async copies of lane `lane` of `state.warp` whose
/// async-group is below `limit` (MemoryOps.cpp).
void landAsyncCopiesOf(ExecState &state, int lane, uint32_t limit);

//===----------------------------------------------------------------------===//
// Decoding (Decoder.cpp and the families)
//===----------------------------------------------------------------------===//

/// Splits an opcode into its base and modifiers, and tracks which
/// modifiers the family decoder understood.
class Modifiers {
public:
  explicit Modifiers(const std::string &opcode);
  const std::string &base() const { return parts.front(); }
  /// Takes modifier `name` if present.
  bool take(const char *name);
  /// Takes the first of `names` that is present; returns its index or -1.
  int takeOneOf(std::initializer_list<const char *> names);
  /// Takes every remaining type modifier, in order.
  std::vector<Ty> takeTypes();
  /// Takes a state space (.global, .shared, .shared::cta, ...).
  bool takeSpace(Space &space);
  /// Takes .rn/.rz/.rm/.rp/.rna (floating) or .rni/.rzi/.rmi/.rpi.
  Round takeRound(bool integerRounding = false);
  /// Takes modifiers that do not change what the simulator computes
  /// (cache operators, eviction priorities, memory-model qualifiers).
  void takeIgnorable();
  /// Takes .vN; returns N (1 without).
  unsigned takeVector();
  /// The first modifier nobody took, or empty.
  std::string unused() const;
  const std::vector<std::string> &all() const { return parts; }

private:
  std::vector<std::string> parts; // parts[0] is the base
  std::vector<bool> used;
};

/// The decoder's services for family decoders.
class Decoder {
public:
  virtual ~Decoder() = default;
  /// Reports `message` for the current instruction; returns false.
  virtual bool fail(const std::string &message) = 0;
  /// A source operand as a slot: a register, an immediate (as `type`), a
  /// special register or a symbol's address.
  virtual bool source(const ptx::Operand &operand, Ty type, uint32_t &slot) = 0;
  /// A predicate source, possibly negated (`!%p`), or a 0/1 literal.
  virtual bool predicate(const ptx::Operand &operand, uint32_t &slot,
                         bool &negated) = 0;
  /// A destination register (or `_`).
  virtual bool dest(const ptx::Operand &operand, uint32_t &slot) = 0;
  /// The declared width in bits of a destination register operand.
  virtual unsigned registerWidth(const ptx::Operand &operand) = 0;
  /// `[base+offset]` in `space`: base slot (kSlotZero for none) and offset;
  /// symbols resolve to their address in that space.
  virtual bool address(const ptx::Operand &operand, Space space, uint32_t &base,
                       int64_t &offset) = 0;
  /// A slot holding the constant `bits`.
  virtual uint32_t constant(uint64_t bits) = 0;
  /// A label's instruction index (resolved after decoding).
  virtual uint32_t label(const std::string &name) = 0;
  /// Stores operand slots for `in`.
  virtual void setOperands(Instr &in, const std::vector<uint32_t> &slots) = 0;
  /// The target architecture (80, 90, ...).
  virtual unsigned arch() const = 0;
  /// The program being built.
  virtual Program &program() = 0;
  /// Expands a vector operand `{a, b}` into its elements (a scalar operand
  /// is a vector of one).
  virtual bool vectorElements(const ptx::Operand &operand,
                              std::vector<const ptx::Operand *> &out) = 0;
};

/// Family decoders, one per OpcodeFamily: each decodes an instruction whose
/// `out.opcode` (set from Opcodes.def) is of its family, fills `out` and
/// returns true, or reports the error through `decoder`.
bool decodeArithmetic(Decoder &decoder, const ptx::Instruction &instr,
                      Modifiers &mods, Instr &out);
bool decodeMemory(Decoder &decoder, const ptx::Instruction &instr,
                  Modifiers &mods, Instr &out);
bool decodeControl(Decoder &decoder, const ptx::Instruction &instr,
                   Modifiers &mods, Instr &out);
bool decodeTensor(Decoder &decoder, const ptx::Instruction &instr,
                  Modifiers &mods, Instr &out);
bool decodeMbarrier(Decoder &decoder, const ptx::Instruction &instr,
                    Modifiers &mods, Instr &out);
bool decodeWgmma(Decoder &decoder, const ptx::Instruction &instr,
                 Modifiers &mods, Instr &out);
/// tensormap.replace and tensormap.cp_fenceproxy (BulkCopy.cpp; reached
/// from the Memory family).
bool decodeTensormap(Decoder &decoder, const ptx::Instruction &instr,
                     Modifiers &mods, Instr &out);
/// cp.async.mbarrier.arrive (MBarrier.cpp; reached from the Memory
/// family's `cp`).
bool decodeCpAsyncMbarrier(Decoder &decoder, const ptx::Instruction &instr,
                           Modifiers &mods, Instr &out);
/// cp.async.bulk (reached from the Memory family's `cp`).
bool decodeBulkCopy(Decoder &decoder, const ptx::Instruction &instr,
                    Modifiers &mods, Instr &out);

/// What the family decoders share: the instruction's operands, its
/// modifiers and the instruction being filled.
class FamilyDecoder {
public:
  FamilyDecoder(Decoder &d, const ptx::Instruction &instr, Modifiers &mods,
                Instr &out);

protected:
  /// Checks that the instruction has `n` operands.
  bool count(size_t n);

  Decoder &d;
  const ptx::Instruction &instr;
  const std::vector<ptx::Operand> &ops;
  Modifiers &mods;
  Instr &out;
};

//===----------------------------------------------------------------------===//
// Floating point helpers (Float.cpp)
//===----------------------------------------------------------------------===//

uint16_t floatToHalf(float value, Round round, bool saturateFinite = false);
float halfToFloat(uint16_t bits);
uint16_t floatToBF16(float value, Round round, bool saturateFinite = false);
float bf16ToFloat(uint16_t bits);
/// Rounds a double to half/bf16 correctly (for results computed exactly or
/// rounded to odd in double).
uint16_t doubleToHalf(double value, Round round, bool saturateFinite = false);
uint16_t doubleToBF16(double value, Round round, bool saturateFinite = false);
/// Rounds a double (exact, or rounded to odd) to f32 with `round`.
float doubleToFloat(double value, Round round);
/// Rounds an integer (magnitude and sign) to f32 or f64 with `round`.
double integerToFloating(uint64_t magnitude, bool negative, bool toDouble,
                         Round round);
/// Directed-rounding f32 arithmetic, computed exactly or rounded to odd in
/// double and then rounded once.
float roundedF32(int op, float a, float b, float c, Round round);
/// f32 -> tf32 (19 bits kept in an f32 container).
uint32_t floatToTF32(float value, Round round);
/// a * b + c in double, rounded to odd, so that a later rounding to a
/// narrower format is correctly rounded.
double fmaRoundToOdd(double a, double b, double c);
/// Flushes an f32 subnormal to a signed zero.
inline float flushSubnormal(float value) {
  uint32_t bits = bitsAs<uint32_t>(asBits(value));
  if ((bits & 0x7f800000u) == 0 && (bits & 0x007fffffu) != 0)
    return bitsAs<float>(bits & 0x80000000u);
  return value;
}
/// Directed-rounding f64 arithmetic (Rounding.cpp, built with
/// -frounding-math: the host FPU's rounding mode).
double roundedF64(int op, double a, double b, double c, Round round);
enum RoundedOp { kOpAdd, kOpSub, kOpMul, kOpFma, kOpDiv, kOpSqrt, kOpRcp };

} // namespace sim
} // namespace gmm

#endif // GMM_LIB_SIMULATOR_EXEC_H
