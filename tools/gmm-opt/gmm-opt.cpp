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
// Its input is read as gmm's other tools read theirs (gmm/Support/
// InputFile.h): devices such as /dev/zero and inputs over 1 GiB are refused,
// brackets nested more than 10000 deep are refused before MLIR's parser
// recurses into them, and the work runs on a large stack. gmm's own plugin,
// which would register gmm a second time, is refused by name.
//
//===----------------------------------------------------------------------===//

#include "gmm/InitGMM.h"
#include "gmm/Support/CommandLine.h"
#include "gmm/Support/InputFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace cl = llvm::cl;

namespace {

/// The value of `--NAME=VALUE`, `-NAME=VALUE` or `--NAME VALUE` at argv[i]
/// (advancing `i` past a separate value), or std::nullopt.
std::optional<llvm::StringRef> optionValue(int argc, char **argv, int &i,
                                           llvm::StringRef name) {
  llvm::StringRef arg = argv[i];
  if (!arg.consume_front("-"))
    return std::nullopt;
  arg.consume_front("-");
  if (!arg.consume_front(name))
    return std::nullopt;
  if (arg.consume_front("="))
    return arg;
  if (!arg.empty() || i + 1 >= argc)
    return std::nullopt;
  return llvm::StringRef(argv[++i]);
}

/// The name that the pass or dialect plugin at `path` gives itself, or ""
/// when it does not load (MLIR reports that later).
template <typename Plugin> std::string getPluginName(llvm::StringRef path) {
  llvm::Expected<Plugin> plugin = Plugin::load(path.str());
  if (!plugin) {
    llvm::consumeError(plugin.takeError());
    return "";
  }
  return plugin->getPluginName().str();
}

/// gmm-opt contains gmm; its plugin would register the dialect and the passes
/// a second time, which MLIR treats as a fatal error while it parses the
/// command line. Finds `--load-pass-plugin` or `--load-dialect-plugin` naming
/// gmm's plugin and prints one line; returns false then. Other plugins, and
/// files that are no plugin, are left to MLIR.
bool refuseOwnPlugin(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (llvm::StringRef(argv[i]) == "--")
      break;
    llvm::StringRef option = "load-pass-plugin";
    std::optional<llvm::StringRef> path = optionValue(argc, argv, i, option);
    std::string name;
    if (path)
      name = getPluginName<mlir::PassPlugin>(*path);
    else if ((path =
                  optionValue(argc, argv, i, option = "load-dialect-plugin")))
      name = getPluginName<mlir::DialectPlugin>(*path);
    if (name != "GMM" && name != "GMMPasses")
      continue;
    llvm::errs() << llvm::sys::path::filename(argv[0]) << ": error: --"
                 << option << "=" << *path
                 << ": this is gmm's own plugin, and gmm-opt already contains "
                    "the gmm dialect and passes (the plugin is for mlir-opt "
                    "and other MLIR tools)\n";
    return false;
  }
  return true;
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

  if (!refuseOwnPlugin(argc, argv))
    return 1;
  std::string helpHeader = mlir::registerCLIOptions(
      "gmm optimizer driver: ragged dot for MLIR\n", registry);
  if (!gmm::support::parseToolCommandLine(argc, argv, helpHeader))
    return 1;

  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // --show-dialects, --list-passes and the like: MLIR's driver as is.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return gmm::support::finishStandardOutput(
        "gmm-opt", mlir::asMainReturnCode(mlir::MlirOptMain(
                       argc, argv, inputFilename, outputFilename, registry)));

  // Errors in the pass pipeline of the command line (an unknown pass in
  // --pass-pipeline, a bad pass option) are command-line errors too: one
  // line each. cl has already printed a bad option's value; MLIR then adds
  // an empty diagnostic, which is dropped.
  mlir::MlirOptMainConfig pipelineConfig = config;
  config.setPassPipelineSetupFn([pipelineConfig](mlir::PassManager &pm) {
    std::vector<std::string> lines;
    mlir::ScopedDiagnosticHandler oneLine(
        pm.getContext(), [&](mlir::Diagnostic &diagnostic) {
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
            lines.push_back(line.str());
          return mlir::success();
        });
    // llvm::cl writes a bad pass option value ("for the --tile-m option:
    // 'x' value invalid ...") to stderr itself, before MLIR's own (empty)
    // diagnostic, which is dropped.
    gmm::support::StderrCapture capture;
    mlir::LogicalResult result = pipelineConfig.setupPassPipeline(pm);
    std::string direct =
        gmm::support::joinCommandLineErrors(capture.take(), "gmm-opt");
    if (!direct.empty())
      lines.insert(lines.begin(), direct);
    for (const std::string &line : lines)
      llvm::errs() << "gmm-opt: error: pass pipeline: " << line << "\n";
    return result;
  });

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      gmm::support::readToolInput(inputFilename, "gmm-opt", errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "gmm-opt: error: " << errorMessage << "\n";
    return 1;
  }
  return gmm::support::runOnLargeStack([&] {
    bool failed = mlir::failed(
        mlir::MlirOptMain(output->os(), std::move(file), registry, config));
    int status = gmm::support::finishOutput(
        output->os(), "gmm-opt",
        outputFilename == "-" ? "standard output" : outputFilename.getValue(),
        failed ? 1 : 0);
    if (status == 0)
      output->keep();
    return status;
  });
}
