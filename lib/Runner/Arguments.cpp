//===- Arguments.cpp - The arguments of a function to run ---------------===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#include "gmm/Runner/Arguments.h"

#include "gmm/Dialect/GMM/IR/GMMOps.h"
#include "gmm/Runner/Npy.h"
#include "gmm/Support/InputFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using llvm::StringRef;

namespace gmm {
namespace runner {

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// Parses "AxBxC" (empty for rank 0).
llvm::Expected<std::vector<int64_t>> parseShape(StringRef text,
                                                StringRef option) {
  std::vector<int64_t> shape;
  text = text.trim();
  if (text.empty())
    return shape;
  llvm::SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t size;
    if (part.trim().getAsInteger(10, size) || size < 0)
      return makeError(option + ": '" + part +
                       "' is not a size (expected AxBxC with non-negative "
                       "integers)");
    shape.push_back(size);
  }
  return shape;
}

/// Parses comma-separated values; an empty string is no values.
llvm::Expected<std::vector<double>> parseFloats(StringRef text,
                                                StringRef option) {
  std::vector<double> values;
  if (text.trim().empty())
    return values;
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    double value;
    if (part.trim().getAsDouble(value))
      return makeError(option + ": '" + part.trim() + "' is not a number");
    values.push_back(value);
  }
  return values;
}

std::string describeSpec(const TensorSpec &spec, unsigned index) {
  return llvm::formatv("argument {0} ({1})", index, spec.typeName).str();
}

/// Checks `shape` against the static sizes of `spec`.
llvm::Error checkShape(const TensorSpec &spec, unsigned index,
                       llvm::ArrayRef<int64_t> shape, StringRef from) {
  bool fits = shape.size() == spec.shape.size();
  for (size_t d = 0; fits && d < shape.size(); ++d)
    fits = ShapedType::isDynamic(spec.shape[d]) || spec.shape[d] == shape[d];
  if (fits)
    return llvm::Error::success();
  std::string needed = "[";
  for (size_t d = 0; d < spec.shape.size(); ++d)
    needed += (d ? ", " : "") + (ShapedType::isDynamic(spec.shape[d])
                                     ? std::string("?")
                                     : std::to_string(spec.shape[d]));
  needed += "]";
  return makeError(from + " has shape " + formatShape(shape) + ", but " +
                   describeSpec(spec, index) + " needs shape " + needed);
}

} // namespace

/// Splits "IDX:REST" of option `option` and checks IDX against `count`.
llvm::Expected<std::pair<unsigned, StringRef>>
splitIndexed(StringRef option, StringRef value, StringRef form, size_t count,
             StringRef countWhat) {
  auto [index, rest] = value.split(':');
  unsigned result;
  if (!value.contains(':') || index.trim().getAsInteger(10, result))
    return makeError("--" + option + "=" + value + ": expected " + form +
                     " with IDX a 0-based " + countWhat + " index");
  if (result >= count)
    return makeError(llvm::formatv("--{0}={1}: {2} index {3} is out of range "
                                   "(there are {4})",
                                   option, value, countWhat, result, count)
                         .str());
  return std::make_pair(result, rest);
}

llvm::Expected<std::vector<int64_t>> parseInts(StringRef text,
                                               StringRef option) {
  std::vector<int64_t> values;
  if (text.trim().empty())
    return values;
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    StringRef trimmed = part.trim();
    if (trimmed.starts_with("+"))
      trimmed = trimmed.drop_front();
    int64_t value;
    if (trimmed.getAsInteger(10, value))
      return makeError(option + ": '" + part.trim() + "' is not an integer");
    values.push_back(value);
  }
  return values;
}

llvm::Error ArgumentBuilder::requireBindingFor(
    StringRef option, std::optional<unsigned> RaggedDotBinding::*field,
    StringRef operand) {
  if (!binding)
    return makeError(option + " needs a gmm.ragged_dot: " + bindingError);
  if (!((*binding).*field))
    return makeError(option + " applies to the " + operand +
                     " operand of gmm.ragged_dot, which is not an argument "
                     "of @" +
                     signature.name);
  return llvm::Error::success();
}

