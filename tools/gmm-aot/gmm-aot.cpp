//===- gmm-aot.cpp - ragged dots compiled into a shared library -----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-aot FILE.mlir -o libNAME.so [--target=cpu|cuda] [--chip=sm_90]
//
// Compiles every public function of a .mlir file with gmm's CPU or GPU
// pipeline into a shared library with one C entry point per function, and
// writes the header that declares them (docs/AOT.md). A thin driver over
// mlir::gmm::aot::compile (include/gmm/AOT/AOT.h).
//
//===----------------------------------------------------------------------===//

#include "gmm/AOT/AOT.h"
#include "gmm/InitGMM.h"
#include "gmm/Support/CommandLine.h"
#include "gmm/Support/InputFile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;
namespace aot = mlir::gmm::aot;

namespace {

cl::OptionCategory aotCategory("gmm-aot options");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .mlir file>"),
                                   cl::init("-"), cl::cat(aotCategory));
cl::opt<std::string>
    outputLibrary("o",
                  cl::desc("The shared library to write (libNAME.so); the "
                           "header goes beside it as libNAME.h unless "
                           "--header names another file"),
                  cl::value_desc("file"), cl::cat(aotCategory));
cl::opt<std::string>
    targetName("target",
               cl::desc("Where the functions run: cpu (gmm-to-cpu, for this "
                        "machine's CPU) or cuda (gmm-to-ptx, kernels embedded, "
                        "host code calling libgmm_cuda_runtime)"),
               cl::value_desc("cpu|cuda"), cl::init("cpu"),
               cl::cat(aotCategory));
cl::opt<std::string> chip("chip",
                          cl::desc("For --target=cuda: the GPU the kernels "
                                   "are for (gmm-to-ptx's chip; default "
                                   "sm_90)"),
                          cl::value_desc("sm_NN"), cl::cat(aotCategory));
cl::opt<std::string> pipelineOptions(
    "options",
    cl::desc("More options of the target's pipeline, as gmm-opt takes them "
             "in gmm-to-cpu{...} or gmm-to-ptx{...}, e.g. \"tile-m=128 "
             "tile-n=256 format=bin\""),
    cl::value_desc("options"), cl::cat(aotCategory));
cl::opt<std::string>
    headerFile("header",
               cl::desc("The header to write (default: the library's name "
                        "with .h)"),
               cl::value_desc("file"), cl::cat(aotCategory));
cl::opt<std::string>
    prefix("prefix",
           cl::desc("Prepended to every exported function's name, e.g. "
                    "moe_"),
           cl::value_desc("prefix"), cl::cat(aotCategory));
cl::opt<std::string>
    compiler("cc",
             cl::desc("The C compiler that compiles the entry points and "
                      "links the library (default: the clang gmm was built "
                      "with, else cc)"),
             cl::value_desc("program"), cl::cat(aotCategory));
cl::opt<std::string> runtimeDirectory(
    "runtime-dir",
    cl::desc("Where libgmm_cuda_runtime.so is, for --target=cuda (default: "
             "../lib beside gmm-aot); the library also finds it beside "
             "itself"),
    cl::value_desc("dir"), cl::cat(aotCategory));
cl::opt<std::string> objectFile(
    "emit-object",
    cl::desc("Also write the compiled module (without the entry points) as "
             "an object file"),
    cl::value_desc("file"), cl::cat(aotCategory));
cl::opt<std::string>
    entryPointsFile("emit-entry-points",
                    cl::desc("Also write the C source of the entry points"),
                    cl::value_desc("file"), cl::cat(aotCategory));
cl::opt<unsigned> optLevel("O",
                           cl::desc("LLVM optimisation level, 0-3 "
                                    "(default 3)"),
                           cl::Prefix, cl::init(3), cl::cat(aotCategory));

int reportError(const llvm::Twine &message) {
  llvm::errs() << "gmm-aot: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  cl::HideUnrelatedOptions(aotCategory);
  const char *overview =
      "gmm-aot: ragged dots compiled ahead of time into a shared library\n\n"
      "Compiles every public function of a .mlir file with gmm's CPU or GPU\n"
      "pipeline into a shared library with one C entry point per function\n"
      "(the caller passes its buffers, its results' buffers, the dynamic\n"
      "sizes and, on a GPU, its workspace and stream), and writes the header\n"
      "that declares them. A program calls the library without MLIR or LLVM\n"
      "in its process. See docs/AOT.md.\n\n"
      "Examples:\n"
      "  gmm-aot examples/moe_forward.mlir -o libmoe.so\n"
      "  gmm-aot moe.mlir --target=cuda --chip=sm_90 -o libmoe.so\n";
  if (!::gmm::support::parseToolCommandLine(argc, argv, overview))
    return 1;

  aot::Options options;
  if (targetName == "cpu")
    options.target = aot::Target::CPU;
  else if (targetName == "cuda")
    options.target = aot::Target::CUDA;
  else
    return reportError("unknown --target=" + targetName +
                       " (expected cpu or cuda)");
  if (outputLibrary.empty())
    return reportError("no output library: name it with -o libNAME.so");
  if (optLevel > 3)
    return reportError("-O" + llvm::Twine(optLevel) + ": expected 0 to 3");
  if (!chip.empty() && options.target != aot::Target::CUDA)
    return reportError("--chip is for --target=cuda");
  options.pipelineOptions = pipelineOptions;
  if (!chip.empty())
    options.pipelineOptions = "chip=" + chip + " " + options.pipelineOptions;
  options.prefix = prefix;
  options.compiler = compiler;
  options.optLevel = optLevel;
  options.sourceName = llvm::sys::path::filename(inputFilename).str();
  options.openmpLibrary = GMM_AOT_OPENMP_RUNTIME;
  options.runtimeDirectory = runtimeDirectory;
  if (options.runtimeDirectory.empty()) {
    std::string self = llvm::sys::fs::getMainExecutable(
        argv[0], reinterpret_cast<void *>(&reportError));
    llvm::SmallString<256> lib(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
    llvm::sys::path::append(lib, "lib");
    options.runtimeDirectory = std::string(lib);
  }
  options.configure = [](PassManager &pm) {
    return applyPassManagerCLOptions(pm);
  };

  aot::Outputs outputs;
  outputs.library = outputLibrary;
  outputs.header = headerFile;
  if (outputs.header.empty()) {
    llvm::SmallString<256> header(outputLibrary);
    llvm::sys::path::replace_extension(header, "h");
    outputs.header = std::string(header);
  }
  outputs.object = objectFile;
  outputs.entryPoints = entryPointsFile;

  std::string inputError;
  std::unique_ptr<llvm::MemoryBuffer> file =
      ::gmm::support::readToolInput(inputFilename, "gmm-aot", inputError);
  if (!file) {
    llvm::errs() << inputError << "\n";
    return 1;
  }
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  mlir::gmm::registerGMMDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  if (llvm::Error error = aot::compile(*module, options, outputs))
    return reportError(llvm::toString(std::move(error)));
  return 0;
}
