//===- gmm-runner.cpp - JIT-run a function of a .mlir file ----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Runs one func.func of a .mlir file on the CPU or on a CUDA GPU (real or
// simulated, --target=cuda): lowers it with a named pipeline, JIT-compiles it
// with MLIR's ExecutionEngine, feeds it seeded random values, inline values or
// .npy files, and prints, checks (against the C++ reference of gmm.ragged_dot),
// saves and times its results.
//
// Every user error is reported as one line "gmm-runner: error: ..." on
// stderr with exit code 1; a parse or verify error is the first of MLIR's
// diagnostics on one line ("file:3:7: error: ..."), and a function that
// the pipeline cannot lower names the operation and the reason.
// A failed --check prints "check: FAIL (...)" and also exits with 1.
//
//===----------------------------------------------------------------------===//

#include "gmm/Dialect/GMM/IR/GMMDialect.h"
#include "gmm/Runner/Arguments.h"
#include "gmm/Runner/HostTensor.h"
#include "gmm/Runner/JitRunner.h"
#include "gmm/Runner/KernelConfigs.h"
#include "gmm/Runner/ModuleCache.h"
#include "gmm/Runner/Npy.h"
#include "gmm/Runner/RaggedDotCheck.h"
#include "gmm/Runtime/CudaRuntime.h"
#include "gmm/Support/CommandLine.h"
#include "gmm/Support/InputFile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace ::gmm::runner;
namespace support = ::gmm::support;
using support::kBytesPerGiB;
namespace cl = llvm::cl;
using llvm::StringRef;

namespace {

cl::OptionCategory runnerCategory("gmm-runner options");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<file.mlir> (- for stdin)"),
                                   cl::init("-"), cl::cat(runnerCategory));

cl::opt<std::string>
    entryName("entry",
              cl::desc("The func.func to run, also -e NAME (default: the "
                       "only function with a body in the file)"),
              cl::value_desc("name"), cl::cat(runnerCategory));
cl::alias entryAlias("e", cl::desc("Alias for --entry"),
                     cl::aliasopt(entryName), cl::cat(runnerCategory));

cl::opt<std::string>
    targetName("target",
               cl::desc("Where to run: cpu (JIT through MLIR's "
                        "ExecutionEngine) or cuda (the gmm-to-ptx kernels on "
                        "the first CUDA device, through libgmm_cuda_runtime; "
                        "implies --pipeline=cuda)"),
               cl::value_desc("cpu|cuda"), cl::init("cpu"),
               cl::cat(runnerCategory));

// The description lists the pipelines; main() fills it in.
cl::opt<std::string> pipelineName("pipeline", cl::value_desc("name"),
                                  cl::init("cpu"), cl::cat(runnerCategory));

cl::opt<std::string> seedOption(
    "seed",
    cl::desc("Seed of the random inputs: every argument not given by --input, "
             "--values, --group-sizes or --group-offset gets seeded values. "
             "Floats are uniform in [-1, 1) rounded to the argument's type; "
             "the group_sizes argument of the gmm.ragged_dot gets random "
             "non-negative sizes summing to the ragged extent; its "
             "group_offset argument gets 0 (see --group-offset); other "
             "integers are uniform in [0, 8). Each argument has its own "
             "stream, so giving one argument by hand does not change the "
             "others (default 0)"),
    cl::value_desc("N"), cl::init("0"), cl::cat(runnerCategory));

cl::list<std::string> inputFiles(
    "input",
    cl::desc("Read argument IDX (0-based) from a .npy file (C order, "
             "little-endian; <f2, <f4, <f8, <i4, <i8, and bf16 as <V2, |V2 or "
             "bfloat16). An f32 file loads into an f16/bf16 argument rounded "
             "to nearest even; i32 and i64 files convert into each other "
             "when the values fit. Repeatable"),
    cl::value_desc("IDX:FILE.npy"), cl::cat(runnerCategory));

cl::list<std::string> inlineValues(
    "values",
    cl::desc("Give argument IDX inline, row-major, e.g. --values=0:1,2,3,4. "
             "Floats are rounded to the argument's type (nearest even). "
             "Dynamic sizes come from --arg-shape; a single dynamic size can "
             "also be inferred from the number of values. Repeatable"),
    cl::value_desc("IDX:v0,v1,..."), cl::cat(runnerCategory));

