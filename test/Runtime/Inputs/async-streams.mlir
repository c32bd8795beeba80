// Two independent chains of async GPU work (each gpu.wait async starts its
// own stream), joined by a launch that waits on tokens of both: the runtime
// records an event on one stream and makes the other wait for it
// (mgpuEventCreate/Record, mgpuStreamWaitEvent). a = 1 + 1, b = 10 * 2 on
// the two streams, then c = a + b = 22 after both; all copied back.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add_one(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      %one = arith.constant 1.0 : f32
      %w = arith.addf %v, %one : f32
      memref.store %w, %x[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @double(%x: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<16xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @sum(%a: memref<16xf32>, %b: memref<16xf32>, %c: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<16xf32>
      %y = memref.load %b[%i] : memref<16xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %c[%i] : memref<16xf32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %ten = arith.constant 10.0 : f32
    %ha = memref.alloc() : memref<16xf32>
    %hb = memref.alloc() : memref<16xf32>
    %hc = memref.alloc() : memref<16xf32>
    linalg.fill ins(%one : f32) outs(%ha : memref<16xf32>)
    linalg.fill ins(%ten : f32) outs(%hb : memref<16xf32>)
    // Stream A.
    %a0 = gpu.wait async
    %da, %a1 = gpu.alloc async [%a0] () : memref<16xf32>
    %a2 = gpu.memcpy async [%a1] %da, %ha : memref<16xf32>, memref<16xf32>
    %a3 = gpu.launch_func async [%a2] @kernels::@add_one
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%da : memref<16xf32>)
    // Stream B.
    %b0 = gpu.wait async
    %db, %b1 = gpu.alloc async [%b0] () : memref<16xf32>
    %b2 = gpu.memcpy async [%b1] %db, %hb : memref<16xf32>, memref<16xf32>
    %b3 = gpu.launch_func async [%b2] @kernels::@double
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%db : memref<16xf32>)
    %dc, %b4 = gpu.alloc async [%b3] () : memref<16xf32>
    // After both: joining the two tokens makes a stream that waits for an
    // event of the other (gpu-to-llvm launches after one token only).
    %both = gpu.wait async [%a3, %b4]
    %j = gpu.launch_func async [%both] @kernels::@sum
        blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%da : memref<16xf32>, %db : memref<16xf32>, %dc : memref<16xf32>)
    %j1 = gpu.memcpy async [%j] %ha, %da : memref<16xf32>, memref<16xf32>
    %j2 = gpu.memcpy async [%j1] %hb, %db : memref<16xf32>, memref<16xf32>
    %j3 = gpu.memcpy async [%j2] %hc, %dc : memref<16xf32>, memref<16xf32>
    %j4 = gpu.dealloc async [%j3] %da : memref<16xf32>
    %j5 = gpu.dealloc async [%j4] %db : memref<16xf32>
    %j6 = gpu.dealloc async [%j5] %dc : memref<16xf32>
    gpu.wait [%j6]
    %pa = memref.cast %ha : memref<16xf32> to memref<*xf32>
    %pb = memref.cast %hb : memref<16xf32> to memref<*xf32>
    %pc = memref.cast %hc : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%pa) : (memref<*xf32>) -> ()
    call @printMemrefF32(%pb) : (memref<*xf32>) -> ()
    call @printMemrefF32(%pc) : (memref<*xf32>) -> ()
    return
  }
}
