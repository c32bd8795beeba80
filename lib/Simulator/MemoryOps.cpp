//===- MemoryOps.cpp - ld, st, atom, red, cp.async, cvta -----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The data-movement instructions of the PTX ISA that touch memory. Every
// access goes through accessMemory() (Memory.cpp) and so is checked.
// cp.async copies are queued per warp and land when a cp.async.wait_group
// or wait_all that covers their group executes: as late as the ISA allows,
// so that a missing wait is seen, not hidden.
//
//===----------------------------------------------------------------------===//

#include "Control.h"
#include "DeviceModel.h"
#include "Exec.h"
#include "PTXSyntax.h"

#include <algorithm>
#include <cmath>

using namespace gmm::sim;

namespace {

/// Sign-extends `value` of `bits` to 64 bits, then keeps `regBits`.
inline uint64_t extend(uint64_t value, unsigned bits, bool isSigned,
                       unsigned regBits) {
  if (isSigned && bits < 64 && (value >> (bits - 1)) & 1)
    value |= ~((uint64_t(1) << bits) - 1);
  return truncBits(value, regBits);
}

/// ld and st.
struct LoadStoreArgs {
  /// N of .vN (1 without).
  uint8_t vectorLength;
  /// ld: the widest destination register's width in bits (64 if unknown).
  uint8_t regBits;
  /// ld: the loaded type is signed (sign-extends into the register).
  bool isSigned;
};

/// ld{.space}{.vN}.type {d...}, [a+imm] (ops: destinations, base).
void load(ExecState &s, const Instr &in, uint32_t mask) {
  const auto &args = in.payload<LoadStoreArgs>();
  unsigned n = args.vectorLength, width = byteWidth(in.type);
  unsigned regBits = args.regBits;
  bool isSigned = args.isSigned;
  unsigned total = n * width;
  const uint64_t *base = s.reg(in.ops[n]);
  forEachLane(mask, [&](int l) {
    uint64_t address = base[l] + static_cast<uint64_t>(in.imm);
    const uint8_t *p =
        accessMemory(s, l, in.space, address, total, Access::Read, total);
    if (!p)
      return;
    for (unsigned i = 0; i < n; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, p + i * width, width);
      s.reg(in.ops[i])[l] = extend(v, width * 8, isSigned, regBits);
    }
  });
}

/// st{.space}{.vN}.type [a+imm], {b...} (ops: base, sources).
void store(ExecState &s, const Instr &in, uint32_t mask) {
  const auto &args = in.payload<LoadStoreArgs>();
  unsigned n = args.vectorLength, width = byteWidth(in.type);
  unsigned total = n * width;
  const uint64_t *base = s.reg(in.ops[0]);
  forEachLane(mask, [&](int l) {
    uint64_t address = base[l] + static_cast<uint64_t>(in.imm);
    uint8_t *p =
        accessMemory(s, l, in.space, address, total, Access::Write, total);
    if (!p)
      return;
    for (unsigned i = 0; i < n; ++i) {
      uint64_t v = s.reg(in.ops[1 + i])[l];
      std::memcpy(p + i * width, &v, width);
    }
  });
}