cl::list<std::string> argShapes(
    "arg-shape",
    cl::desc("The shape of argument IDX, which fixes its dynamic sizes "
             "(static sizes must match), e.g. --arg-shape=0:64x32; empty for "
             "rank 0. Repeatable"),
    cl::value_desc("IDX:AxBxC"), cl::cat(runnerCategory));

cl::opt<std::string> groupSizesOption(
    "group-sizes",
    cl::desc("Values of the gmm.ragged_dot's group_sizes argument. 'uniform': "
             "extent/g each, the remainder one each to the first groups. "
             "'skewed': weights repeating 13,5,0,2 (groups 2, 6, 10, ... "
             "empty; max/mean = 2.6 when g is a multiple of 4), each group "
             "floor(extent*w/sum(w)), the remainder one each to the non-empty "
             "groups in order. A list a,b,c gives the sizes (any values, also "
             "negative or past the extent), either g of them for every "
             "partition or one list per partition, row-major. The extent is "
             "the size of the lhs ragged dimension; batched [b..., g] "
             "group sizes get the same sizes in every row"),
    cl::value_desc("uniform|skewed|a,b,c"), cl::cat(runnerCategory));

cl::opt<std::string> groupOffsetOption(
    "group-offset",
    cl::desc("Value of the gmm.ragged_dot's group_offset argument (default 0)"),
    cl::value_desc("N"), cl::init("0"), cl::cat(runnerCategory));

cl::opt<bool> cudaAvailable(
    "cuda-available",
    cl::desc("Say whether --target=cuda can run here (the first CUDA "
             "device and its SM, or why not) and exit: 0 when it can"),
    cl::cat(runnerCategory));

cl::opt<std::string> deviceOption(
    "device",
    cl::desc("The CUDA device of --target=cuda and --cuda-available: gpu (the "
             "CUDA driver, libcuda.so.1 or GMM_CUDA_DRIVER_LIBRARY) or sim "
             "(gmm's simulated GPU: the same host code and PTX run on the CPU "
             "with memory, race, initialization and synchronization checks, "
             "and any finding is the run's error; it measures no GPU time; "
             "docs/Simulator.md)"),
    cl::value_desc("gpu|sim"), cl::init("gpu"), cl::cat(runnerCategory));

cl::opt<std::string> simChip(
    "sim-chip",
    cl::desc("With --device=sim: the compute capability the simulated GPU "
             "reports, sm_80 or sm_90 (default sm_90); sm_90a is an sm_90 "
             "device for which the code is compiled for sm_90a (wgmma)"),
    cl::value_desc("sm_80|sm_90|sm_90a"), cl::cat(runnerCategory));

cl::opt<std::string> simChecks(
    "sim-checks",
    cl::desc("With --device=sim: all (the default), none, or a comma-"
             "separated list of memcheck, racecheck, initcheck, synccheck"),
    cl::value_desc("list"), cl::cat(runnerCategory));

cl::opt<bool> printResults(
    "print",
    cl::desc("Print every result numpy-style: nested brackets, one innermost "
             "row per line; integers as integers, floats with "
             "--print-precision significant digits (%g, so exact integers "
             "print as '3'). Memref arguments, as the callee left them, are "
             "printed after the results and numbered after them"),
    cl::cat(runnerCategory));

cl::opt<bool> printConfig(
    "print-config",
    cl::desc("Print each ragged dot's kernel configuration as gmm-configure "
             "chose it in this run's pipeline, and where each field came "
             "from (the op, the pipeline's options or the heuristic, and "
             "why), before the run (also: gmm-opt "
             "--remarks-filter=gmm-configure)"),
    cl::cat(runnerCategory));

cl::opt<bool> printInputs("print-inputs",
                          cl::desc("Print every argument before the call"),
                          cl::cat(runnerCategory));

cl::opt<std::string> printPrecisionOption(
    "print-precision",
    cl::desc("Significant digits of printed floats (1-17, default 6)"),
    cl::value_desc("N"), cl::init("6"), cl::cat(runnerCategory));

