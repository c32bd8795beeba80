//===- gmm-fuzz.cpp - libFuzzer target: parse, verify, lower, run ---------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The input is the text of a .mlir module. It is parsed (unregistered
// dialects are an error) and verified; then every function with a body whose
// operations all come from the dialects that gmm's pipelines are built for
// (builtin, func, arith, tensor, gmm) is lowered on its own by every named
// pipeline of the runner (reference, cpu, and cpu with tile sizes that
// divide nothing) to the LLVM dialect and translated to LLVM IR.
//
// Oracles besides the sanitizers' reports and crashes:
//  - IR that a pass hands on is verified after every pass; a pass that
//    succeeds on invalid IR is a finding ("pass X produced invalid IR").
//  - A gmm pass that fails without an error diagnostic is a finding (the
//    user would get no message).
//  - With --run, a function that is a single gmm.ragged_dot of its arguments
//    with small static shapes is also JIT-compiled and called with guarded
//    buffers (out-of-bounds accesses fault), seeded inputs and adversarial
//    group sizes, and its result must match the C++ reference.
//
// An input whose first line is `// pipeline: NAME{OPTIONS}` (NAME one of
// gmm-to-cpu, gmm-to-ptx, gmm-reference-to-llvm) is lowered by that textual
// pipeline instead, so that the fuzzer also mutates the pipelines' options:
// extreme tile sizes and warp counts, chips, formats. An option the
// pipeline refuses must be a diagnostic, like any other error.
//
// An input that names chlo.ragged_dot is also parsed as JAX's modules are,
// with unregistered dialects allowed, and imported by convert-chlo-to-gmm
// (the seeds hold modules that jax.export wrote): the import must not fail
// without an error diagnostic, and what it imports must verify.
//
// Inputs that name a linalg op are skipped: gmm's pipelines take none, and
// MLIR 22.1's linalg parsers crash on malformed ones, which would only fuzz
// upstream MLIR (and make its bugs look like gmm's: such a crash can leave
// no trace of the harness on the stack).
//
// Functions with other dialects are only parsed and verified: lowering
// arbitrary upstream IR would fuzz upstream MLIR, not gmm, and running
// arbitrary programs is unsafe (they may loop or allocate without bound),
// which is why --run is off by default.
//
// Built with GMM_FUZZ_FRONT_END (the gmm-fuzz-front target), it stops short
// of the pipelines: parse, verify, the CHLO import, then each lowerable
// function through gmm-check-sizes, gmm-normalize and gmm-configure for the
// CPU and for GPU chips (the options varied by the input's hash), with the
// same oracles, in one MLIRContext for all inputs made from gmm's own
// registration (registerGMMDialects). No LLVM code generation and no context
// per input: ten thousand inputs a second under ASan where gmm-fuzz does a
// few, so the front of the compiler, where most malformed input is refused,
// is explored much further.
//
// Flags (libFuzzer ignores flags that start with "--"):
//   --run                also JIT-run single-ragged-dot functions
//   --verbose            print the diagnostics that are normally swallowed
//
//===----------------------------------------------------------------------===//

#include "gmm/Conversion/Passes.h"
#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Dialect/GMM/Transforms/Passes.h"
#include "gmm/InitGMM.h"
#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Runner/GuardedMemory.h"
#include "gmm/Runner/HostTensor.h"
#include "gmm/Runner/JitRunner.h"
#include "gmm/Runner/ModuleCache.h"
#include "gmm/Runner/RaggedDotCheck.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>

using namespace mlir;
namespace runner = ::gmm::runner;

