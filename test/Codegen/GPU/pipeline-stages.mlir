// gmm-gpu-pipeline-stages alone: each scf.for marked gmm.pipeline_stages is
// split at its first gpu.barrier into a copy part and a compute part and
// software-pipelined (upstream's scf::pipelineForLoop, epilogue not peeled)
// so that the copies run stages - 1 steps ahead of the math.
// RUN: gmm-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect --gmm-gpu-pipeline-stages | FileCheck %s

// Three stages of cp.async copies, as gmm-gpu-promote-operands and
// gmm-gpu-async-copies make them, with a dynamic trip count: the prologue
// copies steps 0 and 1 (predicated on the trip count: a copy of a step past
// the end reads 0 elements) without waiting; iteration j copies step j + 2
// into stage (j + 2) % 3, reading nothing in the last two iterations, and
// waits until at most 2 groups are in flight (step j's is then complete);
// the math recomputes its own stage index j % 3.
// CHECK-LABEL: func.func @three(
// CHECK-SAME:      %[[SRC:[a-z0-9]+]]: memref<64x32xbf16>, %[[TRIPS:[a-z0-9]+]]: index, %[[TID:[a-z0-9]+]]: index)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK:         %[[SMEM:.+]] = memref.alloc() : memref<3x16x16xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[ANY0:.+]] = arith.cmpi sgt, %[[TRIPS]], %[[C0]] : index
// CHECK-DAG:     %[[N0:.+]] = arith.select %[[ANY0]], %[[TRIPS]], %[[C0]] : index
// CHECK:         %[[T0:.+]] = nvgpu.device_async_copy %[[SRC]][%[[TID]], %[[C0]]], %[[SMEM]][%[[C0]], %[[TID]], %[[C0]]], 8, %[[N0]] {bypassL1}
// CHECK-NEXT:    nvgpu.device_async_create_group %[[T0]]
// CHECK-DAG:     %[[ANY1:.+]] = arith.cmpi sgt, %[[TRIPS]], %[[C1]] : index
// CHECK-DAG:     %[[LEFT1:.+]] = arith.subi %[[TRIPS]], %[[C1]] : index
// CHECK-DAG:     %[[N1:.+]] = arith.select %[[ANY1]], %[[LEFT1]], %[[C0]] : index
// CHECK:         %[[T1:.+]] = nvgpu.device_async_copy %[[SRC]][%[[TID]], %[[C16]]], %[[SMEM]][%[[C1]], %[[TID]], %[[C0]]], 8, %[[N1]] {bypassL1}
// CHECK-NEXT:    nvgpu.device_async_create_group %[[T1]]
// CHECK-NOT:     nvgpu.device_async_wait
// CHECK-NEXT:    %[[R:.+]] = scf.for %[[J:.+]] = %[[C0]] to %[[TRIPS]] step %[[C1]] iter_args(%[[ACC:.+]] = %{{.+}}) -> (vector<8xf32>) {
// CHECK-DAG:       %[[LAST:.+]] = arith.subi %[[TRIPS]], %[[C2]] : index
// CHECK-DAG:       %[[MORE:.+]] = arith.cmpi slt, %[[J]], %[[LAST]] : index
// CHECK-DAG:       %[[NEXT:.+]] = arith.addi %[[J]], %[[C2]] : index
// CHECK-DAG:       %[[NS:.+]] = arith.remui %[[NEXT]], %[[C3]] : index
// CHECK-DAG:       %[[NEXT2:.+]] = arith.addi %[[J]], %[[C2]] : index
// CHECK-DAG:       %[[K:.+]] = arith.muli %[[NEXT2]], %[[C16]] : index
// CHECK-DAG:       %[[NEXT3:.+]] = arith.addi %[[J]], %[[C2]] : index
// CHECK-DAG:       %[[N:.+]] = arith.subi %[[TRIPS]], %[[NEXT3]] : index
// CHECK-DAG:       %[[NP:.+]] = arith.select %[[MORE]], %[[N]], %[[C0]] : index
// CHECK:           %[[T:.+]] = nvgpu.device_async_copy %[[SRC]][%[[TID]], %[[K]]], %[[SMEM]][%[[NS]], %[[TID]], %[[C0]]], 8, %[[NP]] {bypassL1}
// CHECK-NEXT:      %[[G:.+]] = nvgpu.device_async_create_group %[[T]]
// CHECK-NEXT:      nvgpu.device_async_wait %[[G]] {numGroups = 2 : i32}
// CHECK-NEXT:      gpu.barrier
// CHECK-DAG:       %[[S:.+]] = arith.remui %[[J]], %[[C3]] : index
// CHECK:           %[[V:.+]] = vector.load %[[SMEM]][%[[S]], %[[TID]], %[[C0]]]
// CHECK-NEXT:      %[[E:.+]] = arith.extf %[[V]]
// CHECK-NEXT:      %[[A:.+]] = arith.addf %[[ACC]], %[[E]] : vector<8xf32>
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.yield %[[A]] : vector<8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]] : vector<8xf32>
func.func @three(%src: memref<64x32xbf16>, %trips: index, %tid: index) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %smem = memref.alloc() : memref<3x16x16xbf16, #gpu.address_space<workgroup>>
  %r = scf.for %j = %c0 to %trips step %c1 iter_args(%acc = %zero) -> (vector<8xf32>) {
    %s = arith.remui %j, %c3 : index
    %k = arith.muli %j, %c16 : index
    %n = arith.subi %trips, %j : index
    %t = nvgpu.device_async_copy %src[%tid, %k], %smem[%s, %tid, %c0], 8, %n {bypassL1} : memref<64x32xbf16> to memref<3x16x16xbf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g
    gpu.barrier
    %v = vector.load %smem[%s, %tid, %c0] : memref<3x16x16xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
    %e = arith.extf %v : vector<8xbf16> to vector<8xf32>
    %a = arith.addf %acc, %e : vector<8xf32>
    gpu.barrier
    scf.yield %a : vector<8xf32>
  } {gmm.pipeline_stages = 3 : i64}
  return %r : vector<8xf32>
}

