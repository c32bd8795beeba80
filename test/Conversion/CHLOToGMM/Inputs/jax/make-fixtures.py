#!/usr/bin/env python3
"""Regenerates the JAX fixtures of test/Conversion/CHLOToGMM/jax-export.mlir.

    python3 -m venv /tmp/jax && /tmp/jax/bin/pip install "jax[cpu]==0.10.2"
    PYTHONPATH=python /tmp/jax/bin/python \\
        test/Conversion/CHLOToGMM/Inputs/jax/make-fixtures.py

For each case it writes CASE.mlir, the module that jax.export wrote for a
jax.lax.ragged_dot_general call (for the CUDA platform, printed in MLIR's
generic form by gmm.jax_export), and CASE.lhs.npy, CASE.rhs.npy, CASE.gs.npy
and CASE.out.npy: integer-valued inputs and the result that JAX itself
computes for them on the CPU (through its own dense expansion, which shares
nothing with gmm). Small integers keep every product and sum exact in every
dtype, so gmm must reproduce CASE.out exactly.
"""

import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

from gmm.jax_export import export_generic

PINNED_JAX = "0.10.2"
HERE = os.path.dirname(os.path.abspath(__file__))
DN = jax.lax.RaggedDotDimensionNumbers


def group_sizes(rng, shape, extent):
    """Random non-negative sizes along the last axis whose sum stays within
    `extent` (some rows left uncovered, some groups empty)."""
    sizes = np.zeros(shape, np.int32)
    for index in np.ndindex(*shape[:-1]):
        cuts = np.sort(rng.integers(0, extent + 1, shape[-1]))
        sizes[index] = np.diff(np.concatenate([[0], cuts])).astype(np.int32)
    return sizes


# name: (lhs shape, rhs shape, group_sizes shape, ragged extent, dimension
#        numbers, input dtype, preferred_element_type)
CASES = {
    # Mode 1, the MoE forward: rows of lhs ragged, one rhs per group.
    "mode1-bf16": ((16, 8), (4, 8, 6), (4,), 16,
                   DN((([1], [1]), ([], [])), [0], [0]), jnp.bfloat16, None),
    # Mode 1 with weights stored [g, n, k], f16 in, f32 out.
    "mode1-rhs-nk-f16": ((12, 8), (3, 5, 8), (3,), 12,
                         DN((([1], [2]), ([], [])), [0], [0]), jnp.float16,
                         jnp.float32),
    # Mode 1 with a batch dimension and batched group sizes [b, g].
    "mode1-batched-f32": ((2, 10, 4), (2, 3, 4, 5), (2, 3), 10,
                          DN((([2], [2]), ([0], [0])), [1], [1]), jnp.float32,
                          None),
    # Mode 2, the weight gradient: the contracting dimension is ragged and
    # each group gets its own output slice [g, m, n].
    "mode2-f32": ((6, 16), (16, 5), (3,), 16,
                  DN((([1], [0]), ([], [])), [1], []), jnp.float32, None),
    "mode2-bf16": ((4, 12), (12, 3), (4,), 12,
                   DN((([1], [0]), ([], [])), [1], []), jnp.bfloat16,
                   jnp.float32),
    # Mode 3: the ragged dimension is a batch dimension: a batched dot.
    "mode3-f16": ((3, 4, 8), (3, 8, 5), (2,), 3,
                  DN((([2], [1]), ([0], [0])), [0], []), jnp.float16, None),
}


def main():
    if jax.__version__ != PINNED_JAX:
        sys.exit(f"the fixtures are made with JAX {PINNED_JAX}, "
                 f"not {jax.__version__}")
    rng = np.random.default_rng(20261124)
    for name, (lhs_shape, rhs_shape, gs_shape, extent, dims, dtype,
               preferred) in CASES.items():
        lhs = rng.integers(-3, 4, lhs_shape).astype(np.float32)
        rhs = rng.integers(-3, 4, rhs_shape).astype(np.float32)
        gs = group_sizes(rng, gs_shape, extent)

        def fn(lhs, rhs, gs, dims=dims, preferred=preferred):
            return jax.lax.ragged_dot_general(
                lhs, rhs, gs, dims, preferred_element_type=preferred)

        args = (jax.ShapeDtypeStruct(lhs_shape, dtype),
                jax.ShapeDtypeStruct(rhs_shape, dtype),
                jax.ShapeDtypeStruct(gs_shape, jnp.int32))
        text = export_generic(fn, *args, platform="cuda")
        out = jax.jit(fn)(jnp.asarray(lhs, dtype), jnp.asarray(rhs, dtype),
                          jnp.asarray(gs))
        with open(os.path.join(HERE, name + ".mlir"), "w") as f:
            f.write(f"// Written by jax.export (JAX {jax.__version__}, "
                    "platform cuda) for jax.lax.ragged_dot_general;\n"
                    "// regenerate with make-fixtures.py.\n")
            f.write(text)
        # Values as f32 (exact: small integers); gmm-runner rounds them to
        # the argument's type.
        np.save(os.path.join(HERE, name + ".lhs.npy"), lhs)
        np.save(os.path.join(HERE, name + ".rhs.npy"), rhs)
        np.save(os.path.join(HERE, name + ".gs.npy"), gs)
        np.save(os.path.join(HERE, name + ".out.npy"),
                np.asarray(out, np.float32))
        print(name, out.shape, out.dtype)


if __name__ == "__main__":
    main()
