//===- PTXSyntax.h - The syntax tree of a PTX module ------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the PTX parser produces: a module's directives, variables and
// functions, each function a sequence of statements (declarations,
// labels, instructions, scope braces) exactly as written. The parser checks
// the grammar only; the decoder (Decoder.cpp) gives instructions their
// meaning and rejects what the simulator does not implement.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_SIMULATOR_PTXSYNTAX_H
#define GMM_LIB_SIMULATOR_PTXSYNTAX_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gmm {
namespace sim {
namespace ptx {

/// An operand as written.
struct Operand {
  enum Kind {
    Register, // %r1, %tid.x, or a plain name that the decoder resolves
    Integer,  // 12, -3, 0x1f, 7U
    Float,    // 0f3F800000, 0d3FF0000000000000, 1.5
    Vector,   // {%r1, %r2}
    Address,  // [%rd1+8], [name], [name+4], [16], [map, {c0, c1}]
    Pair,     // %p1|%p2 (setp's two destinations)
    Sink,     // _ (a destination nobody reads)
  };
  Kind kind = Register;
  /// Register or symbol name (Register, Address base).
  std::string name;
  /// `!%p` (negated predicate operand).
  bool negated = false;
  /// Integer value or float bits (with isDouble for 0d).
  uint64_t bits = 0;
  bool isDouble = false;
  /// Address offset, in bytes.
  int64_t offset = 0;
  /// Vector elements, the two registers of a Pair, and the coordinate
  /// vectors of a tensor-map Address.
  std::vector<Operand> elements;
};

/// One instruction: `@{!}guard opcode operands;`.
struct Instruction {
  std::string guard;
  bool guardNegated = false;
  /// The opcode with its modifiers, e.g. "ld.global.v4.b32".
  std::string opcode;
  std::vector<Operand> operands;
  unsigned line = 0;
};

/// A variable or parameter declaration:
/// `.shared .align 16 .b8 name[1024] = {...};`, `.reg .b32 %r<10>;`.
struct Declaration {
  /// "reg", "param", "local", "shared", "global", "const".
  std::string space;
  /// The element type without its dot ("b32", "pred", "f16x2").
  std::string type;
  /// Vector width of a `.v2`/`.v4` declaration, else 1.
  unsigned vector = 1;
  unsigned align = 0;
  std::string name;
  /// `%r<10>`: ten registers %r0 .. %r9.
  unsigned rangeCount = 0;
  bool isRange = false;
  /// Array dimensions; a 0 is `[]` (extern or sized by the initializer).
  std::vector<uint64_t> dims;
  bool isExtern = false;
  bool isPointer = false;
  /// Initializer: element values (integers or float bits) or symbols.
  struct Init {
    uint64_t bits = 0;
    bool isFloat = false;
    bool isDouble = false;
    /// A symbol address (`sym`, `generic(sym)`), plus `bits` as offset.
    std::string symbol;
    bool generic = false;
  };
  std::vector<Init> init;
  bool hasInit = false;
  unsigned line = 0;
};

/// A statement of a function body.
struct Statement {
  enum Kind { Instr, Decl, Label, ScopeBegin, ScopeEnd };
  Kind kind = Instr;
  Instruction instr;
  Declaration decl;
  /// Label name.
  std::string label;
  unsigned line = 0;
};

/// `.entry` or `.func`.
struct Function {
  std::string name;
  bool isEntry = false;
  bool isExtern = false;
  bool hasBody = false;
  std::vector<Declaration> params;
  std::vector<Declaration> returns;
  /// Performance directives: .maxntid, .reqntid (0 where absent).
  unsigned maxntid[3] = {0, 0, 0};
  unsigned reqntid[3] = {0, 0, 0};
  /// .reqnctapercluster (0 where absent) and .explicitcluster.
  unsigned reqnctapercluster[3] = {0, 0, 0};
  bool explicitCluster = false;
  std::vector<Statement> body;
  unsigned line = 0;
};

struct Module {
  unsigned versionMajor = 0, versionMinor = 0;
  std::string target;
  unsigned addressSize = 64;
  std::vector<Declaration> globals;
  std::vector<Function> functions;
};

/// Parses PTX text. On failure returns null and sets `error` to
/// "line N: what".
std::unique_ptr<Module> parse(std::string_view text, std::string &error);

} // namespace ptx
} // namespace sim
} // namespace gmm

#endif // GMM_LIB_SIMULATOR_PTXSYNTAX_H
