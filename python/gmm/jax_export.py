"""From a JAX function to a module that gmm reads.

    from gmm.jax_export import export_generic
    text = export_generic(fn, jax.ShapeDtypeStruct((64, 32), jnp.bfloat16), ...)
    open("moe.mlir", "w").write(text)

then

    gmm-opt moe.mlir --allow-unregistered-dialect --convert-chlo-to-gmm
    gmm-runner moe.mlir ...            # after the import above

`jax.export` prints StableHLO in its pretty form, which only a tool with the
StableHLO dialect parses. This prints the same module in MLIR's generic form
through jaxlib's own MLIR bindings, which any MLIR tool parses (gmm's with
--allow-unregistered-dialect). It exports for a GPU platform: for the CPU,
JAX expands ragged dots into dense StableHLO before exporting, and there is
no ragged dot left to import; for CUDA it keeps `chlo.ragged_dot` (JAX 0.10
writes a `stablehlo.composite` with a decomposition function, JAX 0.8 a
`stablehlo.custom_call`), which convert-chlo-to-gmm imports in both forms.
"""

import jax
from jax import export
from jax._src.interpreters import mlir as jax_mlir
from jax._src.lib.mlir import ir


def export_generic(fn, *args, platform="cuda", debug_info=False):
    """Exports `jax.jit(fn)` for `args` (arrays or jax.ShapeDtypeStruct) on
    `platform` and returns the module text in MLIR's generic form."""
    exported = export.export(jax.jit(fn), platforms=[platform])(*args)
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(exported.mlir_module())
        return module.operation.get_asm(
            print_generic_op_form=True, enable_debug_info=debug_info
        )
