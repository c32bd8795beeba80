//===- Arithmetic.cpp - Integer, floating-point, compare, mov, cvt -------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The ALU instructions of the PTX ISA (sections "Integer Arithmetic",
// "Floating-Point", "Half Precision", "Comparison and Selection", "Logic and
// Shift", "Data Movement and Conversion": mov and cvt). Each handler is a
// loop over the lanes of its mask on slot-major registers; the decoder
// picks a handler specialized for the instruction's type. Results of an
// n-bit type are stored zero-extended in the 64-bit register slots.
//
//===----------------------------------------------------------------------===//

#include "Exec.h"
#include "PTXSyntax.h"

#include <cmath>
#include <limits>
#include <type_traits>

using namespace gmm::sim;

namespace {

//===----------------------------------------------------------------------===//
// Value access
//===----------------------------------------------------------------------===//

template <typename T> inline T rd(uint64_t v) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(v));
}
template <typename T> inline uint64_t wr(T v) {
  using U = std::make_unsigned_t<T>;
  return static_cast<uint64_t>(static_cast<U>(v));
}
inline float f32(uint64_t v) { return bitsAs<float>(v & 0xffffffffu); }
inline double f64(uint64_t v) { return bitsAs<double>(v); }
inline uint64_t bitsF32(float v) { return asBits(v) & 0xffffffffu; }
inline uint64_t bitsF64(double v) { return asBits(v); }

constexpr uint32_t kCanonicalNaN32 = 0x7fffffffu;

inline float canonical(float v) {
  return v != v ? bitsAs<float>(uint64_t(kCanonicalNaN32)) : v;
}
inline float saturate01(float v) {
  if (!(v > 0.0f)) // NaN and negatives
    return 0.0f;
  return v > 1.0f ? 1.0f : v;
}
inline double saturate01(double v) {
  if (!(v > 0.0))
    return 0.0;
  return v > 1.0 ? 1.0 : v;
}
/// Rounds to an integral value: .rzi, .rmi, .rpi, else to nearest even.
inline double roundToIntegral(double v, Round round) {
  switch (round) {
  case Round::RZ:
    return std::trunc(v);
  case Round::RM:
    return std::floor(v);
  case Round::RP:
    return std::ceil(v);
  default:
    return std::nearbyint(v);
  }
}

//===----------------------------------------------------------------------===//
// Integer operations
//===----------------------------------------------------------------------===//

template <typename T> using U = std::make_unsigned_t<T>;

struct OpAdd {
  template <typename T> static T f(T a, T b) { return T(U<T>(a) + U<T>(b)); }
};
struct OpSub {
  template <typename T> static T f(T a, T b) { return T(U<T>(a) - U<T>(b)); }
};
struct OpMulLo {
  template <typename T> static T f(T a, T b) { return T(U<T>(a) * U<T>(b)); }
};
struct OpMulHi {
  template <typename T> static T f(T a, T b) {
    constexpr int bits = sizeof(T) * 8;
    if constexpr (bits == 64) {
      using W =
          std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return T(
          static_cast<U<T>>(static_cast<unsigned __int128>(W(a) * W(b)) >> 64));
    } else {
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      return T(static_cast<U<T>>(static_cast<uint64_t>(W(a) * W(b)) >> bits));
    }
  }
};
struct OpMin {
  template <typename T> static T f(T a, T b) { return a < b ? a : b; }
};
struct OpMax {
  template <typename T> static T f(T a, T b) { return a > b ? a : b; }
};
struct OpDiv {
  template <typename T> static T f(T a, T b) {
    // Division by zero is undefined in PTX; the simulator gives all ones.
    if (b == 0)
      return T(~U<T>(0));
    if constexpr (std::is_signed_v<T>)
      if (a == std::numeric_limits<T>::min() && b == T(-1))
        return a;
    return a / b;
  }
};
struct OpRem {
  template <typename T> static T f(T a, T b) {
    if (b == 0)
      return a;
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1))
        return 0;
    return a % b;
  }
};
struct OpAnd {
  template <typename T> static T f(T a, T b) { return a & b; }
};
struct OpOr {
  template <typename T> static T f(T a, T b) { return a | b; }
};
struct OpXor {
  template <typename T> static T f(T a, T b) { return a ^ b; }
};
/// Shifts take a 32-bit unsigned amount; amounts past the width clamp.
struct OpShl {
  template <typename T> static T f(T a, uint64_t n) {
    constexpr unsigned bits = sizeof(T) * 8;
    uint32_t amount = static_cast<uint32_t>(n);
    return amount >= bits ? T(0) : T(U<T>(a) << amount);
  }
};
struct OpShr {
  template <typename T> static T f(T a, uint64_t n) {
    constexpr unsigned bits = sizeof(T) * 8;
    uint32_t amount = static_cast<uint32_t>(n);
    if constexpr (std::is_signed_v<T>)
      return amount >= bits ? T(a < 0 ? -1 : 0) : T(a >> amount);
    else
      return amount >= bits ? T(0) : T(a >> amount);
  }
};

template <typename T, typename Op>
void intBinary(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  forEachLane(mask, [&](int l) {
    d[l] = wr<T>(Op::template f<T>(rd<T>(a[l]), rd<T>(b[l])));
  });
}

template <typename T, typename Op>
void intShift(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  forEachLane(
      mask, [&](int l) { d[l] = wr<T>(Op::template f<T>(rd<T>(a[l]), b[l])); });
}

/// add/sub.sat.s32.
template <bool Sub>
void addSat32(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  forEachLane(mask, [&](int l) {
    int64_t x = rd<int32_t>(a[l]), y = rd<int32_t>(b[l]);
    int64_t r = Sub ? x - y : x + y;
    r = std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
    d[l] = wr<int32_t>(static_cast<int32_t>(r));
  });
}

/// add.cc, addc, sub.cc, subc.
struct CarryArgs {
  /// Adds the carry flag in (addc, subc).
  bool readCarry;
  /// Sets the carry flag (.cc).
  bool writeCarry;
};

/// add.cc, addc, sub.cc, subc.
template <typename T, bool Sub>
void addCarry(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  uint64_t *cc = s.reg(kSlotCarry);
  const auto &args = in.payload<CarryArgs>();
  bool readCarry = args.readCarry, writeCarry = args.writeCarry;
  forEachLane(mask, [&](int l) {
    using UT = U<T>;
    UT x = rd<UT>(a[l]), y = rd<UT>(b[l]);
    UT carryIn = readCarry ? UT(cc[l] & 1) : UT(0);
    UT result;
    bool carryOut;
    if (Sub) {
      // The carry flag of subtraction is the borrow.
      result = UT(x - y - carryIn);
      carryOut = x < y || (x == y && carryIn);
    } else {
      result = UT(x + y + carryIn);
      carryOut = result < x || (carryIn && result == x);
    }
    d[l] = wr<UT>(result);
    if (writeCarry)
      cc[l] = carryOut;
  });
}

/// mul.wide and mad.wide: T is the narrow source type.
template <typename T, bool Mad>
void mulWide(ExecState &s, const Instr &in, uint32_t mask) {
  using W = std::conditional_t<
      sizeof(T) == 2,
      std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
      std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  const uint64_t *c = Mad ? s.reg(in.ops[3]) : nullptr;
  forEachLane(mask, [&](int l) {
    W product = W(U<W>(W(rd<T>(a[l]))) * U<W>(W(rd<T>(b[l]))));
    if (Mad)
      product = W(U<W>(product) + U<W>(rd<W>(c[l])));
    d[l] = wr<W>(product);
  });
}

/// mad.lo, mad.hi, mad.cc, madc.
struct MadArgs {
  /// .hi: adds the high half of the product (else the low half).
  bool hi;
  /// Adds the carry flag in (madc).
  bool readCarry;
  /// Sets the carry flag (.cc).
  bool writeCarry;
};

/// mad.lo / mad.hi (sat: mad.hi.sat.s32).
template <typename T>
void madLoHi(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  const auto &args = in.payload<MadArgs>();
  bool hi = args.hi;
  bool readCarry = args.readCarry, writeCarry = args.writeCarry;
  uint64_t *cc = s.reg(kSlotCarry);
  forEachLane(mask, [&](int l) {
    T x = rd<T>(a[l]), y = rd<T>(b[l]), z = rd<T>(c[l]);
    T product = hi ? OpMulHi::f<T>(x, y) : OpMulLo::f<T>(x, y);
    if (in.sat) {
      // mad.hi.sat.s32: the sum saturates.
      int64_t sum = int64_t(product) + int64_t(z);
      sum = std::min<int64_t>(std::max<int64_t>(sum, INT32_MIN), INT32_MAX);
      d[l] = wr<int32_t>(static_cast<int32_t>(sum));
      return;
    }
    U<T> p = U<T>(product), q = U<T>(z);
    U<T> carryIn = readCarry ? U<T>(cc[l] & 1) : U<T>(0);
    U<T> result = U<T>(p + q + carryIn);
    if (writeCarry)
      cc[l] = result < p || (carryIn && result == p);
    d[l] = wr<U<T>>(result);
  });
}

/// mul24, mad24.
struct Mul24Args {
  /// .hi: bits 16..47 of the 48-bit product (else .lo, bits 0..31).
  bool hi;
};

/// mul24 / mad24.
template <bool Signed, bool Mad>
void mul24(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  const uint64_t *c = Mad ? s.reg(in.ops[3]) : nullptr;
  bool hi = in.payload<Mul24Args>().hi;
  forEachLane(mask, [&](int l) {
    int64_t x, y;
    if (Signed) {
      x = static_cast<int32_t>(static_cast<uint32_t>(a[l]) << 8) >> 8;
      y = static_cast<int32_t>(static_cast<uint32_t>(b[l]) << 8) >> 8;
    } else {
      x = a[l] & 0xffffff;
      y = b[l] & 0xffffff;
    }
    uint64_t product = static_cast<uint64_t>(x * y);
    uint32_t result = hi ? static_cast<uint32_t>(product >> 16)
                         : static_cast<uint32_t>(product);
    if (Mad)
      result += static_cast<uint32_t>(c[l]);
    d[l] = result;
  });
}

template <typename T> void sad(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  forEachLane(mask, [&](int l) {
    T x = rd<T>(a[l]), y = rd<T>(b[l]);
    U<T> diff = x > y ? U<T>(U<T>(x) - U<T>(y)) : U<T>(U<T>(y) - U<T>(x));
    d[l] = wr<U<T>>(U<T>(diff + U<T>(rd<T>(c[l]))));
  });
}

template <typename T> void intAbs(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  forEachLane(m, [&](int l) {
    T x = rd<T>(a[l]);
    d[l] = wr<T>(x < 0 ? T(U<T>(0) - U<T>(x)) : x);
  });
}
template <typename T> void intNeg(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  forEachLane(m, [&](int l) { d[l] = wr<T>(T(U<T>(0) - U<T>(rd<T>(a[l])))); });
}
template <typename T> void intNot(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  forEachLane(m, [&](int l) { d[l] = wr<T>(T(~rd<T>(a[l]))); });
}
void predNot(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  forEachLane(m, [&](int l) { d[l] = !(a[l] & 1); });
}
template <typename T> void intCnot(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  forEachLane(m, [&](int l) { d[l] = rd<T>(a[l]) == 0 ? 1 : 0; });
}

