//===- GMMDialect.td - gmm dialect definition --------------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_GMMDIALECT_TD
#define GMM_DIALECT_GMM_IR_GMMDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def GMM_Dialect : Dialect {
  let name = "gmm";
  let cppNamespace = "::mlir::gmm";
  let summary = "Ragged dot (grouped matmul) for mixture-of-experts layers";
  let description = [{
    The `gmm` dialect models *ragged dot*, the grouped matrix multiplication at
    the heart of mixture-of-experts layers: the rows (or the contracting
    dimension) of `lhs` are split into groups by a run-time `group_sizes`
    vector, and each group is multiplied by its own weight matrix.

    The dialect has one computational op, `gmm.ragged_dot`, whose dimension
    numbers mirror CHLO's `chlo.ragged_dot` so that programs exported by JAX
    map onto it one to one. The op has value semantics on ranked tensors; the
    gmm passes lower it progressively (normalize, tile, materialize group
    metadata) into upstream destination-style ops that bufferize and run on
    the CPU or are mapped to the GPU.

    The semantics every lowering keeps are written in `docs/Semantics.md`.
  }];
  let useDefaultAttributePrinterParser = 1;
  // gmm.kernel_config on any op is checked by the configuration's rules
  // (KernelConfigRules.h).
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

class GMM_Op<string mnemonic, list<Trait> traits = []>
    : Op<GMM_Dialect, mnemonic, traits>;

class GMM_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<GMM_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // GMM_DIALECT_GMM_IR_GMMDIALECT_TD
