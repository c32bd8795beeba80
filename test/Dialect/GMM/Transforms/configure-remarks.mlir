// gmm-configure's analysis remark (category gmm-configure): each ragged
// dot's configuration and, per field, whether it came from the op's own
// gmm.kernel_config, the pass options or the heuristic (and why). The CPU
// runs name vector-bits, so that nothing depends on the host.

// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90" --remarks-filter=gmm-configure -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=cuda tile-n=64 stages=3 warps-m=1 raster=3" --remarks-filter=gmm-configure -o /dev/null 2>&1 | FileCheck %s --check-prefix=REQUEST
// RUN: gmm-opt %s -split-input-file --gmm-configure="vector-bits=512" --remarks-filter=gmm-configure -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: gmm-opt %s -split-input-file --gmm-configure="target=gpu chip=sm_90a" --remarks-filter=gmm-configure -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90A
// Without the filter there is no remark.
// RUN: gmm-opt %s -split-input-file --gmm-configure -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE --allow-empty
// NONE-NOT: remark

// GPU: configure-remarks.mlir:[[# @LINE + 5]]:8: remark: [Analysis] KernelConfig | Category:gmm-configure | Function=wide | config="#gmm.kernel_config<target = gpu, tile = [128, 256, 32], warps = [2, 4], stages = 2>", mma="heuristic: mma.sync: no wgmma on sm_90", raster="heuristic: one band of all the visits", stages="heuristic: the default", tile="heuristic: 16-bit inputs on sm_90 with at least 256 result columns", warps="heuristic: the most warps of 2 x 4, 2 x 2, 1 x 2, 2 x 1 and 1 x 1 that the tile splits over in 232448 bytes of shared memory"
// REQUEST: configure-remarks.mlir:[[# @LINE + 4]]:8: remark: [Analysis] KernelConfig | Category:gmm-configure | Function=wide | config="#gmm.kernel_config<target = gpu, tile = [128, 64, 32], warps = [1, 4], stages = 3, raster = 3>", mma="heuristic: mma.sync: no wgmma on an unnamed chip", raster="the pipeline's options", stages="the pipeline's options", tile="m from heuristic: 16-bit inputs: two mma k steps per stage; n from the pipeline's options; k from heuristic: 16-bit inputs: two mma k steps per stage", warps="rows from the pipeline's options; columns from heuristic: the other count of 2 x 4"
// SM90A: configure-remarks.mlir:[[# @LINE + 3]]:8: remark: [Analysis] KernelConfig | Category:gmm-configure | Function=wide | config="#gmm.kernel_config<target = gpu, tile = [128, 256, 64], warps = [2, 4], stages = 4, mma = wgmma, raster = 8>", mma="heuristic: wgmma: 16-bit inputs, ragged rows, on sm_90a", raster="heuristic: bands of 8 visits, their column tiles in turn", stages="heuristic: the most that fit in shared memory", tile="heuristic: wgmma: two m64n256k16 warpgroups", warps="heuristic: wgmma: two consumer warpgroups"
// CPU: configure-remarks.mlir:[[# @LINE + 2]]:8: remark: [Analysis] KernelConfig | Category:gmm-configure | Function=wide | config="#gmm.kernel_config<target = cpu, tile = [448, 512, 256], register_block = [14, 32], micro_kernel = fma>", micro_kernel="heuristic: vector-bits is given, so the code may run on another CPU", register_block="heuristic: fills the vector registers of 512-bit vectors", tile="heuristic: cache blocks around the register block for 512-bit vectors"
func.func @wide(%lhs: tensor<512x64xbf16>, %rhs: tensor<4x64x512xbf16>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<512x64xbf16>, tensor<4x64x512xbf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// -----

// Fields of the op's own configuration win over the options and the
// heuristic; the others are completed (one warp count given, the other is
// the heuristic's 2 x 4's).
// GPU: configure-remarks.mlir:[[# @LINE + 4]]:8: remark: [Analysis] KernelConfig | Category:gmm-configure | Function=given | config="#gmm.kernel_config<target = gpu, tile = [64, 64, 16], warps = [2, 2], stages = 4>", mma="heuristic: mma.sync: no wgmma on sm_90", raster="heuristic: one band of all the visits", stages="the op's gmm.kernel_config", tile="the op's gmm.kernel_config", warps="heuristic: the most warps of 2 x 4, 2 x 2, 1 x 2, 2 x 1 and 1 x 1 that the tile splits over in 232448 bytes of shared memory"
// REQUEST: configure-remarks.mlir:[[# @LINE + 3]]:8: remark: {{.*}} | Function=given | config="#gmm.kernel_config<target = gpu, tile = [64, 64, 16], warps = [1, 4], stages = 4, raster = 3>", mma="heuristic: mma.sync: no wgmma on an unnamed chip", raster="the pipeline's options", stages="the op's gmm.kernel_config", tile="the op's gmm.kernel_config", warps="rows from the pipeline's options; columns from heuristic: the other count of 2 x 4"
// CPU: configure-remarks.mlir:[[# @LINE + 2]]:8: remark: {{.*}} | Function=given | config="#gmm.kernel_config<target = cpu, tile = [64, 64, 16], register_block = [14, 32], micro_kernel = fma>", micro_kernel="heuristic: not bf16 inputs", register_block="heuristic: fills the vector registers of 512-bit vectors", tile="the op's gmm.kernel_config"
func.func @given(%lhs: tensor<512x64xf16>, %rhs: tensor<4x64x512xf16>, %gs: tensor<4xi32>) -> tensor<512x512xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [64, 64, 16], stages = 4>} : tensor<512x64xf16>, tensor<4x64x512xf16>, tensor<4xi32> -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