template <typename T> void popc(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  forEachLane(m, [&](int l) {
    d[l] = static_cast<uint32_t>(__builtin_popcountll(rd<T>(a[l])));
  });
}
template <typename T> void clz(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  constexpr unsigned bits = sizeof(T) * 8;
  forEachLane(m, [&](int l) {
    uint64_t x = rd<T>(a[l]);
    d[l] = x == 0 ? bits : __builtin_clzll(x) - (64 - bits);
  });
}
/// bfind.
struct BfindArgs {
  /// .shiftamt: the shift that brings the found bit to the top.
  bool shiftAmount;
};

/// bfind.
template <typename T> void bfind(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  constexpr int bits = sizeof(T) * 8;
  bool shiftAmount = in.payload<BfindArgs>().shiftAmount;
  forEachLane(m, [&](int l) {
    T x = rd<T>(a[l]);
    uint64_t v = U<T>(x);
    if (std::is_signed_v<T> && x < 0)
      v = U<T>(~U<T>(x)); // the most significant non-sign bit
    if (v == 0) {
      d[l] = 0xffffffffu;
      return;
    }
    int position = 63 - __builtin_clzll(v);
    d[l] = shiftAmount ? static_cast<uint32_t>(bits - 1 - position)
                       : static_cast<uint32_t>(position);
  });
}
template <typename T> void brev(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  constexpr int bits = sizeof(T) * 8;
  forEachLane(m, [&](int l) {
    uint64_t x = rd<U<T>>(a[l]), r = 0;
    for (int i = 0; i < bits; ++i)
      r |= ((x >> i) & 1) << (bits - 1 - i);
    d[l] = r;
  });
}
template <typename T> void bfe(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  constexpr unsigned msb = sizeof(T) * 8 - 1;
  forEachLane(m, [&](int l) {
    uint64_t x = rd<U<T>>(a[l]);
    unsigned pos = b[l] & 0xff, len = c[l] & 0xff;
    if (len == 0) {
      d[l] = 0;
      return;
    }
    uint64_t sbit = 0;
    if (std::is_signed_v<T>)
      sbit = (x >> std::min(pos + len - 1, msb)) & 1;
    uint64_t r = 0;
    for (unsigned i = 0; i <= msb; ++i) {
      uint64_t bit = (i < len && pos + i <= msb) ? (x >> (pos + i)) & 1 : sbit;
      r |= bit << i;
    }
    d[l] = r;
  });
}
template <typename T> void bfi(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]), *e = s.reg(in.ops[4]);
  constexpr unsigned msb = sizeof(T) * 8 - 1;
  forEachLane(m, [&](int l) {
    uint64_t field = a[l], r = rd<U<T>>(b[l]);
    unsigned pos = c[l] & 0xff, len = e[l] & 0xff;
    for (unsigned i = 0; i < len && pos + i <= msb; ++i) {
      uint64_t bit = (field >> i) & 1;
      r = (r & ~(uint64_t(1) << (pos + i))) | (bit << (pos + i));
    }
    d[l] = r;
  });
}
/// prmt.
struct PrmtArgs {
  /// 0 default, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16.
  uint8_t mode;
};

/// prmt.
void prmt(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  uint8_t mode = in.payload<PrmtArgs>().mode;
  forEachLane(m, [&](int l) {
    uint64_t bytes = (a[l] & 0xffffffffu) | ((b[l] & 0xffffffffu) << 32);
    auto byteAt = [&](unsigned i) { return (bytes >> (8 * (i & 7))) & 0xff; };
    uint32_t sel = static_cast<uint32_t>(c[l]);
    uint32_t r = 0;
    unsigned s0 = sel & 3;
    for (unsigned i = 0; i < 4; ++i) {
      uint64_t byte = 0;
      switch (mode) {
      case 0: {
        unsigned nibble = (sel >> (4 * i)) & 0xf;
        byte = byteAt(nibble & 7);
        if (nibble & 8)
          byte = (byte & 0x80) ? 0xff : 0;
        break;
      }
      case 1: // f4e: forward 4 extract
        byte = byteAt(s0 + i);
        break;
      case 2: // b4e: backward 4 extract
        byte = byteAt(s0 + 8 - i);
        break;
      case 3: // rc8: replicate 8
        byte = byteAt(s0);
        break;
      case 4: { // ecl: edge clamp left
        static const unsigned t[4][4] = {
            {0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}};
        byte = byteAt(t[s0][i]);
        break;
      }
      case 5: { // ecr: edge clamp right
        static const unsigned t[4][4] = {
            {0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
        byte = byteAt(t[s0][i]);
        break;
      }
      case 6: // rc16: replicate 16
        byte = byteAt((s0 & 1) * 2 + (i & 1));
        break;
      }
      r |= static_cast<uint32_t>(byte) << (8 * i);
    }
    d[l] = r;
  });
}
void lop3(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]), *lut = s.reg(in.ops[4]);
  forEachLane(m, [&](int l) {
    uint32_t x = static_cast<uint32_t>(a[l]), y = static_cast<uint32_t>(b[l]),
             z = static_cast<uint32_t>(c[l]);
    uint32_t table = static_cast<uint32_t>(lut[l]) & 0xff, r = 0;
    for (int bit = 0; bit < 32; ++bit) {
      unsigned index =
          (((x >> bit) & 1) << 2) | (((y >> bit) & 1) << 1) | ((z >> bit) & 1);
      r |= ((table >> index) & 1) << bit;
    }
    d[l] = r;
  });
}
/// shf.
struct ShfArgs {
  /// shf.l (else shf.r).
  bool left;
  /// .clamp: amounts past 32 clamp to 32 (else .wrap, modulo 32).
  bool clamp;
};

/// shf.{l,r}.{wrap,clamp}.
void shf(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  const auto &args = in.payload<ShfArgs>();
  bool left = args.left, clamp = args.clamp;
  forEachLane(m, [&](int l) {
    uint64_t both = (a[l] & 0xffffffffu) | ((b[l] & 0xffffffffu) << 32);
    uint32_t n = static_cast<uint32_t>(c[l]);
    n = clamp ? std::min<uint32_t>(n, 32) : (n & 31);
    uint32_t r = left ? static_cast<uint32_t>((both << n) >> 32)
                      : static_cast<uint32_t>(both >> n);
    d[l] = r;
  });
}
/// bmsk, szext.
struct ClampArgs {
  /// .clamp: positions and widths past 32 clamp to 32 (else .wrap, modulo
  /// 32).
  bool clamp;
};

/// bmsk.{clamp,wrap}.b32 d, a (position), b (width).
void bmsk(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  bool clamp = in.payload<ClampArgs>().clamp;
  forEachLane(m, [&](int l) {
    uint32_t pos = static_cast<uint32_t>(a[l]),
             width = static_cast<uint32_t>(b[l]);
    if (clamp) {
      pos = std::min<uint32_t>(pos, 32);
      width = std::min<uint32_t>(width, 32);
    } else {
      pos &= 31;
      width &= 31;
    }
    uint64_t mask = width >= 32 ? 0xffffffffull : ((uint64_t(1) << width) - 1);
    d[l] = static_cast<uint32_t>(pos >= 32 ? 0 : (mask << pos));
  });
}
/// szext.{clamp,wrap}.{u32,s32} d, a, b (width).
template <bool Signed> void szext(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  bool clamp = in.payload<ClampArgs>().clamp;
  forEachLane(m, [&](int l) {
    uint32_t x = static_cast<uint32_t>(a[l]);
    uint32_t width = static_cast<uint32_t>(b[l]);
    width = clamp ? std::min<uint32_t>(width, 32) : (width & 31);
    if (width == 32 || (width == 0 && !clamp && false)) {
      d[l] = x;
      return;
    }
    if (width == 0) {
      d[l] = 0;
      return;
    }
    uint32_t low = x & ((1u << width) - 1);
    if (Signed && (low >> (width - 1)) & 1)
      low |= ~((1u << width) - 1);
    d[l] = low;
  });
}
/// dp4a, dp2a.
struct DotArgs {
  /// The first type is .s32: a's elements are signed.
  bool aSigned;
  /// The second type is .s32: b's bytes are signed.
  bool bSigned;
  /// dp2a.hi: b's upper two bytes (else .lo, the lower two).
  bool hiHalf;
  /// dp2a (else dp4a).
  bool dp2a;
};

/// dp4a/dp2a.
void dotBytes(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  const auto &args = in.payload<DotArgs>();
  bool aSigned = args.aSigned, bSigned = args.bSigned, hiHalf = args.hiHalf,
       dp2a = args.dp2a;
  forEachLane(mask, [&](int l) {
    uint32_t x = static_cast<uint32_t>(a[l]), y = static_cast<uint32_t>(b[l]);
    int64_t sum = static_cast<int32_t>(static_cast<uint32_t>(c[l]));
    if (!bSigned && !aSigned)
      sum = static_cast<uint32_t>(c[l]);
    if (dp2a) {
      // dp2a: two 16-bit halves of a against two bytes of b.
      for (int i = 0; i < 2; ++i) {
        int64_t ha = aSigned ? static_cast<int16_t>(x >> (16 * i))
                             : static_cast<uint16_t>(x >> (16 * i));
        unsigned byte = (hiHalf ? 2 : 0) + i;
        int64_t hb = bSigned ? static_cast<int8_t>(y >> (8 * byte))
                             : static_cast<uint8_t>(y >> (8 * byte));
        sum += ha * hb;
      }
    } else {
      for (int i = 0; i < 4; ++i) {
        int64_t ba = aSigned ? static_cast<int8_t>(x >> (8 * i))
                             : static_cast<uint8_t>(x >> (8 * i));
        int64_t bb = bSigned ? static_cast<int8_t>(y >> (8 * i))
                             : static_cast<uint8_t>(y >> (8 * i));
        sum += ba * bb;
      }
    }
    d[l] = static_cast<uint32_t>(sum);
  });
}

//===----------------------------------------------------------------------===//
// Floating point
//===----------------------------------------------------------------------===//

enum FloatOp : uint8_t {
  FAdd,
  FSub,
  FMul,
  FFma,
  FDiv,
  FRcp,
  FSqrt,
  FRsqrt,
  FSin,
  FCos,
  FLg2,
  FEx2,
  FTanh,
  FAbs,
  FNeg,
  FMin,
  FMax,
  FCopysign,
};

/// f32 and f64 arithmetic (f32Directed, f64Arith).
struct FloatArgs {
  /// The operation (FAdd ... FTanh).
  FloatOp op;
};

/// Computes one f32 or f64 operation with round-to-nearest; the
/// approximate ones (rsqrt, sin, cos, lg2, ex2, tanh) in double.
template <typename T> T hostFloatOp(FloatOp op, T x, T y, T z) {
  double wide = x;
  switch (op) {
  case FAdd:
    return x + y;
  case FSub:
    return x - y;
  case FMul:
    return x * y;
  case FFma:
    return std::fma(x, y, z);
  case FDiv:
    return x / y;
  case FRcp:
    return T(1) / x;
  case FSqrt:
    return std::sqrt(x);
  case FRsqrt:
    return static_cast<T>(1.0 / std::sqrt(wide));
  case FSin:
    return static_cast<T>(std::sin(wide));
  case FCos:
    return static_cast<T>(std::cos(wide));
  case FLg2:
    return static_cast<T>(std::log2(wide));
  case FEx2:
    return static_cast<T>(std::exp2(wide));
  case FTanh:
    return static_cast<T>(std::tanh(wide));
  default:
    return 0;
  }
}