cl::opt<bool> checkResults(
    "check",
    cl::desc("Run the C++ reference of the entry's single gmm.ragged_dot on "
             "the same inputs and compare it with the returned result, "
             "elementwise |got - expected| <= atol + rtol*|expected| with the "
             "per-dtype tolerance of gmm::reference::defaultTolerance (atol "
             "scaled by max|lhs|*max|rhs| when that exceeds 1). Prints "
             "'check: PASS (...)' or 'check: FAIL (...)' and exits with 1 on "
             "FAIL. The op's operands must be entry arguments and its result "
             "must be returned directly"),
    cl::cat(runnerCategory));

cl::opt<std::string> repeatOption(
    "repeat",
    cl::desc("After the first call (the warm-up, whose results are printed "
             "and checked), time N more calls, each on fresh copies of the "
             "inputs, and print 'time: median <ms> ms over N runs (<GFLOP/s> "
             "GFLOP/s)'. FLOPs are 2 * the multiply-adds the semantics call "
             "for: products of rows (mode 1) or k-indices (mode 2) inside "
             "computed groups with the clamped group bounds; empty groups and "
             "uncovered rows count nothing; mode 3 counts the full dot"),
    cl::value_desc("N"), cl::init("0"), cl::cat(runnerCategory));

cl::list<std::string> expectFiles(
    "expect",
    cl::desc("Compare output IDX (numbered as --print numbers them) with the "
             "values of a .npy file, for example what JAX computed for the "
             "same inputs: with --check's tolerance when the output is the "
             "result of the entry's gmm.ragged_dot, exactly otherwise. Prints "
             "'expect IDX: PASS (...)' or 'expect IDX: FAIL (...)' and exits "
             "with 1 on FAIL. Repeatable"),
    cl::value_desc("IDX:FILE.npy"), cl::cat(runnerCategory));

cl::list<std::string> outputFiles(
    "output",
    cl::desc("Write output IDX (results first, then memref arguments, as "
             "--print numbers them) to a .npy file (bf16 as |V2). "
             "Repeatable"),
    cl::value_desc("IDX:FILE.npy"), cl::cat(runnerCategory));

cl::opt<std::string> guardPagesOption(
    "guard-pages",
    cl::desc("Place every argument buffer, and the buffers that the compiled "
             "code allocates, next to an inaccessible page, so that an "
             "out-of-bounds access by the compiled code faults and is "
             "reported as 'out-of-bounds read/write ... of argument N' (a "
             "test aid; slow). 'end' (also --guard-pages alone) puts each "
             "buffer's end against the page, 'start' its start; 'none' is "
             "the default"),
    cl::value_desc("end|start|none"), cl::ValueOptional,
    cl::cat(runnerCategory));

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// The values of the numeric options, parsed by parseNumericOptions() so
/// that a bad value gets the same one-line error as everything else.
uint64_t seed = 0;
int64_t groupOffset = 0;
int printPrecision = 6;
unsigned repeat = 0;

/// Prints `message` as the single error line and returns the exit code.
int reportError(StringRef message) {
  std::string line = message.str();
  // One line, whatever the message is made of.
  std::replace(line.begin(), line.end(), '\n', ' ');
  llvm::errs() << "gmm-runner: error: " << StringRef(line).trim() << "\n";
  return 1;
}

int reportError(llvm::Error error) {
  return reportError(llvm::toString(std::move(error)));
}

std::string formatMilliseconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g", seconds * 1e3);
  return buffer;
}

