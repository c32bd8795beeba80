// The randomized differential test through gmm-aot: gmm-difftest writes its
// configurations as one module, gmm-aot compiles it into a library, and
// gmm-aot-difftest (no MLIR in its process) calls every function through
// the library's C entry points on the same configurations and compares the
// results with the C++ reference. Every mode and layout, dynamic sizes,
// offsets, init, every element type.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: gmm-difftest --pipeline=cpu --seed=61 --configs=80 --emit-module=%t/cpu.mlir
// RUN: gmm-aot %t/cpu.mlir -o %t/libcpu.so
// RUN: gmm-aot-difftest --library=%t/libcpu.so --seed=61 --configs=80 | FileCheck %s --check-prefix=CPU
// CPU: library {{.*}}libcpu.so (cpu): configurations 0..79 of seed 61
// CPU-NEXT: 80 passed, 0 failed

// A library of other configurations than those asked for says so.
// RUN: not gmm-aot-difftest --library=%t/libcpu.so --seed=61 --first=80 --configs=1 | FileCheck %s --check-prefix=MISSING
// MISSING: FAIL config 80 (--seed=61 --first=80 --configs=1)
// MISSING: the library has no function config_80
// MISSING: 0 passed, 1 failed
// RUN: not gmm-aot-difftest --library=%t/libcpu.so --seed=62 --configs=20 | FileCheck %s --check-prefix=OTHER-SEED
// OTHER-SEED: is not the configuration's
// RUN: not gmm-aot-difftest --library=%t/no-such.so 2>&1 | FileCheck %s --check-prefix=NO-LIBRARY
// NO-LIBRARY: gmm-aot-difftest: error: cannot load {{.*}}no-such.so
// RUN: not gmm-aot-difftest --library=%t/libcpu.so --configs=x 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// BAD-OPTION: gmm-aot-difftest: error: --configs=x: expected a non-negative integer
