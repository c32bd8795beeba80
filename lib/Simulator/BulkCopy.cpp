//===- BulkCopy.cpp - TMA: cp.async.bulk.tensor ---------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The tensor memory accelerator's tile-mode copies (PTX ISA, "Data movement
// and conversion instructions: cp.async.bulk.tensor"), 1d to 5d:
//
// - loads global -> shared through a tensor map, completing their bytes on
//   an mbarrier (mbarrier::complete_tx::bytes), with .multicast::cluster on
//   a cluster of one CTA; out-of-bounds elements read as zero (or as a NaN
//   for maps with CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
// - stores shared -> global (bulk_group), which write only the elements
//   inside the tensor; cp.async.bulk.commit_group and wait_group(.read).
//
// A copy lands as late as the ISA allows: a load when some thread tests
// the phase of its mbarrier (or when no thread of the block can run), a
// store at the wait_group that covers it. Until a load lands its
// destination bytes are pending, so that touching them before the phase
// that covers them completes is a finding. The shared-memory box is laid
// out densely, innermost dimension first, at the destination, with the
// 16-byte chunks of each row moved by the map's swizzle (TensorMap.h). A
// copy whose innermost coordinate is not at a multiple of 16 bytes is a
// finding: the GPU raises an illegal instruction (measured on an H200).
//
//===----------------------------------------------------------------------===//

#include "Control.h"
#include "DeviceModel.h"
#include "PTXSyntax.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace gmm::sim;
using namespace gmm::sim::control;

namespace {

/// cp.async.bulk.tensor. Operands: loads [dst, map, c0 .. c(rank-1),
/// mbarrier, ctaMask (multicast)]; stores [map, c0 .. c(rank-1), src]. The
/// shared address's offset is Instr::imm.
struct BulkTensorArgs {
  uint8_t rank;
  /// .multicast::cluster (the operand after the mbarrier is the CTA mask).
  bool multicast;
  /// cp.reduce.async.bulk.tensor: the operation + 1 (0: a copy).
  uint8_t reduce;
  /// The mbarrier address's offset.
  int32_t mbarrierOffset;
};

/// cp.async.bulk.wait_group N (N in Instr::imm).
struct BulkWaitArgs {
  /// .read: only the reads of shared memory must be done.
  bool read;
};

std::string hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%llx",
                static_cast<unsigned long long>(value));
  return buffer;
}

/// Reads and checks the tensor map at generic `address` for lane `l` of an
/// instruction with `rank` coordinates; false after a finding.
bool readMap(ExecState &s, int l, uint64_t address, unsigned rank,
             TensorMap &map) {
  const uint8_t *bytes =
      accessMemory(s, l, Space::Generic, address, 128, Access::Read, 64);
  if (!bytes)
    return false;
  // A map that tensormap.replace or tensormap.cp_fenceproxy modified in
  // global memory needs this thread's fence.proxy.tensormap::generic
  // acquire before the TMA unit reads it.
  if (classifyGeneric(address) == Space::Global) {
    uint64_t version = 0;
    {
      std::lock_guard<std::mutex> guard(s.launch.mapMutex);
      auto it = s.launch.mapVersions.find(address);
      if (it != s.launch.mapVersions.end())
        version = it->second;
    }
    auto acquired = s.block.mapAcquired.find({s.threadIndex(l), address});
    if (version && (acquired == s.block.mapAcquired.end() ||
                    acquired->second != version)) {
      s.fail(FindingKind::TmaMisuse, l,
             "the tensor map at " + hex(address) +
                 " was modified (tensormap.replace or "
                 "tensormap.cp_fenceproxy) and is used without a "
                 "fence.proxy.tensormap::generic.acquire of it in this "
                 "thread since");
      return false;
    }
  }
  std::string why;
  if (!decodeTensorMap(bytes, map, &why)) {
    s.fail(FindingKind::TmaMisuse, l,
           "the 128 bytes at " + hex(address) +
               " are not a tensor map: " + why);
    return false;
  }
  if (map.rank != rank) {
    s.fail(FindingKind::TmaMisuse, l,
           "a " + std::to_string(rank) + "d copy with a tensor map of rank " +
               std::to_string(map.rank) +
               " (the coordinates must match the map's rank)");
    return false;
  }
  return true;
}

/// A bulk store reads its own CTA's shared memory (.shared::cta): an
/// address in the cluster window is a finding.
bool ownShared(ExecState &s, int l, uint64_t address) {
  if (address < limits::kClusterWindowBytes)
    return true;
  s.fail(FindingKind::OutOfBounds, l,
         "a bulk store's source " + hex(address) +
             " is not in the CTA's own shared memory (.shared::cta)");
  return false;
}

/// Checks the shared-memory side of a copy: 128-byte alignment (the ISA's),
/// the swizzle pattern's alignment, and a box row the swizzle can take.
bool checkSharedBox(ExecState &s, int l, const TensorMap &map,
                    uint64_t shared) {
  if (shared % 128) {
    s.fail(FindingKind::Misaligned, l,
           "cp.async.bulk.tensor shared-memory address offset " + hex(shared) +
               " is not 128-byte aligned");
    return false;
  }
  uint32_t span = map.swizzleSpan();
  if (!span)
    return true;
  uint32_t repeat = span * 8;
  if (shared % repeat) {
    s.fail(FindingKind::TmaMisuse, l,
           "cp.async.bulk.tensor shared-memory address offset " + hex(shared) +
               " is not aligned to the " + std::to_string(repeat) +
               "-byte repeat of the map's " + std::to_string(span) +
               "-byte swizzle (the tile would be laid out with the pattern "
               "shifted)");
    return false;
  }
  uint64_t rowBytes = uint64_t(map.boxElements(0)) * map.elementBytes;
  if (rowBytes != span) {
    s.fail(FindingKind::Unsupported, l,
           "a " + std::to_string(rowBytes) + "-byte box row with a " +
               std::to_string(span) +
               "-byte swizzle: the simulated GPU models swizzled boxes whose "
               "inner dimension fills the swizzle span");
    return false;
  }
  return true;
}

