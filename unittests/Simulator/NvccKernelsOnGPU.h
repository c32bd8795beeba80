//===- NvccKernelsOnGPU.h - NvccKernelsTest.cpp on a real GPU ---*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What NvccKernelsTest.cpp uses of the simulator's C++ interface (a device,
// a loaded module, its kernels' parameter layouts, buffers with a host copy,
// launches on a packed parameter buffer, tensor maps), implemented on the
// CUDA driver API instead, so that the same tests, with the same
// assertions, run on a real GPU (GMMNvccKernelsOnGPU, linked against
// libcuda). Device memory comes from cuMemAlloc, each allocation with a host
// shadow (what hostPointer() gives) that every launch copies in and back.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_UNITTESTS_SIMULATOR_NVCCKERNELSONGPU_H
#define GMM_UNITTESTS_SIMULATOR_NVCCKERNELSONGPU_H

#include "gtest/gtest.h"

#include <cuda.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace gmm {
namespace gputest {

/// The simulator's tensor-map arguments (gmm/Simulator/TensorMap.h), whose
/// enums are the driver's as integers, for cuTensorMapEncodeTiled.
enum TensorMapSwizzle : int {
  kSwizzleNone = CU_TENSOR_MAP_SWIZZLE_NONE,
  kSwizzle32B = CU_TENSOR_MAP_SWIZZLE_32B,
  kSwizzle64B = CU_TENSOR_MAP_SWIZZLE_64B,
  kSwizzle128B = CU_TENSOR_MAP_SWIZZLE_128B,
};

struct TiledTensorMapArgs {
  int dataType = 0;
  uint32_t rank = 0;
  uint64_t globalAddress = 0;
  uint64_t globalDim[5] = {};
  uint64_t globalStrides[4] = {};
  uint32_t boxDim[5] = {};
  uint32_t elementStrides[5] = {};
  int interleave = 0;
  int swizzle = 0;
  int l2Promotion = 0;
  int oobFill = 0;
};

enum class TensorMapError { None, Invalid, Unsupported };

inline std::string cudaErrorText(CUresult result) {
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::string s =
      name                                ? std::string(name)
      : result == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY"
      : result == CUDA_ERROR_NO_DEVICE    ? "CUDA_ERROR_NO_DEVICE"
                                       : "CUDA error " + std::to_string(result);
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

/// The GPU: the driver initialized and the primary context of device 0
/// current, once per process; a global test environment. Without a GPU it
/// says so and exits with status 1 (nothing to skip to: every test needs
/// it).
class GpuEnvironment : public ::testing::Environment {
public:
  [[noreturn]] static void noGpu(const std::string &why) {
    std::cout << std::flush;
    std::cerr << "GMMNvccKernelsOnGPU: error: no usable CUDA GPU: " << why
              << " (this executable runs the kernels of NvccKernels.cu on a "
                 "real GPU through the machine's libcuda.so.1; "
                 "GMMSimulatorTests runs them on the simulator)"
              << std::endl;
    std::exit(1);
  }

  void SetUp() override {
    CUresult r = cuInit(0);
    if (r != CUDA_SUCCESS)
      noGpu("cuInit failed with " + cudaErrorText(r));
    int count = 0;
    r = cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count == 0)
      noGpu("cuDeviceGetCount gave " + std::to_string(count) + " devices (" +
            cudaErrorText(r) + ")");
    if ((r = cuDeviceGet(&device, 0)) != CUDA_SUCCESS ||
        (r = cuDevicePrimaryCtxRetain(&context, device)) != CUDA_SUCCESS ||
        (r = cuCtxSetCurrent(context)) != CUDA_SUCCESS)
      noGpu("no context on device 0: " + cudaErrorText(r));
    int major = 0, minor = 0;
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         device);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         device);
    arch() = unsigned(major * 10 + minor);
    char name[256] = {};
    cuDeviceGetName(name, sizeof(name), device);
    int driver = 0;
    cuDriverGetVersion(&driver);
    std::cout << "GPU: " << name << ", compute capability " << major << "."
              << minor << ", driver API " << driver / 1000 << "."
              << (driver % 1000) / 10 << "\n";
  }
  /// The device's compute capability (major * 10 + minor).
  static unsigned &arch() {
    static unsigned value = 0;
    return value;
  }

private:
  CUdevice device = 0;
  CUcontext context = nullptr;
};

