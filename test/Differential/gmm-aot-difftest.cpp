//===- gmm-aot-difftest.cpp - The differential test on a gmm-aot library --===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The randomized differential test, run on a library that gmm-aot compiled
// ahead of time from `gmm-difftest --emit-module` (one function
// @config_<index> per configuration): draws the same configurations
// (drawConfig), calls each function through the library's C entry points on
// the CPU, a CUDA GPU or gmm's simulated GPU, and compares the result with
// the C++ reference (checkResult). It links neither MLIR nor LLVM, so that
// what a GPU machine needs to run gmm's differential sets is this program,
// the libraries and libgmm_cuda_runtime: a few MB, nothing to compile there.
//
//   gmm-difftest --pipeline=cuda --seed=21 --configs=60 --emit-module=d.mlir
//   gmm-aot d.mlir --target=cuda -o libd.so
//   gmm-aot-difftest --library=libd.so --seed=21 --configs=60 [--device=gpu]
//
// Prints one "FAIL config ..." report per failure and a summary line; exits
// with 1 on any failure or bad option.
//
//===----------------------------------------------------------------------===//

#include "RandomConfig.h"

#include "gmm/AOT/Library.h"
#include "gmm/Reference/FloatConversion.h"
#include "gmm/Runtime/CudaRuntime.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace gmm;
using namespace gmm::difftest;
using reference::ElementType;

namespace {

struct Options {
  std::string library;
  uint64_t seed = 1;
  int64_t first = 0, configs = 100, maxDim = 24;
  std::optional<ElementType> inputType;
  bool adversarial = false;
  ConfigFamily family = ConfigFamily::Any;
  std::string device = "sim", simChip;
  bool verbose = false;
};

int usage(const std::string &message) {
  std::fprintf(stderr, "gmm-aot-difftest: error: %s\n", message.c_str());
  std::fprintf(stderr, "usage: gmm-aot-difftest --library=FILE [--seed=N] "
                       "[--first=N] [--configs=N] [--max-dim=N] "
                       "[--input-type=f16|bf16|f32|f64] [--adversarial] "
                       "[--family=any|hopper] "
                       "[--device=sim|gpu] [--sim-chip=sm_80|sm_90] [-v]\n");
  return 1;
}

bool parseInteger(const std::string &text, int64_t &value) {
  char *end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno)
    return false;
  value = parsed;
  return true;
}

/// Parses the command line; an empty string on success, else the error.
std::string parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string key = arg, value;
    size_t equals = arg.find('=');
    if (equals != std::string::npos) {
      key = arg.substr(0, equals);
      value = arg.substr(equals + 1);
    }
    int64_t number = 0;
    auto integer = [&](int64_t &out, int64_t min) -> bool {
      if (!parseInteger(value, number) || number < min)
        return false;
      out = number;
      return true;
    };
    if (key == "--library")
      options.library = value;
    else if (key == "--seed") {
      if (!integer(number, 0))
        return "--seed=" + value + ": expected a non-negative integer";
      options.seed = static_cast<uint64_t>(number);
    } else if (key == "--first") {
      if (!integer(options.first, 0))
        return "--first=" + value + ": expected a non-negative integer";
    } else if (key == "--configs") {
      if (!integer(options.configs, 0))
        return "--configs=" + value + ": expected a non-negative integer";
    } else if (key == "--max-dim") {
      if (!integer(options.maxDim, 1))
        return "--max-dim=" + value + ": expected a positive integer";
    } else if (key == "--input-type") {
      options.inputType = reference::parseElementType(value);
      if (!options.inputType)
        return "--input-type=" + value + ": expected f16, bf16, f32 or f64";
    } else if (arg == "--adversarial")
      options.adversarial = true;
    else if (key == "--family") {
      if (value != "any" && value != "hopper")
        return "--family=" + value + ": expected any or hopper";
      options.family =
          value == "hopper" ? ConfigFamily::Hopper : ConfigFamily::Any;
    } else if (key == "--device") {
      if (value != "sim" && value != "gpu")
        return "--device=" + value + ": expected sim or gpu";
      options.device = value;
    } else if (key == "--sim-chip")
      options.simChip = value;
    else if (arg == "-v")
      options.verbose = true;
    else
      return "unknown option '" + arg + "'";
  }
  if (options.library.empty())
    return "no --library";
  return "";
}