/// Visits the rows of a box: `f(row, global, inBounds0, inBoundsEnd)` for
/// each row (the innermost dimension) in shared-memory order, with the
/// global address of its element 0 (valid only when the row is inside the
/// tensor in the outer dimensions) and the range [inBounds0, inBoundsEnd)
/// of its elements inside the tensor (empty when the row is outside).
template <typename F>
void forEachBoxRow(const TensorMap &map, const int32_t *coords, F &&f) {
  uint32_t n[5] = {1, 1, 1, 1, 1};
  for (uint32_t d = 0; d < map.rank; ++d)
    n[d] = map.boxElements(d);
  // Inside the tensor along dimension 0: [lo, hi) of the row's elements.
  int64_t c0 = coords[0];
  int64_t lo = std::max<int64_t>(0, -c0);
  int64_t hi = std::min<int64_t>(n[0], int64_t(map.globalDim[0]) - c0);
  if (hi < lo)
    hi = lo;
  uint64_t row = 0;
  for (uint32_t i4 = 0; i4 < n[4]; ++i4)
    for (uint32_t i3 = 0; i3 < n[3]; ++i3)
      for (uint32_t i2 = 0; i2 < n[2]; ++i2)
        for (uint32_t i1 = 0; i1 < n[1]; ++i1, ++row) {
          uint32_t index[5] = {0, i1, i2, i3, i4};
          bool inside = true;
          uint64_t address = map.globalAddress;
          for (uint32_t d = 1; d < map.rank; ++d) {
            int64_t g = int64_t(coords[d]) +
                        int64_t(index[d]) * int64_t(map.elementStrides[d]);
            inside &= g >= 0 && g < int64_t(map.globalDim[d]);
            address += uint64_t(g) * map.globalStrides[d];
          }
          address += uint64_t(c0) * map.elementBytes;
          f(row, address, inside ? lo : 0, inside ? hi : 0);
        }
}

/// The bytes of the element that fills out-of-bounds positions.
void fillValue(const TensorMap &map, uint8_t *out) {
  std::memset(out, 0, map.elementBytes);
  if (!map.nanFill)
    return;
  switch (map.elementBytes) {
  case 2: { // f16 and bf16: canonical NaNs 0x7fff
    uint16_t nan = 0x7fff;
    std::memcpy(out, &nan, 2);
    break;
  }
  case 4: {
    uint32_t nan = 0x7fffffff;
    std::memcpy(out, &nan, 4);
    break;
  }
  case 8: {
    uint64_t nan = 0x7fffffffffffffffull;
    std::memcpy(out, &nan, 8);
    break;
  }
  default:
    break;
  }
}

/// An ExecState that reports findings as the copy's issuing thread and
/// instruction.
ExecState reporterFor(ExecState &s, const BulkCopy &copy) {
  ExecState at(s.prog, s.launch, *copy.issuer);
  at.warp = &copy.issuer->warps[copy.warp];
  at.pc = copy.pc;
  return at;
}

void markLanded(ExecState &s, const BulkCopy &copy) {
  const Checks &checks = s.launch.options.checks;
  if (!checks.racecheck && !checks.initcheck)
    return;
  auto tid = static_cast<uint16_t>(copy.warp * 32 + copy.lane);
  for (uint32_t i = copy.shared; i < copy.shared + copy.bytes; ++i) {
    ShadowByte &sb = s.block.shadow[i];
    sb.writeEpoch = s.block.epoch;
    sb.writer = tid;
    sb.writeFlags = kShadowAsync;
  }
}

/// Lands a tensor load: global -> shared, then its bytes complete on its
/// mbarrier.
/// A float with its subnormals flushed to sign-preserving zero.
float flushSubnormal(float value) {
  return std::fpclassify(value) == FP_SUBNORMAL ? std::copysign(0.0f, value)
                                                : value;
}

