// gmm-to-ptx on one bf16, one f16 and one f32 ragged dot: each function's
// tile kernel is PTX for the chip with tensor-core mma.sync (16-bit inputs)
// or FMAs (f32), ldmatrix and cp.async into shared memory, and no local
// memory (the CHECK-NOTs run over all kernels of the function).

// RUN: rm -rf %t && gmm-opt %s -split-input-file --gmm-to-ptx="chip=sm_80 ptx-dir=%t/sm80" -o %t.sm80.mlir
// RUN: cat %t/sm80/bf16_*.ptx | FileCheck %s --check-prefixes=BF16,SM80
// RUN: cat %t/sm80/f16_*.ptx | FileCheck %s --check-prefixes=F16,SM80
// RUN: cat %t/sm80/f32_*.ptx | FileCheck %s --check-prefixes=F32,SM80
// RUN: gmm-opt %s -split-input-file --gmm-to-ptx="chip=sm_90 ptx-dir=%t/sm90" -o %t.sm90.mlir
// RUN: cat %t/sm90/bf16_*.ptx | FileCheck %s --check-prefixes=BF16,SM90
// RUN: cat %t/sm90/f16_*.ptx | FileCheck %s --check-prefixes=F16,SM90
// RUN: cat %t/sm90/f32_*.ptx | FileCheck %s --check-prefixes=F32,SM90
// The host module keeps the PTX in gpu.binary ops.
// RUN: FileCheck %s --input-file=%t.sm80.mlir --check-prefix=HOST

// SM80: .target sm_80
// SM90: .target sm_90
// All device work of the call is on one stream (gmm-gpu-async-host), and the
// host waits for it once, before returning.
// HOST-LABEL: llvm.func @bf16(
// HOST: %[[STREAM:.+]] = llvm.call @mgpuStreamCreate()
// HOST-NOT: @mgpuStream
// HOST: llvm.call @mgpuMemAlloc(%{{.+}}, %[[STREAM]],
// No memset: the tile kernel zeroes the rows no visit covers.
// HOST-NOT: @mgpuMemset
// HOST-NOT: @mgpuStream
// Two launches: the group metadata, a thread per group, then the tile kernel.
// HOST: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @bf16_metadata::@bf16_metadata blocks in
// HOST-NOT: @mgpuStream
// HOST: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @bf16_tile_128x128x32_w2x4_s2::@bf16_tile_128x128x32_w2x4_s2 blocks in ({{.*}}) threads in ({{.*}}) : i64 args(
// HOST-NOT: gpu.launch_func
// HOST-NOT: @mgpuStream
// HOST: llvm.call @mgpuMemFree(%{{.+}}, %[[STREAM]])
// HOST-NOT: @mgpuStreamCreate
// HOST: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// HOST-NEXT: llvm.call @mgpuStreamDestroy(%[[STREAM]])
// HOST-NEXT: llvm.return
// HOST: gpu.binary @bf16_metadata  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80">, properties = {{.*}}, assembly = "
// With caller-stream (what gmm-runner and gmm-difftest compile), the same
// calls all take the caller's stream, the function's last argument, and
// nothing creates, waits for or destroys a stream.
// RUN: gmm-opt %s -split-input-file --gmm-to-ptx="chip=sm_80 caller-stream=1" | FileCheck %s --check-prefix=CALLER
// CALLER-LABEL: llvm.func @bf16(
// CALLER-SAME:    %[[STREAM:[a-z0-9]+]]: !llvm.ptr {gmm.stream})
// CALLER-NOT:     @mgpuStream
// CALLER:         llvm.call @mgpuMemAlloc(%{{.+}}, %[[STREAM]],
// CALLER-NOT:     @mgpuStream
// CALLER:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @bf16_metadata::@bf16_metadata blocks in
// CALLER-NOT:     @mgpuStream
// CALLER:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @bf16_tile_128x128x32_w2x4_s2::@bf16_tile_128x128x32_w2x4_s2 blocks in
// CALLER-NOT:     @mgpuStream
// CALLER:         llvm.call @mgpuMemFree(%{{.+}}, %[[STREAM]])
// CALLER-NEXT:    llvm.return
// CALLER-NOT:   llvm.func @mgpuStream
// With workspace-argument, @bf16 takes the caller's workspace and
// @bf16_workspace_bytes says how large it must be: the five metadata
// buffers of 4 groups and at most 5 visits, each 256-byte aligned (static
// shapes: a constant).
// RUN: gmm-opt %s -split-input-file --gmm-to-ptx="chip=sm_80 workspace-argument=1" | FileCheck %s --check-prefix=WS
// WS-LABEL: llvm.func @bf16_workspace_bytes(
// WS-SAME:    attributes {gmm.workspace_size_of = @bf16}
// WS-NEXT:    %[[BYTES:.+]] = llvm.mlir.constant(1280 : index) : i64
// WS-NEXT:    llvm.return %[[BYTES]] : i64

// The tile kernel: a 33 KiB shared buffer, 16-byte asynchronous copies with
// zero fill; the prologue commits step 0's copies without waiting; in the
// loop (laid out by LLVM with the math first), warp-level ldmatrix and
// m16n8k16 bf16 mma.sync with f32 accumulators, then the next step's
// copies, a commit, a wait for all but the newest group, a barrier; the
// epilogue drains every group.
// BF16-NOT: .local
// BF16: .shared .align {{[0-9]+}} .b8 {{.*}}[33792]
// BF16: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{%r[0-9]+}};
// BF16: cp.async.commit_group;
// BF16-NOT: cp.async.wait_group
// BF16: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// BF16: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{%r[0-9]+}};
// BF16: cp.async.commit_group;
// BF16-NEXT: cp.async.wait_group 1;
// BF16-NEXT: bar.sync 0;
// BF16: cp.async.wait_group 0;
// BF16-NOT: .local
func.func @bf16(%lhs: tensor<256x64xbf16>, %rhs: tensor<4x64x96xbf16>, %gs: tensor<4xi32>) -> tensor<256x96xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<256x64xbf16>, tensor<4x64x96xbf16>, tensor<4xi32> -> tensor<256x96xbf16>
  return %0 : tensor<256x96xbf16>
}

// -----

// Transposed weights [g, n, k]: both operands are staged k-contiguous and
// read without transposition; f16 multiplicands.
// F16-NOT: .local
// F16: cp.async.cg.shared.global
// F16: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// F16-NOT: .trans
// F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16-NOT: .local
func.func @f16(%lhs: tensor<128x64xf16>, %rhs: tensor<2x64x64xf16>, %gs: tensor<2xi32>, %off: tensor<i32>, %acc: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<i32>) init(%acc : tensor<128x64xf32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<128x64xf16>, tensor<2x64x64xf16>, tensor<2xi32> -> tensor<128x64xf32>
  return %0 : tensor<128x64xf32>
}

// -----

// f32 (mode 2, the weight gradient): FMAs on 4-element chunks, no tensor
// cores.
// F32-NOT: .local
// F32-NOT: mma.sync
// F32: cp.async.cg.shared.global
// F32: fma.rn.f32
// F32-NOT: mma.sync
// F32-NOT: .local
func.func @f32(%x: tensor<64x32xf32>, %dy: tensor<64x48xf32>, %gs: tensor<4xi32>) -> tensor<4x32x48xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<64x32xf32>, tensor<64x48xf32>, tensor<4xi32> -> tensor<4x32x48xf32>
  return %0 : tensor<4x32x48xf32>
}
