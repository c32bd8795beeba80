"""gmm.jax against jax.lax.ragged_dot_general (XLA's own ragged dot, which
shares nothing with gmm) and the dense references in references.py: random
problems of the three modes with permuted dimensions, batched group sizes,
every float dtype, grads, vmap, jit caching, group_offset, init, errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import gmm.jax as gj
import references

# Tolerances: products are accumulated in f32 by both sides, in different
# orders: a few f32 ulps of the sum of |products|, plus one rounding of the
# result type.
RESULT_EPS = {
    jnp.float32: 1e-6,
    jnp.bfloat16: 2.0**-8,
    jnp.float16: 2.0**-11,
    jnp.float64: 1e-12,
}


def assert_close(actual, expected, bound, out_dtype, context=""):
    """|actual - expected| <= 1e-5 * bound + eps(out) * |expected|, where
    `bound` is the sum of |products| of each element."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, context
    tolerance = 1e-5 * np.asarray(bound, np.float64) + RESULT_EPS[out_dtype] * (
        np.abs(expected) + 1e-30
    )
    error = np.abs(actual - expected)
    worst = np.unravel_index(np.argmax(error - tolerance), error.shape)
    assert np.all(error <= tolerance), (
        f"{context}: at {worst}: {actual[worst]} vs {expected[worst]} "
        f"(tolerance {tolerance[worst]})"
    )


def random_sizes(rng, groups, extent, batch=()):
    """Group sizes summing to at most `extent`, with empty groups and
    uncovered indices."""
    out = np.zeros(batch + (groups,), np.int32)
    for index in np.ndindex(*batch):
        cuts = np.sort(rng.integers(0, extent + 1, size=groups))
        sizes = np.diff(np.concatenate([[0], cuts]))
        out[index] = sizes
    return out


def make_problem(rng, mode, batched, batched_sizes, dtype):
    """A random ragged dot of `mode` with permuted lhs/rhs dimensions.
    Returns (lhs, rhs, group_sizes, dimension numbers)."""
    b, m, k, n, g = 2, 37, 24, 19, 5
    if mode == 1:
        lhs_axes = (["b"] if batched else []) + ["m", "k"]
        rhs_axes = (["b"] if batched else []) + ["g", "k", "n"]
        ragged, extent = "m", m
    elif mode == 2:
        lhs_axes = (["b"] if batched else []) + ["m", "k"]
        rhs_axes = (["b"] if batched else []) + ["k", "n"]
        ragged, extent = "k", k
    else:
        lhs_axes, rhs_axes = ["b", "m", "k"], ["b", "k", "n"]
        ragged, extent = "b", b
    lhs_axes = list(rng.permutation(lhs_axes))
    rhs_axes = list(rng.permutation(rhs_axes))
    size = {"b": b, "m": m, "k": k, "n": n, "g": g}
    lhs = rng.standard_normal([size[a] for a in lhs_axes])
    rhs = rng.standard_normal([size[a] for a in rhs_axes])
    has_batch = "b" in lhs_axes
    numbers = lax.RaggedDotDimensionNumbers(
        dot_dimension_numbers=(
            ([lhs_axes.index("k")], [rhs_axes.index("k")]),
            ([lhs_axes.index("b")], [rhs_axes.index("b")]) if has_batch else ([], []),
        ),
        lhs_ragged_dimensions=[lhs_axes.index(ragged)],
        rhs_group_dimensions=[rhs_axes.index("g")] if "g" in rhs_axes else [],
    )
    prefix = (b,) if (batched_sizes and has_batch and mode != 3) else ()
    sizes = random_sizes(rng, g, extent, prefix)
    return (
        jnp.asarray(lhs, dtype),
        jnp.asarray(rhs, dtype),
        jnp.asarray(sizes),
        numbers,
    )


def absolute_bound(lhs, rhs, sizes, numbers):
    """The sum of |products| of each result element: the same ragged dot on
    |lhs| and |rhs| in f64 (dense, by XLA)."""
    with jax.enable_x64(True):
        return lax.ragged_dot_general(
            jnp.abs(lhs.astype(jnp.float64)),
            jnp.abs(rhs.astype(jnp.float64)),
            sizes,
            numbers,
            preferred_element_type=jnp.float64,
        )