/// The new value of an atomic operation on `old`.
uint64_t atomicResult(AtomOp op, Ty type, uint64_t old, uint64_t b,
                      uint64_t c) {
  unsigned bits = bitWidth(type);
  auto keep = [&](uint64_t v) { return truncBits(v, bits); };
  switch (op) {
  case AAdd:
    switch (type) {
    case Ty::F32:
      return asBits(bitsAs<float>(old & 0xffffffffu) +
                    bitsAs<float>(b & 0xffffffffu)) &
             0xffffffffu;
    case Ty::F64:
      return asBits(bitsAs<double>(old) + bitsAs<double>(b));
    case Ty::F16:
      return doubleToHalf(
          static_cast<double>(halfToFloat(static_cast<uint16_t>(old))) +
              halfToFloat(static_cast<uint16_t>(b)),
          Round::RN);
    case Ty::BF16:
      return doubleToBF16(
          static_cast<double>(bf16ToFloat(static_cast<uint16_t>(old))) +
              bf16ToFloat(static_cast<uint16_t>(b)),
          Round::RN);
    default:
      return keep(old + b);
    }
  case AMin:
  case AMax: {
    bool less;
    if (isFloatType(type)) {
      // minNum/maxNum: a NaN operand yields the other one.
      auto value = [&](uint64_t v) -> double {
        switch (type) {
        case Ty::F16:
          return halfToFloat(static_cast<uint16_t>(v));
        case Ty::BF16:
          return bf16ToFloat(static_cast<uint16_t>(v));
        case Ty::F32:
          return bitsAs<float>(v & 0xffffffffu);
        default:
          return bitsAs<double>(v);
        }
      };
      double x = value(old), y = value(b);
      if (std::isnan(x) || std::isnan(y))
        return keep(std::isnan(x) ? b : old);
      less = op == AMin ? y < x : y > x;
      return keep(less ? b : old);
    }
    if (isSignedInt(type)) {
      int64_t x = static_cast<int64_t>(old << (64 - bits)) >> (64 - bits);
      int64_t y = static_cast<int64_t>(b << (64 - bits)) >> (64 - bits);
      less = y < x;
    } else {
      less = keep(b) < keep(old);
    }
    return keep(op == AMin ? (less ? b : old) : (less ? old : b));
  }
  case AInc:
    return keep(keep(old) >= keep(b) ? 0 : old + 1);
  case ADec:
    return keep(keep(old) == 0 || keep(old) > keep(b) ? b : old - 1);
  case AAnd:
    return keep(old & b);
  case AOr:
    return keep(old | b);
  case AXor:
    return keep(old ^ b);
  case AExch:
    return keep(b);
  case ACas:
    return keep(old) == keep(b) ? keep(c) : keep(old);
  }
  return old;
}

/// atom and red.
struct AtomicArgs {
  /// The operation.
  AtomOp op;
  /// red (no destination) rather than atom.
  bool isRed;
  /// A packed pair (f16x2/bf16x2), applied as two 16-bit atomics.
  bool packedPair;
};

/// atom (ops: d, base, b{, c}) and red (ops: base, b).
void atomic(ExecState &s, const Instr &in, uint32_t mask) {
  const auto &args = in.payload<AtomicArgs>();
  bool isRed = args.isRed;
  bool packedPair = args.packedPair;
  unsigned first = isRed ? 0 : 1;
  const uint64_t *base = s.reg(in.ops[first]);
  const uint64_t *b = s.reg(in.ops[first + 1]);
  const uint64_t *c = in.numOps > first + 2 ? s.reg(in.ops[first + 2]) : b;
  uint64_t *d = isRed ? nullptr : s.reg(in.ops[0]);
  unsigned width = byteWidth(in.type);
  AtomOp op = args.op;
  forEachLane(mask, [&](int l) {
    uint64_t address = base[l] + static_cast<uint64_t>(in.imm);
    uint8_t *p =
        accessMemory(s, l, in.space, address, width, Access::Atomic, width);
    if (!p)
      return;
    uint64_t old;
    if (packedPair) {
      Ty half = in.type == Ty::BF16x2 ? Ty::BF16 : Ty::F16;
      uint64_t lo = atomicApply(p, op, half, b[l] & 0xffff, 0);
      uint64_t hi = atomicApply(p + 2, op, half, (b[l] >> 16) & 0xffff, 0);
      old = lo | hi << 16;
    } else {
      old = atomicApply(p, op, in.type, b[l], c[l]);
    }
    if (d)
      d[l] = old;
  });
}

/// cp.async (the copy).
struct CpAsyncArgs {
  /// cp-size in bytes (4, 8 or 16).
  uint8_t cpSize;
  /// The ignore-src predicate is negated (`!p`): the register value that
  /// keeps the source (any other value ignores it).
  bool ignoreSrcNegated;
};

