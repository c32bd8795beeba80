//===- Decoder.cpp - PTX syntax to executable programs --------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Turns a kernel and the functions it calls into one Program: lays out its
// kernel parameters, shared, local and per-thread parameter memory, gives
// every register, immediate and special register a slot, resolves labels
// and calls, and lets the instruction families (Arithmetic.cpp,
// MemoryOps.cpp, ControlDecoder.cpp, Tensor.cpp) decode each instruction. An
// opcode or modifier that no family takes is a load-time error.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"
#include "DeviceModel.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

using namespace gmm::sim;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

namespace {
struct TypeInfo {
  const char *name;
  Ty type;
  unsigned bits;
};
constexpr TypeInfo kTypes[] = {
    {"pred", Ty::Pred, 1},  {"b8", Ty::B8, 8},
    {"b16", Ty::B16, 16},   {"b32", Ty::B32, 32},
    {"b64", Ty::B64, 64},   {"b128", Ty::B128, 128},
    {"u8", Ty::U8, 8},      {"u16", Ty::U16, 16},
    {"u32", Ty::U32, 32},   {"u64", Ty::U64, 64},
    {"s8", Ty::S8, 8},      {"s16", Ty::S16, 16},
    {"s32", Ty::S32, 32},   {"s64", Ty::S64, 64},
    {"f16", Ty::F16, 16},   {"f16x2", Ty::F16x2, 32},
    {"bf16", Ty::BF16, 16}, {"bf16x2", Ty::BF16x2, 32},
    {"tf32", Ty::TF32, 32}, {"f32", Ty::F32, 32},
    {"f64", Ty::F64, 64},
};
} // namespace

unsigned gmm::sim::bitWidth(Ty type) {
  for (const TypeInfo &info : kTypes)
    if (info.type == type)
      return info.bits;
  return 0;
}

bool gmm::sim::isSignedInt(Ty type) {
  return type == Ty::S8 || type == Ty::S16 || type == Ty::S32 ||
         type == Ty::S64;
}
bool gmm::sim::isUnsignedInt(Ty type) {
  return type == Ty::U8 || type == Ty::U16 || type == Ty::U32 ||
         type == Ty::U64;
}
bool gmm::sim::isInteger(Ty type) {
  return isSignedInt(type) || isUnsignedInt(type) || type == Ty::B8 ||
         type == Ty::B16 || type == Ty::B32 || type == Ty::B64 ||
         type == Ty::B128;
}
bool gmm::sim::isFloatType(Ty type) {
  return type == Ty::F16 || type == Ty::F16x2 || type == Ty::BF16 ||
         type == Ty::BF16x2 || type == Ty::TF32 || type == Ty::F32 ||
         type == Ty::F64;
}
const char *gmm::sim::typeName(Ty type) {
  for (const TypeInfo &info : kTypes)
    if (info.type == type)
      return info.name;
  return "none";
}
Ty gmm::sim::parseType(const std::string &name) {
  for (const TypeInfo &info : kTypes)
    if (name == info.name)
      return info.type;
  return Ty::None;
}

