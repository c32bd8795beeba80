// gmm-to-ptx for sm_90a: the 16-bit mode-1 ragged dots get the Hopper
// kernel (TMA loads completing on mbarriers, wgmma from shared-memory
// descriptors, 384 threads), whose tensor maps the host builds through
// mgpuTensorMapEncodeTiledMemref; the weight gradient keeps the mma.sync
// kernel. No kernel uses local memory, and with ptxas none spills.

// RUN: rm -rf %t && gmm-opt %s -split-input-file --gmm-to-ptx="chip=sm_90a ptx-dir=%t" -o %t.mlir
// RUN: cat %t/forward_bf16_tile_*.ptx | FileCheck %s --check-prefix=BF16
// RUN: cat %t/forward_bf16_tile_*.ptx | FileCheck %s --check-prefix=SYNC
// RUN: cat %t/forward_f16_tile_*.ptx | FileCheck %s --check-prefix=F16
// RUN: cat %t/weight_grad_tile_*.ptx | FileCheck %s --check-prefix=GRAD
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=HOST

// BF16: .target sm_90a
// BF16: .entry forward_bf16_tile_128x256x64_w2x4_s4_wgmma_r8(
// BF16: .maxntid 384, 1, 1
// BF16-NOT: .local
// BF16: mbarrier.init.shared.b64
// BF16: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// BF16: mbarrier.try_wait.parity.shared.b64
// The producer arms a stage's full barrier with its bytes, a consumer
// warpgroup releases a stage with one arrival on its empty barrier.
// SYNC-DAG: mbarrier.arrive.expect_tx.shared.b64 {{.+}}, [{{.+}}], {{.+}};
// SYNC-DAG: mbarrier.arrive.shared.b64 {{.+}}, [{{.+}}];
// SYNC-DAG: prefetch.tensormap
// SYNC-DAG: wgmma.fence.sync.aligned;
// Four k16 steps of the 64-deep stage; the rhs (n contiguous) transposed.
// BF16-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.+}}, p, 1, 1, 0, 1;
// BF16: wgmma.commit_group.sync.aligned
// BF16: wgmma.wait_group.sync.aligned 1;
// BF16: wgmma.wait_group.sync.aligned 0;
// The epilogue: pairs of f32 results stored from the registers, with no
// barrier between the consumers.
// BF16-NOT: bar.sync
// BF16: st.global.v2.b32
// BF16-NOT: .local
func.func @forward_bf16(%x: tensor<512x256xbf16>, %w: tensor<4x256x512xbf16>, %s: tensor<4xi32>) -> tensor<512x512xf32> {
  %0 = gmm.ragged_dot %x, %w, %s dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x256xbf16>, tensor<4x256x512xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

// At most 128 columns: m64n128k16, seven stages.
// F16: .entry forward_f16_tile_128x128x64_w2x4_s7_wgmma_r8(
// F16-NOT: .local
// F16-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.+}}, p, 1, 1, 0, 1;
// A 16-bit result goes through shared memory: the consumers' named
// barrier, then 16-byte chunks.
// F16: bar.sync 1, 256;
// F16: st.global.v4.b32
// F16-NOT: .local
func.func @forward_f16(%x: tensor<300x136xf16>, %w: tensor<3x136x120xf16>, %s: tensor<3xi32>) -> tensor<300x120xf16> {
  %0 = gmm.ragged_dot %x, %w, %s dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<300x136xf16>, tensor<3x136x120xf16>, tensor<3xi32> -> tensor<300x120xf16>
  return %0 : tensor<300x120xf16>
}

// -----

// bf16 results of 256-column tiles: through shared memory, the f32 rows
// converted in 16-byte chunks (ptxas.mlir: no spills).
// RUN: cat %t/forward_bf16_out_tile_*.ptx | FileCheck %s --check-prefix=BF16OUT
// BF16OUT: .entry forward_bf16_out_tile_128x256x64_w2x4_s4_wgmma_r8(
// BF16OUT-NOT: .local
// BF16OUT: bar.sync 1, 256;
// BF16OUT: st.global.v4.b32
// BF16OUT-NOT: .local
func.func @forward_bf16_out(%x: tensor<512x256xbf16>, %w: tensor<4x256x512xbf16>, %s: tensor<4xi32>) -> tensor<512x512xbf16> {
  %0 = gmm.ragged_dot %x, %w, %s dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x256xbf16>, tensor<4x256x512xbf16>, tensor<4xi32> -> tensor<512x512xbf16>
  return %0 : tensor<512x512xbf16>
}

// -----

// GRAD: .entry weight_grad_tile_128x256x32_w2x4_s2(
// GRAD-NOT: wgmma
// GRAD: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @weight_grad(%x: tensor<512x64xbf16>, %dy: tensor<512x256xbf16>, %s: tensor<4xi32>) -> tensor<4x64x256xf32> {
  %0 = gmm.ragged_dot %x, %dy, %s dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<512x64xbf16>, tensor<512x256xbf16>, tensor<4xi32> -> tensor<4x64x256xf32>
  return %0 : tensor<4x64x256xf32>
}

// The host: two tensor maps per Hopper kernel, and their launches ask for
// the stages' dynamic shared memory (4 x 48 KiB, 7 x 32 KiB, + 1152).
// HOST-LABEL: llvm.func @forward_bf16(
// HOST-COUNT-2: llvm.call @mgpuTensorMapEncodeTiledMemref(
// HOST: gpu.launch_func {{.+}}@forward_bf16_tile_128x256x64_w2x4_s4_wgmma_r8::@forward_bf16_tile_128x256x64_w2x4_s4_wgmma_r8 blocks in ({{.+}}) threads in ({{.+}}) : i64 dynamic_shared_memory_size %{{.+}}
// HOST-LABEL: llvm.func @forward_f16(
// HOST-COUNT-2: llvm.call @mgpuTensorMapEncodeTiledMemref(
// HOST-LABEL: llvm.func @weight_grad(
// HOST-NOT: mgpuTensorMapEncodeTiledMemref
