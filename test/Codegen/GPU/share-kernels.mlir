// gmm-gpu-share-kernels keeps one gpu.module per class of equal kernel modules
// (equal up to the names of the module and its symbols, and up to
// locations) and points every launch at it.
// RUN: gmm-opt %s -split-input-file -allow-unregistered-dialect --gmm-gpu-share-kernels | FileCheck %s

// Two copies of a kernel under different names, and a third that differs
// in one constant: the copies share the first module.
// CHECK-LABEL: func.func @same_and_different
// CHECK:         gpu.launch_func @a_kernel::@a_kernel
// CHECK-NEXT:    gpu.launch_func @a_kernel::@a_kernel
// CHECK-NEXT:    gpu.launch_func @c_kernel::@c_kernel
// CHECK:       gpu.module @a_kernel
// CHECK:         arith.constant 1.000000e+00 : f32
// CHECK-NOT:   gpu.module @b_kernel
// CHECK:       gpu.module @c_kernel
// CHECK:         arith.constant 2.000000e+00 : f32
module attributes {gpu.container_module} {
  func.func @same_and_different(%buf: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a_kernel::@a_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xf32>)
    gpu.launch_func @b_kernel::@b_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xf32>)
    gpu.launch_func @c_kernel::@c_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xf32>)
    return
  }
  gpu.module @a_kernel {
    gpu.func @a_kernel(%arg0: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      memref.store %v, %arg0[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @b_kernel {
    gpu.func @b_kernel(%arg0: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index loc("elsewhere.mlir":7:7)
      %v = arith.constant 1.0 : f32
      memref.store %v, %arg0[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @c_kernel {
    gpu.func @c_kernel(%arg0: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 2.0 : f32
      memref.store %v, %arg0[%c0] : memref<4xf32>
      gpu.return
    }
  }
}

// -----

// Modules with two kernels: a launch of the second kernel of a shared
// module goes to the second kernel of the kept one.
// CHECK-LABEL: func.func @two_kernels
// CHECK:         gpu.launch_func @m1::@first
// CHECK-NEXT:    gpu.launch_func @m1::@second
// CHECK-NEXT:    gpu.launch_func @m1::@second
// CHECK-NEXT:    gpu.launch_func @m1::@first
// CHECK-NOT:   gpu.module @m2
module attributes {gpu.container_module} {
  func.func @two_kernels(%buf: memref<4xi32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @m1::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xi32>)
    gpu.launch_func @m1::@second blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xi32>)
    gpu.launch_func @m2::@other_second blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xi32>)
    gpu.launch_func @m2::@other_first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xi32>)
    return
  }
  gpu.module @m1 {
    gpu.func @first(%arg0: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      memref.store %v, %arg0[%c0] : memref<4xi32>
      gpu.return
    }
    gpu.func @second(%arg0: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 2 : i32
      memref.store %v, %arg0[%c0] : memref<4xi32>
      gpu.return
    }
  }
  gpu.module @m2 {
    gpu.func @other_first(%arg0: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      memref.store %v, %arg0[%c0] : memref<4xi32>
      gpu.return
    }
    gpu.func @other_second(%arg0: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %v = arith.constant 2 : i32
      memref.store %v, %arg0[%c0] : memref<4xi32>
      gpu.return
    }
  }
}

// -----

// Equal bodies are not enough: different targets, kernel attributes or
// argument types keep the modules apart. Each kept module's kernel takes
// the module's name, unique in the program.
// CHECK-LABEL: func.func @not_equal
// CHECK:         gpu.launch_func @sm80::@sm80
// CHECK-NEXT:    gpu.launch_func @sm90::@sm90
// CHECK-NEXT:    gpu.launch_func @sized::@sized
// CHECK-NEXT:    gpu.launch_func @f16_arg::@f16_arg
// CHECK:       gpu.module @sm80
// CHECK:       gpu.module @sm90
// CHECK:       gpu.module @sized
// CHECK:       gpu.module @f16_arg
module attributes {gpu.container_module} {
  func.func @not_equal(%a: memref<4xf32>, %b: memref<4xf16>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @sm80::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @sm90::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @sized::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @f16_arg::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<4xf16>)
    return
  }
  gpu.module @sm80 [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @sm90 [#nvvm.target<chip = "sm_90">] {
    gpu.func @k(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @sized [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%arg0: memref<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      gpu.return
    }
  }
  gpu.module @f16_arg [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%arg0: memref<4xf16>) kernel {
      gpu.return
    }
  }
}

// -----

// A module named by anything other than a launch of its kernels stays,
// and so does its twin: only modules used by launches alone are merged
// (and have their kernel renamed).
// CHECK-LABEL: func.func @other_user
// CHECK:         gpu.launch_func @used::@k
// CHECK-NEXT:    gpu.launch_func @twin::@twin
// CHECK-NEXT:    "test.symbol_user"() {ref = @used}
// CHECK:       gpu.module @used
// CHECK:       gpu.module @twin
module attributes {gpu.container_module} {
  func.func @other_user(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @used::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @twin::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    "test.symbol_user"() {ref = @used} : () -> ()
    return
  }
  gpu.module @used {
    gpu.func @k(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @twin {
    gpu.func @k(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Two different kernels that gpu-kernel-outlining named alike (the same
// function, role and configuration, e.g. for two ragged dots of different
// shapes) live in modules @f_tile and @f_tile_0 with one kernel name; each
// kernel takes its module's name, and a launch of a module merged into a
// renamed one follows it.
// CHECK-LABEL: func.func @f
// CHECK:         gpu.launch_func @f_tile::@f_tile
// CHECK-NEXT:    gpu.launch_func @f_tile_0::@f_tile_0
// CHECK-NEXT:    gpu.launch_func @f_tile_0::@f_tile_0
// CHECK:       gpu.module @f_tile
// CHECK-NEXT:    gpu.func @f_tile(%{{.+}}: memref<4xf32>) kernel
// CHECK:       gpu.module @f_tile_0
// CHECK-NEXT:    gpu.func @f_tile_0(%{{.+}}: memref<4xi32>) kernel
// CHECK-NOT:   gpu.module @f_tile_1
module attributes {gpu.container_module} {
  func.func @f(%a: memref<4xf32>, %b: memref<4xi32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_tile::@f_tile blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @f_tile_0::@f_tile blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<4xi32>)
    gpu.launch_func @f_tile_1::@f_tile blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<4xi32>)
    return
  }
  gpu.module @f_tile {
    gpu.func @f_tile(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @f_tile_0 {
    gpu.func @f_tile(%arg0: memref<4xi32>) kernel {
      gpu.return
    }
  }
  gpu.module @f_tile_1 {
    gpu.func @f_tile(%arg0: memref<4xi32>) kernel {
      gpu.return
    }
  }
}