/// The launch geometry of the simulator's LaunchConfig.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamicSharedBytes = 0;
  /// 1 x 1 x 1: the kernel's own (.reqnctapercluster), if any.
  Dim3 cluster;
};

/// A launch's outcome: ok, or the driver's error.
struct LaunchResult {
  bool ok = true;
  int kind = 0;
  std::string message;
};

inline const char *findingKindName(int) { return "launch failed"; }

struct KernelParam {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
};

/// A kernel of the loaded module, its parameter layout read from the PTX
/// (the .entry's .param list, laid out as the ABI does: each at a multiple
/// of its alignment).
class Kernel {
public:
  const std::vector<KernelParam> &params() const { return paramList; }
  uint32_t paramBufferBytes() const { return bytes; }

  CUfunction function = nullptr;
  std::vector<KernelParam> paramList;
  uint32_t bytes = 0;
  /// The kernel fixes its cluster shape (.reqnctapercluster).
  bool fixedCluster = false;
};

/// Bytes of a PTX parameter type (.u64, .b8, .f32, ...); 0 if unknown.
inline uint32_t ptxTypeBytes(const std::string &type) {
  if (type.size() < 3 || type[0] != '.')
    return 0;
  char c = type[1];
  if (c != 'u' && c != 's' && c != 'b' && c != 'f')
    return 0;
  int bits = std::atoi(type.c_str() + 2);
  return bits >= 8 ? uint32_t(bits / 8) : 0;
}

/// Parses the .param list of `.entry name(` in `ptx`; false if not found.
inline bool parseEntryParams(const std::string &ptx, const std::string &name,
                             Kernel &kernel) {
  std::string key = ".entry " + name + "(";
  size_t start = ptx.find(key);
  if (start == std::string::npos)
    return false;
  start += key.size();
  size_t end = ptx.find(')', start);
  if (end == std::string::npos)
    return false;
  std::stringstream list(ptx.substr(start, end - start));
  std::string item;
  uint32_t offset = 0, maxAlign = 1;
  while (std::getline(list, item, ',')) {
    std::stringstream words(item);
    std::string word, type, pname;
    uint32_t align = 0;
    bool firstAlign = true;
    while (words >> word) {
      if (word == ".param" || word == ".ptr" || word == ".global" ||
          word == ".shared" || word == ".const" || word == ".local")
        continue;
      if (word == ".align") {
        words >> word;
        // The first .align (before the type) aligns the parameter; one
        // after .ptr is the pointee's.
        if (firstAlign && type.empty())
          align = uint32_t(std::atoi(word.c_str()));
        firstAlign = false;
        continue;
      }
      if (word[0] == '.' && type.empty())
        type = word;
      else if (word[0] != '.')
        pname = word;
    }
    if (type.empty())
      continue;
    uint32_t element = ptxTypeBytes(type), count = 1;
    size_t bracket = pname.find('[');
    if (bracket != std::string::npos) {
      count = uint32_t(std::atoi(pname.c_str() + bracket + 1));
      pname.resize(bracket);
    }
    if (!element)
      return false;
    if (!align)
      align = element;
    offset = (offset + align - 1) / align * align;
    kernel.paramList.push_back({pname, offset, element * count});
    offset += element * count;
    maxAlign = std::max(maxAlign, align);
  }
  kernel.bytes = offset;
  // The entry's directives, up to its body.
  size_t body = ptx.find('{', end);
  kernel.fixedCluster =
      ptx.substr(end, body - end).find(".reqnctapercluster") !=
      std::string::npos;
  return true;
}

/// The loaded module: its kernels, looked up by name.
class LoadedModule {
public:
  ~LoadedModule() {
    if (module)
      cuModuleUnload(module);
  }
  Kernel *kernel(const std::string &name) {
    auto it = kernels.find(name);
    if (it != kernels.end())
      return it->second.get();
    auto k = std::make_unique<Kernel>();
    if (cuModuleGetFunction(&k->function, module, name.c_str()) !=
            CUDA_SUCCESS ||
        !parseEntryParams(ptx, name, *k))
      return nullptr;
    return (kernels[name] = std::move(k)).get();
  }

