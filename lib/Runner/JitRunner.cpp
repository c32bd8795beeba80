//===- JitRunner.cpp - JIT-compile and call a function --------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// JitFunction: lowers one function with a pipeline, JIT-compiles it with
// mlir::ExecutionEngine and calls it on host copies of its arguments (or on
// device copies, DeviceCall.cpp), guarded by CallGuard.cpp.
//
//===----------------------------------------------------------------------===//

#include "RunnerInternals.h"

#include "gmm/Codegen/GPU/Passes.h"
#include "gmm/Dialect/GMM/Transforms/KernelConfig.h"
#include "gmm/Pipelines/Pipelines.h"
#include "gmm/Runtime/CudaRuntime.h"
#include "gmm/Support/InputFile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <utility>

using namespace mlir;

namespace gmm {
namespace runner {

using namespace detail;

llvm::Error detail::makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

llvm::Expected<HostTensor>
detail::copyOut(const int64_t *desc, const TensorSpec &spec, unsigned index) {
  size_t rank = spec.shape.size();
  auto *aligned = reinterpret_cast<const uint8_t *>(desc[1]);
  int64_t offset = desc[2];
  llvm::ArrayRef<int64_t> sizes(desc + 3, rank);
  llvm::ArrayRef<int64_t> strides(desc + 3 + rank, rank);
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 ||
        (!ShapedType::isDynamic(spec.shape[d]) && sizes[d] != spec.shape[d]))
      return makeError(llvm::formatv("result {0} ({1}) came back with shape "
                                     "{2}",
                                     index, spec.typeName, formatShape(sizes)));
  }
  HostTensor tensor = HostTensor::zeros(spec.type, sizes);
  int64_t count = tensor.getNumElements();
  if (count < 0)
    return makeError(llvm::formatv("result {0} ({1}) came back with shape {2}",
                                   index, spec.typeName, formatShape(sizes)));
  if (count > 0 && !aligned)
    return makeError(llvm::formatv("result {0} ({1}) came back without data",
                                   index, spec.typeName));
  size_t width = getByteWidth(spec.type);
  llvm::SmallVector<int64_t> position(rank, 0);
  int64_t source = offset;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(tensor.bytes.data() + i * width, aligned + source * width,
                width);
    // Advance the row-major position and the strided source offset.
    for (size_t d = rank; d-- > 0;) {
      source += strides[d];
      if (++position[d] < sizes[d])
        break;
      source -= strides[d] * sizes[d];
      position[d] = 0;
    }
  }
  return tensor;
}

std::vector<size_t> detail::resultOffsets(const FunctionSignature &signature) {
  std::vector<size_t> offsets;
  size_t words = 0;
  for (const TensorSpec &spec : signature.results) {
    offsets.push_back(words);
    words += 3 + 2 * spec.shape.size();
  }
  return offsets;
}

namespace {
/// The sentinel that MLIR's memref lowering stores as the allocated pointer
/// of memref.get_global buffers, which must not be freed.
constexpr uintptr_t kGlobalSentinel = 0xdeadbeef;

/// A copy of an argument's bytes: 64-byte aligned on the heap, or in guarded
/// memory.
struct ArgumentBuffer {
  uint8_t *data = nullptr;
  size_t size = 0;

  ArgumentBuffer(const std::vector<uint8_t> &bytes, GuardPages mode,
                 llvm::StringRef label) {
    size = bytes.size();
    if (mode == GuardPages::None) {
      size_t rounded = (size + 63) / 64 * 64;
      data = static_cast<uint8_t *>(
          std::aligned_alloc(64, rounded ? rounded : 64));
    } else {
      data = static_cast<uint8_t *>(allocateGuarded(size, mode, label));
    }
    if (data && size)
      std::memcpy(data, bytes.data(), size);
  }
  ArgumentBuffer(ArgumentBuffer &&other)
      : data(std::exchange(other.data, nullptr)), size(other.size) {}
  ArgumentBuffer(const ArgumentBuffer &) = delete;
  ArgumentBuffer &operator=(const ArgumentBuffer &) = delete;
  ~ArgumentBuffer() { jitFree(data); }

