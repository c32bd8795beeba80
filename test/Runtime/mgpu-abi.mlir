// The mgpu* functions that MLIR 22 emits, with their exact signatures, and a
// check that libgmm_cuda_runtime.so defines every one of them. gpu-to-llvm
// lowers the host-side gpu ops; nvgpu-to-nvvm lowers TMA descriptor creation;
// the translation to LLVM IR lowers gpu.binary (module load/unload in global
// constructors/destructors) and gpu.launch_func.

// RUN: mlir-opt %s --convert-nvgpu-to-nvvm --gpu-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   -o %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: grep -o '^declare .*@mgpu[A-Za-z0-9_]*' %t.ll | sed -e 's/.*@//' \
// RUN:   | sort -u > %t.emitted
// RUN: count 23 < %t.emitted
// RUN: llvm-nm -D --defined-only %gmm_cuda_runtime | grep -o 'mgpu[A-Za-z0-9_]*$' \
// RUN:   | sort -u > %t.exported
// RUN: comm -23 %t.emitted %t.exported | count 0

// CHECK-DAG: declare ptr @mgpuModuleLoad(ptr, i64)
// CHECK-DAG: declare ptr @mgpuModuleLoadJIT(ptr, i32)
// CHECK-DAG: declare void @mgpuModuleUnload(ptr)
// CHECK-DAG: declare ptr @mgpuModuleGetFunction(ptr, ptr)
// CHECK-DAG: declare void @mgpuLaunchKernel(ptr, i64, i64, i64, i64, i64, i64, i32, ptr, ptr, ptr, i64)
// CHECK-DAG: declare void @mgpuLaunchClusterKernel(ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i32, ptr, ptr, ptr)
// CHECK-DAG: declare ptr @mgpuStreamCreate()
// CHECK-DAG: declare void @mgpuStreamDestroy(ptr)
// CHECK-DAG: declare void @mgpuStreamSynchronize(ptr)
// CHECK-DAG: declare void @mgpuStreamWaitEvent(ptr, ptr)
// CHECK-DAG: declare ptr @mgpuEventCreate()
// CHECK-DAG: declare void @mgpuEventDestroy(ptr)
// CHECK-DAG: declare void @mgpuEventSynchronize(ptr)
// CHECK-DAG: declare void @mgpuEventRecord(ptr, ptr)
// CHECK-DAG: declare ptr @mgpuMemAlloc(i64, ptr, i8)
// CHECK-DAG: declare void @mgpuMemFree(ptr, ptr)
// CHECK-DAG: declare void @mgpuMemcpy(ptr, ptr, i64, ptr)
// CHECK-DAG: declare void @mgpuMemset32(ptr, i32, i64, ptr)
// CHECK-DAG: declare void @mgpuMemset16(ptr, i16, i64, ptr)
// CHECK-DAG: declare void @mgpuMemHostRegisterMemRef(i64, ptr, i64)
// CHECK-DAG: declare void @mgpuMemHostUnregisterMemRef(i64, ptr, i64)
// CHECK-DAG: declare void @mgpuSetDefaultDevice(i32)
// CHECK-DAG: declare ptr @mgpuTensorMapEncodeTiledMemref(i64, ptr, i64, i64, i64, i64, i64, ptr)

// The PTX is NUL-terminated for mgpuModuleLoadJIT; a cubin or fatbin comes
// with its size.
// CHECK-DAG: @kasm_binary = internal constant [8 x i8] c"PTXTEXT\00"
// CHECK-DAG: call ptr @mgpuModuleLoadJIT(ptr @kasm_binary, i32 3)
// CHECK-DAG: call ptr @mgpuModuleLoad(ptr @kbin_binary, i64 5)

module attributes {gpu.container_module} {
  gpu.binary @kasm [#gpu.object<#nvvm.target, properties = {O = 3 : i32}, assembly = "PTXTEXT">]
  gpu.binary @kbin [#gpu.object<#nvvm.target, bin = "CUBIN">]

  func.func @launches(%n: i32) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    gpu.launch_func @kasm::@k blocks in (%c1, %c1, %c1) threads in (%c2, %c1, %c1) args(%n : i32)
    %t = gpu.wait async
    %t2 = gpu.launch_func async [%t] @kbin::@k clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c2, %c1, %c1) dynamic_shared_memory_size %n args(%n : i32)
    gpu.wait [%t2]
    return
  }

  func.func @memory(%n: index, %v32: i32, %v16: i16, %h: memref<?xf32>) {
    %c0 = arith.constant 0 : i32
    gpu.set_default_device %c0
    %shared = gpu.alloc host_shared (%n) : memref<?xf32>
    %t0 = gpu.wait async
    %m, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.memcpy async [%t1] %m, %h : memref<?xf32>, memref<?xf32>
    %m32, %t3 = gpu.alloc async [%t2] (%n) : memref<?xi32>
    %t4 = gpu.memset async [%t3] %m32, %v32 : memref<?xi32>, i32
    %m16, %t5 = gpu.alloc async [%t4] (%n) : memref<?xi16>
    %t6 = gpu.memset async [%t5] %m16, %v16 : memref<?xi16>, i16
    %u = memref.cast %h : memref<?xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    gpu.host_unregister %u : memref<*xf32>
    %t7 = gpu.dealloc async [%t6] %m : memref<?xf32>
    %t8 = gpu.wait async [%t7]
    %t9 = gpu.wait async [%t8, %t7]
    gpu.wait [%t9]
    return
  }

  // A token that is not a stream is an event.
  func.func @wait_event(%t: !gpu.async.token) {
    gpu.wait [%t]
    return
  }

  func.func @tma(%m: memref<64x64xf16>) {
    %c64 = arith.constant 64 : index
    %c16 = arith.constant 16 : index
    %u = memref.cast %m : memref<64x64xf16> to memref<*xf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c16] : memref<*xf16> -> !nvgpu.tensormap.descriptor<tensor = memref<64x16xf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
    return
  }
}
