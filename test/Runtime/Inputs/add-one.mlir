// A complete GPU program: copies eight 2.0s to the device, adds 1 in a
// kernel, copies them back and prints them. Lowered with
// --gpu-lower-to-nvvm-pipeline and run by mlir-runner with
// libgmm_cuda_runtime.so, it exercises the mgpu* ABI end to end: the module
// load in a global constructor, stream, alloc, memcpy, launch, dealloc,
// synchronize.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add_one(%buf: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<8xf32>
      %one = arith.constant 1.0 : f32
      %w = arith.addf %v, %one : f32
      memref.store %w, %buf[%i] : memref<8xf32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2.0 : f32
    %h = memref.alloc() : memref<8xf32>
    linalg.fill ins(%two : f32) outs(%h : memref<8xf32>)
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<8xf32>
    %t2 = gpu.memcpy async [%t1] %d, %h : memref<8xf32>, memref<8xf32>
    %t3 = gpu.launch_func async [%t2] @kernels::@add_one
        blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%d : memref<8xf32>)
    %t4 = gpu.memcpy async [%t3] %h, %d : memref<8xf32>, memref<8xf32>
    %t5 = gpu.dealloc async [%t4] %d : memref<8xf32>
    gpu.wait [%t5]
    %u = memref.cast %h : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %h : memref<8xf32>
    return
  }
}
