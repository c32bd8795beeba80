//===- Compile.cpp - A module to a shared library with C entry points -----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-aot's steps (AOT.h): the module's public functions are described, a
// copy of the module becomes their shape functions (gmm-aot-shape-functions,
// lowered by the reference pipeline: they only compute sizes), the module
// itself writes its results into its caller's buffers
// (gmm-aot-destination-results) and goes through the target's pipeline;
// both are translated to LLVM IR, linked, optimized and compiled to one
// object for the host, and the C compiler compiles the entry points
// (CEntryPoints.cpp) and links the shared library.
//
//===----------------------------------------------------------------------===//

#include "gmm-c/AOT.h"
#include "gmm/AOT/AOT.h"
#include "gmm/AOT/Passes.h"
#include "gmm/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::gmm::aot;
using llvm::StringRef;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// include/gmm-c/AOT.h's code of an element type, or std::nullopt for a
/// type the entry points cannot pass.
std::optional<int32_t> describeElementType(Type type) {
  if (type.isF16())
    return GMM_AOT_F16;
  if (type.isBF16())
    return GMM_AOT_BF16;
  if (type.isF32())
    return GMM_AOT_F32;
  if (type.isF64())
    return GMM_AOT_F64;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.isUnsigned())
      return std::nullopt;
    switch (integer.getWidth()) {
    case 1:
      return GMM_AOT_I1;
    case 8:
      return GMM_AOT_I8;
    case 16:
      return GMM_AOT_I16;
    case 32:
      return GMM_AOT_I32;
    case 64:
      return GMM_AOT_I64;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

bool isCIdentifier(StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The entry points of `module`: its public functions with a body.
llvm::Expected<std::vector<FunctionInfo>>
describeFunctions(ModuleOp module, const Options &options) {
  std::vector<FunctionInfo> functions;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    FunctionInfo info;
    info.name = func.getSymName().str();
    info.entry = options.prefix + info.name;
    std::string where = "@" + info.name;
    if (!isCIdentifier(info.entry))
      return makeError(where + ": '" + info.entry +
                       "' is not a C identifier, which an entry point's name "
                       "must be");
    for (StringRef reserved : {"gmm_aot_describe"})
      if (info.entry == reserved)
        return makeError(where + ": the name '" + info.entry +
                         "' is gmm-aot's own");
    info.signature = printed(func.getFunctionType());
    auto describe = [&](Type type, std::string name,
                        bool result) -> llvm::Expected<TensorInfo> {
      auto shaped = dyn_cast<ShapedType>(type);
      auto memref = dyn_cast<MemRefType>(type);
      bool tensor = isa<RankedTensorType>(type);
      if (!shaped || !(tensor || memref) || (result && memref))
        return makeError(where + ": " + name + " is " + printed(type) +
                         "; entry points take ranked tensors and memrefs and "
                         "return ranked tensors");
      if (memref &&
          (!memref.getLayout().isIdentity() || memref.getMemorySpace()))
        return makeError(where + ": " + name + " is " + printed(type) +
                         "; entry points pass dense row-major buffers (an "
                         "identity layout in the default memory space)");
      std::optional<int32_t> element =
          describeElementType(shaped.getElementType());
      if (!element)
        return makeError(where + ": " + name + " is " + printed(type) +
                         "; entry points pass f16, bf16, f32, f64 and "
                         "signless i1, i8, i16, i32 and i64 elements");
      TensorInfo t;
      t.name = name;
      t.type = printed(type);
      t.elementType = *element;
      t.written = result || memref;
      for (int64_t d = 0; d < shaped.getRank(); ++d) {
        if (shaped.isDynamicDim(d)) {
          t.shape.push_back(-1);
          if (result) {
            t.sizeParameter.push_back(-1);
          } else {
            t.sizeParameter.push_back(info.sizes.size());
            info.sizes.push_back(name + "_size" + std::to_string(d));
          }
        } else {
          t.shape.push_back(shaped.getDimSize(d));
          t.sizeParameter.push_back(-1);
        }
      }
      return t;
    };
    FunctionType type = func.getFunctionType();
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      llvm::Expected<TensorInfo> t =
          describe(input, "arg" + std::to_string(i), false);
      if (!t)
        return t.takeError();
      info.arguments.push_back(std::move(*t));
    }
    for (auto [i, output] : llvm::enumerate(type.getResults())) {
      llvm::Expected<TensorInfo> t =
          describe(output, "result" + std::to_string(i), true);
      if (!t)
        return t.takeError();
      info.results.push_back(std::move(*t));
    }
    if (info.results.empty() &&
        llvm::none_of(info.arguments,
                      [](const TensorInfo &t) { return t.written; }))
      return makeError(where + " returns nothing and writes no memref "
                               "argument: nothing to compile");
    functions.push_back(std::move(info));
  }
  if (functions.empty())
    return makeError("the module has no public function with a body to "
                     "compile");
  // The exported names must not collide, nor the lowered functions' (each
  // function's shape and workspace-size functions are named after it).
  llvm::StringSet<> names, internal;
  for (const FunctionInfo &f : functions) {
    for (std::string name :
         {f.entry, f.entry + "_result_sizes", f.entry + "_workspace_bytes"})
      if (!names.insert(name).second)
        return makeError("two entry points would export '" + name + "'");
    for (std::string name :
         {f.name, f.name + "_shapes", f.name + "_workspace_bytes"})
      if (!internal.insert(name).second)
        return makeError("@" + f.name + ": the name '" + name +
                         "' is taken by another function's shape or "
                         "workspace-size function; rename one of them");
  }
  return functions;
}

