//===- PTXParser.cpp - PTX text to syntax tree ---------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// A hand-written lexer and recursive-descent parser for the PTX that LLVM's
// NVPTX back end and nvcc write (PTX ISA chapter 4, "Syntax"): comments,
// directives, variable declarations with initializers, .entry/.func with
// parameters, and function bodies of declarations, labels, scope braces and
// instructions. Opcodes stay text here ("ld.global.v4.b32"); Decoder.cpp
// interprets them.
//
//===----------------------------------------------------------------------===//

#include "PTXSyntax.h"

#include <cctype>
#include <cstring>

using namespace gmm::sim::ptx;

namespace {

struct Token {
  enum Kind { End, Word, Integer, Float, String, Punct };
  Kind kind = End;
  std::string text;
  uint64_t bits = 0;
  bool isDouble = false;
  unsigned line = 0;
  /// Whether whitespace separates this token from the previous one.
  bool spaceBefore = true;
};

/// Parses `major.minor` (decimal digits, each at most 4) into its parts.
bool parseVersion(const std::string &text, unsigned &major, unsigned &minor) {
  size_t dot = text.find('.');
  if (dot == std::string::npos || dot == 0 || dot > 4 ||
      text.size() - dot - 1 == 0 || text.size() - dot - 1 > 4)
    return false;
  major = minor = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == dot)
      continue;
    if (text[i] < '0' || text[i] > '9')
      return false;
    unsigned &part = i < dot ? major : minor;
    part = part * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return true;
}

bool isWordStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '%' || c == '.';
}
bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

class Lexer {
public:
  explicit Lexer(std::string_view text) : text(text) {}