/// Writes `bytes` bytes of `src` to `dst` for a copy, or applies them
/// element by element (atomically) for a reduction. An f32 add flushes
/// subnormal inputs and results to zero, as the ISA says the bulk
/// reductions do.
void reduceOrCopy(const BulkCopy &copy, uint8_t *dst, const uint8_t *src,
                  uint32_t bytes) {
  if (!copy.reduce) {
    std::memcpy(dst, src, bytes);
    return;
  }
  unsigned eb = byteWidth(copy.type);
  for (uint32_t i = 0; i + eb <= bytes; i += eb) {
    uint64_t value = 0;
    std::memcpy(&value, src + i, eb);
    if (copy.op == AAdd && copy.type == Ty::F32) {
      auto *q = reinterpret_cast<uint32_t *>(dst + i);
      float b = flushSubnormal(bitsAs<float>(value & 0xffffffffu));
      uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED), next;
      do {
        float sum = flushSubnormal(flushSubnormal(bitsAs<float>(old)) + b);
        next = static_cast<uint32_t>(asBits(sum));
      } while (!__atomic_compare_exchange_n(
          q, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
      continue;
    }
    atomicApply(dst + i, copy.op, copy.type, value, 0);
  }
}

bool landLoad(ExecState &s, const BulkCopy &copy) {
  ExecState at = reporterFor(s, copy);
  if (!copy.map.rank) {
    const uint8_t *src =
        copy.source ? copy.source->data()
                    : accessMemory(at, copy.lane, Space::Global, copy.global,
                                   copy.bytes, Access::Read, 0);
    if (!src) {
      s.failed = true;
      return false;
    }
    reduceOrCopy(copy, s.block.shared.data() + copy.shared, src, copy.bytes);
    markLanded(s, copy);
    return completeMbarrierTransaction(s, at, copy.lane, copy.mbarrier,
                                       copy.bytes);
  }
  const TensorMap &map = copy.map;
  unsigned eb = map.elementBytes;
  uint32_t rowBytes = map.boxElements(0) * eb;
  std::vector<uint8_t> row(rowBytes);
  uint8_t fill[8];
  fillValue(map, fill);
  uint8_t *shared = s.block.shared.data();
  bool ok = true;
  forEachBoxRow(
      map, copy.coords,
      [&](uint64_t r, uint64_t address, int64_t lo, int64_t hi) {
        if (!ok)
          return;
        for (int64_t e = 0; e < int64_t(map.boxElements(0)); ++e)
          if (e < lo || e >= hi)
            std::memcpy(row.data() + e * eb, fill, eb);
        if (hi > lo) {
          const uint8_t *src = accessMemory(
              at, copy.lane, Space::Global, address + lo * eb,
              static_cast<unsigned>((hi - lo) * eb), Access::Read, 0);
          if (!src) {
            ok = false;
            return;
          }
          std::memcpy(row.data() + lo * eb, src, (hi - lo) * eb);
        }
        uint32_t base = copy.shared + static_cast<uint32_t>(r * rowBytes);
        for (uint32_t chunk = 0; chunk < rowBytes; chunk += 16)
          std::memcpy(shared + swizzleAddress(base + chunk, map.swizzle),
                      row.data() + chunk, 16);
      });
  if (!ok) {
    s.failed = true;
    return false;
  }
  markLanded(s, copy);
  return completeMbarrierTransaction(s, at, copy.lane, copy.mbarrier,
                                     copy.bytes);
}

/// Lands a tensor store or reduction: the box's elements inside the
/// tensor, shared -> global.
bool landStore(ExecState &s, const BulkCopy &copy) {
  ExecState at = reporterFor(s, copy);
  if (!copy.map.rank) {
    uint8_t *dst =
        accessMemory(at, copy.lane, Space::Global, copy.global, copy.bytes,
                     copy.reduce ? Access::Atomic : Access::Write, 0);
    if (!dst) {
      s.failed = true;
      return false;
    }
    reduceOrCopy(copy, dst, s.block.shared.data() + copy.shared, copy.bytes);
    return true;
  }
  const TensorMap &map = copy.map;
  unsigned eb = map.elementBytes;
  uint32_t rowBytes = map.boxElements(0) * eb;
  std::vector<uint8_t> row(rowBytes);
  const uint8_t *shared = s.block.shared.data();
  bool ok = true;
  forEachBoxRow(
      map, copy.coords,
      [&](uint64_t r, uint64_t address, int64_t lo, int64_t hi) {
        if (!ok || hi <= lo)
          return;
        uint32_t base = copy.shared + static_cast<uint32_t>(r * rowBytes);
        for (uint32_t chunk = 0; chunk < rowBytes; chunk += 16)
          std::memcpy(row.data() + chunk,
                      shared + swizzleAddress(base + chunk, map.swizzle), 16);
        uint8_t *dst =
            accessMemory(at, copy.lane, Space::Global, address + lo * eb,
                         static_cast<unsigned>((hi - lo) * eb),
                         copy.reduce ? Access::Atomic : Access::Write, 0);
        if (!dst) {
          ok = false;
          return;
        }
        reduceOrCopy(copy, dst, row.data() + lo * eb,
                     static_cast<uint32_t>((hi - lo) * eb));
      });
  if (!ok)
    s.failed = true;
  return ok;
}

/// Lands the copies `which` selects, in issue order, and removes them.
template <typename Which>
bool landCopies(ExecState &s, Which &&which, unsigned *landed = nullptr) {
  std::vector<BulkCopy> &copies = s.block.bulkCopies;
  // Landing may complete a phase and wake threads, but never issues copies:
  // the vector does not change under the loop.
  std::vector<BulkCopy> now;
  size_t kept = 0;
  for (size_t i = 0; i < copies.size(); ++i) {
    if (which(copies[i]))
      now.push_back(copies[i]);
    else
      copies[kept++] = copies[i];
  }
  copies.resize(kept);
  for (const BulkCopy &copy : now) {
    bool ok = copy.kind == BulkCopy::TensorLoad ? landLoad(s, copy)
                                                : landStore(s, copy);
    if (!ok)
      return false;
  }
  if (landed)
    *landed = static_cast<unsigned>(now.size());
  return true;
}

/// Starts the copy of lane `l`: its map (operand `mapOperand`, the
/// coordinates after it) and where it was issued. False after a finding.
bool startCopy(ExecState &s, const Instr &in, int l, BulkCopy::Kind kind,
               unsigned mapOperand, BulkCopy &copy) {
  unsigned rank = in.payload<BulkTensorArgs>().rank;
  copy.kind = kind;
  if (!readMap(s, l, s.reg(in.ops[mapOperand])[l], rank, copy.map))
    return false;
  for (unsigned d = 0; d < rank; ++d)
    copy.coords[d] = static_cast<int32_t>(s.reg(in.ops[mapOperand + 1 + d])[l]);
  // The innermost coordinate's byte offset must be a multiple of 16, for
  // loads, stores and reductions, swizzled or not, inside the tensor or
  // not: an H200 raises CUDA_ERROR_ILLEGAL_INSTRUCTION otherwise (measured
  // by NvccKernelsTest.cpp's TmaBoxVariant_*; the ISA does not say so).
  int64_t innerBytes = int64_t(copy.coords[0]) * copy.map.elementBytes;
  if (innerBytes % 16) {
    const char *what =
        kind == BulkCopy::TensorLoad          ? "cp.async.bulk.tensor load"
        : in.payload<BulkTensorArgs>().reduce ? "cp.reduce.async.bulk.tensor"
                                              : "cp.async.bulk.tensor store";
    s.fail(FindingKind::TmaMisuse, l,
           std::string(what) + ": the innermost box coordinate " +
               std::to_string(copy.coords[0]) + " (byte offset " +
               std::to_string(innerBytes) + ", " +
               std::to_string(copy.map.elementBytes) +
               "-byte elements) is not a multiple of 16 bytes; the GPU "
               "raises an illegal instruction");
    return false;
  }
  uint64_t bytes = copy.map.boxBytes();
  if (bytes > s.launch.sharedBytes) {
    s.fail(FindingKind::OutOfBounds, l,
           "a tensor map box of " + std::to_string(bytes) +
               " bytes is larger than the block's " +
               std::to_string(s.launch.sharedBytes) +
               " bytes of shared memory");
    return false;
  }
  copy.bytes = static_cast<uint32_t>(bytes);
  copy.warp = s.warp->index;
  copy.lane = static_cast<uint8_t>(l);
  copy.pc = s.pc;
  copy.issuer = &s.block;
  return true;
}

/// Issues load `copy` of lane `l` to `dst` (a shared::cluster address),
/// completing on the mbarrier at `mbarrier` (the same offset in every
/// target): into the destination's CTA, or into each CTA of `mask` for a
/// multicast. `check` checks the destination in the shared memory of a
/// CTA. False after a finding.
template <typename Check>
bool issueLoad(ExecState &s, int l, BulkCopy &copy, uint64_t dst,
               uint64_t mbarrier, bool multicast, uint32_t mask,
               Check &&check) {
  const char *what = copy.map.rank ? "cp.async.bulk.tensor" : "cp.async.bulk";
  Cluster &cluster = s.block.clusterState();
  uint64_t window = limits::kClusterWindowBytes;
  if (dst / window >= cluster.members.size() + 1 ||
      mbarrier / window >= cluster.members.size() + 1) {
    s.fail(FindingKind::TmaMisuse, l,
           std::string(what) +
               " to a shared::cluster address of a CTA rank the cluster of " +
               std::to_string(cluster.members.size()) + " does not have");
    return false;
  }
  uint32_t targets =
      1u << (dst >= window ? dst / window - 1 : s.block.clusterRank);
  if (multicast) {
    targets = mask;
    if (!targets || targets >> cluster.members.size()) {
      s.fail(FindingKind::TmaMisuse, l,
             "multicast to CTA mask " + hex(targets) + " in a cluster of " +
                 std::to_string(cluster.members.size()) + " CTAs");
      return false;
    }
  }
  dst %= window;
  mbarrier %= window;
  if (!check(dst))
    return false;
  copy.shared = static_cast<uint32_t>(dst);
  copy.mbarrier = static_cast<uint32_t>(mbarrier);
  const Checks &checks = s.launch.options.checks;
  forEachLane(targets, [&](int rank) {
    if (s.failed)
      return;
    Block &target = *cluster.members[rank];
    if (!target.mbarriers.count(copy.mbarrier)) {
      s.fail(FindingKind::MbarrierMisuse, l,
             std::string(what) + " completes on shared offset " +
                 hex(mbarrier) + " of CTA rank " + std::to_string(rank) +
                 ", which holds no mbarrier (mbarrier.init must come "
                 "first)");
      return;
    }
    if (&target == &s.block) {
      if (!markAsyncDestination(s, l, copy.shared, copy.bytes))
        return;
    } else if (uint64_t(copy.shared) + copy.bytes > s.launch.sharedBytes) {
      s.fail(FindingKind::OutOfBounds, l,
             "out-of-bounds " + std::string(what) + " destination of " +
                 std::to_string(copy.bytes) + " bytes at shared offset " +
                 std::to_string(copy.shared) + " of CTA rank " +
                 std::to_string(rank));
      return;
    } else if (checks.racecheck || checks.initcheck) {
      for (uint32_t i = copy.shared; i < copy.shared + copy.bytes; ++i)
        target.shadow[i].writeFlags = kShadowPending;
    }
    if (checks.racecheck || checks.initcheck)
      for (uint32_t i = copy.shared; i < copy.shared + copy.bytes; ++i)
        target.shadow[i].writeFlags |= kShadowBulk;
    target.bulkCopies.push_back(copy);
  });
  return !s.failed;
}

void bulkTensorLoad(ExecState &s, const Instr &in, uint32_t exec) {
  const BulkTensorArgs &args = in.payload<BulkTensorArgs>();
  forEachLane(exec, [&](int l) {
    BulkCopy copy;
    if (s.failed || !startCopy(s, in, l, BulkCopy::TensorLoad, 1, copy))
      return;
    uint64_t dst = s.reg(in.ops[0])[l] + static_cast<uint64_t>(in.imm);
    uint64_t mbarrier = s.reg(in.ops[2 + args.rank])[l] +
                        static_cast<uint64_t>(int64_t(args.mbarrierOffset));
    uint32_t mask = args.multicast
                        ? static_cast<uint16_t>(s.reg(in.ops[3 + args.rank])[l])
                        : 0;
    issueLoad(s, l, copy, dst, mbarrier, args.multicast, mask,
              [&](uint64_t at) { return checkSharedBox(s, l, copy.map, at); });
  });
}

/// cp.async.bulk (not .tensor): ops [dst, src, size, mbarrier{, ctaMask}]
/// for loads, [dst, src, size] for stores; the shared address's offset in
/// Instr::imm, the other's in Instr::aux.
struct PlainCopyArgs {
  bool multicast;
  /// .shared::cluster.shared::cta: the source is the CTA's shared memory.
  bool fromShared;
  /// cp.reduce.async.bulk: the operation + 1 (0: a copy); the element type
  /// is Instr::type.
  uint8_t reduce;
  int32_t mbarrierOffset;
};

/// The reductions' operations, in the order of kReduceNames.
constexpr AtomOp kReduceOps[] = {AAdd, AMin, AMax, AInc, ADec, AAnd, AOr, AXor};
constexpr const char *kReduceNames[] = {"add", "min", "max", "inc",
                                        "dec", "and", "or",  "xor"};

/// Whether the ISA defines reduction `op` on elements of `type` (the bulk
/// reductions' table: add on 32/64-bit integers and f32/f64, f16 and bf16
/// with .noftz; min and max on integers, f16 and bf16; inc and dec on u32;
/// the bitwise operations on 32- and 64-bit values).
bool reductionDefined(AtomOp op, Ty type, bool intoSharedMemory = false) {
  // Into shared::cluster the ISA defines fewer: add on u32, s32 and u64,
  // min and max on u32 and s32, the bitwise operations on 32 bits.
  bool word = type == Ty::U32 || type == Ty::S32;
  bool bits =
      !isFloatType(type) &&
      (bitWidth(type) == 32 || (!intoSharedMemory && bitWidth(type) == 64));
  bool half = type == Ty::F16 || type == Ty::BF16;
  bool global = !intoSharedMemory;
  switch (op) {
  case AAdd:
    return word || type == Ty::U64 ||
           (global && (type == Ty::F32 || type == Ty::F64 || half));
  case AMin:
  case AMax:
    return word || (global && (type == Ty::U64 || type == Ty::S64 || half));
  case AInc:
  case ADec:
    return type == Ty::U32;
  case AAnd:
  case AOr:
  case AXor:
    return bits;
  default:
    return false;
  }
}

/// The element type of a tensor map's data type (B8 for those no reduction
/// takes).
Ty mapElementType(const TensorMap &map) {
  switch (map.dataType) {
  case 2:
    return Ty::U32;
  case 3:
    return Ty::S32;
  case 4:
    return Ty::U64;
  case 5:
    return Ty::S64;
  case 6:
    return Ty::F16;
  case 7:
  case 10:
    return Ty::F32;
  case 8:
    return Ty::F64;
  case 9:
    return Ty::BF16;
  default:
    return Ty::B8;
  }
}

/// A plain copy's size, 16-byte alignment and shared-memory bounds; false
/// after a finding.
bool checkPlain(ExecState &s, int l, uint64_t shared, uint64_t global,
                uint64_t size) {
  if (shared + size > s.launch.sharedBytes) {
    s.fail(FindingKind::OutOfBounds, l,
           "cp.async.bulk of " + std::to_string(size) +
               " bytes at shared offset " + hex(shared) + " past the block's " +
               std::to_string(s.launch.sharedBytes) +
               " bytes of shared memory");
    return false;
  }
  if (size == 0 || size % 16 || shared % 16 || global % 16) {
    s.fail(FindingKind::Misaligned, l,
           "cp.async.bulk of " + std::to_string(size) + " bytes between " +
               hex(global) + " and shared offset " + hex(shared) +
               " (sizes and addresses must be multiples of 16)");
    return false;
  }
  return true;
}

/// A plain copy of lane `l` (operands dst, src, size, ...; the source's
/// offset in Instr::aux): its kind, size and where it was issued.
BulkCopy plainCopy(ExecState &s, const Instr &in, int l, BulkCopy::Kind kind,
                   uint64_t &src) {
  BulkCopy copy;
  copy.kind = kind;
  src = s.reg(in.ops[1])[l] + static_cast<uint64_t>(int32_t(in.aux));
  copy.bytes = static_cast<uint32_t>(s.reg(in.ops[2])[l]);
  copy.warp = s.warp->index;
  copy.lane = static_cast<uint8_t>(l);
  copy.pc = s.pc;
  copy.issuer = &s.block;
  return copy;
}

/// Plain loads: global -> shared (multicast too), and shared -> shared
/// (.shared::cluster.shared::cta: the CTA's own shared memory into a CTA of
/// the cluster, this one or another, whose source is read and checked when
/// the copy is issued). Both complete on the mbarrier at the same offset
/// as the destination, in the destination's CTA.
void bulkLoad(ExecState &s, const Instr &in, uint32_t exec) {
  const PlainCopyArgs &args = in.payload<PlainCopyArgs>();
  forEachLane(exec, [&](int l) {
    if (s.failed)
      return;
    uint64_t src = 0;
    BulkCopy copy = plainCopy(s, in, l, BulkCopy::TensorLoad, src);
    if (args.reduce) {
      copy.reduce = true;
      copy.op = kReduceOps[args.reduce - 1];
      copy.type = in.type;
    }
    if (args.fromShared) {
      if (!ownShared(s, l, src) || !checkPlain(s, l, src, 0, copy.bytes))
        return;
      const uint8_t *bytes =
          accessMemory(s, l, Space::Shared, src, copy.bytes, Access::Read, 0);
      if (!bytes ||
          !checkAsyncProxyRead(s, l, static_cast<uint32_t>(src), copy.bytes,
                               "a shared-to-shared cp.async.bulk"))
        return;
      copy.source =
          std::make_shared<std::vector<uint8_t>>(bytes, bytes + copy.bytes);
    } else {
      copy.global = src;
    }
    uint64_t dst = s.reg(in.ops[0])[l] + static_cast<uint64_t>(in.imm);
    uint64_t mbarrier = s.reg(in.ops[3])[l] +
                        static_cast<uint64_t>(int64_t(args.mbarrierOffset));
    uint32_t mask =
        args.multicast ? static_cast<uint16_t>(s.reg(in.ops[4])[l]) : 0;
    issueLoad(s, l, copy, dst, mbarrier, args.multicast, mask,
              [&](uint64_t at) {
                return checkPlain(s, l, at, copy.global, copy.bytes);
              });
  });
}

void bulkStore(ExecState &s, const Instr &in, uint32_t exec) {
  Warp &w = *s.warp;
  forEachLane(exec, [&](int l) {
    if (s.failed)
      return;
    uint64_t src = 0;
    BulkCopy copy = plainCopy(s, in, l, BulkCopy::TensorStore, src);
    if (uint8_t reduce = in.payload<PlainCopyArgs>().reduce) {
      copy.reduce = true;
      copy.op = kReduceOps[reduce - 1];
      copy.type = in.type;
    }
    copy.global = s.reg(in.ops[0])[l] + static_cast<uint64_t>(in.imm);
    if (!ownShared(s, l, src) ||
        !checkPlain(s, l, src, copy.global, copy.bytes) ||
        !accessMemory(s, l, Space::Shared, src, copy.bytes, Access::Read, 0) ||
        !checkAsyncProxyRead(s, l, static_cast<uint32_t>(src), copy.bytes,
                             "a cp.async.bulk store"))
      return;
    copy.shared = static_cast<uint32_t>(src);
    copy.group = w.bulkGroups[l];
    s.block.bulkCopies.push_back(copy);
  });
}

void bulkTensorStore(ExecState &s, const Instr &in, uint32_t exec) {
  const BulkTensorArgs &args = in.payload<BulkTensorArgs>();
  Warp &w = *s.warp;
  forEachLane(exec, [&](int l) {
    BulkCopy copy;
    if (s.failed || !startCopy(s, in, l, BulkCopy::TensorStore, 0, copy))
      return;
    uint64_t src =
        s.reg(in.ops[1 + args.rank])[l] + static_cast<uint64_t>(in.imm);
    if (!ownShared(s, l, src) || !checkSharedBox(s, l, copy.map, src))
      return;
    if (args.reduce) {
      copy.reduce = true;
      copy.op = kReduceOps[args.reduce - 1];
      copy.type = mapElementType(copy.map);
      if (!reductionDefined(copy.op, copy.type)) {
        s.fail(FindingKind::TmaMisuse, l,
               std::string("cp.reduce.async.bulk.tensor .") +
                   kReduceNames[args.reduce - 1] +
                   " with a tensor map of element type " +
                   std::to_string(copy.map.dataType) +
                   " (CUtensorMapDataType), which the ISA does not define "
                   "it on");
        return;
      }
    }
    // The source is read (through the checks) when the copy is issued: the
    // bytes must have been written, and not by another warp in this
    // interval without a barrier.
    if (!accessMemory(s, l, Space::Shared, src, copy.bytes, Access::Read, 0) ||
        !checkAsyncProxyRead(s, l, static_cast<uint32_t>(src), copy.bytes,
                             "a cp.async.bulk.tensor store"))
      return;
    copy.shared = static_cast<uint32_t>(src);
    copy.group = w.bulkGroups[l];
    s.block.bulkCopies.push_back(copy);
  });
}

void bulkCommit(ExecState &s, const Instr &, uint32_t exec) {
  forEachLane(exec, [&](int l) { ++s.warp->bulkGroups[l]; });
}

/// wait_group N: the stores of all but the N most recent committed groups
/// of the thread land.
void bulkWait(ExecState &s, const Instr &in, uint32_t exec) {
  Warp &w = *s.warp;
  uint32_t keep = static_cast<uint32_t>(in.imm);
  landCopies(s, [&](const BulkCopy &copy) {
    if (copy.kind != BulkCopy::TensorStore || copy.issuer != &s.block ||
        copy.warp != w.index || !((exec >> copy.lane) & 1))
      return false;
    uint32_t committed = w.bulkGroups[copy.lane];
    return copy.group < committed && committed - copy.group > keep;
  });
}

/// Records a modification of the tensor map at global `address`.
void bumpMapVersion(ExecState &s, uint64_t address) {
  std::lock_guard<std::mutex> guard(s.launch.mapMutex);
  ++s.launch.mapVersions[address];
}

/// tensormap.replace (ops: address base, ordinal, value; field in the
/// payload, state space in Instr::space).
struct ReplaceArgs {
  TensorMapField field;
};

void tensormapReplace(ExecState &s, const Instr &in, uint32_t exec) {
  TensorMapField field = in.payload<ReplaceArgs>().field;
  const uint64_t *base = s.reg(in.ops[0]), *ord = s.reg(in.ops[1]),
                 *value = s.reg(in.ops[2]);
  forEachLane(exec, [&](int l) {
    if (s.failed)
      return;
    uint64_t address = base[l] + static_cast<uint64_t>(in.imm);
    uint8_t *map =
        accessMemory(s, l, in.space, address, 128, Access::Write, 64);
    if (!map)
      return;
    std::string error;
    if (!replaceTensorMapField(map, field, static_cast<uint32_t>(ord[l]),
                               value[l], error)) {
      s.fail(FindingKind::TmaMisuse, l, "tensormap.replace: " + error);
      return;
    }
    if (in.space == Space::Global)
      bumpMapVersion(s, address);
  });
}

/// tensormap.cp_fenceproxy: one copy of the 128-byte map, shared -> global,
/// for the warp (ops: dst, src).
void tensormapCopy(ExecState &s, const Instr &in, uint32_t exec) {
  if (!exec)
    return;
  int l = __builtin_ctz(exec);
  uint64_t dst = s.reg(in.ops[0])[l], src = s.reg(in.ops[1])[l];
  const uint8_t *from =
      accessMemory(s, l, Space::Shared, src, 128, Access::Read, 64);
  if (!from)
    return;
  uint8_t *to = accessMemory(s, l, Space::Global, dst, 128, Access::Write, 64);
  if (!to)
    return;
  std::memcpy(to, from, 128);
  bumpMapVersion(s, dst);
}

class TensormapDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run() {
    if (d.arch() < 90)
      return d.fail("tensormap instructions need sm_90a");
    if (mods.take("cp_fenceproxy")) {
      // .global.shared::cta.tensormap::generic.release.scope.sync.aligned
      if (!mods.take("global") || !mods.take("shared::cta") ||
          !mods.take("tensormap::generic") || !mods.take("sync") ||
          !mods.take("aligned"))
        return d.fail("expected tensormap.cp_fenceproxy.global.shared::cta."
                      "tensormap::generic.release.scope.sync.aligned");
      mods.takeIgnorable();
      if (!count(3) || ops[2].kind != ptx::Operand::Integer ||
          ops[2].bits != 128)
        return d.fail("expected [dst], [src], 128");
      uint32_t dst = 0, src = 0;
      int64_t dstOffset = 0, srcOffset = 0;
      if (!d.address(ops[0], Space::Global, dst, dstOffset) ||
          !d.address(ops[1], Space::Shared, src, srcOffset))
        return false;
      if (dstOffset || srcOffset)
        return d.fail("tensormap.cp_fenceproxy takes no address offsets");
      d.setOperands(out, {dst, src});
      out.collective = Collective::FullWarp;
      out.exec = &tensormapCopy;
      return true;
    }
    if (!mods.take("replace") || !mods.take("tile"))
      return d.fail("expected tensormap.replace.tile or "
                    "tensormap.cp_fenceproxy");
    // In TensorMapField's order.
    int field =
        mods.takeOneOf({"global_address", "rank", "global_dim", "global_stride",
                        "box_dim", "element_stride", "elemtype",
                        "interleave_layout", "swizzle_mode", "fill_mode"});
    if (mods.take("swizzle_atomicity"))
      return d.fail("tensormap.replace.swizzle_atomicity needs sm_100a");
    if (field < 0)
      return d.fail("expected the field to replace");
    out.space = mods.take("global") ? Space::Global : Space::Generic;
    if (out.space == Space::Generic) {
      if (!mods.take("shared::cta"))
        return d.fail("expected .global or .shared::cta");
      out.space = Space::Shared;
    }
    int type = mods.takeOneOf({"b32", "b64"});
    if (!mods.take("b1024") || type < 0)
      return d.fail("expected .b1024.b32 or .b1024.b64");
    auto kind = static_cast<TensorMapField>(field);
    out.setPayload<ReplaceArgs>().field = kind;
    bool ordinal = kind == TensorMapField::GlobalDim ||
                   kind == TensorMapField::GlobalStride ||
                   kind == TensorMapField::BoxDim ||
                   kind == TensorMapField::ElementStride;
    bool wide = kind == TensorMapField::GlobalAddress ||
                kind == TensorMapField::GlobalStride;
    if ((type == 1) != wide)
      return d.fail(wide ? "global_address and global_stride take .b64"
                         : "this field takes .b32");
    if (!count(ordinal ? 3 : 2))
      return false;
    // The ordinal and the values of the mode fields are immediates.
    bool immediateValue = kind >= TensorMapField::ElementType;
    if ((ordinal && ops[1].kind != ptx::Operand::Integer) ||
        (immediateValue && ops.back().kind != ptx::Operand::Integer))
      return d.fail(ordinal ? "the ordinal must be an immediate"
                            : "the new value of this field must be an "
                              "immediate");
    uint32_t base = 0, ord = kSlotZero, value = 0;
    if (!d.address(ops[0], out.space, base, out.imm) ||
        (ordinal && !d.source(ops[1], Ty::U32, ord)) ||
        !d.source(ops.back(), type ? Ty::B64 : Ty::B32, value))
      return false;
    d.setOperands(out, {base, ord, value});
    out.exec = &tensormapReplace;
    return true;
  }
};

class BulkCopyDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run() {
    if (mods.take("commit_group")) {
      if (!ops.empty())
        return d.fail("cp.async.bulk.commit_group takes no operands");
      out.exec = &bulkCommit;
      return true;
    }
    if (mods.take("wait_group")) {
      out.setPayload<BulkWaitArgs>().read = mods.take("read");
      if (!count(1) || ops[0].kind != ptx::Operand::Integer || ops[0].bits > 63)
        return d.fail("cp.async.bulk.wait_group takes an integer 0 to 63");
      out.imm = static_cast<int64_t>(ops[0].bits);
      out.exec = &bulkWait;
      return true;
    }
    if (mods.take("prefetch")) {
      // A hint: cp.async.bulk.prefetch{.tensor.Nd}.L2.global ...
      mods.take("tensor");
      mods.takeOneOf({"1d", "2d", "3d", "4d", "5d"});
      mods.take("tile");
      mods.take("L2");
      mods.take("global");
      mods.take("L2::cache_hint");
      out.exec = &nothing;
      return true;
    }
    if (!mods.take("tensor"))
      return decodePlain();
    if (d.arch() < 90)
      return d.fail("cp.async.bulk.tensor needs sm_90");
    int dims = mods.takeOneOf({"1d", "2d", "3d", "4d", "5d"});
    if (dims < 0)
      return d.fail("expected .1d to .5d");
    unsigned rank = static_cast<unsigned>(dims) + 1;
    if (mods.take("im2col") || mods.take("im2col_no_offs"))
      return d.fail("cp.async.bulk.tensor .im2col is not supported yet");
    mods.take("tile");
    // Direction: the first state space is the destination.
    int globalAt = -1, sharedAt = -1;
    const std::vector<std::string> &parts = mods.all();
    for (size_t i = 1; i < parts.size(); ++i) {
      if (parts[i] == "global" && globalAt < 0)
        globalAt = static_cast<int>(i);
      if ((parts[i] == "shared::cluster" || parts[i] == "shared::cta") &&
          sharedAt < 0)
        sharedAt = static_cast<int>(i);
    }
    if (globalAt < 0 || sharedAt < 0)
      return d.fail("expected a .global and a .shared::cluster/.shared::cta "
                    "state space");
    mods.take("global");
    bool cluster = mods.take("shared::cluster");
    if (!cluster)
      mods.take("shared::cta");
    bool hint = mods.take("L2::cache_hint");
    BulkTensorArgs &args = out.setPayload<BulkTensorArgs>();
    args.rank = static_cast<uint8_t>(rank);
    std::vector<uint32_t> slots;
    bool store = globalAt < sharedAt;
    bool reduce = isReduction();
    if (reduce && !store)
      return d.fail("cp.reduce.async.bulk.tensor writes .global");
    if (store) {
      if (cluster)
        return d.fail("a bulk tensor store reads .shared::cta");
      if (reduce) {
        int op = takeReduceOp();
        if (op < 0)
          return false;
        args.reduce = static_cast<uint8_t>(op + 1);
      }
      if (!mods.take("bulk_group"))
        return d.fail("a bulk tensor store completes through .bulk_group");
      if (ops.size() != 2u + hint)
        return d.fail("expected [tensorMap, {coordinates}], [srcMem]" +
                      std::string(hint ? ", cache-policy" : ""));
      if (!tensorMap(ops[0], rank, slots) || !address(ops[1], slots))
        return false;
      out.exec = &bulkTensorStore;
    } else {
      if (!mods.take("mbarrier::complete_tx::bytes"))
        return d.fail("a bulk tensor load completes through "
                      ".mbarrier::complete_tx::bytes");
      args.multicast = mods.take("multicast::cluster");
      size_t want = 3u + args.multicast + hint;
      if (ops.size() != want)
        return d.fail("expected [dstMem], [tensorMap, {coordinates}], "
                      "[mbar]" +
                      std::string(args.multicast ? ", ctaMask" : "") +
                      std::string(hint ? ", cache-policy" : ""));
      if (!address(ops[0], slots) || !tensorMap(ops[1], rank, slots))
        return false;
      uint32_t mbarrier = 0;
      int64_t offset = 0;
      if (!d.address(ops[2], Space::Shared, mbarrier, offset))
        return false;
      if (offset < INT32_MIN || offset > INT32_MAX)
        return d.fail("mbarrier address offset out of range");
      args.mbarrierOffset = static_cast<int32_t>(offset);
      slots.push_back(mbarrier);
      if (args.multicast) {
        uint32_t mask = 0;
        if (!d.source(ops[3], Ty::U16, mask))
          return false;
        slots.push_back(mask);
      }
      out.exec = &bulkTensorLoad;
    }
    if (hint) {
      // The cache policy changes where the data is cached, not what it is.
      uint32_t policy = 0;
      if (!d.source(ops.back(), Ty::B64, policy))
        return false;
    }
    d.setOperands(out, slots);
    return true;
  }

