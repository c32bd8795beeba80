// A bf16 result streams on x86: gmm-to-cpu gives gmm-cpu-stream-results the
// host's register width, so each aligned store of a 16-bit float vector
// into a large result goes through an empty inline asm as integers, and
// LLVM 22's X86 backend selects a streaming store for it (without the
// barrier it selects a plain vmovaps/vmovups for a nontemporal bf16 store).
// REQUIRES: host-x86
// RUN: gmm-opt %s --gmm-to-cpu | FileCheck %s
// RUN: gmm-opt %s --gmm-to-cpu | mlir-translate --mlir-to-llvmir \
// RUN:   | llc -O2 -mcpu=znver4 | FileCheck %s --check-prefix=ASM

// CHECK-LABEL: llvm.func @mode2_bf16
// CHECK:         %[[BITS:.+]] = llvm.bitcast %{{.+}} : vector<[[N:8|16|32]]xbf16> to vector<[[N]]xi16>
// CHECK-NEXT:    %[[OPAQUE:.+]] = llvm.inline_asm asm_dialect = att "", "=v,0" %[[BITS]] : (vector<[[N]]xi16>) -> vector<[[N]]xi16>
// CHECK-NEXT:    %[[BACK:.+]] = llvm.bitcast %[[OPAQUE]] : vector<[[N]]xi16> to vector<[[N]]xbf16>
// CHECK:         llvm.store %[[BACK]], %{{.+}} {alignment = {{16|32|64}} : i64, nontemporal} : vector<[[N]]xbf16>, !llvm.ptr
// CHECK:         llvm.fence seq_cst

// ASM-LABEL: mode2_bf16..omp_par:
// ASM:         #APP
// ASM-NEXT:    #NO_APP
// ASM-NOT:     vmov{{[a-z0-9]+}} %{{[xyz]}}mm{{[0-9]+}}, (
// ASM:         vmovnt{{ps|dq}} %{{[xyz]}}mm{{[0-9]+}}, (
func.func @mode2_bf16(%x: tensor<4096x1024xbf16>, %dy: tensor<4096x1024xbf16>, %gs: tensor<64xi32>, %out: memref<64x1024x1024xbf16>) {
  %r = gmm.ragged_dot %x, %dy, %gs dimension_numbers = <lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0]> {gmm.kernel_config = #gmm.kernel_config<target = cpu, tile = [224, 256, 256], register_block = [14, 32]>} : tensor<4096x1024xbf16>, tensor<4096x1024xbf16>, tensor<64xi32> -> tensor<64x1024x1024xbf16>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<64x1024x1024xbf16>, memref<64x1024x1024xbf16>) -> ()
  return
}
