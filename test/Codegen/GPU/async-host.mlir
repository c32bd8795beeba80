// gmm-gpu-async-host puts a function's synchronous gpu ops on one token chain
// (one stream after gpu-to-llvm) and waits once, before the terminator.
// RUN: gmm-opt %s -split-input-file --pass-pipeline="builtin.module(gmm-gpu-async-host)" | FileCheck %s

// A straight line of allocation, memset, launch and free.
// CHECK-LABEL: func.func @straight
// CHECK:         %[[T0:.+]] = gpu.wait async
// CHECK-NEXT:    %[[M:.+]], %[[T1:.+]] = gpu.alloc async [%[[T0]]] () : memref<4xf32>
// CHECK-NEXT:    %[[T2:.+]] = gpu.memset async [%[[T1]]] %[[M]], %{{.+}} : memref<4xf32>, f32
// CHECK-NEXT:    %[[T3:.+]] = gpu.launch_func async [%[[T2]]] @k::@k
// CHECK-NEXT:    %[[T4:.+]] = gpu.memcpy async [%[[T3]]] %{{.+}}, %[[M]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    %[[T5:.+]] = gpu.dealloc async [%[[T4]]] %[[M]] : memref<4xf32>
// CHECK-NEXT:    gpu.wait [%[[T5]]]
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  func.func @straight(%out: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %m = gpu.alloc () : memref<4xf32>
    gpu.memset %m, %zero : memref<4xf32>, f32
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.memcpy %out, %m : memref<4xf32>, memref<4xf32>
    gpu.dealloc %m : memref<4xf32>
    return
  }
  gpu.module @k {
    gpu.func @k(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}

// -----

// A guarded launch and a loop of launches continue the chain inside; the
// ops after them depend on the token from before (same stream). Pure ops and
// cf.assert do not wait.
// CHECK-LABEL: func.func @regions
// CHECK:         %[[T0:.+]] = gpu.wait async
// CHECK-NEXT:    %[[M:.+]], %[[T1:.+]] = gpu.alloc async [%[[T0]]] () : memref<4xf32>
// CHECK-NEXT:    arith.cmpi
// CHECK-NEXT:    cf.assert
// CHECK-NEXT:    scf.if %{{.+}} {
// CHECK-NEXT:      %{{.+}} = gpu.launch_func async [%[[T1]]] @k::@k
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %[[L1:.+]] = gpu.launch_func async [%[[T1]]] @k::@k
// CHECK-NEXT:      %{{.+}} = gpu.launch_func async [%[[L1]]] @k::@k
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[T2:.+]] = gpu.dealloc async [%[[T1]]] %[[M]] : memref<4xf32>
// CHECK-NEXT:    gpu.wait [%[[T2]]]
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  func.func @regions(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = gpu.alloc () : memref<4xf32>
    %any = arith.cmpi ne, %n, %c0 : index
    cf.assert %any, "n is not 0"
    scf.if %any {
      gpu.launch_func @k::@k blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    }
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
      gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    }
    gpu.dealloc %m : memref<4xf32>
    return
  }
  gpu.module @k {
    gpu.func @k(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}

// -----

// A call (host work with side effects) waits for the device work before
// it; the device work after it starts a new chain. Another region op with
// gpu ops inside waits too, and its body gets a chain of its own.
// CHECK-LABEL: func.func @host_work
// CHECK:         %[[T0:.+]] = gpu.wait async
// CHECK-NEXT:    %[[M:.+]], %[[T1:.+]] = gpu.alloc async [%[[T0]]] () : memref<4xf32>
// CHECK-NEXT:    gpu.wait [%[[T1]]]
// CHECK-NEXT:    call @callee(%[[M]])
// CHECK-NEXT:    %[[T2:.+]] = gpu.wait async
// CHECK-NEXT:    %[[T3:.+]] = gpu.memset async [%[[T2]]] %[[M]]
// CHECK-NEXT:    gpu.wait [%[[T3]]]
// CHECK-NEXT:    scf.execute_region {
// CHECK-NEXT:      %[[T4:.+]] = gpu.wait async
// CHECK-NEXT:      %[[T5:.+]] = gpu.dealloc async [%[[T4]]] %[[M]]
// CHECK-NEXT:      gpu.wait [%[[T5]]]
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func private @callee(memref<4xf32>)
func.func @host_work() {
  %zero = arith.constant 0.0 : f32
  %m = gpu.alloc () : memref<4xf32>
  call @callee(%m) : (memref<4xf32>) -> ()
  gpu.memset %m, %zero : memref<4xf32>, f32
  scf.execute_region {
    gpu.dealloc %m : memref<4xf32>
    scf.yield
  }
  return
}

// -----

// A loop whose body has host work besides its launch cannot continue the
// outer chain (the wait before the call would end the stream that the free
// after the loop uses): the host waits before the loop, and the body gets
// chains of its own.
// CHECK-LABEL: func.func @loop_with_host_work
// CHECK:         %[[T0:.+]] = gpu.wait async
// CHECK-NEXT:    %[[M:.+]], %[[T1:.+]] = gpu.alloc async [%[[T0]]] () : memref<4xf32>
// CHECK-NEXT:    gpu.wait [%[[T1]]]
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %[[L0:.+]] = gpu.wait async
// CHECK-NEXT:      %[[L1:.+]] = gpu.launch_func async [%[[L0]]] @k::@k
// CHECK-NEXT:      gpu.wait [%[[L1]]]
// CHECK-NEXT:      func.call @callee(%[[M]])
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[T2:.+]] = gpu.wait async
// CHECK-NEXT:    %[[T3:.+]] = gpu.dealloc async [%[[T2]]] %[[M]] : memref<4xf32>
// CHECK-NEXT:    gpu.wait [%[[T3]]]
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  func.func private @callee(memref<4xf32>)
  func.func @loop_with_host_work(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = gpu.alloc () : memref<4xf32>
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
      func.call @callee(%m) : (memref<4xf32>) -> ()
    }
    gpu.dealloc %m : memref<4xf32>
    return
  }
  gpu.module @k {
    gpu.func @k(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}

// -----

// Functions without device work, and gpu ops that already are asynchronous
// (their tokens are the caller's to manage), are left alone.
// CHECK-LABEL: func.func @host_only
// CHECK-NOT:     gpu.wait
// CHECK:         return
// CHECK-LABEL: func.func @already_async
// CHECK:         %[[T0:.+]] = gpu.wait async
// CHECK-NEXT:    %{{.+}}, %[[T1:.+]] = gpu.alloc async [%[[T0]]] () : memref<4xf32>
// CHECK-NEXT:    gpu.wait [%[[T1]]]
// CHECK-NEXT:    return
func.func @host_only(%a: index) -> index {
  %b = arith.addi %a, %a : index
  return %b : index
}
func.func @already_async() -> memref<4xf32> {
  %t0 = gpu.wait async
  %m, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
  gpu.wait [%t1]
  return %m : memref<4xf32>
}
