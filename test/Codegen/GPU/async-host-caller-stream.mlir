// gmm-gpu-async-host{caller-stream}: the function takes its caller's stream as a
// last !gpu.async.token argument (marked gmm.stream), every chain starts
// from it, and nothing waits: the caller synchronizes. Host work that would
// need a wait is an error at the op.
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(gmm-gpu-async-host{caller-stream})" | FileCheck %s

// CHECK-LABEL: func.func @straight(
// CHECK-SAME:    %{{.+}}: memref<4xf32>, %[[S:[a-z0-9]+]]: !gpu.async.token {gmm.stream})
// CHECK-NOT:     gpu.wait
// CHECK:         %[[M:.+]], %[[T1:.+]] = gpu.alloc async [%[[S]]] () : memref<4xf32>
// CHECK-NEXT:    %[[T2:.+]] = gpu.memset async [%[[T1]]] %[[M]], %{{.+}} : memref<4xf32>, f32
// CHECK-NEXT:    %[[T3:.+]] = gpu.launch_func async [%[[T2]]] @k::@k
// CHECK-NEXT:    %[[T4:.+]] = gpu.memcpy async [%[[T3]]] %{{.+}}, %[[M]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    %{{.+}} = gpu.dealloc async [%[[T4]]] %[[M]] : memref<4xf32>
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

// Bodies that continue the chain start from the token before them; a region
// op with gpu ops of its own starts its chain from the stream, and so do the
// ops after it (all on the one stream, so in order); a function without gpu
// ops still takes the stream (one calling convention).
// CHECK-LABEL: func.func @regions(
// CHECK-SAME:    %{{.+}}: i1, %[[S:[a-z0-9]+]]: !gpu.async.token {gmm.stream})
// CHECK-NOT:     gpu.wait
// CHECK:         %[[M:.+]], %[[T1:.+]] = gpu.alloc async [%[[S]]] () : memref<4xf32>
// CHECK:         scf.if %{{.+}} {
// CHECK-NEXT:      gpu.launch_func async [%[[T1]]] @k::@k
// CHECK:         scf.execute_region {
// CHECK-NEXT:      gpu.launch_func async [%[[S]]] @k::@k
// CHECK-NEXT:      scf.yield
// CHECK:         gpu.dealloc async [%[[S]]] %[[M]]
// CHECK-NOT:     gpu.wait
// CHECK:         return
// CHECK-LABEL: func.func @nothing(
// CHECK-SAME:    %{{.+}}: index, %{{.+}}: !gpu.async.token {gmm.stream}) -> index
module attributes {gpu.container_module} {
  func.func @regions(%flag: i1) {
    %c1 = arith.constant 1 : index
    %m = gpu.alloc () : memref<4xf32>
    scf.if %flag {
      gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    }
    scf.execute_region {
      gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
      scf.yield
    }
    gpu.dealloc %m : memref<4xf32>
    return
  }
  func.func @nothing(%n: index) -> index {
    return %n : index
  }
  gpu.module @k {
    gpu.func @k(%arg0: memref<4xf32>) kernel { gpu.return }
  }
}

// -----

// A call of a function of the module passes the stream on and does not wait:
// the callee enqueues its work on the same stream.
// CHECK-LABEL: func.func @callee(
// CHECK-SAME:    %{{.+}}: memref<4xf32>, %[[S0:[a-z0-9]+]]: !gpu.async.token {gmm.stream})
// CHECK:         gpu.memset async [%[[S0]]]
// CHECK-LABEL: func.func @caller(
// CHECK-SAME:    %[[S:[a-z0-9]+]]: !gpu.async.token {gmm.stream})
// CHECK:         %[[M:.+]], %[[T1:.+]] = gpu.alloc async [%[[S]]] () : memref<4xf32>
// CHECK-NEXT:    call @callee(%[[M]], %[[S]]) : (memref<4xf32>, !gpu.async.token) -> ()
// CHECK-NEXT:    gpu.dealloc async [%[[T1]]] %[[M]]
// CHECK-NOT:     gpu.wait
// CHECK:         return
module attributes {gpu.container_module} {
  func.func @callee(%m: memref<4xf32>) {
    %zero = arith.constant 0.0 : f32
    gpu.memset %m, %zero : memref<4xf32>, f32
    return
  }
  func.func @caller() {
    %m = gpu.alloc () : memref<4xf32>
    call @callee(%m) : (memref<4xf32>) -> ()
    gpu.dealloc %m : memref<4xf32>
    return
  }
}

// -----

// The host cannot wait for a caller's stream inside the function (here: a
// call of an external function).
module attributes {gpu.container_module} {
  func.func private @callee(memref<4xf32>)
  func.func @host_work() {
    %m = gpu.alloc () : memref<4xf32>
    // expected-error @+1 {{'func.call' op gmm-gpu-async-host: with caller-stream, the host would have to wait for the device before this op, which a caller's stream does not allow}}
    call @callee(%m) : (memref<4xf32>) -> ()
    gpu.dealloc %m : memref<4xf32>
    return
  }
}