/// Renames each entry function @f of `module` to its implementation symbol.
void renameEntries(ModuleOp module, ArrayRef<FunctionInfo> functions) {
  SymbolTable symbols(module);
  for (const FunctionInfo &f : functions)
    if (Operation *op = symbols.lookup(f.name))
      (void)symbols.rename(op, implementationSymbol(f.name));
}

/// The number of parameters of the lowered function `name`, or an error.
llvm::Expected<unsigned> loweredArity(ModuleOp module, StringRef name) {
  auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!func || func.isExternal())
    return makeError("the lowered module has no function @" + name);
  return func.getNumArguments();
}

unsigned descriptorWords(ArrayRef<TensorInfo> tensors) {
  unsigned words = 0;
  for (const TensorInfo &t : tensors)
    words += mlir::gmm::aot::descriptorWords(t.shape.size());
  return words;
}

/// Checks that the lowered functions take what the entry points pass, and
/// records whether the workspace-size functions take a stream.
llvm::Error checkLoweredSignatures(ModuleOp kernels, ModuleOp shapes,
                                   MutableArrayRef<FunctionInfo> functions,
                                   Target target) {
  for (FunctionInfo &f : functions) {
    unsigned inputs = descriptorWords(f.arguments);
    unsigned all = inputs + descriptorWords(f.results);
    bool cuda = target == Target::CUDA;
    llvm::Expected<unsigned> main =
        loweredArity(kernels, implementationSymbol(f.name));
    if (!main)
      return main.takeError();
    // The workspace's descriptor and the stream.
    unsigned expected = all + (cuda ? 5 + 1 : 0);
    if (*main != expected)
      return makeError(llvm::formatv("@{0} was lowered to {1} parameters, "
                                     "where its entry point passes {2}",
                                     f.name, *main, expected));
    llvm::Expected<unsigned> sizes = loweredArity(shapes, shapesSymbol(f.name));
    if (!sizes)
      return sizes.takeError();
    if (*sizes != inputs + 5)
      return makeError(llvm::formatv("the shape function of @{0} was lowered "
                                     "to {1} parameters, not {2}",
                                     f.name, *sizes, inputs + 5));
    if (!cuda)
      continue;
    llvm::Expected<unsigned> workspace =
        loweredArity(kernels, workspaceSizeSymbol(f.name));
    if (!workspace)
      return workspace.takeError();
    if (*workspace != all && *workspace != all + 1)
      return makeError(llvm::formatv("the workspace size of @{0} was lowered "
                                     "to {1} parameters, not {2}",
                                     f.name, *workspace, all));
    f.workspaceSizeStream = *workspace == all + 1;
  }
  return llvm::Error::success();
}

