// A launch in clusters of 2 x 2 blocks (gpu.launch_func ... clusters in,
// cuLaunchKernelEx with a cluster dimension): block (x, y) of the 4 x 2
// grid writes 1000 * cluster_id.x + 100 * cluster_id.y + 10 * cluster_dim.x
// + cluster_dim.y to out[y][x], where cluster_id is the block's cluster
// (x / 2, y / 2) and cluster_dim the number of clusters in the grid (2, 1)
// (%clusterid, %nclusterid).
module attributes {gpu.container_module} {
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %t0 = gpu.wait async
    %out, %t1 = gpu.alloc async [%t0] () : memref<2x4xi32>
    %t2 = gpu.launch_func async [%t1] @kernels::@ids clusters in (%c2, %c2, %c1) blocks in (%c4, %c2, %c1) threads in (%c1, %c1, %c1) args(%out : memref<2x4xi32>)
    %h = memref.alloc() : memref<2x4xi32>
    %t3 = gpu.memcpy async [%t2] %h, %out : memref<2x4xi32>, memref<2x4xi32>
    gpu.wait [%t3]
    %u = memref.cast %h : memref<2x4xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
  gpu.module @kernels {
    gpu.func @ids(%out : memref<2x4xi32>) kernel {
      %cx = gpu.cluster_id x
      %cy = gpu.cluster_id y
      %dx = gpu.cluster_dim x
      %dy = gpu.cluster_dim y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c1000 = arith.constant 1000 : index
      %c100 = arith.constant 100 : index
      %c10 = arith.constant 10 : index
      %a = arith.muli %cx, %c1000 : index
      %b = arith.muli %cy, %c100 : index
      %c = arith.muli %dx, %c10 : index
      %ab = arith.addi %a, %b : index
      %abc = arith.addi %ab, %c : index
      %v = arith.addi %abc, %dy : index
      %vi = arith.index_cast %v : index to i32
      memref.store %vi, %out[%by, %bx] : memref<2x4xi32>
      gpu.return
    }
  }
}