llvm::Error ArgumentBuilder::collectSources() {
  size_t numArgs = signature.arguments.size();
  sources.assign(numArgs, {});
  std::vector<bool> given(numArgs, false);
  auto claim = [&](unsigned index, ArgumentSource::Kind kind,
                   const std::string &option, StringRef text) -> llvm::Error {
    if (given[index])
      return makeError(llvm::formatv("argument {0} is given twice ({1} and "
                                     "{2})",
                                     index, sources[index].option, option)
                           .str());
    given[index] = true;
    sources[index].kind = kind;
    sources[index].option = option;
    sources[index].text = text.str();
    return llvm::Error::success();
  };
  for (const std::string &value : options.inputFiles) {
    auto split =
        splitIndexed("input", value, "IDX:FILE.npy", numArgs, "argument");
    if (!split)
      return split.takeError();
    if (split->second.empty())
      return makeError("--input=" + value + ": no file name after ':'");
    if (llvm::Error error = claim(split->first, ArgumentSource::File,
                                  "--input=" + value, split->second))
      return error;
  }
  for (const std::string &value : options.inlineValues) {
    auto split =
        splitIndexed("values", value, "IDX:v0,v1,...", numArgs, "argument");
    if (!split)
      return split.takeError();
    if (llvm::Error error = claim(split->first, ArgumentSource::Values,
                                  "--values=" + value, split->second))
      return error;
  }
  if (options.groupSizes) {
    if (llvm::Error error = requireBindingFor(
            "--group-sizes", &RaggedDotBinding::groupSizes, "group_sizes"))
      return error;
    if (llvm::Error error =
            claim(*binding->groupSizes, ArgumentSource::GroupSizes,
                  "--group-sizes=" + groupSizesText(), groupSizesText()))
      return error;
  }
  if (options.groupOffset) {
    if (llvm::Error error = requireBindingFor(
            "--group-offset", &RaggedDotBinding::groupOffset, "group_offset"))
      return error;
    if (llvm::Error error =
            claim(*binding->groupOffset, ArgumentSource::GroupOffset,
                  "--group-offset=" + options.groupOffsetText, ""))
      return error;
  }
  // Seeded arguments that feed the op's group_sizes / group_offset get the
  // values that make sense for them.
  if (binding) {
    if (binding->groupSizes && !given[*binding->groupSizes])
      sources[*binding->groupSizes].kind = ArgumentSource::GroupSizes;
    if (binding->groupOffset && !given[*binding->groupOffset])
      sources[*binding->groupOffset].kind = ArgumentSource::GroupOffset;
  }
  for (const std::string &value : options.argShapes) {
    auto split =
        splitIndexed("arg-shape", value, "IDX:AxBxC", numArgs, "argument");
    if (!split)
      return split.takeError();
    if (sources[split->first].shape)
      return makeError(llvm::formatv("--arg-shape is given twice for "
                                     "argument {0}",
                                     split->first)
                           .str());
    auto shape = parseShape(split->second, "--arg-shape=" + value);
    if (!shape)
      return shape.takeError();
    const TensorSpec &spec = signature.arguments[split->first];
    if (llvm::Error error =
            checkShape(spec, split->first, *shape, "--arg-shape=" + value))
      return error;
    sources[split->first].shape = std::move(*shape);
  }
  return llvm::Error::success();
}

