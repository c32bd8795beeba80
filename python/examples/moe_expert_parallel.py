"""A mixture-of-experts layer with its experts sharded over devices, each
device computing its own experts with gmm's ragged dot (expert parallelism
under jax.shard_map).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \
        PYTHONPATH=build/python build/venv/bin/python python/examples/moe_expert_parallel.py

Layout: tokens are sharded over the `ep` mesh axis (data parallel), the
experts' weights too (device i holds experts [i * E_local, (i + 1) * E_local)),
the router is replicated. Per layer call, on every device:

1. route the local tokens (top-k experts of a softmax router);
2. all_gather the tokens and their routing over `ep`;
3. sort the (token, expert) assignments by expert: the rows of the ragged
   dot, and group_sizes, the number of rows of every (global) expert;
4. gmm.jax.ragged_dot with group_offset = i * E_local: only this device's
   experts are computed, rows of other experts stay 0 (twice: up and down
   projection, gelu(0) = 0 in between);
5. weight by the gates, scatter back to tokens, and psum_scatter over `ep`:
   every device gets the finished outputs of its own tokens.

`dense_moe` computes the same layer without sharding or ragged dots (every
token's weights gathered and multiplied densely); the test compares the two,
forward and gradients.
"""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

import gmm.jax as gj


def route(x, router, top_k):
    """The top-k experts of each token and their gates (softmax over the
    chosen logits)."""
    logits = x @ router
    chosen, experts = jax.lax.top_k(logits, top_k)
    return experts.astype(jnp.int32), jax.nn.softmax(chosen, axis=-1)


def dense_moe(x, router, w_up, w_down, top_k):
    """The reference: every token through its k experts, densely."""
    experts, gates = route(x, router, top_k)  # [T, k]
    up = jnp.einsum("td,tkdf->tkf", x, w_up[experts], precision="highest")
    down = jnp.einsum(
        "tkf,tkfd->tkd", jax.nn.gelu(up), w_down[experts], precision="highest"
    )
    return jnp.einsum("tkd,tk->td", down, gates)


def sharded_moe(mesh, top_k, axis="ep"):
    """The layer under shard_map over `axis` of `mesh`: a function of
    (x, router, w_up, w_down) with x, w_up and w_down sharded on dim 0."""
    devices = mesh.shape[axis]

    def local(x, router, w_up, w_down):
        experts_local = w_up.shape[0]
        num_experts = experts_local * devices
        experts, gates = route(x, router, top_k)
        # Everyone's tokens and routing.
        x_all = jax.lax.all_gather(x, axis, tiled=True)  # [T, d]
        experts_all = jax.lax.all_gather(experts, axis, tiled=True)  # [T, k]
        gates_all = jax.lax.all_gather(gates, axis, tiled=True)
        tokens = x_all.shape[0]
        expert_of = experts_all.reshape(-1)  # [T * k]
        token_of = jnp.repeat(jnp.arange(tokens), top_k)
        order = jnp.argsort(expert_of, stable=True)
        rows = x_all[token_of[order]]
        group_sizes = jnp.bincount(expert_of, length=num_experts).astype(jnp.int32)
        offset = jax.lax.axis_index(axis) * experts_local
        hidden = gj.ragged_dot(rows, w_up, group_sizes, group_offset=offset)
        out = gj.ragged_dot(
            jax.nn.gelu(hidden), w_down, group_sizes, group_offset=offset
        )
        weighted = out * gates_all.reshape(-1)[order][:, None]
        combined = jnp.zeros((tokens, x.shape[1]), out.dtype).at[token_of[order]].add(weighted)
        # Sum over the devices' experts; each keeps its own tokens.
        return jax.lax.psum_scatter(combined, axis, scatter_dimension=0, tiled=True)

    return jax.shard_map(
        local,
        mesh=mesh,
        in_specs=(P(axis), P(), P(axis), P(axis)),
        out_specs=P(axis),
    )


def place(mesh, x, router, w_up, w_down, axis="ep"):
    """The layer's inputs on `mesh`: tokens and experts sharded over `axis`,
    the router replicated."""
    specs = (P(axis), P(), P(axis), P(axis))
    return tuple(
        jax.device_put(value, NamedSharding(mesh, spec))
        for value, spec in zip((x, router, w_up, w_down), specs)
    )


def make_problem(seed=0, tokens=64, d_model=16, d_ff=32, num_experts=16):
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.standard_normal((tokens, d_model)), jnp.float32)
    router = jnp.asarray(rng.standard_normal((d_model, num_experts)), jnp.float32)
    w_up = jnp.asarray(rng.standard_normal((num_experts, d_model, d_ff)) / 4, jnp.float32)
    w_down = jnp.asarray(rng.standard_normal((num_experts, d_ff, d_model)) / 6, jnp.float32)
    return x, router, w_up, w_down


def main():
    devices = len(jax.devices())
    mesh = jax.make_mesh((devices,), ("ep",))
    problem = make_problem()
    placed = place(mesh, *problem)
    x, router, w_up, w_down = problem
    top_k = 2
    layer = jax.jit(sharded_moe(mesh, top_k))
    out = layer(*placed)
    reference = dense_moe(*problem, top_k)
    print(f"{devices} devices, {w_up.shape[0]} experts ({w_up.shape[0] // devices} per device), "
          f"{x.shape[0]} tokens, top-{top_k}")
    print(f"forward: max |sharded gmm - dense| = {float(jnp.max(jnp.abs(out - reference))):.3g}")

    def loss(layer_fn):
        return lambda *p: jnp.sum(jnp.sin(layer_fn(*p)))

    grads = jax.jit(jax.grad(loss(sharded_moe(mesh, top_k)), argnums=(0, 1, 2, 3)))(
        *placed)
    expected = jax.grad(loss(lambda *p: dense_moe(*p, top_k)), argnums=(0, 1, 2, 3))(
        *problem)
    for name, a, b in zip(("x", "router", "w_up", "w_down"), grads, expected):
        print(f"d {name}: max |sharded gmm - dense| = {float(jnp.max(jnp.abs(a - b))):.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
