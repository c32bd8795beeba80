// A canary for an MLIR 22 behaviour that gmm-gpu-wgmma-kernel relies on
// (docs/Lowering.md, the Hopper kernel's upstream workarounds):
// nvgpu.warpgroup.mma.store places a thread's fragments at row
// 16 x (thread id / 32) + lane / 4 of its destination, counting warps from
// the block's first thread, not the warpgroup's. The Hopper kernel's
// second consumer warpgroup (threads 128 to 255) therefore stores through
// the tile's first 64 rows into rows 64 to 127. If this test fails,
// upstream now counts warps within the warpgroup: give each consumer its
// own 64 rows in WgmmaKernel.cpp and update this test.
// RUN: gmm-opt %s --convert-nvgpu-to-nvvm | FileCheck %s

// CHECK-LABEL: func.func @store(
// CHECK:         %[[C4:.+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         %[[C16:.+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK:         %[[C32:.+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK:         %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[LANE:.+]] = llvm.urem %[[TID]], %[[C32]] : i32
// CHECK:         %[[WARP:.+]] = llvm.udiv %[[TID]], %[[C32]] : i32
// CHECK:         %[[LANEROW:.+]] = llvm.udiv %[[LANE]], %[[C4]] : i32
// CHECK-NOT:     llvm.urem %[[WARP]]
// CHECK:         %[[WARPROW:.+]] = llvm.mul %[[WARP]], %[[C16]] : i32
// CHECK:         llvm.add %[[LANEROW]], %[[WARPROW]] : i32
func.func @store(%acc: !nvgpu.warpgroup.accumulator<fragmented = vector<64x16xf32>>, %dst: memref<64x16xf32, 3>) {
  nvgpu.warpgroup.mma.store %acc, %dst : !nvgpu.warpgroup.accumulator<fragmented = vector<64x16xf32>> to memref<64x16xf32, 3>
  return
}
