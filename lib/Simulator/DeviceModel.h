//===- DeviceModel.h - the limits and attributes of the simulated GPU -----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the simulated device is: the limits a launch is checked against
// (Device.cpp) and the attributes that cuDeviceGetAttribute reports
// (DriverAPI.cpp), in one place. Limits that every modelled architecture
// shares are constants; the others are one DeviceModel per architecture:
// sm_80 is an A100 (SXM, 108 SMs), sm_90 an H100 (SXM, 132 SMs), with the
// values that their drivers report.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_LIB_SIMULATOR_DEVICEMODEL_H
#define GMM_LIB_SIMULATOR_DEVICEMODEL_H

#include <cstdint>

namespace gmm {
namespace sim {
namespace limits {

/// A block: threads in all, and along each dimension.
constexpr uint32_t kMaxThreadsPerBlock = 1024;
constexpr uint32_t kMaxBlockX = 1024, kMaxBlockY = 1024, kMaxBlockZ = 64;
/// A grid, along each dimension.
constexpr uint32_t kMaxGridX = 2147483647u, kMaxGridY = 65535,
                   kMaxGridZ = 65535;
constexpr uint32_t kWarpSize = 32;
/// Blocks in a thread block cluster: 8 portable, 16 with
/// CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED (sm_90).
constexpr uint32_t kMaxPortableClusterSize = 8, kMaxClusterSize = 16;
/// The shared::cluster window: CTA rank r's shared memory at
/// (r + 1) * kClusterWindowBytes; below it, the executing CTA's own.
constexpr uint64_t kClusterWindowBytes = uint64_t(1) << 24;
/// Shared memory a block gets without the opt-in
/// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
constexpr uint32_t kStaticSharedBytesPerBlock = 48 * 1024;
/// Shared memory the driver keeps for itself in each block.
constexpr uint32_t kReservedSharedBytesPerBlock = 1024;
constexpr uint32_t kConstantBytes = 64 * 1024;
constexpr uint32_t kRegistersPerBlock = 64 * 1024;
constexpr uint32_t kRegistersPerSM = 64 * 1024;
constexpr uint32_t kMaxThreadsPerSM = 2048;
constexpr uint32_t kMaxBlocksPerSM = 32;
/// Local memory of one thread.
constexpr uint32_t kMaxLocalBytesPerThread = 512 * 1024;
/// cuMemAllocPitch's largest pitch.
constexpr int32_t kMaxPitch = 2147483647;
constexpr uint32_t kMemoryBusBits = 5120;

} // namespace limits

/// What differs between the modelled architectures.
struct DeviceModel {
  unsigned arch;
  unsigned smCount;
  /// Shared memory of one block with the opt-in, and of one SM.
  uint32_t maxSharedBytesPerBlockOptin;
  uint32_t sharedBytesPerSM;
  /// Clocks in kHz, and the L2 cache.
  uint32_t clockKHz, memoryClockKHz;
  uint32_t l2Bytes;
};

/// The model of `arch` (80 or 90; the simulator models no other).
inline const DeviceModel &deviceModel(unsigned arch) {
  static constexpr DeviceModel kA100 = {80,      108,     166912,  167936,
                                        1410000, 1215000, 41943040};
  static constexpr DeviceModel kH100 = {90,      132,     232448,  233472,
                                        1980000, 2619000, 52428800};
  return arch >= 90 ? kH100 : kA100;
}

} // namespace sim
} // namespace gmm

#endif // GMM_LIB_SIMULATOR_DEVICEMODEL_H
