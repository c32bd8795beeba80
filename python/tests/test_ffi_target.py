"""The gmm_ragged_dot FFI target called directly with jax.ffi.ffi_call, as a
user who bypasses gmm.jax would: every buffer is checked against the
compiled function's signature, and a mismatch is a Python exception that
says which buffer and why (#38, class 3: mismatched buffers were passed to
the compiled code, which read and wrote past them and corrupted the heap)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gmm.jax as gj


def module_and_result(lhs, rhs, sizes):
    """The module text gmm.jax writes for a mode-1 ragged dot of lhs, rhs
    and sizes, and its result shape, from gmm.jax's own writer."""
    numbers = gj.DimensionNumbers.of(((((1,), (1,)), ((), ())), (0,), (0,)))
    config = gj._Config(numbers, np.dtype(np.float32), None, None)
    return gj._module(
        config, gj._describe(lhs), gj._describe(rhs), gj._describe(sizes), None, None
    )


def direct_call(text, result, out_dtype, *operands):
    gj._load_library()
    call = jax.ffi.ffi_call(
        gj._TARGET, jax.ShapeDtypeStruct(result, out_dtype), vmap_method="sequential"
    )
    return call(*operands, module=text)


LHS = np.ones((8, 4), np.float32)
RHS = np.ones((2, 4, 3), np.float32)
SIZES = np.array([3, 5], np.int32)


def test_matching_buffers_run():
    text, result = module_and_result(LHS, RHS, SIZES)
    out = direct_call(text, result, jnp.float32, LHS, RHS, SIZES)
    np.testing.assert_array_equal(np.asarray(out), np.full((8, 3), 4.0, np.float32))


@pytest.mark.parametrize(
    "operands, message",
    [
        # A bigger lhs than the function was compiled for.
        ((np.ones((64, 4), np.float32), RHS, SIZES),
         r"operand 0 of the call is a 64x4 buffer of f32, but the compiled function takes tensor<8x4xf32>"),
        # Another element type.
        ((LHS.astype(np.float64), RHS, SIZES), r"operand 0 .* buffer of f64"),
        ((LHS, RHS, SIZES.astype(np.int64)), r"operand 2 .* buffer of i64, .* tensor<2xi32>"),
        # Another rank.
        ((LHS, RHS.reshape(8, 3), SIZES), r"operand 1 of the call is a 8x3 buffer"),
        # A dtype no gmm function takes.
        ((LHS, RHS, SIZES.astype(np.uint8)), r"operand 2 of the call is a 2 buffer of XLA type"),
        # Too few and too many buffers.
        ((LHS, RHS), r"the call has 2 operands and 1 results, but the compiled function takes 4 buffers"),
        ((LHS, RHS, SIZES, SIZES), r"the call has 4 operands and 1 results"),
    ],
)
def test_mismatched_buffers_raise(operands, message):
    text, result = module_and_result(LHS, RHS, SIZES)
    # 64-bit types on, so that f64 and i64 buffers reach the target as such.
    with jax.enable_x64(True), pytest.raises(Exception, match=message):
        jax.block_until_ready(direct_call(text, result, jnp.float32, *operands))


@pytest.mark.parametrize(
    "result, out_dtype, message",
    [
        ((64, 3), jnp.float32, r"result 0 of the call is a 64x3 buffer of f32, but the compiled function takes memref<8x3xf32>"),
        ((8, 3), jnp.float16, r"result 0 of the call is a 8x3 buffer of f16"),
    ],
)
def test_mismatched_result_raises(result, out_dtype, message):
    text, _ = module_and_result(LHS, RHS, SIZES)
    with pytest.raises(Exception, match=message):
        jax.block_until_ready(direct_call(text, result, out_dtype, LHS, RHS, SIZES))
