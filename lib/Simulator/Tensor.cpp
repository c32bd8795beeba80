//===- Tensor.cpp - ldmatrix, stmatrix, movmatrix, mma.sync, wmma ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The warp-level matrix instructions. mma.sync and ldmatrix use the
// per-lane fragment layouts the PTX ISA documents ("Matrix Fragments for
// mma.m16n8k16", "... m16n8k8", "ldmatrix"): with g = laneid / 4 and
// t = laneid % 4, element i of a thread's A fragment of m16n8k16 sits at row
// g (+8 when i & 2) and column 2t + (i & 1) (+8 when i >= 4), and so on
// (fragmentCoordinate below). Products are exact and sums are accumulated
// in double, then rounded once to the accumulator type.
//
// wmma fragments are opaque in the ISA; the simulator lays element e of a
// fragment at logical position e mod (rows * columns), row-major, so loads,
// stores, mma and element-wise code agree with each other.
//
//===----------------------------------------------------------------------===//

#include "Exec.h"
#include "PTXSyntax.h"

#include <cmath>

using namespace gmm::sim;

namespace {

enum class Operand3 : uint8_t { A, B, C };

/// mma shapes.
enum MmaShape : uint8_t { M16N8K16, M16N8K8, M16N8K4, M8N8K4 };

struct ShapeInfo {
  int m, n, k;
};
constexpr ShapeInfo kShapes[] = {
    {16, 8, 16}, {16, 8, 8}, {16, 8, 4}, {8, 8, 4}};

/// Kinds of multiplicands.
enum MmaKind : uint8_t { KindF16, KindBF16, KindTF32, KindF64 };

/// (row, column) of element `i` of lane `lane`'s fragment of operand `op`
/// (B is K x N: row = k, column = n).
void fragmentCoordinate(MmaShape shape, MmaKind kind, Operand3 op, int lane,
                        int i, int &row, int &col) {
  int g = lane >> 2, t = lane & 3;
  if (kind == KindF64) {
    // m8n8k4.f64
    switch (op) {
    case Operand3::A:
      row = g;
      col = t;
      return;
    case Operand3::B:
      row = t;
      col = g;
      return;
    case Operand3::C:
      row = g;
      col = 2 * t + i;
      return;
    }
  }
  if (op == Operand3::C) {
    row = g + 8 * (i >> 1);
    col = 2 * t + (i & 1);
    return;
  }
  if (kind == KindTF32) {
    if (op == Operand3::A) {
      if (shape == M16N8K8) {
        row = g + 8 * (i & 1);
        col = t + 4 * (i >> 1);
      } else { // m16n8k4
        row = g + 8 * i;
        col = t;
      }
    } else {
      row = t + 4 * i;
      col = g;
    }
    return;
  }
  // f16 / bf16
  if (op == Operand3::A) {
    row = g + 8 * ((i >> 1) & 1);
    col = 2 * t + (i & 1) + 8 * (i >> 2);
  } else {
    row = 2 * t + (i & 1) + 8 * (i >> 1);
    col = g;
  }
}

/// Elements per lane of each operand.
int fragmentElements(MmaShape shape, Operand3 op) {
  const ShapeInfo &s = kShapes[shape];
  switch (op) {
  case Operand3::A:
    return s.m * s.k / 32;
  case Operand3::B:
    return s.k * s.n / 32;
  case Operand3::C:
    return s.m * s.n / 32;
  }
  return 0;
}

/// Reads element `i` of a fragment whose registers hold `perRegister`
/// elements of `bits` each, as a double.
double readElement(ExecState &s, const uint32_t *slots, int lane, int i,
                   MmaKind kind, bool isAccumulator, bool accF16) {
  if (kind == KindF64)
    return bitsAs<double>(s.reg(slots[i])[lane]);
  if (isAccumulator) {
    if (accF16) {
      uint64_t reg = s.reg(slots[i / 2])[lane];
      return halfToFloat(static_cast<uint16_t>(reg >> (16 * (i & 1))));
    }
    return bitsAs<float>(s.reg(slots[i])[lane] & 0xffffffffu);
  }
  if (kind == KindTF32) {
    // The low 13 bits of a tf32 operand are ignored.
    uint32_t bits = static_cast<uint32_t>(s.reg(slots[i])[lane]) & ~0x1fffu;
    return bitsAs<float>(uint64_t(bits));
  }
  uint64_t reg = s.reg(slots[i / 2])[lane];
  auto half = static_cast<uint16_t>(reg >> (16 * (i & 1)));
  return kind == KindBF16 ? bf16ToFloat(half) : halfToFloat(half);
}

/// mma.sync.
struct MmaArgs {
  /// The shape.
  MmaShape shape;
  /// The kind of the multiplicands.
  MmaKind kind;
  /// d is f16 (packed in pairs; else f32 or f64).
  bool dF16;
  /// c is f16 (packed in pairs; else f32 or f64).
  bool cF16;
};

/// mma.sync (ops: d..., a..., b..., c...).
void mma(ExecState &s, const Instr &in, uint32_t exec) {
  if (exec != 0xffffffffu) {
    s.fail(FindingKind::CollectiveDivergence, __builtin_ctz(~exec),
           "mma.sync with lanes predicated off (it needs all 32)");
    return;
  }
  const auto &args = in.payload<MmaArgs>();
  MmaShape shape = args.shape;
  MmaKind kind = args.kind;
  bool dF16 = args.dF16, cF16 = args.cF16;
  const ShapeInfo &info = kShapes[shape];
  int na = fragmentElements(shape, Operand3::A);
  int nb = fragmentElements(shape, Operand3::B);
  int nc = fragmentElements(shape, Operand3::C);
  auto regs = [&](int elements, bool f16Pairs) {
    return kind == KindF64 ? elements
                           : (f16Pairs ? (elements + 1) / 2 : elements);
  };
  bool pairs = kind == KindF16 || kind == KindBF16;
  int rd = regs(nc, dF16), ra = regs(na, pairs), rb = regs(nb, pairs);
  const uint32_t *d = in.ops, *a = d + rd, *b = a + ra, *c = b + rb;
  double A[16][16], B[16][8], C[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < na; ++i) {
      int r, col;
      fragmentCoordinate(shape, kind, Operand3::A, lane, i, r, col);
      A[r][col] = readElement(s, a, lane, i, kind, false, false);
    }
    for (int i = 0; i < nb; ++i) {
      int r, col;
      fragmentCoordinate(shape, kind, Operand3::B, lane, i, r, col);
      B[r][col] = readElement(s, b, lane, i, kind, false, false);
    }
    for (int i = 0; i < nc; ++i) {
      int r, col;
      fragmentCoordinate(shape, kind, Operand3::C, lane, i, r, col);
      C[r][col] = readElement(s, c, lane, i, kind, true, cF16);
    }
  }
  double D[16][8];
  for (int m = 0; m < info.m; ++m)
    for (int n = 0; n < info.n; ++n) {
      double sum = 0;
      for (int k = 0; k < info.k; ++k)
        sum = kind == KindF64 ? std::fma(A[m][k], B[k][n], sum)
                              : sum + A[m][k] * B[k][n];
      D[m][n] = sum + C[m][n];
    }
  // Write after reading: d may share registers with c.
  uint64_t out[32][8] = {};
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < nc; ++i) {
      int r, col;
      fragmentCoordinate(shape, kind, Operand3::C, lane, i, r, col);
      double v = D[r][col];
      if (kind == KindF64) {
        out[lane][i] = asBits(v);
      } else if (dF16) {
        out[lane][i / 2] |= static_cast<uint64_t>(doubleToHalf(v, Round::RN))
                            << (16 * (i & 1));
      } else {
        out[lane][i] = asBits(static_cast<float>(v)) & 0xffffffffu;
      }
    }
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < rd; ++r)
      s.reg(d[r])[lane] = out[lane][r];
}

