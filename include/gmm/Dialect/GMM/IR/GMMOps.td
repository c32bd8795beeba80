//===- GMMOps.td - gmm operation definitions ---------------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_DIALECT_GMM_IR_GMMOPS_TD
#define GMM_DIALECT_GMM_IR_GMMOPS_TD

include "gmm/Dialect/GMM/IR/GMMDialect.td"
include "gmm/Dialect/GMM/IR/GMMAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GMM_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def GMM_IndexTensor : RankedTensorOf<[I32, I64]>;

def GMM_RaggedDotOp : GMM_Op<"ragged_dot", [
    AttrSizedOperandSegments,
    NoMemoryEffect,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
                              ["reifyResultShapes"]>]> {
  let summary = "Ragged dot (grouped matrix multiplication)";
  let description = [{
    A dot product in which one dimension of `lhs`, the *ragged* dimension, is
    split into consecutive groups whose sizes are only known at run time
    (`group_sizes`). Dimension numbers follow CHLO's `chlo.ragged_dot`
    (see `#gmm.ragged_dot`). Where the ragged dimension sits picks the mode:

    | mode | ragged lhs dim | example shapes | result |
    |------|----------------|----------------|--------|
    | 1 | free (`m`) | lhs `[m,k]`, rhs `[g,k,n]`, sizes `[g]` | `[m,n]`: row r uses `rhs[group(r)]` |
    | 2 | contracting (`k`) | lhs `[m,k]`, rhs `[k,n]`, sizes `[g]` | `[g,m,n]`: `out[i]` sums k over group i only |
    | 3 | batching (`b`) | lhs `[b,m,k]`, rhs `[b,k,n]`, sizes `[g]` | `[b,m,n]`: a plain batched dot |

    Group `i` covers ragged indices `[start_i, end_i)` with
    `start_i = min(sum_{j<i} max(sizes[j], 0), extent)` and
    `end_i = min(start_i + max(sizes[i], 0), extent)`: negative sizes count
    as zero (they do not pull later groups back) and groups past the extent
    are cut, so no group sizes can make the op read or write out of bounds. Rows (mode 1) or k-slices (mode
    2) that no computed group covers produce zero, or keep the value of
    `init` when it is given. In mode 2 the output slice of an empty group is
    zero (or `init`'s slice).

    Operands:

    - `lhs`, `rhs`: ranked float tensors (f16, bf16, f32 or f64) of the same
      element type.
    - `group_sizes`: i32 or i64, shape `[g]` or `[prefix..., g]`, where the
      prefix is, as in CHLO, the sizes of all lhs batching dimensions, then in
      mode 1 the lhs free dimensions before the ragged dimension, in mode 2
      the lhs contracting dimensions listed before the ragged one; in mode 3
      only the batching dimensions listed before the ragged one. A `[g]`
      vector is broadcast over the prefix.
    - `group_offset` (optional, modes 1 and 2): a tensor of shape `[]` or
      `[1]` with the element type of `group_sizes`, for expert sharding. The op then computes only the
      `G_local` groups `[offset, offset + G_local)`, where `G_local` is the
      size of the rhs group dimension (mode 1) or of the result's leading
      group dimension (mode 2); it may be smaller than `g`. Rows of other
      groups are treated as not covered.
    - `init` (optional): an accumulator of the result type. The products are
      added to it; without it they are added to zero.

    The result element type is the *preferred* element type (any of f16,
    bf16, f32, f64); products are accumulated in f32 for f16/bf16/f32 inputs
    and in f64 for f64 inputs, then converted once. The result shape is
    `[g]` (mode 2 only) followed by the lhs batching dimensions (attribute
    order), the lhs free dimensions and the rhs free dimensions (ascending,
    the rhs group dimension excluded). Dynamic dimensions are allowed
    everywhere; the verifier checks what is static.

    The op has value semantics: it reads its operands and creates a new
    tensor, and has no memory effects. It is not in destination-passing
    style; `docs/Design.md` gives the reasons.

    Example (mode 1, a mixture-of-experts layer with 2 experts):

    ```mlir
    %out = gmm.ragged_dot %tokens, %weights, %sizes
        dimension_numbers = <lhs_contracting_dimensions = [1],
                             rhs_contracting_dimensions = [1],
                             lhs_ragged_dimensions = [0],
                             rhs_group_dimensions = [0]>
        : tensor<16x4xbf16>, tensor<2x4x3xbf16>, tensor<2xi32> -> tensor<16x3xf32>
    ```

    Example (mode 2, weight gradient, accumulating into `%acc`):

    ```mlir
    %dw = gmm.ragged_dot %x, %dy, %sizes init(%acc : tensor<2x4x3xf32>)
        dimension_numbers = <lhs_contracting_dimensions = [0],
                             rhs_contracting_dimensions = [0],
                             lhs_ragged_dimensions = [0]>
        : tensor<16x4xf32>, tensor<16x3xf32>, tensor<2xi64> -> tensor<2x4x3xf32>
    ```
  }];

  let arguments = (ins
    GMM_FloatTensor:$lhs,
    GMM_FloatTensor:$rhs,
    GMM_IndexTensor:$group_sizes,
    Optional<GMM_IndexTensor>:$group_offset,
    Optional<GMM_FloatTensor>:$init,
    GMM_RaggedDotDimensionNumbersAttr:$dimension_numbers
  );
  let results = (outs GMM_FloatTensor:$result);

  let assemblyFormat = [{
    $lhs `,` $rhs `,` $group_sizes
    (`group_offset` `(` $group_offset^ `:` type($group_offset) `)`)?
    (`init` `(` $init^ `:` type($init) `)`)?
    `dimension_numbers` `=` $dimension_numbers attr-dict
    `:` type($lhs) `,` type($rhs) `,` type($group_sizes) `->` type($result)
  }];

  let builders = [
    // Builds the op with the result type inferred from the operands. The
    // result element type defaults to the lhs element type; `init` fixes the
    // result type when given. Fails (returns a null op through the verifier)
    // when the shapes do not fit.
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs,
                   "::mlir::Value":$groupSizes,
                   "RaggedDotDimensionNumbersAttr":$dimensionNumbers,
                   CArg<"::mlir::Type", "{}">:$resultElementType,
                   CArg<"::mlir::Value", "{}">:$groupOffset,
                   CArg<"::mlir::Value", "{}">:$init)>
  ];

  let extraClassDeclaration = [{
    /// The mode picked by the position of the ragged lhs dimension.
    RaggedDotMode getMode();
    /// Every pair of sizes that must agree (operands with each other, with
    /// init and with the static sizes of the result type), for a verified
    /// op, including pairs that are both static.
    llvm::SmallVector<RaggedDotSizeAgreement> getSizeAgreements();
    /// The single lhs ragged dimension (the verifier guarantees one).
    int64_t getLhsRaggedDimension();
    /// The rhs group dimension, present in mode 1 only.
    std::optional<int64_t> getRhsGroupDimension();
    /// Number of groups `g` in `group_sizes` (may be dynamic).
    int64_t getNumGroups();
    /// The type products are accumulated in: f64 for f64 inputs, else f32.
    ::mlir::FloatType getAccumulatorType();

    /// True when the op is in one of the normalized forms that gmm-tile
    /// accepts (what gmm-normalize produces; see its description):
    ///   mode 1: lhs [B, X, M, K], rhs [B, G, K, N] or [B, G, N, K],
    ///           group_sizes [B, X, g], result [B, X, M, N];
    ///   mode 2: lhs [B, Kr, Kc, M] or [B, M, Kr, Kc],
    ///           rhs [B, Kr, Kc, N] or [B, N, Kr, Kc],
    ///           group_sizes [B, g], result [G, B, M, N];
    /// where Kr is the ragged dimension. Mode 3 has no normalized form of its
    /// own: gmm-normalize rewrites it into mode 1 with one group.
    bool isNormalized();

    /// Infers the result type of a ragged dot from its operand types and
    /// dimension numbers, with every check of the verifier. `numLocalGroups`
    /// gives G_local for mode 2 with a group offset (dynamic if unknown).
    /// Diagnostics go to `emitError` when it is given.
    static ::mlir::FailureOr<::mlir::RankedTensorType> inferResultType(
        ::mlir::RankedTensorType lhsType, ::mlir::RankedTensorType rhsType,
        ::mlir::RankedTensorType groupSizesType, bool hasGroupOffset,
        RaggedDotDimensionNumbersAttr dims, ::mlir::Type resultElementType,
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
        int64_t numLocalGroups = ::mlir::ShapedType::kDynamic);
  }];

  let hasVerifier = 1;
}

