// GPU programs with bugs, lowered by upstream's gpu-lower-to-nvvm-pipeline
// and run by mlir-runner through libgmm_cuda_runtime.so on gmm's simulated
// GPU (also where a real GPU exists). Each bug makes its launch fail with
// one line that names the check, the kernel, the block, the thread and the
// PTX line, printed once (the later calls that return the same sticky error
// print nothing), and mlir-runner exits with status 1, so that a script
// that runs a broken kernel fails; the corrected program runs, prints its
// result and exits with status 0.

// REQUIRES: gmm-sim
// UNSUPPORTED: sanitizer
// RUN: mlir-opt %s --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80" -o %t.mlir
// RUN: env GMM_CUDA_DRIVER_LIBRARY=%gmm_cuda_sim not mlir-runner %t.mlir -e out_of_bounds --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=OOB --implicit-check-not=gmm-cuda-runtime
// RUN: env GMM_CUDA_DRIVER_LIBRARY=%gmm_cuda_sim not mlir-runner %t.mlir -e missing_barrier --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=RACE --implicit-check-not=gmm-cuda-runtime
// RUN: env GMM_CUDA_DRIVER_LIBRARY=%gmm_cuda_sim mlir-runner %t.mlir -e with_barrier --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env GMM_CUDA_DRIVER_LIBRARY=%gmm_cuda_sim not mlir-runner %t.mlir -e divergent_barrier --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=SYNC --implicit-check-not=gmm-cuda-runtime
// RUN: env GMM_CUDA_DRIVER_LIBRARY=%gmm_cuda_sim GMM_SIM_CHECKS=memcheck mlir-runner %t.mlir -e missing_barrier --entry-point-result=void \
// RUN:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=UNCHECKED

// OOB: gmm-cuda-runtime: error: mgpuStreamSynchronize: cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered): gmm-sim memcheck: out-of-bounds global write of 4 bytes at 0x{{[0-9a-f]+}}: 0 bytes past the end of the 16-byte device allocation at 0x{{[0-9a-f]+}} (kernel out_of_bounds_kernel, block (0,0,0), thread (4,0,0), PTX line {{[0-9]+}}: st.global.b32)
// The copy of the result to the (pageable) host buffer completes before
// mgpuMemcpy returns, as the driver's does: it reports the kernel's fault.
// RACE: gmm-cuda-runtime: error: mgpuMemcpy: cuMemcpyAsync failed: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure): gmm-sim {{racecheck|initcheck}}: {{.*}}(kernel missing_barrier_kernel, block (0,0,0), thread ({{[0-9]+}},0,0), PTX line {{[0-9]+}}: ld.shared.b32)
// OK-NOT: error
// OK: [63,  62,  61,  60,
// SYNC: gmm-cuda-runtime: error: mgpuStreamSynchronize: cuStreamSynchronize failed: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure): gmm-sim synccheck: barrier 0 reached by only part of the block: 16 of 64 threads arrived, 48 threads exited without reaching it (kernel divergent_barrier_kernel, block (0,0,0), thread (0,0,0), PTX line {{[0-9]+}}: bar.sync)
// With the race and initialization checks off, the program runs (and its
// result is whatever the schedule gives).
// UNCHECKED-NOT: error
// UNCHECKED: Unranked Memref

module attributes {gpu.container_module} {
  func.func private @printMemrefF32(memref<*xf32>)

  // Eight threads store into four floats.
  func.func @out_of_bounds() {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %t0 = gpu.wait async
    %buf, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
    %t2 = gpu.launch async [%t1] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
      %one = arith.constant 1.0 : f32
      memref.store %one, %buf[%tx] : memref<4xf32>
      gpu.terminator
    }
    %t3 = gpu.dealloc async [%t2] %buf : memref<4xf32>
    gpu.wait [%t3]
    return
  }

  // 64 threads reverse an array through workgroup memory: thread t reads
  // what thread 63 - t (another warp) wrote, without a barrier.
  func.func @missing_barrier() {
    %h = memref.alloc() : memref<64xf32>
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<64xf32>
    %t2 = gpu.launch async [%t1] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
               workgroup(%smem : memref<64xf32, #gpu.address_space<workgroup>>) {
      %c63 = arith.constant 63 : index
      %t = arith.index_cast %tx : index to i32
      %v = arith.sitofp %t : i32 to f32
      memref.store %v, %smem[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %r = arith.subi %c63, %tx : index
      %w = memref.load %smem[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %d[%tx] : memref<64xf32>
      gpu.terminator
    }
    %t3 = gpu.memcpy async [%t2] %h, %d : memref<64xf32>, memref<64xf32>
    %t4 = gpu.dealloc async [%t3] %d : memref<64xf32>
    gpu.wait [%t4]
    %u = memref.cast %h : memref<64xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }

  // The same with gpu.barrier between the store and the load.
  func.func @with_barrier() {
    %h = memref.alloc() : memref<64xf32>
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<64xf32>
    %t2 = gpu.launch async [%t1] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
               workgroup(%smem : memref<64xf32, #gpu.address_space<workgroup>>) {
      %c63 = arith.constant 63 : index
      %t = arith.index_cast %tx : index to i32
      %v = arith.sitofp %t : i32 to f32
      memref.store %v, %smem[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c63, %tx : index
      %w = memref.load %smem[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %d[%tx] : memref<64xf32>
      gpu.terminator
    }
    %t3 = gpu.memcpy async [%t2] %h, %d : memref<64xf32>, memref<64xf32>
    %t4 = gpu.dealloc async [%t3] %d : memref<64xf32>
    gpu.wait [%t4]
    %u = memref.cast %h : memref<64xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }

  // Only threads 0-15 reach the barrier.
  func.func @divergent_barrier() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch async [%t0] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %c16 = arith.constant 16 : index
      %low = arith.cmpi ult, %tx, %c16 : index
      scf.if %low {
        gpu.barrier
      }
      gpu.terminator
    }
    gpu.wait [%t1]
    return
  }
}