/// ldmatrix and stmatrix.
struct MatrixMoveArgs {
  /// The number of 8x8 matrices (1, 2 or 4, from .x1/.x2/.x4).
  uint8_t count;
  /// .trans: the matrices are transposed.
  bool transpose;
};

/// ldmatrix (ops: d0..d(n-1), base; imm: offset).
void ldmatrix(ExecState &s, const Instr &in, uint32_t exec) {
  const auto &args = in.payload<MatrixMoveArgs>();
  unsigned n = args.count;
  bool transpose = args.transpose;
  const uint64_t *base = s.reg(in.ops[n]);
  // Rows of the n matrices: 8 b16 elements each, from lanes 8i + r.
  uint16_t rows[4][8][8];
  for (unsigned m = 0; m < n; ++m)
    for (unsigned r = 0; r < 8; ++r) {
      int lane = static_cast<int>(m * 8 + r);
      uint64_t address = base[lane] + static_cast<uint64_t>(in.imm);
      const uint8_t *p =
          accessMemory(s, lane, in.space, address, 16, Access::Read, 16);
      if (!p)
        return;
      std::memcpy(rows[m][r], p, 16);
    }
  uint64_t out[32][4];
  for (int lane = 0; lane < 32; ++lane) {
    int row = lane >> 2, col = 2 * (lane & 3);
    for (unsigned m = 0; m < n; ++m) {
      uint16_t lo, hi;
      if (transpose) {
        lo = rows[m][col][row];
        hi = rows[m][col + 1][row];
      } else {
        lo = rows[m][row][col];
        hi = rows[m][row][col + 1];
      }
      out[lane][m] = lo | static_cast<uint64_t>(hi) << 16;
    }
  }
  forEachLane(exec, [&](int lane) {
    for (unsigned m = 0; m < n; ++m)
      s.reg(in.ops[m])[lane] = out[lane][m];
  });
}

