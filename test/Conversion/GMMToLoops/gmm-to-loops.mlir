// RUN: gmm-opt %s -split-input-file -convert-gmm-to-loops -canonicalize -cse | FileCheck %s

// Mode 1: a loop per result dim; each element scans the clamped group bounds
// for the group of its row, and only a covered row computes its dot product
// with that group's rhs. Without init the destination is zero-filled.

// CHECK-LABEL: func.func @mode1
// CHECK-SAME:    %[[LHS:[a-z0-9]+]]: tensor<8x2xf32>, %[[RHS:[a-z0-9]+]]: tensor<3x2x2xf32>, %[[GS:[a-z0-9]+]]: tensor<3xi32>
// CHECK-DAG:     %[[E64:[a-z0-9_-]+]] = arith.constant 8 : i64
// CHECK-DAG:     %[[Z64:[a-z0-9_-]+]] = arith.constant 0 : i64
// CHECK-DAG:     %[[NONE:[a-z0-9_-]+]] = arith.constant -1 : index
// CHECK-DAG:     %[[ZERO:[a-z0-9_-]+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C0:[a-z0-9_-]+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:[a-z0-9_-]+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:[a-z0-9_-]+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:[a-z0-9_-]+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C8:[a-z0-9_-]+]] = arith.constant 8 : index
// CHECK:         %[[EMPTY:[a-z0-9_-]+]] = tensor.empty() : tensor<8x2xf32>
// CHECK:         %[[FILL:[a-z0-9_-]+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<8x2xf32>)
// CHECK:         %[[RES:[a-z0-9_-]+]] = scf.for %[[M:[a-z0-9_-]+]] = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%[[A0:[a-z0-9_-]+]] = %[[FILL]])
// CHECK:           scf.for %[[N:[a-z0-9_-]+]] = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%[[A1:[a-z0-9_-]+]] = %[[A0]])
// CHECK:             %[[FOUND:[a-z0-9_-]+]]:2 = scf.for %[[G:[a-z0-9_-]+]] = %[[C0]] to %[[C3]] step %[[C1]] iter_args(%[[START:[a-z0-9_-]+]] = %[[C0]], %[[SEEN:[a-z0-9_-]+]] = %[[NONE]]) -> (index, index)
// CHECK:               %[[SZ:[a-z0-9_-]+]] = tensor.extract %[[GS]][%[[G]]] : tensor<3xi32>
// CHECK:               %[[SZ64:[a-z0-9_-]+]] = arith.extsi %[[SZ]] : i32 to i64
// CHECK:               %[[POS:[a-z0-9_-]+]] = arith.maxsi %[[SZ64]], %[[Z64]] : i64
// CHECK:               %[[CLAMP:[a-z0-9_-]+]] = arith.minsi %[[POS]], %[[E64]] : i64
// CHECK:               %[[SZI:[a-z0-9_-]+]] = arith.index_cast %[[CLAMP]] : i64 to index
// CHECK:               %[[SUM:[a-z0-9_-]+]] = arith.addi %[[START]], %[[SZI]] : index
// CHECK:               %[[END:[a-z0-9_-]+]] = arith.minsi %[[SUM]], %[[C8]] : index
// CHECK:               %[[GE:[a-z0-9_-]+]] = arith.cmpi sge, %[[M]], %[[START]] : index
// CHECK:               %[[LT:[a-z0-9_-]+]] = arith.cmpi slt, %[[M]], %[[END]] : index
// CHECK:               %[[IN:[a-z0-9_-]+]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:               %[[SEL:[a-z0-9_-]+]] = arith.select %[[IN]], %[[G]], %[[SEEN]] : index
// CHECK:               scf.yield %[[END]], %[[SEL]] : index, index
// CHECK:             %[[INSIDE:[a-z0-9_-]+]] = arith.cmpi ult, %[[FOUND]]#1, %[[C3]] : index
// CHECK:             %[[COVERED:[a-z0-9_-]+]] = arith.andi %{{.+}}, %[[INSIDE]] : i1
// CHECK:             scf.if %[[COVERED]] -> (tensor<8x2xf32>)
// CHECK:               %[[DOT:[a-z0-9_-]+]] = scf.for %[[K:[a-z0-9_-]+]] = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%[[S:[a-z0-9_-]+]] = %[[ZERO]]) -> (f32)
// CHECK:                 %[[X:[a-z0-9_-]+]] = tensor.extract %[[LHS]][%[[M]], %[[K]]] : tensor<8x2xf32>
// CHECK:                 %[[W:[a-z0-9_-]+]] = tensor.extract %[[RHS]][%[[FOUND]]#1, %[[K]], %[[N]]] : tensor<3x2x2xf32>
// CHECK:                 %[[P:[a-z0-9_-]+]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK:                 %[[S1:[a-z0-9_-]+]] = arith.addf %[[S]], %[[P]] : f32
// CHECK:                 scf.yield %[[S1]] : f32
// CHECK:               %[[OLD:[a-z0-9_-]+]] = tensor.extract %[[A1]][%[[M]], %[[N]]] : tensor<8x2xf32>
// CHECK:               %[[NEW:[a-z0-9_-]+]] = arith.addf %[[OLD]], %[[DOT]] : f32
// CHECK:               %[[INS:[a-z0-9_-]+]] = tensor.insert %[[NEW]] into %[[A1]][%[[M]], %[[N]]] : tensor<8x2xf32>
// CHECK:               scf.yield %[[INS]] : tensor<8x2xf32>
// CHECK:             } else {
// CHECK:               scf.yield %[[A1]] : tensor<8x2xf32>
// CHECK:         return %[[RES]] : tensor<8x2xf32>
func.func @mode1(%lhs: tensor<8x2xf32>, %rhs: tensor<3x2x2xf32>, %gs: tensor<3xi32>) -> tensor<8x2xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<8x2xf32>, tensor<3x2x2xf32>, tensor<3xi32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// Mode 1 with a group offset and init: a row is computed only when its group
// j satisfies j >= offset and j - offset < G_local (unsigned), and then reads
// rhs[j - offset]; the destination is init itself (no fill).