private:
  bool decodePlain() {
    if (d.arch() < 90)
      return d.fail("cp.async.bulk needs sm_90");
    int globalAt = -1, sharedAt = -1;
    const std::vector<std::string> &parts = mods.all();
    for (size_t i = 1; i < parts.size(); ++i) {
      if (parts[i] == "global" && globalAt < 0)
        globalAt = static_cast<int>(i);
      if ((parts[i] == "shared::cluster" || parts[i] == "shared::cta") &&
          sharedAt < 0)
        sharedAt = static_cast<int>(i);
    }
    // .shared::cluster.shared::cta: from the CTA's shared memory into a
    // CTA of the cluster, completing on an mbarrier like a load.
    bool sharedToShared = globalAt < 0 && mods.take("shared::cluster") &&
                          mods.take("shared::cta");
    if (!sharedToShared && (globalAt < 0 || sharedAt < 0))
      return d.fail("expected a .global and a .shared::cluster/.shared::cta "
                    "state space, or .shared::cluster.shared::cta");
    mods.take("global");
    bool cluster = mods.take("shared::cluster");
    if (!cluster)
      mods.take("shared::cta");
    bool hint = mods.take("L2::cache_hint");
    PlainCopyArgs &args = out.setPayload<PlainCopyArgs>();
    bool store = !sharedToShared && globalAt < sharedAt;
    std::vector<uint32_t> slots;
    uint32_t base = 0, size = 0;
    int64_t offset = 0;
    if (isReduction()) {
      if (!store && !sharedToShared)
        return d.fail("cp.reduce.async.bulk reads .shared::cta into .global "
                      "or .shared::cluster");
      int op = takeReduceOp();
      if (op < 0)
        return false;
      args.reduce = static_cast<uint8_t>(op + 1);
      bool noftz = mods.take("noftz");
      std::vector<Ty> types = mods.takeTypes();
      if (types.size() != 1)
        return d.fail("cp.reduce.async.bulk takes one element type");
      out.type = types[0];
      if (!reductionDefined(kReduceOps[op], out.type, sharedToShared))
        return d.fail(std::string("cp.reduce.async.bulk .") + kReduceNames[op] +
                      " is not defined on ." + typeName(out.type) +
                      (sharedToShared ? " into shared::cluster" : ""));
      bool half = out.type == Ty::F16 || out.type == Ty::BF16;
      if (kReduceOps[op] == AAdd && half != noftz)
        return d.fail(half ? "cp.reduce.async.bulk .add on f16 and bf16 "
                             "needs .noftz"
                           : ".noftz is for .add on f16 and bf16");
    }
    if (store) {
      if (!mods.take("bulk_group"))
        return d.fail("a bulk store completes through .bulk_group");
      if (ops.size() != 3u + hint)
        return d.fail("expected [dstMem], [srcMem], size");
      if (!d.address(ops[0], Space::Global, base, out.imm))
        return false;
      slots.push_back(base);
      if (!d.address(ops[1], Space::Shared, base, offset))
        return false;
      slots.push_back(base);
      out.exec = &bulkStore;
    } else {
      if (!mods.take("mbarrier::complete_tx::bytes"))
        return d.fail("a bulk load completes through "
                      ".mbarrier::complete_tx::bytes");
      args.multicast = !sharedToShared && mods.take("multicast::cluster");
      if (ops.size() != 4u + args.multicast + hint)
        return d.fail("expected [dstMem], [srcMem], size, [mbar]");
      if (!d.address(ops[0], Space::Shared, base, out.imm))
        return false;
      slots.push_back(base);
      if (!d.address(ops[1], sharedToShared ? Space::Shared : Space::Global,
                     base, offset))
        return false;
      slots.push_back(base);
      args.fromShared = sharedToShared;
      out.exec = &bulkLoad;
    }
    if (offset < INT32_MIN || offset > INT32_MAX)
      return d.fail("address offset out of range");
    out.aux = static_cast<uint32_t>(static_cast<int32_t>(offset));
    if (!d.source(ops[2], Ty::U32, size))
      return false;
    slots.push_back(size);
    if (!store) {
      int64_t mbarrierOffset = 0;
      if (!d.address(ops[3], Space::Shared, base, mbarrierOffset))
        return false;
      if (mbarrierOffset < INT32_MIN || mbarrierOffset > INT32_MAX)
        return d.fail("mbarrier address offset out of range");
      args.mbarrierOffset = static_cast<int32_t>(mbarrierOffset);
      slots.push_back(base);
      if (args.multicast) {
        uint32_t mask = 0;
        if (!d.source(ops[4], Ty::U16, mask))
          return false;
        slots.push_back(mask);
      }
    }
    if (hint) {
      uint32_t policy = 0;
      if (!d.source(ops.back(), Ty::B64, policy))
        return false;
    }
    d.setOperands(out, slots);
    return true;
  }

  /// Whether the instruction is cp.reduce.async.bulk{.tensor}.
  bool isReduction() const {
    const std::vector<std::string> &parts = mods.all();
    return std::find(parts.begin(), parts.end(), "reduce") != parts.end();
  }

  /// Takes the reduction's operation; its index in kReduceOps, or -1 after
  /// a diagnostic.
  int takeReduceOp() {
    int op =
        mods.takeOneOf({"add", "min", "max", "inc", "dec", "and", "or", "xor"});
    if (op < 0)
      d.fail("cp.reduce.async.bulk needs .add, .min, .max, .inc, .dec, "
             ".and, .or or .xor");
    return op;
  }

  /// A shared address: its base slot, its offset in Instr::imm.
  bool address(const ptx::Operand &operand, std::vector<uint32_t> &slots) {
    uint32_t base = 0;
    if (!d.address(operand, Space::Shared, base, out.imm))
      return false;
    slots.push_back(base);
    return true;
  }

  /// [tensorMap, {c0, ...}]: the map's generic address, then `rank`
  /// 32-bit coordinates.
  bool tensorMap(const ptx::Operand &operand, unsigned rank,
                 std::vector<uint32_t> &slots) {
    if (operand.kind != ptx::Operand::Address || operand.elements.size() != 1 ||
        operand.elements[0].kind != ptx::Operand::Vector)
      return d.fail("expected [tensorMap, {coordinates}]");
    const std::vector<ptx::Operand> &coords = operand.elements[0].elements;
    if (coords.size() != rank)
      return d.fail("a ." + std::to_string(rank) + "d copy takes " +
                    std::to_string(rank) + " coordinates, not " +
                    std::to_string(coords.size()));
    ptx::Operand base = operand;
    base.elements.clear();
    uint32_t slot = 0;
    int64_t offset = 0;
    if (!d.address(base, Space::Generic, slot, offset))
      return false;
    if (offset != 0) {
      if (slot != kSlotZero)
        return d.fail("a tensor-map operand takes no offset");
      slot = d.constant(static_cast<uint64_t>(offset));
    }
    slots.push_back(slot);
    for (const ptx::Operand &c : coords) {
      uint32_t s = 0;
      if (!d.source(c, Ty::S32, s))
        return false;
      slots.push_back(s);
    }
    return true;
  }
};

} // namespace

