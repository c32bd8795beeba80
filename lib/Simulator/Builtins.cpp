//===- Builtins.cpp - vprintf and __assertfail
//------------------------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The two builtins that device code calls: vprintf formats into the
// block's output (printed after the launch) and __assertfail records a
// failed device-side assertion.
//
//===----------------------------------------------------------------------===//

#include "Control.h"

#include <cinttypes>
#include <cstdio>

using namespace gmm::sim;

namespace gmm {
namespace sim {
namespace control {

//===----------------------------------------------------------------------===//
// Builtins: vprintf and __assertfail
//===----------------------------------------------------------------------===//

/// Reads a parameter of lane `l` (a pointer or integer of `size` bytes).
uint64_t readParam(Warp &w, const Program &prog, int l, uint32_t offset,
                   uint32_t size) {
  uint64_t v = 0;
  std::memcpy(&v, w.param.data() + size_t(l) * prog.paramBytes + offset,
              std::min<uint32_t>(size, 8));
  return v;
}

/// Reads a NUL-terminated string at a generic address (at most 4096 bytes).
bool readString(ExecState &s, int lane, uint64_t address, std::string &out) {
  out.clear();
  for (int i = 0; i < 4096; ++i) {
    const uint8_t *p =
        accessMemory(s, lane, Space::Generic, address + i, 1, Access::Read, 0);
    if (!p)
      return false;
    if (*p == 0)
      return true;
    out.push_back(static_cast<char>(*p));
  }
  return true;
}

void vprintfBuiltin(ExecState &s, const CallSite &site, int lane) {
  Warp &w = *s.warp;
  if (site.argOffsets.size() != 2) {
    s.fail(FindingKind::Unsupported, lane, "vprintf takes two arguments");
    return;
  }
  uint64_t format = readParam(w, s.prog, lane, site.argOffsets[0], 8);
  uint64_t args = readParam(w, s.prog, lane, site.argOffsets[1], 8);
  std::string text;
  if (!readString(s, lane, format, text))
    return;
  std::string out;
  uint64_t offset = 0;
  int count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    size_t start = i++;
    if (i < text.size() && text[i] == '%') {
      out.push_back('%');
      continue;
    }
    while (i < text.size() && std::strchr("-+ #0", text[i]))
      ++i;
    while (
        i < text.size() &&
        (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    int longs = 0;
    bool isShort = false;
    while (i < text.size() && std::strchr("hlLqjzt", text[i])) {
      if (text[i] == 'l' || text[i] == 'q' || text[i] == 'j' ||
          text[i] == 'z' || text[i] == 't' || text[i] == 'L')
        ++longs;
      else
        isShort = true;
      ++i;
    }
    if (i >= text.size())
      break;
    char conversion = text[i];
    std::string spec = text.substr(start, i - start);
    // Strip length modifiers; the host call gets the promoted value.
    std::string flags;
    for (char ch : spec)
      if (!std::strchr("hlLqjzt", ch))
        flags.push_back(ch);
    unsigned size = 4;
    bool isFloat = std::strchr("fFeEgGaA", conversion) != nullptr;
    if (isFloat || longs || conversion == 's' || conversion == 'p')
      size = 8;
    offset = (offset + size - 1) / size * size;
    uint64_t value = 0;
    if (args) {
      const uint8_t *p = accessMemory(s, lane, Space::Generic, args + offset,
                                      size, Access::Read, 0);
      if (!p)
        return;
      std::memcpy(&value, p, size);
    }
    offset += size;
    ++count;
    char buffer[512];
    if (isFloat) {
      std::snprintf(buffer, sizeof(buffer), (flags + conversion).c_str(),
                    bitsAs<double>(value));
    } else if (conversion == 's') {
      std::string str;
      if (!readString(s, lane, value, str))
        return;
      std::snprintf(buffer, sizeof(buffer), (flags + "s").c_str(), str.c_str());
    } else if (conversion == 'c') {
      std::snprintf(buffer, sizeof(buffer), (flags + "c").c_str(),
                    static_cast<int>(value));
    } else if (conversion == 'p') {
      std::snprintf(buffer, sizeof(buffer), (flags + "p").c_str(),
                    reinterpret_cast<void *>(value));
    } else if (std::strchr("diuxXo", conversion)) {
      bool isSigned = conversion == 'd' || conversion == 'i';
      if (size == 4) {
        value = isSigned ? static_cast<uint64_t>(static_cast<int64_t>(
                               static_cast<int32_t>(value)))
                         : static_cast<uint32_t>(value);
        if (isShort)
          value = isSigned ? static_cast<uint64_t>(static_cast<int64_t>(
                                 static_cast<int16_t>(value)))
                           : static_cast<uint16_t>(value);
      }
      std::snprintf(buffer, sizeof(buffer), (flags + "ll" + conversion).c_str(),
                    static_cast<long long>(value));
    } else {
      out += spec + conversion;
      continue;
    }
    out += buffer;
  }
  s.block.output += out;
  // vprintf returns the number of arguments.
  if (!site.retOffsets.empty()) {
    auto result = static_cast<int32_t>(count);
    std::memcpy(w.param.data() + size_t(lane) * s.prog.paramBytes +
                    site.retOffsets[0],
                &result, 4);
  }
}

void assertBuiltin(ExecState &s, const CallSite &site, int lane) {
  Warp &w = *s.warp;
  if (site.argOffsets.size() < 4) {
    s.fail(FindingKind::AssertFailed, lane, "device-side assertion failed");
    return;
  }
  std::string message, file, function;
  uint64_t messageAddress = readParam(w, s.prog, lane, site.argOffsets[0], 8);
  uint64_t fileAddress = readParam(w, s.prog, lane, site.argOffsets[1], 8);
  auto line = static_cast<uint32_t>(
      readParam(w, s.prog, lane, site.argOffsets[2], site.argSizes[2]));
  uint64_t functionAddress = readParam(w, s.prog, lane, site.argOffsets[3], 8);
  if (!readString(s, lane, messageAddress, message) ||
      !readString(s, lane, fileAddress, file) ||
      !readString(s, lane, functionAddress, function))
    return;
  const Block &b = s.block;
  uint32_t t = s.threadIndex(lane);
  const Dim3 &bd = s.launch.config.block;
  char text[1024];
  std::snprintf(text, sizeof(text),
                "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion "
                "`%s` failed.\n",
                file.c_str(), line, function.c_str(), b.ctaid[0], b.ctaid[1],
                b.ctaid[2], t % bd.x, (t / bd.x) % bd.y, t / (bd.x * bd.y),
                message.c_str());
  s.block.assertions += text;
  // Every lane of the warp that reaches the assertion reports it; the
  // launch fails after the instruction.
  s.block.assertFailed = true;
  if (s.block.assertLane < 0)
    s.block.assertLane = lane;
}

} // namespace control
} // namespace sim
} // namespace gmm
