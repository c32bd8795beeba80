// A 64 x 64 x 64 f16 GEMM on one warpgroup: TMA loads A (64 x 64, K-major)
// and B (64 x 64, N contiguous), both with the 128-byte swizzle, into
// dynamic shared memory, completing on one mbarrier; nvgpu.warpgroup.mma
// (four wgmma.mma_async m64n64k16, B transposed) accumulates in f32
// registers; nvgpu.warpgroup.mma.store writes them to shared memory and the
// block copies the result out. The host compares it with linalg.matmul and
// prints how many of the 4096 elements agree (all of them: the operands
// are small integers, every sum is exact).
!aMap = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bMap = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!barrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64x64xf16>
  %b = memref.alloc() : memref<64x64xf16>
  %ref = memref.alloc() : memref<64x64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %k = %c0 to %c64 step %c1 {
      // a[i][k] = (i + 2k) mod 5 - 2, b[k][i] = (3i + k) mod 3 - 1
      %k2 = arith.addi %k, %k : index
      %s = arith.addi %i, %k2 : index
      %m = arith.remui %s, %c5 : index
      %mi = arith.index_cast %m : index to i32
      %mf = arith.sitofp %mi : i32 to f16
      %two = arith.constant 2.0 : f16
      %av = arith.subf %mf, %two : f16
      memref.store %av, %a[%i, %k] : memref<64x64xf16>
      %i3 = arith.muli %i, %c3 : index
      %t = arith.addi %i3, %k : index
      %n = arith.remui %t, %c3 : index
      %ni = arith.index_cast %n : index to i32
      %nf = arith.sitofp %ni : i32 to f16
      %one = arith.constant 1.0 : f16
      %bv = arith.subf %nf, %one : f16
      memref.store %bv, %b[%k, %i] : memref<64x64xf16>
    }
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %zero, %ref[%i, %j] : memref<64x64xf32>
    }
  }
  %t0 = gpu.wait async
  %da, %t1 = gpu.alloc async [%t0] () : memref<64x64xf16>
  %db, %t2 = gpu.alloc async [%t1] () : memref<64x64xf16>
  %dd, %t3 = gpu.alloc async [%t2] () : memref<64x64xf32>
  %t4 = gpu.memcpy async [%t3] %da, %a : memref<64x64xf16>, memref<64x64xf16>
  %t5 = gpu.memcpy async [%t4] %db, %b : memref<64x64xf16>, memref<64x64xf16>
  gpu.wait [%t5]
  %ua = memref.cast %da : memref<64x64xf16> to memref<*xf16>
  %ub = memref.cast %db : memref<64x64xf16> to memref<*xf16>
  %mapA = nvgpu.tma.create.descriptor %ua box[%c64, %c64] : memref<*xf16> -> !aMap
  %mapB = nvgpu.tma.create.descriptor %ub box[%c64, %c64] : memref<*xf16> -> !bMap
  %smemBytes = arith.constant 32768 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %smemBytes {
    %k0 = arith.constant 0 : index
    %k8192 = arith.constant 8192 : index
    %k16384 = arith.constant 16384 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %sa = memref.view %smem[%k0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %sb = memref.view %smem[%k8192][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %sd = memref.view %smem[%k16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf32, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !barrier
    %first = arith.cmpi eq, %tx, %k0 : index
    scf.if %first {
      %one = arith.constant 1 : index
      nvgpu.mbarrier.init %bar[%k0], %one : !barrier
    }
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bar[%k0], %k16384 : !barrier
      nvgpu.tma.async.load %mapA[%k0, %k0], %bar[%k0] to %sa : !aMap, !barrier -> memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %mapB[%k0, %k0], %bar[%k0] to %sb : !bMap, !barrier -> memref<64x64xf16, #gpu.address_space<workgroup>>
    }
    %false = arith.constant false
    %ticks = arith.constant 10000000 : index
    nvgpu.mbarrier.try_wait.parity %bar[%k0], %false, %ticks : !barrier
    %descA = nvgpu.warpgroup.generate.descriptor %sa, %mapA : memref<64x64xf16, #gpu.address_space<workgroup>>, !aMap -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>
    %descB = nvgpu.warpgroup.generate.descriptor %sb, %mapB : memref<64x64xf16, #gpu.address_space<workgroup>>, !bMap -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %d = nvgpu.warpgroup.mma %descA, %descB, %init {transposeB} : <tensor = memref<64x64xf16, 3>>, <tensor = memref<64x64xf16, 3>>, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    nvgpu.warpgroup.mma.store %d, %sd : !acc to memref<64x64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %k1 = arith.constant 1 : index
    %k64 = arith.constant 64 : index
    %k128 = arith.constant 128 : index
    scf.for %e = %tx to %k64 step %k128 {
      scf.for %j = %k0 to %k64 step %k1 {
        %v = memref.load %sd[%e, %j] : memref<64x64xf32, #gpu.address_space<workgroup>>
        memref.store %v, %dd[%e, %j] : memref<64x64xf32>
      }
    }
    gpu.terminator
  }
  %out = memref.alloc() : memref<64x64xf32>
  %t6 = gpu.wait async
  %t7 = gpu.memcpy async [%t6] %out, %dd : memref<64x64xf32>, memref<64x64xf32>
  gpu.wait [%t7]
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%ref : memref<64x64xf32>)
  %c0i = arith.constant 0 : i32
  %c1i = arith.constant 1 : i32
  %agree = scf.for %i = %c0 to %c64 step %c1 iter_args(%n0 = %c0i) -> (i32) {
    %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%n1 = %n0) -> (i32) {
      %x = memref.load %out[%i, %j] : memref<64x64xf32>
      %y = memref.load %ref[%i, %j] : memref<64x64xf32>
      %same = arith.cmpf oeq, %x, %y : f32
      %inc = arith.select %same, %c1i, %c0i : i32
      %n2 = arith.addi %n1, %inc : i32
      scf.yield %n2 : i32
    }
    scf.yield %row : i32
  }
  vector.print str "agree: "
  vector.print %agree : i32
  return
}
