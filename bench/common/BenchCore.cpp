//===- BenchCore.cpp - What every benchmark shares, without MLIR ----------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "BenchCore.h"

#include "gmm/Reference/GroupSizes.h"

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace ::gmm::bench;
using ::gmm::reference::GroupSizeDistribution;
using ::gmm::reference::makeGroupSizes;

std::vector<std::string> gmm::bench::splitList(const std::string &text,
                                               char separator) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(start, end - start);
    size_t first = item.find_first_not_of(" \t");
    size_t last = item.find_last_not_of(" \t");
    if (first != std::string::npos)
      items.push_back(item.substr(first, last - first + 1));
    start = end + 1;
  }
  return items;
}

std::string gmm::bench::format(const char *pattern, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  return buffer;
}

const char *gmm::bench::toString(Distribution distribution) {
  switch (distribution) {
  case Distribution::Uniform:
    return "uniform";
  case Distribution::Skewed:
    return "skewed";
  case Distribution::Random:
    return "random";
  case Distribution::Zipf:
    return "zipf";
  }
  return "?";
}

std::vector<int64_t> gmm::bench::makeSizes(Distribution distribution, int64_t m,
                                           int64_t g, uint64_t seed) {
  switch (distribution) {
  case Distribution::Uniform:
    return makeGroupSizes(GroupSizeDistribution::Uniform, m, g, seed);
  case Distribution::Skewed:
    return makeGroupSizes(GroupSizeDistribution::Skewed, m, g, seed);
  case Distribution::Random:
    return makeGroupSizes(GroupSizeDistribution::Random, m, g, seed);
  case Distribution::Zipf:
    break;
  }
  std::vector<double> harmonic(g + 1, 0);
  for (int64_t i = 1; i <= g; ++i)
    harmonic[i] = harmonic[i - 1] + 1.0 / double(i);
  std::vector<int64_t> sizes(g);
  int64_t previous = 0;
  for (int64_t i = 0; i < g; ++i) {
    int64_t end = i + 1 == g
                      ? m
                      : std::llround(double(m) * harmonic[i + 1] / harmonic[g]);
    end = std::clamp(end, previous, m);
    sizes[i] = end - previous;
    previous = end;
  }
  return sizes;
}

std::string gmm::bench::describeSizes(const Shape &shape,
                                      Distribution distribution,
                                      const std::vector<int64_t> &sizes,
                                      int64_t &covered) {
  int64_t largest = 0, empty = 0;
  covered = 0;
  for (int64_t size : sizes) {
    covered += size;
    largest = std::max(largest, size);
    empty += size == 0;
  }
  return format("[%s] %s: max/mean %.2f, %lld empty group(s)",
                shape.name.c_str(), toString(distribution),
                double(largest) * shape.g / shape.m,
                static_cast<long long>(empty));
}

std::string gmm::bench::presetNames(const ShapePreset *presets, size_t count,
                                    bool quick) {
  std::string result;
  for (size_t i = 0; i < count; ++i)
    if (presets[i].quick == quick)
      result += (result.empty() ? "" : ",") + std::string(presets[i].name);
  return result;
}

bool gmm::bench::parseShapes(const std::string &text,
                             const ShapePreset *presets, size_t count,
                             bool int32Sizes, std::vector<Shape> &shapes,
                             std::string &error) {
  shapes.clear();
  for (const std::string &item : splitList(text, ',')) {
    const ShapePreset *preset = nullptr;
    for (size_t i = 0; i < count; ++i)
      if (item == presets[i].name)
        preset = &presets[i];
    if (preset) {
      shapes.push_back(
          {preset->name, preset->g, preset->m, preset->k, preset->n});
      continue;
    }
    std::vector<std::string> parts = splitList(item, 'x');
    int64_t sizes[4];
    bool valid = parts.size() == 4;
    for (size_t i = 0; valid && i < 4; ++i) {
      char *end = nullptr;
      errno = 0;
      long long value = std::strtoll(parts[i].c_str(), &end, 10);
      valid = !parts[i].empty() && !*end && !errno && value > 0 &&
              (!int32Sizes || value <= INT32_MAX);
      sizes[i] = value;
    }
    if (!valid) {
      error = "--shapes: '" + item + "' is neither a preset nor GxMxKxN with " +
              (int32Sizes ? "sizes in [1, 2^31)" : "positive sizes");
      return false;
    }
    shapes.push_back({item, sizes[0], sizes[1], sizes[2], sizes[3]});
  }
  if (shapes.empty()) {
    error = "--shapes: no shape given";
    return false;
  }
  return true;
}