CASES = [
    (mode, batched, batched_sizes, seed)
    for mode in (1, 2, 3)
    for batched, batched_sizes in ((False, False), (True, False), (True, True))
    if not (mode == 3 and not batched)
    for seed in range(3)
]


@pytest.mark.parametrize("mode,batched,batched_sizes,seed", CASES)
def test_random_problems_f32(mode, batched, batched_sizes, seed):
    rng = np.random.default_rng(1000 * mode + 10 * seed + batched + 2 * batched_sizes)
    lhs, rhs, sizes, numbers = make_problem(rng, mode, batched, batched_sizes, jnp.float32)
    actual = gj.ragged_dot_general(lhs, rhs, sizes, numbers)
    expected = lax.ragged_dot_general(
        lhs, rhs, sizes, numbers, precision=lax.Precision.HIGHEST
    )
    assert actual.dtype == expected.dtype
    assert_close(
        actual, expected, absolute_bound(lhs, rhs, sizes, numbers), jnp.float32,
        f"mode {mode} {numbers}",
    )


@pytest.mark.parametrize(
    "dtype,out_dtype",
    [
        (jnp.bfloat16, jnp.float32),
        (jnp.bfloat16, jnp.bfloat16),
        (jnp.float16, jnp.float32),
        (jnp.float16, jnp.float16),
        (jnp.float32, jnp.bfloat16),
    ],
)
@pytest.mark.parametrize("mode", [1, 2, 3])
def test_dtypes(dtype, out_dtype, mode):
    rng = np.random.default_rng(7 + mode)
    lhs, rhs, sizes, numbers = make_problem(rng, mode, True, mode != 3, dtype)
    actual = gj.ragged_dot_general(lhs, rhs, sizes, numbers, preferred_element_type=out_dtype)
    assert actual.dtype == out_dtype
    # The exact products of the rounded inputs, summed in f64.
    with jax.enable_x64(True):
        expected = lax.ragged_dot_general(
            lhs.astype(jnp.float64), rhs.astype(jnp.float64), sizes, numbers,
            preferred_element_type=jnp.float64,
        )
    assert_close(actual, expected, absolute_bound(lhs, rhs, sizes, numbers), out_dtype, str(dtype))


def test_float64():
    rng = np.random.default_rng(3)
    with jax.enable_x64(True):
        lhs, rhs, sizes, numbers = make_problem(rng, 1, True, True, jnp.float64)
        actual = gj.ragged_dot_general(lhs, rhs, sizes, numbers)
        expected = lax.ragged_dot_general(lhs, rhs, sizes, numbers)
        assert actual.dtype == jnp.float64
        assert_close(actual, expected, absolute_bound(lhs, rhs, sizes, numbers), jnp.float64)