/// stmatrix (ops: base, s0..s(n-1); imm: offset).
void stmatrix(ExecState &s, const Instr &in, uint32_t) {
  const auto &args = in.payload<MatrixMoveArgs>();
  unsigned n = args.count;
  bool transpose = args.transpose;
  const uint64_t *base = s.reg(in.ops[0]);
  uint16_t rows[4][8][8];
  for (int lane = 0; lane < 32; ++lane) {
    int row = lane >> 2, col = 2 * (lane & 3);
    for (unsigned m = 0; m < n; ++m) {
      uint64_t v = s.reg(in.ops[1 + m])[lane];
      auto lo = static_cast<uint16_t>(v), hi = static_cast<uint16_t>(v >> 16);
      if (transpose) {
        rows[m][col][row] = lo;
        rows[m][col + 1][row] = hi;
      } else {
        rows[m][row][col] = lo;
        rows[m][row][col + 1] = hi;
      }
    }
  }
  for (unsigned m = 0; m < n; ++m)
    for (unsigned r = 0; r < 8; ++r) {
      int lane = static_cast<int>(m * 8 + r);
      uint64_t address = base[lane] + static_cast<uint64_t>(in.imm);
      uint8_t *p =
          accessMemory(s, lane, in.space, address, 16, Access::Write, 16);
      if (!p)
        return;
      std::memcpy(p, rows[m][r], 16);
    }
}

/// movmatrix.sync.aligned.m8n8.trans.b16 d, a.
void movmatrix(ExecState &s, const Instr &in, uint32_t exec) {
  uint16_t m[8][8];
  const uint64_t *a = s.reg(in.ops[1]);
  for (int lane = 0; lane < 32; ++lane) {
    int row = lane >> 2, col = 2 * (lane & 3);
    m[row][col] = static_cast<uint16_t>(a[lane]);
    m[row][col + 1] = static_cast<uint16_t>(a[lane] >> 16);
  }
  uint64_t *d = s.reg(in.ops[0]);
  forEachLane(exec, [&](int lane) {
    int row = lane >> 2, col = 2 * (lane & 3);
    d[lane] = m[col][row] | static_cast<uint64_t>(m[col + 1][row]) << 16;
  });
}

//===----------------------------------------------------------------------===//
// wmma
//===----------------------------------------------------------------------===//

/// A wmma fragment: its matrix shape, element type and elements per lane.
struct WmmaFragment {
  int rows = 0, cols = 0;
  Ty element = Ty::None;
  int perLane = 0;
  int registers = 0;
};

/// Element e of lane l is at logical position (l * perLane + e) mod size.
inline void wmmaPosition(const WmmaFragment &f, int lane, int e, int &row,
                         int &col) {
  int index = (lane * f.perLane + e) % (f.rows * f.cols);
  row = index / f.cols;
  col = index % f.cols;
}

