//===- AOT.h - Ahead-of-time compilation to a shared library ----*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm-aot's library: compiles the public functions of a module with one of
// gmm's pipelines (gmm-to-cpu, or gmm-to-ptx with the caller's stream and
// workspace) into a shared library with a C entry point per function, and
// writes the header that declares them (docs/AOT.md). A program calls the
// library without MLIR or LLVM in its process: the kernels are in it (for
// the GPU, embedded PTX or cubins that libgmm_cuda_runtime loads), and its
// only dependencies are libgmm_cuda_runtime (GPU) or LLVM's OpenMP runtime
// (CPU).
//
// Each function @f of the module becomes
//
//   int32_t f(const void *arg0, ..., void *result0, ..., int64_t arg0_size0,
//             ..., [void *workspace, int64_t workspace_bytes, void *stream]);
//   int32_t f_result_sizes(<the size parameters>, int64_t *dims);
//   [int64_t f_workspace_bytes(<the size parameters>);]
//
// (see include/gmm-c/AOT.h for the return codes and the self-description
// every library exports).
//
//===----------------------------------------------------------------------===//

#ifndef GMM_AOT_AOT_H
#define GMM_AOT_AOT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mlir {
namespace gmm {
namespace aot {

/// Where the compiled functions run.
enum class Target { CPU, CUDA };

/// How gmm-aot compiles a module.
struct Options {
  Target target = Target::CPU;
  /// The options of the target's pipeline, as gmm-opt takes them
  /// (gmm-to-cpu{...} or gmm-to-ptx{...}), e.g. "chip=sm_90 tile-m=128".
  /// gmm-to-ptx's caller-stream and workspace-argument are always on.
  std::string pipelineOptions;
  /// Prepended to the name of every exported function (a C identifier
  /// prefix, e.g. "moe_"): two libraries of functions with the same names
  /// can then be linked into one program.
  std::string prefix;
  /// The C compiler driver that compiles the entry points and links the
  /// library (default: the clang gmm was built with, else `cc`).
  std::string compiler;
  /// Where libgmm_cuda_runtime.so is (GPU libraries link it and look for
  /// it there and beside themselves at run time).
  std::string runtimeDirectory;
  /// LLVM's OpenMP runtime (libomp.so), which CPU libraries link.
  std::string openmpLibrary;
  /// The optimisation level of LLVM's optimiser and code generator.
  unsigned optLevel = 3;
  /// What the library says it was compiled from.
  std::string sourceName;
  /// Where the intermediate files go (default: a fresh temporary folder,
  /// removed afterwards).
  std::string tempDirectory;
  /// Called on each pass manager before it runs (e.g. with
  /// mlir::applyPassManagerCLOptions, for --mlir-print-ir-after-all).
  std::function<LogicalResult(PassManager &)> configure;
  /// Keep the intermediate files (the object, the entry points' C source,
  /// the export list) in tempDirectory.
  bool keepTemporaries = false;
};

/// What gmm-aot writes.
struct Outputs {
  /// The shared library ("libmoe.so"); empty: none.
  std::string library;
  /// The header declaring the entry points; empty: none.
  std::string header;
  /// The object file of the compiled module, without the entry points;
  /// empty: none (it is made in the temporary folder for the library).
  std::string object;
  /// The C source of the entry points and the self-description.
  std::string entryPoints;
};

/// Compiles `module` (which it changes) as `options` say and writes
/// `outputs`. Errors are one line each, naming the step and the cause;
/// diagnostics of the passes go to the context's handler first.
llvm::Error compile(ModuleOp module, const Options &options,
                    const Outputs &outputs);

//===----------------------------------------------------------------------===//
// The C side, which compile() generates (CEntryPoints.cpp).
//===----------------------------------------------------------------------===//

/// One tensor of an entry point.
struct TensorInfo {
  /// "arg0", "result0".
  std::string name;
  /// The MLIR type as written.
  std::string type;
  /// One of include/gmm-c/AOT.h's GMM_AOT_F32, ...
  int32_t elementType = 0;
  /// Static sizes, -1 for dynamic ones.
  std::vector<int64_t> shape;
  /// Per dimension: the index of the size parameter that gives it, or -1.
  std::vector<int32_t> sizeParameter;
  /// A result or a memref argument.
  bool written = false;
};

/// One public function of the module and how its lowered forms are called.
struct FunctionInfo {
  /// The function's name in the module, and the entry point's (with the
  /// prefix).
  std::string name, entry;
  /// The function's type as written.
  std::string signature;
  std::vector<TensorInfo> arguments, results;
  /// The names of the size parameters ("arg0_size0").
  std::vector<std::string> sizes;
  /// Whether the lowered workspace-size function takes a stream (GPU).
  bool workspaceSizeStream = false;
};

/// The words of a rank-`rank` memref descriptor as a lowered function takes
/// it: two pointers, the offset, the sizes and the strides.
inline unsigned descriptorWords(size_t rank) { return 3 + 2 * rank; }

/// The symbol of the lowered function @f, of its shape function and of its
/// workspace-size function in the library's object.
std::string implementationSymbol(llvm::StringRef function);
std::string shapesSymbol(llvm::StringRef function);
std::string workspaceSizeSymbol(llvm::StringRef function);

/// The header declaring the entry points of `functions` (with the types of
/// include/gmm-c/AOT.h), for a library called `library`.
std::string emitHeader(llvm::ArrayRef<FunctionInfo> functions, Target target,
                       llvm::StringRef library, llvm::StringRef source);

/// The C source of the entry points, which includes `headerPath` and calls
/// the lowered functions; `needsMemrefCopy` adds the memrefCopy that
/// MLIR's memref.copy lowering calls.
std::string emitEntryPoints(llvm::ArrayRef<FunctionInfo> functions,
                            Target target, llvm::StringRef chip,
                            llvm::StringRef source, llvm::StringRef headerPath,
                            bool needsMemrefCopy);

/// The linker version script that exports the entry points only.
std::string emitExportList(llvm::ArrayRef<FunctionInfo> functions,
                           Target target);

} // namespace aot
} // namespace gmm
} // namespace mlir

#endif // GMM_AOT_AOT_H
