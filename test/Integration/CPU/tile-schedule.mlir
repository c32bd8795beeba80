// RUN: gmm-opt %s -gmm-materialize-metadata > %t.mlir
// RUN: gmm-runner %t.mlir -e schedule --pipeline=reference --values=0:3,0,5 --print | FileCheck %s --check-prefix=EXAMPLE
// RUN: gmm-runner %t.mlir -e schedule --pipeline=reference --values=0:2147483647,5,-3 --print | FileCheck %s --check-prefix=HUGE
// RUN: gmm-runner %t.mlir -e schedule --pipeline=reference --values=0:-4,2,9 --print | FileCheck %s --check-prefix=NEGATIVE
// RUN: gmm-runner %t.mlir -e schedule_offset --pipeline=reference --values=0:3,0,5 --values=1:1 --print | FileCheck %s --check-prefix=OFFSET
// RUN: gmm-runner %t.mlir -e schedule_offset --pipeline=reference --values=0:3,0,5 --values=1:-1 --print | FileCheck %s --check-prefix=OFFSET-NEG
// RUN: gmm-runner %t.mlir -e schedule6 --pipeline=reference --values=0:1,1,1,1,1,1 --print | FileCheck %s --check-prefix=MANY
// RUN: not gmm-runner %t.mlir -e schedule_vast --pipeline=reference --values=0:-3,5,-2147483648,9 --print 2>&1 | FileCheck %s --check-prefix=VAST
// RUN: not gmm-runner %t.mlir -e schedule_vast --pipeline=reference --values=0:2147483647,-1,-2147483648,2147483647 --guard-pages --print 2>&1 | FileCheck %s --check-prefix=VAST

// The tile schedule computed on the CPU (gmm-materialize-metadata), printed
// as: visit count, group ids, tile ids (both of the bound
// min(ceil(extent / tile) + min(local, extent) - 1, extent); entries past
// the count are unspecified),
// group starts, group ends. Expected values are worked out by hand from the
// definition in GMMOps.td.

// sizes [3, 0, 5], extent 8, tile 4 (REFERENCES.md's example): bounds
// [0,3) [3,3) [3,8); group 0 visits tile 0, group 1 is empty, group 2 visits
// tiles 0 and 1.
// EXAMPLE:      result 0: tensor<1xi64>
// EXAMPLE-NEXT: [3]
// EXAMPLE-NEXT: result 1: tensor<4xi64>
// EXAMPLE-NEXT: [0, 2, 2, {{[0-9]+}}]
// EXAMPLE-NEXT: result 2: tensor<4xi64>
// EXAMPLE-NEXT: [0, 0, 1, {{[0-9]+}}]
// EXAMPLE-NEXT: result 3: tensor<3xi64>
// EXAMPLE-NEXT: [0, 3, 3]
// EXAMPLE-NEXT: result 4: tensor<3xi64>
// EXAMPLE-NEXT: [3, 3, 8]

// sizes [INT32_MAX, 5, -3]: group 0 is cut to the extent, the others start
// past it: bounds [0,8) [8,8) [8,8); group 0 visits tiles 0 and 1.
// HUGE:      [2]
// HUGE:      [0, 0, {{[0-9]+}}, {{[0-9]+}}]
// HUGE:      [0, 1, {{[0-9]+}}, {{[0-9]+}}]
// HUGE:      [0, 8, 8]
// HUGE:      [8, 8, 8]

// sizes [-4, 2, 9]: the negative size counts as 0 and does not pull the
// next group back: bounds [0,0) [0,2) [2,8); group 1 visits tile 0, group 2
// tiles 0 and 1.
// NEGATIVE:      [3]
// NEGATIVE:      [1, 2, 2, {{[0-9]+}}]
// NEGATIVE:      [0, 0, 1, {{[0-9]+}}]
// NEGATIVE:      [0, 0, 2]
// NEGATIVE:      [0, 2, 8]

// Two local groups from offset 1: groups 1 (empty) and 2 are computed; the
// bound is 2 + 2 - 1 = 3.
// OFFSET:      [2]
// OFFSET:      [2, 2, {{[0-9]+}}]
// OFFSET:      [0, 1, {{[0-9]+}}]

// Offset -1: local groups -1 (none) and 0: only group 0, tile 0.
// OFFSET-NEG:      [1]
// OFFSET-NEG:      [0, {{[0-9]+}}, {{[0-9]+}}]
// OFFSET-NEG:      [0, {{[0-9]+}}, {{[0-9]+}}]