/// cp.async (ops: dst base, src base, src-size or kSlotSink, ignore-src or
/// kSlotSink, src offset; imm: dst offset; space: dst space).
void cpAsync(ExecState &s, const Instr &in, uint32_t mask) {
  const auto &args = in.payload<CpAsyncArgs>();
  const uint64_t *dst = s.reg(in.ops[0]), *src = s.reg(in.ops[1]);
  const uint64_t *srcOffset = s.reg(in.ops[4]);
  bool hasSrcSize = in.ops[2] != kSlotSink;
  bool hasIgnore = in.ops[3] != kSlotSink;
  unsigned size = args.cpSize;
  bool ignoreSrcNegated = args.ignoreSrcNegated;
  Warp &w = *s.warp;
  forEachLane(mask, [&](int l) {
    uint64_t dstAddress = dst[l] + static_cast<uint64_t>(in.imm);
    uint64_t srcAddress = src[l] + srcOffset[l];
    uint64_t srcSize = size;
    if (hasSrcSize)
      srcSize = s.reg(in.ops[2])[l] & 0xffffffffu;
    if (hasIgnore && (s.reg(in.ops[3])[l] & 1) != ignoreSrcNegated)
      srcSize = 0;
    if (srcSize > size) {
      s.fail(FindingKind::OutOfBounds, l,
             "cp.async src-size " + std::to_string(srcSize) +
                 " exceeds its cp-size " + std::to_string(size));
      return;
    }
    if (in.space == Space::Generic) {
      if (classifyGeneric(dstAddress) != Space::Shared) {
        s.fail(FindingKind::OutOfBounds, l,
               "cp.async destination is not in shared memory");
        return;
      }
      dstAddress = fromGeneric(Space::Shared, dstAddress);
    }
    if ((dstAddress & (size - 1)) || (srcAddress & (size - 1))) {
      s.fail(FindingKind::Misaligned, l,
             "misaligned cp.async of " + std::to_string(size) +
                 " bytes (shared offset " + std::to_string(dstAddress) +
                 ", global address " + std::to_string(srcAddress) +
                 "; both need " + std::to_string(size) + "-byte alignment)");
      return;
    }
    const uint8_t *source = nullptr;
    if (srcSize) {
      source = accessMemory(s, l, Space::Global, srcAddress,
                            static_cast<unsigned>(srcSize), Access::Read, 0);
      if (!source)
        return;
    }
    if (!markAsyncDestination(s, l, static_cast<uint32_t>(dstAddress), size))
      return;
    AsyncCopy copy;
    copy.dst = static_cast<uint32_t>(dstAddress);
    copy.src = source;
    copy.size = static_cast<uint8_t>(size);
    copy.srcSize = static_cast<uint8_t>(srcSize);
    copy.lane = static_cast<uint8_t>(l);
    copy.group = w.asyncGroups[l];
    copy.line = in.line;
    w.async.push_back(copy);
  });
}

void cpAsyncCommit(ExecState &s, const Instr &, uint32_t mask) {
  forEachLane(mask, [&](int l) { ++s.warp->asyncGroups[l]; });
}

/// Lands the copies of the lanes in `mask` whose group is below the lane's
/// limit.
void landCopies(ExecState &s, uint32_t mask, const uint32_t limits[32]) {
  Warp &w = *s.warp;
  size_t kept = 0;
  for (size_t i = 0; i < w.async.size(); ++i) {
    const AsyncCopy &copy = w.async[i];
    bool lands = ((mask >> copy.lane) & 1) && copy.group < limits[copy.lane];
    if (lands) {
      landAsyncCopy(s, copy);
      continue;
    }
    w.async[kept++] = copy;
  }
  w.async.resize(kept);
}

/// cp.async.wait_group and cp.async.wait_all.
struct CpAsyncWaitArgs {
  /// wait_all (rather than wait_group N).
  bool waitAll;
};

/// cp.async.wait_group N (imm: N) and wait_all.
void cpAsyncWait(ExecState &s, const Instr &in, uint32_t mask) {
  Warp &w = *s.warp;
  bool waitAll = in.payload<CpAsyncWaitArgs>().waitAll;
  uint32_t limits[32] = {};
  forEachLane(mask, [&](int l) {
    if (waitAll) {
      ++w.asyncGroups[l];
      limits[l] = UINT32_MAX;
    } else {
      uint64_t n = static_cast<uint64_t>(in.imm);
      limits[l] = w.asyncGroups[l] >= n
                      ? static_cast<uint32_t>(w.asyncGroups[l] - n)
                      : 0;
    }
  });
  if (!w.async.empty())
    landCopies(s, mask, limits);
  // The cp.async.mbarrier.arrive operations whose copies have now landed.
  if (!s.block.asyncArrivals.empty())
    control::landAsyncArrivals(s, [&](const AsyncArrival &a) {
      return a.warp == w.index && ((mask >> a.lane) & 1) &&
             a.group < limits[a.lane];
    });
}