  bool contains(const void *p) const {
    auto address = reinterpret_cast<uintptr_t>(p);
    auto begin = reinterpret_cast<uintptr_t>(data);
    return address >= begin && address < begin + std::max<size_t>(size, 1);
  }
};

/// One line for an error of the lowering: "file:3:7: 'math.erf' op was not
/// bufferized". The operation is the one of `module` (the input) at the
/// diagnostic's location, when there is exactly one kind there.
std::string describeDiagnostic(ModuleOp module, Diagnostic &diagnostic) {
  std::string message = diagnostic.str();
  Location loc = diagnostic.getLocation();
  std::optional<OperationName> opName;
  bool ambiguous = false;
  if (!isa<UnknownLoc>(loc))
    module.walk([&](Operation *op) {
      if (op->getLoc() != loc)
        return;
      if (opName && *opName != op->getName())
        ambiguous = true;
      opName = op->getName();
    });
  if (opName && !ambiguous) {
    std::string quoted = "'" + opName->getStringRef().str() + "'";
    if (StringRef(message).starts_with("op "))
      message = quoted + " " + message;
    else if (!StringRef(message).contains(quoted))
      message += " (" + quoted + ")";
  }
  std::string text = formatLocation(loc);
  text += text.empty() ? message : ": " + message;
  // One line, whatever the message is made of.
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

/// Erases the functions of `module` that `entry` does not use, directly or
/// through other functions, so that a function that the pipeline cannot
/// lower fails only the runs that need it.
void removeUnusedFunctions(ModuleOp module, StringRef entry) {
  llvm::SmallPtrSet<Operation *, 8> used;
  llvm::SmallVector<Operation *> worklist;
  if (Operation *root = module.lookupSymbol(entry)) {
    used.insert(root);
    worklist.push_back(root);
  }
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(op);
    if (!uses) {
      // Unknown symbol uses: keep everything.
      return;
    }
    for (const SymbolTable::SymbolUse &use : *uses) {
      Operation *symbol =
          module.lookupSymbol(use.getSymbolRef().getRootReference());
      if (symbol && used.insert(symbol).second)
        worklist.push_back(symbol);
    }
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!used.contains(func))
      func.erase();
}

} // namespace

JitFunction::~JitFunction() = default;

llvm::Expected<std::unique_ptr<JitFunction>>
JitFunction::compile(ModuleOp module, StringRef entry, PipelineBuilder pipeline,
                     const JitOptions &options) {
  MLIRContext *context = module.getContext();
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  context->appendDialectRegistry(registry);

  llvm::Expected<func::FuncOp> func = lookupEntryFunction(module, entry);
  if (!func)
    return func.takeError();
  std::unique_ptr<JitFunction> result(new JitFunction());
  llvm::Expected<FunctionSignature> signature = getFunctionSignature(*func);
  if (!signature)
    return signature.takeError();
  result->signature = std::move(*signature);
  StringRef name = result->signature.name;

  OwningOpRef<ModuleOp> clone = module.clone();
  removeUnusedFunctions(*clone, name);
  auto clonedFunc = clone->lookupSymbol<func::FuncOp>(name);
  clonedFunc.setPublic();
  clonedFunc->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(context));

  PassManager pm(context, ModuleOp::getOperationName());
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return makeError("configuring the pass manager failed");
  if (pipeline)
    pipeline(pm);
  else
    mlir::gmm::buildReferenceToLLVMPipeline(pm);
  // The cuda pipeline compiles for the device's chip: one that gmm's
  // kernels cannot run on is refused before instruction selection would
  // stop the process on it.
  GmmCudaDeviceInfo device;
  if (options.cuda && gmmCudaAvailable() && gmmCudaGetDeviceInfo(0, device)) {
    std::string chipError;
    if (failed(mlir::gmm::verifyGPUChip(device.chip(),
                                        [&](const llvm::Twine &message) {
                                          chipError = message.str();
                                          return failure();
                                        })))
      return makeError(llvm::formatv("cannot run @{0} on CUDA device 0 ({1}): "
                                     "{2}",
                                     name, device.name, chipError)
                           .str());
  }
  std::optional<std::string> firstError;
  LogicalResult lowered = success();
  {
    std::optional<ScopedDiagnosticHandler> fold;
    if (options.foldDiagnostics)
      fold.emplace(context, [&](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
            !firstError)
          firstError = describeDiagnostic(module, diagnostic);
        return success();
      });
    lowered = pm.run(*clone);
  }
  if (failed(lowered))
    return makeError("cannot lower @" + name + " to the LLVM dialect" +
                     (firstError ? ": " + *firstError : std::string()));
  // gmm-gpu-merge-allocations{workspace-argument} added a workspace
  // argument and the function that sizes it.
  if (clone->lookupSymbol<LLVM::LLVMFuncOp>(
          (name + mlir::gmm::kWorkspaceBytesSuffix).str()))
    result->workspaceArgument = true;
  // gmm-gpu-async-host{caller-stream} added the stream as the last argument.
  if (auto lowered = clone->lookupSymbol<LLVM::LLVMFuncOp>(name);
      lowered && lowered.getNumArguments() &&
      lowered.getArgAttr(lowered.getNumArguments() - 1,
                         mlir::gmm::kStreamAttrName))
    result->streamArgument = true;

  if (options.cuda) {
    std::string why;
    if (!gmmCudaAvailable(&why))
      return makeError("cannot run @" + name + " on CUDA: " + why);
  }

  static std::once_flag initTarget;
  std::call_once(initTarget, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });

  unsigned optLevel = std::min(options.optLevel, 3u);
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(optLevel);
  engineOptions.enableGDBNotificationListener = false;
  // GMM_JIT_PERF=1 registers the compiled code with LLVM's perf listener
  // (a jitdump for `perf inject --jit`; see bench/README.md).
  engineOptions.enablePerfNotificationListener =
      getenv("GMM_JIT_PERF") != nullptr;
  makeOpenMPRuntimeGlobal();
  if (llvm::Error error = checkExternalSymbols(*clone, name))
    return std::move(error);
  if (llvm::Error error = checkHostFeatures(*clone, name))
    return std::move(error);
  auto engine = ExecutionEngine::create(*clone, engineOptions);
  if (!engine)
    return makeError("JIT compilation of @" + name +
                     " failed: " + llvm::toString(engine.takeError()));
  result->engine = std::move(*engine);
  result->guardPages = options.guardPages;
  result->cuda = options.cuda;
  result->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const RunnerSymbol &symbol : getRunnerSymbols())
      symbols[interner(symbol.name)] = {
          llvm::orc::ExecutorAddr::fromPtr(symbol.address),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return result;
}