inline double wmmaRead(ExecState &s, const uint32_t *slots,
                       const WmmaFragment &f, int lane, int e) {
  int perRegister = f.perLane / f.registers;
  uint64_t reg = s.reg(slots[e / perRegister])[lane];
  int part = e % perRegister;
  switch (f.element) {
  case Ty::F16:
    return halfToFloat(static_cast<uint16_t>(reg >> (16 * part)));
  case Ty::BF16:
    return bf16ToFloat(static_cast<uint16_t>(reg >> (16 * part)));
  case Ty::F32:
    return bitsAs<float>(reg & 0xffffffffu);
  case Ty::TF32:
    return bitsAs<float>(reg & 0xffffe000u);
  case Ty::F64:
    return bitsAs<double>(reg);
  default:
    return 0;
  }
}

inline uint64_t wmmaBits(const WmmaFragment &f, double v) {
  switch (f.element) {
  case Ty::F16:
    return doubleToHalf(v, Round::RN);
  case Ty::BF16:
    return doubleToBF16(v, Round::RN);
  case Ty::F32:
  case Ty::TF32:
    return asBits(static_cast<float>(v)) & 0xffffffffu;
  default:
    return asBits(v);
  }
}

const int kWmmaShapes[][3] = {
    {16, 16, 16}, {32, 8, 16}, {8, 32, 16}, {16, 16, 8}, {8, 8, 4}};

/// The fragment `which` (0 a, 1 b, 2 c, 3 d) of wmma shape `shape` with
/// elements of `type`; registers is 0 when unsupported.
WmmaFragment makeFragment(int which, int shape, Ty type) {
  WmmaFragment f;
  int m = kWmmaShapes[shape][0], n = kWmmaShapes[shape][1],
      k = kWmmaShapes[shape][2];
  f.element = type;
  f.rows = which == 1 ? k : m;
  f.cols = which == 0 ? k : n;
  bool ab = which <= 1;
  switch (type) {
  case Ty::F16:
    // A/B: eight f16x2 registers (the fragment is held twice over); C/D:
    // four f16x2.
    f.registers = ab ? 8 : 4;
    f.perLane = f.registers * 2;
    break;
  case Ty::BF16:
    f.registers = (f.rows * f.cols) / 64;
    f.perLane = f.registers * 2;
    break;
  case Ty::F32:
    f.registers = 8;
    f.perLane = 8;
    break;
  case Ty::TF32:
    f.registers = 4;
    f.perLane = 4;
    break;
  case Ty::F64:
    f.registers = ab ? 1 : 2;
    f.perLane = f.registers;
    break;
  default:
    f.registers = 0;
    break;
  }
  if (f.registers < 0 || f.registers > 8)
    f.registers = 0;
  return f;
}

/// wmma.load, wmma.store and wmma.mma.
struct WmmaArgs {
  /// The shape (an index into kWmmaShapes).
  uint8_t shape;
  /// The fragment (0 a, 1 b, 2 c, 3 d): load's a/b/c; 3 for store and mma.
  uint8_t which;
  /// The (first) layout is .col: column-major (read by load and store).
  bool columnMajor;
  /// mma: the element type of d (Ty::None for load and store).
  Ty dType;
};

/// The fragments of a wmma.mma: type/type2/type3 and the payload's dType
/// are the a/b/c/d element types (load and store: type).
WmmaFragment fragmentOf(const Instr &in, int which) {
  const auto &args = in.payload<WmmaArgs>();
  Ty types[4] = {in.type, in.type2, in.type3, args.dType};
  return makeFragment(which, args.shape, types[which]);
}

