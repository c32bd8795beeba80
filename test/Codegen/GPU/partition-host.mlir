// gmm-gpu-partition-host keeps the host away from device memory: host
// allocations, frees, copies and fills become gpu ops, other runs of
// memory-touching ops become single-thread ("serial") kernels, and scalars
// such kernels compute for later kernels pass through one-element buffers.
// RUN: gmm-opt %s -split-input-file -verify-diagnostics --gmm-gpu-partition-host | FileCheck %s

// Allocations become gpu.alloc, freed at the end of their block unless
// returned or freed already; memref.dealloc becomes gpu.dealloc.
// CHECK:       module attributes {gpu.container_module}
// CHECK-LABEL: func.func @allocs
// CHECK-SAME:    (%[[N:.+]]: index) -> memref<?xf32>
// CHECK-NEXT:    %[[A:.+]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT:    %[[B:.+]] = gpu.alloc (%[[N]]) : memref<?xf32>
// CHECK-NEXT:    %[[C:.+]] = gpu.alloc () : memref<8xi32>
// CHECK-NEXT:    gpu.dealloc %[[C]] : memref<8xi32>
// CHECK-NEXT:    gpu.dealloc %[[A]] : memref<4xf32>
// CHECK-NEXT:    return %[[B]] : memref<?xf32>
func.func @allocs(%n: index) -> memref<?xf32> {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  %c = memref.alloca() : memref<8xi32>
  memref.dealloc %c : memref<8xi32>
  return %b : memref<?xf32>
}

// -----

// Fills of 16- and 32-bit elements on identity-layout buffers become
// gpu.memset; an f64 or i8 fill, or one on a strided view, runs in a serial
// kernel (after the pure subview, which stays on the host).
// CHECK-LABEL: func.func @fills
// CHECK-SAME:    (%[[A:.+]]: memref<4xf32>, %[[B:.+]]: memref<4xbf16>, %[[C:.+]]: memref<4xi32>, %[[D:.+]]: memref<4xf64>, %[[E:.+]]: memref<4xi8>, %[[F:.+]]: memref<4x4xf32>)
// CHECK-DAG:     %[[F32:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[BF16:.+]] = arith.constant 1.000000e+00 : bf16
// CHECK-DAG:     %[[I32:.+]] = arith.constant 7 : i32
// CHECK-DAG:     %[[F64:.+]] = arith.constant 2.000000e+00 : f64
// CHECK-DAG:     %[[I8:.+]] = arith.constant 3 : i8
// CHECK:         gpu.memset %[[A]], %[[F32]] : memref<4xf32>, f32
// CHECK-NEXT:    gpu.memset %[[B]], %[[BF16]] : memref<4xbf16>, bf16
// CHECK-NEXT:    gpu.memset %[[C]], %[[I32]] : memref<4xi32>, i32
// CHECK-NEXT:    %[[S:.+]] = memref.subview %[[F]]
// CHECK-NEXT:    %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT:    gpu.launch blocks(%{{.+}}) in (%{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]]) threads(%{{.+}}) in (%{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]]) function(@fills_serial) {
// CHECK-NEXT:      linalg.fill ins(%[[F64]] : f64) outs(%[[D]] : memref<4xf64>)
// CHECK-NEXT:      linalg.fill ins(%[[I8]] : i8) outs(%[[E]] : memref<4xi8>)
// CHECK-NEXT:      linalg.fill ins(%[[F32]] : f32) outs(%[[S]] : memref<4xf32, strided<[4], offset: 1>>)
// CHECK:           gpu.terminator
// CHECK-NEXT:    } {gmm.kernel = "serial"}
// CHECK-NEXT:    return
func.func @fills(%a: memref<4xf32>, %b: memref<4xbf16>, %c: memref<4xi32>, %d: memref<4xf64>, %e: memref<4xi8>, %f: memref<4x4xf32>) {
  %f32 = arith.constant 1.0 : f32
  %bf16 = arith.constant 1.0 : bf16
  %i32 = arith.constant 7 : i32
  %f64 = arith.constant 2.0 : f64
  %i8 = arith.constant 3 : i8
  linalg.fill ins(%f32 : f32) outs(%a : memref<4xf32>)
  linalg.fill ins(%bf16 : bf16) outs(%b : memref<4xbf16>)
  linalg.fill ins(%i32 : i32) outs(%c : memref<4xi32>)
  linalg.fill ins(%f64 : f64) outs(%d : memref<4xf64>)
  linalg.fill ins(%i8 : i8) outs(%e : memref<4xi8>)
  %s = memref.subview %f[0, 1] [4, 1] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[4], offset: 1>>
  linalg.fill ins(%f32 : f32) outs(%s : memref<4xf32, strided<[4], offset: 1>>)
  return
}