/// cvta and cvta.to.
struct CvtaArgs {
  /// cvta (state space -> generic) rather than cvta.to (generic -> space).
  bool toGeneric;
  /// The width of the type in bits (32 or 64).
  uint8_t bits;
};

/// cvta{.to}.space.type (ops: d, a; space).
void cvta(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  const auto &args = in.payload<CvtaArgs>();
  bool toGenericForm = args.toGeneric;
  bool bits32 = args.bits == 32;
  forEachLane(mask, [&](int l) {
    uint64_t v =
        toGenericForm ? toGeneric(in.space, a[l]) : fromGeneric(in.space, a[l]);
    d[l] = bits32 ? (v & 0xffffffffu) : v;
  });
}

void isspacep(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  forEachLane(mask, [&](int l) {
    Space space = classifyGeneric(a[l]);
    d[l] = in.space == Space::Const ? 0 : space == in.space;
  });
}

void nothing(ExecState &, const Instr &, uint32_t) {}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

/// mapa and getctarank (ops: d, a{, rank}).
struct ClusterAddressArgs {
  /// The addresses are generic (else shared::cluster).
  bool generic;
  uint8_t bits;
};

/// The shared::cluster address `a` (generic when `generic`) for lane `l`;
/// false after a finding.
bool clusterAddress(ExecState &s, int l, const ClusterAddressArgs &args,
                    uint64_t a, uint64_t &shared) {
  if (args.generic) {
    if (classifyGeneric(a) != Space::Shared) {
      s.fail(FindingKind::OutOfBounds, l,
             "mapa/getctarank of a generic address outside shared memory");
      return false;
    }
    a = fromGeneric(Space::Shared, a);
  }
  shared = a;
  return true;
}

/// mapa: the address in CTA `rank` of the cluster that corresponds to `a`.
void mapa(ExecState &s, const Instr &in, uint32_t mask) {
  const auto &args = in.payload<ClusterAddressArgs>();
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *rank = s.reg(in.ops[2]);
  uint64_t window = limits::kClusterWindowBytes;
  size_t size = s.block.clusterState().members.size();
  forEachLane(mask, [&](int l) {
    uint64_t shared = 0;
    if (s.failed || !clusterAddress(s, l, args, a[l], shared))
      return;
    uint32_t r = static_cast<uint32_t>(rank[l]);
    if (r >= size) {
      s.fail(FindingKind::OutOfBounds, l,
             "mapa to CTA rank " + std::to_string(r) + " in a cluster of " +
                 std::to_string(size));
      return;
    }
    uint64_t result = (uint64_t(r) + 1) * window + shared % window;
    if (args.generic)
      result = toGeneric(Space::Shared, result);
    d[l] = truncBits(result, args.bits);
  });
}

/// getctarank: the rank of the CTA whose shared memory `a` is in.
void getctarank(ExecState &s, const Instr &in, uint32_t mask) {
  const auto &args = in.payload<ClusterAddressArgs>();
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  uint64_t window = limits::kClusterWindowBytes;
  forEachLane(mask, [&](int l) {
    uint64_t shared = 0;
    if (s.failed || !clusterAddress(s, l, args, a[l], shared))
      return;
    d[l] = shared < window ? s.block.clusterRank : shared / window - 1;
  });
}

class MemoryDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run();

private:
  bool decodeLoadStore(bool isStore);
  bool decodeAtomic(bool isRed);
  bool decodeCpAsync();
};

