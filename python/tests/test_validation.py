"""Every argument of gmm.jax's entry points is checked in Python: a bad one
is a TypeError (wrong kind: a float or bool where an integer is needed, a
non-integer dtype) or ValueError (out of range) whose message names it,
never coerced (int(1.5) == 1, a narrowing integer cast) nor left to fail as
a parse error of the generated module. And group_offset converts to the
compiled function's offset type without changing what it computes."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import gmm.jax as gj
import references

LHS = jnp.ones((8, 4), jnp.float32)
RHS = jnp.ones((2, 4, 3), jnp.float32)
SIZES = jnp.asarray([4, 4], jnp.int32)
MODE1 = (((1,), (1,)), ((), ())), (0,), (0,)
# Mode 2: lhs [k, m], rhs [k, n], k ragged.
MODE2 = (((0,), (0,)), ((), ())), (0,), ()
LHS2 = jnp.ones((8, 3), jnp.float32)
RHS2 = jnp.ones((8, 2), jnp.float32)


def mode1(lc=(1,), rc=(1,), lb=(), rb=(), ragged=(0,), group=(0,)):
    return ((lc, rc), (lb, rb)), ragged, group


def general(numbers=MODE1, **kwargs):
    return lambda: gj.ragged_dot_general(LHS, RHS, SIZES, numbers, **kwargs)


def short(**kwargs):
    arguments = dict(lhs=LHS, rhs=RHS, group_sizes=SIZES)
    arguments.update(kwargs)
    return lambda: gj.ragged_dot(**arguments)


def mode2(**kwargs):
    return lambda: gj.ragged_dot_general(LHS2, RHS2, SIZES, MODE2, **kwargs)


# (what, call, exception, the argument its message must name)
BAD = [
    # lhs, rhs, group_sizes: arrays of the right kind and rank.
    ("lhs string", short(lhs="x"), TypeError, "lhs"),
    ("lhs int", short(lhs=LHS.astype(jnp.int32)), TypeError, "lhs has dtype int32"),
    ("lhs bool", short(lhs=LHS.astype(bool)), TypeError, "lhs has dtype bool"),
    ("lhs rank", short(lhs=jnp.ones((8, 4, 1))), ValueError, "lhs of shape"),
    ("rhs object", short(rhs=object()), TypeError, "rhs"),
    ("rhs rank", short(rhs=jnp.ones((4, 3))), ValueError, "rhs of shape"),
    ("general rhs int", lambda: gj.ragged_dot_general(LHS, RHS.astype(jnp.int32), SIZES, MODE1),
     TypeError, "rhs has dtype int32"),
    ("group_sizes float", short(group_sizes=SIZES.astype(jnp.float32)), TypeError,
     "group_sizes has dtype float32"),
    ("group_sizes bool", short(group_sizes=SIZES.astype(bool)), TypeError, "group_sizes has dtype bool"),
    ("group_sizes uint32", short(group_sizes=SIZES.astype(jnp.uint32)), TypeError, "group_sizes"),
    ("group_sizes scalar", short(group_sizes=jnp.int32(8)), ValueError, "group_sizes of shape"),
    ("group_sizes beyond int32", short(group_sizes=np.array([2**32 + 4, 4], np.int64)),
     ValueError, "group_sizes has values outside the range of int32"),
    # Dimension numbers: sequences of non-negative integers, by the rules.
    ("numbers string", general("numbers"), TypeError, "ragged_dot_dimension_numbers"),
    ("numbers malformed dot", general(((1, 1), (0,), (0,))), TypeError, "ragged_dot_dimension_numbers"),
    ("numbers float", general(mode1(lc=(1.5,))), TypeError,
     "ragged_dot_dimension_numbers: lhs_contracting_dimensions"),
    ("numbers whole float", general(mode1(rc=(1.0,))), TypeError,
     "ragged_dot_dimension_numbers: rhs_contracting_dimensions"),
    ("numbers bool", general(mode1(ragged=(False,))), TypeError,
     "ragged_dot_dimension_numbers: lhs_ragged_dimensions"),
    ("numbers digit string", general(mode1(group="0")), TypeError,
     "ragged_dot_dimension_numbers: rhs_group_dimensions"),
    ("numbers int", general(mode1(group=0)), TypeError,
     "ragged_dot_dimension_numbers: rhs_group_dimensions"),
    ("numbers negative", general(mode1(lc=(-1,))), ValueError,
     "ragged_dot_dimension_numbers: lhs_contracting_dimensions has the negative"),
    # The rules of the dimension numbers are the op verifier's (gmm builds
    # the op from them), with its message.
    ("numbers out of range", general(mode1(rc=(5,))), ValueError,
     r"rhs_contracting_dimensions\[0\] = 5 is out of range for rhs of rank 3"),
    ("numbers ragged out of range", general(mode1(ragged=(2,))), ValueError,
     r"lhs_ragged_dimensions\[0\] = 2 is out of range for lhs of rank 2"),
    ("numbers duplicate", general(mode1(lc=(1, 1), rc=(1, 2))), ValueError,
     "lhs dimension 1 is listed twice in lhs_contracting_dimensions"),
    ("numbers group contracted", general(mode1(group=(1,))), ValueError,
     "rhs dimension 1 is listed in both rhs_contracting_dimensions and rhs_group_dimensions"),
    ("numbers lengths", general(mode1(rc=(1, 2))), ValueError,
     "lhs_contracting_dimensions and rhs_contracting_dimensions must have the same length"),
    ("numbers two ragged", general(mode1(ragged=(0, 1))), ValueError,
     "expects exactly one lhs ragged dimension, got 2"),
    ("numbers no ragged", general(mode1(ragged=())), ValueError,
     "expects exactly one lhs ragged dimension, got 0"),
    ("numbers two groups", general(mode1(group=(0, 2))), ValueError,
     "expects at most one rhs group dimension, got 2"),
    ("numbers mode 1 without group", general(mode1(group=())), ValueError,
     "expects one rhs group dimension in .*, got none"),
    ("numbers mode 2 with group",
     lambda: gj.ragged_dot_general(LHS, RHS, SIZES, mode1(ragged=(1,))), ValueError,
     r"expects no rhs group dimension in .*, got rhs_group_dimensions = \[0\]"),
    # precision (ignored, but it must be one of jax.lax's).
    ("precision", short(precision="bogus"), ValueError, "precision"),
    ("precision int", short(precision=3), ValueError, "precision"),
    # preferred_element_type.
    ("preferred_element_type", short(preferred_element_type="no such type"), TypeError,
     "preferred_element_type"),
    ("preferred_element_type int", short(preferred_element_type=jnp.int32), TypeError,
     "preferred_element_type int32"),
    # group_offset: an integer, never a float or bool, scalar or [1].
    ("group_offset float", short(rhs=RHS[:1], group_offset=1.0), TypeError, "group_offset"),
    ("group_offset float array", short(rhs=RHS[:1], group_offset=jnp.float32(1)), TypeError,
     "group_offset has dtype float32"),
    ("group_offset numpy float", short(rhs=RHS[:1], group_offset=np.float64(1)), TypeError,
     "group_offset"),
    ("group_offset bool", short(rhs=RHS[:1], group_offset=True), TypeError, "group_offset"),
    ("group_offset numpy bool", short(rhs=RHS[:1], group_offset=np.bool_(True)), TypeError,
     "group_offset"),
    ("group_offset bool array", short(rhs=RHS[:1], group_offset=jnp.array([True])), TypeError,
     "group_offset has dtype bool"),
    ("group_offset string", short(rhs=RHS[:1], group_offset="1"), TypeError, "group_offset"),
    ("group_offset shape", short(rhs=RHS[:1], group_offset=jnp.zeros((2,), jnp.int32)),
     ValueError, "group_offset must be a scalar"),
    ("group_offset mode 3",
     lambda: gj.ragged_dot_general(
         jnp.zeros((2, 3, 4)), jnp.zeros((2, 4, 5)), jnp.asarray([1, 1], jnp.int32),
         ((((2,), (1,)), ((0,), (0,))), (0,), ()), group_offset=0),
     ValueError, "group_offset"),
    # init: a float array that the result's dtype holds.
    ("init int", short(init=jnp.ones((8, 3), jnp.int32)), TypeError, "init has dtype int32"),
    ("init bool", short(init=jnp.ones((8, 3), bool)), TypeError, "init has dtype bool"),
    ("init narrowing", short(init=jnp.ones((8, 3), jnp.float32), preferred_element_type=jnp.bfloat16),
     TypeError, "init has dtype float32"),
    ("init string", short(init="x"), TypeError, "init"),
    ("init shape", short(init=jnp.ones((8, 4), jnp.float32)), ValueError, "init type"),
    # num_local_groups: a positive integer, at most g, for mode 2 with an offset.
    ("num_local_groups mode 1", general(group_offset=0, num_local_groups=1), ValueError,
     "num_local_groups"),
    ("num_local_groups without offset", mode2(num_local_groups=1), ValueError, "num_local_groups"),
    ("num_local_groups float", mode2(group_offset=0, num_local_groups=1.5), TypeError,
     "num_local_groups"),
    ("num_local_groups whole float", mode2(group_offset=0, num_local_groups=2.0), TypeError,
     "num_local_groups"),
    ("num_local_groups bool", mode2(group_offset=0, num_local_groups=True), TypeError,
     "num_local_groups"),
    ("num_local_groups negative", mode2(group_offset=0, num_local_groups=-1), ValueError,
     "num_local_groups must be at least 1"),
    ("num_local_groups zero", mode2(group_offset=0, num_local_groups=0), ValueError,
     "num_local_groups must be at least 1"),
    ("num_local_groups too many", mode2(group_offset=0, num_local_groups=3), ValueError,
     "num_local_groups 3 is more than the 2 groups"),
    # tile_sizes: three positive integers.
    ("tile_sizes float", short(tile_sizes=(8.5, 8, 8)), TypeError, "tile_sizes"),
    ("tile_sizes whole float", short(tile_sizes=(8.0, 8, 8)), TypeError, "tile_sizes"),
    ("tile_sizes bool", short(tile_sizes=(True, 8, 8)), TypeError, "tile_sizes"),
    ("tile_sizes string", short(tile_sizes="888"), TypeError, "tile_sizes"),
    ("tile_sizes int", short(tile_sizes=8), TypeError, "tile_sizes"),
    ("tile_sizes length", short(tile_sizes=(8, 8)), ValueError, "tile_sizes"),
    ("tile_sizes zero", short(tile_sizes=(0, 8, 8)), ValueError, "tile_sizes must be at least 1"),
    ("tile_sizes negative", short(tile_sizes=(8, -8, 8)), ValueError, "tile_sizes must be at least 1"),
]


@pytest.mark.parametrize("call,exception,name", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_argument_is_named(call, exception, name):
    with pytest.raises(exception, match=f"gmm.jax: .*{name}"):
        call()


def test_bad_argument_is_named_under_jit():
    with pytest.raises(TypeError, match="group_offset has dtype float32"):
        jax.jit(lambda o: gj.ragged_dot(LHS, RHS[:1], SIZES, group_offset=o))(jnp.float32(1))
    with pytest.raises(TypeError, match="num_local_groups"):
        jax.jit(lambda l: gj.ragged_dot_general(l, RHS2, SIZES, MODE2, group_offset=0,
                                                num_local_groups=1.0))(LHS2)


def test_dimension_numbers_of():
    # DimensionNumbers.of checks a DimensionNumbers built by hand too.
    with pytest.raises(TypeError, match="ragged_dot_dimension_numbers: lhs_contracting"):
        gj.DimensionNumbers.of(gj.DimensionNumbers((1.5,), (1,), (), (), (0,), (0,)))
    with pytest.raises(TypeError, match="ragged_dot_dimension_numbers: lhs_ragged"):
        gj.DimensionNumbers.of(
            lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [np.float32(0)], [0]))
    # NumPy integers and arrays of them are integers.
    numbers = gj.DimensionNumbers.of(
        ((((np.int64(1),), np.array([1])), ((), ())), [np.int32(0)], (0,)))
    assert numbers == gj.DimensionNumbers((1,), (1,), (), (), (0,), (0,))
    assert all(type(d) is int for field in numbers for d in field)


def test_good_arguments_of_every_kind():
    # What the checks must still take: NumPy integers wherever an integer
    # goes, Python lists as arrays, precision and dtype names.
    expected = lax.ragged_dot(LHS, RHS, SIZES)
    numbers = (((np.int64(1),), (1,)), ((), ())), (np.int32(0),), np.array([0])
    for out in (
        gj.ragged_dot_general(LHS, RHS, SIZES, numbers, precision="highest"),
        gj.ragged_dot(np.asarray(LHS).tolist(), RHS, [4, 4], precision=lax.Precision.HIGHEST),
        gj.ragged_dot(LHS, RHS, np.array([4, 4], np.int64), preferred_element_type="float32"),
        gj.ragged_dot(LHS, RHS, SIZES, tile_sizes=[np.int64(8), 8, np.int32(8)]),
        gj.ragged_dot(LHS, RHS, SIZES, init=jnp.zeros((8, 3), jnp.bfloat16)),
    ):
        np.testing.assert_array_equal(np.asarray(out), np.asarray(expected))
    local = gj.ragged_dot_general(LHS2, RHS2, SIZES, MODE2, group_offset=np.int16(1),
                                  num_local_groups=np.int64(1))
    assert local.shape == (1, 3, 2)


M, K, N, LOCAL = 12, 4, 3, 2
OFFSET_SIZES = np.array([3, 2, 4, 3], np.int32)


def offset_problem():
    rng = np.random.default_rng(91)
    lhs = jnp.asarray(rng.standard_normal((M, K)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((LOCAL, K, N)), jnp.float32)
    return lhs, rhs


@pytest.mark.parametrize(
    "offset,value",
    [
        # Beyond int32: an int64 of 2^32 + 1 had been cast to 1, -2^32 + 2
        # to 2; they select no group.
        (np.int64(2**32 + 1), 2**32 + 1),
        (np.array([-(2**32) + 2], np.int64), -(2**32) + 2),
        (2**40, 2**40),
        (-(2**63), -(2**63)),
        (np.uint64(2**64 - 1), 2**64 - 1),
        (np.uint32(2**31 + 1), 2**31 + 1),
        # Within it, of any integer type.
        (np.int64(1), 1),
        (np.uint8(2), 2),
        (jnp.int16(-1), -1),
        (jnp.array([3], jnp.uint32), 3),
        (2**31 - 1, 2**31 - 1),
        (-(2**31), -(2**31)),
    ],
)
def test_group_offset_converts_exactly(offset, value):
    lhs, rhs = offset_problem()
    actual = gj.ragged_dot(lhs, rhs, jnp.asarray(OFFSET_SIZES), group_offset=offset)
    # (The reference's int64 arithmetic takes offsets far from int64's limits.)
    expected = references.mode1_offset(lhs, rhs, OFFSET_SIZES, value) if abs(value) < 2**62 else 0
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-6, atol=1e-6)
    if not -(2**31) <= value < 2**31 or value >= len(OFFSET_SIZES):
        assert not np.any(np.asarray(actual))


def test_group_offset_int64_traced_with_x64():
    # A traced int64 offset next to int32 group sizes (x64 on): converted
    # in the program, exactly, whatever its run-time value.
    lhs, rhs = offset_problem()
    with jax.enable_x64(True):
        call = jax.jit(lambda o: gj.ragged_dot(lhs, rhs, jnp.asarray(OFFSET_SIZES), group_offset=o))
        for value in (2**32 + 1, -(2**32) + 2, 1, 2, -(2**40)):
            actual = call(jnp.int64(value))
            expected = references.mode1_offset(lhs, rhs, OFFSET_SIZES, value)
            np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-6,
                                       atol=1e-6, err_msg=str(value))
        # int64 group sizes: the offset is widened.
        actual = gj.ragged_dot(lhs, rhs, jnp.asarray(OFFSET_SIZES, jnp.int64), group_offset=jnp.int32(1))
        np.testing.assert_allclose(
            np.asarray(actual), np.asarray(references.mode1_offset(lhs, rhs, OFFSET_SIZES, 1)),
            rtol=1e-6, atol=1e-6,
        )


def test_group_offset_mode2_beyond_int32():
    rng = np.random.default_rng(92)
    lhs = jnp.asarray(rng.standard_normal((12, 3)), jnp.float32)
    rhs = jnp.asarray(rng.standard_normal((12, 2)), jnp.float32)
    for value in (2**32 + 1, 1):
        actual = gj.ragged_dot_general(lhs, rhs, jnp.asarray(OFFSET_SIZES), MODE2,
                                       group_offset=np.int64(value), num_local_groups=2)
        expected = references.mode2_offset(lhs, rhs, OFFSET_SIZES, value, 2)
        np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-6, atol=1e-6)
