"""Expert parallelism: python/examples/moe_expert_parallel.py's MoE layer,
experts sharded over 8 (and 4) simulated CPU devices under jax.shard_map,
each device calling gmm with its group_offset, against the unsharded dense
layer: forward and the gradients of every input. Then the layouts in which
an operand of gmm's ragged dots does not vary over a mesh axis that another
varies over (replicated tokens in expert parallelism, replicated weights in
data parallelism, and one ragged dot whose operands vary over different
axes of a 2-D mesh), against the unsharded computation too."""

import math
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
import moe_expert_parallel as moe  # noqa: E402
import references  # noqa: E402


@pytest.mark.parametrize("devices,top_k", [(8, 2), (4, 1)])
def test_sharded_moe_matches_dense(devices, top_k):
    assert len(jax.devices()) >= devices, "conftest.py asks XLA for 8 CPU devices"
    mesh = jax.make_mesh((devices,), ("ep",), devices=jax.devices()[:devices])
    problem = moe.make_problem(seed=devices, tokens=8 * devices)
    placed = moe.place(mesh, *problem)
    layer = moe.sharded_moe(mesh, top_k)
    out = jax.jit(layer)(*placed)
    reference = moe.dense_moe(*problem, top_k)
    np.testing.assert_allclose(np.asarray(out), np.asarray(reference), rtol=1e-5, atol=1e-5)
    # Each device's shard of the result is its own tokens.
    assert out.sharding.spec[0] == "ep"

    probe = jnp.asarray(np.random.default_rng(1).standard_normal(reference.shape), jnp.float32)

    def loss(function):
        return lambda *p: jnp.sum(jnp.sin(function(*p)) * probe)

    grads = jax.jit(jax.grad(loss(layer), argnums=(0, 1, 2, 3)))(*placed)
    expected = jax.grad(loss(lambda *p: moe.dense_moe(*p, top_k)), argnums=(0, 1, 2, 3))(*problem)
    for name, a, b in zip(("x", "router", "w_up", "w_down"), grads, expected):
        scale = float(jnp.max(jnp.abs(b)))
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5 * scale, err_msg=name)


def test_example_runs():
    # The example as a user runs it (8 devices from conftest.py).
    assert moe.main() == 0


# The two layouts in which one operand of gmm's ragged dots does not vary
# over the mesh axis that the others vary over: its cotangent must come back
# invariant (summed over the axis), as the primal is.


def local_moe(x, router, w_up, w_down, top_k, num_experts, offset=None):
    """The MoE layer on one device's tokens `x` and experts `w_up`,
    `w_down` (experts [offset, offset + E_local) of `num_experts`; all of
    them without an offset): rows of other experts contribute 0."""
    experts, gates = moe.route(x, router, top_k)
    tokens = x.shape[0]
    expert_of = experts.reshape(-1)
    token_of = jnp.repeat(jnp.arange(tokens), top_k)
    order = jnp.argsort(expert_of, stable=True)
    rows = x[token_of[order]]
    group_sizes = jnp.bincount(expert_of, length=num_experts).astype(jnp.int32)
    hidden = moe.gj.ragged_dot(rows, w_up, group_sizes, group_offset=offset)
    out = moe.gj.ragged_dot(jax.nn.gelu(hidden), w_down, group_sizes, group_offset=offset)
    weighted = out * gates.reshape(-1)[order][:, None]
    return jnp.zeros((tokens, x.shape[1]), out.dtype).at[token_of[order]].add(weighted)


def expert_parallel_replicated_tokens(mesh, top_k, axis="ep"):
    """Experts sharded over `axis`, every device holding all the tokens
    (replicated, not varying over `axis`): each computes its experts' rows
    and the partial outputs are summed."""
    devices = mesh.shape[axis]

    def local(x, router, w_up, w_down):
        experts_local = w_up.shape[0]
        offset = jax.lax.axis_index(axis) * experts_local
        partial = local_moe(x, router, w_up, w_down, top_k, experts_local * devices, offset)
        return jax.lax.psum(partial, axis)

    specs = (P(), P(), P(axis), P(axis))
    return jax.shard_map(local, mesh=mesh, in_specs=specs, out_specs=P()), specs


def data_parallel_replicated_weights(mesh, top_k, axis="dp"):
    """Tokens sharded over `axis`, every device holding all the experts
    (replicated weights, not varying over `axis`), no group_offset."""

    def local(x, router, w_up, w_down):
        return local_moe(x, router, w_up, w_down, top_k, w_up.shape[0])

    specs = (P(axis), P(), P(), P())
    return jax.shard_map(local, mesh=mesh, in_specs=specs, out_specs=P(axis)), specs