bool gmm::bench::parseDistributions(const std::string &text, bool zipf,
                                    std::vector<Distribution> &distributions,
                                    std::string &error) {
  distributions.clear();
  for (const std::string &item : splitList(text, ',')) {
    if (item == "uniform")
      distributions.push_back(Distribution::Uniform);
    else if (item == "skewed")
      distributions.push_back(Distribution::Skewed);
    else if (item == "zipf" && zipf)
      distributions.push_back(Distribution::Zipf);
    else if (item == "random")
      distributions.push_back(Distribution::Random);
    else {
      error = "--distributions: unknown '" + item + "' (expected uniform, " +
              (zipf ? "skewed, zipf" : "skewed") + " or random)";
      return false;
    }
  }
  if (distributions.empty()) {
    error = "--distributions: none given";
    return false;
  }
  return true;
}

std::string gmm::bench::tableHeader(const std::vector<std::string> &columns) {
  std::string names = "| g | m | k | n | sizes |";
  std::string rule = "|---:|---:|---:|---:|---|";
  for (size_t i = 0; i < columns.size(); ++i) {
    names += " " + columns[i] + " |";
    rule += i + 1 == columns.size() ? "---|" : "---:|";
  }
  return names + "\n" + rule + "\n";
}

std::string gmm::bench::tableRow(const Shape &shape, Distribution distribution,
                                 const std::vector<std::string> &cells) {
  std::string row = format(
      "| %lld | %lld | %lld | %lld | %s |", static_cast<long long>(shape.g),
      static_cast<long long>(shape.m), static_cast<long long>(shape.k),
      static_cast<long long>(shape.n), toString(distribution));
  for (const std::string &cell : cells)
    row += " " + cell + " |";
  return row + "\n";
}

std::string gmm::bench::raggedDotFunction(const Shape &s,
                                          const std::string &elementType,
                                          const std::string &resultType,
                                          Mode mode, bool outputArgument,
                                          const std::string &name) {
  bool forward = mode == Mode::Forward;
  auto shapeOf = [&](std::initializer_list<int64_t> dims,
                     const std::string &type) {
    std::string text;
    for (int64_t d : dims)
      text += std::to_string(d) + "x";
    return text + type;
  };
  auto shape = [&](std::initializer_list<int64_t> dims) {
    return shapeOf(dims, elementType);
  };
  // Mode 1: lhs [m, k] x rhs [g, k, n] -> [m, n]; mode 2: x [m, k] and
  // dy [m, n] -> [g, k, n].
  std::string lhs = "tensor<" + shape({s.m, s.k}) + ">";
  std::string rhs = forward ? "tensor<" + shape({s.g, s.k, s.n}) + ">"
                            : "tensor<" + shape({s.m, s.n}) + ">";
  std::string out = forward ? shapeOf({s.m, s.n}, resultType)
                            : shapeOf({s.g, s.k, s.n}, resultType);
  std::string sizes = "tensor<" + std::to_string(s.g) + "xi32>";
  std::string numbers =
      forward ? "<lhs_contracting_dimensions = [1],\n"
                "                           rhs_contracting_dimensions = [1],\n"
                "                           lhs_ragged_dimensions = [0],\n"
                "                           rhs_group_dimensions = [0]>"
              : "<lhs_contracting_dimensions = [0],\n"
                "                           rhs_contracting_dimensions = [0],\n"
                "                           lhs_ragged_dimensions = [0],\n"
                "                           rhs_group_dimensions = []>";
  std::string dot = "  %r = gmm.ragged_dot %lhs, %rhs, %group_sizes\n"
                    "      dimension_numbers = " +
                    numbers + "\n      : " + lhs + ", " + rhs + ", " + sizes +
                    " -> tensor<" + out + ">\n";
  std::string header = "func.func @" + name + "(%lhs: " + lhs +
                       ", %rhs: " + rhs + ", %group_sizes: " + sizes;
  if (outputArgument)
    return header + ", %out: memref<" + out + ">) {\n" + dot +
           "  bufferization.materialize_in_destination %r in restrict "
           "writable %out\n      : (tensor<" +
           out + ">, memref<" + out + ">) -> ()\n  return\n}\n";
  return header + ") -> tensor<" + out + "> {\n" + dot +
         "  return %r : tensor<" + out + ">\n}\n";
}

double gmm::bench::median(std::vector<double> values) {
  if (values.empty())
    return NAN;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid]
                           : 0.5 * (values[mid - 1] + values[mid]);
}

uint16_t gmm::bench::toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value))
    return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float gmm::bench::fromBF16(uint16_t value) {
  uint32_t bits = uint32_t(value) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}