  /// Returns false with `error` set on a malformed token.
  bool next(Token &token, std::string &error) {
    bool space = skipSpace(error);
    if (!error.empty())
      return false;
    token = Token();
    token.line = line;
    token.spaceBefore = space;
    if (pos >= text.size()) {
      token.kind = Token::End;
      return true;
    }
    char c = text[pos];
    if (c == '"') {
      size_t start = ++pos;
      while (pos < text.size() && text[pos] != '"' && text[pos] != '\n')
        pos += text[pos] == '\\' && pos + 1 < text.size() ? 2 : 1;
      if (pos >= text.size() || text[pos] != '"') {
        error = "line " + std::to_string(line) + ": unterminated string";
        return false;
      }
      token.kind = Token::String;
      token.text = std::string(text.substr(start, pos - start));
      ++pos;
      return true;
    }
    if (std::isdigit(static_cast<unsigned char>(c)))
      return lexNumber(token, error);
    if (isWordStart(c)) {
      // A word: identifiers, registers, directives and dotted opcodes
      // ("ld.global.v4.b32", "%tid.x", ".shared::cta", "L2::128B").
      size_t start = pos++;
      while (pos < text.size()) {
        char d = text[pos];
        if (isWordChar(d) || d == '.') {
          ++pos;
          continue;
        }
        if (d == ':' && pos + 1 < text.size() && text[pos + 1] == ':') {
          pos += 2;
          continue;
        }
        break;
      }
      token.kind = Token::Word;
      token.text = std::string(text.substr(start, pos - start));
      return true;
    }
    static const char *puncts = ",;:{}[]()<>+-=|!@*";
    if (std::strchr(puncts, c)) {
      token.kind = Token::Punct;
      token.text = std::string(1, c);
      ++pos;
      return true;
    }
    error = "line " + std::to_string(line) + ": unexpected character '" +
            std::string(1, c) + "'";
    return false;
  }

private:
  /// Skips blanks and comments; returns whether anything was skipped.
  bool skipSpace(std::string &error) {
    size_t start = pos;
    while (pos < text.size()) {
      char c = text[pos];
      if (c == '\n') {
        ++line;
        ++pos;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos;
      } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
        while (pos < text.size() && text[pos] != '\n')
          ++pos;
      } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '*') {
        unsigned startLine = line;
        pos += 2;
        while (pos + 1 < text.size() &&
               !(text[pos] == '*' && text[pos + 1] == '/')) {
          if (text[pos] == '\n')
            ++line;
          ++pos;
        }
        if (pos + 1 >= text.size()) {
          error = "line " + std::to_string(startLine) +
                  ": unterminated block comment";
          return true;
        }
        pos += 2;
      } else {
        break;
      }
    }
    return pos != start;
  }

  static int hexValue(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }

  bool lexNumber(Token &token, std::string &error) {
    auto fail = [&](const std::string &what) {
      error = "line " + std::to_string(line) + ": " + what;
      return false;
    };
    size_t start = pos;
    char c1 = pos + 1 < text.size() ? text[pos + 1] : '\0';
    if (text[pos] == '0' &&
        (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
      // 0fXXXXXXXX (f32 bits) or 0dXXXXXXXXXXXXXXXX (f64 bits).
      bool isDouble = c1 == 'd' || c1 == 'D';
      size_t digits = isDouble ? 16 : 8;
      pos += 2;
      uint64_t bits = 0;
      for (size_t i = 0; i < digits; ++i) {
        int v = pos < text.size() ? hexValue(text[pos]) : -1;
        if (v < 0)
          return fail("malformed floating-point literal '" +
                      std::string(text.substr(start, pos - start + 1)) + "'");
        bits = bits << 4 | static_cast<uint64_t>(v);
        ++pos;
      }
      token.kind = Token::Float;
      token.bits = bits;
      token.isDouble = isDouble;
      token.text = std::string(text.substr(start, pos - start));
      return true;
    }
    // Integers: hex, binary, octal, decimal; a decimal with '.' or an
    // exponent is a double.
    unsigned base = 10;
    if (text[pos] == '0' && (c1 == 'x' || c1 == 'X')) {
      base = 16;
      pos += 2;
    } else if (text[pos] == '0' && (c1 == 'b' || c1 == 'B')) {
      base = 2;
      pos += 2;
    } else if (text[pos] == '0' && c1 >= '0' && c1 <= '7') {
      base = 8;
      ++pos;
    }
    size_t digitsStart = pos;
    unsigned __int128 value = 0;
    bool overflow = false;
    while (pos < text.size()) {
      int v = hexValue(text[pos]);
      if (v < 0 || static_cast<unsigned>(v) >= base)
        break;
      value = value * base + static_cast<unsigned>(v);
      if (value > UINT64_MAX)
        overflow = true;
      ++pos;
    }
    if (base == 10 && pos < text.size() &&
        (text[pos] == '.' || text[pos] == 'e' || text[pos] == 'E')) {
      // A decimal floating-point literal (f64).
      size_t end = pos + 1;
      while (end < text.size() &&
             (std::isdigit(static_cast<unsigned char>(text[end])) ||
              text[end] == 'e' || text[end] == 'E' ||
              ((text[end] == '-' || text[end] == '+') &&
               (text[end - 1] == 'e' || text[end - 1] == 'E'))))
        ++end;
      std::string literal(text.substr(start, end - start));
      char *parsedEnd = nullptr;
      double d = std::strtod(literal.c_str(), &parsedEnd);
      if (parsedEnd != literal.c_str() + literal.size())
        return fail("malformed floating-point literal '" + literal + "'");
      std::memcpy(&token.bits, &d, sizeof(d));
      token.kind = Token::Float;
      token.isDouble = true;
      token.text = literal;
      pos = end;
      return true;
    }
    if (pos == digitsStart && base != 8)
      return fail("malformed number '" +
                  std::string(text.substr(start, pos - start + 1)) + "'");
    if (overflow)
      return fail("integer literal '" +
                  std::string(text.substr(start, pos - start)) +
                  "' does not fit in 64 bits");
    if (pos < text.size() && (text[pos] == 'U' || text[pos] == 'u'))
      ++pos;
    if (pos < text.size() && isWordChar(text[pos]))
      return fail("malformed number '" +
                  std::string(text.substr(start, pos - start + 1)) + "'");
    token.kind = Token::Integer;
    token.bits = static_cast<uint64_t>(value);
    token.text = std::string(text.substr(start, pos - start));
    return true;
  }

  std::string_view text;
  size_t pos = 0;
  unsigned line = 1;
};

class Parser {
public:
  Parser(std::string_view text, std::string &error)
      : lexer(text), error(error) {}

  std::unique_ptr<Module> parseModule() {
    auto module = std::make_unique<Module>();
    if (!advance())
      return nullptr;
    while (tok.kind != Token::End) {
      if (!parseTopLevel(*module))
        return nullptr;
    }
    return module;
  }

private:
  bool advance() {
    if (!lexer.next(tok, error))
      return false;
    return true;
  }

