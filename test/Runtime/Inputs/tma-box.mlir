// TMA through NVGPU: the host encodes a tensor map of a 20 x 24 f32 tensor
// (element (r, c) = 100 r + c) with an 8 x 16 box (nvgpu.tma.create.descriptor,
// through mgpuTensorMapEncodeTiledMemref and cuTensorMapEncodeTiled); one
// thread of the kernel loads the box at row 16, column 12 into workgroup
// memory (nvgpu.tma.async.load, completing on an mbarrier) and the block
// copies it out. Rows 16-19 and columns 12-23 are inside the tensor, the
// rest of the box reads as zeros.
!map = !nvgpu.tensormap.descriptor<tensor = memref<8x16xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!barrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>

memref.global "private" @box : memref<8x16xf32, 3>

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c20 = arith.constant 20 : index
  %c24 = arith.constant 24 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %host = memref.alloc() : memref<20x24xf32>
  scf.for %r = %c0 to %c20 step %c1 {
    scf.for %c = %c0 to %c24 step %c1 {
      %c100 = arith.constant 100 : index
      %v = arith.muli %r, %c100 : index
      %vc = arith.addi %v, %c : index
      %vi = arith.index_cast %vc : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %host[%r, %c] : memref<20x24xf32>
    }
  }
  %t0 = gpu.wait async
  %tensor, %t1 = gpu.alloc async [%t0] () : memref<20x24xf32>
  %out, %t2 = gpu.alloc async [%t1] () : memref<8x16xf32>
  %t3 = gpu.memcpy async [%t2] %tensor, %host : memref<20x24xf32>, memref<20x24xf32>
  gpu.wait [%t3]
  %unranked = memref.cast %tensor : memref<20x24xf32> to memref<*xf32>
  %desc = nvgpu.tma.create.descriptor %unranked box[%c8, %c16] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %tile = memref.get_global @box : memref<8x16xf32, 3>
    %bar = nvgpu.mbarrier.create -> !barrier
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !barrier
    }
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %c512 : !barrier
      nvgpu.tma.async.load %desc[%c12, %c16], %bar[%c0] to %tile : !map, !barrier -> memref<8x16xf32, 3>
    }
    %false = arith.constant false
    %ticks = arith.constant 10000000 : index
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !barrier
    %row = arith.divui %tx, %c16 : index
    %col = arith.remui %tx, %c16 : index
    %v = memref.load %tile[%row, %col] : memref<8x16xf32, 3>
    memref.store %v, %out[%row, %col] : memref<8x16xf32>
    gpu.terminator
  }
  %h = memref.alloc() : memref<8x16xf32>
  %t4 = gpu.wait async
  %t5 = gpu.memcpy async [%t4] %h, %out : memref<8x16xf32>, memref<8x16xf32>
  gpu.wait [%t5]
  %print = memref.cast %h : memref<8x16xf32> to memref<*xf32>
  call @printMemrefF32(%print) : (memref<*xf32>) -> ()
  return
}