llvm::Error ArgumentBuilder::resolveShapes() {
  size_t numArgs = signature.arguments.size();
  shapes.assign(numArgs, std::nullopt);
  arguments.assign(numArgs, HostTensor());
  for (size_t i = 0; i < numArgs; ++i) {
    const TensorSpec &spec = signature.arguments[i];
    ArgumentSource &source = sources[i];
    if (source.kind == ArgumentSource::File) {
      llvm::Expected<HostTensor> tensor = readNpy(source.text, spec.type);
      if (!tensor)
        return makeError(describeSpec(spec, i) + ": " +
                         llvm::toString(tensor.takeError()));
      if (llvm::Error error = checkShape(spec, i, tensor->shape, source.text))
        return error;
      if (source.shape && *source.shape != tensor->shape)
        return makeError(source.text + " has shape " +
                         formatShape(tensor->shape) + ", but --arg-shape " +
                         "gives " + formatShape(*source.shape) +
                         " for argument " + std::to_string(i));
      shapes[i] = tensor->shape;
      arguments[i] = std::move(*tensor);
      continue;
    }
    if (source.shape) {
      shapes[i] = *source.shape;
      continue;
    }
    if (!spec.hasDynamicDims()) {
      shapes[i] = std::vector<int64_t>(spec.shape.begin(), spec.shape.end());
      continue;
    }
    // A single dynamic size can follow from the number of inline values or
    // of explicit group sizes.
    int64_t count = -1;
    if (source.kind == ArgumentSource::Values) {
      count = static_cast<int64_t>(StringRef(source.text).trim().empty()
                                       ? 0
                                       : llvm::count(source.text, ',') + 1);
    } else if (source.kind == ArgumentSource::GroupSizes &&
               options.groupSizes && spec.shape.size() == 1 &&
               groupSizesText() != "uniform" && groupSizesText() != "skewed") {
      count = llvm::count(*options.groupSizes, ',') + 1;
    }
    if (count >= 0 && llvm::count_if(spec.shape, ShapedType::isDynamic) == 1) {
      int64_t known = 1;
      for (int64_t size : spec.shape)
        if (!ShapedType::isDynamic(size))
          known *= size;
      if (known > 0 && count % known == 0) {
        std::vector<int64_t> shape(spec.shape.begin(), spec.shape.end());
        for (int64_t &size : shape)
          if (ShapedType::isDynamic(size))
            size = count / known;
        shapes[i] = std::move(shape);
        continue;
      }
    }
    if (source.kind == ArgumentSource::GroupOffset) {
      // A group offset holds one value: [] or [1].
      shapes[i] = std::vector<int64_t>(spec.shape.size(), 1);
      continue;
    }
    std::string example;
    for (size_t d = 0; d < spec.shape.size(); ++d)
      example += (d ? "x" : "") +
                 (ShapedType::isDynamic(spec.shape[d])
                      ? std::string(1, static_cast<char>('A' + d % 26))
                      : std::to_string(spec.shape[d]));
    return makeError(llvm::formatv("{0} has dynamic sizes; give its shape "
                                   "with --arg-shape={1}:{2}",
                                   describeSpec(spec, i), i, example)
                         .str());
  }

  // Refuse sizes that cannot be held rather than dying in the attempt. A run
  // holds each argument about four times over (the generated or read
  // tensor, the copy the compiled code is called with, and results of
  // about the same size, read back and, with --check, computed again by the
  // reference), which is what peak memory shows.
  constexpr int kCopiesHeld = 4;
  double memory = static_cast<double>(support::getPhysicalMemoryBytes());
  double total = 0, largest = -1;
  size_t largestIndex = 0;
  for (size_t i = 0; i < numArgs; ++i) {
    double bytes =
        static_cast<double>(getByteWidth(signature.arguments[i].type));
    for (int64_t size : *shapes[i])
      bytes *= static_cast<double>(size);
    total += bytes;
    if (bytes > largest)
      largest = bytes, largestIndex = i;
  }
  if (numArgs && kCopiesHeld * total > memory)
    return makeError(
        llvm::formatv(
            "the arguments do not fit in memory: {0} with shape "
            "{1} and the others take {2:F1} GiB, and a run holds "
            "about {3} times that ({4:F1} GiB), more than the "
            "machine's {5:F1} GiB",
            describeSpec(signature.arguments[largestIndex], largestIndex),
            formatShape(*shapes[largestIndex]), total / support::kBytesPerGiB,
            kCopiesHeld, kCopiesHeld * total / support::kBytesPerGiB,
            memory / support::kBytesPerGiB)
            .str());
  return llvm::Error::success();
}

/// The sizes of the group_sizes argument `index`, row-major over its shape.
llvm::Expected<std::vector<int64_t>>
ArgumentBuilder::getGroupSizeValues(unsigned index) {
  const TensorSpec &spec = signature.arguments[index];
  const std::vector<int64_t> &shape = *shapes[index];
  std::string what = describeSpec(spec, index);
  if (shape.empty())
    return makeError(what + " is group_sizes but has rank 0");
  int64_t numGroups = shape.back();
  int64_t numRows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    numRows *= shape[d];

  // The ragged extent is the lhs ragged dimension's size for this call.
  mlir::gmm::RaggedDotOp op = binding->op;
  int64_t raggedDim = op.getLhsRaggedDimension();
  int64_t extent = ShapedType::kDynamic;
  if (binding->lhs && shapes[*binding->lhs])
    extent = (*shapes[*binding->lhs])[raggedDim];
  else if (!binding->lhs)
    extent = cast<ShapedType>(op.getLhs().getType()).getDimSize(raggedDim);
  if (ShapedType::isDynamic(extent))
    return makeError("cannot generate group sizes: the size of the lhs "
                     "ragged dimension is not known");

  std::vector<int64_t> values;
  bool explicitList = options.groupSizes && groupSizesText() != "uniform" &&
                      groupSizesText() != "skewed";
  if (explicitList) {
    llvm::Expected<std::vector<int64_t>> list =
        parseInts(groupSizesText(), "--group-sizes=" + groupSizesText());
    if (!list)
      return makeError(
          llvm::toString(list.takeError()) +
          " (expected uniform, skewed or a comma-separated list of sizes)");
    if (static_cast<int64_t>(list->size()) == numGroups * numRows) {
      values = std::move(*list);
    } else if (static_cast<int64_t>(list->size()) == numGroups) {
      for (int64_t row = 0; row < numRows; ++row)
        values.insert(values.end(), list->begin(), list->end());
    } else {
      return makeError(
          llvm::formatv("--group-sizes={0}: got {1} sizes, but "
                        "{2} has {3} groups{4}",
                        groupSizesText(), list->size(), what, numGroups,
                        numRows != 1 ? llvm::formatv(" per row ({0} in all)",
                                                     numGroups * numRows)
                                           .str()
                                     : std::string())
              .str());
    }
    return values;
  }
  if (numGroups == 0)
    return values;
  for (int64_t row = 0; row < numRows; ++row) {
    std::vector<int64_t> sizes;
    if (groupSizesText() == "uniform")
      sizes = makeGroupSizes(GroupSizeDistribution::Uniform, extent, numGroups);
    else if (groupSizesText() == "skewed")
      sizes = makeGroupSizes(GroupSizeDistribution::Skewed, extent, numGroups);
    else
      sizes =
          makeGroupSizes(GroupSizeDistribution::Random, extent, numGroups,
                         options.seed ^ (row * 0x9e3779b97f4a7c15ULL) ^ index);
    values.insert(values.end(), sizes.begin(), sizes.end());
  }
  return values;
}