/// Float values as elements of `type` (GMM_AOT_F16, BF16, F32 or F64);
/// the integer arguments go through indexBytes().
std::vector<uint8_t> toBytes(const std::vector<double> &values, int32_t type) {
  size_t width = gmm_aot_element_bytes(type);
  std::vector<uint8_t> bytes(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t *out = bytes.data() + i * width;
    double v = values[i];
    switch (type) {
    case GMM_AOT_F16: {
      uint16_t bits = reference::floatToF16Bits(static_cast<float>(v));
      std::memcpy(out, &bits, 2);
      break;
    }
    case GMM_AOT_BF16: {
      uint16_t bits = reference::floatToBF16Bits(static_cast<float>(v));
      std::memcpy(out, &bits, 2);
      break;
    }
    case GMM_AOT_F32: {
      float f = static_cast<float>(v);
      std::memcpy(out, &f, 4);
      break;
    }
    case GMM_AOT_F64:
      std::memcpy(out, &v, 8);
      break;
    default:
      break;
    }
  }
  return bytes;
}

std::vector<uint8_t> indexBytes(const std::vector<int64_t> &values,
                                int32_t type) {
  std::vector<uint8_t> bytes(values.size() * gmm_aot_element_bytes(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == GMM_AOT_I32) {
      // The difftest's i32 sizes are int32 values (wrapped, as the module
      // reads them).
      int32_t x = static_cast<int32_t>(static_cast<uint32_t>(values[i]));
      std::memcpy(bytes.data() + 4 * i, &x, 4);
    } else {
      std::memcpy(bytes.data() + 8 * i, &values[i], 8);
    }
  }
  return bytes;
}

std::vector<double> fromBytes(const std::vector<uint8_t> &bytes, int32_t type) {
  size_t width = gmm_aot_element_bytes(type);
  std::vector<double> values(width ? bytes.size() / width : 0);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t *in = bytes.data() + i * width;
    switch (type) {
    case GMM_AOT_F16: {
      uint16_t bits;
      std::memcpy(&bits, in, 2);
      values[i] = reference::f16BitsToFloat(bits);
      break;
    }
    case GMM_AOT_BF16: {
      uint16_t bits;
      std::memcpy(&bits, in, 2);
      values[i] = reference::bf16BitsToFloat(bits);
      break;
    }
    case GMM_AOT_F32: {
      float f;
      std::memcpy(&f, in, 4);
      values[i] = f;
      break;
    }
    case GMM_AOT_F64:
      std::memcpy(&values[i], in, 8);
      break;
    default:
      values[i] = NAN;
    }
  }
  return values;
}

int32_t aotType(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return GMM_AOT_F16;
  case ElementType::BF16:
    return GMM_AOT_BF16;
  case ElementType::F32:
    return GMM_AOT_F32;
  case ElementType::F64:
    return GMM_AOT_F64;
  }
  return 0;
}

/// One argument of a configuration: its bytes and shape.
struct Buffer {
  std::vector<uint8_t> bytes;
  std::vector<int64_t> shape;
};

