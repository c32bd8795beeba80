//===- InputFile.cpp - Bounded reading of tool inputs ---------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Support/InputFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/thread.h"

#include <cerrno>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace gmm::support;
using llvm::StringRef;

namespace {

std::string errnoMessage(int error) {
  return std::error_code(error, std::generic_category()).message();
}

/// What a file that is not regular is, for messages.
const char *describeFileType(mode_t mode) {
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a file";
}

/// Closes a file descriptor that this file opened.
struct FileCloser {
  int fd;
  ~FileCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

} // namespace

uint64_t gmm::support::getPhysicalMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return UINT64_MAX;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

int gmm::support::runOnLargeStack(llvm::function_ref<int()> body,
                                  unsigned stackBytes) {
  int result = 1;
  llvm::thread worker(std::optional<unsigned>(stackBytes),
                      [&] { result = body(); });
  worker.join();
  return result;
}

std::unique_ptr<llvm::MemoryBuffer>
gmm::support::readInputFile(StringRef path, uint64_t maxBytes,
                            InputFileError &error) {
  bool isStdin = path == "-";
  std::string name = isStdin ? "<stdin>" : path.str();
  int fd = STDIN_FILENO;
  if (!isStdin) {
    // A FIFO blocks here until it has a writer, as it does for `cat`.
    fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = {InputFileError::CannotOpen, errnoMessage(errno)};
      return nullptr;
    }
  }
  FileCloser closer{isStdin ? -1 : fd};
  struct stat status;
  if (::fstat(fd, &status) != 0) {
    error = {InputFileError::CannotOpen, errnoMessage(errno)};
    return nullptr;
  }
  if (S_ISDIR(status.st_mode)) {
    error = {InputFileError::CannotOpen, errnoMessage(EISDIR)};
    return nullptr;
  }
  // Standard input is what the caller connected; a named device or socket
  // is refused before it is read (/dev/zero never ends).
  if (!isStdin && !S_ISREG(status.st_mode) && !S_ISFIFO(status.st_mode)) {
    error = {InputFileError::NotRegular, std::string("not a regular file (") +
                                             describeFileType(status.st_mode) +
                                             ")"};
    return nullptr;
  }
  auto tooLarge = [&] {
    error = {
        InputFileError::TooLarge,
        llvm::formatv("larger than the limit of {0} bytes", maxBytes).str()};
    return nullptr;
  };
  if (S_ISREG(status.st_mode) && status.st_size > 0) {
    if (static_cast<uint64_t>(status.st_size) > maxBytes)
      return tooLarge();
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getOpenFile(fd, name, status.st_size);
    if (!buffer) {
      error = {InputFileError::CannotOpen, buffer.getError().message()};
      return nullptr;
    }
    return std::move(*buffer);
  }
  // A pipe, a terminal, a device on standard input, or a file whose size
  // says nothing (/proc): read until the end or past the limit.
  std::string contents;
  constexpr size_t kChunk = 1 << 16;
  while (true) {
    size_t used = contents.size();
    contents.resize(used + kChunk);
    ssize_t got = ::read(fd, contents.data() + used, kChunk);
    if (got < 0 && errno == EINTR) {
      contents.resize(used);
      continue;
    }
    if (got < 0) {
      int saved = errno;
      error = {InputFileError::CannotOpen, errnoMessage(saved)};
      return nullptr;
    }
    contents.resize(used + got);
    if (contents.size() > maxBytes)
      return tooLarge();
    if (got == 0)
      break;
  }
  return llvm::MemoryBuffer::getMemBufferCopy(contents, name);
}

std::string gmm::support::describeInputFileError(StringRef path,
                                                 const InputFileError &error) {
  if (path == "-")
    return "cannot read standard input: " + error.reason;
  if (error.kind == InputFileError::CannotOpen)
    return "cannot open input file '" + path.str() + "': " + error.reason;
  return "cannot read input file '" + path.str() + "': " + error.reason;
}

std::optional<size_t> gmm::support::findExcessiveNesting(StringRef text,
                                                         unsigned limit) {
  std::vector<char> open;
  // How many of each opening bracket `open` holds, so that a closer with no
  // opener is skipped without a scan.
  size_t counts[4] = {0, 0, 0, 0};
  auto kindOf = [](char c) {
    switch (c) {
    case '(':
      return 0;
    case '[':
      return 1;
    case '{':
      return 2;
    default:
      return 3;
    }
  };
  size_t size = text.size();
  for (size_t i = 0; i < size; ++i) {
    char c = text[i];
    switch (c) {
    case '"':
      // A string literal; backslash escapes the next character.
      for (++i; i < size && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (i + 1 < size && text[i + 1] == '/') {
        i = text.find('\n', i);
        if (i == StringRef::npos)
          return std::nullopt;
      }
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      open.push_back(c);
      ++counts[kindOf(c)];
      if (open.size() > limit)
        return i;
      break;
    case ')':
    case ']':
    case '}': {
      char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (!counts[kindOf(opener)])
        break;
      // Close the opener and whatever was left open inside it.
      while (true) {
        char top = open.back();
        open.pop_back();
        --counts[kindOf(top)];
        if (top == opener)
          break;
      }
      break;
    }
    case '>':
      if (!open.empty() && open.back() == '<') {
        open.pop_back();
        --counts[kindOf('<')];
      }
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

std::string
gmm::support::describeExcessiveNesting(const llvm::MemoryBuffer &buffer,
                                       size_t offset, unsigned limit,
                                       StringRef tool) {
  StringRef before = buffer.getBuffer().take_front(offset);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column =
      lineStart == StringRef::npos ? offset + 1 : offset - lineStart;
  return llvm::formatv("{0}:{1}:{2}: error: brackets nest more than {3} deep; "
                       "{4} does not read deeper nesting",
                       buffer.getBufferIdentifier(), line, column, limit, tool)
      .str();
}

std::unique_ptr<llvm::MemoryBuffer>
gmm::support::readToolInput(StringRef path, StringRef tool,
                            std::string &errorLine) {
  InputFileError error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      readInputFile(path, kDefaultInputLimit, error);
  if (!file) {
    errorLine =
        (tool + ": error: " + describeInputFileError(path, error)).str();
    return nullptr;
  }
  if (std::optional<size_t> at =
          findExcessiveNesting(file->getBuffer(), kDefaultNestingLimit)) {
    errorLine =
        describeExcessiveNesting(*file, *at, kDefaultNestingLimit, tool);
    return nullptr;
  }
  return file;
}