bool gmm::sim::decodeTensormap(Decoder &decoder, const ptx::Instruction &instr,
                               Modifiers &mods, Instr &out) {
  TensormapDecoder tensormap(decoder, instr, mods, out);
  return tensormap.run();
}

void gmm::sim::control::tensormapAcquire(ExecState &s, const Instr &in,
                                         uint32_t exec) {
  const uint64_t *base = s.reg(in.ops[0]);
  forEachLane(exec, [&](int l) {
    uint64_t address = base[l] + static_cast<uint64_t>(in.imm);
    if (classifyGeneric(address) != Space::Global)
      return;
    std::lock_guard<std::mutex> guard(s.launch.mapMutex);
    auto it = s.launch.mapVersions.find(address);
    if (it != s.launch.mapVersions.end())
      s.block.mapAcquired[{s.threadIndex(l), address}] = it->second;
  });
}

bool gmm::sim::decodeBulkCopy(Decoder &decoder, const ptx::Instruction &instr,
                              Modifiers &mods, Instr &out) {
  BulkCopyDecoder bulk(decoder, instr, mods, out);
  return bulk.run();
}

bool gmm::sim::control::landBulkLoads(ExecState &s, uint32_t offset) {
  if (!s.block.asyncArrivals.empty() &&
      !landAsyncArrivals(
          s, [&](const AsyncArrival &a) { return a.mbarrier == offset; }))
    return false;
  if (s.block.bulkCopies.empty())
    return true;
  return landCopies(s, [&](const BulkCopy &copy) {
    return copy.kind == BulkCopy::TensorLoad && copy.mbarrier == offset;
  });
}

void gmm::sim::control::finishBulkCopies(ExecState &s) {
  for (const BulkCopy &copy : s.block.bulkCopies)
    if (copy.kind == BulkCopy::TensorStore) {
      ExecState at = reporterFor(s, copy);
      at.fail(FindingKind::TmaMisuse, copy.lane,
              "the block exited while this cp.async.bulk.tensor store was "
              "still reading shared memory (missing "
              "cp.async.bulk.wait_group.read after its commit_group)");
      s.failed = true;
      break;
    }
  s.block.bulkCopies.clear();
}

bool gmm::sim::control::landAllBulkLoads(ExecState &s, unsigned &landed) {
  landed = 0;
  unsigned arrivals = 0;
  if (!s.block.asyncArrivals.empty() &&
      !landAsyncArrivals(
          s, [](const AsyncArrival &) { return true; }, &arrivals))
    return false;
  bool ok = s.block.bulkCopies.empty() ||
            landCopies(
                s,
                [](const BulkCopy &copy) {
                  return copy.kind == BulkCopy::TensorLoad;
                },
                &landed);
  landed += arrivals;
  return ok;
}
