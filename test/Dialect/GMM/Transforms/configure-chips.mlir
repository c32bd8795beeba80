// The shared memory a configuration may use depends on the chip: above the
// 48 KiB every block gets statically, the kernel's buffer is dynamic shared
// memory, up to 163 KiB per block on sm_80, 99 KiB on sm_86 and 227 KiB on
// sm_90. Three stages of a 256 x 128 x 64 bf16 tile need 147456 bytes (rows
// unpadded, swizzled).

// RUN: gmm-opt %s --gmm-configure="target=gpu chip=sm_90" | FileCheck %s --check-prefix=FITS
// RUN: gmm-opt %s --gmm-configure="target=gpu chip=sm_80" | FileCheck %s --check-prefix=FITS
// FITS: {gmm.kernel_config = #gmm.kernel_config<target = gpu, tile = [256, 128, 64], warps = [2, 4], stages = 3>}
// RUN: not gmm-opt %s --gmm-configure="target=gpu chip=sm_86" 2>&1 | FileCheck %s --check-prefix=SM86
// SM86: error: 'gmm.ragged_dot' op kernel configuration #gmm.kernel_config<target = gpu, tile = [256, 128, 64], warps = [2, 4], stages = 3>: its 3 stages need 147456 bytes of shared memory, more than the 101376 a block can have on the chip
// Without a chip, only the static 48 KiB.
// RUN: not gmm-opt %s --gmm-configure="target=gpu" 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: error: 'gmm.ragged_dot' op kernel configuration {{.*}}: its 3 stages need 147456 bytes of shared memory, more than the 49152 a block gets statically (name the chip for more)
// gmm-to-ptx names its chip.
// RUN: gmm-opt %s --gmm-to-ptx=chip=sm_90 -o /dev/null
// RUN: not gmm-opt %s --gmm-to-ptx=chip=sm_86 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM86

func.func @big(%lhs: tensor<512x64xbf16>, %rhs: tensor<2x64x256xbf16>, %gs: tensor<2xi32>) -> tensor<512x256xf32> {
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<tile = [256, 128, 64], stages = 3>} : tensor<512x64xbf16>, tensor<2x64x256xbf16>, tensor<2xi32> -> tensor<512x256xf32>
  return %0 : tensor<512x256xf32>
}