namespace {

bool runFunctions = false;
bool verbose = false;
DialectRegistry *registry = nullptr;

/// Inputs larger than this are rejected: they only make runs slower.
constexpr size_t kMaxInputSize = 16 * 1024;
/// A function is JIT-run only when every argument has at most this many
/// elements.
constexpr int64_t kMaxRunElements = 4096;

[[noreturn]] void finding(const llvm::Twine &message) {
  llvm::errs() << "gmm-fuzz: FINDING: " << message << "\n";
  llvm::errs().flush();
  std::abort();
}

/// The dialects whose operations the pipelines are meant to lower.
bool isLowerable(func::FuncOp func) {
  bool ok = true;
  func.walk([&](Operation *op) {
    StringRef ns = op->getName().getDialectNamespace();
    if (ns != "builtin" && ns != "func" && ns != "arith" && ns != "tensor" &&
        ns != "gmm")
      ok = false;
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  return ok;
}

/// Verifies the IR after every pass that succeeded (the pass manager's own
/// verifier is off, so that invalid IR is told apart from a pass failure).
class VerifyAfterEachPass : public PassInstrumentation {
public:
  explicit VerifyAfterEachPass(std::string &lastPass) : lastPass(lastPass) {}

  void runBeforePass(Pass *pass, Operation *) override {
    lastPass = pass->getArgument().str();
    if (lastPass.empty())
      lastPass = pass->getName().str();
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    if (failed(verify(op)))
      finding("pass '" + lastPass + "' produced invalid IR");
  }

private:
  std::string &lastPass;
};

struct NamedPipeline {
  std::string name;
  runner::PipelineBuilder build;
  bool cuda = false; // its code runs on a GPU
};

std::vector<NamedPipeline> &getFuzzedPipelines() {
  static std::vector<NamedPipeline> pipelines = [] {
    std::vector<NamedPipeline> result;
    for (const runner::PipelineInfo &info : runner::getPipelines())
      result.push_back({info.name, info.build, info.cuda});
    mlir::gmm::CPUPipelineOptions odd;
    odd.tileM = 3;
    odd.tileN = 5;
    odd.tileK = 2;
    odd.parallel = false;
    result.push_back({"cpu(tiles 3x5x2, serial)", [odd](OpPassManager &pm) {
                        mlir::gmm::buildCPUPipeline(pm, odd);
                      }});
    return result;
  }();
  return pipelines;
}

/// A copy of `module` in which only `keep` has a body; every other function
/// becomes a private declaration, so that symbol uses stay valid.
OwningOpRef<ModuleOp> isolate(ModuleOp module, func::FuncOp keep) {
  OwningOpRef<ModuleOp> clone = module.clone();
  for (auto func : clone->getOps<func::FuncOp>()) {
    if (func.getSymName() == keep.getSymName() || func.isExternal())
      continue;
    func.eraseBody();
    func.setPrivate();
  }
  return clone;
}

/// Runs `pipeline` on a copy of `module` in which only `func` has a body,
/// with the IR verified after every pass; a gmm pass that fails without an
/// error diagnostic is a finding. Returns the copy when the pipeline
/// succeeded.
OwningOpRef<ModuleOp> runPipeline(ModuleOp module, func::FuncOp func,
                                  const NamedPipeline &pipeline,
                                  int &errorCount) {
  OwningOpRef<ModuleOp> clone = isolate(module, func);
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  pm.enableVerifier(false);
  std::string lastPass;
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>(lastPass));
  pipeline.build(pm);
  int errorsBefore = errorCount;
  if (succeeded(pm.run(*clone)))
    return clone;
  if (errorCount == errorsBefore && StringRef(lastPass).contains("gmm"))
    finding("pass '" + lastPass + "' of pipeline " + pipeline.name +
            " failed without an error diagnostic");
  return nullptr;
}

/// runPipeline(), then the translation of its output to LLVM IR, which must
/// not fail without an error diagnostic either.
void lower(ModuleOp module, func::FuncOp func, const NamedPipeline &pipeline,
           int &errorCount) {
  int errorsBefore = errorCount;
  OwningOpRef<ModuleOp> lowered =
      runPipeline(module, func, pipeline, errorCount);
  if (!lowered)
    return;
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*lowered, llvmContext);
  if (!llvmModule && errorCount == errorsBefore)
    finding("translating the " + pipeline.name +
            " output to LLVM IR failed without an error diagnostic");
}

/// The pipeline named by a first line `// pipeline: NAME{OPTIONS}`, built
/// through the textual pipeline parser as gmm-opt would; nullopt without
/// such a line. A pipeline that does not parse (a bad option) gives one
/// without a builder: nothing to lower, and the error must have a message.
std::optional<NamedPipeline> headerPipeline(llvm::StringRef text) {
  if (!text.consume_front("// pipeline: "))
    return std::nullopt;
  llvm::StringRef line = text.split('\n').first.trim();
  llvm::StringRef name = line.take_until([](char c) { return c == '{'; });
  if (name != "gmm-to-cpu" && name != "gmm-to-ptx" &&
      name != "gmm-reference-to-llvm")
    return std::nullopt;
  llvm::StringRef options = line.drop_front(name.size());
  // One brace-delimited option list, or none; and the CPU pipeline on its
  // own tiles (its GPU-shaped test program is a testing aid).
  if (!options.empty() &&
      (!options.starts_with("{") || !options.ends_with("}") ||
       options.drop_front().drop_back().contains('{') ||
       options.drop_front().drop_back().contains('}')))
    return std::nullopt;
  if (options.contains("tile-target") || options.contains("ptx-dir"))
    return std::nullopt;
  std::string pipelineText = ("builtin.module(" + line + ")").str();
  // Parsed once here: options the pipeline refuses end the input.
  std::string errors;
  llvm::raw_string_ostream stream(errors);
  OpPassManager check(ModuleOp::getOperationName());
  if (failed(parsePassPipeline(pipelineText, check, stream))) {
    if (StringRef(errors).trim().empty())
      finding("pipeline '" + pipelineText + "' was refused without a message");
    return NamedPipeline{};
  }
  NamedPipeline pipeline;
  pipeline.name = line.str();
  pipeline.cuda = name == "gmm-to-ptx";
  pipeline.build = [pipelineText](OpPassManager &pm) {
    if (failed(parsePassPipeline(pipelineText, pm, llvm::nulls())))
      finding("pipeline '" + pipelineText + "' parsed only once");
  };
  return pipeline;
}

/// A simple hash of the input, the seed of its run-time values.
uint64_t hashInput(llvm::StringRef text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text)
    hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

/// Sizes that break naive group arithmetic, drawn from `random`.
int64_t adversarialSize(runner::Random &random, int64_t extent, bool i64) {
  const int64_t max = i64 ? std::numeric_limits<int64_t>::max()
                          : std::numeric_limits<int32_t>::max();
  const int64_t min = i64 ? std::numeric_limits<int64_t>::min()
                          : std::numeric_limits<int32_t>::min();
  const int64_t choices[] = {0,       1,       -1,  extent,  extent + 1,
                             max,     min,     max, -extent, extent / 2,
                             max - 1, min + 1, 2};
  return choices[random.nextBelow(std::size(choices))];
}

/// JIT-runs `func` when it is one gmm.ragged_dot of its arguments with
/// small static shapes, with guarded buffers, and checks it.
void tryRun(ModuleOp module, func::FuncOp func, uint64_t seed) {
  auto signature = runner::getFunctionSignature(func);
  if (!signature) {
    llvm::consumeError(signature.takeError());
    return;
  }
  auto binding = runner::findRaggedDot(func);
  if (!binding) {
    llvm::consumeError(binding.takeError());
    return;
  }
  if (llvm::Error error = runner::checkReferenceBinding(*binding)) {
    llvm::consumeError(std::move(error));
    return;
  }
  if (!signature->results.empty() &&
      llvm::any_of(signature->results,
                   [](const runner::TensorSpec &s) { return s.isMemRef; }))
    return;
  // The function must be the op alone: one ragged_dot and the return.
  if (func.getBody().front().getOperations().size() != 2)
    return;

  std::vector<runner::HostTensor> arguments;
  runner::Random random(seed);
  for (auto [i, spec] : llvm::enumerate(signature->arguments)) {
    if (spec.isMemRef || spec.hasDynamicDims())
      return;
    runner::HostTensor tensor =
        runner::HostTensor::zeros(spec.type, spec.shape);
    int64_t count = tensor.getNumElements();
    if (count < 0 || count > kMaxRunElements)
      return;
    runner::fillRandom(tensor, seed, i);
    arguments.push_back(std::move(tensor));
  }
  mlir::gmm::RaggedDotOp op = binding->op;
  int64_t extent = cast<ShapedType>(op.getLhs().getType())
                       .getDimSize(op.getLhsRaggedDimension());
  if (binding->groupSizes) {
    runner::HostTensor &sizes = arguments[*binding->groupSizes];
    bool i64 = sizes.type == runner::DType::I64;
    for (int64_t e = 0; e < sizes.getNumElements(); ++e)
      sizes.setInt(e, random.nextBelow(3)
                          ? random.nextBelow(extent + 2)
                          : adversarialSize(random, extent, i64));
  }
  if (binding->groupOffset) {
    runner::HostTensor &offset = arguments[*binding->groupOffset];
    bool i64 = offset.type == runner::DType::I64;
    for (int64_t e = 0; e < offset.getNumElements(); ++e)
      offset.setInt(e, random.nextBelow(2) ? random.nextBelow(4)
                                           : adversarialSize(random, 2, i64));
  }
  if (llvm::Error error = runner::checkRaggedDotShapes(*binding, arguments)) {
    llvm::consumeError(std::move(error));
    return;
  }

  for (const NamedPipeline &pipeline : getFuzzedPipelines()) {
    // Running the GPU pipeline's code needs a GPU (its lowering is fuzzed
    // above on every machine).
    if (pipeline.cuda)
      continue;
    runner::JitOptions options;
    options.optLevel = 1;
    options.guardPages = runner::GuardPages::End;
    auto jit = runner::JitFunction::compile(module, func.getSymName(),
                                            pipeline.build, options);
    if (!jit) {
      llvm::consumeError(jit.takeError());
      continue;
    }
    for (runner::GuardPages mode :
         {runner::GuardPages::End, runner::GuardPages::Start}) {
      (*jit)->setGuardPages(mode);
      auto outputs = (*jit)->call(arguments);
      if (!outputs) {
        llvm::consumeError(outputs.takeError());
        break;
      }
      auto outcome =
          runner::checkAgainstReference(*binding, arguments, *outputs);
      if (!outcome) {
        llvm::consumeError(outcome.takeError());
        break;
      }
      if (!outcome->passed)
        finding("pipeline " + pipeline.name + ", guard pages " +
                runner::toString(mode) + ": @" + func.getSymName() + ": " +
                outcome->line);
    }
  }
}

/// The context an input is parsed in: one of its own, or, for the front
/// end, one context for every input (a context costs more to create, with
/// its dialects loaded, than the front end's passes take to run; what the
/// inputs leave in it, uniqued types and attributes, changes no result).
MLIRContext *makeContext(std::unique_ptr<MLIRContext> &owned) {
#ifdef GMM_FUZZ_FRONT_END
  static MLIRContext *shared =
      new MLIRContext(*registry, MLIRContext::Threading::DISABLED);
  return shared;
#else
  owned = std::make_unique<MLIRContext>(*registry,
                                        MLIRContext::Threading::DISABLED);
  return owned.get();
#endif
}

/// The fuzzer's input parsed (unregistered dialects allowed or not), with
/// the errors reported so far counted.
struct ParsedInput {
  ParsedInput(llvm::StringRef text, bool allowUnregistered)
      : context(*makeContext(ownedContext)),
        handler(&context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
            ++errorCount;
          if (verbose)
            llvm::errs() << diagnostic << "\n";
          return success();
        }) {
    context.allowUnregisteredDialects(allowUnregistered);
    // MLIR's lexer relies on the null terminator that files read through
    // MemoryBuffer have (parseSourceString() on the raw fuzzer bytes reads
    // past their end), so parse a null-terminated copy, as the tools do.
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz-input.mlir"),
        llvm::SMLoc());
    ParserConfig config(&context, /*verifyAfterParse=*/true);
    module = parseSourceFile<ModuleOp>(sourceMgr, config);
  }

  std::unique_ptr<MLIRContext> ownedContext;
  MLIRContext &context;
  int errorCount = 0;
  ScopedDiagnosticHandler handler;
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module;
};

