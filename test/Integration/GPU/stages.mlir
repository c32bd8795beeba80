// The software pipeline of the tile kernel with 2, 3 and 4 stages: the
// op's #gmm.kernel_config sets them; the workgroup buffer holds that many
// k steps of both operand tiles, the prologue fills all but one, and each
// iteration waits until at most stages - 1 copy groups are in flight. Each
// function runs on the (simulated) GPU against the C++ reference, with k
// long enough for the pipeline to wrap around its stages several times and
// a k remainder (k = 200 with steps of 32 is 7 steps), in both modes.

// RUN: gmm-opt %s --gmm-check-sizes --gmm-normalize --gmm-configure="target=gpu chip=sm_90" --gmm-tile --gmm-materialize-metadata --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse \
// RUN:   --gmm-map-to-gpu | FileCheck %s --check-prefix=MAP
// MAP-LABEL: func.func @three_stages
// Rows of 32 and 64 bf16 are stored unpadded and swizzled (the chunk index
// of every access XORed with row bits).
// MAP:         memref.view {{.*}} to memref<3x64x32xbf16, #gpu.address_space<workgroup>>
// MAP:         memref.view {{.*}} to memref<3x32x64xbf16, #gpu.address_space<workgroup>>
// Two prologue groups, then one group per step and a wait for all but two.
// MAP-COUNT-2: nvgpu.device_async_create_group
// MAP:         scf.for
// MAP:           nvgpu.device_async_create_group
// MAP:           nvgpu.device_async_wait %{{.+}} {numGroups = 2 : i32}
// MAP:           arith.xori
// MAP:           nvgpu.ldmatrix
// MAP-LABEL: func.func @four_stages
// MAP:         memref.view {{.*}} to memref<4x64x32xbf16, #gpu.address_space<workgroup>>
// MAP-COUNT-3: nvgpu.device_async_create_group
// MAP:         scf.for
// MAP:           nvgpu.device_async_wait %{{.+}} {numGroups = 3 : i32}
// MAP-LABEL: func.func @four_stages_mode2
// MAP:         nvgpu.device_async_wait %{{.+}} {numGroups = 3 : i32}

// The deeper pipelines assemble for sm_80 and sm_90 without spills (the
// stages add shared memory, not registers).
// RUN: rm -rf %t && gmm-opt %s --gmm-to-ptx="chip=sm_80 ptx-dir=%t" -o /dev/null
// RUN: gmm-opt %s --gmm-to-ptx="chip=sm_90 ptx-dir=%t" -o /dev/null
// RUN: %if ptxas %{ %ptxas -arch=sm_80 -v %t/three_stages_tile_64x64x32_w2x4_s3.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS3 %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t/four_stages_tile_64x64x32_w2x4_s4.sm_90.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS4 %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 -v %t/four_stages_mode2_tile_64x64x32_w2x4_s4.sm_80.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS4-MODE2 %}
// PTXAS3: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS3: Used {{[0-9]+}} registers, used 1 barriers, 24576 bytes smem
// PTXAS4: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS4: Used {{[0-9]+}} registers, used 1 barriers, 32768 bytes smem
// Mode 2 stages both operands k-major: 4 x (32 x 64 + 32 x 64) bf16.
// PTXAS4-MODE2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS4-MODE2: Used {{[0-9]+}} registers, used 1 barriers, 32768 bytes smem

// REQUIRES: cuda-device
// RUN: gmm-runner %s -e two_stages %cuda_target --seed=1 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %s -e three_stages %cuda_target --seed=2 --group-sizes=uniform --check | FileCheck %s
// RUN: gmm-runner %s -e four_stages %cuda_target --seed=3 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %s -e four_stages_mode2 %cuda_target --seed=4 --group-sizes=skewed --check | FileCheck %s
// RUN: gmm-runner %s -e dynamic_shared %cuda_target --seed=5 --group-sizes=skewed --check | FileCheck %s
// CHECK: check: PASS

// Above 48 KiB the buffer is dynamic shared memory: four stages of the
// default 128 x 128 x 32 bf16 tile are 4 x (128 x 32 + 32 x 128) x 2 =
// 65536 bytes (three, 49152 bytes, still fit the static 48 KiB), passed at
// launch (the runtime opts the kernel in) and read through
// gpu.dynamic_shared_memory.
// RUN: gmm-opt %s --gmm-check-sizes --gmm-normalize --gmm-configure="target=gpu chip=sm_90" --gmm-tile --gmm-materialize-metadata --canonicalize --cse \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --cse \
// RUN:   --gmm-map-to-gpu | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC-LABEL: func.func @dynamic_shared
// DYNAMIC:         gpu.launch blocks({{.*}}) threads({{.*}}) in ({{.*}}) dynamic_shared_memory_size %c65536_i32 function(@dynamic_shared_tile_128x128x32_w2x4_s4) {
// DYNAMIC-NOT:     workgroup(
// DYNAMIC:           %[[SMEM:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// DYNAMIC:           memref.view %[[SMEM]][%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x32xbf16, #gpu.address_space<workgroup>>

func.func @two_stages(%x: tensor<150x200xbf16>, %w: tensor<3x200x64xbf16>, %gs: tensor<3xi32>) -> tensor<150x64xf32> {
  %0 = gmm.ragged_dot %x, %w, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], stages = 2>} : tensor<150x200xbf16>, tensor<3x200x64xbf16>, tensor<3xi32> -> tensor<150x64xf32>
  return %0 : tensor<150x64xf32>
}

func.func @three_stages(%x: tensor<150x200xbf16>, %w: tensor<3x200x64xbf16>, %gs: tensor<3xi32>) -> tensor<150x64xf32> {
  %0 = gmm.ragged_dot %x, %w, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], stages = 3>} : tensor<150x200xbf16>, tensor<3x200x64xbf16>, tensor<3xi32> -> tensor<150x64xf32>
  return %0 : tensor<150x64xf32>
}

func.func @four_stages(%x: tensor<150x200xbf16>, %w: tensor<3x200x64xbf16>, %gs: tensor<3xi32>) -> tensor<150x64xf32> {
  %0 = gmm.ragged_dot %x, %w, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], stages = 4>} : tensor<150x200xbf16>, tensor<3x200x64xbf16>, tensor<3xi32> -> tensor<150x64xf32>
  return %0 : tensor<150x64xf32>
}

// Mode 2 (the weight gradient): each group's own range of the ragged
// contraction, so the pipeline starts and stops inside a group.
func.func @four_stages_mode2(%x: tensor<150x64xbf16>, %dy: tensor<150x64xbf16>, %gs: tensor<3xi32>) -> tensor<3x64x64xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 32], stages = 4>} : tensor<150x64xbf16>, tensor<150x64xbf16>, tensor<3xi32> -> tensor<3x64x64xf32>
  return %0 : tensor<3x64x64xf32>
}

func.func @dynamic_shared(%x: tensor<300x200xbf16>, %w: tensor<3x200x160xbf16>, %gs: tensor<3xi32>) -> tensor<300x160xf32> {
  %0 = gmm.ragged_dot %x, %w, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<stages = 4>} : tensor<300x200xbf16>, tensor<3x200x160xbf16>, tensor<3xi32> -> tensor<300x160xf32>
  return %0 : tensor<300x160xf32>
}
