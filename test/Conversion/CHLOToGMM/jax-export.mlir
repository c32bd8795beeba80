// Modules that jax.export (JAX 0.10.2, platform cuda) really wrote for
// jax.lax.ragged_dot_general, in MLIR's generic form (python/gmm/
// jax_export.py; Inputs/jax/make-fixtures.py regenerates them): a
// stablehlo.composite "chlo.ragged_dot" whose composite_attributes hold the
// dimension numbers as six dense i64 tensors and the precisions as strings,
// with a StableHLO decomposition function next to it. Each is imported (the
// decomposition disappears), then run by gmm-runner on the inputs the
// script saved and compared with the result that JAX computed for them:
// integer-valued inputs, so the results must agree exactly. Modes 1, 2 and
// 3, batched group sizes, weights stored [g, n, k], bf16/f16/f32.

// REQUIRES: gmm-runner
// DEFINE: %{import} = gmm-opt --allow-unregistered-dialect --convert-chlo-to-gmm
// DEFINE: %{jax} = %S/Inputs/jax

// RUN: %{import} %{jax}/mode1-bf16.mlir | FileCheck %s --check-prefix=MODE1-BF16
// RUN: %{import} %{jax}/mode1-bf16.mlir | gmm-runner - --input=0:%{jax}/mode1-bf16.lhs.npy \
// RUN:   --input=1:%{jax}/mode1-bf16.rhs.npy --input=2:%{jax}/mode1-bf16.gs.npy --expect=0:%{jax}/mode1-bf16.out.npy \
// RUN:   | FileCheck %s --check-prefix=EXPECT
// MODE1-BF16-LABEL: func.func public @main
// MODE1-BF16-NEXT:    %[[R:.*]] = gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<16x8xbf16>, tensor<4x8x6xbf16>, tensor<4xi32> -> tensor<16x6xbf16>
// MODE1-BF16-NEXT:    return %[[R]]
// MODE1-BF16-NOT:     func.func
// MODE1-BF16-NOT:     stablehlo

// RUN: %{import} %{jax}/mode1-rhs-nk-f16.mlir | FileCheck %s --check-prefix=MODE1-RHS-NK-F16
// RUN: %{import} %{jax}/mode1-rhs-nk-f16.mlir | gmm-runner - --input=0:%{jax}/mode1-rhs-nk-f16.lhs.npy \
// RUN:   --input=1:%{jax}/mode1-rhs-nk-f16.rhs.npy --input=2:%{jax}/mode1-rhs-nk-f16.gs.npy --expect=0:%{jax}/mode1-rhs-nk-f16.out.npy \
// RUN:   | FileCheck %s --check-prefix=EXPECT
// MODE1-RHS-NK-F16-LABEL: func.func public @main
// MODE1-RHS-NK-F16-NEXT:    %[[R:.*]] = gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<12x8xf16>, tensor<3x5x8xf16>, tensor<3xi32> -> tensor<12x5xf32>
// MODE1-RHS-NK-F16-NEXT:    return %[[R]]
// MODE1-RHS-NK-F16-NOT:     func.func
// MODE1-RHS-NK-F16-NOT:     stablehlo

// RUN: %{import} %{jax}/mode1-batched-f32.mlir | FileCheck %s --check-prefix=MODE1-BATCHED-F32
// RUN: %{import} %{jax}/mode1-batched-f32.mlir | gmm-runner - --input=0:%{jax}/mode1-batched-f32.lhs.npy \
// RUN:   --input=1:%{jax}/mode1-batched-f32.rhs.npy --input=2:%{jax}/mode1-batched-f32.gs.npy --expect=0:%{jax}/mode1-batched-f32.out.npy \
// RUN:   | FileCheck %s --check-prefix=EXPECT
// MODE1-BATCHED-F32-LABEL: func.func public @main
// MODE1-BATCHED-F32-NEXT:    %[[R:.*]] = gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [1]> : tensor<2x10x4xf32>, tensor<2x3x4x5xf32>, tensor<2x3xi32> -> tensor<2x10x5xf32>
// MODE1-BATCHED-F32-NEXT:    return %[[R]]
// MODE1-BATCHED-F32-NOT:     func.func
// MODE1-BATCHED-F32-NOT:     stablehlo

