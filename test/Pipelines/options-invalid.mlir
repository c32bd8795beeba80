// The options of gmm's named pipelines are checked before anything is
// built: one line naming the pipeline and the option, never an abort in
// LLVM's instruction selection or a segfault (#15, classes 2 and 3).

// Chips: empty, older than sm_80 (no cp.async), unknown to LLVM.
// RUN: not gmm-opt %s --gmm-to-ptx=chip= 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: gmm-opt: error: pass pipeline: 'gmm-to-ptx': no GPU chip given; gmm's kernels run on sm_80, sm_86, {{.*}}sm_90, sm_90a{{.*}}{{$}}
// EMPTY-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-to-ptx=chip=sm_70 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not gmm-opt %s --gmm-to-ptx=chip=sm_75 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: gmm-opt: error: pass pipeline: 'gmm-to-ptx': chip 'sm_7{{[05]}}' is not supported: gmm's kernels use cp.async and bf16 mma.sync, which need sm_80 or newer (sm_80, {{.*}}){{$}}
// OLD-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-to-ptx=chip=sm_85 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: gmm-opt: error: pass pipeline: 'gmm-to-ptx': unknown chip 'sm_85'; gmm's kernels run on sm_80, {{.*}}{{$}}
// UNKNOWN-NOT: {{.}}
// Chips it takes, old and new.
// RUN: gmm-opt %s --gmm-to-ptx=chip=sm_80 | FileCheck %s --check-prefix=OK
// RUN: gmm-opt %s --gmm-to-ptx=chip=sm_90a | FileCheck %s --check-prefix=OK
// OK: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_{{80|90a}}"

// Other options of gmm-to-ptx.
// RUN: not gmm-opt %s --gmm-to-ptx=format=elf 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: gmm-opt: error: pass pipeline: 'gmm-to-ptx': format = 'elf' is not one of isa, bin and fatbin{{$}}
// RUN: not gmm-opt %s --gmm-to-ptx=opt-level=7 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: gmm-opt: error: pass pipeline: 'gmm-to-ptx': opt-level = 7 is out of range: 0 to 3{{$}}
// RUN: not gmm-opt %s --gmm-to-ptx=tile-m=-3 2>&1 | FileCheck %s --check-prefix=PTX-NEGATIVE
// PTX-NEGATIVE: gmm-opt: error: pass pipeline: 'gmm-to-ptx': tile-m = -3 is out of range: 0 (the heuristic) to 65536{{$}}
// RUN: not gmm-opt %s --gmm-to-ptx=tile-k=1152921504606846976 2>&1 | FileCheck %s --check-prefix=PTX-HUGE
// PTX-HUGE: gmm-opt: error: pass pipeline: 'gmm-to-ptx': tile-k = 1152921504606846976 is out of range: 0 (the heuristic) to 1024{{$}}
// RUN: not gmm-opt %s --gmm-to-ptx=warps-m=1152921504606846976 2>&1 | FileCheck %s --check-prefix=PTX-WARPS
// PTX-WARPS: gmm-opt: error: pass pipeline: 'gmm-to-ptx': warps-m = 1152921504606846976 is out of range: 0 (the heuristic) to 32{{$}}
// PTX-WARPS-NOT: {{.}}
// RUN: not gmm-opt %s --gmm-to-ptx=stages=-2 2>&1 | FileCheck %s --check-prefix=PTX-STAGES
// PTX-STAGES: gmm-opt: error: pass pipeline: 'gmm-to-ptx': stages = -2 is out of range: 0 (the heuristic) to 8{{$}}

// gmm-to-cpu: the sizes of its tile target.
// RUN: not gmm-opt %s --gmm-to-cpu=tile-n=-1 2>&1 | FileCheck %s --check-prefix=CPU-NEGATIVE
// CPU-NEGATIVE: gmm-opt: error: pass pipeline: 'gmm-to-cpu': tile-n = -1 is out of range: 0 (the heuristic) to 4096{{$}}
// RUN: not gmm-opt %s --gmm-to-cpu="tile-target=gpu tile-m=1152921504606846976" 2>&1 | FileCheck %s --check-prefix=CPU-GPU
// CPU-GPU: gmm-opt: error: pass pipeline: 'gmm-to-cpu': tile-m = 1152921504606846976 is out of range: 0 (the heuristic) to 65536{{$}}
// RUN: not gmm-opt %s --gmm-to-cpu=tile-target=tpu 2>&1 | FileCheck %s --check-prefix=CPU-TARGET
// CPU-TARGET: gmm-opt: error: pass pipeline: for the --tile-target option: Cannot find option named 'tpu'!{{$}}

func.func @f(%lhs: tensor<64x32xbf16>, %rhs: tensor<2x32x64xbf16>, %gs: tensor<2xi32>) -> tensor<64x64xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<64x32xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
