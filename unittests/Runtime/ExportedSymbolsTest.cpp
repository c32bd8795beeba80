//===- ExportedSymbolsTest.cpp - The mgpu* symbols the library exports ----===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// JIT-compiled code finds the mgpu* functions by name, so the built shared
// library must export every function MLIR 22 emits calls to, and nothing of
// its internals. test/Runtime/mgpu-abi.mlir checks the other side: that this
// is the list MLIR 22 emits, with these signatures.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <string>

namespace {

/// The functions MLIR 22 emits calls to, with their LLVM signatures.
struct EmittedFunction {
  const char *name;
  const char *signature;
  const char *emittedBy;
};

const EmittedFunction kEmitted[] = {
    {"mgpuModuleLoad", "ptr (ptr, i64)", "gpu.binary (bin, fatbin)"},
    {"mgpuModuleLoadJIT", "ptr (ptr, i32)", "gpu.binary (assembly)"},
    {"mgpuModuleUnload", "void (ptr)", "gpu.binary"},
    {"mgpuModuleGetFunction", "ptr (ptr, ptr)", "gpu.launch_func"},
    {"mgpuLaunchKernel",
     "void (ptr, i64, i64, i64, i64, i64, i64, i32, ptr, ptr, ptr, i64)",
     "gpu.launch_func"},
    {"mgpuLaunchClusterKernel",
     "void (ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, ptr, ptr, "
     "ptr)",
     "gpu.launch_func with clusters"},
    {"mgpuStreamCreate", "ptr ()", "gpu-to-llvm, gpu.launch_func"},
    {"mgpuStreamDestroy", "void (ptr)", "gpu-to-llvm, gpu.launch_func"},
    {"mgpuStreamSynchronize", "void (ptr)", "gpu-to-llvm, gpu.launch_func"},
    {"mgpuStreamWaitEvent", "void (ptr, ptr)", "gpu-to-llvm"},
    {"mgpuEventCreate", "ptr ()", "gpu-to-llvm"},
    {"mgpuEventDestroy", "void (ptr)", "gpu-to-llvm"},
    {"mgpuEventSynchronize", "void (ptr)", "gpu-to-llvm"},
    {"mgpuEventRecord", "void (ptr, ptr)", "gpu-to-llvm"},
    {"mgpuMemAlloc", "ptr (i64, ptr, i8)", "gpu-to-llvm"},
    {"mgpuMemFree", "void (ptr, ptr)", "gpu-to-llvm"},
    {"mgpuMemcpy", "void (ptr, ptr, i64, ptr)", "gpu-to-llvm"},
    {"mgpuMemset32", "void (ptr, i32, i64, ptr)", "gpu-to-llvm"},
    {"mgpuMemset16", "void (ptr, i16, i64, ptr)", "gpu-to-llvm"},
    {"mgpuMemHostRegisterMemRef", "void (i64, ptr, i64)", "gpu-to-llvm"},
    {"mgpuMemHostUnregisterMemRef", "void (i64, ptr, i64)", "gpu-to-llvm"},
    {"mgpuSetDefaultDevice", "void (i32)", "gpu-to-llvm"},
    {"mgpuTensorMapEncodeTiledMemref",
     "ptr (i64, ptr, i64, i64, i64, i64, i64, ptr)", "nvgpu-to-nvvm"},
};

class ExportedSymbols : public ::testing::Test {
protected:
  void SetUp() override {
    library = dlopen(GMM_CUDA_RUNTIME_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
  }
  void TearDown() override {
    if (library)
      dlclose(library);
  }
  void *library = nullptr;
};

TEST_F(ExportedSymbols, EveryFunctionMlirEmits) {
  EXPECT_EQ(sizeof(kEmitted) / sizeof(kEmitted[0]), 23u);
  for (const EmittedFunction &function : kEmitted)
    EXPECT_NE(dlsym(library, function.name), nullptr)
        << function.name << " " << function.signature << " (emitted by "
        << function.emittedBy << ") is not exported";
}

TEST_F(ExportedSymbols, ExtrasOfMlirsWrappers) {
  for (const char *name : {"mgpuMemHostRegister", "mgpuMemHostUnregister"})
    EXPECT_NE(dlsym(library, name), nullptr) << name;
}

TEST_F(ExportedSymbols, NoSparseOrUnknownFunctions) {
  // The cuSPARSE entry points of MLIR's wrappers are not implemented.
  for (const char *name : {"mgpuCreateSparseEnv", "mgpuSpMV", "mgpuMemAllc"})
    EXPECT_EQ(dlsym(library, name), nullptr) << name;
}

TEST_F(ExportedSymbols, InternalsAreHidden) {
  // gmm::cuda::getDriverState() and gmm::cuda::describeError(int).
  EXPECT_EQ(dlsym(library, "_ZN3gmm4cuda14getDriverStateEv"), nullptr);
  EXPECT_EQ(dlsym(library, "_ZN3gmm4cuda13describeErrorEi"), nullptr);
  // The C++ helpers are exported.
  EXPECT_NE(dlsym(library,
                  "_Z16gmmCudaAvailablePNSt7__cxx1112basic_stringIcSt11"
                  "char_traitsIcESaIcEEE"),
            nullptr);
}

} // namespace
