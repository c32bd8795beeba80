//===- Npy.cpp - Reading and writing numpy .npy files ---------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The header is a Python dict literal; this file parses the small subset
// that numpy writes (string keys, string / bool / tuple-of-int values) and
// rejects everything else with a message that says what it found.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/Npy.h"

#include "gmm/Support/InputFile.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace gmm;
using namespace gmm::runner;
using llvm::StringRef;

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// A cursor over the header's dict literal.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : text(text) {}

  void skipSpace() { text = text.ltrim(" \t\r\n"); }

  bool consume(char c) {
    skipSpace();
    if (!text.starts_with(std::string(1, c)))
      return false;
    text = text.drop_front();
    return true;
  }

  bool peek(char c) {
    skipSpace();
    return text.starts_with(std::string(1, c));
  }

  /// A quoted Python string ('...' or "...", no escapes).
  std::optional<std::string> parseString() {
    skipSpace();
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return std::nullopt;
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return std::nullopt;
    std::string value = text.substr(1, end - 1).str();
    text = text.drop_front(end + 1);
    return value;
  }

  /// An identifier-like word (True, False).
  StringRef parseWord() {
    skipSpace();
    size_t end = 0;
    while (end < text.size() && llvm::isAlnum(text[end]))
      ++end;
    StringRef word = text.take_front(end);
    text = text.drop_front(end);
    return word;
  }

  /// A tuple of non-negative integers: (), (3,), (3, 4), (3, 4,).
  std::optional<std::vector<int64_t>> parseShape() {
    std::vector<int64_t> shape;
    if (!consume('('))
      return std::nullopt;
    while (!consume(')')) {
      skipSpace();
      size_t end = 0;
      while (end < text.size() && llvm::isDigit(text[end]))
        ++end;
      int64_t size;
      if (end == 0 || text.take_front(end).getAsInteger(10, size))
        return std::nullopt;
      // A trailing 'L' is what Python 2 wrote for long integers.
      text = text.drop_front(end);
      if (text.starts_with("L"))
        text = text.drop_front();
      shape.push_back(size);
      if (!consume(',') && !peek(')'))
        return std::nullopt;
    }
    return shape;
  }

  StringRef rest() { return text; }

private:
  StringRef text;
};

llvm::Error makeError(StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(name + ": " + message);
}

/// Maps a numpy descr to a dtype; std::nullopt when unsupported.
std::optional<DType> parseDescr(StringRef descr) {
  if (descr == "bfloat16" || descr == "<V2" || descr == "|V2")
    return DType::BF16;
  // '<' is little-endian and '=' native (little-endian on every host that
  // gmm supports); '|' means byte order does not apply.
  if (descr.size() != 3 ||
      (descr[0] != '<' && descr[0] != '=' && descr[0] != '|'))
    return std::nullopt;
  StringRef kind = descr.drop_front();
  if (kind == "f2")
    return DType::F16;
  if (kind == "f4")
    return DType::F32;
  if (kind == "f8")
    return DType::F64;
  if (kind == "i4")
    return DType::I32;
  if (kind == "i8")
    return DType::I64;
  return std::nullopt;
}

const char *getDescr(DType type) {
  switch (type) {
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "|V2";
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  }
  return "?";
}

} // namespace