// -----

// A contiguous copy becomes gpu.memcpy (target first); a copy out of a
// strided view runs in a serial kernel. A global gets a device copy, which
// its users read; the copy is freed at the end.
// CHECK-LABEL: func.func @copies
// CHECK-SAME:    (%[[A:.+]]: memref<4xi32>, %[[B:.+]]: memref<4xi32>, %[[C:.+]]: memref<4x4xi32>)
// CHECK-NEXT:    %[[G:.+]] = memref.get_global @cst : memref<4xi32>
// CHECK-NEXT:    %[[D:.+]] = gpu.alloc () : memref<4xi32>
// CHECK-NEXT:    gpu.memcpy %[[D]], %[[G]] : memref<4xi32>, memref<4xi32>
// CHECK-NEXT:    gpu.memcpy %[[A]], %[[D]] : memref<4xi32>, memref<4xi32>
// CHECK-NEXT:    gpu.memcpy %[[B]], %[[A]] : memref<4xi32>, memref<4xi32>
// CHECK-NEXT:    %[[S:.+]] = memref.subview %[[C]]
// CHECK-NEXT:    arith.constant 1 : index
// CHECK-NEXT:    gpu.launch
// CHECK-NEXT:      memref.copy %[[S]], %[[A]] : memref<4xi32, strided<[4], offset: 1>> to memref<4xi32>
// CHECK:           gpu.terminator
// CHECK-NEXT:    } {gmm.kernel = "serial"}
// CHECK-NEXT:    gpu.dealloc %[[D]] : memref<4xi32>
// CHECK-NEXT:    return
memref.global "private" constant @cst : memref<4xi32> = dense<[1, 2, 3, 4]>
func.func @copies(%a: memref<4xi32>, %b: memref<4xi32>, %c: memref<4x4xi32>) {
  %g = memref.get_global @cst : memref<4xi32>
  memref.copy %g, %a : memref<4xi32> to memref<4xi32>
  memref.copy %a, %b : memref<4xi32> to memref<4xi32>
  %s = memref.subview %c[0, 1] [4, 1] [1, 1] : memref<4x4xi32> to memref<4xi32, strided<[4], offset: 1>>
  memref.copy %s, %a : memref<4xi32, strided<[4], offset: 1>> to memref<4xi32>
  return
}

// -----