// -----

// Two groups per step (a copy, a barrier-free load, another copy): each
// wait allows (2 - 1) * 2 = 2 groups in flight. Copies without a source
// count read all their elements when the step exists.
// CHECK-LABEL: func.func @two_groups(
// CHECK:         scf.for
// CHECK:           %[[P:.+]] = arith.cmpi slt
// CHECK:           %[[NA:.+]] = arith.select %[[P]], %c8{{(_[0-9]+)?}}, %c0{{(_[0-9]+)?}} : index
// CHECK-NEXT:      %[[TA:.+]] = nvgpu.device_async_copy {{.+}}, 8, %[[NA]] {bypassL1}
// CHECK-NEXT:      %[[GA:.+]] = nvgpu.device_async_create_group %[[TA]]
// CHECK-NEXT:      nvgpu.device_async_wait %[[GA]] {numGroups = 2 : i32}
// CHECK:           %[[TB:.+]] = nvgpu.device_async_copy
// CHECK-NEXT:      %[[GB:.+]] = nvgpu.device_async_create_group %[[TB]]
// CHECK-NEXT:      nvgpu.device_async_wait %[[GB]] {numGroups = 2 : i32}
// CHECK-NEXT:      gpu.barrier
func.func @two_groups(%src: memref<64x32xbf16>, %trips: index, %tid: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %smem = memref.alloc() : memref<2x2x64x8xbf16, #gpu.address_space<workgroup>>
  scf.for %j = %c0 to %trips step %c1 {
    %s = arith.remui %j, %c2 : index
    %t = nvgpu.device_async_copy %src[%tid, %j], %smem[%s, %c0, %tid, %c0], 8 {bypassL1} : memref<64x32xbf16> to memref<2x2x64x8xbf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g
    %u = nvgpu.device_async_copy %src[%tid, %j], %smem[%s, %c1, %tid, %c0], 8 {bypassL1} : memref<64x32xbf16> to memref<2x2x64x8xbf16, #gpu.address_space<workgroup>>
    %h = nvgpu.device_async_create_group %u
    nvgpu.device_async_wait %h
    gpu.barrier
    %v = vector.load %smem[%s, %c1, %tid, %c0] : memref<2x2x64x8xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
    gpu.barrier
  } {gmm.pipeline_stages = 2 : i64}
  return
}

// -----