std::vector<int64_t> denseDescriptor(const void *data,
                                     ArrayRef<int64_t> shape) {
  size_t rank = shape.size();
  std::vector<int64_t> desc(3 + 2 * rank, 0);
  desc[0] = desc[1] = reinterpret_cast<int64_t>(data);
  // Row-major strides, a size of 0 counted as 1 so that they stay distinct.
  // Only a tensor without elements can have strides past int64 (say
  // [0, 2^40, 2^40]); nothing is read through them, and they saturate.
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    desc[3 + d] = shape[d];
    desc[3 + rank + d] = stride;
    if (__builtin_mul_overflow(stride, std::max<int64_t>(shape[d], 1), &stride))
      stride = std::numeric_limits<int64_t>::max();
  }
  return desc;
}

int64_t JitFunction::workspaceBytes(llvm::ArrayRef<void *> argumentPointers) {
  int64_t bytes = 0;
  llvm::SmallVector<void *> packed;
  llvm::SmallVector<void *> pointers(argumentPointers.begin(),
                                     argumentPointers.end());
  for (void *&pointer : pointers)
    packed.push_back(&pointer);
  packed.push_back(&bytes);
  workspaceEntry(packed.data());
  return bytes;
}

llvm::Expected<std::vector<int64_t>>
JitFunction::invokeOnDescriptors(std::vector<std::vector<int64_t>> &arguments,
                                 double *seconds, void *stream) {
  if (arguments.size() != signature.arguments.size())
    return makeError(llvm::formatv("@{0} takes {1} arguments, got {2}",
                                   signature.name, signature.arguments.size(),
                                   arguments.size()));
  // The results come back as a struct of descriptors; all fields are 8 bytes
  // wide, so the struct is an array of int64.
  size_t resultWords = 0;
  for (const TensorSpec &spec : signature.results)
    resultWords += 3 + 2 * spec.shape.size();
  std::vector<int64_t> results(std::max<size_t>(resultWords, 1), 0);
  void *resultPointer = results.data();
  std::vector<void *> argumentPointers;
  for (std::vector<int64_t> &desc : arguments)
    argumentPointers.push_back(desc.data());
  llvm::SmallVector<void *> packed;
  if (!signature.results.empty())
    packed.push_back(&resultPointer);
  for (void *&pointer : argumentPointers)
    packed.push_back(&pointer);
  // Global constructors (loading the GPU binary) run once, before the
  // first call; the entry points are looked up then.
  std::call_once(entryOnce, [&] {
    engine->initialize();
    auto lookup = [&](const std::string &name, void (*&function)(void **)) {
      auto found = engine->lookupPacked(name);
      if (found)
        function = *found;
      else
        entryError = llvm::toString(found.takeError());
    };
    lookup("_mlir_ciface_" + signature.name, entry);
    if (workspaceArgument)
      lookup("_mlir_ciface_" + signature.name +
                 mlir::gmm::kWorkspaceBytesSuffix.str(),
             workspaceEntry);
  });
  if (!entry || (workspaceArgument && !workspaceEntry))
    return makeError("calling @" + signature.name + " failed: " + entryError);
  // The caller's stream, or one of this call's own.
  void *ownStream = nullptr;
  if (streamArgument && !stream)
    stream = ownStream = mgpuStreamCreate();
  // The workspace the function asks for, allocated on that stream.
  std::vector<int64_t> workspace;
  void *workspaceData = nullptr;
  if (workspaceArgument) {
    int64_t bytes = workspaceBytes(argumentPointers);
    if (bytes > 0)
      workspaceData = mgpuMemAlloc(bytes, stream, /*isHostShared=*/0);
    workspace = {reinterpret_cast<int64_t>(workspaceData),
                 reinterpret_cast<int64_t>(workspaceData), 0,
                 workspaceData ? bytes : 0, 1};
  }
  void *workspacePointer = workspace.data();
  if (workspaceArgument)
    packed.push_back(&workspacePointer);
  if (streamArgument)
    packed.push_back(&stream);
  auto start = std::chrono::steady_clock::now();
  std::optional<CallFailure> failure =
      callCatchingFailures(entry, packed.data());
  // The function does not wait for the stream; the call's time covers the
  // work on the device.
  if (streamArgument)
    mgpuStreamSynchronize(stream);
  auto stop = std::chrono::steady_clock::now();
  if (workspaceData)
    mgpuMemFree(workspaceData, stream);
  if (ownStream)
    mgpuStreamDestroy(ownStream);
  if (failure && failure->bytes)
    return makeError(
        llvm::formatv("@{0} could not allocate {1} bytes ({2:F1} GiB; the "
                      "machine has {3:F1} GiB of memory)",
                      signature.name, failure->bytes,
                      failure->bytes / support::kBytesPerGiB,
                      support::getPhysicalMemoryBytes() / support::kBytesPerGiB)
            .str());
  if (failure)
    return makeError(
        "@" + signature.name + " aborted" +
        (failure->message.empty() ? std::string() : ": " + failure->message));
  if (seconds)
    *seconds = std::chrono::duration<double>(stop - start).count();
  results.resize(resultWords);
  return results;
}