/// Runs configuration `c` through `f`; an empty string when it passes.
std::string runConfig(const Config &c, const gmm_aot_function &f, bool cuda) {
  std::vector<Buffer> inputs;
  int32_t in = aotType(c.inputType), out = aotType(c.resultType);
  int32_t index = c.groupSizesI64 ? GMM_AOT_I64 : GMM_AOT_I32;
  inputs.push_back({toBytes(c.lhs.data, in), c.lhs.shape});
  inputs.push_back({toBytes(c.rhs.data, in), c.rhs.shape});
  inputs.push_back({indexBytes(c.groupSizes.data, index), c.groupSizes.shape});
  if (c.groupOffset)
    inputs.push_back(
        {indexBytes({*c.groupOffset}, index),
         c.offsetIsVector ? std::vector<int64_t>{1} : std::vector<int64_t>{}});
  if (c.hasInit)
    inputs.push_back({toBytes(c.init.data, out), c.init.shape});

  // The library's function must be this configuration's.
  if (f.num_arguments != static_cast<int32_t>(inputs.size()) ||
      f.num_results != 1)
    return "the library's function takes " + std::to_string(f.num_arguments) +
           " arguments, the configuration " + std::to_string(inputs.size()) +
           ": was it compiled from gmm-difftest --emit-module with the same "
           "options?";
  std::vector<int64_t> sizes(f.num_sizes, 0);
  for (int32_t i = 0; i < f.num_arguments; ++i) {
    const gmm_aot_tensor &t = f.tensors[i];
    if (t.rank != static_cast<int32_t>(inputs[i].shape.size()))
      return std::string("argument ") + t.name + " (" + t.type +
             ") is not the configuration's: was it compiled with the same "
             "options?";
    for (int32_t d = 0; d < t.rank; ++d) {
      if (t.shape[d] >= 0 && t.shape[d] != inputs[i].shape[d])
        return std::string("argument ") + t.name + " (" + t.type +
               ") is not the configuration's";
      if (t.size_parameter[d] >= 0)
        sizes[t.size_parameter[d]] = inputs[i].shape[d];
    }
  }
  const gmm_aot_tensor &result = f.tensors[f.num_arguments];
  std::vector<int64_t> dims(result.rank);
  if (f.result_sizes(sizes.data(), dims.data()) != GMM_AOT_SUCCESS)
    return "the library says the configuration's sizes are invalid";
  if (dims != c.resultShape)
    return "the library's result sizes are not the reference's";
  int64_t count = aot::elementCount(result, dims.data());
  std::vector<uint8_t> resultBytes(count * gmm_aot_element_bytes(out));
  // Poison: NaN in every float type is all ones. (An empty result has no
  // data: memset of a null pointer is undefined even for 0 bytes.)
  if (!resultBytes.empty())
    std::memset(resultBytes.data(), 0xff, resultBytes.size());

  std::vector<void *> pointers;
  int32_t status;
  if (!cuda) {
    for (Buffer &b : inputs)
      pointers.push_back(b.bytes.data());
    pointers.push_back(resultBytes.data());
    status = f.call(pointers.data(), sizes.data(), nullptr, 0, nullptr);
  } else {
    void *stream = mgpuStreamCreate();
    auto upload = [&](std::vector<uint8_t> &bytes) {
      void *device = mgpuMemAlloc(bytes.size(), stream, 0);
      if (device)
        mgpuMemcpy(device, bytes.data(), bytes.size(), stream);
      return device;
    };
    for (Buffer &b : inputs)
      pointers.push_back(upload(b.bytes));
    pointers.push_back(upload(resultBytes));
    int64_t workspaceBytes = f.workspace_bytes(sizes.data());
    void *workspace =
        workspaceBytes > 0 ? mgpuMemAlloc(workspaceBytes, stream, 0) : nullptr;
    status = f.call(pointers.data(), sizes.data(), workspace,
                    workspace ? workspaceBytes : 0, stream);
    mgpuStreamSynchronize(stream);
    if (!resultBytes.empty() && pointers.back())
      mgpuMemcpy(resultBytes.data(), pointers.back(), resultBytes.size(),
                 stream);
    mgpuStreamSynchronize(stream);
    for (void *p : pointers)
      mgpuMemFree(p, stream);
    if (workspace)
      mgpuMemFree(workspace, stream);
    mgpuStreamSynchronize(stream);
    mgpuStreamDestroy(stream);
    std::string message;
    if (gmmCudaTakeError(&message))
      return "the GPU failed: " + message;
  }
  if (status != GMM_AOT_SUCCESS)
    return "the entry point returned " + std::to_string(status);
  reference::Tensor got;
  got.shape = dims;
  got.data = fromBytes(resultBytes, out);
  return checkResult(c, got);
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  std::string error = parseOptions(argc, argv, options);
  if (!error.empty())
    return usage(error);
  if (options.device != "sim" && !options.simChip.empty())
    return usage("--sim-chip goes with --device=sim");

  // The device first: a GPU library loads its kernels when it is opened.
  bool simulated = options.device == "sim";
  if (simulated && !gmmCudaUseSimulator(options.simChip, "", &error)) {
    std::fprintf(stderr, "gmm-aot-difftest: error: --device=sim: %s\n",
                 error.c_str());
    return 1;
  }
  gmmCudaSetErrorMode(GmmCudaErrorMode::Record);
  std::unique_ptr<aot::Library> library =
      aot::Library::open(options.library, error);
  if (!library) {
    std::fprintf(stderr, "gmm-aot-difftest: error: %s\n", error.c_str());
    return 1;
  }
  bool cuda = library->isCUDA();
  if (cuda) {
    GmmCudaDeviceInfo device;
    if (!gmmCudaAvailable(&error) || !gmmCudaGetDeviceInfo(0, device, &error)) {
      std::fprintf(stderr, "gmm-aot-difftest: error: no CUDA device: %s\n",
                   error.c_str());
      return 1;
    }
    std::string message;
    if (gmmCudaTakeError(&message)) {
      std::fprintf(stderr,
                   "gmm-aot-difftest: error: loading the kernels of %s "
                   "failed: %s\n",
                   options.library.c_str(), message.c_str());
      return 1;
    }
    std::printf("device: %s (%s)%s\n", device.name.c_str(),
                device.chip().c_str(), device.simulated ? ", simulated" : "");
  }

  int64_t passed = 0, failed = 0;
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = options.first; i < options.first + options.configs; ++i) {
    Config c = drawConfig(options.seed, i, options.maxDim, options.inputType,
                          cuda, options.adversarial, options.family);
    if (options.verbose)
      std::printf("config %lld: %s\n", static_cast<long long>(i),
                  c.describe().c_str());
    std::string name = "config_" + std::to_string(i);
    const gmm_aot_function *f = library->find(name);
    std::string failure =
        f ? runConfig(c, *f, cuda)
          : "the library has no function " + name +
                ": compile gmm-difftest --emit-module with the same --first "
                "and --configs";
    if (failure.empty()) {
      ++passed;
      continue;
    }
    ++failed;
    std::printf("FAIL config %lld (--seed=%llu --first=%lld --configs=1): "
                "%s\n%s\n%s\n",
                static_cast<long long>(i),
                static_cast<unsigned long long>(options.seed),
                static_cast<long long>(i), c.describe().c_str(),
                failure.c_str(), c.toMLIR(name).c_str());
    if (cuda && !gmmCudaClearDeviceError()) {
      std::printf("stopping: the CUDA context is unusable after this "
                  "failure\n");
      break;
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("library %s (%s%s%s): configurations %lld..%lld of seed %llu "
              "in %.1f s\n",
              options.library.c_str(), library->describe().target,
              cuda ? (simulated ? ", simulated GPU" : ", GPU") : "",
              options.adversarial ? ", adversarial group sizes" : "",
              static_cast<long long>(options.first),
              static_cast<long long>(options.first + options.configs - 1),
              static_cast<unsigned long long>(options.seed), seconds);
  std::printf("%lld passed, %lld failed\n", static_cast<long long>(passed),
              static_cast<long long>(failed));
  return failed == 0 ? 0 : 1;
}
