"""Expert parallelism: python/examples/moe_expert_parallel.py's MoE layer,
experts sharded over 8 (and 4) simulated CPU devices under jax.shard_map,
each device calling gmm with its group_offset, against the unsharded dense
layer: forward and the gradients of every input."""

import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
import moe_expert_parallel as moe  # noqa: E402


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
