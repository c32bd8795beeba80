//===- HostTensor.cpp - Dense host tensors for gmm-runner -----------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/HostTensor.h"

#include "gmm/Reference/FloatConversion.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace gmm;
using namespace gmm::runner;

const char *gmm::runner::toString(DType type) {
  switch (type) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

size_t gmm::runner::getByteWidth(DType type) {
  switch (type) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  }
  return 1;
}

bool gmm::runner::isFloat(DType type) {
  return type != DType::I32 && type != DType::I64;
}

std::optional<reference::ElementType> gmm::runner::toElementType(DType type) {
  switch (type) {
  case DType::F16:
    return reference::ElementType::F16;
  case DType::BF16:
    return reference::ElementType::BF16;
  case DType::F32:
    return reference::ElementType::F32;
  case DType::F64:
    return reference::ElementType::F64;
  case DType::I32:
  case DType::I64:
    return std::nullopt;
  }
  return std::nullopt;
}

DType gmm::runner::fromElementType(reference::ElementType type) {
  switch (type) {
  case reference::ElementType::F16:
    return DType::F16;
  case reference::ElementType::BF16:
    return DType::BF16;
  case reference::ElementType::F32:
    return DType::F32;
  case reference::ElementType::F64:
    return DType::F64;
  }
  return DType::F32;
}

std::string gmm::runner::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

HostTensor HostTensor::zeros(DType type, llvm::ArrayRef<int64_t> shape) {
  HostTensor tensor;
  tensor.type = type;
  tensor.shape.assign(shape.begin(), shape.end());
  int64_t count = tensor.getNumElements();
  tensor.bytes.assign(std::max<int64_t>(count, 0) * getByteWidth(type), 0);
  return tensor;
}

int64_t HostTensor::getNumElements() const {
  return reference::numElements(shape);
}

bool HostTensor::isConsistent() const {
  int64_t count = getNumElements();
  return count >= 0 &&
         bytes.size() == static_cast<uint64_t>(count) * getByteWidth(type);
}

