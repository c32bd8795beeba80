// The same C program as c-program.mlir against a GPU library: the kernels
// are embedded, the host code calls libgmm_cuda_runtime, every buffer is in
// device memory, and each entry point runs on the program's stream with a
// workspace of the size it asks for (on a CUDA device, or on the simulated
// GPU with its checks).
//
// REQUIRES: cuda-device
// UNSUPPORTED: sanitizer
// RUN: rm -rf %t && mkdir -p %t
// RUN: gmm-aot %S/Inputs/moe.mlir --target=cuda --chip=sm_80 -o %t/libmoe.so
// RUN: %cc -std=c11 -Wall -Werror -DGMM_TEST_CUDA -I%t %S/Inputs/moe_main.c \
// RUN:   -L%t -lmoe -L%gmm_lib_dir -lgmm_cuda_runtime -Wl,-rpath,%t \
// RUN:   -Wl,-rpath,%gmm_lib_dir -lm -o %t/moe_main
// RUN: %cuda_env %t/moe_main | FileCheck %s
// RUN: nm -D --defined-only %t/libmoe.so | FileCheck %s --check-prefix=EXPORTS
// RUN: FileCheck %s --check-prefix=HEADER < %t/libmoe.h

// CHECK: library: cuda, 3 functions, from moe.mlir
// CHECK-NOT: FAIL
// CHECK: ok: moe_forward_workspace_bytes
// CHECK: ok: moe_forward matches the loops (1e-4)
// CHECK: ok: a null lhs is GMM_AOT_NULL_POINTER
// CHECK: ok: moe_dynamic_workspace_bytes
// CHECK: ok: the workspace of invalid sizes is -1
// CHECK: ok: moe_dynamic with contracting sizes 20 and 21 does nothing
// CHECK: ok: moe_dynamic matches the loops (1e-4)
// CHECK: ok: moe_dynamic on 12 tokens matches the loops (1e-4)
// CHECK: ok: weight_grad matches the loops, empty group 0 (1e-4)
// CHECK: 0 failures

// EXPORTS-DAG: T moe_forward
// EXPORTS-DAG: T moe_forward_workspace_bytes
// EXPORTS-DAG: T weight_grad_workspace_bytes
// EXPORTS-NOT: __gmm_aot

// HEADER: int32_t moe_forward(const void *arg0, const void *arg1, const void *arg2, void *result0, void *workspace, int64_t workspace_bytes, void *stream);
// HEADER: int64_t moe_forward_workspace_bytes(void);
// HEADER: int64_t moe_dynamic_workspace_bytes(int64_t arg0_size0, int64_t arg0_size1, int64_t arg1_size1);
