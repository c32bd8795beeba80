// gmm-opt: a bad command line, a missing input and a bad pass pipeline are
// each one line "gmm-opt: error: ..." with exit code 1; errors in the input
// are MLIR's diagnostics (as in mlir-opt: location, message, the source line
// and notes), one error per problem, exit code 1, never a crash.

// RUN: not gmm-opt %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: gmm-opt: error: cannot open input file '{{.*}}missing.mlir': No such file or directory{{$}}
// MISSING-NOT: {{.}}
// RUN: not gmm-opt %S 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: gmm-opt: error: cannot open input file '{{.*}}': Is a directory{{$}}
// DIR-NOT: {{.}}
// Output that cannot be written (#38, class 7: "LLVM ERROR: IO failure on
// output stream" and an abort).
// RUN: not gmm-opt %s 2>&1 >/dev/full | FileCheck %s --check-prefix=FULL
// FULL: gmm-opt: error: cannot write standard output: No space left on device{{$}}
// FULL-NOT: {{.}}
// RUN: not gmm-opt --help 2>&1 >/dev/full | FileCheck %s --check-prefix=FULL
// RUN: not gmm-opt --show-dialects 2>&1 >/dev/full | FileCheck %s --check-prefix=FULL
// RUN: not gmm-opt %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL-FILE
// FULL-FILE: gmm-opt: error: cannot write /dev/full: No space left on device{{$}}
// FULL-FILE-NOT: {{.}}
// RUN: not gmm-opt %s -o %t.nodir/out.mlir 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: gmm-opt: error: cannot open output file '{{.*}}nodir/out.mlir': No such file or directory{{$}}
// OUTPUT-NOT: {{.}}

// Inputs that never end, or nest deeper than the parser's stack: refused
// before they are read or parsed; nesting within the limit is parsed,
// transformed and printed on a stack large enough for it.
// RUN: not gmm-opt /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: gmm-opt: error: cannot read input file '/dev/zero': not a regular file (a character device){{$}}
// DEVICE-NOT: {{.}}
// RUN: %python -c "print('func.func private @f() -> ' + 'tuple<' * 20000 + 'i32' + '>' * 20000)" > %t.deep.mlir
// RUN: not gmm-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:1:60032: error: brackets nest more than 10000 deep; gmm-opt does not read deeper nesting{{$}}
// DEEP-NOT: {{.}}
// RUN: %python -c "print('\"t.a\"() ({\n' * 4900 + '\"t.b\"() : () -> ()\n' + '}) : () -> ()\n' * 4900)" > %t.regions.mlir
// RUN: gmm-opt %t.regions.mlir --allow-unregistered-dialect --canonicalize --cse | FileCheck %s --check-prefix=REGIONS
// REGIONS-COUNT-4900: "t.a"() ({
// REGIONS: "t.b"() : () -> ()

// Bad options: one line, with cl's suggestion folded in.
// RUN: not gmm-opt %s --bogus 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: gmm-opt: error: Unknown command line argument '--bogus'. Did you mean '--{{.*}}'?{{$}}
// UNKNOWN-NOT: {{.}}
// RUN: not gmm-opt %s --mlir-print-debuginfo=maybe 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: gmm-opt: error: for the --mlir-print-debuginfo option: 'maybe' is invalid value for boolean argument! Try 0 or 1{{$}}
// BOOL-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-configure=tile-m=x 2>&1 | FileCheck %s --check-prefix=PASS-VALUE
// PASS-VALUE: gmm-opt: error: pass pipeline: for the --tile-m option: 'x' value invalid for long argument!{{$}}
// PASS-VALUE-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-configure=bogus=1 2>&1 | FileCheck %s --check-prefix=PASS-OPTION
// PASS-OPTION: gmm-opt: error: pass pipeline: no such option bogus{{$}}
// PASS-OPTION-NOT: {{.}}
// The named pipelines: a bad option or value is one line too, and a
// pipeline nested under func.func is an error, not an abort.
// RUN: not gmm-opt %s --gmm-to-cpu=bogus=1 2>&1 | FileCheck %s --check-prefix=PIPELINE-OPTION
// PIPELINE-OPTION: gmm-opt: error: pass pipeline: 'gmm-to-cpu': no such option bogus{{$}}
// PIPELINE-OPTION-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-to-ptx=tile-m=x 2>&1 | FileCheck %s --check-prefix=PIPELINE-VALUE
// PIPELINE-VALUE: gmm-opt: error: pass pipeline: for the --tile-m option: 'x' value invalid for long argument!{{$}}
// PIPELINE-VALUE-NOT: {{.}}
// RUN: not gmm-opt %s --pass-pipeline='builtin.module(gmm-reference-to-llvm{bogus=1})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REFERENCE-OPTION
// REFERENCE-OPTION: gmm-opt: error: pass pipeline: 'gmm-reference-to-llvm': no such option bogus{{$}}
// REFERENCE-OPTION-NOT: {{.}}
// RUN: not gmm-opt %s --pass-pipeline='builtin.module(func.func(gmm-to-cpu))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED
// NESTED: gmm-opt: error: pass pipeline: 'gmm-to-cpu' runs on builtin.module (it bufferizes and converts the whole module), but is nested under 'func.func'; name it at the top level, as in --pass-pipeline='builtin.module(gmm-to-cpu)'{{$}}
// NESTED-NOT: {{.}}
// RUN: not gmm-opt %s --pass-pipeline='builtin.module(func.func(gmm-to-ptx))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED-PTX
// NESTED-PTX: gmm-opt: error: pass pipeline: 'gmm-to-ptx' runs on builtin.module{{.*}}
// NESTED-PTX-NOT: {{.}}
// RUN: not gmm-opt %s --pass-pipeline='builtin.module(func.func(gmm-reference-to-llvm))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED-REFERENCE
// NESTED-REFERENCE: gmm-opt: error: pass pipeline: 'gmm-reference-to-llvm' runs on builtin.module{{.*}}
// NESTED-REFERENCE-NOT: {{.}}
// RUN: not gmm-opt %s --pass-pipeline='builtin.module(gmm-bogus)' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: gmm-opt: error: pass pipeline: 'gmm-bogus' does not refer to a registered pass or pass pipeline{{$}}
// PIPELINE-NOT: {{.}}

// Input errors: the diagnostic, once.
// RUN: printf 'func.func @f(' | not gmm-opt 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: <stdin>:1:13: error: expected non-function type
// PARSE-NOT: error:
// RUN: printf '"foo.bar"() : () -> ()' | not gmm-opt 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNREGISTERED
// UNREGISTERED: <stdin>:1:10: error: operation being parsed with an unregistered dialect.
// UNREGISTERED-NOT: error:

// An op that a pipeline cannot lower: one error naming it, exit code 1.
// RUN: not gmm-opt %s --gmm-to-cpu 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: not gmm-opt %s --gmm-reference-to-llvm 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LOWER
// LOWER: opt-errors.mlir:[[@LINE+4]]:8: error: op was not bufferized
// LOWER-NOT: error:

func.func @erf(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.erf %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
