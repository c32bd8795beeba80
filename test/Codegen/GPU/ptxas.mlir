// Every kernel of ptx.mlir's three functions assembles with ptxas for sm_80
// and sm_90, and none spills: the tile kernels (the last of each function)
// keep their accumulators in registers.

// REQUIRES: ptxas
// RUN: rm -rf %t && gmm-opt %S/ptx.mlir -split-input-file --gmm-to-ptx="chip=sm_80 ptx-dir=%t" -o /dev/null
// RUN: gmm-opt %S/ptx.mlir -split-input-file --gmm-to-ptx="chip=sm_90 ptx-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_80 -v %t/bf16_kernel_0.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_90 -v %t/bf16_kernel_0.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_80 -v %t/f16_kernel_1.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_90 -v %t/f16_kernel_1.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_80 -v %t/f32_kernel_0.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_90 -v %t/f32_kernel_0.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// The group metadata kernels (a thread per group) and the single-thread
// kernel that reads f16's group offset assemble without spills too.
// RUN: %ptxas -arch=sm_80 -v %t/bf16_kernel.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %ptxas -arch=sm_90 -v %t/bf16_kernel.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %ptxas -arch=sm_80 -v %t/f16_kernel.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %ptxas -arch=sm_80 -v %t/f16_kernel_0.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %ptxas -arch=sm_80 -v %t/f32_kernel.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL

// TILE: Compiling entry function '{{.*}}_kernel'
// TILE: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// TILE: Used {{[0-9]+}} registers, used 1 barriers, {{[0-9]+}} bytes smem
// SERIAL: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SERIAL: Used {{[0-9]+}} registers, used 0 barriers