/// Runs `program` with `arguments`; an error carries what it printed.
llvm::Error runProgram(StringRef program, ArrayRef<std::string> arguments,
                       StringRef tempDirectory, StringRef what) {
  SmallVector<StringRef> args = {program};
  for (const std::string &arg : arguments)
    args.push_back(arg);
  SmallString<128> log(tempDirectory);
  llvm::sys::path::append(log, "tool-output.txt");
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects,
                                         0, 0, &message);
  if (status == 0)
    return llvm::Error::success();
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().trim().str();
  std::string command = llvm::join(args, " ");
  return makeError(what + " failed (" + command + ")" +
                   (message.empty() ? "" : ": " + message) +
                   (output.empty() ? "" : "\n" + output));
}

/// Closes `os`, the output file `path`: an error says why it could not be
/// written (a full disk), and is cleared from the stream, which LLVM would
/// otherwise turn into a fatal error when it is destroyed.
llvm::Error closeOutput(llvm::raw_fd_ostream &os, StringRef path) {
  os.close();
  if (!os.has_error())
    return llvm::Error::success();
  std::string message = os.error().message();
  os.clear_error();
  return makeError("cannot write " + path + ": " + message);
}

llvm::Error writeFile(StringRef path, StringRef text) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_Text);
  if (error)
    return makeError("cannot write " + path + ": " + error.message());
  os << text;
  return closeOutput(os, path);
}

/// The C compiler gmm-aot calls.
llvm::Expected<std::string> findCompiler(StringRef requested) {
  if (!requested.empty()) {
    if (llvm::sys::fs::can_execute(requested))
      return requested.str();
    // A name without a slash is looked for on PATH.
    if (!requested.contains('/'))
      if (llvm::ErrorOr<std::string> found =
              llvm::sys::findProgramByName(requested))
        return *found;
    return makeError("no C compiler '" + requested + "'");
  }
#ifdef GMM_AOT_DEFAULT_COMPILER
  if (llvm::sys::fs::can_execute(GMM_AOT_DEFAULT_COMPILER))
    return std::string(GMM_AOT_DEFAULT_COMPILER);
#endif
  for (StringRef name : {"clang", "cc", "gcc"})
    if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(name))
      return *found;
  return makeError("no C compiler found (clang, cc or gcc); name one with "
                   "--cc");
}

} // namespace