def test_ragged_dot_shorthand_and_result_shapes():
    rng = np.random.default_rng(11)
    lhs = jnp.asarray(rng.standard_normal((40, 16)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((3, 16, 8)), jnp.float32)
    sizes = jnp.asarray([10, 0, 25], jnp.int32)
    actual = gj.ragged_dot(lhs, rhs, sizes)
    expected = lax.ragged_dot(lhs, rhs, sizes, precision=lax.Precision.HIGHEST)
    assert_close(actual, expected, absolute_bound(lhs, rhs, sizes, lax.RaggedDotDimensionNumbers(
        (([1], [1]), ([], [])), [0], [0])), jnp.float32)
    # Rows past the groups are zero.
    assert np.all(np.asarray(actual)[35:] == 0)


def test_tile_sizes():
    # tile_sizes becomes the op's #gmm.kernel_config<tile = [...]>, which
    # gmm-configure completes; tiles that divide nothing still compute the
    # same result, and a bad one is a Python error from the compiler.
    rng = np.random.default_rng(12)
    lhs = jnp.asarray(rng.standard_normal((40, 16)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((3, 16, 8)), jnp.float32)
    sizes = jnp.asarray([10, 0, 25], jnp.int32)
    expected = lax.ragged_dot(lhs, rhs, sizes, precision=lax.Precision.HIGHEST)
    bound = absolute_bound(lhs, rhs, sizes, lax.RaggedDotDimensionNumbers(
        (([1], [1]), ([], [])), [0], [0]))
    for tiles in [(7, 5, 3), (64, 16, 16)]:
        actual = gj.ragged_dot(lhs, rhs, sizes, tile_sizes=tiles)
        assert_close(actual, expected, bound, jnp.float32, f"tiles {tiles}")
    with pytest.raises(Exception, match="too large for the CPU cache tiles"):
        gj.ragged_dot(lhs, rhs, sizes, tile_sizes=(8, 8192, 8))


def test_kernel_config():
    # kernel_config says what gmm-configure chooses for a call and why: the
    # heuristic's choice, or tile_sizes as the op's own configuration; it
    # checks its arguments as ragged_dot_general does, and compiles nothing
    # that is kept.
    lhs = jnp.zeros((40, 16), jnp.float32)
    rhs = jnp.zeros((3, 16, 8), jnp.float32)
    sizes = jnp.asarray([10, 0, 25], jnp.int32)
    numbers = lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
    before = gj.num_compilations()
    chosen = gj.kernel_config(lhs, rhs, sizes, numbers)
    assert chosen.config.startswith("#gmm.kernel_config<target = cpu, tile = [")
    assert "micro_kernel = fma" in chosen.config
    assert set(chosen.reasons) == {"tile", "register_block", "micro_kernel"}
    assert chosen.reasons["tile"].startswith("heuristic: ")
    assert chosen.reasons["micro_kernel"] == "heuristic: not bf16 inputs"
    # Without dimension numbers: ragged_dot's, the same call.
    assert gj.kernel_config(lhs, rhs, sizes) == chosen
    given = gj.kernel_config(lhs, rhs, sizes, numbers, tile_sizes=(8, 16, 4))
    assert "tile = [8, 16, 4]" in given.config
    assert given.reasons["tile"] == "the op's gmm.kernel_config"
    assert gj.num_compilations() == before
    with pytest.raises(ValueError, match="group_sizes"):
        gj.kernel_config(lhs, rhs, jnp.asarray([1, 2], jnp.int32), numbers)


def test_compiled_once_per_signature():
    rng = np.random.default_rng(5)
    lhs = jnp.asarray(rng.standard_normal((24, 8)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((2, 8, 4)), jnp.float32)
    sizes = jnp.asarray([9, 11], jnp.int32)
    first = gj.ragged_dot(lhs, rhs, sizes)
    compiled = gj.num_compilations()
    jitted = jax.jit(gj.ragged_dot)
    for repeat in range(3):
        again = jitted(lhs * (repeat + 1), rhs, sizes + repeat)
        again.block_until_ready()
    assert gj.num_compilations() == compiled
    np.testing.assert_allclose(
        np.asarray(jitted(lhs, rhs, sizes)), np.asarray(first), rtol=0, atol=0
    )
    # Another shape is another compilation.
    gj.ragged_dot(lhs[:20], rhs, sizes).block_until_ready()
    assert gj.num_compilations() == compiled + 1


@pytest.mark.parametrize("mode", [1, 2, 3])
def test_grad_matches_jax(mode):
    rng = np.random.default_rng(40 + mode)
    lhs, rhs, sizes, numbers = make_problem(rng, mode, True, mode != 3, jnp.float32)
    probe = jnp.asarray(
        rng.standard_normal(lax.ragged_dot_general(lhs, rhs, sizes, numbers).shape),
        jnp.float32,
    )

    def loss(function):
        return lambda l, r: jnp.sum(jnp.sin(function(l, r, sizes, numbers)) * probe)

    if mode == 2:
        # JAX 0.10 has no mode-2 or mode-3 gradient ("Unimplemented
        # grad_y_dims"): a dense masked formulation instead, and for mode 3
        # the dot_general it is.
        reference = references.mode2_dense
    elif mode == 3:
        def reference(l, r, s, n):
            return lax.dot_general(l, r, n.dot_dimension_numbers, precision=lax.Precision.HIGHEST)
    else:
        def reference(*a):
            return lax.ragged_dot_general(*a, precision=lax.Precision.HIGHEST)

    ours = jax.grad(loss(gj.ragged_dot_general), argnums=(0, 1))(lhs, rhs)
    theirs = jax.grad(loss(reference), argnums=(0, 1))(lhs, rhs)
    for name, a, b in zip(("d lhs", "d rhs"), ours, theirs):
        assert a.shape == b.shape, name
        scale = float(jnp.max(jnp.abs(b))) + 1e-6
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-4 * scale, err_msg=name)


def test_group_offset_mode1_forward_and_grad():
    rng = np.random.default_rng(21)
    m, k, n, local = 50, 12, 10, 3
    lhs = jnp.asarray(rng.standard_normal((m, k)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((local, k, n)), jnp.float32)
    sizes_np = np.array([4, 9, 0, 7, 6, 5, 3, 8], np.int32)  # 42 < m rows
    sizes = jnp.asarray(sizes_np)
    init = jnp.asarray(rng.standard_normal((m, n)), jnp.float32)
    for offset in (-2, 0, 2, 5, 7, 9):
        actual = gj.ragged_dot(lhs, rhs, sizes, group_offset=jnp.int32(offset))
        expected = references.mode1_offset(lhs, rhs, sizes_np, offset)
        np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-5, atol=1e-5)
        with_init = gj.ragged_dot(lhs, rhs, sizes, group_offset=jnp.array([offset], jnp.int32), init=init)
        np.testing.assert_allclose(
            np.asarray(with_init),
            np.asarray(references.mode1_offset(lhs, rhs, sizes_np, offset, init)),
            rtol=1e-5, atol=1e-5,
        )
    offset = 2

    def ours(l, r, i):
        return jnp.sum(jnp.tanh(gj.ragged_dot(l, r, sizes, group_offset=jnp.int32(offset), init=i)))

    def reference(l, r, i):
        return jnp.sum(jnp.tanh(references.mode1_offset(l, r, sizes_np, offset, i)))

    got = jax.jit(jax.grad(ours, argnums=(0, 1, 2)))(lhs, rhs, init)
    want = jax.grad(reference, argnums=(0, 1, 2))(lhs, rhs, init)
    for name, a, b in zip(("d lhs", "d rhs", "d init"), got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5, err_msg=name)


def test_mode2_reference_agrees_with_jax():
    # The dense mode-2 reference that the gradient test relies on computes
    # what XLA's ragged dot computes.
    rng = np.random.default_rng(23)
    lhs, rhs, sizes, numbers = make_problem(rng, 2, True, True, jnp.float32)
    np.testing.assert_allclose(
        np.asarray(references.mode2_dense(lhs, rhs, sizes, numbers)),
        np.asarray(lax.ragged_dot_general(lhs, rhs, sizes, numbers, precision=lax.Precision.HIGHEST)),
        rtol=1e-5, atol=1e-5,
    )


def test_group_offset_mode2():
    rng = np.random.default_rng(22)
    k, m, n = 30, 6, 5
    lhs = jnp.asarray(rng.standard_normal((k, m)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((k, n)), jnp.float32)
    sizes_np = np.array([5, 0, 8, 4, 6, 3], np.int32)
    numbers = lax.RaggedDotDimensionNumbers((([0], [0]), ([], [])), [0], [])
    for offset, local in ((0, 6), (1, 2), (4, 3), (-1, 2)):
        actual = gj.ragged_dot_general(
            lhs, rhs, jnp.asarray(sizes_np), numbers,
            group_offset=jnp.int32(offset), num_local_groups=local,
        )
        expected = references.mode2_offset(lhs, rhs, sizes_np, offset, local)
        np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-5, atol=1e-5)


def test_vmap():
    rng = np.random.default_rng(31)
    batch, m, k, n, groups = 3, 20, 8, 6, 4
    lhs = jnp.asarray(rng.standard_normal((batch, m, k)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((groups, k, n)), jnp.float32)
    sizes = jnp.asarray(random_sizes(rng, groups, m, (batch,)))
    actual = jax.vmap(gj.ragged_dot, in_axes=(0, None, 0))(lhs, rhs, sizes)
    for i in range(batch):
        expected = lax.ragged_dot(lhs[i], rhs, sizes[i], precision=lax.Precision.HIGHEST)
        np.testing.assert_allclose(np.asarray(actual[i]), np.asarray(expected), rtol=1e-5, atol=1e-5)
    # vmap of the gradient.
    grads = jax.vmap(jax.grad(lambda l, s: jnp.sum(gj.ragged_dot(l, rhs, s) ** 2)))(lhs, sizes)
    for i in range(batch):
        expected = jax.grad(
            lambda l: jnp.sum(lax.ragged_dot(l, rhs, sizes[i], precision=lax.Precision.HIGHEST) ** 2)
        )(lhs[i])
        np.testing.assert_allclose(np.asarray(grads[i]), np.asarray(expected), rtol=1e-4, atol=1e-4)


def test_errors_are_python_exceptions():
    lhs = jnp.zeros((8, 4), jnp.float32)
    rhs = jnp.zeros((2, 4, 3), jnp.float32)
    sizes = jnp.asarray([4, 4], jnp.int32)
    # Contracting sizes differ: gmm's verifier says so.
    with pytest.raises(ValueError, match="gmm.jax: .*'gmm.ragged_dot' op"):
        gj.ragged_dot(lhs, jnp.zeros((2, 5, 3), jnp.float32), sizes)
    # Mixed input dtypes.
    with pytest.raises(ValueError, match="gmm.jax: .*element type"):
        gj.ragged_dot(lhs, rhs.astype(jnp.bfloat16), sizes)
    # Integer inputs and float group sizes.
    with pytest.raises(TypeError, match="lhs has dtype int32"):
        gj.ragged_dot(lhs.astype(jnp.int32), rhs, sizes)
    with pytest.raises(TypeError, match="group_sizes has dtype float32"):
        gj.ragged_dot(lhs, rhs, sizes.astype(jnp.float32))
    # Dimension numbers out of range or malformed.
    bad = lax.RaggedDotDimensionNumbers((([1], [5]), ([], [])), [0], [0])
    with pytest.raises(ValueError, match=r"rhs_contracting_dimensions\[0\] = 5 is out of range"):
        gj.ragged_dot_general(lhs, rhs, sizes, bad)
    with pytest.raises(TypeError, match="ragged_dot_dimension_numbers must be"):
        gj.ragged_dot_general(lhs, rhs, sizes, "not numbers")
    # Group offset of the wrong shape; offsets are modes 1 and 2 only.
    with pytest.raises(ValueError, match="group_offset must be a scalar"):
        gj.ragged_dot(lhs, rhs, sizes, group_offset=jnp.zeros((2,), jnp.int32))
    batch3 = lax.RaggedDotDimensionNumbers((([2], [1]), ([0], [0])), [0], [])
    with pytest.raises(ValueError, match="gmm.jax: .*group_offset"):
        gj.ragged_dot_general(
            jnp.zeros((2, 3, 4)), jnp.zeros((2, 4, 5)), jnp.asarray([1, 1], jnp.int32),
            batch3, group_offset=jnp.int32(0),
        )
    # Under jit the error comes at trace time, too.
    with pytest.raises(ValueError, match="'gmm.ragged_dot' op"):
        jax.jit(gj.ragged_dot)(lhs, jnp.zeros((3, 5, 3), jnp.float32), sizes)
    # The process is still fine.
    assert gj.ragged_dot(lhs, rhs, sizes).shape == (8, 3)


def test_second_derivatives():
    # The cotangents are gmm ragged dots with their own VJPs: a Hessian-vector
    # product through gmm against the dense reference (mode 1 with an offset,
    # whose first derivative is a mode-2 ragged dot).
    rng = np.random.default_rng(61)
    m, k, n, local = 30, 6, 5, 3
    lhs = jnp.asarray(rng.standard_normal((m, k)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((local, k, n)), jnp.float32)
    sizes_np = np.array([3, 8, 0, 9, 6], np.int32)
    sizes = jnp.asarray(sizes_np)
    direction = jnp.asarray(rng.standard_normal((local, k, n)), jnp.float32)

    def hvp(loss):
        # Reverse over reverse (custom_vjp has no forward mode): the
        # gradient of <grad, direction> is H @ direction.
        gradient = jax.grad(loss, argnums=1)
        return jax.grad(lambda r: jnp.vdot(gradient(lhs, r), direction))(rhs)

    def ours(l, r):
        return jnp.sum(jnp.sin(gj.ragged_dot(l, r, sizes, group_offset=1)))

    def reference(l, r):
        return jnp.sum(jnp.sin(references.mode1_offset(l, r, sizes_np, 1)))

    np.testing.assert_allclose(np.asarray(hvp(ours)), np.asarray(hvp(reference)), rtol=1e-4, atol=1e-4)
