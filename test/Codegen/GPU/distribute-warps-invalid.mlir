// What gmm-gpu-distribute-warps refuses, each an error before anything is
// rewritten: IR other than what gmm-gpu-promote-operands and
// gmm-gpu-stage-epilogue leave. Inputs: the bf16 case of
// distribute-warps.mlir, changed.
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-distribute-warps

// A CPU configuration on the launch.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @cpu_config(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-distribute-warps expects the tile kernel to carry its GPU 'gmm.kernel_config' (gmm-gpu-map-blocks puts it there)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    vector.transfer_write %block, %c[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [32, 32, 16], register_block = [4, 16]>}
  return
}

// -----

// No staged loop (gmm-gpu-promote-operands has not run).
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @no_staged_loop(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-distribute-warps expects one staged contraction loop carrying the 'vector<32x32xf32>' block (gmm-gpu-promote-operands builds it)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    }
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    vector.transfer_write %block, %c[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The block does not start from zero.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @nonzero_start(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<1.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    // expected-error @+1 {{'scf.for' op gmm-gpu-distribute-warps expects the staged loop's block to start from zero}}
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    vector.transfer_write %block, %c[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The loop doubles what it contracts.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @not_a_contraction(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    // expected-error @+1 {{'scf.for' op gmm-gpu-distribute-warps expects the staged loop to accumulate one (m, k) x (k, n) -> (m, n) vector.contract of the stages}}
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      %twice = arith.addf %r, %r : vector<32x32xf32>
      scf.yield %twice : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    vector.transfer_write %block, %c[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The rhs read from global memory, not from its stage.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @global_operand(%steps: index, %out: memref<64x32xf32>, %w: memref<16x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %w[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x32xbf16>, vector<16x32xbf16>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-distribute-warps expects its operands to be whole stages read from the workgroup views of one stage}}
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    vector.transfer_write %block, %c[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The operands read from different stages.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @two_stages_read(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%j, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      // expected-error @+1 {{'vector.contract' op gmm-gpu-distribute-warps expects its operands to be whole stages read from the workgroup views of one stage}}
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    vector.transfer_write %block, %c[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// A configuration whose warps do not split the tile.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @warps_do_not_split(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 512 : index
  // expected-error @+1 {{'gpu.launch' op kernel configuration #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [4, 4], stages = 2>: the tile does not split over 4x4 warps of 16x8x16 mma.sync steps ('bf16')}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    vector.transfer_write %block, %c[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [4, 4], stages = 2>}
  return
}

// -----

// The block written to global memory, not staged by the epilogue.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @block_written_out(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'vector.transfer_write' op gmm-gpu-distribute-warps expects the staged block to be used by the epilogue's writes of whole warp rows into shared memory (gmm-gpu-stage-epilogue)}}
    vector.transfer_write %block, %out[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<64x32xf32>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}

// -----

// The block is not staged at all.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @not_staged(%steps: index, %out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<4608xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %a = memref.view %smem[%c0][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] {gmm.swizzle} : memref<4608xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %c2 = arith.constant 2 : index
    %pad = arith.constant 0.0 : bf16
    // expected-error @+1 {{'scf.for' op gmm-gpu-distribute-warps expects its block to be staged by the epilogue one warp row at a time, each once (gmm-gpu-stage-epilogue)}}
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      %s = arith.remui %j, %c2 : index
      gpu.barrier
      %x = vector.transfer_read %a[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<32x16xbf16>
      %y = vector.transfer_read %b[%s, %c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16x32xbf16, #gpu.address_space<workgroup>>, vector<16x32xbf16>
      %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<32x16xbf16>, vector<16x32xbf16> into vector<32x32xf32>
      gpu.barrier
      scf.yield %r : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    gpu.barrier
    %c = memref.view %smem[%c0][] : memref<4608xi8, #gpu.address_space<workgroup>> to memref<32x36xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %zf = arith.constant 0.0 : f32
    %chunk = vector.transfer_read %c[%tx, %c0], %zf {in_bounds = [true, true]} : memref<32x36xf32, #gpu.address_space<workgroup>>, vector<1x4xf32>
    vector.transfer_write %chunk, %out[%tx, %c0] : vector<1x4xf32>, memref<64x32xf32>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [1, 2], stages = 2>}
  return
}
