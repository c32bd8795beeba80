//===- CommandLine.cpp - One-line command-line errors ---------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Support/CommandLine.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using llvm::StringRef;

using gmm::support::StderrCapture;

StderrCapture::StderrCapture() {
  llvm::errs().flush();
  std::fflush(stderr);
  file = std::tmpfile();
  saved = file ? ::dup(STDERR_FILENO) : -1;
  if (saved < 0 || ::dup2(::fileno(file), STDERR_FILENO) < 0)
    restore();
}

StderrCapture::~StderrCapture() { restore(); }

std::string StderrCapture::take() {
  llvm::errs().flush();
  std::fflush(stderr);
  std::string text;
  if (file && saved >= 0) {
    std::rewind(file);
    char chunk[4096];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
      text.append(chunk, got);
  }
  restore();
  return text;
}

void StderrCapture::restore() {
  if (saved >= 0) {
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    saved = -1;
  }
  if (file) {
    std::fclose(file);
    file = nullptr;
  }
}

std::string gmm::support::joinCommandLineErrors(StringRef errors,
                                                StringRef tool) {
  llvm::SmallVector<StringRef> lines;
  errors.trim().split(lines, '\n');
  std::string line;
  for (StringRef part : lines) {
    part = part.trim();
    part.consume_front(tool);
    part.consume_front(":");
    part = part.trim();
    // "Try: 'path/to/TOOL --help'" is noise in one line.
    size_t tryAt = part.find("Try: '");
    if (tryAt != StringRef::npos)
      part = part.take_front(tryAt).rtrim();
    if (part.empty() || StringRef(line).contains(part))
      continue;
    line += (line.empty() ? "" : " ") + part.str();
  }
  return line;
}

namespace {
/// The tool whose standard output checkStandardOutputAtExit() reports for.
std::string exitTool;
/// The capture of standard error while llvm::cl parses, which --help ends
/// with exit(0).
gmm::support::StderrCapture *activeCapture = nullptr;

/// At exit (atexit, so before llvm::outs() is destroyed): standard output
/// that could not be written, on any exit path a tool did not end with
/// finishStandardOutput() (--help and --version, which llvm::cl ends with
/// exit(0)), is one line and status 1, not LLVM's fatal error on destroying
/// llvm::outs().
void checkStandardOutputAtExit() {
  if (activeCapture)
    activeCapture->restore();
  if (gmm::support::finishStandardOutput(exitTool, 0) != 0) {
    std::fflush(nullptr);
    _exit(1);
  }
}
} // namespace

bool gmm::support::parseToolCommandLine(int argc, char **argv,
                                        StringRef overview) {
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  bool parsed;
  std::string direct;
  StringRef tool = llvm::sys::path::filename(argv[0]);
  // llvm::outs() first, so that it is destroyed after the check runs.
  static bool checking = [&] {
    exitTool = tool.str();
    (void)llvm::outs();
    return std::atexit(checkStandardOutputAtExit) == 0;
  }();
  (void)checking;
  {
    StderrCapture capture;
    activeCapture = &capture;
    parsed =
        llvm::cl::ParseCommandLineOptions(argc, argv, overview, &errorStream);
    direct = capture.take();
    activeCapture = nullptr;
  }
  if (parsed) {
    // Warnings of a successful parse (a deprecated option) pass through.
    llvm::errs() << direct;
    return true;
  }
  std::string line = joinCommandLineErrors(direct + errors, tool);
  if (line.empty())
    line = "invalid command line";
  llvm::errs() << tool << ": error: " << line << "\n";
  return false;
}

int gmm::support::finishOutput(llvm::raw_fd_ostream &os, llvm::StringRef tool,
                               llvm::StringRef name, int status) {
  os.flush();
  if (!os.has_error())
    return status;
  llvm::errs() << tool << ": error: cannot write " << name << ": "
               << os.error().message() << "\n";
  os.clear_error();
  return 1;
}

int gmm::support::finishStandardOutput(llvm::StringRef tool, int status) {
  status = finishOutput(llvm::outs(), tool, "standard output", status);
  if (std::fflush(stdout) == 0 && !std::ferror(stdout))
    return status;
  int error = errno;
  std::clearerr(stdout);
  // Reported once, when llvm::outs() has not already said it.
  if (status == 0)
    llvm::errs() << tool << ": error: cannot write standard output: "
                 << std::strerror(error) << "\n";
  return 1;
}

gmm::support::ProgressLine::ProgressLine(std::string label)
    : label(std::move(label)), start(std::chrono::steady_clock::now()),
      terminal(isatty(STDERR_FILENO)) {}

gmm::support::ProgressLine::~ProgressLine() {
  if (shown) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

void gmm::support::ProgressLine::update(double fraction) {
  if (!terminal ||
      std::chrono::steady_clock::now() - start < std::chrono::seconds(1))
    return;
  std::fprintf(stderr, "\r\033[K%s: %d%%", label.c_str(),
               static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100));
  std::fflush(stderr);
  shown = true;
}