// More groups than tiles: 6 groups of one row, extent 6, tile 4: every
// group visits the tile of its row; bound min(2 + 6 - 1, 6) = 6, one visit
// per row.
// MANY:      [6]
// MANY:      [0, 1, 2, 3, 4, 5]{{$}}
// MANY:      [0, 0, 0, 0, 1, 1]{{$}}
// MANY:      [0, 1, 2, 3, 4, 5]
// MANY:      [1, 2, 3, 4, 5, 6]

// An extent near 2^63 (#38, class 8): lists for ceil(extent / 4) + 3 visits
// are 2^61 + 3 entries, whose byte size had wrapped around to 24 bytes that
// the visits overran (heap corruption, or a guard-page fault). The lists
// are capped at 2^60 - 1 entries, whose bytes a 64-bit size holds: the
// allocation fails cleanly, whatever the group sizes.
// VAST: gmm-runner: error: @schedule_vast could not allocate {{[0-9]+}} bytes ({{.*}} GiB; the machine has {{.*}}){{$}}
// VAST-NOT: {{.}}

#id = affine_map<(d0) -> (d0)>
func.func private @to_i64(%t: tensor<?xindex>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<?xindex>
  %e = tensor.empty(%n) : tensor<?xi64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%t : tensor<?xindex>) outs(%e : tensor<?xi64>) {
  ^bb0(%a: index, %b: i64):
    %c = arith.index_cast %a : index to i64
    linalg.yield %c : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

func.func @schedule(%gs: tensor<3xi32>) -> (tensor<1xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %extent = arith.constant 8 : index
  %local = arith.constant 3 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%local) tile_size = 4 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  %n64 = arith.index_cast %n : index to i64
  %nt = tensor.from_elements %n64 : tensor<1xi64>
  %g64 = call @to_i64(%g) : (tensor<?xindex>) -> tensor<?xi64>
  %t64 = call @to_i64(%t) : (tensor<?xindex>) -> tensor<?xi64>
  %s64 = call @to_i64(%s) : (tensor<?xindex>) -> tensor<?xi64>
  %e64 = call @to_i64(%e) : (tensor<?xindex>) -> tensor<?xi64>
  return %nt, %g64, %t64, %s64, %e64 : tensor<1xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

func.func @schedule_offset(%gs: tensor<3xi32>, %off: tensor<i32>) -> (tensor<1xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %extent = arith.constant 8 : index
  %local = arith.constant 2 : index
  %o = tensor.extract %off[] : tensor<i32>
  %oi = arith.index_cast %o : i32 to index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%local) offset(%oi) tile_size = 4 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  %n64 = arith.index_cast %n : index to i64
  %nt = tensor.from_elements %n64 : tensor<1xi64>
  %g64 = call @to_i64(%g) : (tensor<?xindex>) -> tensor<?xi64>
  %t64 = call @to_i64(%t) : (tensor<?xindex>) -> tensor<?xi64>
  %s64 = call @to_i64(%s) : (tensor<?xindex>) -> tensor<?xi64>
  %e64 = call @to_i64(%e) : (tensor<?xindex>) -> tensor<?xi64>
  return %nt, %g64, %t64, %s64, %e64 : tensor<1xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

func.func @schedule6(%gs: tensor<6xi32>) -> (tensor<1xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %extent = arith.constant 6 : index
  %local = arith.constant 6 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%local) tile_size = 4 : tensor<6xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  %n64 = arith.index_cast %n : index to i64
  %nt = tensor.from_elements %n64 : tensor<1xi64>
  %g64 = call @to_i64(%g) : (tensor<?xindex>) -> tensor<?xi64>
  %t64 = call @to_i64(%t) : (tensor<?xindex>) -> tensor<?xi64>
  %s64 = call @to_i64(%s) : (tensor<?xindex>) -> tensor<?xi64>
  %e64 = call @to_i64(%e) : (tensor<?xindex>) -> tensor<?xi64>
  return %nt, %g64, %t64, %s64, %e64 : tensor<1xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

func.func @schedule_vast(%gs: tensor<4xi32>) -> (tensor<1xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %extent = arith.constant 9223372036854775807 : index
  %local = arith.constant 4 : index
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%extent) local_groups(%local) tile_size = 4 : tensor<4xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<?xindex>, tensor<?xindex>
  %n64 = arith.index_cast %n : index to i64
  %nt = tensor.from_elements %n64 : tensor<1xi64>
  %g64 = call @to_i64(%g) : (tensor<?xindex>) -> tensor<?xi64>
  %t64 = call @to_i64(%t) : (tensor<?xindex>) -> tensor<?xi64>
  %s64 = call @to_i64(%s) : (tensor<?xindex>) -> tensor<?xi64>
  %e64 = call @to_i64(%e) : (tensor<?xindex>) -> tensor<?xi64>
  return %nt, %g64, %t64, %s64, %e64 : tensor<1xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