// CHECK-LABEL: func.func @mode1_offset_init
// CHECK-SAME:    %[[RHS:[a-z0-9]+]]: tensor<2x4x3xf16>, %{{.+}}: tensor<5xi64>, %[[OFF:[a-z0-9]+]]: tensor<i64>, %[[INIT:[a-z0-9]+]]: tensor<?x3xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[O:[a-z0-9_-]+]] = tensor.extract %[[OFF]][] : tensor<i64>
// CHECK:         %[[OI:[a-z0-9_-]+]] = arith.index_cast %[[O]] : i64 to index
// CHECK:         scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[INIT]]) -> (tensor<?x3xf32>)
// CHECK:           %[[J:[a-z0-9_-]+]]:2 = scf.for
// CHECK:           %[[LOCAL:[a-z0-9_-]+]] = arith.subi %[[J]]#1, %[[OI]] : index
// CHECK:           %[[FOUND:[a-z0-9_-]+]] = arith.cmpi sge, %[[J]]#1, %{{.+}} : index
// CHECK:           %[[AFTER:[a-z0-9_-]+]] = arith.cmpi sge, %[[J]]#1, %[[OI]] : index
// CHECK:           %[[BOTH:[a-z0-9_-]+]] = arith.andi %[[FOUND]], %[[AFTER]] : i1
// CHECK:           %[[INSIDE:[a-z0-9_-]+]] = arith.cmpi ult, %[[LOCAL]], %{{.+}} : index
// CHECK:           %[[COVERED:[a-z0-9_-]+]] = arith.andi %[[BOTH]], %[[INSIDE]] : i1
// CHECK:           scf.if %[[COVERED]]
// CHECK:             tensor.extract %[[RHS]][%[[LOCAL]], %{{.+}}, %{{.+}}] : tensor<2x4x3xf16>
// CHECK:             arith.extf %{{.+}} : f16 to f32
func.func @mode1_offset_init(%lhs: tensor<?x4xf16>, %rhs: tensor<2x4x3xf16>, %gs: tensor<5xi64>, %off: tensor<i64>, %init: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs group_offset(%off : tensor<i64>) init(%init : tensor<?x3xf32>) dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<?x4xf16>, tensor<2x4x3xf16>, tensor<5xi64> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Mode 2 with a group offset and init, bf16 in and out: slice i holds global
// group j = offset + i when -i <= offset < g - i; its bounds come from a scan
// of the first j + 1 sizes and the ragged contracting loop runs over them
// only. Accumulation is in f32, converted to bf16 once.

// CHECK-LABEL: func.func @mode2_offset_init
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<8x4xbf16>, %[[DY:[a-z0-9]+]]: tensor<8x3xbf16>, %[[GS:[a-z0-9]+]]: tensor<5xi64>, %[[OFF:[a-z0-9]+]]: tensor<1xi64>, %[[INIT:[a-z0-9]+]]: tensor<2x4x3xbf16>
// CHECK-DAG:     %[[C0:[a-z0-9_-]+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:[a-z0-9_-]+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C5:[a-z0-9_-]+]] = arith.constant 5 : index
// CHECK-DAG:     %[[ZERO:[a-z0-9_-]+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[O:[a-z0-9_-]+]] = tensor.extract %[[OFF]][%[[C0]]] : tensor<1xi64>
// CHECK:         %[[OI:[a-z0-9_-]+]] = arith.index_cast %[[O]] : i64 to index
// CHECK:         scf.for %[[I:[a-z0-9_-]+]] = %[[C0]] to %{{.+}} step %[[C1]] iter_args(%{{.+}} = %[[INIT]])
// CHECK:           scf.for %[[M:[a-z0-9_-]+]] = %[[C0]] to %{{.+}} step %[[C1]]
// CHECK:             scf.for %[[N:[a-z0-9_-]+]] = %[[C0]] to %{{.+}} step %[[C1]] iter_args(%[[ACC:[a-z0-9_-]+]] = %{{.+}})
// CHECK:               %[[LOW:[a-z0-9_-]+]] = arith.subi %[[C0]], %[[I]] : index
// CHECK:               %[[HIGH:[a-z0-9_-]+]] = arith.subi %[[C5]], %[[I]] : index
// CHECK:               %[[GE:[a-z0-9_-]+]] = arith.cmpi sge, %[[OI]], %[[LOW]] : index
// CHECK:               %[[LT:[a-z0-9_-]+]] = arith.cmpi slt, %[[OI]], %[[HIGH]] : index
// CHECK:               %[[VALID:[a-z0-9_-]+]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:               scf.if %[[VALID]]
// CHECK:                 %[[J:[a-z0-9_-]+]] = arith.addi %[[OI]], %[[I]] : index
// CHECK:                 %[[J1:[a-z0-9_-]+]] = arith.addi %[[J]], %[[C1]] : index
// CHECK:                 %[[B:[a-z0-9_-]+]]:2 = scf.for %{{.+}} = %[[C0]] to %[[J1]] step %[[C1]] iter_args(%{{.+}} = %[[C0]], %{{.+}} = %[[C0]]) -> (index, index)
// CHECK:                 %[[DOT:[a-z0-9_-]+]] = scf.for %[[K:[a-z0-9_-]+]] = %[[B]]#0 to %[[B]]#1 step %[[C1]] iter_args(%{{.+}} = %[[ZERO]]) -> (f32)
// CHECK:                   tensor.extract %[[X]][%[[K]], %[[M]]] : tensor<8x4xbf16>
// CHECK:                   tensor.extract %[[DY]][%[[K]], %[[N]]] : tensor<8x3xbf16>
// CHECK:                 %[[OLD:[a-z0-9_-]+]] = tensor.extract %[[ACC]][%[[I]], %[[M]], %[[N]]] : tensor<2x4x3xbf16>
// CHECK:                 %[[OLD32:[a-z0-9_-]+]] = arith.extf %[[OLD]] : bf16 to f32
// CHECK:                 %[[SUM:[a-z0-9_-]+]] = arith.addf %[[OLD32]], %[[DOT]] : f32
// CHECK:                 %[[NEW:[a-z0-9_-]+]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK:                 tensor.insert %[[NEW]] into %[[ACC]][%[[I]], %[[M]], %[[N]]] : tensor<2x4x3xbf16>
func.func @mode2_offset_init(%x: tensor<8x4xbf16>, %dy: tensor<8x3xbf16>, %gs: tensor<5xi64>, %off: tensor<1xi64>, %acc: tensor<2x4x3xbf16>) -> tensor<2x4x3xbf16> {
  %0 = gmm.ragged_dot %x, %dy, %gs group_offset(%off : tensor<1xi64>) init(%acc : tensor<2x4x3xbf16>) dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> : tensor<8x4xbf16>, tensor<8x3xbf16>, tensor<5xi64> -> tensor<2x4x3xbf16>
  return %0 : tensor<2x4x3xbf16>
}

// -----

// Mode 3 is a plain batched dot: no group scan, no condition; f64 inputs
// accumulate in f64 and the preferred f32 result is a truncation.

// CHECK-LABEL: func.func @mode3
// CHECK-SAME:    %[[LHS:[a-z0-9]+]]: tensor<2x3x4xf64>, %[[RHS:[a-z0-9]+]]: tensor<2x4x5xf64>
// CHECK-NOT:     scf.if
// CHECK:         scf.for %[[B:[a-z0-9_-]+]] =
// CHECK:           scf.for %[[M:[a-z0-9_-]+]] =
// CHECK:             scf.for %[[N:[a-z0-9_-]+]] =
// CHECK:               %[[DOT:[a-z0-9_-]+]] = scf.for %[[K:[a-z0-9_-]+]] = {{.+}} -> (f64)
// CHECK:                 tensor.extract %[[LHS]][%[[B]], %[[M]], %[[K]]] : tensor<2x3x4xf64>
// CHECK:                 tensor.extract %[[RHS]][%[[B]], %[[K]], %[[N]]] : tensor<2x4x5xf64>
// CHECK:               %[[OLD:[a-z0-9_-]+]] = arith.extf %{{.+}} : f32 to f64
// CHECK:               %[[SUM:[a-z0-9_-]+]] = arith.addf %[[OLD]], %[[DOT]] : f64
// CHECK:               arith.truncf %[[SUM]] : f64 to f32
// CHECK-NOT:     scf.if
// CHECK:         return
func.func @mode3(%lhs: tensor<2x3x4xf64>, %rhs: tensor<2x4x5xf64>, %gs: tensor<2xi32>) -> tensor<2x3x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<2x3x4xf64>, tensor<2x4x5xf64>, tensor<2xi32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Batched group sizes [b, g] in mode 1: the batch index selects the row of
// sizes that partitions that batch's rows.

// CHECK-LABEL: func.func @mode1_batched_sizes
// CHECK-SAME:    %{{.+}}: tensor<2x6x4xf32>, %{{.+}}: tensor<2x3x4x5xf32>, %[[GS:[a-z0-9]+]]: tensor<2x3xi32>
// CHECK:         scf.for %[[B:[a-z0-9_-]+]] =
// CHECK:           scf.for %[[M:[a-z0-9_-]+]] =
// CHECK:             scf.for %[[N:[a-z0-9_-]+]] =
// CHECK:               scf.for %[[G:[a-z0-9_-]+]] =
// CHECK:                 tensor.extract %[[GS]][%[[B]], %[[G]]] : tensor<2x3xi32>
func.func @mode1_batched_sizes(%lhs: tensor<2x6x4xf32>, %rhs: tensor<2x3x4x5xf32>, %gs: tensor<2x3xi32>) -> tensor<2x6x5xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]> : tensor<2x6x4xf32>, tensor<2x3x4x5xf32>, tensor<2x3xi32> -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// -----

// The pipeline from here to the LLVM dialect leaves nothing else behind.

// RUN: gmm-opt %s -split-input-file -gmm-reference-to-llvm | FileCheck %s --check-prefix=LLVM
// LLVM-LABEL: llvm.func @pipeline
// LLVM-NOT:     gmm.
// LLVM-NOT:     tensor.
// LLVM-NOT:     memref.
// LLVM-NOT:     scf.
// LLVM:         llvm.return
func.func @pipeline(%lhs: tensor<4x2xbf16>, %rhs: tensor<2x2x3xbf16>, %gs: tensor<2xi32>) -> tensor<4x3xbf16> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<4x2xbf16>, tensor<2x2x3xbf16>, tensor<2xi32> -> tensor<4x3xbf16>
  return %0 : tensor<4x3xbf16>
}
