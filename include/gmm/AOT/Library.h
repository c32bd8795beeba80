//===- Library.h - Loading a gmm-aot library --------------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Loads a library that gmm-aot wrote (include/gmm-c/AOT.h) with dlopen and
// finds its functions by name, for the programs that call functions they did
// not see when they were built: gmm-aot-difftest and gmm-bench-gpu. Plain
// C++17 with no MLIR or LLVM dependency, so that those programs run where
// neither is installed (a GPU machine).
//
//===----------------------------------------------------------------------===//

#ifndef GMM_AOT_LIBRARY_H
#define GMM_AOT_LIBRARY_H

#include "gmm-c/AOT.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gmm {
namespace aot {

class Library {
public:
  /// Loads `path` (RTLD_NOW | RTLD_LOCAL; a GPU library loads its kernels
  /// then, so choose the CUDA driver or the simulated GPU first). Returns
  /// nullptr and sets `error` when it cannot be loaded or is not a gmm-aot
  /// library of this version.
  static std::unique_ptr<Library> open(const std::string &path,
                                       std::string &error);
  ~Library();
  Library(const Library &) = delete;
  Library &operator=(const Library &) = delete;

  const gmm_aot_library &describe() const { return *library; }
  bool isCUDA() const;
  /// The function called `name`, or nullptr.
  const gmm_aot_function *find(const std::string &name) const;
  /// The names of its functions, for error messages.
  std::vector<std::string> names() const;

private:
  Library() = default;
  void *handle = nullptr;
  const gmm_aot_library *library = nullptr;
};

/// The number of elements of tensor `t` with dimension sizes `dims`
/// (`t.rank` of them); -1 when one is negative or the product overflows.
int64_t elementCount(const gmm_aot_tensor &t, const int64_t *dims);

} // namespace aot
} // namespace gmm

#endif // GMM_AOT_LIBRARY_H