const char *gmm::sim::spaceName(Space space) {
  switch (space) {
  case Space::Generic:
    return "generic";
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  case Space::Local:
    return "local";
  case Space::Param:
    return "param";
  case Space::Const:
    return "const";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Opcodes
//===----------------------------------------------------------------------===//

namespace {
struct OpcodeInfo {
  const char *mnemonic;
  OpcodeFamily family;
};
constexpr OpcodeInfo kOpcodes[] = {
#define GMM_SIM_OPCODE(name, mnemonic, family) {mnemonic, OpcodeFamily::family},
#include "Opcodes.def"
};

using FamilyDecoderFn = bool (*)(Decoder &, const ptx::Instruction &,
                                 Modifiers &, Instr &);
/// Indexed by OpcodeFamily.
constexpr FamilyDecoderFn kFamilyDecoders[] = {
    &decodeArithmetic, &decodeMemory,   &decodeControl,
    &decodeTensor,     &decodeMbarrier, &decodeWgmma,
};
static_assert(std::size(kFamilyDecoders) ==
                  static_cast<size_t>(OpcodeFamily::Wgmma) + 1,
              "one decoder per OpcodeFamily");
} // namespace

const char *gmm::sim::opcodeName(Opcode op) {
  return kOpcodes[static_cast<size_t>(op)].mnemonic;
}

OpcodeFamily gmm::sim::opcodeFamily(Opcode op) {
  return kOpcodes[static_cast<size_t>(op)].family;
}

bool gmm::sim::lookupOpcode(const std::string &mnemonic, Opcode &op) {
  static const std::unordered_map<std::string, Opcode> byMnemonic = [] {
    std::unordered_map<std::string, Opcode> map;
    for (size_t i = 0; i < std::size(kOpcodes); ++i)
      map.emplace(kOpcodes[i].mnemonic, static_cast<Opcode>(i));
    return map;
  }();
  auto it = byMnemonic.find(mnemonic);
  if (it == byMnemonic.end())
    return false;
  op = it->second;
  return true;
}

//===----------------------------------------------------------------------===//
// Modifiers
//===----------------------------------------------------------------------===//

Modifiers::Modifiers(const std::string &opcode) {
  size_t start = 0;
  while (true) {
    size_t dot = opcode.find('.', start);
    parts.push_back(opcode.substr(start, dot - start));
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  used.assign(parts.size(), false);
  used[0] = true;
}

bool Modifiers::take(const char *name) {
  for (size_t i = 1; i < parts.size(); ++i)
    if (!used[i] && parts[i] == name) {
      used[i] = true;
      return true;
    }
  return false;
}

int Modifiers::takeOneOf(std::initializer_list<const char *> names) {
  int index = 0;
  for (const char *name : names) {
    if (take(name))
      return index;
    ++index;
  }
  return -1;
}

std::vector<Ty> Modifiers::takeTypes() {
  std::vector<Ty> types;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (used[i])
      continue;
    Ty type = parseType(parts[i]);
    if (type == Ty::None)
      continue;
    used[i] = true;
    types.push_back(type);
  }
  return types;
}

bool Modifiers::takeSpace(Space &space) {
  static const struct {
    const char *name;
    Space space;
  } spaces[] = {{"global", Space::Global},
                {"shared", Space::Shared},
                {"shared::cta", Space::Shared},
                {"local", Space::Local},
                // A cluster of one CTA: its shared::cluster window holds
                // only the CTA's own shared memory, at the same offsets.
                {"shared::cluster", Space::Shared},
                {"param", Space::Param},
                {"param::entry", Space::Param},
                {"param::func", Space::Param},
                {"const", Space::Const}};
  for (const auto &entry : spaces)
    if (take(entry.name)) {
      space = entry.space;
      return true;
    }
  return false;
}

FamilyDecoder::FamilyDecoder(Decoder &d, const ptx::Instruction &instr,
                             Modifiers &mods, Instr &out)
    : d(d), instr(instr), ops(instr.operands), mods(mods), out(out) {}

bool FamilyDecoder::count(size_t n) {
  if (ops.size() != n)
    return d.fail("expected " + std::to_string(n) + " operands, got " +
                  std::to_string(ops.size()));
  return true;
}

Round Modifiers::takeRound(bool integerRounding) {
  static const Round kRounds[] = {Round::RN, Round::RZ, Round::RM, Round::RP,
                                  Round::RNA};
  int index = integerRounding ? takeOneOf({"rni", "rzi", "rmi", "rpi"})
                              : takeOneOf({"rn", "rz", "rm", "rp", "rna"});
  return index < 0 ? Round::None : kRounds[index];
}

void Modifiers::takeIgnorable() {
  static const char *const ignorable[] = {
      // Cache operators and hints: where the data is cached, not what it is.
      "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "L1::evict_normal",
      "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
      "L1::no_allocate", "L2::evict_normal", "L2::evict_first",
      "L2::evict_last", "L2::64B", "L2::128B", "L2::256B",
      // Memory-model qualifiers: the simulator is sequentially consistent.
      "weak", "volatile", "relaxed", "acquire", "release", "acq_rel", "cta",
      "gpu", "sys", "cluster", "mmio"};
  for (const char *name : ignorable)
    while (take(name)) {
    }
}

unsigned Modifiers::takeVector() {
  switch (takeOneOf({"v2", "v4", "v8"})) {
  case 0:
    return 2;
  case 1:
    return 4;
  case 2:
    return 8;
  default:
    return 1;
  }
}

std::string Modifiers::unused() const {
  for (size_t i = 1; i < parts.size(); ++i)
    if (!used[i])
      return parts[i];
  return "";
}

//===----------------------------------------------------------------------===//
// Layout helpers
//===----------------------------------------------------------------------===//

bool gmm::sim::isZeroLengthShared(const ptx::Declaration &decl) {
  return decl.space == "shared" && !decl.isExtern && decl.dims.empty() &&
         decl.type == "b8" && decl.vector == 1 && decl.align >= 16 &&
         !decl.hasInit && !decl.isRange;
}

bool gmm::sim::declarationLayout(const ptx::Declaration &decl, uint64_t &size,
                                 unsigned &align, std::string &error) {
  Ty type = parseType(decl.type);
  if (type == Ty::None || type == Ty::Pred) {
    error = "line " + std::to_string(decl.line) + ": unsupported type ." +
            decl.type + " of '" + decl.name + "'";
    return false;
  }
  uint64_t element = byteWidth(type) * decl.vector;
  unsigned natural = static_cast<unsigned>(element);
  uint64_t count = 1;
  for (uint64_t dim : decl.dims) {
    if (dim == 0) {
      // `[]`: sized by the initializer, or dynamic (extern shared).
      uint64_t fromInit = decl.init.size() / std::max<uint64_t>(count, 1);
      dim = fromInit;
    }
    if (dim && count > (uint64_t(1) << 40) / dim) {
      error = "line " + std::to_string(decl.line) + ": '" + decl.name +
              "' is too large";
      return false;
    }
    count *= dim;
  }
  size = element * count;
  align = decl.align ? decl.align : natural;
  if (align == 0 || (align & (align - 1))) {
    error = "line " + std::to_string(decl.line) + ": invalid alignment " +
            std::to_string(align) + " of '" + decl.name + "'";
    return false;
  }
  return true;
}

static uint64_t alignTo(uint64_t value, uint64_t align) {
  return (value + align - 1) / align * align;
}

namespace {

/// Special registers with a fixed slot.
struct SpecialRegister {
  const char *name;
  uint32_t slot;
};
constexpr SpecialRegister kSpecials[] = {
    {"%tid.x", kSlotTidX},
    {"%tid.y", kSlotTidY},
    {"%tid.z", kSlotTidZ},
    {"%ntid.x", kSlotNtidX},
    {"%ntid.y", kSlotNtidY},
    {"%ntid.z", kSlotNtidZ},
    {"%ctaid.x", kSlotCtaidX},
    {"%ctaid.y", kSlotCtaidY},
    {"%ctaid.z", kSlotCtaidZ},
    {"%nctaid.x", kSlotNctaidX},
    {"%nctaid.y", kSlotNctaidY},
    {"%nctaid.z", kSlotNctaidZ},
    {"%laneid", kSlotLaneid},
    {"%warpid", kSlotWarpid},
    {"%nwarpid", kSlotNwarpid},
    {"%smid", kSlotSmid},
    {"%nsmid", kSlotNsmid},
    {"%gridid", kSlotGridid},
    {"%lanemask_eq", kSlotLanemaskEq},
    {"%lanemask_lt", kSlotLanemaskLt},
    {"%lanemask_le", kSlotLanemaskLe},
    {"%lanemask_gt", kSlotLanemaskGt},
    {"%lanemask_ge", kSlotLanemaskGe},
    {"%dynamic_smem_size", kSlotDynamicSmemSize},
    {"%total_smem_size", kSlotTotalSmemSize},
    {"%cluster_ctarank", kSlotClusterCtarank},
    {"%cluster_nctarank", kSlotClusterNctarank},
    {"%is_explicit_cluster", kSlotIsExplicitCluster},
    {"%clusterid.x", kSlotClusteridX},
    {"%clusterid.y", kSlotClusteridY},
    {"%clusterid.z", kSlotClusteridZ},
    {"%nclusterid.x", kSlotNclusteridX},
    {"%nclusterid.y", kSlotNclusteridY},
    {"%nclusterid.z", kSlotNclusteridZ},
    {"%cluster_ctaid.x", kSlotClusterCtaidX},
    {"%cluster_ctaid.y", kSlotClusterCtaidY},
    {"%cluster_ctaid.z", kSlotClusterCtaidZ},
    {"%cluster_nctaid.x", kSlotClusterNctaidX},
    {"%cluster_nctaid.y", kSlotClusterNctaidY},
    {"%cluster_nctaid.z", kSlotClusterNctaidZ},
};

struct Symbol {
  enum Kind { Register, Memory } kind = Register;
  // Register
  uint32_t slot = 0;
  unsigned width = 0;
  // Memory
  Space space = Space::Global;
  uint64_t address = 0;
  uint64_t size = 0;
};

/// Where a function's code and parameters go in the program.
struct FunctionLayout {
  const ptx::Function *fn = nullptr;
  uint32_t entry = 0;
  uint32_t size = 0;
  std::vector<uint32_t> paramOffsets, paramSizes, retOffsets, retSizes;
};

/// Names of the functions `fn` calls.
void collectCallees(const ptx::Function &fn, std::vector<std::string> &out) {
  for (const ptx::Statement &s : fn.body) {
    if (s.kind != ptx::Statement::Instr)
      continue;
    const std::string &op = s.instr.opcode;
    if (op != "call" && op.rfind("call.", 0) != 0)
      continue;
    for (const ptx::Operand &operand : s.instr.operands)
      if (operand.kind == ptx::Operand::Register && operand.name[0] != '%') {
        out.push_back(operand.name);
        break;
      }
  }
}

/// Every name an instruction of `fn` mentions.
void collectNames(const ptx::Function &fn, std::set<std::string> &names) {
  std::vector<const ptx::Operand *> stack;
  for (const ptx::Statement &s : fn.body) {
    if (s.kind != ptx::Statement::Instr)
      continue;
    for (const ptx::Operand &operand : s.instr.operands)
      stack.push_back(&operand);
    while (!stack.empty()) {
      const ptx::Operand *op = stack.back();
      stack.pop_back();
      if (!op->name.empty())
        names.insert(op->name);
      for (const ptx::Operand &element : op->elements)
        stack.push_back(&element);
    }
  }
}

unsigned countInstructions(const ptx::Function &fn) {
  unsigned count = 0;
  for (const ptx::Statement &s : fn.body)
    count += s.kind == ptx::Statement::Instr;
  // Every function ends in an implicit return.
  return count + 1;
}

bool isBuiltinFunction(const std::string &name, CallSite::Builtin &builtin) {
  if (name == "vprintf")
    builtin = CallSite::Vprintf;
  else if (name == "__assertfail")
    builtin = CallSite::AssertFail;
  else if (name == "malloc")
    builtin = CallSite::Malloc;
  else if (name == "free")
    builtin = CallSite::Free;
  else
    return false;
  return true;
}

class ProgramBuilder;

/// Decodes one function's body into the program.
class FunctionDecoder final : public Decoder {
public:
  FunctionDecoder(ProgramBuilder &builder, const FunctionLayout &layout)
      : builder(builder), layout(layout) {}

  bool run();

  // Decoder
  bool fail(const std::string &message) override;
  bool source(const ptx::Operand &operand, Ty type, uint32_t &slot) override;
  bool dest(const ptx::Operand &operand, uint32_t &slot) override;
  unsigned registerWidth(const ptx::Operand &operand) override;
  bool address(const ptx::Operand &operand, Space space, uint32_t &base,
               int64_t &offset) override;
  uint32_t constant(uint64_t bits) override;
  uint32_t label(const std::string &name) override;
  void setOperands(Instr &in, const std::vector<uint32_t> &slots) override;
  unsigned arch() const override;
  Program &program() override;
  bool vectorElements(const ptx::Operand &operand,
                      std::vector<const ptx::Operand *> &out) override;
  bool predicate(const ptx::Operand &operand, uint32_t &slot,
                 bool &negated) override;

private:
  const Symbol *lookup(const std::string &name) const;
  bool declare(const ptx::Declaration &decl);
  bool decodeInstruction(const ptx::Instruction &instr);
  bool decodeCall(const ptx::Instruction &instr, Instr &out, Modifiers &mods);

  ProgramBuilder &builder;
  const FunctionLayout &layout;
  std::vector<std::unordered_map<std::string, Symbol>> scopes;
  /// Labels by "scope:name": a label is visible in the `{ }` block that
  /// declares it and in the blocks inside it (inline asm repeats its labels
  /// in blocks of their own). Scopes are numbered in the order they open.
  std::unordered_map<std::string, uint32_t> labels;
  /// The numbers of the scopes open at the current statement.
  std::vector<uint32_t> scopeIds;
  static std::string labelKey(uint32_t scope, const std::string &name) {
    return std::to_string(scope) + ":" + name;
  }
  const ptx::Instruction *current = nullptr;
  bool unresolvedLabel = false;
  /// Instructions decoded so far (the next one's index from the entry).
  uint32_t decodedCount = 0;
};

class ProgramBuilder {
public:
  ProgramBuilder(const ptx::Module &module, const GlobalSymbols &globals,
                 unsigned arch, Program &program, std::string &error)
      : module(module), globals(globals), archValue(arch), prog(program),
        error(error) {}

  bool build(const ptx::Function &entry, bool validateOnly);

  const ptx::Function *findFunction(const std::string &name) const {
    for (const ptx::Function &fn : module.functions)
      if (fn.name == name && fn.hasBody)
        return &fn;
    return nullptr;
  }
  const ptx::Function *findDeclaration(const std::string &name) const {
    for (const ptx::Function &fn : module.functions)
      if (fn.name == name)
        return &fn;
    return nullptr;
  }
  const FunctionLayout *layoutOf(const std::string &name) const {
    for (const FunctionLayout &l : layouts)
      if (l.fn->name == name)
        return &l;
    return nullptr;
  }

  const ptx::Module &module;
  const GlobalSymbols &globals;
  unsigned archValue;
  Program &prog;
  std::string &error;
  std::vector<FunctionLayout> layouts;
  /// Shared memory offsets per program: module-scope names and
  /// function-scope declarations.
  std::map<std::string, uint64_t> sharedOffsets;
  std::map<const ptx::Declaration *, uint64_t> localSharedOffsets;
  std::unordered_map<uint64_t, uint32_t> constantSlots;

  uint32_t newSlot() { return prog.numSlots++; }
  uint32_t constant(uint64_t bits) {
    auto it = constantSlots.find(bits);
    if (it != constantSlots.end())
      return it->second;
    uint32_t slot = newSlot();
    constantSlots.emplace(bits, slot);
    prog.constants.emplace_back(slot, bits);
    return slot;
  }

private:
  bool collectReachable(const ptx::Function &entry);
  bool layoutParams(const ptx::Function &entry);
  bool layoutShared();
};

//===----------------------------------------------------------------------===//
// ProgramBuilder
//===----------------------------------------------------------------------===//

bool ProgramBuilder::collectReachable(const ptx::Function &entry) {
  // Depth-first, in call order; a function on the current path again is
  // recursion, which the per-function static frames cannot hold.
  std::vector<const ptx::Function *> path;
  std::set<const ptx::Function *> done;
  std::vector<const ptx::Function *> order;
  std::function<bool(const ptx::Function &)> visit =
      [&](const ptx::Function &fn) -> bool {
    if (std::find(path.begin(), path.end(), &fn) != path.end()) {
      error = "line " + std::to_string(fn.line) + ": function '" + fn.name +
              "' is called recursively (from '" + entry.name +
              "'); the simulator does not support recursion";
      return false;
    }
    if (done.count(&fn))
      return true;
    path.push_back(&fn);
    order.push_back(&fn);
    std::vector<std::string> callees;
    collectCallees(fn, callees);
    for (const std::string &name : callees) {
      CallSite::Builtin builtin;
      if (const ptx::Function *callee = findFunction(name)) {
        if (!visit(*callee))
          return false;
      } else if (!isBuiltinFunction(name, builtin) && !findDeclaration(name)) {
        // Not a function: an indirect call through a register is reported
        // by the call decoder.
      }
    }
    path.pop_back();
    done.insert(&fn);
    return true;
  };
  if (!visit(entry))
    return false;
  uint32_t pc = 0;
  for (const ptx::Function *fn : order) {
    FunctionLayout layout;
    layout.fn = fn;
    layout.entry = pc;
    layout.size = countInstructions(*fn);
    pc += layout.size;
    layouts.push_back(std::move(layout));
  }
  return true;
}

bool ProgramBuilder::layoutParams(const ptx::Function &entry) {
  // Kernel parameters: the launch's parameter buffer.
  uint64_t offset = 0;
  for (const ptx::Declaration &decl : entry.params) {
    uint64_t size = 0;
    unsigned align = 1;
    if (!declarationLayout(decl, size, align, error))
      return false;
    offset = alignTo(offset, align);
    ParamInfo info;
    info.name = decl.name;
    info.offset = static_cast<uint32_t>(offset);
    info.size = static_cast<uint32_t>(size);
    info.align = align;
    prog.params.push_back(info);
    offset += size;
  }
  if (offset > 32764) {
    error = "line " + std::to_string(entry.line) + ": kernel '" + entry.name +
            "' has " + std::to_string(offset) +
            " bytes of parameters (the limit is 32764)";
    return false;
  }
  prog.paramBufferBytes = static_cast<uint32_t>(offset);
  // Parameters and return values of called functions: per-thread memory.
  for (FunctionLayout &layout : layouts) {
    if (layout.fn == &entry)
      continue;
    auto place = [&](const std::vector<ptx::Declaration> &decls,
                     std::vector<uint32_t> &offsets,
                     std::vector<uint32_t> &sizes) {
      for (const ptx::Declaration &decl : decls) {
        uint64_t size = 0;
        unsigned align = 1;
        if (decl.space == "reg") {
          // `.reg` parameters are passed like .param ones of their size.
          Ty type = parseType(decl.type);
          size = std::max(1u, byteWidth(type));
          align = static_cast<unsigned>(size);
        } else if (!declarationLayout(decl, size, align, error)) {
          return false;
        }
        prog.paramBytes =
            static_cast<uint32_t>(alignTo(prog.paramBytes, align));
        offsets.push_back(prog.paramBytes);
        sizes.push_back(static_cast<uint32_t>(size));
        prog.paramBytes += static_cast<uint32_t>(size);
      }
      return true;
    };
    if (!place(layout.fn->params, layout.paramOffsets, layout.paramSizes) ||
        !place(layout.fn->returns, layout.retOffsets, layout.retSizes))
      return false;
  }
  return true;
}

bool ProgramBuilder::layoutShared() {
  // Static shared memory: the module-scope variables the program names,
  // then the function-scope ones, in order; dynamic (extern) shared memory
  // after them.
  std::set<std::string> names;
  for (const FunctionLayout &layout : layouts)
    collectNames(*layout.fn, names);
  uint64_t offset = 0;
  unsigned dynamicAlign = 16;
  std::vector<std::string> externs;
  std::vector<const ptx::Declaration *> zeroLength;
  for (const auto &[name, symbol] : globals) {
    if (symbol.space != Space::Shared || !names.count(name))
      continue;
    if (symbol.isExternShared) {
      dynamicAlign = std::max(dynamicAlign, symbol.align);
      externs.push_back(name);
      continue;
    }
    offset = alignTo(offset, symbol.align);
    sharedOffsets[name] = offset;
    offset += symbol.size;
  }
  for (const FunctionLayout &layout : layouts) {
    for (const ptx::Statement &s : layout.fn->body) {
      if (s.kind != ptx::Statement::Decl || s.decl.space != "shared")
        continue;
      uint64_t size = 0;
      unsigned align = 1;
      if (!declarationLayout(s.decl, size, align, error))
        return false;
      if (s.decl.isExtern || isZeroLengthShared(s.decl)) {
        dynamicAlign = std::max(dynamicAlign, align);
        zeroLength.push_back(&s.decl);
        continue;
      }
      offset = alignTo(offset, align);
      localSharedOffsets[&s.decl] = offset;
      offset += size;
    }
  }
  prog.staticSharedBytes = static_cast<uint32_t>(offset);
  // On sm_90, dynamic shared memory starts on a 1024-byte boundary: where
  // a 128-byte-swizzled TMA tile or wgmma operand has to start (programs
  // that place such tiles at its start rely on it). The padding does not
  // count against the block's limit (Device.cpp).
  if (archValue >= 90)
    dynamicAlign = std::max(dynamicAlign, 1024u);
  prog.dynamicSharedOffset =
      static_cast<uint32_t>(alignTo(offset, dynamicAlign));
  for (const std::string &name : externs)
    sharedOffsets[name] = prog.dynamicSharedOffset;
  for (const ptx::Declaration *decl : zeroLength)
    localSharedOffsets[decl] = prog.dynamicSharedOffset;
  constexpr uint64_t kMaxStatic = limits::kStaticSharedBytesPerBlock;
  if (offset > kMaxStatic) {
    error = "kernel '" + prog.name + "' uses " + std::to_string(offset) +
            " bytes of static shared memory (the limit is " +
            std::to_string(kMaxStatic) +
            " bytes; more needs dynamic shared memory)";
    return false;
  }
  return true;
}

bool ProgramBuilder::build(const ptx::Function &entry, bool validateOnly) {
  prog.name = entry.name;
  for (int i = 0; i < 3; ++i) {
    prog.maxntid[i] = entry.maxntid[i];
    prog.reqntid[i] = entry.reqntid[i];
    prog.reqnctapercluster[i] = entry.reqnctapercluster[i];
  }
  prog.explicitCluster = entry.explicitCluster;
  if (!collectReachable(entry) || !layoutParams(entry) || !layoutShared())
    return false;
  uint32_t total = 0;
  for (const FunctionLayout &layout : layouts)
    total += layout.size;
  prog.code.resize(total);
  for (const FunctionLayout &layout : layouts) {
    prog.functionStarts.emplace_back(layout.entry, layout.fn->name);
    FunctionDecoder decoder(*this, layout);
    if (!decoder.run())
      return false;
    if (validateOnly)
      break;
  }
  for (Instr &in : prog.code)
    in.ops = prog.pool.data() + in.opsOffset;
  prog.usesCalls = !prog.calls.empty();
  return true;
}

//===----------------------------------------------------------------------===//
// FunctionDecoder
//===----------------------------------------------------------------------===//

bool FunctionDecoder::fail(const std::string &message) {
  if (builder.error.empty()) {
    std::string where =
        current ? "line " + std::to_string(current->line) + ": " : "";
    std::string what = current ? " in '" + current->opcode + "'" : "";
    builder.error =
        where + message + what + " (function '" + layout.fn->name + "')";
  }
  return false;
}

const Symbol *FunctionDecoder::lookup(const std::string &name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

bool FunctionDecoder::declare(const ptx::Declaration &decl) {
  auto &scope = scopes.back();
  Program &prog = builder.prog;
  if (decl.space == "reg") {
    Ty type = parseType(decl.type);
    if (type == Ty::None)
      return fail("unsupported register type ." + decl.type);
    if (decl.vector != 1)
      return fail("vector registers (.v" + std::to_string(decl.vector) +
                  ") are not supported");
    if (type == Ty::B128)
      return fail(".b128 registers are not supported");
    unsigned width = bitWidth(type);
    // Every register is a slot of every lane of every warp: bound them.
    constexpr uint32_t kMaxSlots = 1u << 17;
    uint64_t adding = decl.isRange ? decl.rangeCount : 1;
    if (prog.numSlots + adding > kMaxSlots)
      return fail("more than " + std::to_string(kMaxSlots) +
                  " registers in one kernel");
    auto add = [&](const std::string &name) {
      Symbol symbol;
      symbol.kind = Symbol::Register;
      symbol.slot = builder.newSlot();
      symbol.width = width;
      scope[name] = symbol;
    };
    if (decl.isRange) {
      for (unsigned i = 0; i < decl.rangeCount; ++i)
        add(decl.name + std::to_string(i));
    } else {
      add(decl.name);
    }
    return true;
  }
  uint64_t size = 0;
  unsigned align = 1;
  std::string error;
  if (!declarationLayout(decl, size, align, error))
    return fail(error);
  Symbol symbol;
  symbol.kind = Symbol::Memory;
  symbol.size = size;
  if (decl.space == "local") {
    if (decl.hasInit)
      return fail("initialized .local variables are not supported");
    prog.localBytes = static_cast<uint32_t>(alignTo(prog.localBytes, align));
    symbol.space = Space::Local;
    symbol.address = prog.localBytes;
    if (size > (uint64_t(1) << 24))
      return fail("local variable '" + decl.name + "' is too large");
    prog.localBytes += static_cast<uint32_t>(size);
  } else if (decl.space == "param") {
    prog.paramBytes = static_cast<uint32_t>(alignTo(prog.paramBytes, align));
    symbol.space = Space::Param;
    symbol.address = kThreadParamBase + prog.paramBytes;
    prog.paramBytes += static_cast<uint32_t>(size);
  } else if (decl.space == "shared") {
    symbol.space = Space::Shared;
    auto it = builder.localSharedOffsets.find(&decl);
    symbol.address =
        decl.isExtern
            ? prog.dynamicSharedOffset
            : (it == builder.localSharedOffsets.end() ? 0 : it->second);
  } else {
    return fail("." + decl.space +
                " variables inside functions are not "
                "supported");
  }
  scope[decl.name] = symbol;
  return true;
}

uint32_t FunctionDecoder::constant(uint64_t bits) {
  return builder.constant(bits);
}

uint32_t FunctionDecoder::label(const std::string &name) {
  for (auto scope = scopeIds.rbegin(); scope != scopeIds.rend(); ++scope) {
    auto it = labels.find(labelKey(*scope, name));
    if (it != labels.end())
      return it->second;
  }
  unresolvedLabel = true;
  fail("unknown label '" + name + "'");
  return 0;
}

void FunctionDecoder::setOperands(Instr &in,
                                  const std::vector<uint32_t> &slots) {
  in.opsOffset = static_cast<uint32_t>(builder.prog.pool.size());
  in.numOps = static_cast<uint16_t>(slots.size());
  builder.prog.pool.insert(builder.prog.pool.end(), slots.begin(), slots.end());
}

unsigned FunctionDecoder::arch() const { return builder.archValue; }
Program &FunctionDecoder::program() { return builder.prog; }

bool FunctionDecoder::vectorElements(const ptx::Operand &operand,
                                     std::vector<const ptx::Operand *> &out) {
  out.clear();
  if (operand.kind == ptx::Operand::Vector) {
    for (const ptx::Operand &element : operand.elements)
      out.push_back(&element);
    return true;
  }
  out.push_back(&operand);
  return true;
}

unsigned FunctionDecoder::registerWidth(const ptx::Operand &operand) {
  if (operand.kind != ptx::Operand::Register)
    return 0;
  const Symbol *symbol = lookup(operand.name);
  return symbol && symbol->kind == Symbol::Register ? symbol->width : 0;
}

/// The value of a literal operand as bits of `type`.
static bool literalBits(const ptx::Operand &operand, Ty type, uint64_t &bits) {
  if (operand.kind == ptx::Operand::Integer) {
    bits = operand.bits;
    if (type == Ty::F32 || type == Ty::F64 || type == Ty::F16 ||
        type == Ty::BF16)
      return false; // integers are not floating-point literals
    return true;
  }
  // Float literal: 0f (f32 bits), 0d or decimal (f64 bits).
  double value = operand.isDouble ? bitsAs<double>(operand.bits)
                                  : static_cast<double>(bitsAs<float>(
                                        static_cast<uint32_t>(operand.bits)));
  switch (type) {
  case Ty::F64:
    bits = asBits(value);
    return true;
  case Ty::F32:
  case Ty::TF32:
    bits = operand.isDouble ? asBits(static_cast<float>(value)) : operand.bits;
    return true;
  case Ty::F16:
    bits = floatToHalf(static_cast<float>(value), Round::RN);
    return true;
  case Ty::BF16:
    bits = floatToBF16(static_cast<float>(value), Round::RN);
    return true;
  default:
    // Bit types take the literal's bits (mov.b32 %r, 0f3F800000).
    bits = operand.bits;
    return bitWidth(type) >= (operand.isDouble ? 64u : 32u) || type == Ty::None;
  }
}

bool FunctionDecoder::source(const ptx::Operand &operand, Ty type,
                             uint32_t &slot) {
  switch (operand.kind) {
  case ptx::Operand::Integer:
  case ptx::Operand::Float: {
    uint64_t bits = 0;
    if (!literalBits(operand, type, bits))
      return fail(std::string("a literal of the wrong kind for .") +
                  typeName(type));
    slot = constant(bits);
    return true;
  }
  case ptx::Operand::Register: {
    if (operand.negated)
      return fail("a negated operand (!" + operand.name +
                  ") where none is "
                  "allowed");
    if (const Symbol *symbol = lookup(operand.name)) {
      if (symbol->kind == Symbol::Register) {
        if (operand.offset)
          return fail("an offset on register " + operand.name);
        slot = symbol->slot;
        return true;
      }
      // The address of a variable in its own state space.
      slot = constant(symbol->address + operand.offset);
      return true;
    }
    for (const SpecialRegister &special : kSpecials)
      if (operand.name == special.name) {
        slot = special.slot;
        return true;
      }
    if (operand.name[0] == '%')
      return fail("unknown or unsupported register " + operand.name);
    auto global = builder.globals.find(operand.name);
    if (global != builder.globals.end()) {
      uint64_t address = global->second.address;
      if (global->second.space == Space::Shared)
        address = builder.sharedOffsets[operand.name];
      slot = constant(address + operand.offset);
      return true;
    }
    for (const ParamInfo &param : builder.prog.params)
      if (param.name == operand.name && layout.fn->isEntry) {
        slot = constant(param.offset + operand.offset);
        return true;
      }
    if (builder.findDeclaration(operand.name))
      return fail("taking the address of function '" + operand.name +
                  "' is not supported");
    return fail("unknown symbol '" + operand.name + "'");
  }
  case ptx::Operand::Vector:
    return fail("a vector operand where a scalar is expected");
  case ptx::Operand::Address:
    return fail("an address operand where a value is expected");
  case ptx::Operand::Pair:
    return fail("a predicate pair where a value is expected");
  case ptx::Operand::Sink:
    return fail("'_' as a source operand");
  }
  return fail("malformed operand");
}

bool FunctionDecoder::dest(const ptx::Operand &operand, uint32_t &slot) {
  if (operand.kind == ptx::Operand::Sink) {
    slot = kSlotSink;
    return true;
  }
  if (operand.kind != ptx::Operand::Register || operand.negated ||
      operand.offset)
    return fail("expected a destination register");
  const Symbol *symbol = lookup(operand.name);
  if (!symbol || symbol->kind != Symbol::Register) {
    for (const SpecialRegister &special : kSpecials)
      if (operand.name == special.name)
        return fail("special register " + operand.name + " is read-only");
    return fail("unknown register " + operand.name);
  }
  slot = symbol->slot;
  return true;
}

bool FunctionDecoder::predicate(const ptx::Operand &operand, uint32_t &slot,
                                bool &negated) {
  if (operand.kind == ptx::Operand::Integer) {
    // A constant predicate (`bar.red.popc.u32 %r, 0, 1;`).
    negated = false;
    slot = constant(operand.bits != 0);
    return true;
  }
  if (operand.kind != ptx::Operand::Register)
    return fail("expected a predicate");
  const Symbol *symbol = lookup(operand.name);
  if (!symbol || symbol->kind != Symbol::Register)
    return fail("unknown predicate " + operand.name);
  if (symbol->width != 1)
    return fail(operand.name + " is not a predicate");
  slot = symbol->slot;
  negated = operand.negated;
  return true;
}

bool FunctionDecoder::address(const ptx::Operand &operand, Space space,
                              uint32_t &base, int64_t &offset) {
  if (operand.kind != ptx::Operand::Address)
    return fail("expected an address operand [..]");
  if (!operand.elements.empty())
    return fail("a tensor-map operand [map, {...}] where an address belongs");
  base = kSlotZero;
  offset = operand.offset;
  if (operand.name.empty())
    return true;
  if (const Symbol *symbol = lookup(operand.name)) {
    if (symbol->kind == Symbol::Register) {
      if (symbol->width != 32 && symbol->width != 64)
        return fail("address register " + operand.name +
                    " is not 32 or 64 bits wide");
      base = symbol->slot;
      return true;
    }
    if (space == Space::Generic) {
      if (symbol->space == Space::Param)
        return fail("generic addressing of the call parameter '" +
                    operand.name + "' is not supported");
      offset += static_cast<int64_t>(toGeneric(symbol->space, symbol->address));
      return true;
    }
    if (symbol->space != space)
      return fail("'" + operand.name + "' is a ." + spaceName(symbol->space) +
                  " variable, not ." + spaceName(space));
    offset += static_cast<int64_t>(symbol->address);
    return true;
  }
  if (operand.name[0] == '%')
    return fail("unknown register " + operand.name);
  for (const ParamInfo &param : builder.prog.params)
    if (param.name == operand.name && layout.fn->isEntry) {
      if (space == Space::Generic) {
        // Kernel parameters have a read-only generic window (cvta.param).
        offset += static_cast<int64_t>(toGeneric(Space::Param, param.offset));
        return true;
      }
      if (space != Space::Param)
        return fail("kernel parameter '" + operand.name + "' accessed in ." +
                    spaceName(space));
      offset += param.offset;
      return true;
    }
  auto global = builder.globals.find(operand.name);
  if (global == builder.globals.end())
    return fail("unknown symbol '" + operand.name + "'");
  Space symbolSpace = global->second.space;
  uint64_t address = symbolSpace == Space::Shared
                         ? builder.sharedOffsets[operand.name]
                         : global->second.address;
  if (space == Space::Generic) {
    offset += static_cast<int64_t>(toGeneric(symbolSpace, address));
    return true;
  }
  bool compatible = symbolSpace == space ||
                    (space == Space::Global && symbolSpace == Space::Const);
  if (!compatible)
    return fail("'" + operand.name + "' is a ." + spaceName(symbolSpace) +
                " variable, not ." + spaceName(space));
  offset += static_cast<int64_t>(address);
  return true;
}

bool FunctionDecoder::decodeCall(const ptx::Instruction &instr, Instr &out,
                                 Modifiers &mods) {
  mods.take("uni");
  // call{.uni} {(rets),} func{, (args)}{, prototype};
  const std::vector<ptx::Operand> &ops = instr.operands;
  size_t i = 0;
  const ptx::Operand *rets = nullptr, *args = nullptr;
  if (i < ops.size() && ops[i].kind == ptx::Operand::Vector &&
      ops[i].name == "(")
    rets = &ops[i++];
  if (i >= ops.size() || ops[i].kind != ptx::Operand::Register)
    return fail("expected the called function");
  const std::string &calleeName = ops[i++].name;
  if (calleeName[0] == '%' || lookup(calleeName))
    return fail("indirect calls are not supported");
  if (i < ops.size() && ops[i].kind == ptx::Operand::Vector &&
      ops[i].name == "(")
    args = &ops[i++];
  if (i != ops.size())
    return fail("unexpected operands after the call arguments");

  CallSite site;
  site.calleeName = calleeName;
  const ptx::Function *decl = builder.findDeclaration(calleeName);
  const FunctionLayout *callee = builder.layoutOf(calleeName);
  if (!callee && !isBuiltinFunction(calleeName, site.builtin)) {
    if (decl)
      return fail("call to external function '" + calleeName +
                  "', which the module does not define (the CUDA driver "
                  "would fail to link it; is libdevice linked?)");
    return fail("call to unknown function '" + calleeName + "'");
  }
  auto paramOf = [&](const ptx::Operand &operand, uint32_t &offset,
                     uint32_t &size) {
    if (operand.kind != ptx::Operand::Register)
      return fail("call arguments and results must be .param variables");
    const Symbol *symbol = lookup(operand.name);
    if (!symbol || symbol->kind != Symbol::Memory ||
        symbol->space != Space::Param)
      return fail("call argument '" + operand.name +
                  "' is not a .param variable of the call");
    offset = static_cast<uint32_t>(symbol->address - kThreadParamBase);
    size = static_cast<uint32_t>(symbol->size);
    return true;
  };
  if (rets)
    for (const ptx::Operand &r : rets->elements) {
      uint32_t offset = 0, size = 0;
      if (!paramOf(r, offset, size))
        return false;
      site.retOffsets.push_back(offset);
      site.retSizes.push_back(size);
    }
  if (args)
    for (const ptx::Operand &a : args->elements) {
      uint32_t offset = 0, size = 0;
      if (!paramOf(a, offset, size))
        return false;
      site.argOffsets.push_back(offset);
      site.argSizes.push_back(size);
    }
  if (callee) {
    if (site.argOffsets.size() != callee->paramOffsets.size() ||
        site.retOffsets.size() != callee->retOffsets.size())
      return fail("call to '" + calleeName + "' with " +
                  std::to_string(site.argOffsets.size()) + " arguments and " +
                  std::to_string(site.retOffsets.size()) +
                  " results; it takes " +
                  std::to_string(callee->paramOffsets.size()) + " and " +
                  std::to_string(callee->retOffsets.size()));
    site.calleeIndex = callee->entry;
    site.calleeArgOffsets = callee->paramOffsets;
    site.calleeRetOffsets = callee->retOffsets;
    out.target = callee->entry;
  }
  out.aux = static_cast<uint32_t>(builder.prog.calls.size());
  builder.prog.calls.push_back(std::move(site));
  return true;
}

bool FunctionDecoder::decodeInstruction(const ptx::Instruction &instr) {
  current = &instr;
  Program &prog = builder.prog;
  Modifiers mods(instr.opcode);
  Instr out;
  out.line = instr.line;
  out.textIndex = static_cast<uint32_t>(prog.texts.size());
  prog.texts.push_back(instr.opcode);
  if (!instr.guard.empty()) {
    ptx::Operand guard;
    guard.kind = ptx::Operand::Register;
    guard.name = instr.guard;
    bool negated = false;
    if (!predicate(guard, out.guard, negated))
      return false;
    out.guardNegated = instr.guardNegated;
  }
  if (!lookupOpcode(mods.base(), out.opcode))
    return fail("unsupported instruction");
  // Calls resolve their callee and arguments here; the control family gives
  // them their handler.
  bool ok = out.opcode != Opcode::Call || decodeCall(instr, out, mods);
  ok = ok && kFamilyDecoders[static_cast<size_t>(opcodeFamily(out.opcode))](
                 *this, instr, mods, out);
  if (!ok || unresolvedLabel)
    return fail("cannot decode");
  std::string unused = mods.unused();
  if (!unused.empty())
    return fail("unsupported modifier ." + unused);
  if (!out.exec)
    return fail("unsupported instruction");
  prog.code[layout.entry + decodedCount] = out;
  ++decodedCount;
  return true;
}

bool FunctionDecoder::run() {
  // Labels first (branches may point forward).
  uint32_t pc = layout.entry, numScopes = 1;
  scopeIds.assign(1, 0);
  for (const ptx::Statement &s : layout.fn->body) {
    if (s.kind == ptx::Statement::ScopeBegin) {
      scopeIds.push_back(numScopes++);
    } else if (s.kind == ptx::Statement::ScopeEnd) {
      if (scopeIds.size() > 1)
        scopeIds.pop_back();
    } else if (s.kind == ptx::Statement::Label) {
      if (!labels.emplace(labelKey(scopeIds.back(), s.label), pc).second)
        return fail("label '" + s.label + "' defined twice in one scope");
    } else if (s.kind == ptx::Statement::Instr) {
      ++pc;
    }
  }
  numScopes = 1;
  scopeIds.assign(1, 0);
  scopes.emplace_back();
  // Kernel parameters are found through Program::params; a function's
  // parameters and results are its per-thread parameter memory.
  if (!layout.fn->isEntry) {
    auto bind = [&](const std::vector<ptx::Declaration> &decls,
                    const std::vector<uint32_t> &offsets,
                    const std::vector<uint32_t> &sizes) {
      for (size_t i = 0; i < decls.size(); ++i) {
        Symbol symbol;
        symbol.kind = Symbol::Memory;
        symbol.space = Space::Param;
        symbol.address = kThreadParamBase + offsets[i];
        symbol.size = sizes[i];
        if (decls[i].space == "reg") {
          // A .reg parameter is a register, loaded from its parameter
          // memory at entry (see ControlFlow.cpp's call).
          Symbol reg;
          reg.kind = Symbol::Register;
          reg.slot = builder.newSlot();
          reg.width = bitWidth(parseType(decls[i].type));
          scopes.back()[decls[i].name] = reg;
          continue;
        }
        scopes.back()[decls[i].name] = symbol;
      }
    };
    bind(layout.fn->params, layout.paramOffsets, layout.paramSizes);
    bind(layout.fn->returns, layout.retOffsets, layout.retSizes);
    for (const auto &decl : layout.fn->params)
      if (decl.space == "reg")
        return fail(".reg parameters are not supported");
    for (const auto &decl : layout.fn->returns)
      if (decl.space == "reg")
        return fail(".reg return values are not supported");
  }
  for (const ptx::Statement &s : layout.fn->body) {
    switch (s.kind) {
    case ptx::Statement::ScopeBegin:
      scopes.emplace_back();
      scopeIds.push_back(numScopes++);
      break;
    case ptx::Statement::ScopeEnd:
      if (scopes.size() <= 1)
        return fail("unbalanced '}'");
      scopes.pop_back();
      scopeIds.pop_back();
      break;
    case ptx::Statement::Decl:
      current = nullptr;
      if (!declare(s.decl))
        return false;
      break;
    case ptx::Statement::Label:
      break;
    case ptx::Statement::Instr:
      if (!decodeInstruction(s.instr))
        return false;
      break;
    }
  }
  // The implicit return at the end of every body.
  ptx::Instruction ret;
  ret.opcode = "ret";
  ret.line =
      layout.fn->body.empty() ? layout.fn->line : layout.fn->body.back().line;
  current = &ret;
  Modifiers mods(ret.opcode);
  Instr out;
  out.line = ret.line;
  out.textIndex = static_cast<uint32_t>(builder.prog.texts.size());
  builder.prog.texts.push_back("ret (end of function)");
  out.opcode = Opcode::Ret;
  if (!decodeControl(*this, ret, mods, out))
    return false;
  builder.prog.code[layout.entry + decodedCount] = out;
  ++decodedCount;
  current = nullptr;
  return true;
}

} // namespace

bool gmm::sim::decodeKernel(const ptx::Module &module,
                            const ptx::Function &entry,
                            const GlobalSymbols &globals, unsigned arch,
                            Program &program, std::string &error) {
  error.clear();
  ProgramBuilder builder(module, globals, arch, program, error);
  return builder.build(entry, /*validateOnly=*/false);
}

bool gmm::sim::validateFunction(const ptx::Module &module,
                                const ptx::Function &fn,
                                const GlobalSymbols &globals, unsigned arch,
                                std::string &error) {
  error.clear();
  Program program;
  ProgramBuilder builder(module, globals, arch, program, error);
  return builder.build(fn, /*validateOnly=*/true);
}
