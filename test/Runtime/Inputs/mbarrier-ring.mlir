// Two warps hand tiles through a ring of two workgroup-memory slots guarded
// by NVGPU mbarriers: warp 0 waits until a slot is empty, writes 32 values
// and arrives on the slot's "full" barrier; warp 1 waits until it is full,
// adds the values up and arrives on its "empty" barrier. Six tiles: each
// slot's barriers go through three phases, the producer's first two waits
// (parity 1 of phase 0) pass at once. Lane l sums 100 i + l over i < 6:
// 1500 + 6 l.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %t0 = gpu.wait async
  %out, %t1 = gpu.alloc async [%t0] () : memref<32xf32>
  %t2 = gpu.launch async [%t1] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%ring : memref<64xf32, #gpu.address_space<workgroup>>) {
    %full = nvgpu.mbarrier.create -> !barriers
    %empty = nvgpu.mbarrier.create -> !barriers
    %ticks = arith.constant 10000000 : index
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %full[%c0], %c32 : !barriers
      nvgpu.mbarrier.init %full[%c1], %c32 : !barriers
      nvgpu.mbarrier.init %empty[%c0], %c32 : !barriers
      nvgpu.mbarrier.init %empty[%c1], %c32 : !barriers
    }
    gpu.barrier
    %lane = arith.remui %tx, %c32 : index
    %producer = arith.cmpi ult, %tx, %c32 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f32) {
      %slot = arith.remui %i, %c2 : index
      %round = arith.divui %i, %c2 : index
      %roundParity = arith.remui %round, %c2 : index
      %parityI = arith.index_cast %roundParity : index to i1
      %base = arith.muli %slot, %c32 : index
      %at = arith.addi %base, %lane : index
      %next = scf.if %producer -> (f32) {
        %emptyParity = arith.xori %parityI, %true : i1
        nvgpu.mbarrier.try_wait.parity %empty[%slot], %emptyParity, %ticks : !barriers
        %i100 = arith.muli %i, %c32 : index
        %i100b = arith.muli %i, %c64 : index
        %h = arith.addi %i100, %i100b : index
        %hh = arith.addi %h, %i : index
        %hhh = arith.addi %hh, %i : index
        %hundred = arith.addi %hhh, %i : index
        %hundredi = arith.addi %hundred, %i : index
        %v = arith.addi %hundredi, %lane : index
        %vi = arith.index_cast %v : index to i32
        %vf = arith.sitofp %vi : i32 to f32
        memref.store %vf, %ring[%at] : memref<64xf32, #gpu.address_space<workgroup>>
        %token = nvgpu.mbarrier.arrive %full[%slot] : !barriers -> !nvgpu.mbarrier.token
        scf.yield %acc : f32
      } else {
        nvgpu.mbarrier.try_wait.parity %full[%slot], %parityI, %ticks : !barriers
        %v = memref.load %ring[%at] : memref<64xf32, #gpu.address_space<workgroup>>
        %token = nvgpu.mbarrier.arrive %empty[%slot] : !barriers -> !nvgpu.mbarrier.token
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      scf.yield %next : f32
    }
    %consumer = arith.cmpi uge, %tx, %c32 : index
    scf.if %consumer {
      memref.store %sum, %out[%lane] : memref<32xf32>
    }
    gpu.terminator
  }
  %h = memref.alloc() : memref<32xf32>
  %t3 = gpu.memcpy async [%t2] %h, %out : memref<32xf32>, memref<32xf32>
  %t4 = gpu.dealloc async [%t3] %out : memref<32xf32>
  gpu.wait [%t4]
  %print = memref.cast %h : memref<32xf32> to memref<*xf32>
  call @printMemrefF32(%print) : (memref<*xf32>) -> ()
  return
}