/// wmma.load (ops: regs..., base, stride or kSlotSink; aux: info; imm).
void wmmaLoad(ExecState &s, const Instr &in, uint32_t exec) {
  const auto &args = in.payload<WmmaArgs>();
  WmmaFragment f = makeFragment(args.which, args.shape, in.type);
  bool columnMajor = args.columnMajor;
  const uint32_t *regs = in.ops;
  const uint64_t *base = s.reg(in.ops[f.registers]);
  uint32_t strideSlot = in.ops[f.registers + 1];
  unsigned width = byteWidth(f.element == Ty::TF32 ? Ty::F32 : f.element);
  int perRegister = f.perLane / f.registers;
  forEachLane(exec, [&](int lane) {
    uint64_t stride = strideSlot == kSlotSink
                          ? static_cast<uint64_t>(columnMajor ? f.rows : f.cols)
                          : (s.reg(strideSlot)[lane] & 0xffffffffu);
    uint64_t words[8] = {};
    for (int e = 0; e < f.perLane; ++e) {
      int row, col;
      wmmaPosition(f, lane, e, row, col);
      uint64_t index = columnMajor ? col * stride + row : row * stride + col;
      uint64_t address =
          base[lane] + static_cast<uint64_t>(in.imm) + index * width;
      const uint8_t *p =
          accessMemory(s, lane, in.space, address, width, Access::Read, width);
      if (!p)
        return;
      uint64_t v = 0;
      std::memcpy(&v, p, width);
      words[e / perRegister] |= v << (8 * width * (e % perRegister));
    }
    for (int r = 0; r < f.registers; ++r)
      s.reg(regs[r])[lane] = words[r];
  });
}

/// wmma.store (ops: base, regs..., stride or kSlotSink).
void wmmaStore(ExecState &s, const Instr &in, uint32_t exec) {
  const auto &args = in.payload<WmmaArgs>();
  WmmaFragment f = makeFragment(3, args.shape, in.type);
  bool columnMajor = args.columnMajor;
  const uint64_t *base = s.reg(in.ops[0]);
  const uint32_t *regs = in.ops + 1;
  uint32_t strideSlot = in.ops[1 + f.registers];
  unsigned width = byteWidth(f.element);
  int perRegister = f.perLane / f.registers;
  forEachLane(exec, [&](int lane) {
    uint64_t stride = strideSlot == kSlotSink
                          ? static_cast<uint64_t>(columnMajor ? f.rows : f.cols)
                          : (s.reg(strideSlot)[lane] & 0xffffffffu);
    for (int e = 0; e < f.perLane; ++e) {
      int row, col;
      wmmaPosition(f, lane, e, row, col);
      uint64_t index = columnMajor ? col * stride + row : row * stride + col;
      uint64_t address =
          base[lane] + static_cast<uint64_t>(in.imm) + index * width;
      uint8_t *p =
          accessMemory(s, lane, in.space, address, width, Access::Write, width);
      if (!p)
        return;
      uint64_t v =
          s.reg(regs[e / perRegister])[lane] >> (8 * width * (e % perRegister));
      std::memcpy(p, &v, width);
    }
  });
}

