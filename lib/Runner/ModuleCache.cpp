//===- ModuleCache.cpp - Compile a module once, call it many times -------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/ModuleCache.h"

#include "RunnerInternals.h"

#include "gmm/InitGMM.h"
#include "gmm/Runner/RaggedDotCall.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

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

} // namespace

void registerRunnerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  mlir::gmm::registerGMMDialects(registry);
}

std::unique_ptr<MLIRContext> createRunnerContext() {
  DialectRegistry registry;
  registerRunnerDialects(registry);
  return std::make_unique<MLIRContext>(registry);
}

llvm::Expected<OwningOpRef<ModuleOp>> parseModuleText(MLIRContext &context,
                                                      llvm::StringRef text,
                                                      llvm::StringRef name) {
  detail::FirstError error(context);
  // parseSourceString verifies what it parsed.
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, &context, name);
  if (!module)
    return error.take("the module text does not parse");
  return std::move(module);
}

llvm::Expected<std::unique_ptr<JitFunction>>
compileModuleText(MLIRContext &context, llvm::StringRef text,
                  llvm::StringRef entry, PipelineBuilder pipeline,
                  const JitOptions &options, llvm::StringRef name) {
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      parseModuleText(context, text, name);
  if (!module)
    return module.takeError();
  return JitFunction::compile(**module, entry, std::move(pipeline), options);
}

ModuleCache::ModuleCache() { context = createRunnerContext(); }

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
  JitOptions options;
  options.cuda = (*pipeline)->cuda;
  llvm::Expected<std::unique_ptr<JitFunction>> function =
      compileModuleText(*context, text, entry, (*pipeline)->build, options);
  if (!function)
    return function.takeError();
  JitFunction *result = function->get();
  compiled[key] = std::move(*function);
  return result;
}

llvm::Error ModuleCache::verify(llvm::StringRef text) {
  std::lock_guard<std::mutex> lock(mutex);
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      parseModuleText(*context, text);
  return module ? llvm::Error::success() : module.takeError();
}

llvm::Expected<std::string>
ModuleCache::describeCall(llvm::StringRef jsonRequest) {
  std::lock_guard<std::mutex> lock(mutex);
  return describeRaggedDotCallJSON(*context, jsonRequest);
}

llvm::Expected<std::vector<KernelConfigReport>>
ModuleCache::describeKernelConfigs(llvm::StringRef text, llvm::StringRef name) {
  std::lock_guard<std::mutex> lock(mutex);
  llvm::Expected<const PipelineInfo *> pipeline = findPipeline(name);
  if (!pipeline)
    return pipeline.takeError();
  llvm::Expected<OwningOpRef<ModuleOp>> module =
      parseModuleText(*context, text);
  if (!module)
    return module.takeError();
  KernelConfigRecorder recorder(*context);
  detail::FirstError error(*context);
  PassManager pm(context.get(), ModuleOp::getOperationName());
  (*pipeline)->build(pm);
  if (failed(pm.run(**module)))
    return error.take("the " + name.str() + " pipeline failed");
  return recorder.reports();
}

size_t ModuleCache::getNumCompilations() {
  std::lock_guard<std::mutex> lock(mutex);
  return compiled.size();
}

detail::FirstError::FirstError(MLIRContext &context, bool located)
    : handler(&context, [this, located](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() != DiagnosticSeverity::Error || message)
          return success();
        std::string text = diagnostic.str();
        std::replace(text.begin(), text.end(), '\n', ' ');
        if (!located) {
          message = text;
          return success();
        }
        std::string location = formatLocation(diagnostic.getLocation());
        message = (location.empty() ? "" : location + ": ") + "error: " + text;
        return success();
      }) {}

llvm::Error detail::FirstError::take(llvm::StringRef otherwise) {
  return llvm::createStringError(message.value_or(otherwise.str()));
}

} // namespace runner
} // namespace gmm
