//===- gmm-opt.cpp - mlir-opt with the gmm dialect and passes -------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-opt is mlir-opt plus gmm: every upstream dialect, extension and pass
// next to gmm's own. It runs MLIR's MlirOptMain, with two differences in how
// user errors are reported: a bad command line, a missing file and a bad
// pass pipeline are each one line "gmm-opt: error: ..." (cl's "Did you
// mean" hint folded in), where mlir-opt prints several lines or an empty
// "<unknown>:0: error:". Diagnostics in the input are MLIR's, as in
// mlir-opt, so -verify-diagnostics works unchanged.
//
//===----------------------------------------------------------------------===//

#include "gmm/InitGMM.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <string>

namespace cl = llvm::cl;

namespace {

/// Parses the command line that MLIR's options were registered for; on an
/// error prints one line and returns false.
bool parseCommandLine(int argc, char **argv, llvm::StringRef helpHeader) {
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (cl::ParseCommandLineOptions(argc, argv, helpHeader, &errorStream))
    return true;
  // cl writes lines "gmm-opt: <what>"; the first says what is wrong, a
  // second may suggest an option ("Did you mean '--foo'?").
  llvm::StringRef tool = llvm::sys::path::filename(argv[0]);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(errors).trim().split(lines, '\n');
  std::string line;
  for (llvm::StringRef part : lines) {
    part = part.trim();
    part.consume_front(tool);
    part.consume_front(":");
    part = part.trim();
    // "Try: 'path/to/gmm-opt --help'" is noise in one line.
    size_t tryAt = part.find("  Try: '");
    if (tryAt != llvm::StringRef::npos)
      part = part.take_front(tryAt);
    if (part.empty() || llvm::StringRef(line).contains(part))
      continue;
    line += (line.empty() ? "" : " ") + part.str();
  }
  llvm::errs() << tool << ": error: " << line << "\n";
  return false;
}

/// mlir::parseCLIOptions() defines these two; gmm-opt parses the command
/// line itself, so it defines them the same way.
cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"),
                                   cl::init("-"));
cl::opt<std::string> outputFilename("o", cl::desc("Output filename"),
                                    cl::value_desc("filename"), cl::init("-"));

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // A compiler embedding gmm only needs the two gmm calls.
  mlir::registerAllPasses();
  mlir::gmm::registerGMMPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::gmm::registerGMMDialects(registry);

  std::string helpHeader = mlir::registerCLIOptions(
      "gmm optimizer driver: ragged dot for MLIR\n", registry);
  if (!parseCommandLine(argc, argv, helpHeader))
    return 1;

  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // --show-dialects, --list-passes and the like: MLIR's driver as is.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  // Errors in the pass pipeline of the command line (an unknown pass in
  // --pass-pipeline, a bad pass option) are command-line errors too: one
  // line each. cl has already printed a bad option's value; MLIR then adds
  // an empty diagnostic, which is dropped.
  mlir::MlirOptMainConfig pipelineConfig = config;
  config.setPassPipelineSetupFn([pipelineConfig](mlir::PassManager &pm) {
    mlir::ScopedDiagnosticHandler oneLine(
        pm.getContext(), [](mlir::Diagnostic &diagnostic) {
          std::string message = diagnostic.str();
          llvm::StringRef line = llvm::StringRef(message).split('\n').first;
          // "MLIR Textual PassPipeline Parser:1:1: error: 'x' does not ...":
          // the position in the pipeline text says little; the message does.
          if (line.consume_front("MLIR Textual PassPipeline Parser:")) {
            size_t at = line.find(": error: ");
            if (at != llvm::StringRef::npos)
              line = line.drop_front(at + strlen(": error: "));
          }
          // A pass's unknown option: "<Pass-Options-Parser>: no such ...".
          line = line.trim();
          line.consume_front("<Pass-Options-Parser>: ");
          if (!line.empty())
            llvm::errs() << "gmm-opt: error: pass pipeline: " << line << "\n";
          return mlir::success();
        });
    return pipelineConfig.setupPassPipeline(pm);
  });

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << "gmm-opt: error: " << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "gmm-opt: error: " << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}