/// The import of JAX's modules: see the file comment.
void importCHLO(llvm::StringRef text) {
  ParsedInput input(text, /*allowUnregistered=*/true);
  if (!input.module)
    return;
  // A block that ends in an unregistered op verifies only because that op
  // might be a terminator; imported as gmm.ragged_dot (which is not one) it
  // cannot verify, and the import is not at fault.
  bool unknownTerminator = false;
  input.module->walk([&](Block *block) {
    if (!block->empty() && !block->back().isRegistered())
      unknownTerminator = true;
  });
  if (unknownTerminator)
    return;
  PassManager pm(&input.context, ModuleOp::getOperationName());
  pm.enableVerifier(false);
  pm.addPass(mlir::gmm::createConvertCHLOToGMM());
  if (failed(pm.run(*input.module))) {
    if (input.errorCount == 0)
      finding("convert-chlo-to-gmm failed without an error diagnostic");
    return;
  }
  if (failed(verify(*input.module)))
    finding("convert-chlo-to-gmm produced IR that does not verify");
}

} // namespace

/// The front end's passes for the input with hash `hash`: the function
/// through gmm-check-sizes, gmm-normalize and gmm-configure for a target,
/// chip and threads that the hash picks (see the file comment).
NamedPipeline frontEndPipeline(uint64_t hash) {
  mlir::gmm::GMMConfigureOptions options;
  static const char *const chips[] = {"", "sm_80", "sm_86", "sm_90", "sm_90a"};
  bool gpu = hash % 2;
  options.target =
      gpu ? mlir::gmm::KernelTarget::GPU : mlir::gmm::KernelTarget::CPU;
  if (gpu)
    options.chip = chips[(hash >> 1) % std::size(chips)];
  else
    options.threads = 1 + (hash >> 1) % 4;
  NamedPipeline pipeline;
  pipeline.name =
      gpu ? "front end (gpu " + options.chip + ")" : "front end (cpu)";
  pipeline.build = [options](OpPassManager &pm) {
    pm.addPass(mlir::gmm::createGMMCheckSizes());
    pm.addPass(mlir::gmm::createGMMNormalize());
    pm.addPass(mlir::gmm::createGMMConfigure(options));
  };
  return pipeline;
}

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  for (int i = 1; i < *argc; ++i) {
    llvm::StringRef arg = (*argv)[i];
    if (arg == "--run")
      runFunctions = true;
    else if (arg == "--verbose")
      verbose = true;
  }
  registry = new DialectRegistry();