  bool fail(const std::string &what) {
    if (error.empty())
      error = "line " + std::to_string(tok.line) + ": " + what;
    return false;
  }

  std::string describe() const {
    switch (tok.kind) {
    case Token::End:
      return "end of input";
    case Token::String:
      return "\"" + tok.text + "\"";
    default:
      return "'" + tok.text + "'";
    }
  }

  bool isPunct(const char *p) const {
    return tok.kind == Token::Punct && tok.text == p;
  }
  bool isWord(const char *w) const {
    return tok.kind == Token::Word && tok.text == w;
  }

  bool expectPunct(const char *p) {
    if (!isPunct(p))
      return fail(std::string("expected '") + p + "', found " + describe());
    return advance();
  }

  bool parseUnsigned(uint64_t &value) {
    if (tok.kind != Token::Integer)
      return fail("expected an integer, found " + describe());
    value = tok.bits;
    return advance();
  }

  bool parseUnsigned(unsigned &value) {
    uint64_t v = 0;
    if (!parseUnsigned(v))
      return false;
    if (v > UINT32_MAX)
      return fail("value " + std::to_string(v) + " is too large");
    value = static_cast<unsigned>(v);
    return true;
  }

  /// Skips to the next ';' (inclusive).
  bool skipStatement() {
    while (tok.kind != Token::End && !isPunct(";"))
      if (!advance())
        return false;
    if (tok.kind == Token::End)
      return fail("expected ';'");
    return advance();
  }

  /// Skips a balanced { ... } block.
  bool skipBlock() {
    if (!expectPunct("{"))
      return false;
    int depth = 1;
    while (depth > 0) {
      if (tok.kind == Token::End)
        return fail("unterminated block");
      if (isPunct("{"))
        ++depth;
      else if (isPunct("}"))
        --depth;
      if (!advance())
        return false;
    }
    return true;
  }

  static bool isStateSpace(const std::string &w) {
    return w == ".reg" || w == ".param" || w == ".local" || w == ".shared" ||
           w == ".global" || w == ".const" || w == ".tex" || w == ".sreg";
  }

  bool parseTopLevel(Module &module) {
    if (tok.kind != Token::Word)
      return fail("expected a directive, found " + describe());
    const std::string w = tok.text;
    if (w == ".version") {
      if (!advance())
        return false;
      // "8.0" lexes as a double; take major and minor from its digits.
      unsigned major = 0, minor = 0;
      if (tok.kind == Token::Float && tok.isDouble &&
          parseVersion(tok.text, major, minor)) {
        module.versionMajor = major;
        module.versionMinor = minor;
        return advance();
      }
      return fail("expected a version number (major.minor), found " +
                  describe());
    }
    if (w == ".target") {
      if (!advance())
        return false;
      if (tok.kind != Token::Word)
        return fail("expected a target, found " + describe());
      module.target = tok.text;
      if (!advance())
        return false;
      // Further options: ", texmode_independent", ", debug", ...
      while (isPunct(","))
        if (!advance() || !advance())
          return false;
      return true;
    }
    if (w == ".address_size") {
      if (!advance() || !parseUnsigned(module.addressSize))
        return false;
      if (module.addressSize != 64 && module.addressSize != 32)
        return fail("unsupported .address_size " +
                    std::to_string(module.addressSize));
      return true;
    }
    if (w == ".file") {
      // .file 1 "name" {, timestamp, size}
      if (!advance())
        return false;
      while (
          tok.kind != Token::End &&
          !(tok.kind == Token::Word && !tok.text.empty() && tok.text[0] == '.'))
        if (!advance())
          return false;
      return true;
    }
    if (w == ".section")
      return advance() && advance() && skipBlock();
    if (w == ".pragma")
      return skipStatement();
    if (w == ".alias")
      return fail("unsupported directive .alias");
    // Linkage and the declarations it applies to.
    bool isExtern = false;
    while (tok.kind == Token::Word &&
           (tok.text == ".visible" || tok.text == ".extern" ||
            tok.text == ".weak" || tok.text == ".common")) {
      isExtern |= tok.text == ".extern";
      if (!advance())
        return false;
    }
    if (isWord(".entry") || isWord(".func"))
      return parseFunction(module, isExtern);
    if (tok.kind == Token::Word && isStateSpace(tok.text)) {
      Declaration decl;
      if (!parseDeclaration(decl, /*allowInit=*/true))
        return false;
      decl.isExtern = isExtern;
      module.globals.push_back(std::move(decl));
      return expectPunct(";");
    }
    return fail("unexpected " + describe() + " at module level");
  }