/// Parses the numeric options into the globals above.
llvm::Error parseNumericOptions() {
  auto parse = [](const cl::opt<std::string> &option, auto &value, auto min,
                  auto max, StringRef what) -> llvm::Error {
    StringRef text = StringRef(option.getValue()).trim();
    if (text.starts_with("+"))
      text = text.drop_front();
    bool bad;
    if constexpr (std::is_signed_v<std::decay_t<decltype(value)>>) {
      int64_t parsed;
      bad = text.getAsInteger(10, parsed) || parsed < min || parsed > max;
      if (!bad)
        value = parsed;
    } else {
      uint64_t parsed;
      bad = text.getAsInteger(10, parsed) || parsed < min || parsed > max;
      if (!bad)
        value = parsed;
    }
    if (bad)
      return makeError("--" + option.ArgStr + "=" + option.getValue() +
                       ": expected " + what);
    return llvm::Error::success();
  };
  if (llvm::Error error =
          parse(seedOption, seed, uint64_t(0),
                std::numeric_limits<uint64_t>::max(), "a non-negative integer"))
    return error;
  if (llvm::Error error = parse(
          groupOffsetOption, groupOffset, std::numeric_limits<int64_t>::min(),
          std::numeric_limits<int64_t>::max(), "an integer"))
    return error;
  if (llvm::Error error = parse(printPrecisionOption, printPrecision, 1, 17,
                                "an integer from 1 to 17"))
    return error;
  if (llvm::Error error =
          parse(repeatOption, repeat, 0u, std::numeric_limits<unsigned>::max(),
                "a non-negative integer"))
    return error;
  return llvm::Error::success();
}

/// Parses the command line; on error prints one line and returns false.
bool parseCommandLine(int argc, char **argv) {
  std::string pipelineHelp = "The lowering pipeline:";
  for (const PipelineInfo &info : getPipelines())
    pipelineHelp += llvm::formatv(" '{0}': {1};", info.name, info.description);
  pipelineHelp.back() = ' ';
  pipelineHelp += "(default: cpu)";
  pipelineName.setDescription(pipelineHelp);

  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  cl::HideUnrelatedOptions(runnerCategory);

  const char *overview =
      "gmm-runner: JIT-runs a function of a .mlir file on the CPU or a GPU\n\n"
      "Lowers the entry function with a pipeline, JIT-compiles it with MLIR's\n"
      "ExecutionEngine and calls it with seeded random values, inline values\n"
      "or .npy files; prints, checks, saves and times its results. Arguments\n"
      "and results are ranked tensors or memrefs of f16, bf16, f32, f64, i32\n"
      "or i64. Memref arguments are written by the callee and are outputs\n"
      "too. Errors are one line 'gmm-runner: error: ...' and exit code 1.\n"
      "MLIR's --mlir-* debugging options are accepted (--help-hidden).\n\n"
      "Example:\n"
      "  gmm-runner examples/moe_forward.mlir --seed=1 "
      "--group-sizes=skewed --check --repeat=5\n";
  return support::parseToolCommandLine(argc, argv, overview);
}

/// --device and --sim-*: where a --target=cuda run goes, set up before
/// anything else; --cuda-available answers and ends the run here (its exit
/// code), as does a bad option.
std::optional<int> selectDevice() {
  if (deviceOption != "gpu" && deviceOption != "sim")
    return reportError("unknown --device=" + deviceOption +
                       " (expected gpu or sim)");
  if (deviceOption != "sim" &&
      (simChip.getNumOccurrences() || simChecks.getNumOccurrences()))
    return reportError("--sim-chip and --sim-checks configure --device=sim");
  if (deviceOption == "sim") {
    std::string why;
    if (!gmmCudaUseSimulator(simChip, simChecks, &why))
      return reportError("--device=sim: " + why);
  }
  if (!cudaAvailable)
    return std::nullopt;
  std::string why;
  GmmCudaDeviceInfo info;
  if (!gmmCudaAvailable(&why) || !gmmCudaGetDeviceInfo(0, info, &why)) {
    llvm::outs() << "no: " << why << "\n";
    return 1;
  }
  llvm::outs() << "yes: " << info.name << " (" << info.chip() << ")\n";
  return 0;
}

/// What a run is: --target, --pipeline (the target's by default) and the
/// options that go with them, checked against each other.
struct RunPlan {
  bool cuda = false;
  const PipelineInfo *pipeline = nullptr;
  GuardPages guardPages = GuardPages::None;
};

