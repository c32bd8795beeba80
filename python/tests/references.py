"""Independent references for gmm.jax's tests: dense jnp formulations of
docs/Semantics.md (they share no code with gmm), for what jax.lax cannot
compute (group_offset, init)."""

import jax
import jax.numpy as jnp
import numpy as np


def group_ids(group_sizes, extent):
    """The group of each of `extent` ragged indices (-1: covered by no
    group), with negative sizes counting as 0 and groups cut at `extent`."""
    sizes = np.maximum(np.asarray(group_sizes), 0)
    ids = np.full(extent, -1, dtype=np.int64)
    start = 0
    for group, size in enumerate(sizes):
        end = min(start + int(size), extent)
        ids[start:end] = group
        start = end
    return ids


def mode1_offset(lhs, rhs, group_sizes, offset, init=None, out_dtype=jnp.float32):
    """lhs [m, k], rhs [G_local, k, n]: row r uses rhs[group(r) - offset]
    when that group is local, else it is init's row (or 0)."""
    m = lhs.shape[0]
    local = rhs.shape[0]
    groups = group_ids(group_sizes, m)
    ids = groups - int(offset)
    mask = (groups >= 0) & (ids >= 0) & (ids < local)
    weights = rhs[np.where(mask, ids, 0)]  # [m, k, n]
    products = jnp.einsum(
        "mk,mkn->mn",
        lhs.astype(jnp.float32),
        weights.astype(jnp.float32),
        precision="highest",
    )
    out = jnp.where(mask[:, None], products, 0.0)
    if init is not None:
        out = out + init.astype(jnp.float32)
    return out.astype(out_dtype)


def mode2_offset(lhs, rhs, group_sizes, offset, local, out_dtype=jnp.float32):
    """lhs [k, m], rhs [k, n] (k ragged): slice l sums the k-rows of global
    group offset + l."""
    groups = group_ids(group_sizes, lhs.shape[0])
    ids = np.where(groups >= 0, groups - int(offset), -1)
    slices = []
    for l in range(local):
        rows = (ids == l).astype(np.float32)[:, None]
        slices.append(
            jnp.einsum(
                "km,kn->mn",
                lhs.astype(jnp.float32) * rows,
                rhs.astype(jnp.float32),
                precision="highest",
            )
        )
    return jnp.stack(slices).astype(out_dtype)


def mode2_dense(lhs, rhs, group_sizes, numbers):
    """Mode 2 (ragged contracting dimension) with dense jnp ops, for
    problems whose group sizes are [g] or [batch, g] with one lhs batching
    dimension: slice j is dot_general over the rows of group j only."""
    (lc, rc), (lb, rb) = numbers.dot_dimension_numbers
    (ragged,) = numbers.lhs_ragged_dimensions
    sizes = np.asarray(group_sizes)
    extent = lhs.shape[ragged]
    groups = sizes.shape[-1]
    if sizes.ndim == 1:
        ids = group_ids(sizes, extent)  # [extent]
        axes = [ragged]
    else:
        (batch,) = lb
        ids = np.stack([group_ids(s, extent) for s in sizes])  # [batch, extent]
        axes = [batch, ragged]
    slices = []
    for j in range(groups):
        mask = (ids == j).astype(np.float32)
        # Place the mask's axes where they are in lhs.
        order = np.argsort(axes)
        mask = np.transpose(mask, order)
        shape = [lhs.shape[d] if d in axes else 1 for d in range(lhs.ndim)]
        mask = jnp.asarray(mask.reshape(shape))
        slices.append(
            jax.lax.dot_general(
                lhs * mask, rhs, ((lc, rc), (lb, rb)),
                precision=jax.lax.Precision.HIGHEST,
            )
        )
    return jnp.stack(slices)