  /// Parses `.space {.attrs} .type name{<n>|[dims]} {= init}` without the
  /// terminating ';' (also used for parameters).
  bool parseDeclaration(Declaration &decl, bool allowInit) {
    decl.line = tok.line;
    decl.space = tok.text.substr(1);
    if (!advance())
      return false;
    while (tok.kind == Token::Word && tok.text[0] == '.') {
      const std::string &a = tok.text;
      if (a == ".align") {
        // After .ptr, .align is the alignment of what the pointer points to,
        // not of the parameter.
        unsigned align = 0;
        if (!advance() || !parseUnsigned(align))
          return false;
        if (!decl.isPointer)
          decl.align = align;
        continue;
      }
      if (a == ".ptr") {
        decl.isPointer = true;
      } else if (a == ".v2" || a == ".v4" || a == ".v8") {
        decl.vector = static_cast<unsigned>(std::stoul(a.substr(2)));
      } else if (a == ".global" || a == ".shared" || a == ".const" ||
                 a == ".local" || a == ".param" ||
                 a.rfind(".shared::", 0) == 0) {
        // Pointer attributes of a kernel parameter: .ptr .global .align 16.
      } else if (a == ".attribute") {
        // .attribute(.managed)
        if (!advance())
          return false;
        if (isPunct("(")) {
          while (!isPunct(")")) {
            if (tok.kind == Token::End)
              return fail("unterminated .attribute");
            if (!advance())
              return false;
          }
        }
      } else {
        decl.type = a.substr(1);
      }
      if (!advance())
        return false;
    }
    if (decl.type.empty())
      return fail("declaration without a type");
    if (tok.kind != Token::Word)
      return fail("expected a name, found " + describe());
    decl.name = tok.text;
    if (!advance())
      return false;
    if (isPunct("<")) {
      if (!advance() || !parseUnsigned(decl.rangeCount) || !expectPunct(">"))
        return false;
      decl.isRange = true;
    }
    while (isPunct("[")) {
      if (!advance())
        return false;
      uint64_t dim = 0;
      if (!isPunct("]") && !parseUnsigned(dim))
        return false;
      decl.dims.push_back(dim);
      if (!expectPunct("]"))
        return false;
    }
    if (isPunct("=")) {
      if (!allowInit)
        return fail("unexpected initializer");
      if (!advance())
        return false;
      decl.hasInit = true;
      if (!parseInitializer(decl))
        return false;
    }
    // More names of the same type: `.reg .b32 a, b;`
    return true;
  }

  bool parseInitValue(Declaration &decl) {
    Declaration::Init init;
    bool negate = false;
    if (isPunct("-")) {
      negate = true;
      if (!advance())
        return false;
    }
    if (tok.kind == Token::Integer) {
      init.bits = negate ? 0 - tok.bits : tok.bits;
    } else if (tok.kind == Token::Float) {
      init.bits = tok.bits;
      init.isFloat = true;
      init.isDouble = tok.isDouble;
      if (negate)
        init.bits ^= tok.isDouble ? (uint64_t(1) << 63) : (uint64_t(1) << 31);
    } else if (tok.kind == Token::Word) {
      // `sym`, `sym+offset`, `generic(sym)` or `generic(sym+offset)`.
      bool generic =
          (tok.text == "generic" || tok.text == "cvta.global") && !negate;
      if (generic && (!advance() || !expectPunct("(")))
        return false;
      if (generic && tok.kind != Token::Word)
        return fail("expected a symbol in generic(), found " + describe());
      init.symbol = tok.text;
      init.generic = generic;
      if (!advance())
        return false;
      if (isPunct("+")) {
        if (!advance())
          return false;
        if (tok.kind != Token::Integer)
          return fail("expected an offset, found " + describe());
        init.bits = tok.bits;
        if (!advance())
          return false;
      }
      if (!generic) {
        decl.init.push_back(init);
        return true;
      }
      if (!isPunct(")"))
        return fail("expected ')', found " + describe());
    } else {
      return fail("expected an initializer value, found " + describe());
    }
    decl.init.push_back(init);
    return advance();
  }