llvm::Expected<RunPlan> planRun() {
  RunPlan plan;
  if (targetName != "cpu" && targetName != "cuda")
    return makeError("unknown --target=" + targetName +
                     " (expected cpu or cuda)");
  plan.cuda = targetName == "cuda";
  // The device options choose where a GPU run goes: given to a CPU run they
  // would be ignored, and the run would pass on the CPU.
  if (!plan.cuda && deviceOption.getNumOccurrences())
    return makeError("--device=" + deviceOption +
                     " chooses the CUDA device of --target=cuda, but the "
                     "target is " +
                     targetName + " (add --target=cuda)");
  if (plan.cuda && !pipelineName.getNumOccurrences())
    pipelineName = "cuda";
  const PipelineInfo *named = lookupPipeline(pipelineName);
  if (plan.cuda != (named && named->cuda))
    return makeError("--pipeline=cuda and --target=cuda go together (got "
                     "--pipeline=" +
                     pipelineName + " --target=" + targetName + ")");
  llvm::Expected<const PipelineInfo *> found = findPipeline(pipelineName);
  if (!found)
    return found.takeError();
  plan.pipeline = *found;
  if (llvm::Error error = parseNumericOptions())
    return std::move(error);
  if (guardPagesOption.getNumOccurrences()) {
    std::optional<GuardPages> mode = guardPagesOption.empty()
                                         ? GuardPages::End
                                         : parseGuardPages(guardPagesOption);
    if (!mode)
      return makeError("--guard-pages=" + guardPagesOption +
                       ": expected end, start or none");
    plan.guardPages = *mode;
  }
  if (plan.cuda && plan.guardPages != GuardPages::None)
    return makeError("--guard-pages guards host memory; it does not apply "
                     "to --target=cuda");
  if (groupSizesOption.getNumOccurrences() && groupSizesOption != "uniform" &&
      groupSizesOption != "skewed") {
    auto list =
        parseInts(groupSizesOption, "--group-sizes=" + groupSizesOption);
    if (!list)
      return makeError(
          llvm::toString(list.takeError()) +
          " (expected uniform, skewed or a comma-separated list of sizes)");
  }
  return plan;
}

/// Parses and verifies the input file; the first error is printed on one
/// line ("file:1:14: error: ..."), as every other user error.
OwningOpRef<ModuleOp> parseInput(MLIRContext &context) {
  std::string inputError;
  std::unique_ptr<llvm::MemoryBuffer> file =
      support::readToolInput(inputFilename, "gmm-runner", inputError);
  if (!file) {
    llvm::errs() << inputError << "\n";
    return nullptr;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  bool reported = false;
  ScopedDiagnosticHandler diagnostics(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error || reported)
      return success();
    reported = true;
    std::string location = formatLocation(diagnostic.getLocation());
    std::string message = diagnostic.str();
    std::replace(message.begin(), message.end(), '\n', ' ');
    llvm::errs() << (location.empty() ? "gmm-runner" : location)
                 << ": error: " << message << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module && !reported)
    (void)reportError("cannot parse " + inputFilename);
  return module;
}

/// The entry's arguments, from --seed, --input, --arg, --arg-shape,
/// --group-sizes and --group-offset, checked against the ragged dot they
/// feed (and against what --check needs).
llvm::Expected<ArgumentBuilder> buildArguments(ModuleOp module) {
  llvm::Expected<func::FuncOp> entry = lookupEntryFunction(module, entryName);
  if (!entry)
    return entry.takeError();
  llvm::Expected<FunctionSignature> signature = getFunctionSignature(*entry);
  if (!signature)
    return signature.takeError();
  ArgumentOptions argumentOptions;
  argumentOptions.seed = seed;
  argumentOptions.inputFiles = inputFiles;
  argumentOptions.inlineValues = inlineValues;
  argumentOptions.argShapes = argShapes;
  if (groupSizesOption.getNumOccurrences())
    argumentOptions.groupSizes = groupSizesOption;
  if (groupOffsetOption.getNumOccurrences()) {
    argumentOptions.groupOffset = groupOffset;
    argumentOptions.groupOffsetText = groupOffsetOption;
  }
  ArgumentBuilder runner(*entry, std::move(*signature),
                         std::move(argumentOptions));
  if (llvm::Error error = runner.collectSources())
    return std::move(error);
  if (llvm::Error error = runner.resolveShapes())
    return std::move(error);
  if (llvm::Error error = runner.fillArguments())
    return std::move(error);
  if (checkResults) {
    if (!runner.binding)
      return makeError("--check needs a gmm.ragged_dot: " +
                       runner.bindingError);
    if (llvm::Error error = checkReferenceBinding(*runner.binding))
      return makeError("--check: " + llvm::toString(std::move(error)));
  }
  // Compiled code trusts that the dynamic sizes agree with each other.
  if (runner.binding)
    if (llvm::Error error =
            checkRaggedDotShapes(*runner.binding, runner.arguments))
      return std::move(error);
  return std::move(runner);
}

