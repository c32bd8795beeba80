//===- Npy.h - Reading and writing numpy .npy files -------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The .npy format (https://numpy.org/doc/stable/reference/generated/
// numpy.lib.format.html) for gmm-runner's inputs and outputs:
//
// - header versions 1.0, 2.0 and 3.0 (magic "\x93NUMPY", a little-endian
//   header length, then a Python dict literal with 'descr', 'fortran_order'
//   and 'shape');
// - C (row-major) order only; little-endian (or native '=' / byte-free '|')
//   data only;
// - dtypes '<f2' (f16), '<f4' (f32), '<f8' (f64), '<i4' (i32), '<i8' (i64),
//   and bf16 as either raw 2-byte void data ('<V2' or '|V2', how numpy saves
//   an ml_dtypes.bfloat16 array viewed as void) or the descr 'bfloat16'
//   (how ml_dtypes names it); the 16-bit patterns are taken as bf16 bits.
//
// Bytes after the data are ignored, as numpy does. writeNpy() writes format
// 1.0 headers padded to 64 bytes, and bf16 as '|V2' so that plain numpy can
// load it (then `.view(ml_dtypes.bfloat16)`).
//
// Every error is an llvm::Error with a one-line message that starts with the
// file name.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_RUNNER_NPY_H
#define GMM_RUNNER_NPY_H

#include "gmm/Runner/HostTensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace gmm {
namespace runner {

/// Parses the contents of a .npy file. `name` is used in error messages.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef contents,
                                    llvm::StringRef name);

/// Reads the .npy file at `path`.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);

/// Reads the .npy file at `path` as an argument of element type `type`,
/// converting with convertTensor() (so an f32 file loads into an f16 or
/// bf16 argument, rounded to nearest even).
llvm::Expected<HostTensor> readNpy(llvm::StringRef path, DType type);

/// The .npy encoding of `tensor` (format 1.0).
std::string serializeNpy(const HostTensor &tensor);

/// Writes `tensor` to `path` as .npy.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace runner
} // namespace gmm

#endif // GMM_RUNNER_NPY_H
