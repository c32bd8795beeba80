//===- ModuleCache.cpp - Compile a module once, call it many times -------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/ModuleCache.h"

#include "gmm/InitGMM.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"

#include <algorithm>
#include <optional>
#include <string>

using namespace mlir;

namespace gmm {
namespace runner {

namespace {

/// The key of one compiled function: the pipeline, the entry and the text,
/// separated by characters that neither names contain.
std::string makeKey(llvm::StringRef text, llvm::StringRef entry,
                    llvm::StringRef pipeline) {
  return (pipeline + "\n" + entry + "\n" + text).str();
}

/// Parses and verifies `text`; the first error on one line.
llvm::Expected<OwningOpRef<ModuleOp>> parseModule(MLIRContext &context,
                                                  llvm::StringRef text) {
  std::optional<std::string> firstError;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error || firstError)
      return success();
    std::string message = diagnostic.str();
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::string location = formatLocation(diagnostic.getLocation());
    firstError =
        (location.empty() ? "" : location + ": ") + "error: " + message;
    return success();
  });
  // parseSourceString verifies what it parsed.
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, &context, "module");
  if (!module)
    return llvm::createStringError(
        firstError.value_or("the module text does not parse"));
  return std::move(module);
}

} // namespace

ModuleCache::ModuleCache() {
  // What gmm-runner registers: the pipelines' passes need more than the
  // dialects of the input (bufferization models of the tiled IR, vector,
  // OpenMP, ...).
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  mlir::gmm::registerGMMDialects(registry);
  context = std::make_unique<MLIRContext>(registry);
}

ModuleCache::~ModuleCache() = default;

llvm::Expected<JitFunction *> ModuleCache::getOrCompile(llvm::StringRef text,
                                                        llvm::StringRef entry,
                                                        llvm::StringRef name) {
  std::string key = makeKey(text, entry, name);
  std::lock_guard<std::mutex> lock(mutex);
  auto found = compiled.find(key);
  if (found != compiled.end())
    return found->second.get();
  llvm::Expected<const PipelineInfo *> pipeline = findPipeline(name);
  if (!pipeline)
    return pipeline.takeError();
  llvm::Expected<OwningOpRef<ModuleOp>> module = parseModule(*context, text);
  if (!module)
    return module.takeError();
  JitOptions options;
  options.cuda = (*pipeline)->cuda;
  llvm::Expected<std::unique_ptr<JitFunction>> function =
      JitFunction::compile(**module, entry, (*pipeline)->build, options);
  if (!function)
    return function.takeError();
  JitFunction *result = function->get();
  compiled[key] = std::move(*function);
  return result;
}

llvm::Error ModuleCache::verify(llvm::StringRef text) {
  std::lock_guard<std::mutex> lock(mutex);
  llvm::Expected<OwningOpRef<ModuleOp>> module = parseModule(*context, text);
  return module ? llvm::Error::success() : module.takeError();
}

size_t ModuleCache::getNumCompilations() {
  std::lock_guard<std::mutex> lock(mutex);
  return compiled.size();
}

} // namespace runner
} // namespace gmm