/// f32 arithmetic, round to nearest, specialized on the operation, .ftz
/// and .sat.
template <FloatOp Op, bool Ftz, bool Sat>
void f32Arith(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  const uint64_t *b = in.numOps > 2 ? s.reg(in.ops[2]) : a;
  const uint64_t *c = in.numOps > 3 ? s.reg(in.ops[3]) : a;
  forEachLane(mask, [&](int l) {
    float x = f32(a[l]), y = f32(b[l]), z = f32(c[l]);
    if (Ftz) {
      x = flushSubnormal(x);
      y = flushSubnormal(y);
      z = flushSubnormal(z);
    }
    float r = hostFloatOp<float>(Op, x, y, z);
    if (Ftz)
      r = flushSubnormal(r);
    if (Sat)
      r = saturate01(r);
    d[l] = bitsF32(canonical(r));
  });
}

/// f32 arithmetic with a directed rounding mode (in.round).
void f32Directed(ExecState &s, const Instr &in, uint32_t mask) {
  static const int kOps[] = {kOpAdd, kOpSub, kOpMul, kOpFma,
                             kOpDiv, kOpRcp, kOpSqrt};
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  const uint64_t *b = in.numOps > 2 ? s.reg(in.ops[2]) : a;
  const uint64_t *c = in.numOps > 3 ? s.reg(in.ops[3]) : a;
  int op = kOps[in.payload<FloatArgs>().op];
  forEachLane(mask, [&](int l) {
    float x = f32(a[l]), y = f32(b[l]), z = f32(c[l]);
    if (in.ftz) {
      x = flushSubnormal(x);
      y = flushSubnormal(y);
      z = flushSubnormal(z);
    }
    float r = roundedF32(op, x, y, z, in.round);
    if (in.ftz)
      r = flushSubnormal(r);
    if (in.sat)
      r = saturate01(r);
    d[l] = bitsF32(canonical(r));
  });
}

/// f64 arithmetic; directed rounding through the host FPU.
void f64Arith(ExecState &s, const Instr &in, uint32_t mask) {
  static const int kOps[] = {kOpAdd, kOpSub, kOpMul, kOpFma,
                             kOpDiv, kOpRcp, kOpSqrt};
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  const uint64_t *b = in.numOps > 2 ? s.reg(in.ops[2]) : a;
  const uint64_t *c = in.numOps > 3 ? s.reg(in.ops[3]) : a;
  FloatOp op = in.payload<FloatArgs>().op;
  bool directed =
      in.round == Round::RZ || in.round == Round::RM || in.round == Round::RP;
  forEachLane(mask, [&](int l) {
    double x = f64(a[l]), y = f64(b[l]), z = f64(c[l]);
    double r = directed && op <= FSqrt ? roundedF64(kOps[op], x, y, z, in.round)
                                       : hostFloatOp<double>(op, x, y, z);
    if (in.sat)
      r = saturate01(r);
    d[l] = bitsF64(r);
  });
}

/// 16-bit floats: unpack, compute in float/double, round back.
inline float load16(uint64_t bits, bool bf) {
  return bf ? bf16ToFloat(static_cast<uint16_t>(bits))
            : halfToFloat(static_cast<uint16_t>(bits));
}
inline uint16_t store16(double value, bool bf) {
  return bf ? doubleToBF16(value, Round::RN) : doubleToHalf(value, Round::RN);
}

/// f16, f16x2, bf16, bf16x2 arithmetic (f16Arith).
struct Float16Args {
  /// The operation (FAdd ... FTanh).
  FloatOp op;
  /// bf16 or bf16x2 (else f16 or f16x2).
  bool bf16;
  /// f16x2 or bf16x2: a packed pair.
  bool pair;
  /// fma.relu: negative results become +0.
  bool relu;
};

void f16Arith(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  const uint64_t *b = in.numOps > 2 ? s.reg(in.ops[2]) : a;
  const uint64_t *c = in.numOps > 3 ? s.reg(in.ops[3]) : a;
  const auto &args = in.payload<Float16Args>();
  FloatOp op = args.op;
  bool bf = args.bf16, pair = args.pair, relu = args.relu;
  auto one = [&](uint16_t xa, uint16_t xb, uint16_t xc) -> uint16_t {
    float x = load16(xa, bf), y = load16(xb, bf), z = load16(xc, bf);
    if (in.ftz && !bf) {
      // f16 subnormals flush to zero.
      auto flush = [](float v) {
        return std::fabs(v) < 6.103515625e-05f ? std::copysign(0.0f, v) : v;
      };
      x = flush(x);
      y = flush(y);
      z = flush(z);
    }
    double r;
    switch (op) {
    case FAdd:
      r = static_cast<double>(x) + y;
      break;
    case FSub:
      r = static_cast<double>(x) - y;
      break;
    case FMul:
      r = static_cast<double>(x) * y;
      break;
    case FFma:
      r = fmaRoundToOdd(x, y, z);
      break;
    default:
      r = hostFloatOp<float>(op, x, y, z);
      break;
    }
    if (r != r)
      return 0x7fff;
    if (relu && r < 0)
      r = 0;
    if (in.sat)
      r = saturate01(r);
    uint16_t result = store16(r, bf);
    if (in.ftz && !bf && (result & 0x7c00) == 0)
      result &= 0x8000;
    return result;
  };
  forEachLane(mask, [&](int l) {
    uint64_t lo = one(static_cast<uint16_t>(a[l]), static_cast<uint16_t>(b[l]),
                      static_cast<uint16_t>(c[l]));
    if (!pair) {
      d[l] = lo;
      return;
    }
    uint64_t hi = one(static_cast<uint16_t>(a[l] >> 16),
                      static_cast<uint16_t>(b[l] >> 16),
                      static_cast<uint16_t>(c[l] >> 16));
    d[l] = lo | hi << 16;
  });
}

/// abs, neg of floats.
struct FloatSignArgs {
  /// FAbs or FNeg.
  FloatOp op;
  /// Width of one element in bits: 16, 32 or 64.
  uint8_t elementBits;
  /// f16x2 or bf16x2: a packed pair of 16-bit elements.
  bool pair;
};

/// abs/neg of f32/f64/f16/bf16 (and pairs): sign bit operations. f32 with
/// .ftz flushes.
void floatSign(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  const auto &args = in.payload<FloatSignArgs>();
  bool abs = args.op == FAbs;
  bool is32 = args.elementBits == 32;
  uint64_t signBit = args.elementBits == 16 ? 0x8000
                     : is32                 ? 0x80000000u
                                            : uint64_t(1) << 63;
  if (args.pair)
    signBit |= signBit << 16;
  forEachLane(mask, [&](int l) {
    uint64_t x = a[l];
    if (in.ftz && is32)
      x = bitsF32(flushSubnormal(f32(x)));
    d[l] = abs ? (x & ~signBit) : (x ^ signBit);
    if (is32)
      d[l] &= 0xffffffffu;
  });
}

/// min, max of floats.
struct FloatMinMaxArgs {
  /// FMin or FMax.
  FloatOp op;
  /// The element type: 0 f32, 1 f64, 2 f16, 3 bf16.
  uint8_t kind;
  /// f16x2 or bf16x2: a packed pair.
  bool pair;
  /// .NaN: a NaN operand gives NaN (else the other operand).
  bool propagateNaN;
};

/// min/max of floats.
void floatMinMax(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  const auto &args = in.payload<FloatMinMaxArgs>();
  bool isMin = args.op == FMin, propagateNaN = args.propagateNaN;
  uint8_t kind = args.kind;
  bool pair = args.pair;
  auto pick = [&](double x, double y, bool &nan) {
    nan = false;
    if (x != x || y != y) {
      if (propagateNaN || (x != x && y != y)) {
        nan = true;
        return 0.0;
      }
      return x != x ? y : x;
    }
    if (x == y) // -0 < +0
      return isMin ? (std::signbit(x) ? x : y) : (std::signbit(x) ? y : x);
    return isMin ? std::min(x, y) : std::max(x, y);
  };
  forEachLane(mask, [&](int l) {
    bool nan = false;
    switch (kind) {
    case 0: {
      float x = f32(a[l]), y = f32(b[l]);
      if (in.ftz) {
        x = flushSubnormal(x);
        y = flushSubnormal(y);
      }
      double r = pick(x, y, nan);
      d[l] = nan ? kCanonicalNaN32 : bitsF32(static_cast<float>(r));
      break;
    }
    case 1: {
      double r = pick(f64(a[l]), f64(b[l]), nan);
      d[l] = nan ? 0x7fffffffffffffffull : bitsF64(r);
      break;
    }
    default: {
      bool bf = kind == 3;
      uint64_t result = 0;
      for (int half = 0; half < (pair ? 2 : 1); ++half) {
        uint16_t xa = static_cast<uint16_t>(a[l] >> (16 * half));
        uint16_t xb = static_cast<uint16_t>(b[l] >> (16 * half));
        double r = pick(load16(xa, bf), load16(xb, bf), nan);
        uint16_t bits = nan ? 0x7fff
                        : r == load16(xa, bf) &&
                                std::signbit(r) == std::signbit(load16(xa, bf))
                            ? xa
                            : xb;
        result |= static_cast<uint64_t>(bits) << (16 * half);
      }
      d[l] = result;
      break;
    }
    }
  });
}

/// copysign.
struct CopysignArgs {
  /// .f64 (else .f32).
  bool isF64;
};

/// copysign.f32/f64 d, a, b: b's magnitude with a's sign.
void copysignHandler(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  uint64_t sign =
      in.payload<CopysignArgs>().isF64 ? uint64_t(1) << 63 : 0x80000000u;
  forEachLane(mask, [&](int l) { d[l] = (b[l] & ~sign) | (a[l] & sign); });
}

/// testp.
struct TestpArgs {
  /// 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal, 5 subnormal.
  uint8_t test;
  /// .f64 (else .f32).
  bool isF64;
};

/// testp.
void testp(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  const auto &args = in.payload<TestpArgs>();
  uint8_t test = args.test;
  bool isF64 = args.isF64;
  forEachLane(mask, [&](int l) {
    double x = isF64 ? f64(a[l]) : f32(a[l]);
    int cls = std::fpclassify(isF64 ? x : static_cast<double>(f32(a[l])));
    if (!isF64)
      cls = std::fpclassify(f32(a[l]));
    bool r = false;
    switch (test) {
    case 0:
      r = std::isfinite(x);
      break;
    case 1:
      r = std::isinf(x);
      break;
    case 2:
      r = !std::isnan(x);
      break;
    case 3:
      r = std::isnan(x);
      break;
    case 4:
      r = cls == FP_NORMAL;
      break;
    case 5:
      r = cls == FP_SUBNORMAL;
      break;
    }
    d[l] = r;
  });
}

//===----------------------------------------------------------------------===//
// Comparison and selection
//===----------------------------------------------------------------------===//

enum Cmp : uint8_t {
  CEq,
  CNe,
  CLt,
  CLe,
  CGt,
  CGe,
  CEqu,
  CNeu,
  CLtu,
  CLeu,
  CGtu,
  CGeu,
  CNum,
  CNan,
};
enum BoolOp : uint8_t { BNone, BAnd, BOr, BXor };