  CUmodule module = nullptr;
  std::string ptx;
  std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

/// The device: launches a kernel on a packed parameter buffer and waits.
class Device {
public:
  /// Launches `kernel` on the parameter bytes `params` (laid out as
  /// kernel.params()), the host shadows copied to the device before and
  /// back after.
  LaunchResult launch(Kernel &kernel, const LaunchConfig &config,
                      const uint8_t *params) {
    LaunchResult result;
    auto failed = [&](const char *what, CUresult r) {
      result.ok = false;
      result.kind = int(r);
      result.message = std::string(what) + ": " + cudaErrorText(r);
      return result;
    };
    for (auto &[address, shadow] : shadows)
      if (CUresult r =
              cuMemcpyHtoD(CUdeviceptr(address), shadow.data(), shadow.size()))
        return failed("cuMemcpyHtoD", r);
    std::vector<void *> pointers;
    for (const KernelParam &p : kernel.params())
      pointers.push_back(const_cast<uint8_t *>(params) + p.offset);
    CUresult r = CUDA_SUCCESS;
    if (config.dynamicSharedBytes > 48 * 1024)
      r = cuFuncSetAttribute(kernel.function,
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             int(config.dynamicSharedBytes));
    const Dim3 &c = config.cluster;
    bool cluster = c.x * c.y * c.z > 1 && !kernel.fixedCluster;
    if (r == CUDA_SUCCESS && !cluster) {
      r = cuLaunchKernel(kernel.function, config.grid.x, config.grid.y,
                         config.grid.z, config.block.x, config.block.y,
                         config.block.z, config.dynamicSharedBytes, nullptr,
                         pointers.data(), nullptr);
    } else if (r == CUDA_SUCCESS) {
      CUlaunchAttribute attribute = {};
      attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attribute.value.clusterDim.x = c.x;
      attribute.value.clusterDim.y = c.y;
      attribute.value.clusterDim.z = c.z;
      CUlaunchConfig launch = {};
      launch.gridDimX = config.grid.x;
      launch.gridDimY = config.grid.y;
      launch.gridDimZ = config.grid.z;
      launch.blockDimX = config.block.x;
      launch.blockDimY = config.block.y;
      launch.blockDimZ = config.block.z;
      launch.sharedMemBytes = config.dynamicSharedBytes;
      launch.attrs = &attribute;
      launch.numAttrs = 1;
      r = cuLaunchKernelEx(&launch, kernel.function, pointers.data(), nullptr);
    }
    if (r != CUDA_SUCCESS)
      return failed("launch", r);
    if ((r = cuCtxSynchronize()) != CUDA_SUCCESS)
      return failed("kernel", r);
    for (auto &[address, shadow] : shadows)
      if ((r = cuMemcpyDtoH(shadow.data(), CUdeviceptr(address),
                            shadow.size())) != CUDA_SUCCESS)
        return failed("cuMemcpyDtoH", r);
    return result;
  }

  /// The host shadow of device bytes [address, address + bytes) (inside
  /// one allocation).
  void *hostPointer(uint64_t address, size_t bytes) {
    auto it = shadows.upper_bound(address);
    if (it == shadows.begin())
      return nullptr;
    --it;
    if (address + bytes > it->first + it->second.size())
      return nullptr;
    return it->second.data() + (address - it->first);
  }

  /// A device allocation of `bytes` (zeros) with its shadow; 0 on failure.
  uint64_t allocate(size_t bytes, std::string &error) {
    CUdeviceptr address = 0;
    if (CUresult r = cuMemAlloc(&address, bytes ? bytes : 1)) {
      error = "cuMemAlloc(" + std::to_string(bytes) + "): " + cudaErrorText(r);
      return 0;
    }
    shadows[uint64_t(address)].assign(bytes ? bytes : 1, 0);
    return uint64_t(address);
  }

  ~Device() {
    for (auto &entry : shadows)
      cuMemFree(CUdeviceptr(entry.first));
  }

private:
  std::map<uint64_t, std::vector<uint8_t>> shadows;
};

/// A device buffer with a host copy (the simulator tests' Buffer).
struct Buffer {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;

  template <typename T> T get(size_t i) const {
    T value;
    std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
    return value;
  }
  template <typename T> void set(size_t i, T value) {
    std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
  }
};

/// The simulator tests' SimRun on the GPU: a loaded module and buffers.
class GpuRun {
public:
  GpuRun() { buffers.reserve(64); }
  ~GpuRun() { module.reset(); }