bool MemoryDecoder::decodeLoadStore(bool isStore) {
  mods.takeIgnorable();
  bool cacheHint = mods.take("L2::cache_hint");
  Space space = Space::Generic;
  mods.takeSpace(space);
  if (mods.take("shared::cluster"))
    return d.fail(".shared::cluster accesses are not supported");
  unsigned n = mods.takeVector();
  std::vector<Ty> types = mods.takeTypes();
  if (types.size() != 1)
    return d.fail("expected one type");
  Ty type = types[0];
  if (type == Ty::Pred || type == Ty::B128)
    return d.fail(std::string("unsupported type .") + typeName(type));
  if (isStore && space == Space::Param && false)
    return false;
  out.space = space;
  out.type = type;
  auto &args = out.setPayload<LoadStoreArgs>();
  args.vectorLength = static_cast<uint8_t>(n);
  size_t expected = cacheHint ? 3 : 2;
  if (!count(expected))
    return false;
  const ptx::Operand &addr = isStore ? ops[0] : ops[1];
  const ptx::Operand &value = isStore ? ops[1] : ops[0];
  uint32_t base = 0;
  if (!d.address(addr, space, base, out.imm))
    return false;
  std::vector<const ptx::Operand *> elements;
  d.vectorElements(value, elements);
  if (elements.size() != n)
    return d.fail("expected a vector of " + std::to_string(n) + " registers");
  std::vector<uint32_t> slots;
  Ty valueType = type == Ty::F16x2 || type == Ty::BF16x2 ? Ty::B32 : type;
  if (isStore) {
    slots.push_back(base);
    for (const ptx::Operand *e : elements) {
      uint32_t slot = 0;
      if (!d.source(*e, valueType, slot))
        return false;
      slots.push_back(slot);
    }
    d.setOperands(out, slots);
    out.exec = &store;
    return true;
  }
  unsigned regBits = 0;
  for (const ptx::Operand *e : elements) {
    uint32_t slot = 0;
    if (!d.dest(*e, slot))
      return false;
    slots.push_back(slot);
    regBits = std::max(regBits, d.registerWidth(*e));
  }
  slots.push_back(base);
  d.setOperands(out, slots);
  args.regBits = static_cast<uint8_t>(regBits ? regBits : 64);
  args.isSigned = isSignedInt(type);
  out.exec = &load;
  return true;
}

bool MemoryDecoder::decodeAtomic(bool isRed) {
  mods.takeIgnorable();
  bool cacheHint = mods.take("L2::cache_hint");
  mods.take("noftz");
  Space space = Space::Generic;
  mods.takeSpace(space);
  if (space != Space::Generic && space != Space::Global &&
      space != Space::Shared)
    return d.fail("atomics act on global or shared memory");
  int op = mods.takeOneOf(
      {"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"});
  if (op < 0)
    return d.fail("missing or unsupported atomic operation");
  if (mods.takeVector() != 1)
    return d.fail("vector atomics are not supported");
  std::vector<Ty> types = mods.takeTypes();
  if (types.size() != 1)
    return d.fail("expected one type");
  Ty type = types[0];
  bool floating = isFloatType(type);
  if (floating && op != AAdd && !(op == AExch) &&
      !(type == Ty::F16 || type == Ty::BF16 || type == Ty::F16x2 ||
        type == Ty::BF16x2))
    return d.fail("unsupported floating-point atomic");
  if (bitWidth(type) < 16 || type == Ty::B128)
    return d.fail("unsupported atomic type");
  out.space = space;
  out.type = type;
  auto &args = out.setPayload<AtomicArgs>();
  args.op = static_cast<AtomOp>(op);
  args.isRed = isRed;
  args.packedPair = type == Ty::F16x2 || type == Ty::BF16x2;
  size_t values = op == ACas ? 2 : 1;
  size_t expected = (isRed ? 1 : 2) + values + (cacheHint ? 1 : 0);
  if (!count(expected))
    return false;
  std::vector<uint32_t> slots;
  size_t i = 0;
  if (!isRed) {
    uint32_t dst = 0;
    if (!d.dest(ops[i++], dst))
      return false;
    slots.push_back(dst);
  }
  uint32_t base = 0;
  if (!d.address(ops[i++], space, base, out.imm))
    return false;
  slots.push_back(base);
  Ty valueType = args.packedPair ? Ty::B32 : type;
  for (size_t v = 0; v < values; ++v) {
    uint32_t slot = 0;
    if (!d.source(ops[i++], valueType, slot))
      return false;
    slots.push_back(slot);
  }
  d.setOperands(out, slots);
  out.exec = &atomic;
  return true;
}

