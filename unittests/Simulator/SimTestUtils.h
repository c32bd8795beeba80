//===- SimTestUtils.h - Running PTX snippets on the simulator ---*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// Helpers of the simulator's unit tests: load a PTX module, give a kernel
// device buffers, launch it and read the buffers back.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_UNITTESTS_SIMULATOR_SIMTESTUTILS_H
#define GMM_UNITTESTS_SIMULATOR_SIMTESTUTILS_H

#include "gmm/Simulator/Simulator.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

namespace gmm {
namespace sim {
namespace test {

/// A device buffer with a host copy.
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

/// A device, a loaded module and its buffers.
class SimRun {
public:
  explicit SimRun(Options options = defaultOptions()) : device(options) {}

  static Options defaultOptions() {
    Options options;
    options.threads = 1;
    return options;
  }

  /// Loads `ptx`; the test fails (returns false) when it does not load.
  bool load(const std::string &ptx) {
    std::string log;
    module = device.load(ptx, log);
    loadLog = log;
    return module != nullptr;
  }

  /// A device buffer of `bytes` bytes, filled from `init` (or zeros).
  Buffer &buffer(size_t bytes, const void *init = nullptr) {
    Buffer b;
    std::string error;
    if (!device.allocate(bytes, b.address, error))
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

  /// Copies every buffer to the device, launches kernel `name` with the
  /// given 8-byte parameters (buffer addresses or values), and copies the
  /// buffers back.
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
                  kernel->params()[i].size);
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
  /// Stable addresses: a deque would do; a reserved vector is enough here.
  std::vector<Buffer> buffers = [] {
    std::vector<Buffer> v;
    v.reserve(64);
    return v;
  }();
};

/// The common PTX header.
/// Expects `r` to have failed with a finding of `kind` whose message holds
/// `text`.
inline void expectFinding(const LaunchResult &r, FindingKind kind,
                          const std::string &text) {
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, kind) << r.message;
  EXPECT_NE(r.message.find(text), std::string::npos) << r.message;
}

inline std::string ptxHeader(const char *target = "sm_80") {
  return std::string(".version 8.0\n.target ") + target +
         "\n.address_size 64\n";
}

} // namespace test
} // namespace sim
} // namespace gmm

#endif // GMM_UNITTESTS_SIMULATOR_SIMTESTUTILS_H