/// setp, set (setp<T>, setp16, setHandler<T>).
struct CompareArgs {
  /// The comparison.
  Cmp cmp;
  /// How the result combines with the predicate operand c.
  BoolOp boolOp;
  /// c is negated ({!}c).
  bool negateC;
  /// setp on 16-bit floats: bf16 or bf16x2 (else f16 or f16x2).
  bool bf16;
};

template <typename T> inline bool compareInt(Cmp cmp, T x, T y) {
  switch (cmp) {
  case CEq:
    return x == y;
  case CNe:
    return x != y;
  case CLt:
    return x < y;
  case CLe:
    return x <= y;
  case CGt:
    return x > y;
  case CGe:
    return x >= y;
  default:
    return false;
  }
}
inline bool compareFloat(Cmp cmp, double x, double y) {
  bool unordered = x != x || y != y;
  switch (cmp) {
  case CEq:
    return !unordered && x == y;
  case CNe:
    return !unordered && x != y;
  case CLt:
    return !unordered && x < y;
  case CLe:
    return !unordered && x <= y;
  case CGt:
    return !unordered && x > y;
  case CGe:
    return !unordered && x >= y;
  case CEqu:
    return unordered || x == y;
  case CNeu:
    return unordered || x != y;
  case CLtu:
    return unordered || x < y;
  case CLeu:
    return unordered || x <= y;
  case CGtu:
    return unordered || x > y;
  case CGeu:
    return unordered || x >= y;
  case CNum:
    return !unordered;
  case CNan:
    return unordered;
  }
  return false;
}

/// The comparison `cmp` of one lane (or of the low half of a pair: `half`).
template <typename T>
inline bool compareLane(const Instr &in, Cmp cmp, uint64_t a, uint64_t b,
                        int half) {
  if constexpr (std::is_same_v<T, float>) {
    float x = f32(a), y = f32(b);
    if (in.ftz) {
      x = flushSubnormal(x);
      y = flushSubnormal(y);
    }
    return compareFloat(cmp, x, y);
  } else if constexpr (std::is_same_v<T, double>) {
    return compareFloat(cmp, f64(a), f64(b));
  } else if constexpr (std::is_same_v<T, uint16_t> && sizeof(T) == 2 && false) {
    return false;
  } else {
    return compareInt(cmp, rd<T>(a), rd<T>(b));
  }
}

/// setp for integers and f32/f64: d (p), e (q or sink), a, b, c (bool
/// operand or kSlotZero).
template <typename T> void setp(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *p = s.reg(in.ops[0]), *q = s.reg(in.ops[1]);
  const uint64_t *a = s.reg(in.ops[2]), *b = s.reg(in.ops[3]),
                 *c = s.reg(in.ops[4]);
  const auto &args = in.payload<CompareArgs>();
  Cmp cmp = args.cmp;
  BoolOp op = args.boolOp;
  bool negateC = args.negateC;
  bool writeQ = in.ops[1] != kSlotSink;
  forEachLane(mask, [&](int l) {
    bool r = compareLane<T>(in, cmp, a[l], b[l], 0);
    bool cv = (c[l] & 1) != negateC;
    bool pr = r, qr = !r;
    switch (op) {
    case BNone:
      break;
    case BAnd:
      pr = r && cv;
      qr = !r && cv;
      break;
    case BOr:
      pr = r || cv;
      qr = !r || cv;
      break;
    case BXor:
      pr = r != cv;
      qr = !r != cv;
      break;
    }
    p[l] = pr;
    if (writeQ)
      q[l] = qr;
  });
}

/// setp on 16-bit floats (type: pair or not): p for the low half, q for the
/// high half of a pair (or !p for scalars).
void setp16(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *p = s.reg(in.ops[0]), *q = s.reg(in.ops[1]);
  const uint64_t *a = s.reg(in.ops[2]), *b = s.reg(in.ops[3]),
                 *c = s.reg(in.ops[4]);
  const auto &args = in.payload<CompareArgs>();
  Cmp cmp = args.cmp;
  BoolOp op = args.boolOp;
  bool negateC = args.negateC;
  bool bf = args.bf16, pair = in.type == Ty::F16x2 || in.type == Ty::BF16x2;
  bool writeQ = in.ops[1] != kSlotSink;
  auto combine = [&](bool r, bool cv) {
    switch (op) {
    case BAnd:
      return r && cv;
    case BOr:
      return r || cv;
    case BXor:
      return r != cv;
    default:
      return r;
    }
  };
  forEachLane(mask, [&](int l) {
    bool cv = (c[l] & 1) != negateC;
    bool lo =
        compareFloat(cmp, load16(a[l] & 0xffff, bf), load16(b[l] & 0xffff, bf));
    if (pair) {
      bool hi = compareFloat(cmp, load16((a[l] >> 16) & 0xffff, bf),
                             load16((b[l] >> 16) & 0xffff, bf));
      p[l] = combine(lo, cv);
      if (writeQ)
        q[l] = combine(hi, cv);
    } else {
      p[l] = combine(lo, cv);
      if (writeQ)
        q[l] = combine(!lo, cv);
    }
  });
}

/// set.cmp{.bool}.dtype.stype d, a, b{, c}: all ones (or 1.0f for f32)
/// when true. (type: stype; type2: dtype.)
template <typename T>
void setHandler(ExecState &s, const Instr &in, uint32_t m) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  const auto &args = in.payload<CompareArgs>();
  Cmp cmp = args.cmp;
  BoolOp op = args.boolOp;
  bool negateC = args.negateC;
  bool isFloatResult = in.type2 == Ty::F32;
  forEachLane(m, [&](int l) {
    bool r = compareLane<T>(in, cmp, a[l], b[l], 0);
    bool cv = (c[l] & 1) != negateC;
    if (op == BAnd)
      r = r && cv;
    else if (op == BOr)
      r = r || cv;
    else if (op == BXor)
      r = r != cv;
    d[l] = isFloatResult ? (r ? bitsF32(1.0f) : 0) : (r ? 0xffffffffu : 0);
  });
}

void selp(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  forEachLane(mask, [&](int l) { d[l] = (c[l] & 1) ? a[l] : b[l]; });
}

/// slct.dtype.{s32,f32} d, a, b, c: a when c >= 0.
void slct(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]),
                 *c = s.reg(in.ops[3]);
  bool isFloat = in.type2 == Ty::F32;
  forEachLane(mask, [&](int l) {
    bool take;
    if (isFloat) {
      float v = f32(c[l]);
      if (in.ftz)
        v = flushSubnormal(v);
      take = v >= 0.0f; // NaN selects b
    } else {
      take = rd<int32_t>(c[l]) >= 0;
    }
    d[l] = take ? a[l] : b[l];
  });
}

//===----------------------------------------------------------------------===//
// mov
//===----------------------------------------------------------------------===//

/// mov of a scalar, mov from a clock register.
struct MovArgs {
  /// Width of the moved value in bits (of the instruction's type).
  uint8_t bits;
};

/// mov d, a: keeps the low MovArgs::bits.
void mov(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  unsigned bits = in.payload<MovArgs>().bits;
  if (bits >= 64) {
    forEachLane(mask, [&](int l) { d[l] = a[l]; });
    return;
  }
  uint64_t keep = (uint64_t(1) << bits) - 1;
  forEachLane(mask, [&](int l) { d[l] = a[l] & keep; });
}

/// mov to or from a vector (packing, unpacking).
struct MovVectorArgs {
  /// Width of one element in bits.
  uint8_t elementBits;
};

/// mov d, {a, b, ...}: packs elements (low first).
void movPack(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  unsigned n = in.numOps - 1, bits = in.payload<MovVectorArgs>().elementBits;
  uint64_t keep = bits >= 64 ? ~0ull : (uint64_t(1) << bits) - 1;
  forEachLane(mask, [&](int l) {
    uint64_t r = 0;
    for (unsigned i = 0; i < n; ++i)
      r |= (s.reg(in.ops[1 + i])[l] & keep) << (bits * i);
    d[l] = r;
  });
}

/// mov {a, b, ...}, d: unpacks (ops: elements..., source).
void movUnpack(ExecState &s, const Instr &in, uint32_t mask) {
  unsigned n = in.numOps - 1, bits = in.payload<MovVectorArgs>().elementBits;
  const uint64_t *a = s.reg(in.ops[n]);
  uint64_t keep = bits >= 64 ? ~0ull : (uint64_t(1) << bits) - 1;
  // Read the source first: a destination may be the source register.
  forEachLane(mask, [&](int l) {
    uint64_t v = a[l];
    for (unsigned i = 0; i < n; ++i)
      if (in.ops[i] != kSlotSink)
        s.reg(in.ops[i])[l] = (v >> (bits * i)) & keep;
  });
}

/// mov from %clock / %clock64 / %globaltimer (MovArgs::bits: 32 or 64): a
/// count of executed instructions, monotonic per warp.
void movClock(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  uint64_t value = s.warp->steps * 4 + s.block.steps;
  bool is32 = in.payload<MovArgs>().bits == 32;
  forEachLane(
      mask, [&](int l) { d[l] = is32 ? static_cast<uint32_t>(value) : value; });
}

//===----------------------------------------------------------------------===//
// cvt
//===----------------------------------------------------------------------===//

/// A value read from a register as a floating-point number (for float
/// sources) or an exact integer.
inline double floatValue(uint64_t bits, Ty type) {
  switch (type) {
  case Ty::F16:
    return halfToFloat(static_cast<uint16_t>(bits));
  case Ty::BF16:
    return bf16ToFloat(static_cast<uint16_t>(bits));
  case Ty::F32:
  case Ty::TF32:
    return f32(bits);
  case Ty::F64:
    return f64(bits);
  default:
    return 0;
  }
}

inline bool intValue(uint64_t bits, Ty type, uint64_t &magnitude,
                     bool &negative) {
  unsigned width = bitWidth(type);
  uint64_t v = truncBits(bits, width);
  negative = false;
  if (isSignedInt(type) && width < 64 && (v >> (width - 1)) & 1)
    v |= ~((uint64_t(1) << width) - 1);
  if (isSignedInt(type) && static_cast<int64_t>(v) < 0) {
    negative = true;
    magnitude = 0 - v;
  } else {
    magnitude = v;
  }
  return true;
}

/// Integer range of a destination type.
inline void intRange(Ty type, __int128 &lo, __int128 &hi) {
  unsigned width = bitWidth(type);
  if (isSignedInt(type)) {
    lo = -(static_cast<__int128>(1) << (width - 1));
    hi = (static_cast<__int128>(1) << (width - 1)) - 1;
  } else {
    lo = 0;
    hi = (static_cast<__int128>(1) << width) - 1;
  }
}

/// Stores an integer result of `type` into a register `regBits` wide:
/// narrow types are sign- or zero-extended to the register.
inline uint64_t storeInt(__int128 value, Ty type, unsigned regBits) {
  unsigned width = bitWidth(type);
  uint64_t v = static_cast<uint64_t>(value);
  v = truncBits(v, width);
  if (isSignedInt(type) && width < 64 && (v >> (width - 1)) & 1)
    v |= ~((uint64_t(1) << width) - 1);
  return truncBits(v, std::max(regBits, width));
}

/// cvt of a scalar (cvt).
struct CvtArgs {
  /// A float-to-float conversion with integer rounding (.rni ...).
  bool roundToIntegral;
  /// Width of the destination register in bits (0: 64).
  uint8_t regBits;
  /// .relu: negative results become +0.
  bool relu;
  /// .satfinite: results past the finite range saturate to it.
  bool satfinite;
};

