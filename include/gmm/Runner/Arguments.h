//===- Arguments.h - The arguments of a function to run -------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Builds the arguments of an entry function the way gmm-runner's command
// line describes them: seeded random values, .npy files, inline values,
// group sizes (uniform, skewed, random or a list) and a group offset for the
// operands that feed a gmm.ragged_dot, with dynamic sizes resolved from
// shapes, files or value counts. Every error is one line that names the
// option and the argument.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_ARGUMENTS_H
#define GMM_RUNNER_ARGUMENTS_H

#include "gmm/Runner/HostTensor.h"
#include "gmm/Runner/JitRunner.h"
#include "gmm/Runner/RaggedDotCheck.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gmm {
namespace runner {

/// How the arguments are given (gmm-runner's options of the same names).
struct ArgumentOptions {
  /// --seed: the seed of random values and random group sizes.
  uint64_t seed = 0;
  /// --input=IDX:FILE.npy, --values=IDX:v0,v1,..., --arg-shape=IDX:AxB.
  std::vector<std::string> inputFiles, inlineValues, argShapes;
  /// --group-sizes: uniform, skewed or a comma-separated list; random
  /// sizes when not given.
  std::optional<std::string> groupSizes;
  /// --group-offset, and its text as written (for messages).
  std::optional<int64_t> groupOffset;
  std::string groupOffsetText;
};

/// Splits "IDX:REST" of option `option` (given as `value`) and checks IDX
/// against `count` `countWhat`s.
llvm::Expected<std::pair<unsigned, llvm::StringRef>>
splitIndexed(llvm::StringRef option, llvm::StringRef value,
             llvm::StringRef form, size_t count, llvm::StringRef countWhat);

/// Parses comma-separated integers (an empty string is none); errors name
/// `option`.
llvm::Expected<std::vector<int64_t>> parseInts(llvm::StringRef text,
                                               llvm::StringRef option);

/// Where an argument's values come from.
struct ArgumentSource {
  enum Kind { Random, File, Values, GroupSizes, GroupOffset } kind = Random;
  /// The option that gave it, for messages ("--values=0:1,2").
  std::string option;
  /// The file (File) or the text after "IDX:" (Values).
  std::string text;
  /// --arg-shape, if given.
  std::optional<std::vector<int64_t>> shape;
};

/// The arguments of `entry`, built in three steps: collectSources() (which
/// option gives which argument), resolveShapes() (dynamic sizes; refuses
/// arguments that do not fit in memory), fillArguments() (the values).
class ArgumentBuilder {
public:
  ArgumentBuilder(mlir::func::FuncOp entry, FunctionSignature signature,
                  ArgumentOptions options)
      : entry(entry), signature(std::move(signature)),
        options(std::move(options)) {
    llvm::Expected<RaggedDotBinding> found = findRaggedDot(entry);
    if (found)
      binding = *found;
    else
      bindingError = llvm::toString(found.takeError());
  }

  llvm::Error collectSources();
  llvm::Error resolveShapes();
  llvm::Error fillArguments();

  mlir::func::FuncOp entry;
  FunctionSignature signature;
  std::optional<RaggedDotBinding> binding;
  std::string bindingError;
  std::vector<ArgumentSource> sources;
  std::vector<std::optional<std::vector<int64_t>>> shapes;
  std::vector<HostTensor> arguments;

private:
  ArgumentOptions options;

  std::string groupSizesText() const { return options.groupSizes.value_or(""); }
  llvm::Expected<std::vector<int64_t>> getGroupSizeValues(unsigned index);
  llvm::Error
  requireBindingFor(llvm::StringRef option,
                    std::optional<unsigned> RaggedDotBinding::*field,
                    llvm::StringRef operand);
};

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_ARGUMENTS_H
