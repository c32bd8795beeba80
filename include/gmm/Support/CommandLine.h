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

namespace llvm {
class raw_fd_ostream;
} // namespace llvm

#include <chrono>
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
  /// Restores standard error and drops what was written (also what the
  /// destructor does).
  void restore();

private:
  std::FILE *file = nullptr;
  int saved = -1;
};

/// llvm::cl::ParseCommandLineOptions with gmm's error format: on an error
/// prints one line "TOOL: error: ..." (TOOL is argv[0]'s file name) and
/// returns false. Also makes standard output that cannot be written (a full
/// disk) one line "TOOL: error: cannot write standard output: ..." and exit
/// status 1 on every exit path (llvm::cl's --help ends with exit(0)), not
/// LLVM's fatal "IO failure on output stream".
bool parseToolCommandLine(int argc, char **argv, llvm::StringRef overview);

/// The text that llvm::cl wrote for a failed parse, as one line: the tool's
/// prefix of each line removed, the "Try: 'TOOL --help'" hint dropped,
/// repeated parts dropped, the rest (a "Did you mean" hint) joined.
std::string joinCommandLineErrors(llvm::StringRef errors, llvm::StringRef tool);

/// Ends the writing of `os`, `tool`'s output named `name` ("standard
/// output", a file name): flushes it and, when it could not be written (a
/// full disk, a closed pipe), prints one line "TOOL: error: cannot write
/// NAME: REASON", clears the stream's error (which LLVM would otherwise turn
/// into "LLVM ERROR: IO failure on output stream" when the stream is
/// destroyed) and returns 1; otherwise returns `status`.
int finishOutput(llvm::raw_fd_ostream &os, llvm::StringRef tool,
                 llvm::StringRef name, int status);

/// finishOutput() of standard output, both llvm::outs() and C's stdout.
int finishStandardOutput(llvm::StringRef tool, int status);

/// A progress line on stderr for a long step of a tool ("checking against
/// the C++ reference: 45%"): shown only when stderr is a terminal and the
/// step has run for a second, rewritten in place, erased when destroyed.
class ProgressLine {
public:
  explicit ProgressLine(std::string label);
  ~ProgressLine();
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  /// Shows `fraction` (0 to 1) of the step as done.
  void update(double fraction);

private:
  std::string label;
  std::chrono::steady_clock::time_point start;
  bool terminal, shown = false;
};

} // namespace support
} // namespace gmm

#endif // GMM_SUPPORT_COMMANDLINE_H