// RUN: %{import} %{jax}/mode2-f32.mlir | FileCheck %s --check-prefix=MODE2-F32
// RUN: %{import} %{jax}/mode2-f32.mlir | gmm-runner - --input=0:%{jax}/mode2-f32.lhs.npy \
// RUN:   --input=1:%{jax}/mode2-f32.rhs.npy --input=2:%{jax}/mode2-f32.gs.npy --expect=0:%{jax}/mode2-f32.out.npy \
// RUN:   | FileCheck %s --check-prefix=EXPECT
// MODE2-F32-LABEL: func.func public @main
// MODE2-F32-NEXT:    %[[R:.*]] = gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]> : tensor<6x16xf32>, tensor<16x5xf32>, tensor<3xi32> -> tensor<3x6x5xf32>
// MODE2-F32-NEXT:    return %[[R]]
// MODE2-F32-NOT:     func.func
// MODE2-F32-NOT:     stablehlo

// RUN: %{import} %{jax}/mode2-bf16.mlir | FileCheck %s --check-prefix=MODE2-BF16
// RUN: %{import} %{jax}/mode2-bf16.mlir | gmm-runner - --input=0:%{jax}/mode2-bf16.lhs.npy \
// RUN:   --input=1:%{jax}/mode2-bf16.rhs.npy --input=2:%{jax}/mode2-bf16.gs.npy --expect=0:%{jax}/mode2-bf16.out.npy \
// RUN:   | FileCheck %s --check-prefix=EXPECT
// MODE2-BF16-LABEL: func.func public @main
// MODE2-BF16-NEXT:    %[[R:.*]] = gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]> : tensor<4x12xbf16>, tensor<12x3xbf16>, tensor<4xi32> -> tensor<4x4x3xf32>
// MODE2-BF16-NEXT:    return %[[R]]
// MODE2-BF16-NOT:     func.func
// MODE2-BF16-NOT:     stablehlo

// RUN: %{import} %{jax}/mode3-f16.mlir | FileCheck %s --check-prefix=MODE3-F16
// RUN: %{import} %{jax}/mode3-f16.mlir | gmm-runner - --input=0:%{jax}/mode3-f16.lhs.npy \
// RUN:   --input=1:%{jax}/mode3-f16.rhs.npy --input=2:%{jax}/mode3-f16.gs.npy --expect=0:%{jax}/mode3-f16.out.npy \
// RUN:   | FileCheck %s --check-prefix=EXPECT
// MODE3-F16-LABEL: func.func public @main
// MODE3-F16-NEXT:    %[[R:.*]] = gmm.ragged_dot %arg0, %arg1, %arg2 dimension_numbers = <lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]> : tensor<3x4x8xf16>, tensor<3x8x5xf16>, tensor<2xi32> -> tensor<3x4x5xf16>
// MODE3-F16-NEXT:    return %[[R]]
// MODE3-F16-NOT:     func.func
// MODE3-F16-NOT:     stablehlo

// EXPECT: expect 0: PASS ({{[0-9]+}} elements, max abs error 0,

// The same modules on the GPU path (a GPU, or gmm's simulated one).
// RUN: %if cuda-device %{ %{import} %{jax}/mode1-bf16.mlir | gmm-runner - %cuda_target \
// RUN:   --input=0:%{jax}/mode1-bf16.lhs.npy --input=1:%{jax}/mode1-bf16.rhs.npy --input=2:%{jax}/mode1-bf16.gs.npy \
// RUN:   --expect=0:%{jax}/mode1-bf16.out.npy | FileCheck %s --check-prefix=EXPECT %}
// RUN: %if cuda-device %{ %{import} %{jax}/mode2-f32.mlir | gmm-runner - %cuda_target \
// RUN:   --input=0:%{jax}/mode2-f32.lhs.npy --input=1:%{jax}/mode2-f32.rhs.npy --input=2:%{jax}/mode2-f32.gs.npy \
// RUN:   --expect=0:%{jax}/mode2-f32.out.npy | FileCheck %s --check-prefix=EXPECT %}

// --expect fails when the values differ (here, every group empty).
// RUN: %{import} %{jax}/mode2-f32.mlir | not gmm-runner - --input=0:%{jax}/mode2-f32.lhs.npy \
// RUN:   --input=1:%{jax}/mode2-f32.rhs.npy --values=2:0,0,0 --expect=0:%{jax}/mode2-f32.out.npy \
// RUN:   | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: expect 0: FAIL ({{[0-9]+}} of 90 elements differ, first at [0, 0, {{[0-9]+}}]: got 0, expected {{-?[1-9][0-9]*}};
