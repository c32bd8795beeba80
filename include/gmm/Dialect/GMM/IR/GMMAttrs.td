//===- GMMAttrs.td - gmm attribute definitions -------------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_GMMATTRS_TD
#define GMM_DIALECT_GMM_IR_GMMATTRS_TD

include "gmm/Dialect/GMM/IR/GMMDialect.td"

def GMM_RaggedDotDimensionNumbersAttr
    : GMM_Attr<"RaggedDotDimensionNumbers", "ragged_dot"> {
  let summary = "Dimension numbers of a ragged dot, as in CHLO";
  let description = [{
    The six dimension lists of a ragged dot, with the same names and meaning
    as CHLO's `#chlo.ragged_dot` (and XLA's `RaggedDotDimensionNumbers`):

    - `lhs_batching_dimensions` / `rhs_batching_dimensions`: batch dimensions,
      paired in order;
    - `lhs_contracting_dimensions` / `rhs_contracting_dimensions`: summed
      dimensions, paired in order;
    - `lhs_ragged_dimensions`: exactly one lhs dimension that `group_sizes`
      splits into groups. Whether it is a free, a contracting or a batching
      dimension decides the op's mode (1, 2 or 3);
    - `rhs_group_dimensions`: the rhs dimension that indexes the groups'
      weights; exactly one in mode 1, none in modes 2 and 3.

    Syntax: `key = [d0, d1, ...]` pairs separated by commas, in any order.
    Lists that are empty may be left out; the printer leaves them out and
    writes the keys in the order above. A key given twice, or a key that is
    not one of the six, is an error.

    Example:

    ```mlir
    #gmm.ragged_dot<lhs_contracting_dimensions = [1],
                    rhs_contracting_dimensions = [1],
                    lhs_ragged_dimensions = [0],
                    rhs_group_dimensions = [0]>
    ```

    Whether the lists fit the operands (ranks, sizes, distinctness) is checked
    by the op that carries the attribute, since only it knows the operand
    types.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "lhs batching dimensions">:$lhsBatchingDimensions,
    ArrayRefParameter<"int64_t", "rhs batching dimensions">:$rhsBatchingDimensions,
    ArrayRefParameter<"int64_t", "lhs contracting dimensions">:$lhsContractingDimensions,
    ArrayRefParameter<"int64_t", "rhs contracting dimensions">:$rhsContractingDimensions,
    ArrayRefParameter<"int64_t", "lhs ragged dimensions">:$lhsRaggedDimensions,
    ArrayRefParameter<"int64_t", "rhs group dimensions">:$rhsGroupDimensions
  );
  let hasCustomAssemblyFormat = 1;
}

#endif // GMM_DIALECT_GMM_IR_GMMATTRS_TD
