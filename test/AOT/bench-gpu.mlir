// gmm-bench-gpu's gmm side on the simulated GPU (or the machine's GPU): it
// writes its ragged dots for gmm-aot, runs the library's entry points on its
// device buffers (both modes, bf16 and f32 results, three distributions) and
// checks sampled outputs of each against its f64 host reference. The
// simulated GPU measures no time: every time is n/a, every check runs.
//
// REQUIRES: gmm-bench-gpu, gmm-sim
// RUN: rm -rf %t && mkdir -p %t
// RUN: gmm-bench-gpu --emit-module=%t/bench.mlir --shapes=4x96x64x48,3x50x24x40
// RUN: FileCheck %s --check-prefix=MODULE < %t/bench.mlir
// RUN: gmm-aot %t/bench.mlir --target=cuda -o %t/libbench.so
// RUN: gmm-bench-gpu --library=%t/libbench.so --shapes=4x96x64x48,3x50x24x40 \
// RUN:   --peers=none --device=sim --repeat=1 --warmup=1 --samples=256 \
// RUN:   --json=%t/bench.json 2>/dev/null | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t/bench.json
// A library without the selection's functions says so in the row.
// RUN: gmm-bench-gpu --library=%t/libbench.so --shapes=2x16x8x8 --modes=1 \
// RUN:   --results=bf16 --distributions=uniform --peers=none --device=sim \
// RUN:   --repeat=1 --warmup=1 2>/dev/null | FileCheck %s --check-prefix=MISSING
// RUN: not gmm-bench-gpu --library=%t/libbench.so --device=sim 2>&1 | FileCheck %s --check-prefix=CUBLAS-SIM
// RUN: not gmm-bench-gpu --shapes=4x96 --emit-module=%t/x.mlir 2>&1 | FileCheck %s --check-prefix=BAD-SHAPE

// MODULE: func.func @shape_4x96x64x48_m1_bf16(%lhs: tensor<96x64xbf16>, %rhs: tensor<4x64x48xbf16>, %group_sizes: tensor<4xi32>) -> tensor<96x48xbf16>
// MODULE: func.func @shape_4x96x64x48_m1_f32(
// MODULE: func.func @shape_4x96x64x48_m2_bf16(%lhs: tensor<96x64xbf16>, %rhs: tensor<96x48xbf16>, %group_sizes: tensor<4xi32>) -> tensor<4x64x48xbf16>
// MODULE: func.func @shape_3x50x24x40_m2_f32(

// CHECK: | g | m | k | n | sizes | mode | result | gmm ms | gmm TFLOP/s | check |
// CHECK-COUNT-24: | n/a | n/a | ok
// CHECK-NOT: FAIL

// JSON: "tool": "gmm-bench-gpu"
// JSON: "simulated": true
// JSON: "shape": "4x96x64x48", "g": 4, "m": 96, "k": 64, "n": 48, "mode": 1, "dtype": "bf16", "result": "bf16", "distribution": "uniform"
// JSON-NEXT: "group_sizes": [24, 24, 24, 24]
// JSON-NEXT: "sides": {"gmm": {"ms": null, "tflops": null, "error": {{[0-9.e-]+}}, "ok": true, "note": "shape_4x96x64x48_m1_bf16"}}

// MISSING: | 2 | 16 | 8 | 8 | uniform | 1 | bf16 | n/a | n/a | gmm n/a: shape_2x16x8x8_m1_bf16 is not in the library

// CUBLAS-SIM: gmm-bench-gpu: error: cuBLAS does not run on the simulated GPU: add --peers=none
// BAD-SHAPE: gmm-bench-gpu: error: --shapes: '4x96' is neither a preset nor GxMxKxN with sizes in [1, 2^31)