/// cvt d, a (type: destination; type2: source).
void cvt(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]);
  Ty dt = in.type, st = in.type2;
  bool dFloat = isFloatType(dt), sFloat = isFloatType(st);
  const auto &args = in.payload<CvtArgs>();
  bool toIntegral = args.roundToIntegral, relu = args.relu,
       satfinite = args.satfinite;
  unsigned regBits = args.regBits ? args.regBits : 64;
  forEachLane(mask, [&](int l) {
    uint64_t bits = a[l];
    if (sFloat && dFloat) {
      double v = floatValue(bits, st);
      if (in.ftz && st == Ty::F32)
        v = flushSubnormal(static_cast<float>(v));
      // Rounding to an integral value (.rni ...) within the same type.
      if (toIntegral && in.round != Round::None)
        v = roundToIntegral(v, in.round);
      if (relu && v < 0) // .relu
        v = 0;
      if (in.sat)
        v = saturate01(v);
      switch (dt) {
      case Ty::F16:
        d[l] = doubleToHalf(v, in.round == Round::None ? Round::RN : in.round,
                            satfinite);
        break;
      case Ty::BF16:
        d[l] = doubleToBF16(v, in.round == Round::None ? Round::RN : in.round,
                            satfinite);
        break;
      case Ty::TF32:
        d[l] = floatToTF32(static_cast<float>(v), in.round);
        break;
      case Ty::F32: {
        float r = st == Ty::F64
                      ? doubleToFloat(v, in.round == Round::None ? Round::RN
                                         : toIntegral            ? Round::RN
                                                                 : in.round)
                      : static_cast<float>(v);
        if (in.ftz)
          r = flushSubnormal(r);
        d[l] = bitsF32(
            st == Ty::F32 && !in.sat && !toIntegral && !in.ftz ? f32(bits) : r);
        if (r != r)
          d[l] = kCanonicalNaN32;
        break;
      }
      case Ty::F64:
        d[l] = bitsF64(v);
        break;
      default:
        break;
      }
      return;
    }
    if (sFloat) {
      // Float to integer: round, saturate, NaN is 0.
      double v = floatValue(bits, st);
      if (in.ftz && st == Ty::F32)
        v = flushSubnormal(static_cast<float>(v));
      __int128 lo, hi;
      intRange(dt, lo, hi);
      __int128 r;
      if (v != v) {
        // NaN is 0, except from an f64 source or to a 64-bit destination,
        // where it is 1 << (width - 1) (PTX ISA, cvt).
        bool wide = st == Ty::F64 || bitWidth(dt) == 64;
        r = wide ? static_cast<__int128>(uint64_t(1) << (bitWidth(dt) - 1)) : 0;
        if (wide && isSignedInt(dt))
          r = lo;
      } else {
        v = roundToIntegral(v, in.round);
        if (v <= static_cast<double>(lo))
          r = lo;
        else if (v >= static_cast<double>(hi))
          r = hi;
        else
          r = static_cast<__int128>(v);
      }
      d[l] = storeInt(r, dt, regBits);
      return;
    }
    uint64_t magnitude = 0;
    bool negative = false;
    intValue(bits, st, magnitude, negative);
    if (dFloat) {
      switch (dt) {
      case Ty::F64:
        d[l] = bitsF64(integerToFloating(magnitude, negative, true, in.round));
        break;
      case Ty::F32:
        d[l] = bitsF32(static_cast<float>(
            integerToFloating(magnitude, negative, false, in.round)));
        break;
      case Ty::F16:
      case Ty::BF16: {
        // Exact in double below 2^53; above, rounded to odd at 53 bits so
        // that the rounding to 16 bits is still correct.
        uint64_t kept = magnitude;
        int shift = 0;
        int width = magnitude ? 64 - __builtin_clzll(magnitude) : 0;
        if (width > 53) {
          shift = width - 53;
          kept = magnitude >> shift;
          if (magnitude & ((uint64_t(1) << shift) - 1))
            kept |= 1;
        }
        double v = std::ldexp(static_cast<double>(kept), shift);
        if (negative)
          v = -v;
        Round r = in.round == Round::None ? Round::RN : in.round;
        d[l] = dt == Ty::F16 ? doubleToHalf(v, r) : doubleToBF16(v, r);
        break;
      }
      default:
        break;
      }
      return;
    }
    // Integer to integer: truncate, or clamp with .sat.
    __int128 v = negative ? -static_cast<__int128>(magnitude)
                          : static_cast<__int128>(magnitude);
    if (in.sat) {
      __int128 lo, hi;
      intRange(dt, lo, hi);
      v = v < lo ? lo : v > hi ? hi : v;
    }
    d[l] = storeInt(v, dt, regBits);
  });
}

/// cvt to a packed pair (cvtPack).
struct CvtPackArgs {
  /// .bf16x2 (else .f16x2).
  bool bf16;
  /// .relu: negative results become +0.
  bool relu;
  /// .satfinite: results past the finite range saturate to it.
  bool satfinite;
};

/// cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a goes to the
/// upper half.
void cvtPack(ExecState &s, const Instr &in, uint32_t mask) {
  uint64_t *d = s.reg(in.ops[0]);
  const uint64_t *a = s.reg(in.ops[1]), *b = s.reg(in.ops[2]);
  Round r = in.round == Round::None ? Round::RN : in.round;
  const auto &args = in.payload<CvtPackArgs>();
  bool bf = args.bf16, relu = args.relu, satfinite = args.satfinite;
  forEachLane(mask, [&](int l) {
    auto one = [&](uint64_t bits) -> uint64_t {
      double v = f32(bits);
      if (relu && v < 0)
        v = 0;
      return bf ? doubleToBF16(v, r, satfinite) : doubleToHalf(v, r, satfinite);
    };
    d[l] = one(b[l]) | one(a[l]) << 16;
  });
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

/// Handler for T chosen by the integer type (width and signedness).
template <template <typename> class H> Handler pickInt(Ty type) {
  switch (type) {
  case Ty::B16:
  case Ty::U16:
    return &H<uint16_t>::run;
  case Ty::S16:
    return &H<int16_t>::run;
  case Ty::B32:
  case Ty::U32:
    return &H<uint32_t>::run;
  case Ty::S32:
    return &H<int32_t>::run;
  case Ty::B64:
  case Ty::U64:
    return &H<uint64_t>::run;
  case Ty::S64:
    return &H<int64_t>::run;
  case Ty::B8:
  case Ty::U8:
    return &H<uint8_t>::run;
  case Ty::S8:
    return &H<int8_t>::run;
  default:
    return nullptr;
  }
}

#define GMM_SIM_WRAP(NAME, EXPR)                                               \
  template <typename T> struct NAME {                                          \
    static void run(ExecState &s, const Instr &in, uint32_t m) {               \
      EXPR(s, in, m);                                                          \
    }                                                                          \
  };
GMM_SIM_WRAP(HAdd, (intBinary<T, OpAdd>))
GMM_SIM_WRAP(HSub, (intBinary<T, OpSub>))
GMM_SIM_WRAP(HMulLo, (intBinary<T, OpMulLo>))
GMM_SIM_WRAP(HMulHi, (intBinary<T, OpMulHi>))
GMM_SIM_WRAP(HMin, (intBinary<T, OpMin>))
GMM_SIM_WRAP(HMax, (intBinary<T, OpMax>))
GMM_SIM_WRAP(HDiv, (intBinary<T, OpDiv>))
GMM_SIM_WRAP(HRem, (intBinary<T, OpRem>))
GMM_SIM_WRAP(HAnd, (intBinary<T, OpAnd>))
GMM_SIM_WRAP(HOr, (intBinary<T, OpOr>))
GMM_SIM_WRAP(HXor, (intBinary<T, OpXor>))
GMM_SIM_WRAP(HShl, (intShift<T, OpShl>))
GMM_SIM_WRAP(HShr, (intShift<T, OpShr>))
GMM_SIM_WRAP(HMad, madLoHi<T>)
GMM_SIM_WRAP(HSad, sad<T>)
GMM_SIM_WRAP(HAbs, intAbs<T>)
GMM_SIM_WRAP(HNeg, intNeg<T>)
GMM_SIM_WRAP(HNot, intNot<T>)
GMM_SIM_WRAP(HCnot, intCnot<T>)
GMM_SIM_WRAP(HPopc, popc<T>)
GMM_SIM_WRAP(HClz, clz<T>)
GMM_SIM_WRAP(HBfind, bfind<T>)
GMM_SIM_WRAP(HBrev, brev<T>)
GMM_SIM_WRAP(HBfe, bfe<T>)
GMM_SIM_WRAP(HBfi, bfi<T>)
GMM_SIM_WRAP(HSetp, setp<T>)
GMM_SIM_WRAP(HSet, setHandler<T>)
#undef GMM_SIM_WRAP

const char *const kCmpNames[] = {"eq",  "ne",  "lt",  "le",  "gt",
                                 "ge",  "equ", "neu", "ltu", "leu",
                                 "gtu", "geu", "num", "nan"};

class ArithmeticDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run();

private:
  /// d, then n sources of `type`.
  bool operands(size_t sources, Ty type) {
    if (!count(sources + 1))
      return false;
    std::vector<uint32_t> slots(sources + 1);
    if (!d.dest(ops[0], slots[0]))
      return false;
    for (size_t i = 0; i < sources; ++i)
      if (!d.source(ops[1 + i], type, slots[1 + i]))
        return false;
    d.setOperands(out, slots);
    return true;
  }
  /// Exactly one type modifier.
  bool oneType(Ty &type) {
    std::vector<Ty> types = mods.takeTypes();
    if (types.size() != 1)
      return d.fail("expected one type");
    type = types[0];
    return true;
  }
  bool need(bool ok, const char *what) {
    return ok || d.fail(std::string("unsupported type for ") + what);
  }

  bool integerBinary();
  /// `relu`: fma.relu (16-bit types only; the caller checks).
  bool floatArith(FloatOp op, Ty type, size_t sources, bool relu = false);
  bool decodeAddSub(bool sub);
  bool decodeMul(bool mad);
  bool decodeFloatUnary(FloatOp op);
  bool decodeMinMax(bool isMin);
  bool decodeSetp(bool isSet);
  bool decodeMov();
  bool decodeCvt();
};

