//===- Passes.td - gmm conversion passes -------------------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GMM_CONVERSION_PASSES_TD
#define GMM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGMMToLoops : Pass<"convert-gmm-to-loops"> {
  let summary = "Lower gmm.ragged_dot directly to scf loops on tensors";
  let description = [{
    The reference lowering: every `gmm.ragged_dot` (any mode, batch
    dimensions, batched group sizes, group offset, init, any supported element
    type, static or dynamic shapes) becomes a nest of `scf.for` loops over the
    result elements that computes docs/Semantics.md's semantics literally:

    - mode 1: each result row finds its group by scanning the clamped group
      bounds; a row in no computed group keeps `init` (or zero), otherwise the
      dot product over the contracting dimensions uses that group's rhs;
    - mode 2: each output slice `i` sums the ragged contracting dimension over
      `[start_j, end_j)` of global group `j = offset + i` only;
    - mode 3: a plain batched dot.

    Products are accumulated in f32 (f64 for f64 inputs), added to `init`'s
    element when given, and converted once to the result element type.
    Group sizes are clamped (negative sizes count as zero, bounds saturate at
    the ragged extent), so no group sizes make the code access memory out of
    bounds. The output is destination-passing-style tensor IR (`tensor.empty`,
    `linalg.fill`, `scf.for` with `tensor.insert`) that One-Shot Bufferize
    turns into in-place loops.

    It is simple rather than fast: the optimized pipelines are checked against
    it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ConvertCHLOToGMM : Pass<"convert-chlo-to-gmm"> {
  let summary = "Import JAX's chlo.ragged_dot as gmm.ragged_dot";
  let description = [{
    Rewrites what JAX emits for `jax.lax.ragged_dot(_general)` into
    `gmm.ragged_dot`, in modules parsed with unregistered dialects allowed
    (gmm does not depend on StableHLO):

    - `"chlo.ragged_dot"(%lhs, %rhs, %group_sizes)` in generic form, with its
      `ragged_dot_dimension_numbers = #chlo.ragged_dot<...>` and
      `precision_config` properties (or attributes, in older text);
    - `"stablehlo.composite"(...)` whose `name` is `"chlo.ragged_dot"`, with
      the same attributes under `composite_attributes`: what `jax.export`
      writes for a GPU platform (JAX 0.10). Its decomposition function, and
      the private functions only it called, are removed once nothing else
      uses them;
    - `"stablehlo.custom_call"(...)` whose `call_target_name` is
      `"chlo.ragged_dot"`, with the attributes under `mhlo.attributes`: what
      JAX 0.8 wrote. It must be a plain call: no side effect, backend
      configuration, called computations, layouts or aliases.

    `ragged_dot_dimension_numbers` may be `#chlo.ragged_dot<...>`, a
    dictionary of the six lists, or, as jax.export writes it, an array of
    six dense i64 tensors in the order lhs batching, rhs batching, lhs
    contracting, rhs contracting, lhs ragged, rhs group.
    `precision_config` entries may be `#chlo<precision X>` or strings.
    `python/gmm/jax_export.py` prints what jax.export writes in MLIR's
    generic form, which gmm's tools parse.

    The result type is kept (the preferred element type). Every other op is
    left alone. Attributes the import does not understand, and dimension
    numbers that gmm.ragged_dot's verifier rejects, are errors with the
    location of the offending op.
  }];
  let dependentDialects = ["::mlir::gmm::GMMDialect"];
}

#endif // GMM_CONVERSION_PASSES_TD