def GMM_TileScheduleOp : GMM_Op<"tile_schedule", [Pure]> {
  let summary = "The tile visits of a ragged dimension (abstract group metadata)";
  let description = [{
    Describes, without saying how it is computed, the megablox-style schedule
    of *tile visits* over a ragged dimension of `extent` elements cut into
    tiles of `tile_size`, for one row of group sizes. `gmm-tile` creates it;
    `gmm-materialize-metadata` replaces it with the loops that compute it on
    the target at run time (no host synchronisation).

    Groups have the clamped bounds of the ragged dot
    (`start_i = min(sum_{j<i} max(sizes[j], 0), extent)`,
    `end_i = min(start_i + max(sizes[i], 0), extent)`), returned for all `g`
    groups in `group_starts` / `group_ends`. The *computed* groups are the
    local ones, `[offset, offset + num_local_groups) ∩ [0, g)` (`offset` is 0
    when absent). Each computed non-empty group `i` visits every tile that
    its rows touch, `floor(start_i / tile_size)` to
    `floor((end_i - 1) / tile_size)`: a tile shared by two groups is visited
    once per group, and each visit is responsible only for the rows of its
    own group. Empty groups are not visited.

    The visits are listed group by group (which is also tile order):
    `group_ids[v]` is the global group and `tile_ids[v]` the tile of visit
    `v < num_visits`. Both tensors are sized by what can be visited: at most
    `min(ceil(extent / tile_size) + min(num_local_groups, extent) - 1,
    extent)` entries (every visit holds a row of its group), none when there
    are no tiles or no computed groups, and never more than 2^60 - 1 (so
    that their size in bytes fits in 64 bits: a larger list could not be
    allocated anyway); a static size of `group_ids` is the lists' size.
    Entries at and after `num_visits` are unspecified, and no visit is
    written past the lists. A negative `extent` counts as 0.

    Example (sizes [3, 0, 5], extent 8, tile size 4): group_ids [0, 2, 2],
    tile_ids [0, 0, 1], 3 visits, starts [0, 3, 3], ends [3, 3, 8].
  }];
  let arguments = (ins
    1DTensorOf<[I32, I64]>:$group_sizes,
    Index:$extent,
    Index:$num_local_groups,
    Optional<Index>:$group_offset,
    ConfinedAttr<I64Attr, [IntPositive]>:$tile_size
  );
  let results = (outs
    Index:$num_visits,
    1DTensorOf<[Index]>:$group_ids,
    1DTensorOf<[Index]>:$tile_ids,
    1DTensorOf<[Index]>:$group_starts,
    1DTensorOf<[Index]>:$group_ends
  );
  let assemblyFormat = [{
    $group_sizes `extent` `(` $extent `)` `local_groups` `(` $num_local_groups `)`
    (`offset` `(` $group_offset^ `)`)? `tile_size` `=` $tile_size attr-dict
    `:` type($group_sizes) `->` type($group_ids) `,` type($tile_ids) `,`
    type($group_starts) `,` type($group_ends)
  }];
  let hasVerifier = 1;
}

#endif // GMM_DIALECT_GMM_IR_GMMOPS_TD
