// RUN: gmm-opt %s -split-input-file -gmm-normalize -gmm-configure="vector-bits=512 micro-kernel=bf16-dot tile-m=28 tile-n=64 tile-k=6" -gmm-tile -canonicalize -cse | FileCheck %s

// The CPU's packed program with the bf16_dot micro-kernel: the operands
// stay bf16 and a packed panel row holds a pair of contraction steps,
// interleaved (lanes 2j and 2j + 1: steps 2q and 2q + 1 of column j; the
// odd step of an odd count is zero); each step of the 14 x 32 register
// block broadcasts the lhs pair of a row as one i32 and runs one
// x86vector.avx512.dot (vdpbf16ps) per 16 f32 accumulator lanes.

// Mode 1: the rhs block of 6 steps is 3 pair rows of two 32-column panels
// (64 bf16 each, and a row of padding); the lhs rows are copied into row
// panels as bf16.
// CHECK-LABEL: func.func @mode1
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<32xbf16>
// CHECK:         %[[RHS_PANELS:.*]] = bufferization.alloc_tensor() : tensor<2x4x64xbf16>
// CHECK:         %[[ACC:.*]] = bufferization.alloc_tensor() : tensor<2x28x32xf32>
// CHECK:         %[[LHS_PANELS:.*]] = bufferization.alloc_tensor() : tensor<2x14x32xbf16>
// CHECK:         scf.for %[[K0:.*]] = %c0 to %{{.*}} step %c6
// CHECK:           %[[COUNT:.*]] = arith.minsi %{{.*}}, %c6 : index
// CHECK:           %[[PAIRS:.*]] = arith.ceildivui %[[COUNT]], %c2 : index
// CHECK:           scf.for %[[Q:.*]] = %c0 to %[[PAIRS]] step %c1
// CHECK:             scf.for %[[P:.*]] = %c0 to %{{.*}} step %c1
// CHECK:               %[[EVEN:.*]] = arith.muli %[[Q]], %c2 : index
// CHECK:               %[[ODD:.*]] = arith.addi %[[EVEN]], %c1 : index
// CHECK:               %[[FIRST:.*]] = scf.if
// CHECK:               %[[HAS_ODD:.*]] = arith.cmpi ult, %[[ODD]], %[[COUNT]] : index
// CHECK:               %[[SECOND:.*]] = scf.if %[[HAS_ODD]] -> (vector<32xbf16>) {
// CHECK:                 scf.yield %[[ZERO]] : vector<32xbf16>
// CHECK:               %[[PAIR:.*]] = vector.interleave %[[FIRST]], %[[SECOND]] : vector<32xbf16> -> vector<64xbf16>
// CHECK:               vector.transfer_write %[[PAIR]], %{{.*}}[%[[P]], %[[Q]], %c0] {in_bounds = [true]} : vector<64xbf16>, tensor<2x4x64xbf16>
// CHECK:           scf.for
// CHECK:               vector.transfer_write %{{.*}} {in_bounds = [true]} : vector<32xbf16>, tensor<2x14x32xbf16>
// The register block (first in the nest that runs the row panels first,
// for a last contraction block of few steps): two rhs vectors of 32 bf16 (a
// pair row of 32 columns) per step, and per accumulator row the lhs pair at
// 2 * step of its row panel.
// CHECK:           scf.for %[[STEP:.*]] = %c0 to %{{.*}} step %c4 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>,
// CHECK:             %[[R0:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[STEP]], %c0], %{{.*}} {in_bounds = [true]} : tensor<2x4x64xbf16>, vector<32xbf16>
// CHECK:             %[[R1:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[STEP]], %c32], %{{.*}} {in_bounds = [true]} : tensor<2x4x64xbf16>, vector<32xbf16>
// CHECK:             %[[TWICE:.*]] = arith.muli %[[STEP]], %c2 : index
// CHECK:             %[[L:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %c0, %[[TWICE]]], %{{.*}} {in_bounds = [true]} : tensor<2x14x32xbf16>, vector<2xbf16>
// CHECK:             %[[WORD:.*]] = vector.bitcast %[[L]] : vector<2xbf16> to vector<1xi32>
// CHECK:             %[[W:.*]] = vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK:             %[[WORDS:.*]] = vector.broadcast %[[W]] : i32 to vector<16xi32>
// CHECK:             %[[B:.*]] = vector.bitcast %[[WORDS]] : vector<16xi32> to vector<32xbf16>
// CHECK:             x86vector.avx512.dot %{{.*}}, %[[B]], %[[R0]] : vector<32xbf16> -> vector<16xf32>
// CHECK:             x86vector.avx512.dot %{{.*}}, %[[B]], %[[R1]] : vector<32xbf16> -> vector<16xf32>
// The last contraction block writes each register row whole, its two 16-lane
// sums side by side (one 32-lane row, a cache line of a bf16 result), in one
// 14 x 32 transfer: unmasked lanes when the column panel is inside the
// slice, masked when it crosses its end.
// CHECK:             %[[SUMS:.*]]:28 = scf.for
// CHECK:             %[[ROW0:.*]] = vector.insert_strided_slice %[[SUMS]]#0, %{{.*}} {offsets = [0, 0], strides = [1]} : vector<16xf32> into vector<14x32xf32>
// CHECK-NEXT:        %[[ROW0B:.*]] = vector.insert_strided_slice %[[SUMS]]#1, %[[ROW0]] {offsets = [0, 16], strides = [1]} : vector<16xf32> into vector<14x32xf32>
// CHECK-NEXT:        vector.insert_strided_slice %[[SUMS]]#2, %[[ROW0B]] {offsets = [1, 0], strides = [1]} : vector<16xf32> into vector<14x32xf32>
// CHECK:             %[[LAST:.*]] = vector.insert_strided_slice %[[SUMS]]#27, %{{.*}} {offsets = [13, 16], strides = [1]} : vector<16xf32> into vector<14x32xf32>
// CHECK-NEXT:        vector.transfer_write %[[LAST]], %{{.*}}[%{{.*}}, %{{.*}}] {in_bounds = [false, true]} : vector<14x32xf32>, tensor<?x?xf32>
// CHECK:             vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<14x32xf32>, tensor<?x?xf32>
// CHECK-NOT:         vector.fma
// CHECK-LABEL: func.func @mode1_f32
// The option leaves other types to fma.
// CHECK:         vector.fma
// CHECK-NOT:     x86vector.avx512.dot
// CHECK:         return
func.func @mode1(%lhs: tensor<40x11xbf16>, %rhs: tensor<3x11x70xbf16>, %gs: tensor<3xi32>) -> tensor<40x70xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<40x11xbf16>, tensor<3x11x70xbf16>, tensor<3xi32> -> tensor<40x70xf32>
  return %0 : tensor<40x70xf32>
}
func.func @mode1_f32(%lhs: tensor<40x11xf32>, %rhs: tensor<3x11x70xf32>, %gs: tensor<3xi32>) -> tensor<40x70xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<40x11xf32>, tensor<3x11x70xf32>, tensor<3xi32> -> tensor<40x70xf32>
  return %0 : tensor<40x70xf32>
}

