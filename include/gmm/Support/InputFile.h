//===- InputFile.h - Bounded reading of tool inputs -------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm's tools read their inputs (a .mlir file, standard input, .npy files)
// through these functions rather than llvm::MemoryBuffer::getFileOrSTDIN,
// which reads a device such as /dev/zero until memory runs out and hands a
// parser input of any depth:
//
//  - A named input must be a regular file, or a pipe (`<(cmd)`), no larger
//    than a limit; devices, sockets and directories are refused before
//    anything is read. Standard input, whatever it is, and pipes are read up
//    to the limit and refused beyond it.
//  - findExcessiveNesting() finds the first bracket of MLIR text that is
//    nested deeper than a limit, so that a tool can refuse such input before
//    MLIR's recursive-descent parser (and the recursive walks of everything
//    after it) runs out of stack.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_SUPPORT_INPUTFILE_H
#define GMM_SUPPORT_INPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gmm {
namespace support {

/// The default limit of a tool's input: 1 GiB.
constexpr uint64_t kDefaultInputLimit = uint64_t(1) << 30;

/// The default limit of bracket nesting in MLIR text. MLIR written by people
/// or compilers nests a few dozen levels; this is far beyond that and well
/// within what the tools' stacks (runOnLargeStack) handle.
constexpr unsigned kDefaultNestingLimit = 10000;

/// The stack that runOnLargeStack() gives the tools' work: 512 MiB of
/// address space, touched only as deep as the input nests.
constexpr unsigned kLargeStackBytes = 512u << 20;

/// Runs `body` on a new thread with a stack of `stackBytes` and returns what
/// it returns. gmm's tools parse, verify, transform and print there, so that
/// input nested up to kDefaultNestingLimit deep fails with a diagnostic, if
/// at all, rather than with a stack overflow.
int runOnLargeStack(llvm::function_ref<int()> body,
                    unsigned stackBytes = kLargeStackBytes);

/// The machine's physical memory in bytes (UINT64_MAX when unknown): the
/// most that a tool may read or allocate for one run.
uint64_t getPhysicalMemoryBytes();

/// Bytes per GiB, for the sizes in the tools' messages.
constexpr double kBytesPerGiB = 1024.0 * 1024 * 1024;

/// Why readInputFile() failed.
struct InputFileError {
  enum Kind {
    /// The file cannot be opened (missing, a directory, no permission).
    CannotOpen,
    /// A device or socket: not something to read a program from.
    NotRegular,
    /// Larger than the limit.
    TooLarge,
  } kind;
  /// One line, e.g. "No such file or directory", "not a regular file (a
  /// character device)", "larger than the limit of 1024 bytes".
  std::string reason;
};

/// Reads `path` ("-" for standard input, named "<stdin>" as MLIR names it)
/// into a null-terminated buffer of at most `maxBytes` bytes. On failure
/// returns nullptr and sets `error`.
std::unique_ptr<llvm::MemoryBuffer>
readInputFile(llvm::StringRef path, uint64_t maxBytes, InputFileError &error);

/// The message that a tool prints for `error` reading its input `path`:
/// "cannot open input file 'x.mlir': No such file or directory" (the words of
/// mlir::openInputFile), "cannot read input file '/dev/zero': not a regular
/// file (a character device)", "cannot read standard input: larger than the
/// limit of ... bytes".
std::string describeInputFileError(llvm::StringRef path,
                                   const InputFileError &error);

/// Where MLIR text nests brackets ((), [], {}, <>) more than `limit` deep:
/// the byte offset of the first bracket past the limit, or std::nullopt.
/// String literals and comments are skipped; a '>' that closes nothing (as
/// in '->' or '>=') is ignored, and a closing ')', ']' or '}' also closes any
/// '<' left open inside it, so the depth never exceeds the real nesting.
std::optional<size_t> findExcessiveNesting(llvm::StringRef text,
                                           unsigned limit);

/// "file.mlir:3:7: error: brackets nest more than 10000 deep; TOOL does not
/// read deeper nesting": the one-line error of findExcessiveNesting() for
/// `buffer` at `offset`.
std::string describeExcessiveNesting(const llvm::MemoryBuffer &buffer,
                                     size_t offset, unsigned limit,
                                     llvm::StringRef tool);

/// A tool's MLIR input `path`, read with kDefaultInputLimit and checked
/// with kDefaultNestingLimit. On failure returns nullptr and sets
/// `errorLine` to the one line the tool prints: "TOOL: error: cannot open
/// ..." or "FILE:LINE:COL: error: brackets nest ...".
std::unique_ptr<llvm::MemoryBuffer> readToolInput(llvm::StringRef path,
                                                  llvm::StringRef tool,
                                                  std::string &errorLine);

} // namespace support
} // namespace gmm

#endif // GMM_SUPPORT_INPUTFILE_H
