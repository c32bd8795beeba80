//===- CommandLine.h - One-line command-line errors -------------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// gmm's tools report every user error as one line "TOOL: error: ...". LLVM's
// command-line parser writes its errors in several lines, some of them
// (a bad value of a boolean or enum option) to standard error directly
// rather than to the stream it is given. parseToolCommandLine() catches both
// and prints them as that one line.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_SUPPORT_COMMANDLINE_H
#define GMM_SUPPORT_COMMANDLINE_H

#include "llvm/ADT/StringRef.h"

#include <cstdio>
#include <string>

namespace gmm {
namespace support {

/// Sends what is written to standard error (file descriptor 2, llvm::errs()
/// included) to a temporary file while it lives; take() restores standard
/// error and returns what was written. For code that reports errors only
/// there, such as llvm::cl parsing a pass's options.
class StderrCapture {
public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;

  std::string take();

private:
  void restore();

  std::FILE *file = nullptr;
  int saved = -1;
};

/// llvm::cl::ParseCommandLineOptions with gmm's error format: on an error
/// prints one line "TOOL: error: ..." (TOOL is argv[0]'s file name) and
/// returns false.
bool parseToolCommandLine(int argc, char **argv, llvm::StringRef overview);

/// The text that llvm::cl wrote for a failed parse, as one line: the tool's
/// prefix of each line removed, the "Try: 'TOOL --help'" hint dropped,
/// repeated parts dropped, the rest (a "Did you mean" hint) joined.
std::string joinCommandLineErrors(llvm::StringRef errors, llvm::StringRef tool);

} // namespace support
} // namespace gmm

#endif // GMM_SUPPORT_COMMANDLINE_H
