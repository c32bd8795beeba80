//===- gmm-fuzz-ptx.cpp - libFuzzer target: the simulated GPU's PTX loader ===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The input is PTX text, as cuModuleLoadDataEx hands it to gmm's simulated
// GPU. Loading must either fail with a message or give kernels; every
// kernel is then launched once (one block of one warp, zero parameters,
// one second at most), which must end with a result or a finding, never a
// crash of the simulator.
//
//===----------------------------------------------------------------------===//

#include "gmm/Simulator/Simulator.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace gmm::sim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Device *device = [] {
    Options options;
    options.threads = 1;
    options.timeoutSeconds = 1;
    options.memoryBytes = uint64_t(1) << 28;
    return new Device(options);
  }();
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string log;
  std::unique_ptr<LoadedModule> module = device->load(text, log);
  if (!module) {
    if (log.empty()) {
      std::fprintf(stderr, "gmm-fuzz-ptx: FINDING: a load failed without a "
                           "message\n");
      std::abort();
    }
    return 0;
  }
  for (const std::unique_ptr<Kernel> &kernel : module->kernels()) {
    std::vector<uint8_t> params(kernel->paramBufferBytes() + 8, 0);
    LaunchConfig config;
    unsigned threads = kernel->maxThreads();
    config.block.x = threads && threads < 32 ? threads : 32;
    LaunchResult result = device->launch(*kernel, config, params.data());
    if (!result.ok && result.message.empty()) {
      std::fprintf(stderr, "gmm-fuzz-ptx: FINDING: a failed launch without a "
                           "message\n");
      std::abort();
    }
  }
  return 0;
}