bool ArithmeticDecoder::floatArith(FloatOp op, Ty type, size_t sources,
                                   bool relu) {
  out.type = type;
  bool ok = operands(sources,
                     type == Ty::F16x2 || type == Ty::BF16x2 ? Ty::B32 : type);
  if (!ok)
    return false;
  switch (type) {
  case Ty::F32: {
    out.setPayload<FloatArgs>().op = op;
    bool directed = out.round == Round::RZ || out.round == Round::RM ||
                    out.round == Round::RP;
    if (directed && op <= FSqrt) {
      out.exec = &f32Directed;
      return true;
    }
#define GMM_SIM_PICK(OP)                                                       \
  case OP:                                                                     \
    out.exec = out.ftz ? (out.sat ? &f32Arith<OP, true, true>                  \
                                  : &f32Arith<OP, true, false>)                \
                       : (out.sat ? &f32Arith<OP, false, true>                 \
                                  : &f32Arith<OP, false, false>);              \
    return true;
    switch (op) {
      GMM_SIM_PICK(FAdd)
      GMM_SIM_PICK(FSub)
      GMM_SIM_PICK(FMul)
      GMM_SIM_PICK(FFma)
      GMM_SIM_PICK(FDiv)
      GMM_SIM_PICK(FRcp)
      GMM_SIM_PICK(FSqrt)
      GMM_SIM_PICK(FRsqrt)
      GMM_SIM_PICK(FSin)
      GMM_SIM_PICK(FCos)
      GMM_SIM_PICK(FLg2)
      GMM_SIM_PICK(FEx2)
      GMM_SIM_PICK(FTanh)
    default:
      break;
    }
#undef GMM_SIM_PICK
    return d.fail("unsupported f32 operation");
  }
  case Ty::F64:
    if (out.ftz)
      return d.fail(".ftz does not apply to .f64");
    out.setPayload<FloatArgs>().op = op;
    out.exec = &f64Arith;
    return true;
  case Ty::F16:
  case Ty::F16x2:
  case Ty::BF16:
  case Ty::BF16x2: {
    auto &args = out.setPayload<Float16Args>();
    args.op = op;
    args.bf16 = type == Ty::BF16 || type == Ty::BF16x2;
    args.pair = type == Ty::F16x2 || type == Ty::BF16x2;
    args.relu = relu;
    if (out.round != Round::None && out.round != Round::RN)
      return d.fail("16-bit floating-point arithmetic rounds to nearest only");
    out.exec = &f16Arith;
    return true;
  }
  default:
    return d.fail(std::string("unsupported type .") + typeName(type));
  }
}

bool ArithmeticDecoder::integerBinary() {
  Opcode op = out.opcode;
  const char *base = opcodeName(op);
  Ty type;
  if (!oneType(type))
    return false;
  out.type = type;
  Handler h = nullptr;
  if (op == Opcode::And || op == Opcode::Or || op == Opcode::Xor) {
    if (type == Ty::Pred) {
      if (!operands(2, Ty::Pred))
        return false;
      h = op == Opcode::And  ? &intBinary<uint8_t, OpAnd>
          : op == Opcode::Or ? &intBinary<uint8_t, OpOr>
                             : &intBinary<uint8_t, OpXor>;
      out.exec = h;
      return true;
    }
    if (!need(type == Ty::B16 || type == Ty::B32 || type == Ty::B64, "logic"))
      return false;
    h = op == Opcode::And  ? pickInt<HAnd>(type)
        : op == Opcode::Or ? pickInt<HOr>(type)
                           : pickInt<HXor>(type);
  } else if (op == Opcode::Shl || op == Opcode::Shr) {
    if (!need(type != Ty::Pred && isInteger(type) && bitWidth(type) >= 16 &&
                  (op == Opcode::Shr || !isSignedInt(type)),
              base))
      return false;
    if (!count(3))
      return false;
    std::vector<uint32_t> slots(3);
    if (!d.dest(ops[0], slots[0]) || !d.source(ops[1], type, slots[1]) ||
        !d.source(ops[2], Ty::U32, slots[2]))
      return false;
    d.setOperands(out, slots);
    out.exec = op == Opcode::Shl ? pickInt<HShl>(type) : pickInt<HShr>(type);
    return true;
  } else if (op == Opcode::Div || op == Opcode::Rem) {
    if (!need(isSignedInt(type) || isUnsignedInt(type), base))
      return false;
    h = op == Opcode::Div ? pickInt<HDiv>(type) : pickInt<HRem>(type);
  } else {
    return d.fail(std::string("internal: ") + base);
  }
  if (!operands(2, type))
    return false;
  out.exec = h;
  return out.exec != nullptr || d.fail("unsupported type");
}

bool ArithmeticDecoder::decodeAddSub(bool sub) {
  bool cc = mods.take("cc");
  out.sat = mods.take("sat");
  out.ftz = mods.take("ftz");
  out.round = mods.takeRound();
  Ty type;
  if (!oneType(type))
    return false;
  if (isFloatType(type)) {
    if (cc)
      return d.fail(".cc on a floating-point add");
    return floatArith(sub ? FSub : FAdd, type, 2);
  }
  if (out.round != Round::None || out.ftz)
    return d.fail("rounding or .ftz on an integer add");
  out.type = type;
  if (!need(isInteger(type) && bitWidth(type) >= 16 && type != Ty::B16 &&
                type != Ty::B32 && type != Ty::B64,
            sub ? "sub" : "add"))
    return false;
  if (!operands(2, type))
    return false;
  if (cc) {
    if (out.sat || bitWidth(type) < 32)
      return d.fail("unsupported add.cc form");
    auto &args = out.setPayload<CarryArgs>();
    args.readCarry = false;
    args.writeCarry = true;
    bool is64 = bitWidth(type) == 64;
    out.exec =
        sub ? (is64 ? &addCarry<uint64_t, true> : &addCarry<uint32_t, true>)
            : (is64 ? &addCarry<uint64_t, false> : &addCarry<uint32_t, false>);
    return true;
  }
  if (out.sat) {
    if (type != Ty::S32)
      return d.fail(".sat applies to .s32 only");
    out.exec = sub ? &addSat32<true> : &addSat32<false>;
    return true;
  }
  out.exec = sub ? pickInt<HSub>(type) : pickInt<HAdd>(type);
  return true;
}

bool ArithmeticDecoder::decodeMul(bool mad) {
  int mode = mods.takeOneOf({"lo", "hi", "wide"});
  bool cc = mad && mods.take("cc");
  out.sat = mods.take("sat");
  out.ftz = mods.take("ftz");
  out.round = mods.takeRound();
  Ty type;
  if (!oneType(type))
    return false;
  if (isFloatType(type)) {
    if (mode >= 0 || cc)
      return d.fail(".lo/.hi/.wide on a floating-point multiply");
    if (mad && type == Ty::F32 && out.round == Round::None)
      out.round = Round::RN; // legacy mad.f32: treated as fma.rn
    return floatArith(mad ? FFma : FMul, type, mad ? 3 : 2);
  }
  out.type = type;
  if (!need(isSignedInt(type) || isUnsignedInt(type), "mul"))
    return false;
  if (bitWidth(type) < 16)
    return d.fail("unsupported type");
  if (mode == 2) {
    // Narrow sources, a wide destination (and addend).
    if (bitWidth(type) == 64)
      return d.fail(".wide of a 64-bit type");
    if (!count(mad ? 4 : 3))
      return false;
    Ty wide = bitWidth(type) == 16 ? (isSignedInt(type) ? Ty::S32 : Ty::U32)
                                   : (isSignedInt(type) ? Ty::S64 : Ty::U64);
    std::vector<uint32_t> slots(mad ? 4 : 3);
    if (!d.dest(ops[0], slots[0]) || !d.source(ops[1], type, slots[1]) ||
        !d.source(ops[2], type, slots[2]) ||
        (mad && !d.source(ops[3], wide, slots[3])))
      return false;
    d.setOperands(out, slots);
    bool s16 = bitWidth(type) == 16, sgn = isSignedInt(type);
    if (mad)
      out.exec =
          s16 ? (sgn ? &mulWide<int16_t, true> : &mulWide<uint16_t, true>)
              : (sgn ? &mulWide<int32_t, true> : &mulWide<uint32_t, true>);
    else
      out.exec =
          s16 ? (sgn ? &mulWide<int16_t, false> : &mulWide<uint16_t, false>)
              : (sgn ? &mulWide<int32_t, false> : &mulWide<uint32_t, false>);
    return true;
  }
  if (mode < 0)
    return d.fail("integer multiply without .lo/.hi/.wide");
  if (!operands(mad ? 3 : 2, type))
    return false;
  if (out.sat && !(mad && mode == 1 && type == Ty::S32))
    return d.fail(".sat applies to mad.hi.s32 only");
  if (mad) {
    auto &args = out.setPayload<MadArgs>();
    args.hi = mode == 1;
    args.readCarry = false;
    args.writeCarry = cc;
    out.exec = pickInt<HMad>(type);
    return true;
  }
  out.exec = mode == 0 ? pickInt<HMulLo>(type) : pickInt<HMulHi>(type);
  return true;
}

bool ArithmeticDecoder::decodeFloatUnary(FloatOp op) {
  bool approx = mods.take("approx");
  bool full = mods.take("full");
  out.ftz = mods.take("ftz");
  out.sat = mods.take("sat");
  out.round = mods.takeRound();
  (void)approx;
  (void)full;
  Ty type;
  if (!oneType(type))
    return false;
  if (op == FDiv && isInteger(type))
    return false;
  return floatArith(op, type, op == FDiv ? 2 : 1);
}

bool ArithmeticDecoder::decodeMinMax(bool isMin) {
  out.ftz = mods.take("ftz");
  bool nan = mods.take("NaN");
  if (mods.take("xorsign") || mods.take("abs") || mods.take("relu"))
    return d.fail("unsupported min/max form");
  Ty type;
  if (!oneType(type))
    return false;
  out.type = type;
  if (isFloatType(type)) {
    auto &args = out.setPayload<FloatMinMaxArgs>();
    args.op = isMin ? FMin : FMax;
    args.propagateNaN = nan;
    switch (type) {
    case Ty::F32:
      args.kind = 0;
      break;
    case Ty::F64:
      args.kind = 1;
      break;
    case Ty::F16:
    case Ty::F16x2:
      args.kind = 2;
      break;
    case Ty::BF16:
    case Ty::BF16x2:
      args.kind = 3;
      break;
    default:
      return d.fail("unsupported type");
    }
    args.pair = type == Ty::F16x2 || type == Ty::BF16x2;
    if (!operands(2, type == Ty::F16x2 || type == Ty::BF16x2 ? Ty::B32 : type))
      return false;
    out.exec = &floatMinMax;
    return true;
  }
  if (nan || out.ftz)
    return d.fail(".NaN/.ftz on an integer min/max");
  if (!need(isSignedInt(type) || isUnsignedInt(type), "min/max"))
    return false;
  if (!operands(2, type))
    return false;
  out.exec = isMin ? pickInt<HMin>(type) : pickInt<HMax>(type);
  return true;
}