  bool parseInitializer(Declaration &decl) {
    if (!isPunct("{"))
      return parseInitValue(decl);
    // Nested braces flatten in order.
    int depth = 0;
    do {
      if (isPunct("{")) {
        ++depth;
        if (!advance())
          return false;
        continue;
      }
      if (isPunct("}")) {
        --depth;
        if (!advance())
          return false;
        if (depth > 0 && isPunct(",") && !advance())
          return false;
        continue;
      }
      if (!parseInitValue(decl))
        return false;
      if (isPunct(",") && !advance())
        return false;
    } while (depth > 0 && tok.kind != Token::End);
    if (depth > 0)
      return fail("unterminated initializer");
    return true;
  }

  bool parseParamList(std::vector<Declaration> &params) {
    if (!expectPunct("("))
      return false;
    while (!isPunct(")")) {
      if (tok.kind != Token::Word ||
          (tok.text != ".param" && tok.text != ".reg"))
        return fail("expected a parameter, found " + describe());
      Declaration decl;
      if (!parseDeclaration(decl, /*allowInit=*/false))
        return false;
      params.push_back(std::move(decl));
      if (isPunct(",")) {
        if (!advance())
          return false;
      } else if (!isPunct(")")) {
        return fail("expected ',' or ')', found " + describe());
      }
    }
    return advance();
  }

  bool parseFunction(Module &module, bool isExtern) {
    Function fn;
    fn.isEntry = tok.text == ".entry";
    fn.isExtern = isExtern;
    fn.line = tok.line;
    if (!advance())
      return false;
    if (!fn.isEntry && isPunct("(")) {
      if (!parseParamList(fn.returns))
        return false;
    }
    if (tok.kind != Token::Word)
      return fail("expected a function name, found " + describe());
    fn.name = tok.text;
    if (!advance())
      return false;
    if (isPunct("(") && !parseParamList(fn.params))
      return false;
    // Performance-tuning and other directives before the body.
    while (tok.kind == Token::Word && tok.text[0] == '.') {
      std::string d = tok.text;
      if (!advance())
        return false;
      if (d == ".maxntid" || d == ".reqntid" || d == ".reqnctapercluster") {
        unsigned *dims = d == ".maxntid"   ? fn.maxntid
                         : d == ".reqntid" ? fn.reqntid
                                           : fn.reqnctapercluster;
        dims[1] = dims[2] = 1;
        for (int i = 0; i < 3; ++i) {
          if (!parseUnsigned(dims[i]))
            return false;
          if (!isPunct(","))
            break;
          if (!advance())
            return false;
        }
      } else if (d == ".minnctapersm" || d == ".maxnreg" ||
                 d == ".maxnctapersm" || d == ".maxclusterrank") {
        while (tok.kind == Token::Integer || isPunct(","))
          if (!advance())
            return false;
      } else if (d == ".explicitcluster") {
        fn.explicitCluster = true;
      } else if (d == ".noreturn" || d == ".blocksareclusters") {
      } else if (d == ".pragma") {
        if (!skipStatement())
          return false;
      } else {
        return fail("unsupported function directive " + d);
      }
    }
    if (isPunct(";")) {
      // A declaration (prototype) only.
      module.functions.push_back(std::move(fn));
      return advance();
    }
    if (!isPunct("{"))
      return fail("expected '{' or ';' after function '" + fn.name +
                  "', found " + describe());
    fn.hasBody = true;
    if (!advance())
      return false;
    int depth = 1;
    while (true) {
      if (tok.kind == Token::End)
        return fail("unterminated body of function '" + fn.name + "'");
      if (isPunct("}")) {
        if (--depth == 0)
          break;
        Statement s;
        s.kind = Statement::ScopeEnd;
        s.line = tok.line;
        fn.body.push_back(std::move(s));
        if (!advance())
          return false;
        continue;
      }
      if (isPunct("{")) {
        ++depth;
        Statement s;
        s.kind = Statement::ScopeBegin;
        s.line = tok.line;
        fn.body.push_back(std::move(s));
        if (!advance())
          return false;
        continue;
      }
      if (!parseStatement(fn))
        return false;
    }
    module.functions.push_back(std::move(fn));
    return advance();
  }

