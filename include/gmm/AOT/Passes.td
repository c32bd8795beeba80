//===- Passes.td - ahead-of-time compilation passes --------*- tablegen -*-===//
//
// Part of the gmm project: ragged dot (grouped matmul) for MLIR.
//
//===----------------------------------------------------------------------===//
//
// The passes that prepare a module for gmm-aot, which compiles it into a
// shared library with a C entry point per function (docs/AOT.md).
//
//===----------------------------------------------------------------------===//

#ifndef GMM_AOT_PASSES
#define GMM_AOT_PASSES

include "mlir/Pass/PassBase.td"

def GMMAOTShapeFunctions : Pass<"gmm-aot-shape-functions", "::mlir::ModuleOp"> {
  let summary = "Add to each public function a function that checks its "
                "arguments' sizes and computes its results' sizes";
  let description = [{
    For each public `func.func @f` with a body, whose arguments are ranked
    tensors or memrefs and whose results are ranked tensors, adds
    `func.func @f_shapes` (marked `gmm.aot_shapes_of = @f`) with `@f`'s
    arguments and one more, a `memref<Nxi64>` that it fills: element 0 is
    1 when the sizes of the arguments are valid for `@f`, else 0, and the
    following elements are the sizes of `@f`'s results, each result's
    dimensions in order (N = 1 + the sum of the results' ranks).

    The sizes are valid when every pair of sizes that a `gmm.ragged_dot`
    of `@f` needs to agree (those `gmm-check-sizes` would assert) agrees.
    The result sizes are reified (`ReifyRankedShapedTypeOpInterface`) down
    to the sizes of `@f`'s arguments, and the computation itself is then
    dead and erased: `@f_shapes` only reads the arguments' sizes, never
    their elements, so its caller may pass descriptors without data.

    gmm-aot calls the shape functions in a library's C entry points before
    the function itself, so that a call with sizes that disagree returns an
    error code instead of reaching a `cf.assert` that aborts the process,
    and so that a caller can size the results of a function with dynamic
    sizes.

    A function whose result sizes depend on anything but its arguments'
    sizes (an element value, a loop), or whose checks are not in its entry
    block, is an error naming the op in the way.

    Example:

    ```mlir
    func.func @f(%lhs: tensor<?x32xf32>, %rhs: tensor<4x32x48xf32>,
                 %sizes: tensor<4xi32>) -> tensor<?x48xf32> {
      %0 = gmm.ragged_dot %lhs, %rhs, %sizes ... -> tensor<?x48xf32>
      return %0 : tensor<?x48xf32>
    }
    ```

    gains

    ```mlir
    func.func @f_shapes(%lhs: tensor<?x32xf32>, %rhs: tensor<4x32x48xf32>,
                        %sizes: tensor<4xi32>, %out: memref<3xi64>)
        attributes {gmm.aot_shapes_of = @f} {
      // out[0] = 1 (nothing to check), out[1] = dim %lhs, 0, out[2] = 48
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def GMMAOTDestinationResults : Pass<"gmm-aot-destination-results",
                                    "::mlir::ModuleOp"> {
  let summary = "Make each public function write its tensor results into "
                "memref arguments that its caller passes";
  let description = [{
    For each public `func.func @f` with a body and ranked tensor results,
    appends one argument per result, a memref of the result's type with an
    identity layout (marked `gmm.aot_result = i`), and writes each returned
    value into it with `bufferization.materialize_in_destination ... in
    restrict writable`; `@f` then returns nothing. Bufferization computes
    each result in its destination (gmm's pipelines forward destinations
    through the ragged dots' tiles), so the compiled function allocates no
    result and copies none: the calling convention of gmm-aot's C entry
    points, of XLA's FFI and of every library a caller gives its output
    buffer to.

    Functions that return anything other than ranked tensors are an error.

    Example:

    ```mlir
    func.func @f(%a: tensor<64x32xf32>, ...) -> tensor<64x48xf32> {
      %0 = gmm.ragged_dot ...
      return %0 : tensor<64x48xf32>
    }
    ```

    becomes

    ```mlir
    func.func @f(%a: tensor<64x32xf32>, ...,
                 %out: memref<64x48xf32> {gmm.aot_result = 0 : i64}) {
      %0 = gmm.ragged_dot ...
      bufferization.materialize_in_destination %0 in restrict writable %out
          : (tensor<64x48xf32>, memref<64x48xf32>) -> ()
      return
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // GMM_AOT_PASSES