bool ArithmeticDecoder::decodeSetp(bool isSet) {
  int cmp = mods.takeOneOf({"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu",
                            "ltu", "leu", "gtu", "geu", "num", "nan", "lo",
                            "ls", "hi", "hs"});
  if (cmp < 0)
    return d.fail("missing comparison");
  int boolOp = mods.takeOneOf({"and", "or", "xor"});
  out.ftz = mods.take("ftz");
  std::vector<Ty> types = mods.takeTypes();
  Ty type;
  if (isSet) {
    if (types.size() != 2)
      return d.fail("set needs a destination and a source type");
    out.type2 = types[0];
    type = types[1];
    if (out.type2 != Ty::U32 && out.type2 != Ty::S32 && out.type2 != Ty::F32)
      return d.fail("unsupported destination type of set");
  } else {
    if (types.size() != 1)
      return d.fail("expected one type");
    type = types[0];
  }
  out.type = type;
  // lo/ls/hi/hs: unsigned lt/le/gt/ge.
  if (cmp >= 14) {
    if (!isUnsignedInt(type) && !(type >= Ty::B16 && type <= Ty::B64))
      return d.fail(".lo/.ls/.hi/.hs compare unsigned integers");
    cmp = cmp == 14 ? CLt : cmp == 15 ? CLe : cmp == 16 ? CGt : CGe;
  }
  if (!isFloatType(type) && cmp >= CEqu)
    return d.fail(std::string("comparison .") + kCmpNames[cmp] +
                  " needs floating-point operands");
  if ((type == Ty::B16 || type == Ty::B32 || type == Ty::B64) && cmp > CNe &&
      cmp != CLt && cmp != CLe && cmp != CGt && cmp != CGe)
    return d.fail("bit types compare for equality only");
  auto &args = out.setPayload<CompareArgs>();
  args.cmp = static_cast<Cmp>(cmp);
  args.boolOp = static_cast<BoolOp>(boolOp < 0 ? BNone : boolOp + 1);
  // Operands: setp p[|q], a, b{, {!}c};  set d, a, b{, {!}c}.
  size_t expected = boolOp < 0 ? 3 : 4;
  if (ops.size() != expected)
    return d.fail("expected " + std::to_string(expected) + " operands");
  std::vector<uint32_t> slots;
  Ty valueType = type == Ty::F16x2 || type == Ty::BF16x2 ? Ty::B32 : type;
  uint32_t p = 0, q = kSlotSink, a = 0, b = 0, c = kSlotZero;
  if (isSet) {
    if (!d.dest(ops[0], p))
      return false;
  } else if (ops[0].kind == ptx::Operand::Pair) {
    if (!d.dest(ops[0].elements[0], p) || !d.dest(ops[0].elements[1], q))
      return false;
  } else if (!d.dest(ops[0], p)) {
    return false;
  }
  if (!d.source(ops[1], valueType, a) || !d.source(ops[2], valueType, b))
    return false;
  if (boolOp >= 0) {
    bool negated = false;
    if (!d.predicate(ops[3], c, negated))
      return false;
    args.negateC = negated;
  }
  if (isSet) {
    slots = {p, a, b, c};
    d.setOperands(out, slots);
    Handler h = nullptr;
    if (type == Ty::F32)
      h = &setHandler<float>;
    else if (type == Ty::F64)
      h = &setHandler<double>;
    else if (isInteger(type))
      h = pickInt<HSet>(type);
    if (!h)
      return d.fail("unsupported type of set");
    out.exec = h;
    return true;
  }
  slots = {p, q, a, b, c};
  d.setOperands(out, slots);
  switch (type) {
  case Ty::F32:
    out.exec = &setp<float>;
    return true;
  case Ty::F64:
    out.exec = &setp<double>;
    return true;
  case Ty::F16:
  case Ty::F16x2:
  case Ty::BF16:
  case Ty::BF16x2:
    args.bf16 = type == Ty::BF16 || type == Ty::BF16x2;
    out.exec = &setp16;
    return true;
  default:
    if (!isInteger(type) || bitWidth(type) < 16)
      return d.fail("unsupported type of setp");
    out.exec = pickInt<HSetp>(type);
    return true;
  }
}

bool ArithmeticDecoder::decodeMov() {
  Ty type;
  if (!oneType(type))
    return false;
  out.type = type;
  if (!count(2))
    return false;
  unsigned width = type == Ty::Pred ? 1 : bitWidth(type);
  if (width > 64)
    return d.fail("unsupported mov type");
  // Special registers that change while the kernel runs.
  if (ops[1].kind == ptx::Operand::Register) {
    const std::string &name = ops[1].name;
    if (name == "%clock" || name == "%clock64" || name == "%globaltimer" ||
        name == "%globaltimer_lo" || name == "%globaltimer_hi") {
      uint32_t slot = 0;
      if (!d.dest(ops[0], slot))
        return false;
      d.setOperands(out, {slot});
      out.setPayload<MovArgs>().bits = static_cast<uint8_t>(width);
      out.exec = &movClock;
      return true;
    }
  }
  if (ops[1].kind == ptx::Operand::Vector) {
    // Pack: mov.b32 d, {a, b}; mov.b64 d, {a, b} or {a, b, c, d}.
    size_t n = ops[1].elements.size();
    if (n < 2 || width % n != 0 ||
        (type != Ty::B32 && type != Ty::B64 && type != Ty::B16))
      return d.fail("unsupported vector mov");
    unsigned element = width / static_cast<unsigned>(n);
    Ty elementType = element == 8 ? Ty::B8 : element == 16 ? Ty::B16 : Ty::B32;
    std::vector<uint32_t> slots(n + 1);
    if (!d.dest(ops[0], slots[0]))
      return false;
    for (size_t i = 0; i < n; ++i)
      if (!d.source(ops[1].elements[i], elementType, slots[1 + i]))
        return false;
    d.setOperands(out, slots);
    out.setPayload<MovVectorArgs>().elementBits = static_cast<uint8_t>(element);
    out.exec = &movPack;
    return true;
  }
  if (ops[0].kind == ptx::Operand::Vector) {
    size_t n = ops[0].elements.size();
    if (n < 2 || width % n != 0)
      return d.fail("unsupported vector mov");
    unsigned element = width / static_cast<unsigned>(n);
    std::vector<uint32_t> slots(n + 1);
    for (size_t i = 0; i < n; ++i)
      if (!d.dest(ops[0].elements[i], slots[i]))
        return false;
    if (!d.source(ops[1], type, slots[n]))
      return false;
    d.setOperands(out, slots);
    out.setPayload<MovVectorArgs>().elementBits = static_cast<uint8_t>(element);
    out.exec = &movUnpack;
    return true;
  }
  if (!operands(1, type))
    return false;
  out.setPayload<MovArgs>().bits = static_cast<uint8_t>(width);
  out.exec = &mov;
  return true;
}

bool ArithmeticDecoder::decodeCvt() {
  bool integerRounding = false;
  out.round = mods.takeRound(/*integerRounding=*/true);
  if (out.round != Round::None)
    integerRounding = true;
  else
    out.round = mods.takeRound();
  out.ftz = mods.take("ftz");
  out.sat = mods.take("sat");
  bool relu = mods.take("relu");
  bool satfinite = mods.take("satfinite");
  std::vector<Ty> types = mods.takeTypes();
  if (types.size() != 2)
    return d.fail("cvt needs a destination and a source type");
  Ty dt = types[0], st = types[1];
  out.type = dt;
  out.type2 = st;
  if (dt == Ty::F16x2 || dt == Ty::BF16x2) {
    if (st != Ty::F32)
      return d.fail("unsupported packed conversion");
    auto &args = out.setPayload<CvtPackArgs>();
    args.bf16 = dt == Ty::BF16x2;
    args.relu = relu;
    args.satfinite = satfinite;
    if (!operands(2, Ty::F32))
      return false;
    out.exec = &cvtPack;
    return true;
  }
  bool dFloat = isFloatType(dt), sFloat = isFloatType(st);
  bool toIntegral = false;
  if (dt == Ty::Pred || st == Ty::Pred || (!dFloat && !isInteger(dt)) ||
      (!sFloat && !isInteger(st)) || dt == Ty::F16x2 || st == Ty::F16x2 ||
      st == Ty::BF16x2 || dt == Ty::B128 || st == Ty::B128)
    return d.fail("unsupported conversion");
  // Rules of the rounding modifier (PTX ISA, cvt):
  if (dFloat && sFloat) {
    bool narrowing = bitWidth(dt) < bitWidth(st) || dt == Ty::BF16 ||
                     dt == Ty::TF32 || (dt == Ty::F16 && st != Ty::F16);
    if (integerRounding) {
      if (dt != st)
        return d.fail("integer rounding of a float-to-float conversion needs "
                      "equal types");
      toIntegral = true;
    } else if (narrowing && out.round == Round::None) {
      return d.fail("a narrowing floating-point conversion needs a rounding "
                    "modifier");
    }
    if (dt == Ty::TF32 && st != Ty::F32)
      return d.fail("unsupported tf32 conversion");
    if (out.round == Round::RNA && dt != Ty::TF32)
      return d.fail(".rna applies to tf32 conversions only");
  } else if (sFloat) {
    if (!integerRounding)
      return d.fail("a float-to-integer conversion needs .rni/.rzi/.rmi/.rpi");
  } else if (dFloat) {
    if (integerRounding || out.round == Round::None)
      return d.fail("an integer-to-float conversion needs .rn/.rz/.rm/.rp");
  } else if (out.round != Round::None) {
    return d.fail("rounding on an integer conversion");
  }
  if (!count(2))
    return false;
  std::vector<uint32_t> slots(2);
  if (!d.dest(ops[0], slots[0]) || !d.source(ops[1], st, slots[1]))
    return false;
  d.setOperands(out, slots);
  unsigned regBits = d.registerWidth(ops[0]);
  auto &args = out.setPayload<CvtArgs>();
  args.roundToIntegral = toIntegral;
  args.regBits = static_cast<uint8_t>(regBits == 64 ? 64 : regBits);
  args.relu = relu;
  args.satfinite = satfinite;
  out.exec = &cvt;
  return true;
}