bool MemoryDecoder::decodeCpAsync() {
  bool reduce = mods.take("reduce");
  if (!mods.take("async"))
    return d.fail("unsupported cp variant (cp.async, cp.async.bulk and "
                  "cp.reduce.async.bulk are)");
  if (mods.take("bulk"))
    return decodeBulkCopy(d, instr, mods, out);
  if (reduce)
    return d.fail("expected cp.reduce.async.bulk");
  if (mods.take("commit_group")) {
    if (!ops.empty())
      return d.fail("cp.async.commit_group takes no operands");
    out.exec = &cpAsyncCommit;
    return true;
  }
  if (mods.take("wait_group")) {
    if (!count(1) || ops[0].kind != ptx::Operand::Integer)
      return d.fail("cp.async.wait_group takes an integer");
    out.imm = static_cast<int64_t>(ops[0].bits);
    out.setPayload<CpAsyncWaitArgs>().waitAll = false;
    out.exec = &cpAsyncWait;
    return true;
  }
  if (mods.take("wait_all")) {
    if (!ops.empty())
      return d.fail("cp.async.wait_all takes no operands");
    out.setPayload<CpAsyncWaitArgs>().waitAll = true;
    out.exec = &cpAsyncWait;
    return true;
  }
  if (mods.take("mbarrier"))
    return decodeCpAsyncMbarrier(d, instr, mods, out);
  int cache = mods.takeOneOf({"ca", "cg"});
  if (cache < 0)
    return d.fail("cp.async needs .ca or .cg");
  Space dstSpace = Space::Generic;
  if (!mods.take("shared") && !mods.take("shared::cta"))
    return d.fail("cp.async copies to .shared");
  dstSpace = Space::Shared;
  if (!mods.take("global"))
    return d.fail("cp.async copies from .global");
  bool cacheHint = mods.take("L2::cache_hint");
  mods.takeOneOf({"L2::64B", "L2::128B", "L2::256B"});
  if (ops.size() < 3)
    return d.fail("cp.async needs [dst], [src], cp-size");
  if (ops[2].kind != ptx::Operand::Integer ||
      (ops[2].bits != 4 && ops[2].bits != 8 && ops[2].bits != 16))
    return d.fail("cp-size must be 4, 8 or 16");
  if (cache == 1 && ops[2].bits != 16)
    return d.fail("cp.async.cg copies 16 bytes");
  auto &args = out.setPayload<CpAsyncArgs>();
  args.cpSize = static_cast<uint8_t>(ops[2].bits);
  out.space = dstSpace;
  uint32_t dstBase = 0, srcBase = 0;
  int64_t srcOffset = 0;
  if (!d.address(ops[0], dstSpace, dstBase, out.imm) ||
      !d.address(ops[1], Space::Global, srcBase, srcOffset))
    return false;
  uint32_t srcSize = kSlotSink, ignore = kSlotSink;
  size_t next = 3;
  size_t limit = ops.size() - (cacheHint ? 1 : 0);
  if (next < limit) {
    // src-size (an integer) or ignore-src (a predicate).
    const ptx::Operand &extra = ops[next++];
    bool isPredicate =
        extra.kind == ptx::Operand::Register && d.registerWidth(extra) == 1;
    if (isPredicate) {
      bool negated = false;
      if (!d.predicate(extra, ignore, negated))
        return false;
      // ignore-src when the predicate is true (!negated: ignore when the
      // register is 1; negated: when it is 0).
      args.ignoreSrcNegated = negated;
    } else if (!d.source(extra, Ty::U32, srcSize)) {
      return false;
    }
  }
  if (next != limit)
    return d.fail("unexpected cp.async operands");
  d.setOperands(out, {dstBase, srcBase, srcSize, ignore,
                      d.constant(static_cast<uint64_t>(srcOffset))});
  out.exec = &cpAsync;
  return true;
}