/// wmma.mma (ops: d..., a..., b..., c...).
void wmmaMma(ExecState &s, const Instr &in, uint32_t exec) {
  if (exec != 0xffffffffu) {
    s.fail(FindingKind::CollectiveDivergence, __builtin_ctz(~exec),
           "wmma.mma with lanes predicated off (it needs all 32)");
    return;
  }
  struct {
    WmmaFragment a, b, c, d;
  } info = {fragmentOf(in, 0), fragmentOf(in, 1), fragmentOf(in, 2),
            fragmentOf(in, 3)};
  const uint32_t *d = in.ops, *a = d + info.d.registers,
                 *b = a + info.a.registers, *c = b + info.b.registers;
  int M = info.a.rows, K = info.a.cols, N = info.b.cols;
  std::vector<double> A(M * K), B(K * N), C(M * N);
  for (int lane = 31; lane >= 0; --lane) {
    // Replicated elements: the lowest lane's copy wins.
    for (int e = 0; e < info.a.perLane; ++e) {
      int r, col;
      wmmaPosition(info.a, lane, e, r, col);
      A[r * K + col] = wmmaRead(s, a, info.a, lane, e);
    }
    for (int e = 0; e < info.b.perLane; ++e) {
      int r, col;
      wmmaPosition(info.b, lane, e, r, col);
      B[r * N + col] = wmmaRead(s, b, info.b, lane, e);
    }
    for (int e = 0; e < info.c.perLane; ++e) {
      int r, col;
      wmmaPosition(info.c, lane, e, r, col);
      C[r * N + col] = wmmaRead(s, c, info.c, lane, e);
    }
  }
  std::vector<double> D(M * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double sum = 0;
      for (int k = 0; k < K; ++k)
        sum = info.a.element == Ty::F64
                  ? std::fma(A[m * K + k], B[k * N + n], sum)
                  : sum + A[m * K + k] * B[k * N + n];
      D[m * N + n] = sum + C[m * N + n];
    }
  int perRegister = info.d.perLane / info.d.registers;
  unsigned bits = bitWidth(info.d.element);
  for (int lane = 0; lane < 32; ++lane) {
    uint64_t words[8] = {};
    for (int e = 0; e < info.d.perLane; ++e) {
      int r, col;
      wmmaPosition(info.d, lane, e, r, col);
      words[e / perRegister] |= wmmaBits(info.d, D[r * N + col])
                                << (bits * (e % perRegister));
    }
    for (int r = 0; r < info.d.registers; ++r)
      s.reg(d[r])[lane] = words[r];
  }
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

class TensorDecoder : public FamilyDecoder {
public:
  using FamilyDecoder::FamilyDecoder;

  bool run();

private:
  /// Registers of a vector operand.
  bool registers(const ptx::Operand &operand, size_t expected, bool isDest,
                 std::vector<uint32_t> &slots, Ty type = Ty::B32) {
    std::vector<const ptx::Operand *> elements;
    d.vectorElements(operand, elements);
    if (elements.size() != expected)
      return d.fail("expected a vector of " + std::to_string(expected) +
                    " registers, got " + std::to_string(elements.size()));
    for (const ptx::Operand *e : elements) {
      uint32_t slot = 0;
      if (isDest ? !d.dest(*e, slot) : !d.source(*e, type, slot))
        return false;
      slots.push_back(slot);
    }
    return true;
  }
  bool decodeMma();
  bool decodeMatrixMove(bool isStore);
  bool decodeWmma();
};

bool TensorDecoder::decodeMma() {
  if (!mods.take("sync") || !mods.take("aligned"))
    return d.fail("expected mma.sync.aligned");
  int shape = mods.takeOneOf({"m16n8k16", "m16n8k8", "m16n8k4", "m8n8k4"});
  if (shape < 0)
    return d.fail("unsupported mma shape");
  if (!mods.take("row") || !mods.take("col"))
    return d.fail("mma.sync supports .row.col layouts only");
  mods.take("satfinite");
  std::vector<Ty> types = mods.takeTypes();
  if (types.size() != 4)
    return d.fail("expected .dtype.atype.btype.ctype");
  Ty dt = types[0], at = types[1], bt = types[2], ct = types[3];
  if (at != bt)
    return d.fail("mixed multiplicand types are not supported");
  MmaKind kind;
  if (at == Ty::F16)
    kind = KindF16;
  else if (at == Ty::BF16)
    kind = KindBF16;
  else if (at == Ty::TF32)
    kind = KindTF32;
  else if (at == Ty::F64)
    kind = KindF64;
  else
    return d.fail(std::string("unsupported mma multiplicand type .") +
                  typeName(at));
  auto s = static_cast<MmaShape>(shape);
  bool ok = false;
  switch (kind) {
  case KindF16:
    ok = (s == M16N8K16 || s == M16N8K8) && (dt == Ty::F16 || dt == Ty::F32) &&
         (ct == Ty::F16 || ct == Ty::F32);
    break;
  case KindBF16:
    ok = (s == M16N8K16 || s == M16N8K8) && dt == Ty::F32 && ct == Ty::F32;
    break;
  case KindTF32:
    ok = (s == M16N8K8 || s == M16N8K4) && dt == Ty::F32 && ct == Ty::F32;
    break;
  case KindF64:
    ok = s == M8N8K4 && dt == Ty::F64 && ct == Ty::F64;
    break;
  }
  if (!ok)
    return d.fail("unsupported mma shape and type combination");
  if (d.arch() < 80 && kind != KindF16)
    return d.fail("bf16, tf32 and f64 mma.sync need sm_80");
  if (ops.size() != 4)
    return d.fail("expected d, a, b, c");
  bool pairs = kind == KindF16 || kind == KindBF16;
  auto regCount = [&](Operand3 op, bool f16) {
    int elements = fragmentElements(s, op);
    if (kind == KindF64)
      return elements;
    return f16 ? elements / 2 : elements;
  };
  std::vector<uint32_t> slots;
  Ty ctype = ct == Ty::F64 ? Ty::F64 : ct == Ty::F16 ? Ty::B32 : Ty::F32;
  Ty abtype = kind == KindF64 ? Ty::F64 : Ty::B32;
  if (!registers(ops[0], regCount(Operand3::C, dt == Ty::F16), true, slots) ||
      !registers(ops[1], regCount(Operand3::A, pairs), false, slots, abtype) ||
      !registers(ops[2], regCount(Operand3::B, pairs), false, slots, abtype) ||
      !registers(ops[3], regCount(Operand3::C, ct == Ty::F16), false, slots,
                 ctype))
    return false;
  d.setOperands(out, slots);
  auto &args = out.setPayload<MmaArgs>();
  args.shape = s;
  args.kind = kind;
  args.dF16 = dt == Ty::F16;
  args.cF16 = ct == Ty::F16;
  out.collective = Collective::FullWarp;
  out.exec = &mma;
  return true;
}

bool TensorDecoder::decodeMatrixMove(bool isStore) {
  if (!mods.take("sync") || !mods.take("aligned") || !mods.take("m8n8"))
    return d.fail("expected .sync.aligned.m8n8");
  int num = mods.takeOneOf({"x1", "x2", "x4"});
  if (num < 0)
    return d.fail("expected .x1, .x2 or .x4");
  auto &args = out.setPayload<MatrixMoveArgs>();
  args.transpose = mods.take("trans");
  Space space = Space::Generic;
  mods.takeSpace(space);
  if (space != Space::Generic && space != Space::Shared)
    return d.fail("ldmatrix/stmatrix access shared memory");
  if (!mods.take("b16"))
    return d.fail("only .b16 matrices are supported");
  unsigned n = 1u << num;
  args.count = static_cast<uint8_t>(n);
  out.space = space;
  if (ops.size() != 2)
    return d.fail("expected two operands");
  std::vector<uint32_t> slots;
  uint32_t base = 0;
  if (isStore) {
    if (!d.address(ops[0], space, base, out.imm))
      return false;
    slots.push_back(base);
    if (!registers(ops[1], n, false, slots))
      return false;
    out.exec = &stmatrix;
  } else {
    if (!registers(ops[0], n, true, slots) ||
        !d.address(ops[1], space, base, out.imm))
      return false;
    slots.push_back(base);
    out.exec = &ldmatrix;
  }
  d.setOperands(out, slots);
  out.collective = Collective::FullWarp;
  return true;
}

bool TensorDecoder::decodeWmma() {
  int op = mods.takeOneOf({"load", "store", "mma"});
  if (op < 0)
    return d.fail("expected wmma.load, wmma.store or wmma.mma");
  int which = 3;
  if (op == 0) {
    which = mods.takeOneOf({"a", "b", "c"});
    if (which < 0)
      return d.fail("expected wmma.load.{a,b,c}");
  } else if (op == 1) {
    if (!mods.take("d"))
      return d.fail("expected wmma.store.d");
  }
  // .aligned became mandatory in PTX 6.3; older PTX omits it.
  if (!mods.take("sync"))
    return d.fail("expected .sync");
  mods.take("aligned");
  int layoutA = mods.takeOneOf({"row", "col"});
  int layoutB = op == 2 ? mods.takeOneOf({"row", "col"}) : -1;
  if (layoutA < 0 || (op == 2 && layoutB < 0))
    return d.fail("expected .row or .col layouts");
  int shape = mods.takeOneOf(
      {"m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4"});
  if (shape < 0)
    return d.fail("unsupported wmma shape");
  mods.take("satfinite");
  Space space = Space::Generic;
  if (op != 2)
    mods.takeSpace(space);
  if (space != Space::Generic && space != Space::Global &&
      space != Space::Shared)
    return d.fail("wmma accesses global or shared memory");
  out.space = space;
  auto &args = out.setPayload<WmmaArgs>();
  args.shape = static_cast<uint8_t>(shape);
  args.which = static_cast<uint8_t>(which);
  args.columnMajor = layoutA == 1;
  mods.takeRound();
  std::vector<Ty> types = mods.takeTypes();
  out.collective = Collective::FullWarp;
  auto regType = [](Ty t) {
    return t == Ty::F64 ? Ty::F64 : t == Ty::F32 ? Ty::F32 : Ty::B32;
  };
  std::vector<uint32_t> slots;
  if (op == 2) {
    // .dtype.ctype (f16/f32 multiplicands are f16), or all four types.
    Ty dt, at, bt, ct;
    if (types.size() == 2) {
      dt = types[0];
      ct = types[1];
      at = bt = Ty::F16;
    } else if (types.size() == 4) {
      dt = types[0];
      at = types[1];
      bt = types[2];
      ct = types[3];
    } else {
      return d.fail("expected wmma.mma types");
    }
    out.type = at;
    out.type2 = bt;
    out.type3 = ct;
    args.dType = dt;
    WmmaFragment a = fragmentOf(out, 0), b = fragmentOf(out, 1),
                 c = fragmentOf(out, 2), dd = fragmentOf(out, 3);
    if (!a.registers || !b.registers || !c.registers || !dd.registers)
      return d.fail("unsupported wmma types");
    if (ops.size() != 4)
      return d.fail("expected d, a, b, c");
    if (!registers(ops[0], dd.registers, true, slots) ||
        !registers(ops[1], a.registers, false, slots, regType(at)) ||
        !registers(ops[2], b.registers, false, slots, regType(bt)) ||
        !registers(ops[3], c.registers, false, slots, regType(ct)))
      return false;
    d.setOperands(out, slots);
    out.exec = &wmmaMma;
    return true;
  }
  if (types.size() != 1)
    return d.fail("expected one type");
  out.type = types[0];
  WmmaFragment f = makeFragment(which, shape, types[0]);
  if (!f.registers)
    return d.fail(std::string("unsupported wmma element type .") +
                  typeName(types[0]));
  if (ops.size() != 2 && ops.size() != 3)
    return d.fail("expected a fragment, an address and an optional stride");
  uint32_t base = 0, stride = kSlotSink;
  if (op == 0) {
    if (!registers(ops[0], f.registers, true, slots) ||
        !d.address(ops[1], space, base, out.imm))
      return false;
    slots.push_back(base);
  } else {
    if (!d.address(ops[0], space, base, out.imm))
      return false;
    slots.push_back(base);
    if (!registers(ops[1], f.registers, false, slots, regType(types[0])))
      return false;
  }
  if (ops.size() == 3 && !d.source(ops[2], Ty::U32, stride))
    return false;
  slots.push_back(stride);
  d.setOperands(out, slots);
  out.exec = op == 0 ? &wmmaLoad : &wmmaStore;
  return true;
}

bool TensorDecoder::run() {
  switch (out.opcode) {
  case Opcode::Mma:
    return decodeMma();
  case Opcode::Ldmatrix:
    return decodeMatrixMove(false);
  case Opcode::Stmatrix:
    return decodeMatrixMove(true);
  case Opcode::Movmatrix: {
    if (!mods.take("sync") || !mods.take("aligned") || !mods.take("m8n8") ||
        !mods.take("trans") || !mods.take("b16") || ops.size() != 2)
      return d.fail("expected movmatrix.sync.aligned.m8n8.trans.b16 d, a");
    uint32_t dst = 0, src = 0;
    if (!d.dest(ops[0], dst) || !d.source(ops[1], Ty::B32, src))
      return false;
    d.setOperands(out, {dst, src});
    out.collective = Collective::FullWarp;
    out.exec = &movmatrix;
    return true;
  }
  case Opcode::Wmma:
    return decodeWmma();
  default:
    break;
  }
  return d.fail("internal error: not a tensor opcode");
}

} // namespace

bool gmm::sim::decodeTensor(Decoder &decoder, const ptx::Instruction &instr,
                            Modifiers &mods, Instr &out) {
  TensorDecoder tensor(decoder, instr, mods, out);
  return tensor.run();
}
