// libgmm_cuda_runtime.so as a drop-in runtime for Debian's mlir-runner
// (which ships none): ordinary GPU programs, lowered by upstream's
// --gpu-lower-to-nvvm-pipeline, run on the GPU or the simulated GPU
// (%cuda_env) and print their results. Each exercises a part of the mgpu*
// ABI and of the driver underneath: block reductions (gpu.all_reduce,
// workgroup memory, barriers), warp shuffles, two streams joined through an
// event (and the event destroyed while its record is still queued), two GPU
// modules, and (sm_90) a producer/consumer ring of NVGPU mbarriers and a
// TMA load of a box across a tensor's edges (nvgpu.tma.create.descriptor on
// the host, nvgpu.tma.async.load completing on an mbarrier) and (sm_90a) a
// TMA + wgmma GEMM through nvgpu.warpgroup.mma, checked against
// linalg.matmul on the host, and a launch in thread block clusters.

// REQUIRES: cuda-device
// UNSUPPORTED: sanitizer
// DEFINE: %{lower} = mlir-opt --convert-linalg-to-loops \
// DEFINE:   --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// DEFINE: %{lower90} = mlir-opt --convert-linalg-to-loops \
// DEFINE:   --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_90 cubin-features=+ptx80"
// DEFINE: %{lower90a} = mlir-opt --convert-linalg-to-loops \
// DEFINE:   --gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_90a cubin-features=+ptx80"
// DEFINE: %{run} = %cuda_env mlir-runner --entry-point-result=void \
// DEFINE:   --shared-libs=%gmm_cuda_runtime,%mlir_runner_utils,%mlir_c_runner_utils

// RUN: %{lower} %S/Inputs/block-reduce.mlir | %{run} 2>&1 | FileCheck %s --check-prefix=REDUCE
// REDUCE-NOT: error
// REDUCE:      sizes = [3, 2]
// REDUCE-NEXT: {{\[\[}}2016, 6112],
// REDUCE-NEXT:  [63, 127],
// REDUCE-NEXT:  [2016, 6112]]

// RUN: %{lower} %S/Inputs/warp-shuffles.mlir | %{run} 2>&1 | FileCheck %s --check-prefix=SHUFFLE
// SHUFFLE-NOT: error
// SHUFFLE:      sizes = [4, 32]
// SHUFFLE-NEXT: {{\[\[}}496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496, 496],
// SHUFFLE-NEXT:  [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5],
// SHUFFLE-NEXT:  [-1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28],
// SHUFFLE-NEXT:  [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, -1, -1, -1]]

// RUN: %{lower} %S/Inputs/async-streams.mlir | %{run} 2>&1 | FileCheck %s --check-prefix=ASYNC
// ASYNC-NOT: error
// ASYNC:      [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]
// ASYNC:      [20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20]
// ASYNC:      [22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22]
// ASYNC-NOT: error

// RUN: %{lower} %S/Inputs/two-modules.mlir | %{run} 2>&1 | FileCheck %s --check-prefix=MODULES
// MODULES-NOT: error
// MODULES: [1, 4, 7, 10, 13, 16, 19, 22]
// MODULES-NOT: error

// RUN: %{lower90} %S/Inputs/mbarrier-ring.mlir | %{run} 2>&1 | FileCheck %s --check-prefix=MBARRIER
// MBARRIER-NOT: error
// MBARRIER:      sizes = [32]
// MBARRIER-NEXT: [1500,  1506,  1512,  1518,  1524,  1530,  1536,  1542,  1548,  1554,  1560,  1566,  1572,  1578,  1584,  1590,  1596,  1602,  1608,  1614,  1620,  1626,  1632,  1638,  1644,  1650,  1656,  1662,  1668,  1674,  1680,  1686]

// RUN: %{lower90} %S/Inputs/tma-box.mlir | %{run} 2>&1 | FileCheck %s --check-prefix=TMA
// TMA-NOT: error
// TMA:      sizes = [8, 16]
// TMA-NEXT: {{\[\[}}1612,   1613,   1614,   1615,   1616,   1617,   1618,   1619,   1620,   1621,   1622,   1623,   0,   0,   0,   0],
// TMA-NEXT:  [1712,   1713,   1714,   1715,   1716,   1717,   1718,   1719,   1720,   1721,   1722,   1723,   0,   0,   0,   0],
// TMA-NEXT:  [1812,   1813,   1814,   1815,   1816,   1817,   1818,   1819,   1820,   1821,   1822,   1823,   0,   0,   0,   0],
// TMA-NEXT:  [1912,   1913,   1914,   1915,   1916,   1917,   1918,   1919,   1920,   1921,   1922,   1923,   0,   0,   0,   0],
// TMA-NEXT:  [0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0],
// TMA-NEXT:  [0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0],
// TMA-NEXT:  [0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0],
// TMA-NEXT:  [0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0]]

// RUN: %{lower90a} %S/Inputs/wgmma-gemm.mlir | %{run} 2>&1 | FileCheck %s --check-prefix=WGMMA
// WGMMA-NOT: error
// WGMMA: agree: 4096

// RUN: %{lower90} %S/Inputs/cluster-ids.mlir | %{run} 2>&1 | FileCheck %s --check-prefix=CLUSTER
// CLUSTER-NOT: error
// CLUSTER:      sizes = [2, 4]
// CLUSTER-NEXT: {{\[\[}}21,   21,   1021,   1021],
// CLUSTER-NEXT:  [21,   21,   1021,   1021]]