llvm::Expected<HostTensor> gmm::runner::parseNpy(StringRef contents,
                                                 StringRef name) {
  if (contents.size() < kMagicSize ||
      std::memcmp(contents.data(), kMagic, kMagicSize) != 0)
    return makeError(name, "not a .npy file (bad magic string; expected "
                           "\"\\x93NUMPY\")");
  if (contents.size() < kMagicSize + 2)
    return makeError(name, "truncated header (no format version)");
  unsigned major = static_cast<uint8_t>(contents[kMagicSize]);
  unsigned minor = static_cast<uint8_t>(contents[kMagicSize + 1]);
  if (major < 1 || major > 3 || minor != 0)
    return makeError(name, llvm::formatv("unsupported .npy format version "
                                         "{0}.{1} (supported: 1.0, 2.0, 3.0)",
                                         major, minor));
  // Version 1.0 has a 2-byte header length, later versions 4 bytes.
  size_t lengthSize = major == 1 ? 2 : 4;
  size_t prefix = kMagicSize + 2 + lengthSize;
  if (contents.size() < prefix)
    return makeError(name, "truncated header (no header length)");
  uint64_t headerLength = 0;
  for (size_t i = 0; i < lengthSize; ++i)
    headerLength |= static_cast<uint64_t>(
                        static_cast<uint8_t>(contents[kMagicSize + 2 + i]))
                    << (8 * i);
  if (contents.size() - prefix < headerLength)
    return makeError(name,
                     llvm::formatv("truncated header (expected {0} bytes of "
                                   "header, found {1})",
                                   headerLength, contents.size() - prefix));
  StringRef header = contents.substr(prefix, headerLength);
  StringRef data = contents.drop_front(prefix + headerLength);

  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;
  HeaderParser parser(header);
  auto malformed = [&](const llvm::Twine &what) {
    return makeError(name, "malformed header: " + what + " in '" +
                               header.trim() + "'");
  };
  if (!parser.consume('{'))
    return malformed("expected a dict");
  while (!parser.consume('}')) {
    std::optional<std::string> key = parser.parseString();
    if (!key)
      return malformed("expected a quoted key");
    if (!parser.consume(':'))
      return malformed("expected ':' after '" + *key + "'");
    if (*key == "descr") {
      if (parser.peek('['))
        return makeError(name, "unsupported dtype: structured arrays are not "
                               "supported");
      descr = parser.parseString();
      if (!descr)
        return malformed("expected a string for 'descr'");
    } else if (*key == "fortran_order") {
      StringRef word = parser.parseWord();
      if (word != "True" && word != "False")
        return malformed("expected True or False for 'fortran_order'");
      fortranOrder = word == "True";
    } else if (*key == "shape") {
      shape = parser.parseShape();
      if (!shape)
        return malformed("expected a tuple of sizes for 'shape'");
    } else {
      return malformed("unknown key '" + *key + "'");
    }
    if (!parser.consume(',') && !parser.peek('}'))
      return malformed("expected ',' or '}'");
  }
  if (!descr || !fortranOrder || !shape)
    return malformed(llvm::formatv("missing '{0}'", !descr ? "descr"
                                                    : !fortranOrder
                                                        ? "fortran_order"
                                                        : "shape")
                         .str());
  if (*fortranOrder)
    return makeError(name, "Fortran-order data is not supported (save a "
                           "C-order array, e.g. np.ascontiguousarray)");
  std::optional<DType> type = parseDescr(*descr);
  if (!type) {
    if (!descr->empty() && (*descr)[0] == '>')
      return makeError(name, "unsupported dtype '" + *descr +
                                 "': big-endian data is not supported");
    return makeError(name, "unsupported dtype '" + *descr +
                               "' (supported: <f2, <f4, <f8, <i4, <i8, and "
                               "bf16 as <V2, |V2 or bfloat16)");
  }

  HostTensor tensor;
  tensor.type = *type;
  tensor.shape = *shape;
  int64_t count = tensor.getNumElements();
  if (count < 0)
    return makeError(name, "shape " + formatShape(tensor.shape) +
                               " has too many elements");
  uint64_t width = getByteWidth(*type);
  if (static_cast<uint64_t>(count) >
      std::numeric_limits<uint64_t>::max() / width)
    return makeError(name, "shape " + formatShape(tensor.shape) +
                               " has too many elements");
  uint64_t dataSize = static_cast<uint64_t>(count) * width;
  if (data.size() < dataSize)
    return makeError(name,
                     llvm::formatv("truncated data (shape {0} of {1} "
                                   "needs {2} bytes, found {3})",
                                   formatShape(tensor.shape), toString(*type),
                                   dataSize, data.size()));
  tensor.bytes.assign(data.bytes_begin(), data.bytes_begin() + dataSize);
  return tensor;
}

llvm::Expected<HostTensor> gmm::runner::readNpy(StringRef path) {
  // A device (/dev/zero) is refused before it is read, and a pipe is read
  // no further than memory goes.
  support::InputFileError error;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      support::readInputFile(path, support::getPhysicalMemoryBytes(), error);
  if (!buffer)
    return makeError(path, "cannot read: " + error.reason);
  return parseNpy(buffer->getBuffer(), path);
}

llvm::Expected<HostTensor> gmm::runner::readNpy(StringRef path, DType type) {
  llvm::Expected<HostTensor> tensor = readNpy(path);
  if (!tensor)
    return tensor.takeError();
  llvm::Expected<HostTensor> converted = convertTensor(*tensor, type);
  if (!converted)
    return makeError(path, llvm::toString(converted.takeError()));
  return converted;
}

std::string gmm::runner::serializeNpy(const HostTensor &tensor) {
  std::string header = "{'descr': '";
  header += getDescr(tensor.type);
  header += "', 'fortran_order': False, 'shape': (";
  for (int64_t size : tensor.shape)
    header += std::to_string(size) + ", ";
  if (!tensor.shape.empty()) {
    header.pop_back();
    header.pop_back();
    if (tensor.shape.size() == 1)
      header += ",";
  }
  header += "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes, and
  // end with a newline, as numpy does.
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char *>(tensor.bytes.data()),
             tensor.bytes.size());
  return out;
}

llvm::Error gmm::runner::writeNpy(StringRef path, const HostTensor &tensor) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return makeError(path, "cannot write: " + error.message());
  os << serializeNpy(tensor);
  os.close();
  if (os.has_error()) {
    std::string message = os.error().message();
    os.clear_error();
    return makeError(path, "cannot write: " + message);
  }
  return llvm::Error::success();
}
