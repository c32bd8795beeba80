//===- Decoder.h - PTX syntax to executable programs ------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_SIMULATOR_DECODER_H
#define GMM_LIB_SIMULATOR_DECODER_H

#include "Exec.h"
#include "PTXSyntax.h"

#include <map>
#include <string>

namespace gmm {
namespace sim {

/// A module-scope variable.
struct GlobalSymbol {
  Space space = Space::Global;
  /// Device address (.global/.const); shared variables get their offset per
  /// kernel.
  uint64_t address = 0;
  uint64_t size = 0;
  unsigned align = 1;
  bool isExternShared = false;
};
using GlobalSymbols = std::map<std::string, GlobalSymbol, std::less<>>;

/// Whether a .shared declaration is what LLVM's NVPTX back end writes for a
/// zero-length array (`.shared .align 16 .b8 name;`: no dimensions, .b8,
/// aligned to 16 or more, no initializer; a byte scalar is written .u8).
/// MLIR's gpu.dynamic_shared_memory and zero-sized workgroup memref.globals
/// lower to such arrays, which programs index as dynamic shared memory: the
/// simulator places them, like .extern arrays, at its start.
bool isZeroLengthShared(const ptx::Declaration &decl);

/// The byte size and alignment of a declaration (its element type times its
/// array dimensions); false with `error` set when it cannot be sized.
bool declarationLayout(const ptx::Declaration &decl, uint64_t &size,
                       unsigned &align, std::string &error);

/// Decodes the kernel `entry` of `module` and every function it calls into
/// `program`. Load-time errors name the PTX line, the instruction and the
/// function.
bool decodeKernel(const ptx::Module &module, const ptx::Function &entry,
                  const GlobalSymbols &globals, unsigned arch, Program &program,
                  std::string &error);

/// Decodes a function that no kernel calls, only to report what the
/// simulator cannot run (as the driver's JIT would report errors in it).
bool validateFunction(const ptx::Module &module, const ptx::Function &fn,
                      const GlobalSymbols &globals, unsigned arch,
                      std::string &error);

} // namespace sim
} // namespace gmm

#endif // GMM_LIB_SIMULATOR_DECODER_H