  bool parseStatement(Function &fn) {
    unsigned line = tok.line;
    if (tok.kind == Token::Word && tok.text[0] == '.') {
      const std::string d = tok.text;
      if (d == ".loc" || d == ".file") {
        // Debug line info: `.loc 1 23 5` (and newer forms with
        // function_name/inlined_at): the rest of the line.
        unsigned l = tok.line;
        while (tok.kind != Token::End && tok.line == l && !isPunct("}"))
          if (!advance())
            return false;
        return true;
      }
      if (d == ".pragma")
        return skipStatement();
      if (isStateSpace(d)) {
        Statement s;
        s.kind = Statement::Decl;
        s.line = line;
        if (!parseDeclaration(s.decl, /*allowInit=*/d != ".reg"))
          return false;
        Declaration first = s.decl;
        fn.body.push_back(std::move(s));
        while (isPunct(",")) {
          // `.reg .b32 a, b<4>;`
          if (!advance())
            return false;
          Statement more;
          more.kind = Statement::Decl;
          more.line = tok.line;
          more.decl = first;
          more.decl.dims.clear();
          more.decl.isRange = false;
          more.decl.hasInit = false;
          more.decl.init.clear();
          if (tok.kind != Token::Word)
            return fail("expected a name, found " + describe());
          more.decl.name = tok.text;
          if (!advance())
            return false;
          if (isPunct("<")) {
            if (!advance() || !parseUnsigned(more.decl.rangeCount) ||
                !expectPunct(">"))
              return false;
            more.decl.isRange = true;
          }
          while (isPunct("[")) {
            uint64_t dim = 0;
            if (!advance() || (!isPunct("]") && !parseUnsigned(dim)) ||
                !expectPunct("]"))
              return false;
            more.decl.dims.push_back(dim);
          }
          fn.body.push_back(std::move(more));
        }
        return expectPunct(";");
      }
      return fail("unsupported directive " + d + " in function '" + fn.name +
                  "'");
    }
    Statement s;
    s.line = line;
    if (tok.kind == Token::Word && !isPunct("@")) {
      // A label: `name:`.
      std::string name = tok.text;
      Token saved = tok;
      if (!advance())
        return false;
      if (isPunct(":")) {
        s.kind = Statement::Label;
        s.label = name;
        fn.body.push_back(std::move(s));
        return advance();
      }
      s.kind = Statement::Instr;
      s.instr.line = line;
      s.instr.opcode = name;
      if (!parseOperands(s.instr))
        return false;
      fn.body.push_back(std::move(s));
      return true;
    }
    if (isPunct("@")) {
      s.kind = Statement::Instr;
      s.instr.line = line;
      if (!advance())
        return false;
      if (isPunct("!")) {
        s.instr.guardNegated = true;
        if (!advance())
          return false;
      }
      if (tok.kind != Token::Word)
        return fail("expected a guard predicate, found " + describe());
      s.instr.guard = tok.text;
      if (!advance())
        return false;
      if (tok.kind != Token::Word)
        return fail("expected an opcode, found " + describe());
      s.instr.opcode = tok.text;
      if (!advance() || !parseOperands(s.instr))
        return false;
      fn.body.push_back(std::move(s));
      return true;
    }
    return fail("expected an instruction, found " + describe());
  }

  bool parseOperands(Instruction &instr) {
    while (!isPunct(";")) {
      if (tok.kind == Token::End)
        return fail("expected ';' after '" + instr.opcode + "'");
      Operand op;
      if (!parseOperand(op))
        return false;
      instr.operands.push_back(std::move(op));
      if (isPunct(",")) {
        if (!advance())
          return false;
        continue;
      }
      if (!isPunct(";"))
        return fail("expected ',' or ';' in '" + instr.opcode + "', found " +
                    describe());
    }
    return advance();
  }

