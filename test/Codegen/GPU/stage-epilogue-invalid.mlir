// What gmm-gpu-stage-epilogue refuses, each an error before anything is
// rewritten: IR other than what gmm-gpu-promote-operands leaves, and block
// epilogues it cannot replay per chunk. Inputs: the first case of
// stage-epilogue.mlir, changed.
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-stage-epilogue

// A CPU configuration on the launch.
func.func @cpu_config(%steps: index, %rows: index, %out: memref<64x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-stage-epilogue expects the tile kernel to carry its GPU 'gmm.kernel_config' (gmm-gpu-map-blocks puts it there)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %first = arith.muli %bx, %c1 : index
    %visit = memref.subview %out[%first, 0] [%rows, 32] [1, 1] : memref<64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %pad = arith.constant 0.0 : bf16
    %old = vector.transfer_read %visit[%c0, %c0], %pad {in_bounds = [false, true]} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<32x32xbf16>
    %oldf = arith.extf %old : vector<32x32xbf16> to vector<32x32xf32>
    %sum = arith.addf %block, %oldf : vector<32x32xf32>
    %res = arith.truncf %sum : vector<32x32xf32> to vector<32x32xbf16>
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [32, 32, 16], register_block = [4, 16]>}
  return
}

// -----

// No staged loop (gmm-gpu-promote-operands has not run).
func.func @no_staged_loop(%steps: index, %rows: index, %out: memref<64x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-stage-epilogue expects one staged contraction loop carrying the 'vector<32x32xf32>' block (gmm-gpu-promote-operands builds it)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    }
    %first = arith.muli %bx, %c1 : index
    %visit = memref.subview %out[%first, 0] [%rows, 32] [1, 1] : memref<64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %pad = arith.constant 0.0 : bf16
    %old = vector.transfer_read %visit[%c0, %c0], %pad {in_bounds = [false, true]} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<32x32xbf16>
    %oldf = arith.extf %old : vector<32x32xbf16> to vector<32x32xf32>
    %sum = arith.addf %block, %oldf : vector<32x32xf32>
    %res = arith.truncf %sum : vector<32x32xf32> to vector<32x32xbf16>
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
  return
}

// -----

// Warp rows that do not split the tile (32 rows over 3 warp rows).
func.func @ragged_warp_rows(%steps: index, %rows: index, %out: memref<64x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-stage-epilogue expects the tile to split into warp rows and 4-element chunks (#gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [3, 1], stages = 2>)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %first = arith.muli %bx, %c1 : index
    %visit = memref.subview %out[%first, 0] [%rows, 32] [1, 1] : memref<64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %pad = arith.constant 0.0 : bf16
    %old = vector.transfer_read %visit[%c0, %c0], %pad {in_bounds = [false, true]} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<32x32xbf16>
    %oldf = arith.extf %old : vector<32x32xbf16> to vector<32x32xf32>
    %sum = arith.addf %block, %oldf : vector<32x32xf32>
    %res = arith.truncf %sum : vector<32x32xf32> to vector<32x32xbf16>
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [3, 1], stages = 2>}
  return
}

// -----

// A workgroup buffer too small for a warp row of 16 x (32 + 4) f32.
func.func @small_buffer(%steps: index, %rows: index, %out: memref<64x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-stage-epilogue expects a workgroup buffer of at least 2304 bytes for the epilogue's staging (gmm-gpu-promote-operands sizes it)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<2048xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %first = arith.muli %bx, %c1 : index
    %visit = memref.subview %out[%first, 0] [%rows, 32] [1, 1] : memref<64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %pad = arith.constant 0.0 : bf16
    %old = vector.transfer_read %visit[%c0, %c0], %pad {in_bounds = [false, true]} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<32x32xbf16>
    %oldf = arith.extf %old : vector<32x32xbf16> to vector<32x32xf32>
    %sum = arith.addf %block, %oldf : vector<32x32xf32>
    %res = arith.truncf %sum : vector<32x32xf32> to vector<32x32xbf16>
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
  return
}

// -----

// The block written twice.
func.func @two_block_writes(%steps: index, %rows: index, %out: memref<64x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // expected-error @+1 {{'gpu.launch' op gmm-gpu-stage-epilogue expects one 2-D block write per tile loop}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %first = arith.muli %bx, %c1 : index
    %visit = memref.subview %out[%first, 0] [%rows, 32] [1, 1] : memref<64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %pad = arith.constant 0.0 : bf16
    %old = vector.transfer_read %visit[%c0, %c0], %pad {in_bounds = [false, true]} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<32x32xbf16>
    %oldf = arith.extf %old : vector<32x32xbf16> to vector<32x32xf32>
    %sum = arith.addf %block, %oldf : vector<32x32xf32>
    %res = arith.truncf %sum : vector<32x32xf32> to vector<32x32xbf16>
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
  return
}

// -----

// An epilogue that is not elementwise (a transpose).
func.func @transposed_epilogue(%steps: index, %rows: index, %out: memref<64x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %first = arith.muli %bx, %c1 : index
    %visit = memref.subview %out[%first, 0] [%rows, 32] [1, 1] : memref<64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %pad = arith.constant 0.0 : bf16
    %old = vector.transfer_read %visit[%c0, %c0], %pad {in_bounds = [false, true]} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<32x32xbf16>
    %oldf = arith.extf %old : vector<32x32xbf16> to vector<32x32xf32>
    %sum = arith.addf %block, %oldf : vector<32x32xf32>
    %flip = vector.transpose %sum, [1, 0] : vector<32x32xf32> to vector<32x32xf32>
    %res = arith.truncf %flip : vector<32x32xf32> to vector<32x32xbf16>
    // expected-error @+1 {{'vector.transfer_write' op gmm-gpu-stage-epilogue cannot replay the block epilogue (expected elementwise ops and reads of the written block)}}
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
  return
}

// -----

// An epilogue reading rows other than the written block.
func.func @other_rows_read(%steps: index, %rows: index, %out: memref<64x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<9728xi8, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32x32xf32>
    %block = scf.for %j = %c0 to %steps step %c1 iter_args(%acc = %zero) -> (vector<32x32xf32>) {
      gpu.barrier
      scf.yield %acc : vector<32x32xf32>
    } {gmm.pipeline_stages = 2 : i64}
    %first = arith.muli %bx, %c1 : index
    %visit = memref.subview %out[%first, 0] [%rows, 32] [1, 1] : memref<64x32xbf16> to memref<?x32xbf16, strided<[32, 1], offset: ?>>
    %pad = arith.constant 0.0 : bf16
    %old = vector.transfer_read %visit[%c1, %c0], %pad {in_bounds = [false, true]} : memref<?x32xbf16, strided<[32, 1], offset: ?>>, vector<32x32xbf16>
    %oldf = arith.extf %old : vector<32x32xbf16> to vector<32x32xf32>
    %sum = arith.addf %block, %oldf : vector<32x32xf32>
    %res = arith.truncf %sum : vector<32x32xf32> to vector<32x32xbf16>
    // expected-error @+1 {{'vector.transfer_write' op gmm-gpu-stage-epilogue cannot replay the block epilogue (expected elementwise ops and reads of the written block)}}
    vector.transfer_write %res, %visit[%c0, %c0] {in_bounds = [false, true]} : vector<32x32xbf16>, memref<?x32xbf16, strided<[32, 1], offset: ?>>
    gpu.terminator
  } {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [32, 32, 16], warps = [2, 2], stages = 2>}
  return
}
