// gmm-gpu-vector-to-mma-sync: the 16-bit warp contractions of a gpu.launch,
// read from workgroup views, become nvgpu.ldmatrix and nvgpu.mma.sync through
// upstream's vector-to-nvgpu conversion. bf16 stays bf16 (no f16 view, read
// or fragment is left), a transposed A operand gets its registers reordered,
// f32 contractions are left alone, and what the conversion cannot take is an
// error at the launch.

// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-vector-to-mma-sync | FileCheck %s

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @bf16(
// CHECK-NOT:     {{[^b]f16}}
// CHECK:         gpu.launch
// CHECK-DAG:       %[[A:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x16xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG:       %[[B:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x8xbf16, #gpu.address_space<workgroup>>
// CHECK:           scf.for {{.+}} iter_args(%{{.+}} = %{{.+}}, %[[ACC:.+]] = %{{.+}}) -> (vector<16x8xf32>, vector<2x2xf32>) {
// CHECK:             %[[FA:.+]] = nvgpu.ldmatrix %[[A]][%{{.+}}, %{{.+}}] {numTiles = 4 : i32, transpose = false} : memref<16x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:             %[[FB:.+]] = nvgpu.ldmatrix %[[B]][%{{.+}}, %{{.+}}] {numTiles = 2 : i32, transpose = true} : memref<16x8xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// CHECK:             %[[D:.+]] = nvgpu.mma.sync(%[[FA]], %[[FB]], %[[ACC]]) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:             scf.yield %{{.+}}, %[[D]]
// CHECK-NOT:       vector.contract
// CHECK-NOT:       vector.transfer_read
// CHECK-NOT:       gmm.bf16_twin
// CHECK-NOT:       {{[^b]f16}}
// CHECK:           vector.store %{{.+}} : memref<16x8xf32>, vector<2xf32>
// CHECK:           gpu.terminator
func.func @bf16(%out: memref<16x8xf32>, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<16x8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<1024xi8, #gpu.address_space<workgroup>>) {
    %a = memref.view %smem[%c0][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c512][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x8xbf16, #gpu.address_space<workgroup>>
    %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%c = %zero) -> (vector<16x8xf32>) {
      %va = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
      %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x8xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
      %d = vector.contract {indexing_maps = [#map_a, #map_b, #map_c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %c : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
      scf.yield %d : vector<16x8xf32>
    }
    vector.transfer_write %acc, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    gpu.terminator
  }
  return
}

// -----

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>

// f16 is upstream's own case.
// CHECK-LABEL: func.func @f16(
// CHECK:         nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK:         nvgpu.ldmatrix %{{.+}} {numTiles = 2 : i32, transpose = true} : memref<16x8xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK:         nvgpu.mma.sync(%{{.+}}, %{{.+}}, %{{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT:     vector.contract
func.func @f16(%out: memref<16x8xf32>, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  %pad = arith.constant 0.0 : f16
  %zero = arith.constant dense<0.0> : vector<16x8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<1024xi8, #gpu.address_space<workgroup>>) {
    %a = memref.view %smem[%c0][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c512][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x8xf16, #gpu.address_space<workgroup>>
    %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%c = %zero) -> (vector<16x8xf32>) {
      %va = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
      %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x8xf16, #gpu.address_space<workgroup>>, vector<16x8xf16>
      %d = vector.contract {indexing_maps = [#map_a, #map_b, #map_c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %c : vector<16x16xf16>, vector<16x8xf16> into vector<16x8xf32>
      scf.yield %d : vector<16x8xf32>
    }
    vector.transfer_write %acc, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    gpu.terminator
  }
  return
}

// -----

#map_at = affine_map<(m, n, k) -> (k, m)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>

// A stored k-major ([k][m], as a mode-2 lhs is): ldmatrix.x4.trans delivers
// its four 8x8 blocks k-major, and the middle two registers are swapped into
// the m-major order mma.sync wants.
// CHECK-LABEL: func.func @transposed_a(
// CHECK:         %[[T:.+]] = nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<16x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-NEXT:    %[[FA:.+]] = vector.shuffle %[[T]], %[[T]] [0, 2, 1, 3] : vector<4x2xbf16>, vector<4x2xbf16>
// CHECK:         nvgpu.mma.sync(%[[FA]], %{{.+}}, %{{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @transposed_a(%out: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<16x8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<1024xi8, #gpu.address_space<workgroup>>) {
    %a = memref.view %smem[%c0][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c512][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x8xbf16, #gpu.address_space<workgroup>>
    %va = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
    %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x8xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
    %d = vector.contract {indexing_maps = [#map_at, #map_b, #map_c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %zero : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    gpu.terminator
  }
  return
}

// -----

// f32 contractions are not mma.sync's: left for gmm-gpu-lower-kernel-vectors.
// CHECK-LABEL: func.func @f32(
// CHECK:         vector.contract
// CHECK-NOT:     nvgpu
func.func @f32(%a: memref<4x1xf32, #gpu.address_space<workgroup>>, %b: memref<1x4xf32, #gpu.address_space<workgroup>>, %out: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<4x4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %va = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x1xf32, #gpu.address_space<workgroup>>, vector<4x1xf32>
    %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x4xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    %d = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %zero : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<4x4xf32>
    gpu.terminator
  }
  return
}

// -----

// bf16 operands read straight from global memory: ldmatrix needs workgroup
// memory, and the conversion refuses them.
func.func @global_bf16(%a: memref<16x16xbf16>, %b: memref<16x8xbf16>, %out: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %pad = arith.constant 0.0 : bf16
  %zero = arith.constant dense<0.0> : vector<16x8xf32>
  // expected-error @+1 {{vector-to-nvgpu conversion of the warp contractions failed}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{failed to convert op during vector-to-nvgpu conversion}}
    %va = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xbf16>, vector<16x16xbf16>
    %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x8xbf16>, vector<16x8xbf16>
    %d = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %zero : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    gpu.terminator
  }
  return
}