/// --output and --expect, read before the (possibly long) run: the output
/// files' indices and names, and the expected values as the outputs' types.
struct OutputRequests {
  std::vector<std::pair<unsigned, std::string>> files;
  std::vector<std::pair<unsigned, HostTensor>> expectations;
};

/// `outputSpecs` are the outputs as --print numbers them: results, then
/// memref arguments.
llvm::Expected<OutputRequests>
readOutputRequests(ArrayRef<const TensorSpec *> outputSpecs) {
  OutputRequests requests;
  size_t numOutputs = outputSpecs.size();
  for (const std::string &value : outputFiles) {
    auto split =
        splitIndexed("output", value, "IDX:FILE.npy", numOutputs, "output");
    if (!split)
      return split.takeError();
    if (split->second.empty())
      return makeError("--output=" + value + ": no file name after ':'");
    requests.files.emplace_back(split->first, split->second.str());
  }
  for (const std::string &value : expectFiles) {
    auto split =
        splitIndexed("expect", value, "IDX:FILE.npy", numOutputs, "output");
    if (!split)
      return split.takeError();
    llvm::Expected<HostTensor> expected =
        readNpy(split->second, outputSpecs[split->first]->type);
    if (!expected)
      return expected.takeError();
    requests.expectations.emplace_back(split->first, std::move(*expected));
  }
  return requests;
}

/// --print: each output under its label (results first, then the memref
/// arguments after the call).
void printOutputs(const FunctionSignature &sig, ArrayRef<HostTensor> results,
                  const FormatOptions &format) {
  std::vector<std::string> labels;
  for (auto [i, spec] : llvm::enumerate(sig.results))
    labels.push_back(
        llvm::formatv("result {0}: {1}", i, spec.describe(results[i].shape))
            .str());
  for (auto [i, spec] : llvm::enumerate(sig.arguments)) {
    if (!spec.isMemRef)
      continue;
    size_t index = labels.size();
    labels.push_back(llvm::formatv("result {0} (memref argument {1}): {2}",
                                   index, i,
                                   spec.describe(results[index].shape))
                         .str());
  }
  for (auto [label, tensor] : llvm::zip(labels, results))
    llvm::outs() << label << "\n" << formatTensor(tensor, format) << "\n";
}

/// --check and --expect: prints each outcome; whether all passed.
llvm::Expected<bool> checkOutputs(const ArgumentBuilder &runner,
                                  ArrayRef<HostTensor> results,
                                  const OutputRequests &requests) {
  bool passed = true;
  if (checkResults) {
    auto outcome =
        checkAgainstReference(*runner.binding, runner.arguments, results);
    if (!outcome)
      return outcome.takeError();
    llvm::outs() << outcome->line << "\n";
    passed &= outcome->passed;
  }
  for (const auto &[index, expected] : requests.expectations) {
    auto outcome =
        checkAgainstExpected(runner.binding ? &*runner.binding : nullptr,
                             runner.arguments, results, index, expected);
    if (!outcome)
      return makeError("--expect: " + llvm::toString(outcome.takeError()));
    llvm::outs() << outcome->line << "\n";
    passed &= outcome->passed;
  }
  return passed;
}