#ifdef GMM_FUZZ_FRONT_END
  // What a compiler embedding gmm registers, and no more: every context is
  // made from this registry, so its size is much of an input's cost (and
  // the front end's passes must run with gmm's registration alone).
  mlir::gmm::registerGMMDialects(*registry);
#else
  runner::registerRunnerDialects(*registry);
  registerAllToLLVMIRTranslations(*registry);
#endif
  // The named pipelines of `// pipeline:` headers.
  mlir::gmm::registerGMMPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputSize)
    return -1;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // MLIR 22.1's linalg parsers crash on malformed input (an integer in a
  // linalg.generic's `iterator_types` reads uninitialized memory as a size,
  // `permutation = &1, 0]` in a linalg.transpose dereferences a null
  // attribute), in Debian's mlir-opt as here: see the file comment.
  if (text.contains("linalg."))
    return -1;

  if (text.contains("chlo.ragged_dot"))
    importCHLO(text);

  ParsedInput input(text, /*allowUnregistered=*/false);
  OwningOpRef<ModuleOp> &module = input.module;
  int &errorCount = input.errorCount;
  if (!module)
    return 0;

  llvm::SmallVector<func::FuncOp> functions;
  for (auto func : module->getOps<func::FuncOp>())
    if (!func.isExternal() && isLowerable(func))
      functions.push_back(func);
#ifdef GMM_FUZZ_FRONT_END
  NamedPipeline frontEnd = frontEndPipeline(hashInput(text));
  for (func::FuncOp func : functions)
    (void)runPipeline(*module, func, frontEnd, errorCount);
  return 0;
#endif
  // The GPU pipeline (NVPTX code generation per kernel) costs several CPU
  // lowerings; it takes one input in four, picked by the input's hash, so
  // that the CPU pipelines keep most of the time budget.
  bool lowerForGPU = hashInput(text) % 4 == 0;
  if (std::optional<NamedPipeline> header = headerPipeline(text)) {
    if (header->build)
      for (func::FuncOp func : functions)
        lower(*module, func, *header, errorCount);
    return 0;
  }
  for (func::FuncOp func : functions)
    for (const NamedPipeline &pipeline : getFuzzedPipelines())
      if (!pipeline.cuda || lowerForGPU)
        lower(*module, func, pipeline, errorCount);
  if (runFunctions) {
    uint64_t seed = hashInput(text);
    for (func::FuncOp func : functions)
      tryRun(*module, func, seed);
  }
  return 0;
}