// A prefix sum and the read of its total become one serial kernel; the
// constants and memref.dim stay on the host. The total, a loop bound of
// the tile kernel, goes through a one-element device buffer.
// CHECK-LABEL: func.func @prefix_sum
// CHECK-SAME:    (%[[SIZES:.+]]: memref<4xi32>, %[[OFFS:.+]]: memref<5xi32>, %[[OUT:.+]]: memref<?x4xf32>)
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[Z:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[DIM:.+]] = memref.dim %[[OUT]], %[[C0]]
// CHECK-NEXT:    %[[BUF:.+]] = gpu.alloc () : memref<1xindex>
// CHECK-NEXT:    %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT:    gpu.launch blocks(%{{.+}}) in (%{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]]) threads(%{{.+}}) in (%{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]], %{{.+}} = %[[ONE]]) function(@prefix_sum_serial) {
// CHECK-NEXT:      memref.store %[[Z]], %[[OFFS]][%[[C0]]]
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.load %[[SIZES]]
// CHECK-NEXT:        arith.addi
// CHECK-NEXT:        arith.addi
// CHECK-NEXT:        memref.store
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[LAST:.+]] = memref.load %[[OFFS]][%[[C4]]]
// CHECK-DAG:       %[[N:.+]] = arith.index_cast %[[LAST]] : i32 to index
// CHECK:           %[[I0:.+]] = arith.constant 0 : index
// CHECK-NEXT:      memref.store %[[N]], %[[BUF]][%[[I0]]] : memref<1xindex>
// CHECK-NEXT:      gpu.terminator
// CHECK-NEXT:    } {gmm.kernel = "serial"}
// CHECK-NEXT:    gpu.launch blocks(%{{.+}}) in (%{{.+}} = %[[DIM]], %{{.+}} = %[[C1]], %{{.+}} = %[[C1]])
// CHECK-NEXT:      %[[J0:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[LOADED:.+]] = memref.load %[[BUF]][%[[J0]]] : memref<1xindex>
// CHECK-NEXT:      arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.for %{{.+}} = %[[C0]] to %[[LOADED]] step %[[C1]]
// CHECK:           gpu.terminator
// CHECK-NEXT:    }{{$}}
// CHECK-NEXT:    gpu.dealloc %[[BUF]] : memref<1xindex>
// CHECK-NEXT:    return
func.func @prefix_sum(%sizes: memref<4xi32>, %offsets: memref<5xi32>, %out: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  memref.store %z, %offsets[%c0] : memref<5xi32>
  %total = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (i32) {
    %s = memref.load %sizes[%i] : memref<4xi32>
    %next = arith.addi %acc, %s : i32
    %i1 = arith.addi %i, %c1 : index
    memref.store %next, %offsets[%i1] : memref<5xi32>
    scf.yield %next : i32
  }
  %d = memref.dim %out, %c0 : memref<?x4xf32>
  %last = memref.load %offsets[%c4] : memref<5xi32>
  %n = arith.index_cast %last : i32 to index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %d, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = arith.constant 0.0 : f32
    scf.for %j = %c0 to %n step %c1 {
      memref.store %v, %out[%j, %c0] : memref<?x4xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A loop without host work runs in a kernel; one with an allocation stays
// on the host, its buffers freed at the end of its body, and the rest of
// its body runs in a kernel there. A call stays on the host and splits the
// runs around it. A cf.assert on host values stays on the host; one on a
// device value runs in the kernel.
// CHECK-LABEL: func.func @nested
// CHECK-SAME:    (%[[N:.+]]: index, %[[O:.+]]: memref<4xf32>, %[[M:.+]]: memref<4xindex>)
// CHECK:         %[[OK:.+]] = arith.cmpi ne, %[[N]]
// CHECK-NEXT:    cf.assert %[[OK]], "n is zero"
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      %[[A:.+]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT:      gpu.memcpy %[[O]], %[[A]]
// CHECK-NEXT:      %[[X:.+]] = gpu.alloc () : memref<4xf64>
// CHECK-NEXT:      arith.constant 1 : index
// CHECK-NEXT:      gpu.launch
// CHECK-NEXT:        linalg.fill ins(%{{.+}} : f64) outs(%[[X]] : memref<4xf64>)
// CHECK:           } {gmm.kernel = "serial"}
// CHECK-NEXT:      gpu.dealloc %[[A]] : memref<4xf32>
// CHECK-NEXT:      gpu.dealloc %[[X]] : memref<4xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    arith.constant 1 : index
// CHECK-NEXT:    gpu.launch
// CHECK-NEXT:      %[[V:.+]] = memref.load %[[M]]
// CHECK-DAG:       %[[OK2:.+]] = arith.cmpi ne, %[[V]]
// CHECK:           cf.assert %[[OK2]], "v is zero"
// CHECK:         } {gmm.kernel = "serial"}
// CHECK-NEXT:    call @callee(%[[O]])
// CHECK-NEXT:    arith.constant 1 : index
// CHECK-NEXT:    gpu.launch
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        memref.store
// CHECK-NEXT:      }
// CHECK:         } {gmm.kernel = "serial"}
// CHECK-NEXT:    return
func.func private @callee(memref<4xf32>)
func.func @nested(%n: index, %o: memref<4xf32>, %m: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v64 = arith.constant 1.0 : f64
  %ok = arith.cmpi ne, %n, %c0 : index
  cf.assert %ok, "n is zero"
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloc() : memref<4xf32>
    memref.copy %a, %o : memref<4xf32> to memref<4xf32>
    %x = memref.alloc() : memref<4xf64>
    linalg.fill ins(%v64 : f64) outs(%x : memref<4xf64>)
  }
  %v = memref.load %m[%c0] : memref<4xindex>
  %ok2 = arith.cmpi ne, %v, %c0 : index
  cf.assert %ok2, "v is zero"
  call @callee(%o) : (memref<4xf32>) -> ()
  scf.for %i = %c0 to %n step %c1 {
    memref.store %i, %m[%c0] : memref<4xindex>
  }
  return
}

// -----
func.func @memory_space() {
  // expected-error @+1 {{gmm-gpu-partition-host: unexpected memory space}}
  %a = memref.alloc() : memref<4xf32, 3>
  return
}

// -----
func.func @vector_to_host(%m: memref<8xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{gmm-gpu-partition-host: a value of type 'vector<4xf32>' computed on the device is used on the host}}
  %v = vector.load %m[%c0] : memref<8xf32>, vector<4xf32>
  return %v : vector<4xf32>
}

// -----
func.func @scalar_returned(%m: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<8xf32>
  // expected-error @+1 {{gmm-gpu-partition-host: uses a value computed on the device on the host}}
  return %v : f32
}

// -----
// A grid size is read by the host.
func.func @device_grid(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.load %m[%c0] : memref<8xindex>
  // expected-error @+1 {{gmm-gpu-partition-host: uses a value computed on the device on the host}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) { gpu.terminator }
  return
}

// -----
func.func @alloc_leaves_loop(%n: index, %init: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %init) -> (memref<4xf32>) {
    // expected-error @+1 {{gmm-gpu-partition-host: a buffer allocated in a loop or branch leaves it}}
    %a = memref.alloc() : memref<4xf32>
    scf.yield %a : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----
// A buffer the function returns through a loop result or a select is the
// caller's: not freed.
// CHECK-LABEL: func.func @returned_through_loop
// CHECK:         %[[A:.+]] = gpu.alloc () : memref<4xf32>
// CHECK-NOT:     gpu.dealloc
// CHECK:         return
func.func @returned_through_loop(%n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %init) -> (memref<4xf32>) {
    scf.yield %b : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----
// CHECK-LABEL: func.func @returned_through_select
// CHECK:         gpu.alloc () : memref<4xf32>
// CHECK:         gpu.alloc () : memref<4xf32>
// CHECK-NOT:     gpu.dealloc
// CHECK:         return
func.func @returned_through_select(%c: i1) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %r = arith.select %c, %a, %b : memref<4xf32>
  return %r : memref<4xf32>
}

// -----
// Buffers that a branch of the function's own block hands back, and that
// are only copied from, are freed at the end of the function.
// CHECK-LABEL: func.func @branch_result_freed
// CHECK:         %[[A:.+]] = gpu.alloc () : memref<4xf32>
// CHECK:         %[[B:.+]] = gpu.alloc () : memref<4xf32>
// CHECK:         gpu.memcpy
// CHECK-DAG:     gpu.dealloc %[[A]] : memref<4xf32>
// CHECK-DAG:     gpu.dealloc %[[B]] : memref<4xf32>
// CHECK:         return
func.func @branch_result_freed(%c: i1, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %r = scf.if %c -> (memref<4xf32>) {
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %b : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----
func.func @alloc_leaves_branch(%c: i1, %init: memref<4xf32>) -> memref<4xf32> {
  %r = scf.if %c -> (memref<4xf32>) {
    // expected-error @+1 {{gmm-gpu-partition-host: a buffer allocated in a loop or branch leaves it}}
    %a = memref.alloc() : memref<4xf32>
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %init : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----
// Kernels and frees are placed by structured control flow.
// expected-error @+1 {{'func.func' op gmm-gpu-partition-host expects host regions of one block (structured control flow)}}
func.func @blocks(%m: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  cf.br ^bb1
^bb1:
  memref.store %v, %m[%c0] : memref<4xf32>
  return
}

// -----
// Nested regions of more than one block are refused too: a free at the end
// of the allocating block would come before the successor's uses.
func.func @nested_blocks(%out: memref<4xf32>) {
  // expected-error @+1 {{'scf.execute_region' op gmm-gpu-partition-host expects host regions of one block (structured control flow)}}
  scf.execute_region {
    %a = memref.alloc() : memref<4xf32>
    cf.br ^bb1
  ^bb1:
    memref.copy %a, %out : memref<4xf32> to memref<4xf32>
    scf.yield
  }
  return
}

// -----
// A buffer handed from the before region of an scf.while to its after
// region and freed there is not freed again.
// CHECK-LABEL: func.func @while_freed
// CHECK:         %[[A:.+]] = gpu.alloc () : memref<4xf32>
// CHECK:         scf.while
// CHECK:           gpu.dealloc
// CHECK-NOT:     gpu.dealloc
// CHECK:         return
func.func @while_freed(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  scf.while (%x = %a) : (memref<4xf32>) -> (memref<4xf32>) {
    scf.condition(%c) %x : memref<4xf32>
  } do {
  ^bb0(%y: memref<4xf32>):
    memref.dealloc %y : memref<4xf32>
    scf.yield %y : memref<4xf32>
  }
  return
}
