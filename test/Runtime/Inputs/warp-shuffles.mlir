// One warp: a butterfly sum with gpu.shuffle xor (every lane gets
// 0 + 1 + ... + 31 = 496), a broadcast of lane 5 (idx), and shifts up and
// down by 3 whose out-of-range lanes report invalid (stored as -1).
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %t0 = gpu.wait async
  %out, %t1 = gpu.alloc async [%t0] () : memref<4x32xf32>
  %t2 = gpu.launch async [%t1] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %width = arith.constant 32 : i32
    %lane = arith.index_cast %tx : index to i32
    %v = arith.sitofp %lane : i32 to f32
    %o16 = arith.constant 16 : i32
    %o8 = arith.constant 8 : i32
    %o4 = arith.constant 4 : i32
    %o2 = arith.constant 2 : i32
    %o1 = arith.constant 1 : i32
    %s16, %ok16 = gpu.shuffle xor %v, %o16, %width : f32
    %a16 = arith.addf %v, %s16 : f32
    %s8, %ok8 = gpu.shuffle xor %a16, %o8, %width : f32
    %a8 = arith.addf %a16, %s8 : f32
    %s4, %ok4 = gpu.shuffle xor %a8, %o4, %width : f32
    %a4 = arith.addf %a8, %s4 : f32
    %s2, %ok2 = gpu.shuffle xor %a4, %o2, %width : f32
    %a2 = arith.addf %a4, %s2 : f32
    %s1, %ok1 = gpu.shuffle xor %a2, %o1, %width : f32
    %sum = arith.addf %a2, %s1 : f32
    memref.store %sum, %out[%c0, %tx] : memref<4x32xf32>
    %five = arith.constant 5 : i32
    %b, %okb = gpu.shuffle idx %v, %five, %width : f32
    memref.store %b, %out[%c1, %tx] : memref<4x32xf32>
    %three = arith.constant 3 : i32
    %minus = arith.constant -1.0 : f32
    %up, %okup = gpu.shuffle up %v, %three, %width : f32
    %upv = arith.select %okup, %up, %minus : f32
    memref.store %upv, %out[%c2, %tx] : memref<4x32xf32>
    %down, %okdown = gpu.shuffle down %v, %three, %width : f32
    %downv = arith.select %okdown, %down, %minus : f32
    memref.store %downv, %out[%c3, %tx] : memref<4x32xf32>
    gpu.terminator
  }
  %h = memref.alloc() : memref<4x32xf32>
  %t3 = gpu.memcpy async [%t2] %h, %out : memref<4x32xf32>, memref<4x32xf32>
  %t4 = gpu.dealloc async [%t3] %out : memref<4x32xf32>
  gpu.wait [%t4]
  %print = memref.cast %h : memref<4x32xf32> to memref<*xf32>
  call @printMemrefF32(%print) : (memref<*xf32>) -> ()
  return
}