@pytest.mark.parametrize(
    "layout,axis",
    [(expert_parallel_replicated_tokens, "ep"), (data_parallel_replicated_weights, "dp")],
)
def test_replicated_operand_layouts_differentiate(layout, axis):
    devices, top_k = 4, 2
    mesh = jax.make_mesh((devices,), (axis,), devices=jax.devices()[:devices])
    problem = moe.make_problem(seed=5, tokens=8 * devices)
    layer, specs = layout(mesh, top_k)
    placed = tuple(
        jax.device_put(value, NamedSharding(mesh, spec)) for value, spec in zip(problem, specs)
    )
    out = jax.jit(layer)(*placed)
    reference = moe.dense_moe(*problem, top_k)
    # f32 products accumulated in different orders: a few ulps.
    np.testing.assert_allclose(np.asarray(out), np.asarray(reference), rtol=1e-5, atol=1e-5)

    probe = jnp.asarray(np.random.default_rng(2).standard_normal(reference.shape), jnp.float32)

    def loss(function):
        return lambda *p: jnp.sum(jnp.sin(function(*p)) * probe)

    grads = jax.jit(jax.grad(loss(layer), argnums=(0, 1, 2, 3)))(*placed)
    expected = jax.grad(loss(lambda *p: moe.dense_moe(*p, top_k)), argnums=(0, 1, 2, 3))(*problem)
    for name, spec, a, b in zip(("x", "router", "w_up", "w_down"), specs, grads, expected):
        # Each gradient is laid out as its input.
        assert a.sharding.is_equivalent_to(NamedSharding(mesh, spec), a.ndim), name
        scale = float(jnp.max(jnp.abs(b)))
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5 * scale, err_msg=name)


# One ragged dot whose operands vary over different subsets of a 2-D mesh's
# axes (all hold the same values: replicated inputs made varying with
# pcast): the result and every gradient are the unsharded ones.
VARYING = [
    # (lhs, rhs, init) axes
    ((), ("a",), ()),
    (("a",), (), ("b",)),
    (("a", "b"), ("b",), ()),
    (("b",), ("a", "b"), ("a", "b")),
]


@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("axes", VARYING)
def test_operands_varying_over_different_axes(mode, axes):
    mesh = jax.make_mesh((2, 2), ("a", "b"), devices=jax.devices()[:4])
    rng = np.random.default_rng(70 + mode)
    sizes = jnp.asarray([5, 0, 9, 6], jnp.int32)
    if mode == 1:
        lhs = jnp.asarray(rng.standard_normal((24, 8)), jnp.float32)
        rhs = jnp.asarray(rng.standard_normal((4, 8, 6)), jnp.float32)
        init = jnp.asarray(rng.standard_normal((24, 6)), jnp.float32)
        numbers = jax.lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
    else:
        lhs = jnp.asarray(rng.standard_normal((24, 8)), jnp.float32)
        rhs = jnp.asarray(rng.standard_normal((24, 6)), jnp.float32)
        init = jnp.asarray(rng.standard_normal((4, 8, 6)), jnp.float32)
        numbers = jax.lax.RaggedDotDimensionNumbers((([0], [0]), ([], [])), [0], [])

    def ours(l, r, i):
        def local(l, r, i):
            l, r, i = (
                jax.lax.pcast(v, a, to="varying") if a else v for v, a in zip((l, r, i), axes)
            )
            out = moe.gj.ragged_dot_general(l, r, sizes, numbers, init=i)
            # Every device computed the whole result, varying over the
            # union of the axes: the mean over them is it, invariant.
            union = tuple(sorted(set().union(*axes)))
            return jax.lax.psum(out, union) / math.prod(mesh.shape[x] for x in union)

        return jax.shard_map(local, mesh=mesh, in_specs=P(), out_specs=P())(l, r, i)

    def reference(l, r, i):
        if mode == 1:
            out = jax.lax.ragged_dot_general(l, r, sizes, numbers, precision=jax.lax.Precision.HIGHEST)
        else:
            out = references.mode2_dense(l, r, sizes, numbers)
        return out + i

    probe = jnp.asarray(rng.standard_normal(init.shape), jnp.float32)

    def loss(function):
        return lambda *p: jnp.sum(jnp.sin(function(*p)) * probe)

    np.testing.assert_allclose(
        np.asarray(jax.jit(ours)(lhs, rhs, init)), np.asarray(reference(lhs, rhs, init)),
        rtol=1e-5, atol=1e-5,
    )
    got = jax.jit(jax.grad(loss(ours), argnums=(0, 1, 2)))(lhs, rhs, init)
    want = jax.grad(loss(reference), argnums=(0, 1, 2))(lhs, rhs, init)
    for name, a, b in zip(("d lhs", "d rhs", "d init"), got, want):
        scale = float(jnp.max(jnp.abs(b)))
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5 * scale, err_msg=name)
