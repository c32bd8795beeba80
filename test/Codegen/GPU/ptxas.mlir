// Every kernel of ptx.mlir's three functions assembles with ptxas for sm_80
// and sm_90, and none spills: the tile kernels (the last of each function)
// keep their accumulators in registers. So do the Hopper (wgmma) kernels of
// ptx-wgmma.mlir for sm_90a, within the 168 registers of 384 threads, with
// no ptxas warning (none saying that wgmma was serialized).

// REQUIRES: ptxas
// RUN: rm -rf %t && gmm-opt %S/ptx.mlir -split-input-file --gmm-to-ptx="chip=sm_80 ptx-dir=%t" -o /dev/null
// RUN: gmm-opt %S/ptx.mlir -split-input-file --gmm-to-ptx="chip=sm_90 ptx-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_80 -v %t/bf16_tile_128x128x32_w2x4_s2.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_90 -v %t/bf16_tile_128x128x32_w2x4_s2.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_80 -v %t/f16_tile_128x128x32_w2x4_s2.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_90 -v %t/f16_tile_128x128x32_w2x4_s2.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_80 -v %t/f32_tile_128x128x16_w2x4_s2.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: %ptxas -arch=sm_90 -v %t/f32_tile_128x128x16_w2x4_s2.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILE
// The group metadata kernels (a thread per group) and the single-thread
// kernel that reads f16's group offset assemble without spills too.
// RUN: %ptxas -arch=sm_80 -v %t/bf16_metadata.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %ptxas -arch=sm_90 -v %t/bf16_metadata.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %ptxas -arch=sm_80 -v %t/f16_serial.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %ptxas -arch=sm_80 -v %t/f16_metadata.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %ptxas -arch=sm_80 -v %t/f32_metadata.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=SERIAL

// RUN: gmm-opt %S/ptx-wgmma.mlir -split-input-file --gmm-to-ptx="chip=sm_90a ptx-dir=%t/sm90a" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/sm90a/forward_bf16_tile_128x256x64_w2x4_s4_wgmma_r8.sm_90a.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=WGMMA
// RUN: %ptxas -arch=sm_90a -v %t/sm90a/forward_f16_tile_128x128x64_w2x4_s7_wgmma_r8.sm_90a.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=WGMMA
// RUN: %ptxas -arch=sm_90a -v %t/sm90a/forward_bf16_out_tile_128x256x64_w2x4_s4_wgmma_r8.sm_90a.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=WGMMA

// WGMMA-NOT: warning
// WGMMA: Compiling entry function '{{.*}}_wgmma_r8' for 'sm_90a'
// WGMMA: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// WGMMA: Used {{(1[0-5][0-9]|16[0-8]|[0-9]{1,2})}} registers, used {{[12]}} barriers
// WGMMA-NOT: warning

// TILE: Compiling entry function '{{.*}}_tile_{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}_w{{[0-9]+}}x{{[0-9]+}}_s{{[0-9]+}}'
// TILE: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// TILE: Used {{[0-9]+}} registers, used 1 barriers, {{[0-9]+}} bytes smem
// SERIAL: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SERIAL: Used {{[0-9]+}} registers, used 0 barriers