namespace {
template <typename T> T load(const std::vector<uint8_t> &bytes, int64_t index) {
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void store(std::vector<uint8_t> &bytes, int64_t index, T value) {
  std::memcpy(bytes.data() + index * sizeof(T), &value, sizeof(T));
}

/// `value` rounded to nearest and saturated to [lo, hi]; NaN becomes 0.
int64_t saturate(double value, int64_t lo, int64_t hi) {
  if (std::isnan(value))
    return 0;
  value = std::nearbyint(value);
  // 2^63 is exactly representable; anything at or above it saturates.
  if (value >= static_cast<double>(hi) || value >= 0x1p63)
    return hi;
  if (value <= static_cast<double>(lo))
    return lo;
  return static_cast<int64_t>(value);
}
} // namespace

double HostTensor::getDouble(int64_t index) const {
  switch (type) {
  case DType::F16:
    return reference::f16BitsToFloat(load<uint16_t>(bytes, index));
  case DType::BF16:
    return reference::bf16BitsToFloat(load<uint16_t>(bytes, index));
  case DType::F32:
    return load<float>(bytes, index);
  case DType::F64:
    return load<double>(bytes, index);
  case DType::I32:
    return load<int32_t>(bytes, index);
  case DType::I64:
    return static_cast<double>(load<int64_t>(bytes, index));
  }
  return 0;
}

int64_t HostTensor::getInt(int64_t index) const {
  switch (type) {
  case DType::I32:
    return load<int32_t>(bytes, index);
  case DType::I64:
    return load<int64_t>(bytes, index);
  default: {
    double value = std::trunc(getDouble(index));
    return saturate(value, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max());
  }
  }
}

void HostTensor::setDouble(int64_t index, double value) {
  using reference::ElementType;
  switch (type) {
  case DType::F16:
    // Round once from double; the float holding the result is exact.
    store<uint16_t>(
        bytes, index,
        reference::floatToF16Bits(static_cast<float>(
            reference::roundToElementType(value, ElementType::F16))));
    return;
  case DType::BF16:
    store<uint16_t>(
        bytes, index,
        reference::floatToBF16Bits(static_cast<float>(
            reference::roundToElementType(value, ElementType::BF16))));
    return;
  case DType::F32:
    store<float>(bytes, index, static_cast<float>(value));
    return;
  case DType::F64:
    store<double>(bytes, index, value);
    return;
  case DType::I32:
    store<int32_t>(bytes, index,
                   static_cast<int32_t>(
                       saturate(value, std::numeric_limits<int32_t>::min(),
                                std::numeric_limits<int32_t>::max())));
    return;
  case DType::I64:
    store<int64_t>(bytes, index,
                   saturate(value, std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max()));
    return;
  }
}

void HostTensor::setInt(int64_t index, int64_t value) {
  switch (type) {
  case DType::I32:
    store<int32_t>(bytes, index, static_cast<int32_t>(value));
    return;
  case DType::I64:
    store<int64_t>(bytes, index, value);
    return;
  default:
    setDouble(index, static_cast<double>(value));
    return;
  }
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

reference::Tensor gmm::runner::toReferenceTensor(const HostTensor &tensor) {
  reference::Tensor result;
  result.shape = tensor.shape;
  int64_t count = tensor.getNumElements();
  result.data.resize(std::max<int64_t>(count, 0));
  for (int64_t i = 0; i < count; ++i)
    result.data[i] = tensor.getDouble(i);
  return result;
}

reference::IndexTensor gmm::runner::toIndexTensor(const HostTensor &tensor) {
  reference::IndexTensor result;
  result.shape = tensor.shape;
  int64_t count = tensor.getNumElements();
  result.data.resize(std::max<int64_t>(count, 0));
  for (int64_t i = 0; i < count; ++i)
    result.data[i] = tensor.getInt(i);
  return result;
}

HostTensor gmm::runner::fromReferenceTensor(const reference::Tensor &tensor,
                                            DType type) {
  HostTensor result = HostTensor::zeros(type, tensor.shape);
  int64_t count = std::min<int64_t>(result.getNumElements(),
                                    static_cast<int64_t>(tensor.data.size()));
  for (int64_t i = 0; i < count; ++i)
    result.setDouble(i, tensor.data[i]);
  return result;
}

llvm::Expected<HostTensor> gmm::runner::convertTensor(const HostTensor &tensor,
                                                      DType type) {
  if (tensor.type == type)
    return tensor;
  auto mismatch = [&](llvm::StringRef why = "") {
    return llvm::createStringError(
        llvm::formatv("has element type {0}, expected {1}{2}",
                      toString(tensor.type), toString(type), why)
            .str());
  };
  bool floatToHalf =
      tensor.type == DType::F32 && (type == DType::F16 || type == DType::BF16);
  bool intToInt = !isFloat(tensor.type) && !isFloat(type);
  if (!floatToHalf && !intToInt)
    return mismatch();
  HostTensor result = HostTensor::zeros(type, tensor.shape);
  int64_t count = tensor.getNumElements();
  for (int64_t i = 0; i < count; ++i) {
    if (floatToHalf) {
      result.setDouble(i, tensor.getDouble(i));
      continue;
    }
    int64_t value = tensor.getInt(i);
    if (type == DType::I32 && (value < std::numeric_limits<int32_t>::min() ||
                               value > std::numeric_limits<int32_t>::max()))
      return mismatch(
          llvm::formatv(" (element {0} = {1} does not fit in i32)", i, value)
              .str());
    result.setInt(i, value);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {
void formatElement(const HostTensor &tensor, int64_t index,
                   const FormatOptions &options, std::string &out) {
  if (!isFloat(tensor.type)) {
    out += std::to_string(tensor.getInt(index));
    return;
  }
  double value = tensor.getDouble(index);
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g",
                std::clamp(options.precision, 1, 17), value);
  out += buffer;
}

/// Prints the sub-tensor of dimensions [dim, rank) that starts at element
/// `offset`.
void formatLevel(const HostTensor &tensor, size_t dim, int64_t offset,
                 const std::vector<int64_t> &strides,
                 const FormatOptions &options, std::string &out) {
  out += "[";
  int64_t size = tensor.shape[dim];
  for (int64_t i = 0; i < size; ++i) {
    if (i > 0) {
      out += ",";
      if (dim + 1 == tensor.shape.size()) {
        out += " ";
      } else {
        // A new row: indent past the brackets that are still open.
        out += "\n";
        out.append(dim + 1, ' ');
      }
    }
    int64_t element = offset + i * strides[dim];
    if (dim + 1 == tensor.shape.size())
      formatElement(tensor, element, options, out);
    else
      formatLevel(tensor, dim + 1, element, strides, options, out);
  }
  out += "]";
}
} // namespace

std::string gmm::runner::formatTensor(const HostTensor &tensor,
                                      const FormatOptions &options) {
  if (!tensor.isConsistent())
    return "<invalid tensor>";
  std::string out;
  if (tensor.shape.empty()) {
    formatElement(tensor, 0, options, out);
    return out;
  }
  // Without elements, "[]" whatever the shape, as numpy prints it: nesting
  // by a shape such as [2^40, 0] would print 2^40 lines of nothing.
  if (tensor.getNumElements() == 0)
    return "[]";
  std::vector<int64_t> strides(tensor.shape.size(), 1);
  for (size_t i = tensor.shape.size() - 1; i > 0; --i)
    strides[i - 1] = strides[i] * tensor.shape[i];
  formatLevel(tensor, 0, 0, strides, options, out);
  return out;
}

//===----------------------------------------------------------------------===//
// Random values and group sizes
//===----------------------------------------------------------------------===//

void gmm::runner::fillRandom(HostTensor &tensor, uint64_t seed,
                             uint64_t stream) {
  // Mix the stream into the seed so that streams are unrelated.
  Random mixer(seed ^ (stream * 0xd1b54a32d192ed03ULL));
  Random random(mixer.next());
  int64_t count = tensor.getNumElements();
  for (int64_t i = 0; i < count; ++i) {
    if (isFloat(tensor.type))
      tensor.setDouble(i, 2.0 * random.nextUnit() - 1.0);
    else
      tensor.setInt(i, static_cast<int64_t>(random.nextBelow(8)));
  }
}
