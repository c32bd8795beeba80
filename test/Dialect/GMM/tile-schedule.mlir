// RUN: gmm-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: gmm-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | gmm-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @schedule
// CHECK-SAME:    %[[GS:[a-z0-9]+]]: tensor<3xi32>, %[[M:[a-z0-9]+]]: index, %[[L:[a-z0-9]+]]: index, %[[O:[a-z0-9]+]]: index
// CHECK-NEXT:    %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} = gmm.tile_schedule %[[GS]] extent(%[[M]]) local_groups(%[[L]]) offset(%[[O]]) tile_size = 16 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<3xindex>, tensor<3xindex>{{$}}
func.func @schedule(%gs: tensor<3xi32>, %m: index, %local: index, %off: index) -> index {
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%m) local_groups(%local) offset(%off) tile_size = 16 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<3xindex>, tensor<3xindex>
  return %n : index
}

// -----

// CHECK-LABEL: func.func @no_offset
// CHECK-NEXT:    gmm.tile_schedule %{{.+}} extent(%{{.+}}) local_groups(%{{.+}}) tile_size = 4 : tensor<?xi64> -> tensor<5xindex>, tensor<5xindex>, tensor<?xindex>, tensor<?xindex>{{$}}
func.func @no_offset(%gs: tensor<?xi64>, %m: index, %local: index) -> index {
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%m) local_groups(%local) tile_size = 4 : tensor<?xi64> -> tensor<5xindex>, tensor<5xindex>, tensor<?xindex>, tensor<?xindex>
  return %n : index
}

// -----

func.func @bad_bounds(%gs: tensor<3xi32>, %m: index) -> index {
  // expected-error @+1 {{'gmm.tile_schedule' op group_starts has 4 elements but group_sizes has 3}}
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%m) local_groups(%m) tile_size = 4 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<4xindex>, tensor<3xindex>
  return %n : index
}

// -----

func.func @bad_ends(%gs: tensor<3xi32>, %m: index) -> index {
  // expected-error @+1 {{'gmm.tile_schedule' op group_ends has 2 elements but group_sizes has 3}}
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%m) local_groups(%m) tile_size = 4 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<3xindex>, tensor<2xindex>
  return %n : index
}

// -----

func.func @bad_visits(%gs: tensor<3xi32>, %m: index) -> index {
  // expected-error @+1 {{'gmm.tile_schedule' op group_ids has 4 elements but tile_ids has 5}}
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%m) local_groups(%m) tile_size = 4 : tensor<3xi32> -> tensor<4xindex>, tensor<5xindex>, tensor<3xindex>, tensor<3xindex>
  return %n : index
}

// -----

func.func @bad_tile(%gs: tensor<3xi32>, %m: index) -> index {
  // expected-error @+1 {{'gmm.tile_schedule' op attribute 'tile_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%m) local_groups(%m) tile_size = 0 : tensor<3xi32> -> tensor<?xindex>, tensor<?xindex>, tensor<3xindex>, tensor<3xindex>
  return %n : index
}

// -----

func.func @bad_sizes_type(%gs: tensor<3xf32>, %m: index) -> index {
  // expected-error @+1 {{'gmm.tile_schedule' op operand #0 must be 1D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %n, %g, %t, %s, %e = gmm.tile_schedule %gs extent(%m) local_groups(%m) tile_size = 4 : tensor<3xf32> -> tensor<?xindex>, tensor<?xindex>, tensor<3xindex>, tensor<3xindex>
  return %n : index
}