  /// Loads `binary` (a cubin; empty: none) or else the PTX `ptx`, whose
  /// .entry lists give the parameter layouts either way.
  bool load(const std::string &ptx, const std::string &binary,
            const std::string &binaryName) {
    auto lm = std::make_unique<LoadedModule>();
    lm->ptx = ptx;
    if (!binary.empty()) {
      CUresult r = cuModuleLoadData(&lm->module, binary.data());
      if (r == CUDA_SUCCESS) {
        module = std::move(lm);
        return true;
      }
      loadLog += binaryName + ": " + cudaErrorText(r) + "; trying the PTX\n";
    }
    char log[8192] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
    CUresult r =
        cuModuleLoadDataEx(&lm->module, ptx.c_str(), 2, options, values);
    if (r != CUDA_SUCCESS) {
      loadLog += "PTX: " + cudaErrorText(r) + "\n" + log;
      return false;
    }
    module = std::move(lm);
    return true;
  }

  Buffer &buffer(size_t bytes, const void *init = nullptr) {
    Buffer b;
    std::string error;
    b.address = device.allocate(bytes, error);
    if (!b.address)
      ADD_FAILURE() << error;
    b.bytes.assign(bytes, 0);
    if (init)
      std::memcpy(b.bytes.data(), init, bytes);
    buffers.push_back(b);
    return buffers.back();
  }
  template <typename T> Buffer &buffer(const std::vector<T> &values) {
    return buffer(values.size() * sizeof(T), values.data());
  }

  /// As SimRun::launch: copies the buffers in, launches `name` with 8-byte
  /// parameters (each truncated to the parameter's size), copies them back.
  LaunchResult launch(const std::string &name, Dim3 grid, Dim3 block,
                      const std::vector<uint64_t> &params,
                      uint32_t dynamicShared = 0, Dim3 cluster = {}) {
    for (Buffer &b : buffers)
      std::memcpy(device.hostPointer(b.address, b.bytes.size()), b.bytes.data(),
                  b.bytes.size());
    Kernel *kernel = module ? module->kernel(name) : nullptr;
    if (!kernel) {
      ADD_FAILURE() << "no kernel " << name;
      return {};
    }
    std::vector<uint8_t> buffer(kernel->paramBufferBytes() + 8, 0);
    for (size_t i = 0; i < params.size() && i < kernel->params().size(); ++i)
      std::memcpy(buffer.data() + kernel->params()[i].offset, &params[i],
                  std::min<size_t>(kernel->params()[i].size, 8));
    LaunchConfig config;
    config.grid = grid;
    config.block = block;
    config.dynamicSharedBytes = dynamicShared;
    config.cluster = cluster;
    LaunchResult result = device.launch(*kernel, config, buffer.data());
    for (Buffer &b : buffers)
      std::memcpy(b.bytes.data(), device.hostPointer(b.address, b.bytes.size()),
                  b.bytes.size());
    return result;
  }

  Device device;
  std::unique_ptr<LoadedModule> module;
  std::string loadLog;
  std::vector<Buffer> buffers;
};

/// cuTensorMapEncodeTiled on the simulator's argument struct (whose enums
/// are the driver's, as integers).
inline TensorMapError encodeTiledTensorMap(const TiledTensorMapArgs &a,
                                           void *map, std::string &error) {
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  for (int i = 0; i < 5; ++i) {
    dims[i] = a.globalDim[i];
    box[i] = a.boxDim[i];
    elementStrides[i] = a.elementStrides[i];
  }
  for (int i = 0; i < 4; ++i)
    strides[i] = a.globalStrides[i];
  CUresult r = cuTensorMapEncodeTiled(
      static_cast<CUtensorMap *>(map),
      static_cast<CUtensorMapDataType>(a.dataType), a.rank,
      reinterpret_cast<void *>(static_cast<uintptr_t>(a.globalAddress)), dims,
      strides, box, elementStrides,
      static_cast<CUtensorMapInterleave>(a.interleave),
      static_cast<CUtensorMapSwizzle>(a.swizzle),
      static_cast<CUtensorMapL2promotion>(a.l2Promotion),
      static_cast<CUtensorMapFloatOOBfill>(a.oobFill));
  if (r == CUDA_SUCCESS)
    return TensorMapError::None;
  error = "cuTensorMapEncodeTiled: " + cudaErrorText(r);
  return TensorMapError::Invalid;
}

/// The file at `path` (binary), or "" if it cannot be read.
inline std::string readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file.good())
    return "";
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

} // namespace gputest
} // namespace gmm

#endif // GMM_UNITTESTS_SIMULATOR_NVCCKERNELSONGPU_H
