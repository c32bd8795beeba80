// gmm-aot compiles Inputs/moe.mlir (static and dynamic sizes, both modes)
// into a shared library for the CPU, a C program is linked against it and
// its header, and checks every entry point against loops of its own and
// the error codes of bad calls (Inputs/moe_main.c).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: gmm-aot %S/Inputs/moe.mlir -o %t/libmoe.so
// RUN: %cc -std=c11 -Wall -Werror -I%t %S/Inputs/moe_main.c -L%t -lmoe \
// RUN:   -Wl,-rpath,%t -lm -o %t/moe_main
// RUN: %t/moe_main | FileCheck %s
// RUN: nm -D --defined-only %t/libmoe.so | FileCheck %s --check-prefix=EXPORTS
// RUN: FileCheck %s --check-prefix=HEADER < %t/libmoe.h

// CHECK: library: cpu, 3 functions, from moe.mlir
// CHECK-NEXT: moe_forward: 3 arguments, 1 results, 0 sizes; result0 tensor<64x48xf32>
// CHECK-NEXT: moe_dynamic: 3 arguments, 1 results, 3 sizes; result0 tensor<?x24xf32>
// CHECK-NEXT: weight_grad: 3 arguments, 1 results, 2 sizes; result0 tensor<3x16x24xf32>
// CHECK-NOT: FAIL
// CHECK: ok: moe_forward matches the loops (1e-4)
// CHECK: ok: a null lhs is GMM_AOT_NULL_POINTER
// CHECK: ok: moe_dynamic_result_sizes gives [37, 24]
// CHECK: ok: contracting sizes 20 and 21 are GMM_AOT_INVALID_SIZES
// CHECK: ok: a negative size is GMM_AOT_INVALID_SIZES
// CHECK: ok: moe_dynamic with contracting sizes 20 and 21 does nothing
// CHECK: ok: moe_dynamic matches the loops (1e-4)
// CHECK: ok: moe_dynamic on 12 tokens matches the loops (1e-4)
// CHECK: ok: weight_grad with 29 and 28 tokens does nothing
// CHECK: ok: weight_grad matches the loops, empty group 0 (1e-4)
// CHECK: 0 failures

// Only the entry points and the description are exported.
// EXPORTS-DAG: T gmm_aot_describe
// EXPORTS-DAG: T moe_dynamic
// EXPORTS-DAG: T moe_dynamic_result_sizes
// EXPORTS-DAG: T moe_forward
// EXPORTS-DAG: T moe_forward_result_sizes
// EXPORTS-DAG: T weight_grad
// EXPORTS-DAG: T weight_grad_result_sizes
// EXPORTS-NOT: __gmm_aot
// EXPORTS-NOT: workspace_bytes

// HEADER: #ifndef GMM_AOT_LIBMOE_SO_H
// HEADER: typedef struct gmm_aot_library {
// HEADER: /* @moe_dynamic: (tensor<?x?xf32>, tensor<4x?x24xf32>, tensor<4xi32>) -> tensor<?x24xf32>
// HEADER-NEXT:  *   arg0: tensor<?x?xf32> [arg0_size0, arg0_size1]
// HEADER-NEXT:  *   arg1: tensor<4x?x24xf32> [4, arg1_size1, 24]
// HEADER-NEXT:  *   arg2: tensor<4xi32> [4]
// HEADER-NEXT:  *   result0: tensor<?x24xf32> [?, 24], written
// HEADER: int32_t moe_dynamic(const void *arg0, const void *arg1, const void *arg2, void *result0, int64_t arg0_size0, int64_t arg0_size1, int64_t arg1_size1);
// HEADER-NEXT: /* The sizes of moe_dynamic's results, one after the other, into dims. */
// HEADER-NEXT: int32_t moe_dynamic_result_sizes(int64_t arg0_size0, int64_t arg0_size1, int64_t arg1_size1, int64_t *dims);
// HEADER: const gmm_aot_library *gmm_aot_describe(void);