bool MemoryDecoder::run() {
  switch (out.opcode) {
  case Opcode::Ld:
  case Opcode::Ldu:
    return decodeLoadStore(false);
  case Opcode::St:
    return decodeLoadStore(true);
  case Opcode::Atom:
    return decodeAtomic(false);
  case Opcode::Red:
    return decodeAtomic(true);
  case Opcode::Cp:
    return decodeCpAsync();
  case Opcode::Cvta: {
    bool to = mods.take("to");
    Space space = Space::Generic;
    if (!mods.takeSpace(space))
      return d.fail("cvta needs a state space");
    std::vector<Ty> types = mods.takeTypes();
    if (types.size() != 1 || (types[0] != Ty::U32 && types[0] != Ty::U64))
      return d.fail("cvta takes .u32 or .u64");
    out.space = space;
    auto &args = out.setPayload<CvtaArgs>();
    args.toGeneric = !to;
    args.bits = static_cast<uint8_t>(bitWidth(types[0]));
    if (!count(2))
      return false;
    uint32_t dst = 0, src = 0;
    if (!d.dest(ops[0], dst) || !d.source(ops[1], types[0], src))
      return false;
    d.setOperands(out, {dst, src});
    out.exec = &cvta;
    return true;
  }
  case Opcode::Tensormap:
    return decodeTensormap(d, instr, mods, out);
  case Opcode::Mapa:
  case Opcode::Getctarank: {
    bool isMapa = out.opcode == Opcode::Mapa;
    if (d.arch() < 90)
      return d.fail(std::string(isMapa ? "mapa" : "getctarank") +
                    " needs sm_90");
    auto &args = out.setPayload<ClusterAddressArgs>();
    args.generic = !mods.take("shared::cluster");
    std::vector<Ty> types = mods.takeTypes();
    if (types.size() != 1 || (types[0] != Ty::U32 && types[0] != Ty::U64))
      return d.fail("expected .u32 or .u64");
    args.bits = static_cast<uint8_t>(bitWidth(types[0]));
    if (!count(isMapa ? 3 : 2))
      return false;
    uint32_t dst = 0, a = 0, rank = kSlotZero;
    if (!d.dest(ops[0], dst) || !d.source(ops[1], types[0], a) ||
        (isMapa && !d.source(ops[2], Ty::U32, rank)))
      return false;
    d.setOperands(out, {dst, a, rank});
    out.exec = isMapa ? &mapa : &getctarank;
    return true;
  }
  case Opcode::Isspacep: {
    Space space = Space::Generic;
    if (!mods.takeSpace(space))
      return d.fail("isspacep needs a state space");
    if (!count(2))
      return false;
    uint32_t dst = 0, src = 0;
    if (!d.dest(ops[0], dst) || !d.source(ops[1], Ty::U64, src))
      return false;
    out.space = space;
    d.setOperands(out, {dst, src});
    out.exec = &isspacep;
    return true;
  }
  case Opcode::Prefetch:
  case Opcode::Prefetchu:
  case Opcode::Applypriority:
  case Opcode::Discard: {
    // Hints: no effect on what the kernel computes. (discard makes a cache
    // line's contents undefined; the simulator keeps them.)
    Space space = Space::Generic;
    mods.takeSpace(space);
    mods.takeOneOf(
        {"L1", "L2", "L2::evict_last", "L2::evict_normal", "tensormap"});
    mods.takeIgnorable();
    if (ops.empty())
      return d.fail("expected an address");
    uint32_t slot = 0;
    int64_t offset = 0;
    if (!d.address(ops[0], space, slot, offset))
      return false;
    out.exec = &nothing;
    return true;
  }
  default:
    break;
  }
  return d.fail("internal error: not a memory opcode");
}

} // namespace

uint64_t gmm::sim::atomicApply(uint8_t *p, AtomOp op, Ty type, uint64_t b,
                               uint64_t c) {
  unsigned width = byteWidth(type);
  switch (width) {
  case 2: {
    auto *q = reinterpret_cast<uint16_t *>(p);
    uint16_t old = __atomic_load_n(q, __ATOMIC_RELAXED), next;
    do {
      next = static_cast<uint16_t>(atomicResult(op, type, old, b, c));
    } while (!__atomic_compare_exchange_n(q, &old, next, false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
  }
  case 4: {
    auto *q = reinterpret_cast<uint32_t *>(p);
    uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED), next;
    do {
      next = static_cast<uint32_t>(atomicResult(op, type, old, b, c));
    } while (!__atomic_compare_exchange_n(q, &old, next, false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
  }
  default: {
    auto *q = reinterpret_cast<uint64_t *>(p);
    uint64_t old = __atomic_load_n(q, __ATOMIC_RELAXED), next;
    do {
      next = atomicResult(op, type, old, b, c);
    } while (!__atomic_compare_exchange_n(q, &old, next, false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
  }
  }
}

void gmm::sim::landAsyncCopiesOf(ExecState &s, int lane, uint32_t limit) {
  uint32_t limits[32] = {};
  limits[lane] = limit;
  landCopies(s, 1u << lane, limits);
}

bool gmm::sim::decodeMemory(Decoder &decoder, const ptx::Instruction &instr,
                            Modifiers &mods, Instr &out) {
  MemoryDecoder memory(decoder, instr, mods, out);
  return memory.run();
}