llvm::Error ArgumentBuilder::fillArguments() {
  for (size_t i = 0; i < arguments.size(); ++i) {
    const TensorSpec &spec = signature.arguments[i];
    const ArgumentSource &source = sources[i];
    if (source.kind == ArgumentSource::File)
      continue;
    HostTensor &tensor = arguments[i];
    tensor = HostTensor::zeros(spec.type, *shapes[i]);
    int64_t count = tensor.getNumElements();
    if (count < 0)
      return makeError(describeSpec(spec, i) + " has too many elements");
    switch (source.kind) {
    case ArgumentSource::File:
      break;
    case ArgumentSource::Random:
      fillRandom(tensor, options.seed, i);
      break;
    case ArgumentSource::Values: {
      StringRef option = source.option;
      size_t numValues;
      if (isFloat(spec.type)) {
        auto values = parseFloats(source.text, option);
        if (!values)
          return values.takeError();
        numValues = values->size();
        if (static_cast<int64_t>(numValues) == count)
          for (int64_t e = 0; e < count; ++e)
            tensor.setDouble(e, (*values)[e]);
      } else {
        auto values = parseInts(source.text, option);
        if (!values)
          return values.takeError();
        numValues = values->size();
        if (static_cast<int64_t>(numValues) == count) {
          for (int64_t e = 0; e < count; ++e) {
            int64_t value = (*values)[e];
            if (spec.type == DType::I32 &&
                (value < std::numeric_limits<int32_t>::min() ||
                 value > std::numeric_limits<int32_t>::max()))
              return makeError(
                  llvm::formatv("{0}: {1} does not fit in i32", option, value)
                      .str());
            tensor.setInt(e, value);
          }
        }
      }
      if (static_cast<int64_t>(numValues) != count)
        return makeError(llvm::formatv("{0}: got {1} values, but {2} with "
                                       "shape {3} has {4} elements",
                                       option, numValues, describeSpec(spec, i),
                                       formatShape(tensor.shape), count)
                             .str());
      break;
    }
    case ArgumentSource::GroupSizes: {
      if (isFloat(spec.type))
        return makeError(describeSpec(spec, i) + " is not an integer tensor");
      auto values = getGroupSizeValues(i);
      if (!values)
        return values.takeError();
      for (int64_t e = 0; e < count; ++e) {
        int64_t value = (*values)[e];
        if (spec.type == DType::I32 &&
            (value < std::numeric_limits<int32_t>::min() ||
             value > std::numeric_limits<int32_t>::max()))
          return makeError(llvm::formatv("--group-sizes: {0} does not fit in "
                                         "i32",
                                         value)
                               .str());
        tensor.setInt(e, value);
      }
      break;
    }
    case ArgumentSource::GroupOffset: {
      int64_t value = options.groupOffset.value_or(0);
      if (spec.type == DType::I32 &&
          (value < std::numeric_limits<int32_t>::min() ||
           value > std::numeric_limits<int32_t>::max()))
        return makeError(llvm::formatv("--group-offset={0} does not fit in "
                                       "i32",
                                       value)
                             .str());
      if (count != 1)
        return makeError(describeSpec(spec, i) + " is group_offset but has " +
                         std::to_string(count) + " elements");
      tensor.setInt(0, value);
      break;
    }
    }
  }
  return llvm::Error::success();
}

} // namespace runner
} // namespace gmm