llvm::Expected<std::vector<HostTensor>>
JitFunction::call(llvm::ArrayRef<HostTensor> arguments, double *seconds) {
  const std::vector<TensorSpec> &argSpecs = signature.arguments;
  if (arguments.size() != argSpecs.size())
    return makeError(llvm::formatv("@{0} takes {1} arguments, got {2}",
                                   signature.name, argSpecs.size(),
                                   arguments.size()));
  for (auto [i, argument] : llvm::enumerate(arguments))
    if (llvm::Error error = checkArgument(argSpecs[i], argument, i))
      return std::move(error);
  if (cuda)
    return callOnDevice(arguments, seconds);

  // Descriptors over copies of the arguments.
  if (guardPages != GuardPages::None)
    installGuardFaultHandler();
  std::vector<ArgumentBuffer> buffers;
  buffers.reserve(arguments.size());
  std::vector<std::vector<int64_t>> descriptors;
  for (auto [i, argument] : llvm::enumerate(arguments)) {
    std::string label =
        llvm::formatv("argument {0} ({1})", i, argSpecs[i].typeName).str();
    buffers.emplace_back(argument.bytes, guardPages, label);
    if (!buffers.back().data)
      return makeError("out of memory copying the arguments");
    descriptors.push_back(denseDescriptor(buffers.back().data, argument.shape));
  }

  std::optional<ActiveGuardPages> guardScope;
  if (guardPages != GuardPages::None)
    guardScope.emplace(guardPages);
  llvm::Expected<std::vector<int64_t>> words =
      invokeOnDescriptors(descriptors, seconds);
  guardScope.reset();
  if (!words)
    return words.takeError();
  std::vector<int64_t> &resultStorage = *words;
  std::vector<size_t> offsets = resultOffsets(signature);

  std::vector<HostTensor> outputs;
  llvm::Error copyError = llvm::Error::success();
  for (auto [i, spec] : llvm::enumerate(signature.results)) {
    llvm::Expected<HostTensor> tensor =
        copyOut(resultStorage.data() + offsets[i], spec, i);
    if (!tensor) {
      copyError = tensor.takeError();
      break;
    }
    outputs.push_back(std::move(*tensor));
  }

  // Release the result buffers, each once, except those that live in an
  // argument (returned arguments) or in a global.
  llvm::SmallVector<void *> freed;
  for (size_t offset : offsets) {
    auto *allocated = reinterpret_cast<void *>(resultStorage[offset]);
    if (!allocated ||
        reinterpret_cast<uintptr_t>(allocated) == kGlobalSentinel ||
        llvm::is_contained(freed, allocated) ||
        llvm::any_of(buffers, [&](const ArgumentBuffer &buffer) {
          return buffer.contains(allocated);
        }))
      continue;
    freed.push_back(allocated);
    jitFree(allocated);
  }
  if (copyError)
    return std::move(copyError);

  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    if (!spec.isMemRef)
      continue;
    HostTensor tensor = arguments[i];
    if (buffers[i].size)
      std::memcpy(tensor.bytes.data(), buffers[i].data, buffers[i].size);
    outputs.push_back(std::move(tensor));
  }
  return outputs;
}

} // namespace runner
} // namespace gmm
