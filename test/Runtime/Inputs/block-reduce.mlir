// Two blocks of 64 threads reduce the values i of their threads' global
// index i: with
// gpu.all_reduce (add, and max through a region) and with a tree in
// workgroup (shared) memory between gpu.barriers.
func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %t0 = gpu.wait async
  %results, %t1 = gpu.alloc async [%t0] () : memref<3x2xf32>
  %t2 = gpu.launch async [%t1] blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%scratch : memref<64xf32, #gpu.address_space<workgroup>>) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %ii = arith.index_cast %i : index to i32
    %v = arith.sitofp %ii : i32 to f32
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
    %max = gpu.all_reduce %v {
    ^bb(%a: f32, %b: f32):
      %m = arith.maximumf %a, %b : f32
      gpu.yield %m : f32
    } : (f32) -> f32
    memref.store %v, %scratch[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.for %step = %c0 to %c6 step %c1 {
      %stride = arith.shrui %c32, %step : index
      %active = arith.cmpi ult, %tx, %stride : index
      scf.if %active {
        %j = arith.addi %tx, %stride : index
        %x = memref.load %scratch[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
        %y = memref.load %scratch[%j] : memref<64xf32, #gpu.address_space<workgroup>>
        %z = arith.addf %x, %y : f32
        memref.store %z, %scratch[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
    }
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      %tree = memref.load %scratch[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %sum, %results[%c0, %bx] : memref<3x2xf32>
      memref.store %max, %results[%c1, %bx] : memref<3x2xf32>
      memref.store %tree, %results[%c2, %bx] : memref<3x2xf32>
    }
    gpu.terminator
  }
  %out = memref.alloc() : memref<3x2xf32>
  %t3 = gpu.memcpy async [%t2] %out, %results : memref<3x2xf32>, memref<3x2xf32>
  %t4 = gpu.dealloc async [%t3] %results : memref<3x2xf32>
  gpu.wait [%t4]
  %print = memref.cast %out : memref<3x2xf32> to memref<*xf32>
  call @printMemrefF32(%print) : (memref<*xf32>) -> ()
  return
}