// -----

// Mode 2: both operands are packed as pairs of the group's rows, the lhs
// into panels of mr (2 here) interleaved to 4 lanes; the lhs pair of row i
// is at 2 * i of its panel row.
// CHECK-LABEL: func.func @mode2
// CHECK:         bufferization.alloc_tensor() : tensor<2x4x4xbf16>
// CHECK:         bufferization.alloc_tensor() : tensor<1x4x64xbf16>
// CHECK:         bufferization.alloc_tensor() : tensor<1x4x32xf32>
// CHECK:             vector.interleave %{{.*}}, %{{.*}} : vector<2xbf16> -> vector<4xbf16>
// CHECK:             vector.interleave %{{.*}}, %{{.*}} : vector<32xbf16> -> vector<64xbf16>
// CHECK:             scf.for %[[STEP:.*]] = %c0 to %{{.*}} step %c4
// CHECK:               %[[R0:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[STEP]], %c0], %{{.*}} {in_bounds = [true]} : tensor<1x4x64xbf16>, vector<32xbf16>
// CHECK:               %[[R1:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[STEP]], %c32], %{{.*}} {in_bounds = [true]} : tensor<1x4x64xbf16>, vector<32xbf16>
// CHECK:               %[[L0:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[STEP]], %c0], %{{.*}} {in_bounds = [true]} : tensor<2x4x4xbf16>, vector<2xbf16>
// CHECK:               x86vector.avx512.dot %{{.*}}, %{{.*}}, %[[R0]] : vector<32xbf16> -> vector<16xf32>
// CHECK:               x86vector.avx512.dot %{{.*}}, %{{.*}}, %[[R1]] : vector<32xbf16> -> vector<16xf32>
// CHECK:               %[[L1:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[STEP]], %c2], %{{.*}} {in_bounds = [true]} : tensor<2x4x4xbf16>, vector<2xbf16>
func.func @mode2(%x: tensor<13x5xbf16>, %dy: tensor<13x40xbf16>, %gs: tensor<2xi32>) -> tensor<2x5x40xf32> {
  %0 = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [4, 32, 6], register_block = [2, 32]>} : tensor<13x5xbf16>, tensor<13x40xbf16>, tensor<2xi32> -> tensor<2x5x40xf32>
  return %0 : tensor<2x5x40xf32>
}
