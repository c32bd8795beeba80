// Two GPU modules (two binaries loaded by two global constructors, one
// function looked up in each) whose kernels run one after the other on the
// same buffer: x[i] = i, then x[i] = 3 * x[i] + 1.
module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @iota(%x: memref<8xi32>) kernel {
      %i = gpu.thread_id x
      %v = arith.index_cast %i : index to i32
      memref.store %v, %x[%i] : memref<8xi32>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @affine(%x: memref<8xi32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<8xi32>
      %c3 = arith.constant 3 : i32
      %c1 = arith.constant 1 : i32
      %m = arith.muli %v, %c3 : i32
      %w = arith.addi %m, %c1 : i32
      memref.store %w, %x[%i] : memref<8xi32>
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<8xi32>
    %t2 = gpu.launch_func async [%t1] @first::@iota
        blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%d : memref<8xi32>)
    %t3 = gpu.launch_func async [%t2] @second::@affine
        blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%d : memref<8xi32>)
    %h = memref.alloc() : memref<8xi32>
    %t4 = gpu.memcpy async [%t3] %h, %d : memref<8xi32>, memref<8xi32>
    %t5 = gpu.dealloc async [%t4] %d : memref<8xi32>
    gpu.wait [%t5]
    %p = memref.cast %h : memref<8xi32> to memref<*xi32>
    call @printMemrefI32(%p) : (memref<*xi32>) -> ()
    return
  }
}