// Element-wise staging (gmm-gpu-promote-operands's path for unaligned operands):
// the load and the store of a step past the end are skipped, the load's
// value zero instead.
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:      %[[SRC:[a-z0-9]+]]: memref<64x32xf32>, %[[TRIPS:[a-z0-9]+]]: index, %[[TID:[a-z0-9]+]]: index)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[SMEM:.+]] = memref.alloc()
// CHECK-DAG:     %[[ANY:.+]] = arith.cmpi sgt, %[[TRIPS]], %[[C0]] : index
// CHECK:         %[[X0:.+]] = scf.if %[[ANY]] -> (f32) {
// CHECK-NEXT:      %[[L0:.+]] = memref.load %[[SRC]][%[[TID]], %[[C0]]] : memref<64x32xf32>
// CHECK-NEXT:      scf.yield %[[L0]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[ZERO]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.if %[[ANY]] {
// CHECK-NEXT:      memref.store %[[X0]], %[[SMEM]][%[[C0]], %[[TID]]]
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %[[J:.+]] = %[[C0]] to %[[TRIPS]] step %[[C1]] iter_args(%{{.+}}) -> (f32) {
// CHECK-DAG:       %[[LAST:.+]] = arith.subi %[[TRIPS]], %[[C1]] : index
// CHECK-DAG:       %[[MORE:.+]] = arith.cmpi slt, %[[J]], %[[LAST]] : index
// CHECK:           %[[X:.+]] = scf.if %[[MORE]] -> (f32) {
// CHECK-NEXT:        memref.load %[[SRC]]
// CHECK:           scf.if %[[MORE]] {
// CHECK-NEXT:        memref.store %[[X]], %[[SMEM]]
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-DAG:       %[[S:.+]] = arith.remui %[[J]], %c2{{(_[0-9]+)?}} : index
// CHECK:           memref.load %[[SMEM]][%[[S]], %[[TID]]]
func.func @elementwise(%src: memref<64x32xf32>, %trips: index, %tid: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %smem = memref.alloc() : memref<2x64xf32, #gpu.address_space<workgroup>>
  %r = scf.for %j = %c0 to %trips step %c1 iter_args(%acc = %zero) -> (f32) {
    %s = arith.remui %j, %c2 : index
    %x = memref.load %src[%tid, %j] : memref<64x32xf32>
    memref.store %x, %smem[%s, %tid] : memref<2x64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %y = memref.load %smem[%s, %tid] : memref<2x64xf32, #gpu.address_space<workgroup>>
    %a = arith.addf %acc, %y : f32
    gpu.barrier
    scf.yield %a : f32
  } {gmm.pipeline_stages = 2 : i64}
  return %r : f32
}

// -----

// One stage: nothing to overlap, the mark is dropped and the loop kept.
// CHECK-LABEL: func.func @one_stage(
// CHECK:         scf.for
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:    }
// CHECK-NOT:     gmm.pipeline_stages
func.func @one_stage(%src: memref<64xf32>, %n: index, %tid: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %smem = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  scf.for %j = %c0 to %n step %c1 {
    %x = memref.load %src[%j] : memref<64xf32>
    memref.store %x, %smem[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
  } {gmm.pipeline_stages = 1 : i64}
  return
}

// -----

func.func @no_barrier(%src: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op gmm-gpu-pipeline-stages expects a gpu.barrier between the loop's copies and its math}}
  scf.for %j = %c0 to %n step %c1 {
    %x = memref.load %src[%j] : memref<64xf32>
  } {gmm.pipeline_stages = 2 : i64}
  return
}

// -----

func.func @bad_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op gmm-gpu-pipeline-stages expects 'gmm.pipeline_stages' to be an integer in [1, 8]}}
  scf.for %j = %c0 to %n step %c1 {
    gpu.barrier
  } {gmm.pipeline_stages = 0 : i64}
  return
}

// -----

// A value the copy part loads cannot be recomputed after the barrier.
func.func @loaded_value_used_later(%src: memref<64xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %src[%j] : memref<64xf32>
    gpu.barrier
    // expected-error @+1 {{'arith.addf' op gmm-gpu-pipeline-stages cannot recompute this operand from the copy part (only pure ops are)}}
    %a = arith.addf %acc, %x : f32
    scf.yield %a : f32
  } {gmm.pipeline_stages = 2 : i64}
  return %r : f32
}

// -----

// An op of unknown effects cannot be skipped for steps past the end.
func.func @unknown_effects(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %n step %c1 {
    // expected-error @+1 {{'test.unknown' op gmm-gpu-pipeline-stages cannot run this op of the copy part past the loop's last step}}
    "test.unknown"() : () -> ()
    gpu.barrier
  } {gmm.pipeline_stages = 2 : i64}
  return
}
