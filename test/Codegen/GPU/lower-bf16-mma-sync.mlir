// gmm-gpu-lower-bf16-mma-sync fills MLIR 22's gap in convert-nvgpu-to-nvvm,
// which cannot deduce the PTX type of bf16 mma operands: a bf16
// nvgpu.mma.sync becomes nvvm.mma.sync on 32-bit registers, typed bf16;
// f16 mma.sync is left to convert-nvgpu-to-nvvm.

// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-lower-bf16-mma-sync | FileCheck %s
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-lower-bf16-mma-sync --convert-nvgpu-to-nvvm | FileCheck %s --check-prefix=NVVM

// Each row of a fragment (two bf16) is one i32 register; each accumulator
// element one f32; the four results are gathered back into the fragment
// type.
// CHECK-LABEL: func.func @m16n8k16
// CHECK-SAME:    (%[[A:.+]]: vector<4x2xbf16>, %[[B:.+]]: vector<2x2xbf16>, %[[C:.+]]: vector<2x2xf32>)
// CHECK:         %[[A0:.+]] = vector.extract %[[A]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK:         %[[A0C:.+]] = vector.bitcast %[[A0]] : vector<2xbf16> to vector<1xi32>
// CHECK:         %[[A0R:.+]] = vector.extract %[[A0C]][0] : i32 from vector<1xi32>
// CHECK:         %[[A3:.+]] = vector.extract %[[A]][3] : vector<2xbf16> from vector<4x2xbf16>
// CHECK:         %[[A3C:.+]] = vector.bitcast %[[A3]]
// CHECK:         %[[A3R:.+]] = vector.extract %[[A3C]][0] : i32 from vector<1xi32>
// CHECK:         %[[B0:.+]] = vector.extract %[[B]][0] : vector<2xbf16> from vector<2x2xbf16>
// CHECK:         %[[B0C:.+]] = vector.bitcast %[[B0]]
// CHECK:         %[[B0R:.+]] = vector.extract %[[B0C]][0] : i32 from vector<1xi32>
// CHECK:         %[[B1:.+]] = vector.extract %[[B]][1] : vector<2xbf16> from vector<2x2xbf16>
// CHECK:         %[[B1C:.+]] = vector.bitcast %[[B1]]
// CHECK:         %[[B1R:.+]] = vector.extract %[[B1C]][0] : i32 from vector<1xi32>
// CHECK:         %[[C00:.+]] = vector.extract %[[C]][0, 0] : f32 from vector<2x2xf32>
// CHECK:         %[[C11:.+]] = vector.extract %[[C]][1, 1] : f32 from vector<2x2xf32>
// CHECK:         %[[D:.+]] = nvvm.mma.sync A[%[[A0R]], %{{.+}}, %{{.+}}, %[[A3R]]] B[%[[B0R]], %[[B1R]]] C[%[[C00]], %{{.+}}, %{{.+}}, %[[C11]]]
// CHECK-SAME:      multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME:      (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         %[[D0:.+]] = llvm.extractvalue %[[D]][0]
// CHECK:         %[[D3:.+]] = llvm.extractvalue %[[D]][3]
// CHECK:         %[[R:.+]] = vector.from_elements %[[D0]], %{{.+}}, %{{.+}}, %[[D3]] : vector<2x2xf32>
// CHECK:         return %[[R]] : vector<2x2xf32>
// NVVM-LABEL: func.func @m16n8k16
// NVVM-NOT:      nvgpu.mma.sync
// NVVM:          nvvm.mma.sync {{.+}}multiplicandAPtxType = #nvvm.mma_type<bf16>
func.func @m16n8k16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

// The k = 8 shape: two A registers, one B register.
// CHECK-LABEL: func.func @m16n8k8
// CHECK:         nvvm.mma.sync A[%{{.+}}, %{{.+}}] B[%{{.+}}] C[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}]
// CHECK-SAME:      shape = #nvvm.shape<m = 16, n = 8, k = 8>
// CHECK-NOT:     nvgpu.mma.sync
func.func @m16n8k8(%a: vector<2x2xbf16>, %b: vector<1x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xbf16>, vector<1x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

// f16 is convert-nvgpu-to-nvvm's: left as it is here.
// CHECK-LABEL: func.func @f16
// CHECK:         nvgpu.mma.sync(%{{.+}}, %{{.+}}, %{{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT:     nvvm.mma.sync
// NVVM-LABEL: func.func @f16
// NVVM:          nvvm.mma.sync {{.+}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
func.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

// Inside a kernel, as gmm-to-ptx runs it (on each gpu.module).
// CHECK-LABEL: gpu.func @kernel
// CHECK:         nvvm.mma.sync
// CHECK-NOT:     nvgpu.mma.sync
gpu.module @m {
  gpu.func @kernel(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>, %out: memref<2x2xf32>) kernel {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %c0 = arith.constant 0 : index
    vector.store %d, %out[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
    gpu.return
  }
}

// -----

func.func @f16_accumulator(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf16>) -> vector<2x2xf16> {
  // expected-error @+1 {{'nvgpu.mma.sync' op with bf16 operands needs an f32 accumulator}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf16>) -> vector<2x2xf16>
  return %d : vector<2x2xf16>
}