llvm::Error mlir::gmm::aot::compile(ModuleOp module, const Options &options,
                                    const Outputs &outputs) {
  MLIRContext *context = module.getContext();
  llvm::Expected<std::vector<FunctionInfo>> described =
      describeFunctions(module, options);
  if (!described)
    return described.takeError();
  std::vector<FunctionInfo> functions = std::move(*described);
  bool cuda = options.target == Target::CUDA;

  // The target's pipeline, with its options checked.
  PassManager pipeline(context);
  if (options.configure && failed(options.configure(pipeline)))
    return makeError("the pass manager's options are invalid");
  pipeline.addPass(createGMMAOTDestinationResults());
  std::string chip;
  std::string optionErrors;
  llvm::raw_string_ostream optionStream(optionErrors);
  auto optionError = [&](const llvm::Twine &message) {
    optionErrors = message.str();
    return failure();
  };
  if (cuda) {
    GPUPipelineOptions gpu;
    if (failed(gpu.parseFromString(options.pipelineOptions, optionStream)))
      return makeError("gmm-to-ptx options '" + options.pipelineOptions +
                       "': " + StringRef(optionErrors).trim());
    gpu.callerStream = true;
    gpu.workspaceArgument = true;
    if (failed(verifyGPUPipelineOptions(gpu, optionError)))
      return makeError("gmm-to-ptx options: " + optionErrors);
    chip = gpu.chip;
    buildGPUPipeline(pipeline, gpu);
  } else {
    CPUPipelineOptions cpu;
    if (failed(cpu.parseFromString(options.pipelineOptions, optionStream)))
      return makeError("gmm-to-cpu options '" + options.pipelineOptions +
                       "': " + StringRef(optionErrors).trim());
    if (failed(verifyCPUPipelineOptions(cpu, optionError)))
      return makeError("gmm-to-cpu options: " + optionErrors);
    chip = llvm::sys::getHostCPUName().str();
    buildCPUPipeline(pipeline, cpu);
  }

  // The shape functions, from a copy of the module.
  OwningOpRef<ModuleOp> shapes = module.clone();
  renameEntries(*shapes, functions);
  {
    PassManager pm(context);
    if (options.configure && failed(options.configure(pm)))
      return makeError("the pass manager's options are invalid");
    pm.addPass(createGMMAOTShapeFunctions());
    if (failed(pm.run(*shapes)))
      return makeError("computing the entry points' sizes failed (see the "
                       "diagnostics above)");
    // Only the shape functions stay (and what they call); the attribute
    // that names their function would keep it alive.
    for (auto func :
         llvm::make_early_inc_range(shapes->getOps<func::FuncOp>())) {
      if (func->removeAttr("gmm.aot_shapes_of"))
        continue;
      if (func.isPublic())
        func.erase();
    }
    PassManager lower(context);
    lower.addPass(createSymbolDCEPass());
    buildReferenceToLLVMPipeline(lower);
    if (failed(lower.run(*shapes)))
      return makeError("lowering the shape functions failed (see the "
                       "diagnostics above)");
  }

  renameEntries(module, functions);
  if (failed(pipeline.run(module)))
    return makeError(StringRef(cuda ? "gmm-to-ptx" : "gmm-to-cpu") +
                     " failed (see the diagnostics above)");
  if (llvm::Error error =
          checkLoweredSignatures(module, *shapes, functions, options.target))
    return error;

  // gmm's markers of arguments (the stream, the workspace) mean nothing to
  // LLVM IR.
  for (ModuleOp lowered : {module, *shapes})
    lowered.walk([](LLVM::LLVMFuncOp op) {
      auto func = cast<FunctionOpInterface>(op.getOperation());
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        SmallVector<NamedAttribute> kept;
        for (NamedAttribute attr : func.getArgAttrs(i))
          if (!attr.getName().strref().starts_with("gmm."))
            kept.push_back(attr);
        func.setArgAttrs(i, kept);
      }
    });

  // One LLVM module for both.
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  context->appendDialectRegistry(registry);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> kernels =
      translateModuleToLLVMIR(module, llvmContext, "gmm-aot");
  if (!kernels)
    return makeError("translating the module to LLVM IR failed");
  std::unique_ptr<llvm::Module> sizes =
      translateModuleToLLVMIR(*shapes, llvmContext, "gmm-aot-shapes");
  if (!sizes)
    return makeError("translating the shape functions to LLVM IR failed");
  if (llvm::Linker::linkModules(*kernels, std::move(sizes)))
    return makeError("linking the shape functions failed");

  // Code for this host: the CPU's own features for CPU libraries (as the
  // JIT compiles), any x86-64 for the host side of GPU libraries.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("no LLVM target for " + triple.str() + ": " + error);
  std::string cpuName = "generic", features;
  if (!cuda) {
    cpuName = llvm::sys::getHostCPUName().str();
    SmallVector<std::string> list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.push_back((feature.second ? "+" : "-") + feature.first().str());
    features = llvm::join(list, ",");
  } else if (triple.isX86()) {
    cpuName = "x86-64";
  }
  llvm::CodeGenOptLevel level =
      options.optLevel == 0   ? llvm::CodeGenOptLevel::None
      : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
      : options.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                              : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuName, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, level));
  if (!machine)
    return makeError("cannot create a target machine for " + triple.str());
  kernels->setTargetTriple(triple);
  kernels->setDataLayout(machine->createDataLayout());
  if (llvm::Error optimized = makeOptimizingTransformer(
          std::min(options.optLevel, 3u), 0, machine.get())(kernels.get()))
    return optimized;
  llvm::Function *copy = kernels->getFunction("memrefCopy");
  bool needsMemrefCopy = copy && copy->isDeclaration() && !copy->use_empty();

  // The files.
  SmallString<128> temp(options.tempDirectory);
  bool ownTemp = temp.empty();
  if (ownTemp) {
    if (std::error_code code =
            llvm::sys::fs::createUniqueDirectory("gmm-aot", temp))
      return makeError("cannot create a temporary folder: " + code.message());
  } else if (std::error_code code = llvm::sys::fs::create_directories(temp)) {
    return makeError("cannot create " + temp + ": " + code.message());
  }
  llvm::scope_exit removeTemp([&] {
    if (ownTemp && !options.keepTemporaries)
      (void)llvm::sys::fs::remove_directories(temp);
  });
  auto inTemp = [&](StringRef name) {
    SmallString<128> path(temp);
    llvm::sys::path::append(path, name);
    return std::string(path);
  };
  std::string object =
      outputs.object.empty() ? inTemp("module.o") : outputs.object;
  {
    std::error_code code;
    llvm::raw_fd_ostream os(object, code, llvm::sys::fs::OF_None);
    if (code)
      return makeError("cannot write " + object + ": " + code.message());
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return makeError("LLVM cannot emit an object file for " + triple.str());
    codegen.run(*kernels);
    if (llvm::Error error = closeOutput(os, object))
      return error;
  }

  std::string libraryName =
      outputs.library.empty()
          ? "the library"
          : llvm::sys::path::filename(outputs.library).str();
  std::string header =
      outputs.header.empty() ? inTemp("entry-points.h") : outputs.header;
  SmallString<256> absoluteHeader(header);
  (void)llvm::sys::fs::make_absolute(absoluteHeader);
  std::string source =
      options.sourceName.empty() ? "a module" : options.sourceName;
  if (llvm::Error written = writeFile(
          header, emitHeader(functions, options.target, libraryName, source)))
    return written;
  std::string entryPoints = outputs.entryPoints.empty()
                                ? inTemp("entry-points.c")
                                : outputs.entryPoints;
  if (llvm::Error written = writeFile(
          entryPoints, emitEntryPoints(functions, options.target, chip, source,
                                       absoluteHeader, needsMemrefCopy)))
    return written;
  if (outputs.library.empty())
    return llvm::Error::success();

  llvm::Expected<std::string> compiler = findCompiler(options.compiler);
  if (!compiler)
    return compiler.takeError();
  std::string entryObject = inTemp("entry-points.o");
  if (llvm::Error compiled = runProgram(
          *compiler,
          {"-std=c11", "-O2", "-fPIC", "-c", entryPoints, "-o", entryObject},
          temp, "compiling the entry points"))
    return compiled;
  std::string exports = inTemp("exports.map");
  if (llvm::Error written =
          writeFile(exports, emitExportList(functions, options.target)))
    return written;
  std::vector<std::string> link = {"-shared",
                                   "-o",
                                   outputs.library,
                                   object,
                                   entryObject,
                                   "-Wl,--version-script=" + exports,
                                   "-Wl,--no-undefined",
                                   "-Wl,-rpath,$ORIGIN"};
  if (cuda) {
    if (options.runtimeDirectory.empty())
      return makeError("where libgmm_cuda_runtime.so is was not given");
    link.push_back("-L" + options.runtimeDirectory);
    link.push_back("-Wl,-rpath," + options.runtimeDirectory);
    link.push_back("-lgmm_cuda_runtime");
  } else {
    if (options.openmpLibrary.empty())
      return makeError("where LLVM's OpenMP runtime is was not given");
    link.push_back(options.openmpLibrary);
    link.push_back("-Wl,-rpath," +
                   llvm::sys::path::parent_path(options.openmpLibrary).str());
  }
  link.push_back("-lm");
  return runProgram(*compiler, link, temp, "linking " + outputs.library);
}