/// --repeat: times that many calls and prints the median (and the useful
/// GFLOP/s of a ragged dot); the simulated GPU measures no GPU time.
llvm::Error timeCalls(JitFunction &function, const ArgumentBuilder &runner,
                      ArrayRef<HostTensor> results, bool cuda) {
  std::vector<double> times;
  for (unsigned run = 0; run < repeat; ++run) {
    double seconds = 0;
    auto timed = function.call(runner.arguments, &seconds);
    if (!timed)
      return timed.takeError();
    times.push_back(seconds);
  }
  GmmCudaDeviceInfo device;
  if (cuda && gmmCudaGetDeviceInfo(0, device) && device.simulated) {
    llvm::outs() << "time: not measured: " << repeat
                 << (repeat == 1 ? " run" : " runs")
                 << " on the simulated GPU, which measures no GPU time\n";
    return llvm::Error::success();
  }
  std::sort(times.begin(), times.end());
  size_t mid = times.size() / 2;
  double median =
      times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  llvm::outs() << "time: median " << formatMilliseconds(median) << " ms over "
               << repeat << (repeat == 1 ? " run" : " runs");
  std::optional<double> flops;
  if (runner.binding)
    flops = countUsefulFlops(*runner.binding, runner.arguments, results);
  if (flops && median > 0)
    llvm::outs() << llvm::formatv(" ({0:F2} GFLOP/s)", *flops / median * 1e-9);
  if (pipelineName == "cpu")
    llvm::outs() << " on " << getNumThreads() << " threads";
  if (cuda)
    llvm::outs() << " on the GPU";
  llvm::outs() << "\n";
  return llvm::Error::success();
}

/// Everything after the command line, on the stack of runOnLargeStack().
int runAfterCommandLine() {
  if (std::optional<int> exitCode = selectDevice())
    return *exitCode;
  llvm::Expected<RunPlan> plan = planRun();
  if (!plan)
    return reportError(plan.takeError());

  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseInput(context);
  if (!module)
    return 1;
  llvm::Expected<ArgumentBuilder> runner = buildArguments(*module);
  if (!runner)
    return reportError(runner.takeError());
  const FunctionSignature &sig = runner->signature;

  std::vector<const TensorSpec *> outputSpecs;
  for (const TensorSpec &spec : sig.results)
    outputSpecs.push_back(&spec);
  for (const TensorSpec &spec : sig.arguments)
    if (spec.isMemRef)
      outputSpecs.push_back(&spec);
  llvm::Expected<OutputRequests> requests = readOutputRequests(outputSpecs);
  if (!requests)
    return reportError(requests.takeError());

  FormatOptions format;
  format.precision = printPrecision;
  if (printInputs)
    for (auto [i, tensor] : llvm::enumerate(runner->arguments))
      llvm::outs() << "input " << i << ": "
                   << sig.arguments[i].describe(tensor.shape) << "\n"
                   << formatTensor(tensor, format) << "\n";

  JitOptions jitOptions;
  jitOptions.guardPages = plan->guardPages;
  jitOptions.cuda = plan->cuda;
  jitOptions.configurePassManager = [](PassManager &pm) {
    return applyPassManagerCLOptions(pm);
  };
  std::optional<KernelConfigRecorder> configs;
  if (printConfig)
    configs.emplace(context);
  auto function = JitFunction::compile(*module, sig.name, plan->pipeline->build,
                                       jitOptions);
  if (!function)
    return reportError(function.takeError());
  if (configs) {
    for (const KernelConfigReport &report : configs->reports())
      llvm::outs() << "config: " << report.format() << "\n";
    if (configs->reports().empty())
      llvm::outs() << "config: none: --pipeline=" << pipelineName
                   << " configures no kernel\n";
    configs.reset();
  }

  auto results = (*function)->call(runner->arguments);
  if (!results)
    return reportError(results.takeError());
  if (printResults)
    printOutputs(sig, *results, format);
  for (const auto &[index, path] : requests->files)
    if (llvm::Error error = writeNpy(path, (*results)[index]))
      return reportError(std::move(error));
  llvm::Expected<bool> passed = checkOutputs(*runner, *results, *requests);
  if (!passed)
    return reportError(passed.takeError());
  if (repeat > 0)
    if (llvm::Error error =
            timeCalls(**function, *runner, *results, plan->cuda))
      return reportError(std::move(error));
  llvm::outs().flush();
  return *passed ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  if (!parseCommandLine(argc, argv))
    return 1;
  return support::finishStandardOutput(
      "gmm-runner", support::runOnLargeStack(runAfterCommandLine));
}
