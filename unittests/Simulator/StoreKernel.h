//===- StoreKernel.h - A PTX kernel for driver-API tests --------*- C++ -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The kernel that the driver-API unit tests (DriverAPITest.cpp) and the
// driver-API fuzzer (fuzz/gmm-fuzz-driver.cpp) load and launch.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_UNITTESTS_SIMULATOR_STOREKERNEL_H
#define GMM_UNITTESTS_SIMULATOR_STOREKERNEL_H

namespace gmm {
namespace sim {
namespace test {

/// A kernel `store` that stores `value` to the word at `pointer` + 4 * tid.
inline constexpr const char *kStorePtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry store(.param .u64 pointer, .param .u32 value)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd0, [pointer];
  ld.param.u32 %r0, [value];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r0;
  ret;
}
)";

} // namespace test
} // namespace sim
} // namespace gmm

#endif // GMM_UNITTESTS_SIMULATOR_STOREKERNEL_H