  bool parseOperand(Operand &op) {
    if (isPunct("{") || isPunct("(")) {
      bool paren = isPunct("(");
      const char *close = paren ? ")" : "}";
      op.kind = Operand::Vector;
      op.name = paren ? "(" : "{";
      if (!advance())
        return false;
      while (!isPunct(close)) {
        Operand element;
        if (!parseOperand(element))
          return false;
        op.elements.push_back(std::move(element));
        if (isPunct(",")) {
          if (!advance())
            return false;
        } else if (!isPunct(close)) {
          return fail(std::string("expected ',' or '") + close + "', found " +
                      describe());
        }
      }
      return advance();
    }
    if (isPunct("[")) {
      op.kind = Operand::Address;
      if (!advance())
        return false;
      if (tok.kind == Token::Word) {
        op.name = tok.text;
        if (!advance())
          return false;
      }
      // A tensor-map operand: [map, {c0, c1, ...}] (and im2col offsets in
      // a second vector); the vectors are the operand's elements.
      while (!op.name.empty() && isPunct(",")) {
        if (!advance())
          return false;
        if (!isPunct("{"))
          return fail("expected '{' after ',' in an address, found " +
                      describe());
        Operand vector;
        if (!parseOperand(vector))
          return false;
        op.elements.push_back(std::move(vector));
        if (!isPunct(",") && !isPunct("]"))
          return fail("expected ',' or ']' in an address, found " + describe());
      }
      // Offsets: `+8`, `+-8`, `-8`, or a lone integer.
      while (!isPunct("]")) {
        bool negative = false;
        if (isPunct("+")) {
          if (!advance())
            return false;
        } else if (!op.name.empty() || op.offset != 0) {
          if (!isPunct("-"))
            return fail("expected '+', '-' or ']' in an address, found " +
                        describe());
        }
        if (isPunct("-")) {
          negative = true;
          if (!advance())
            return false;
        }
        if (tok.kind != Token::Integer)
          return fail("expected an address offset, found " + describe());
        int64_t v = static_cast<int64_t>(tok.bits);
        op.offset += negative ? -v : v;
        if (!advance())
          return false;
      }
      return advance();
    }
    if (isPunct("!")) {
      if (!advance())
        return false;
      if (tok.kind != Token::Word)
        return fail("expected a predicate after '!', found " + describe());
      op.kind = Operand::Register;
      op.negated = true;
      op.name = tok.text;
      return advance();
    }
    if (isPunct("-")) {
      if (!advance())
        return false;
      if (tok.kind == Token::Integer) {
        op.kind = Operand::Integer;
        op.bits = 0 - tok.bits;
        return advance();
      }
      if (tok.kind == Token::Float) {
        op.kind = Operand::Float;
        op.isDouble = tok.isDouble;
        op.bits = tok.bits ^ (tok.isDouble ? uint64_t(1) << 63 : 1u << 31);
        return advance();
      }
      return fail("expected a number after '-', found " + describe());
    }
    if (tok.kind == Token::Integer) {
      op.kind = Operand::Integer;
      op.bits = tok.bits;
      return advance();
    }
    if (tok.kind == Token::Float) {
      op.kind = Operand::Float;
      op.bits = tok.bits;
      op.isDouble = tok.isDouble;
      return advance();
    }
    if (tok.kind == Token::Word) {
      bool sink = tok.text == "_";
      op.kind = sink ? Operand::Sink : Operand::Register;
      if (!sink)
        op.name = tok.text;
      if (!advance())
        return false;
      if (isPunct("|")) {
        // %d|%p, with `_` for either (elect.sync _|%p)
        if (!advance())
          return false;
        if (tok.kind != Token::Word)
          return fail("expected a second predicate after '|', found " +
                      describe());
        Operand first = op, second;
        second.kind = tok.text == "_" ? Operand::Sink : Operand::Register;
        if (second.kind == Operand::Register)
          second.name = tok.text;
        op = Operand();
        op.kind = Operand::Pair;
        op.elements = {first, second};
        return advance();
      }
      if (sink)
        return true;
      if (isPunct("+")) {
        // symbol+offset
        if (!advance())
          return false;
        if (tok.kind != Token::Integer)
          return fail("expected an offset after '+', found " + describe());
        op.offset = static_cast<int64_t>(tok.bits);
        return advance();
      }
      return true;
    }
    return fail("expected an operand, found " + describe());
  }

  Lexer lexer;
  Token tok;
  std::string &error;
};

} // namespace

std::unique_ptr<Module> gmm::sim::ptx::parse(std::string_view text,
                                             std::string &error) {
  error.clear();
  Parser parser(text, error);
  std::unique_ptr<Module> module = parser.parseModule();
  if (!module && error.empty())
    error = "malformed PTX";
  return module;
}
