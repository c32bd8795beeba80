// A canary for what gmm-gpu-wgmma-kernel's epilogue relies on in MLIR 22
// (docs/Lowering.md, the Hopper kernel): convert-nvgpu-to-nvvm lowers a
// 64 x n f32 !nvgpu.warpgroup.accumulator to a struct of one struct of
// n / 2 f32 (the epilogue casts the accumulator to that type and reads its
// members), and member 4 i + 2 h + e is the fragment at row lane / 4 + 8 h,
// column 8 i + 2 (lane % 4) + e of the thread's warp (the ISA's wgmma D
// fragment, in upstream's order; nvgpu.warpgroup.mma.store shows it). If
// this test fails, upstream changed the type or the order: change
// storeAccumulators in WgmmaKernel.cpp with it.
// RUN: gmm-opt %s --convert-nvgpu-to-nvvm | FileCheck %s

// CHECK-LABEL: func.func @store(
// CHECK:         %[[S:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !nvgpu.warpgroup.accumulator<fragmented = vector<64x16xf32>> to !llvm.struct<(struct<(f32, f32, f32, f32, f32, f32, f32, f32)>)>
// CHECK:         %[[V:.+]] = llvm.extractvalue %[[S]][0]
// CHECK:         %[[C2:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK:         %[[C4:.+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         %[[C8:.+]] = llvm.mlir.constant(8 : i32) : i32
// CHECK:         %[[C16:.+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK:         %[[C32:.+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK:         %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[LANE:.+]] = llvm.urem %[[TID]], %[[C32]] : i32
// CHECK:         %[[WARP:.+]] = llvm.udiv %[[TID]], %[[C32]] : i32
// CHECK:         %[[LANEROW:.+]] = llvm.udiv %[[LANE]], %[[C4]] : i32
// CHECK:         %[[Q:.+]] = llvm.urem %[[LANE]], %[[C4]] : i32
// CHECK:         %[[LANECOL:.+]] = llvm.mul %[[Q]], %[[C2]] : i32
// CHECK:         %[[WARPROW:.+]] = llvm.mul %[[WARP]], %[[C16]] : i32
// CHECK:         %[[ROW:.+]] = llvm.add %[[LANEROW]], %[[WARPROW]] : i32
// Members 0 and 1: row, columns 2 (lane % 4) and + 1.
// CHECK:         %[[R0:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK:         %[[M0:.+]] = llvm.extractvalue %[[V]][0]
// CHECK:         %[[M1:.+]] = llvm.extractvalue %[[V]][1]
// CHECK:         memref.store %[[M0]], %{{.+}}[%[[R0]], %{{.+}}]
// CHECK:         memref.store %[[M1]], %{{.+}}[%[[R0]], %{{.+}}]
// Members 4 and 5: the same row, eight columns further.
// CHECK:         llvm.mul %{{.+}}, %[[C8]] : i32
// CHECK:         %[[M4:.+]] = llvm.extractvalue %[[V]][4]
// CHECK:         %[[M5:.+]] = llvm.extractvalue %[[V]][5]
// Members 2 and 3: eight rows further.
// CHECK:         %[[ROW8:.+]] = llvm.add %[[ROW]], %{{.+}} : i32
// CHECK:         %[[M2:.+]] = llvm.extractvalue %[[V]][2]
// CHECK:         %[[M3:.+]] = llvm.extractvalue %[[V]][3]
// CHECK:         %[[M6:.+]] = llvm.extractvalue %[[V]][6]
// CHECK:         %[[M7:.+]] = llvm.extractvalue %[[V]][7]
func.func @store(%acc: !nvgpu.warpgroup.accumulator<fragmented = vector<64x16xf32>>, %dst: memref<64x16xf32, 3>) {
  nvgpu.warpgroup.mma.store %acc, %dst : !nvgpu.warpgroup.accumulator<fragmented = vector<64x16xf32>> to memref<64x16xf32, 3>
  return
}