bool ArithmeticDecoder::run() {
  const std::string &base = mods.base(); // for messages
  switch (out.opcode) {
  case Opcode::Add:
  case Opcode::Sub:
    return decodeAddSub(out.opcode == Opcode::Sub);
  case Opcode::Addc:
  case Opcode::Subc: {
    bool cc = mods.take("cc");
    Ty type;
    if (!oneType(type))
      return false;
    if (bitWidth(type) < 32 || !(isSignedInt(type) || isUnsignedInt(type)))
      return d.fail("unsupported type");
    out.type = type;
    if (!operands(2, type))
      return false;
    auto &args = out.setPayload<CarryArgs>();
    args.readCarry = true;
    args.writeCarry = cc;
    bool is64 = bitWidth(type) == 64, sub = out.opcode == Opcode::Subc;
    out.exec =
        sub ? (is64 ? &addCarry<uint64_t, true> : &addCarry<uint32_t, true>)
            : (is64 ? &addCarry<uint64_t, false> : &addCarry<uint32_t, false>);
    return true;
  }
  case Opcode::Mul:
    return decodeMul(false);
  case Opcode::Mad:
  case Opcode::Madc: {
    if (out.opcode == Opcode::Madc) {
      int mode = mods.takeOneOf({"lo", "hi"});
      bool cc = mods.take("cc");
      Ty type;
      if (mode < 0 || !oneType(type))
        return d.fail("madc needs .lo or .hi and a type");
      if (bitWidth(type) < 32 || !(isSignedInt(type) || isUnsignedInt(type)))
        return d.fail("unsupported type");
      out.type = type;
      if (!operands(3, type))
        return false;
      auto &args = out.setPayload<MadArgs>();
      args.hi = mode == 1;
      args.readCarry = true;
      args.writeCarry = cc;
      out.exec = pickInt<HMad>(type);
      return true;
    }
    return decodeMul(true);
  }
  case Opcode::Fma: {
    out.round = mods.takeRound();
    out.ftz = mods.take("ftz");
    out.sat = mods.take("sat");
    bool relu = mods.take("relu");
    Ty type;
    if (!oneType(type))
      return false;
    if (out.round == Round::None)
      return d.fail("fma needs a rounding modifier");
    if (!floatArith(FFma, type, 3, relu))
      return false;
    if (relu && out.exec != &f16Arith)
      return d.fail(".relu applies to 16-bit types only");
    return true;
  }
  case Opcode::Mul24:
  case Opcode::Mad24: {
    int mode = mods.takeOneOf({"lo", "hi"});
    Ty type;
    if (mode < 0 || !oneType(type) || (type != Ty::U32 && type != Ty::S32))
      return d.fail("expected .lo/.hi and .u32/.s32");
    if (mods.take("sat"))
      return d.fail("mad24.sat is not supported");
    bool mad = out.opcode == Opcode::Mad24;
    out.type = type;
    out.setPayload<Mul24Args>().hi = mode == 1;
    if (!operands(mad ? 3 : 2, type))
      return false;
    bool sgn = type == Ty::S32;
    out.exec = mad ? (sgn ? &mul24<true, true> : &mul24<false, true>)
                   : (sgn ? &mul24<true, false> : &mul24<false, false>);
    return true;
  }
  case Opcode::Sad: {
    Ty type;
    if (!oneType(type) || !(isSignedInt(type) || isUnsignedInt(type)) ||
        bitWidth(type) < 16)
      return d.fail("unsupported sad type");
    if (!operands(3, type))
      return false;
    out.exec = pickInt<HSad>(type);
    return true;
  }
  case Opcode::Div: {
    // Integer or floating point.
    std::vector<Ty> peek;
    for (const std::string &part : mods.all())
      if (parseType(part) != Ty::None)
        peek.push_back(parseType(part));
    if (peek.size() == 1 && isInteger(peek[0]))
      return integerBinary();
    return decodeFloatUnary(FDiv);
  }
  case Opcode::Rem:
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
  case Opcode::Shl:
  case Opcode::Shr:
    return integerBinary();
  case Opcode::Rcp:
    return decodeFloatUnary(FRcp);
  case Opcode::Sqrt:
    return decodeFloatUnary(FSqrt);
  case Opcode::Rsqrt:
    return decodeFloatUnary(FRsqrt);
  case Opcode::Sin:
    return decodeFloatUnary(FSin);
  case Opcode::Cos:
    return decodeFloatUnary(FCos);
  case Opcode::Lg2:
    return decodeFloatUnary(FLg2);
  case Opcode::Ex2:
    return decodeFloatUnary(FEx2);
  case Opcode::Tanh:
    return decodeFloatUnary(FTanh);
  case Opcode::Abs:
  case Opcode::Neg: {
    out.ftz = mods.take("ftz");
    Ty type;
    if (!oneType(type))
      return false;
    out.type = type;
    if (isFloatType(type)) {
      if (type == Ty::TF32)
        return d.fail("unsupported type");
      auto &args = out.setPayload<FloatSignArgs>();
      args.op = out.opcode == Opcode::Abs ? FAbs : FNeg;
      unsigned w = bitWidth(type);
      args.pair = type == Ty::F16x2 || type == Ty::BF16x2;
      args.elementBits = args.pair ? 16 : w == 16 ? 16 : w == 32 ? 32 : 64;
      if (!operands(1, args.pair ? Ty::B32 : type))
        return false;
      out.exec = &floatSign;
      return true;
    }
    if (!need(isSignedInt(type) && bitWidth(type) >= 16, base.c_str()))
      return false;
    if (!operands(1, type))
      return false;
    out.exec =
        out.opcode == Opcode::Abs ? pickInt<HAbs>(type) : pickInt<HNeg>(type);
    return true;
  }
  case Opcode::Min:
  case Opcode::Max:
    return decodeMinMax(out.opcode == Opcode::Min);
  case Opcode::Copysign: {
    Ty type;
    if (!oneType(type) || (type != Ty::F32 && type != Ty::F64))
      return d.fail("copysign takes .f32 or .f64");
    out.setPayload<CopysignArgs>().isF64 = type == Ty::F64;
    if (!operands(2, type))
      return false;
    out.exec = &copysignHandler;
    return true;
  }
  case Opcode::Testp: {
    int what = mods.takeOneOf(
        {"finite", "infinite", "number", "notanumber", "normal", "subnormal"});
    Ty type;
    if (what < 0 || !oneType(type) || (type != Ty::F32 && type != Ty::F64))
      return d.fail("unsupported testp");
    auto &args = out.setPayload<TestpArgs>();
    args.test = static_cast<uint8_t>(what);
    args.isF64 = type == Ty::F64;
    if (!operands(1, type))
      return false;
    out.exec = &testp;
    return true;
  }
  case Opcode::Not:
  case Opcode::Cnot: {
    Ty type;
    if (!oneType(type))
      return false;
    out.type = type;
    if (!operands(1, type))
      return false;
    if (type == Ty::Pred && out.opcode == Opcode::Not) {
      out.exec = &predNot;
      return true;
    }
    if (!need(type == Ty::B16 || type == Ty::B32 || type == Ty::B64,
              base.c_str()))
      return false;
    out.exec =
        out.opcode == Opcode::Not ? pickInt<HNot>(type) : pickInt<HCnot>(type);
    return true;
  }
  case Opcode::Popc:
  case Opcode::Clz:
  case Opcode::Brev: {
    Ty type;
    if (!oneType(type) || (type != Ty::B32 && type != Ty::B64))
      return d.fail("expected .b32 or .b64");
    out.type = type;
    if (!operands(1, type))
      return false;
    out.exec = out.opcode == Opcode::Popc  ? pickInt<HPopc>(type)
               : out.opcode == Opcode::Clz ? pickInt<HClz>(type)
                                           : pickInt<HBrev>(type);
    return true;
  }
  case Opcode::Bfind: {
    out.setPayload<BfindArgs>().shiftAmount = mods.take("shiftamt");
    Ty type;
    if (!oneType(type) || !(isSignedInt(type) || isUnsignedInt(type)) ||
        bitWidth(type) < 32)
      return d.fail("unsupported bfind type");
    if (!operands(1, type))
      return false;
    out.exec = pickInt<HBfind>(type);
    return true;
  }
  case Opcode::Bfe:
  case Opcode::Bfi: {
    Ty type;
    if (!oneType(type) || bitWidth(type) < 32 || type == Ty::F32 ||
        type == Ty::F64)
      return d.fail("unsupported type");
    bool isBfe = out.opcode == Opcode::Bfe;
    if (!count(isBfe ? 4 : 5))
      return false;
    std::vector<uint32_t> slots(isBfe ? 4 : 5);
    if (!d.dest(ops[0], slots[0]) || !d.source(ops[1], type, slots[1]))
      return false;
    size_t first = isBfe ? 2 : 2;
    if (!isBfe && !d.source(ops[2], type, slots[2]))
      return false;
    if (!isBfe)
      first = 3;
    for (size_t i = first; i < slots.size(); ++i)
      if (!d.source(ops[i], Ty::U32, slots[i]))
        return false;
    d.setOperands(out, slots);
    out.exec = isBfe ? pickInt<HBfe>(type) : pickInt<HBfi>(type);
    return true;
  }
  case Opcode::Prmt: {
    int mode = mods.takeOneOf({"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"});
    Ty type;
    if (!oneType(type) || type != Ty::B32)
      return d.fail("prmt takes .b32");
    out.setPayload<PrmtArgs>().mode = static_cast<uint8_t>(mode + 1);
    if (!operands(3, Ty::B32))
      return false;
    out.exec = &prmt;
    return true;
  }
  case Opcode::Lop3: {
    Ty type;
    if (!oneType(type) || type != Ty::B32)
      return d.fail("lop3 takes .b32");
    if (!operands(4, Ty::B32))
      return false;
    out.exec = &lop3;
    return true;
  }
  case Opcode::Shf: {
    int dir = mods.takeOneOf({"l", "r"});
    int mode = mods.takeOneOf({"wrap", "clamp"});
    Ty type;
    if (dir < 0 || mode < 0 || !oneType(type) || type != Ty::B32)
      return d.fail("expected shf.{l,r}.{wrap,clamp}.b32");
    auto &args = out.setPayload<ShfArgs>();
    args.left = dir == 0;
    args.clamp = mode == 1;
    if (!operands(3, Ty::B32))
      return false;
    out.exec = &shf;
    return true;
  }
  case Opcode::Bmsk:
  case Opcode::Szext: {
    int mode = mods.takeOneOf({"wrap", "clamp"});
    Ty type;
    if (mode < 0 || !oneType(type))
      return d.fail("expected .wrap or .clamp and a type");
    out.setPayload<ClampArgs>().clamp = mode == 1;
    if (!operands(2, Ty::U32))
      return false;
    if (out.opcode == Opcode::Bmsk) {
      if (type != Ty::B32)
        return d.fail("bmsk takes .b32");
      out.exec = &bmsk;
    } else {
      if (type != Ty::U32 && type != Ty::S32)
        return d.fail("szext takes .u32 or .s32");
      out.exec = type == Ty::S32 ? &szext<true> : &szext<false>;
    }
    return true;
  }
  case Opcode::Dp4a:
  case Opcode::Dp2a: {
    int half = out.opcode == Opcode::Dp2a ? mods.takeOneOf({"lo", "hi"}) : 0;
    std::vector<Ty> types = mods.takeTypes();
    if (half < 0 || types.size() != 2)
      return d.fail("unsupported " + base);
    for (Ty t : types)
      if (t != Ty::U32 && t != Ty::S32)
        return d.fail("unsupported " + base + " type");
    auto &args = out.setPayload<DotArgs>();
    args.aSigned = types[0] == Ty::S32;
    args.bSigned = types[1] == Ty::S32;
    args.hiHalf = half == 1;
    args.dp2a = out.opcode == Opcode::Dp2a;
    if (!operands(3, Ty::B32))
      return false;
    out.exec = &dotBytes;
    return true;
  }
  case Opcode::Setp:
    return decodeSetp(false);
  case Opcode::Set:
    return decodeSetp(true);
  case Opcode::Selp: {
    Ty type;
    if (!oneType(type))
      return false;
    if (!count(4))
      return false;
    std::vector<uint32_t> slots(4);
    bool negated = false;
    Ty valueType = type == Ty::F16x2 || type == Ty::BF16x2 ? Ty::B32 : type;
    if (!d.dest(ops[0], slots[0]) || !d.source(ops[1], valueType, slots[1]) ||
        !d.source(ops[2], valueType, slots[2]) ||
        !d.predicate(ops[3], slots[3], negated))
      return false;
    if (negated)
      std::swap(slots[1], slots[2]);
    d.setOperands(out, slots);
    out.exec = &selp;
    return true;
  }
  case Opcode::Slct: {
    out.ftz = mods.take("ftz");
    std::vector<Ty> types = mods.takeTypes();
    if (types.size() != 2 || (types[1] != Ty::S32 && types[1] != Ty::F32))
      return d.fail("unsupported slct");
    out.type2 = types[1];
    if (!count(4))
      return false;
    std::vector<uint32_t> slots(4);
    if (!d.dest(ops[0], slots[0]) || !d.source(ops[1], types[0], slots[1]) ||
        !d.source(ops[2], types[0], slots[2]) ||
        !d.source(ops[3], types[1], slots[3]))
      return false;
    d.setOperands(out, slots);
    out.exec = &slct;
    return true;
  }
  case Opcode::Mov:
    return decodeMov();
  case Opcode::Cvt:
    return decodeCvt();
  default:
    break;
  }
  return d.fail("internal error: not a arithmetic opcode");
}

} // namespace

bool gmm::sim::decodeArithmetic(Decoder &decoder, const ptx::Instruction &instr,
                                Modifiers &mods, Instr &out) {
  ArithmeticDecoder arithmetic(decoder, instr, mods, out);
  return arithmetic.run();
}
