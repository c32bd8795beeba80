// RUN: gmm-opt %s -split-input-file --gmm-cpu-emulate-bf16-dot | FileCheck %s

// Each vdpbf16ps becomes the two products of its pairs, the odd one added
// first: acc[i] + a[2i+1] * b[2i+1], then + a[2i] * b[2i].
// CHECK-LABEL: func.func @dot512(
// CHECK-SAME:      %[[ACC:.+]]: vector<16xf32>, %[[A:.+]]: vector<32xbf16>, %[[B:.+]]: vector<32xbf16>)
// CHECK-NEXT:    %[[WA:.+]] = arith.extf %[[A]] : vector<32xbf16> to vector<32xf32>
// CHECK-NEXT:    %[[AE:.+]], %[[AO:.+]] = vector.deinterleave %[[WA]] : vector<32xf32> -> vector<16xf32>
// CHECK-NEXT:    %[[WB:.+]] = arith.extf %[[B]] : vector<32xbf16> to vector<32xf32>
// CHECK-NEXT:    %[[BE:.+]], %[[BO:.+]] = vector.deinterleave %[[WB]] : vector<32xf32> -> vector<16xf32>
// CHECK-NEXT:    %[[ODD:.+]] = vector.fma %[[AO]], %[[BO]], %[[ACC]] : vector<16xf32>
// CHECK-NEXT:    %[[SUM:.+]] = vector.fma %[[AE]], %[[BE]], %[[ODD]] : vector<16xf32>
// CHECK-NEXT:    return %[[SUM]] : vector<16xf32>
func.func @dot512(%acc: vector<16xf32>, %a: vector<32xbf16>,
                  %b: vector<32xbf16>) -> vector<16xf32> {
  %0 = x86vector.avx512.dot %acc, %a, %b : vector<32xbf16> -> vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// The 128- and 256-bit forms, chained: each dot is rewritten where it is.
// CHECK-LABEL: func.func @narrow_chain(
// CHECK-SAME:      %[[ACC:.+]]: vector<4xf32>, %[[A:.+]]: vector<8xbf16>, %[[B:.+]]: vector<8xbf16>, %[[ACC8:.+]]: vector<8xf32>, %[[C:.+]]: vector<16xbf16>)
// CHECK-NOT:     x86vector
// CHECK:         %[[AE:.+]], %[[AO:.+]] = vector.deinterleave %{{.+}} : vector<8xf32> -> vector<4xf32>
// CHECK:         %[[BE:.+]], %[[BO:.+]] = vector.deinterleave %{{.+}} : vector<8xf32> -> vector<4xf32>
// CHECK:         %[[ODD:.+]] = vector.fma %[[AO]], %[[BO]], %[[ACC]] : vector<4xf32>
// CHECK:         %[[FIRST:.+]] = vector.fma %[[AE]], %[[BE]], %[[ODD]] : vector<4xf32>
// CHECK:         %[[ODD2:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[FIRST]] : vector<4xf32>
// CHECK:         %[[SECOND:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[ODD2]] : vector<4xf32>
// CHECK:         %[[WIDE:.+]] = arith.extf %[[C]] : vector<16xbf16> to vector<16xf32>
// CHECK:         vector.deinterleave %[[WIDE]] : vector<16xf32> -> vector<8xf32>
// CHECK:         %[[ODD8:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[ACC8]] : vector<8xf32>
// CHECK:         %[[THIRD:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[ODD8]] : vector<8xf32>
// CHECK:         return %[[SECOND]], %[[THIRD]] : vector<4xf32>, vector<8xf32>
func.func @narrow_chain(%acc: vector<4xf32>, %a: vector<8xbf16>,
                        %b: vector<8xbf16>, %acc8: vector<8xf32>,
                        %c: vector<16xbf16>) -> (vector<4xf32>, vector<8xf32>) {
  %0 = x86vector.avx512.dot %acc, %a, %b : vector<8xbf16> -> vector<4xf32>
  %1 = x86vector.avx512.dot %0, %b, %a : vector<8xbf16> -> vector<4xf32>
  %2 = x86vector.avx512.dot %acc8, %c, %c : vector<16xbf16> -> vector<8xf32>
  return %1, %2 : vector<4xf32>, vector<8xf32>
}

// -----

// Nothing else is touched.
// CHECK-LABEL: func.func @no_dot(
// CHECK-NEXT:    %[[S:.+]] = arith.addf %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK-NEXT:    return %[[S]]
func.func @no_dot(%x: vector<16xf32>, %y: vector<16xf32>) -> vector<16xf32> {
  %0 = arith.addf %x, %y : vector<16xf32>
  return %0 : vector<16xf32>
}
