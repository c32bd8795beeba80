"""gmm's compiled ragged dot, called from JAX.

    import gmm.jax
    out = gmm.jax.ragged_dot(tokens, expert_weights, group_sizes)
    out = gmm.jax.ragged_dot_general(lhs, rhs, group_sizes, dimension_numbers,
                                     group_offset=offset, init=partial)

`ragged_dot_general` and `ragged_dot` take the arguments of
`jax.lax.ragged_dot_general` and `jax.lax.ragged_dot` and compute the same
thing (docs/Semantics.md), on the CPU, with code that gmm compiles (the
tiled `cpu` pipeline: vectorized, on OpenMP threads):

- The call is an XLA FFI custom call (`jax.ffi`) to libgmm_jax_ffi.so, whose
  handler compiles the ragged dot once per shapes, dtypes, dimension numbers
  and tile sizes, keeps it, and runs it on XLA's buffers without copies. It
  works under `jax.jit`, `jax.vmap` (one call per batch element) and
  `shard_map`.
- `jax.grad` goes through `jax.custom_vjp`: the cotangents of lhs and rhs are
  ragged dots too (modes 1 and 2 turn into each other), computed by gmm, with
  the same `group_offset`. Mode 3 (a ragged batch dimension) is a plain
  batched dot; its cotangents are XLA's dot_general transposes.
- `group_offset` works (XLA's own ragged dot raises "Unimplemented"): with it
  only the groups `[offset, offset + G_local)` are computed, where `G_local`
  is rhs's group dimension (mode 1) or `num_local_groups` (mode 2). Rows of
  other groups are 0, or `init`'s. This is what expert parallelism needs.
- `init` (gmm's accumulator) is added to the result.
- Every argument is checked when the call is traced: a bad one raises
  TypeError (an integer that is a float or bool, a dtype of the wrong kind)
  or ValueError (out of range) naming it, nothing is coerced (1.5 is not 1,
  no narrowing integer casts); shapes that do not fit each other raise
  ValueError with gmm's verifier message.
- Under `shard_map`, operands may vary over different mesh axes (tokens
  replicated next to experts sharded, or weights replicated next to tokens
  sharded): the call and its gradients work, each cotangent summed over
  the axes its operand does not vary over.

The compiled code runs in this process (MLIR's JIT in libgmm_jax_ffi.so,
next to jaxlib; see docs/JAX.md for why that is safe).
"""

import ctypes
import functools
import json
import os
import threading
from typing import NamedTuple, Optional, Sequence, Tuple

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

__all__ = [
    "DimensionNumbers",
    "KernelConfig",
    "kernel_config",
    "num_compilations",
    "ragged_dot",
    "ragged_dot_general",
]

_TARGET = "gmm_ragged_dot"
_ENTRY = "ragged_dot"

_lock = threading.Lock()
_library = None


def _load_library():
    """Loads libgmm_jax_ffi.so (next to this file, or GMM_JAX_FFI_LIBRARY)
    and registers its handler with XLA for the CPU, once."""
    global _library
    with _lock:
        if _library is not None:
            return _library
        path = os.environ.get("GMM_JAX_FFI_LIBRARY") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "libgmm_jax_ffi.so"
        )
        if not os.path.exists(path):
            raise ImportError(
                f"gmm.jax: {path} does not exist: install the package with "
                "`pip install .` from gmm's repository root (docs/JAX.md), "
                "or build gmm with -DGMM_PYTHON=<a python with jax> (the "
                "test command does) and use its build/python"
            )
        try:
            library = ctypes.CDLL(path)
        except OSError as error:
            raise ImportError(
                f"gmm.jax: cannot load {path}: {error}. Besides its own "
                "files, the package needs LLVM/MLIR 22's shared libraries "
                "from Debian's packages: "
                "/usr/lib/llvm-22/lib/libMLIR.so.22.1 (libmlir-22) and "
                "libomp.so.5 (libomp5-19, the OpenMP runtime of "
                "libomp-22-dev): `apt-get install libmlir-22 libomp5-19` "
                "(docs/JAX.md)"
            ) from error
        # (request or module text, answer buffer, its size) -> 0 or 1.
        for entry in (
            library.gmm_jax_signature,
            library.gmm_jax_verify,
            library.gmm_jax_kernel_config,
        ):
            entry.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
            entry.restype = ctypes.c_int
        library.gmm_jax_num_compilations.argtypes = []
        library.gmm_jax_num_compilations.restype = ctypes.c_size_t
        jax.ffi.register_ffi_target(
            _TARGET, jax.ffi.pycapsule(library.GmmRaggedDot), platform="cpu"
        )
        _library = library
        return library


def num_compilations() -> int:
    """How many ragged dots gmm has compiled in this process (a repeated
    call with the same shapes, dtypes and dimension numbers compiles
    nothing)."""
    return int(_load_library().gmm_jax_num_compilations())


_FIELD_NAMES = {
    "lhs_contracting": "lhs_contracting_dimensions",
    "rhs_contracting": "rhs_contracting_dimensions",
    "lhs_batch": "lhs_batching_dimensions",
    "rhs_batch": "rhs_batching_dimensions",
    "lhs_ragged": "lhs_ragged_dimensions",
    "rhs_group": "rhs_group_dimensions",
}


def _is_integer(value) -> bool:
    """A Python or NumPy integer, not a bool (nor a float that happens to
    be whole)."""
    return isinstance(value, (int, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )


def _dimensions(values, what) -> Tuple[int, ...]:
    """`values` (a sequence of dimension numbers) as a tuple of ints."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(
            f"gmm.jax: ragged_dot_dimension_numbers: {what} must be a "
            f"sequence of integers, got {values!r}"
        )
    values = tuple(values)
    for v in values:
        if not _is_integer(v):
            raise TypeError(
                f"gmm.jax: ragged_dot_dimension_numbers: {what} must be a "
                f"sequence of integers, got {v!r} in {list(values)!r}"
            )
        if v < 0:
            raise ValueError(
                f"gmm.jax: ragged_dot_dimension_numbers: {what} has the "
                f"negative dimension {int(v)}"
            )
    return tuple(int(v) for v in values)


def _count(value, what, minimum=1) -> int:
    """An integer argument (Python or NumPy, not bool or float) of at least
    `minimum`."""
    if not _is_integer(value):
        raise TypeError(f"gmm.jax: {what} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"gmm.jax: {what} must be at least {minimum}, got {int(value)}")
    return int(value)


class DimensionNumbers(NamedTuple):
    """Ragged dot dimension numbers, hashable (jax.lax's
    RaggedDotDimensionNumbers in flat form)."""

    lhs_contracting: Tuple[int, ...]
    rhs_contracting: Tuple[int, ...]
    lhs_batch: Tuple[int, ...]
    rhs_batch: Tuple[int, ...]
    lhs_ragged: Tuple[int, ...]
    rhs_group: Tuple[int, ...]

    @staticmethod
    def of(numbers) -> "DimensionNumbers":
        """From jax.lax.RaggedDotDimensionNumbers, a DimensionNumbers, or
        (((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)),
        lhs_ragged, rhs_group); every entry a sequence of non-negative
        integers (Python or NumPy, not bool), or TypeError/ValueError naming
        ragged_dot_dimension_numbers."""
        if isinstance(numbers, DimensionNumbers):
            fields = tuple(numbers)
        else:
            if isinstance(numbers, lax.RaggedDotDimensionNumbers):
                dot = numbers.dot_dimension_numbers
                ragged = numbers.lhs_ragged_dimensions
                group = numbers.rhs_group_dimensions
            else:
                try:
                    dot, ragged, group = numbers
                except (TypeError, ValueError):
                    raise TypeError(
                        "gmm.jax: ragged_dot_dimension_numbers must be a "
                        "jax.lax.RaggedDotDimensionNumbers or (((lhs_contracting, "
                        "rhs_contracting), (lhs_batch, rhs_batch)), lhs_ragged, "
                        f"rhs_group), got {numbers!r}"
                    ) from None
            try:
                (lc, rc), (lb, rb) = dot
            except (TypeError, ValueError):
                raise TypeError(
                    "gmm.jax: ragged_dot_dimension_numbers: malformed "
                    f"((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)) "
                    f"{dot!r}"
                ) from None
            fields = (lc, rc, lb, rb, ragged, group)
        return DimensionNumbers(
            *(
                _dimensions(values, _FIELD_NAMES[field])
                for field, values in zip(DimensionNumbers._fields, fields)
            )
        )


_FLOAT_TYPES = {
    np.dtype(jnp.float16): "f16",
    np.dtype(jnp.bfloat16): "bf16",
    np.dtype(jnp.float32): "f32",
    np.dtype(jnp.float64): "f64",
}
_INT_TYPES = {np.dtype(jnp.int32): "i32", np.dtype(jnp.int64): "i64"}


# jax.lax.ragged_dot's: lhs [m, k], rhs [g, k, n], rows ragged.
_RAGGED_DOT_NUMBERS = DimensionNumbers((1,), (1,), (), (), (0,), (0,))


class _Config(NamedTuple):
    """What a compiled ragged dot depends on besides its operand shapes:
    the static arguments of the custom_vjp."""

    numbers: DimensionNumbers
    out_dtype: np.dtype
    # Mode 2 with group_offset: the result's number of local groups.
    num_local_groups: Optional[int]
    tile_sizes: Optional[Tuple[int, int, int]]


class _Signature(NamedTuple):
    """What gmm decides about one call (gmm_jax_signature, which builds
    the gmm.ragged_dot op and verifies it): the module that computes it,
    the result shape, the mode (1: ragged free lhs dimension, 2: ragged
    contracting, 3: ragged batch; docs/Semantics.md) and the operands'
    free dimensions."""

    module: str
    result_shape: Tuple[int, ...]
    mode: int
    lhs_free: Tuple[int, ...]
    rhs_free: Tuple[int, ...]


def _operand(operand):
    """A (shape, dtype) pair as gmm_jax_signature takes it."""
    if operand is None:
        return None
    shape, dtype = operand
    dtype = np.dtype(dtype)
    return {
        "shape": [int(d) for d in shape],
        "element_type": _FLOAT_TYPES.get(dtype) or _INT_TYPES[dtype],
    }


@functools.lru_cache(maxsize=None)
def _signature(config: _Config, lhs, rhs, sizes, offset, init) -> _Signature:
    """gmm's signature of one call; each operand is a (shape, dtype) pair
    or None. gmm builds and verifies the op here, so a bad call fails when
    it is traced, with gmm's message."""
    for what, operand in (("lhs", lhs), ("rhs", rhs)):
        if np.dtype(operand[1]) not in _FLOAT_TYPES:
            raise TypeError(
                f"gmm.jax: {what} has dtype {np.dtype(operand[1]).name}; gmm "
                "takes float16, bfloat16, float32 or float64"
            )
    for what, operand in (("group_sizes", sizes), ("group_offset", offset)):
        if operand is not None and np.dtype(operand[1]) not in _INT_TYPES:
            raise TypeError(
                f"gmm.jax: {what} has dtype {np.dtype(operand[1]).name}; gmm "
                "takes int32 or int64"
            )
    if np.dtype(config.out_dtype) not in _FLOAT_TYPES:
        raise TypeError(
            f"gmm.jax: preferred_element_type {np.dtype(config.out_dtype).name} "
            "is not one of float16, bfloat16, float32, float64"
        )
    numbers = config.numbers
    request = {
        "lhs": _operand(lhs),
        "rhs": _operand(rhs),
        "group_sizes": _operand(sizes),
        "group_offset": _operand(offset),
        "init": _operand(init),
        "dimension_numbers": {
            _FIELD_NAMES[field]: list(getattr(numbers, field))
            for field in DimensionNumbers._fields
        },
        "result_element_type": _FLOAT_TYPES[np.dtype(config.out_dtype)],
        "num_local_groups": config.num_local_groups,
        "tile_sizes": None if config.tile_sizes is None else list(config.tile_sizes),
    }
    answer = ctypes.create_string_buffer(1 << 20)
    if _load_library().gmm_jax_signature(json.dumps(request).encode(), answer, len(answer)):
        raise ValueError(f"gmm.jax: {answer.value.decode(errors='replace')}")
    answer = json.loads(answer.value.decode())
    return _Signature(
        answer["module"],
        tuple(answer["result_shape"]),
        answer["mode"],
        tuple(answer["lhs_free_dimensions"]),
        tuple(answer["rhs_free_dimensions"]),
    )


def _module(config: _Config, lhs, rhs, sizes, offset, init) -> Tuple[str, tuple]:
    """The module text of one call and its result shape (see _signature)."""
    signature = _signature(config, lhs, rhs, sizes, offset, init)
    return signature.module, signature.result_shape


def _signature_of(config: _Config, lhs, rhs, sizes, offset, init=None) -> _Signature:
    """_signature of arrays (or tracers)."""
    return _signature(
        config, _describe(lhs), _describe(rhs), _describe(sizes), _describe(offset), _describe(init)
    )


def _describe(x):
    return None if x is None else (tuple(int(d) for d in x.shape), np.dtype(x.dtype))


def _call(config: _Config, lhs, rhs, sizes, offset, init):
    """One ragged dot through gmm's FFI handler."""
    text, result = _module(
        config, _describe(lhs), _describe(rhs), _describe(sizes), _describe(offset), _describe(init)
    )
    operands = [lhs, rhs, sizes]
    operands += [x for x in (offset, init) if x is not None]
    operands, varying = _align_varying_axes(operands)
    call = jax.ffi.ffi_call(
        _TARGET,
        jax.ShapeDtypeStruct(result, config.out_dtype),
        vmap_method="sequential",
    )
    out = call(*operands, module=text)
    return lax.pcast(out, varying, to="varying") if varying else out


def _varying_axes(x):
    mat = getattr(jax.typeof(x), "manual_axis_type", None)
    return frozenset(getattr(mat, "varying", ()) or ())


def _align_varying_axes(operands):
    """Under shard_map, an FFI call needs all its operands to vary over the
    same manual mesh axes, and JAX 0.10's ffi_call types its result as
    varying over none: the operands made varying over the union of their
    axes (a replicated router output next to sharded weights, say), and
    that union (sorted), over which the caller marks the result varying.
    Outside shard_map: unchanged, ()."""
    varying = frozenset().union(*(_varying_axes(x) for x in operands))
    aligned = []
    for x in operands:
        missing = tuple(sorted(varying - _varying_axes(x)))
        aligned.append(lax.pcast(x, missing, to="varying") if missing else x)
    return aligned, tuple(sorted(varying))


def _inverse(permutation):
    inverse = [0] * len(permutation)
    for position, axis in enumerate(permutation):
        inverse[axis] = position
    return inverse


def _transposed(x, source_dims):
    """`x`, whose axis i is dimension source_dims[i] of the target layout,
    in the target layout."""
    return jnp.transpose(x, [source_dims.index(d) for d in range(x.ndim)])


def _mode1_cotangents(config, signature, lhs, rhs, sizes, offset, g):
    """Mode 1: d lhs is a mode-1 ragged dot of the cotangent with the
    weights (contracting their free dims), d rhs a mode-2 ragged dot of lhs
    and the cotangent (over the ragged dim), both with `offset`. They go
    through the differentiable _ragged_dot, so higher derivatives work
    too."""
    n = config.numbers
    (ragged,) = n.lhs_ragged
    (group,) = n.rhs_group
    batch = len(n.lhs_batch)
    lhs_free = list(signature.lhs_free)
    rhs_free = list(signature.rhs_free)
    # The cotangent's dims: batch, lhs free, rhs free.
    g_lhs_free = [batch + i for i in range(len(lhs_free))]
    g_rhs_free = [batch + len(lhs_free) + i for i in range(len(rhs_free))]
    d_lhs_numbers = DimensionNumbers(
        tuple(g_rhs_free),
        tuple(rhs_free),
        tuple(range(batch)),
        n.rhs_batch,
        (batch + lhs_free.index(ragged),),
        (group,),
    )
    d_lhs = _ragged_dot(
        _Config(d_lhs_numbers, np.dtype(lhs.dtype), None, config.tile_sizes),
        g.astype(rhs.dtype), rhs, sizes, offset, None,
    )
    # Its dims: batch, lhs free, then rhs's contracting dims in ascending
    # order, each standing for its lhs partner.
    d_lhs = _transposed(
        d_lhs,
        list(n.lhs_batch)
        + lhs_free
        + [n.lhs_contracting[n.rhs_contracting.index(c)] for c in sorted(n.rhs_contracting)],
    )
    d_rhs_numbers = DimensionNumbers(
        tuple(lhs_free),
        tuple(g_lhs_free),
        n.lhs_batch,
        tuple(range(batch)),
        (ragged,),
        (),
    )
    d_rhs = _ragged_dot(
        _Config(d_rhs_numbers, np.dtype(rhs.dtype), rhs.shape[group], config.tile_sizes),
        lhs, g.astype(lhs.dtype), sizes, offset, None,
    )
    # Its dims: the group, batch, lhs's contracting dims in ascending order
    # (each standing for its rhs partner), rhs free.
    d_rhs = _transposed(
        d_rhs,
        [group]
        + list(n.rhs_batch)
        + [n.rhs_contracting[n.lhs_contracting.index(c)] for c in sorted(n.lhs_contracting)]
        + rhs_free,
    )
    return d_lhs, d_rhs


def _mode2_cotangents(config, signature, lhs, rhs, sizes, offset, g):
    """Mode 2: each of d lhs and d rhs is a mode-1 ragged dot of the other
    operand (ragged along its partner of the ragged dim) with the cotangent
    (grouped along its leading group dim), with `offset`."""
    n = config.numbers
    (ragged,) = n.lhs_ragged
    batch = len(n.lhs_batch)
    contracting = len(n.lhs_contracting)
    position = n.lhs_contracting.index(ragged)
    lhs_free = list(signature.lhs_free)
    rhs_free = list(signature.rhs_free)
    # Both operands in the layout [batch, contracting (in list order), free],
    # in which the group sizes' prefix is that of the forward call.
    lhs_layout = list(n.lhs_batch) + list(n.lhs_contracting) + lhs_free
    rhs_layout = list(n.rhs_batch) + list(n.rhs_contracting) + rhs_free
    lhs_c = jnp.transpose(lhs, lhs_layout)
    rhs_c = jnp.transpose(rhs, rhs_layout)
    # The cotangent's dims: group, batch, lhs free, rhs free.
    g_batch = tuple(1 + i for i in range(batch))
    g_lhs_free = tuple(1 + batch + i for i in range(len(lhs_free)))
    g_rhs_free = tuple(1 + batch + len(lhs_free) + i for i in range(len(rhs_free)))

    def through(operand, operand_free, g_free, dtype):
        numbers = DimensionNumbers(
            tuple(batch + contracting + i for i in range(len(operand_free))),
            g_free,
            tuple(range(batch)),
            g_batch,
            (batch + position,),
            (0,),
        )
        # Its dims: batch, contracting (list order), the other operand's
        # free dims: the canonical layout of the other operand.
        return _ragged_dot(
            _Config(numbers, np.dtype(dtype), None, config.tile_sizes),
            operand, g.astype(operand.dtype), sizes, offset, None,
        )

    d_lhs = through(rhs_c, rhs_free, g_rhs_free, lhs.dtype)
    d_rhs = through(lhs_c, lhs_free, g_lhs_free, rhs.dtype)
    return (
        jnp.transpose(d_lhs, _inverse(lhs_layout)),
        jnp.transpose(d_rhs, _inverse(rhs_layout)),
    )


def _mode3_cotangents(config, lhs, rhs, g):
    """Mode 3 is dot_general with the same dims: XLA's transposes."""
    n = config.numbers

    def dense(a, b):
        return lax.dot_general(
            a,
            b,
            ((n.lhs_contracting, n.rhs_contracting), (n.lhs_batch, n.rhs_batch)),
            preferred_element_type=config.out_dtype,
        )

    _, pullback = jax.vjp(dense, lhs, rhs)
    return pullback(g)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _ragged_dot(config, lhs, rhs, sizes, offset, init):
    return _call(config, lhs, rhs, sizes, offset, init)


def _ragged_dot_forward(config, lhs, rhs, sizes, offset, init):
    # Through the custom_vjp function itself, so that differentiating the
    # gradient (reverse over reverse) differentiates this call too.
    out = _ragged_dot(config, lhs, rhs, sizes, offset, init)
    # Of init only its type (an empty slice: dtype and manual axes), for
    # its cotangent's.
    init_type = None if init is None else init.reshape(-1)[:0]
    return out, (lhs, rhs, sizes, offset, init_type)


def _like_primal(cotangent, primal):
    """`cotangent` with the type of `primal`: its dtype and, under
    shard_map, its manual axes. The call made its operands varying over
    the union of their axes (_align_varying_axes): an operand that is
    invariant over an axis where another varies (replicated tokens next to
    experts sharded over it, replicated weights next to sharded tokens) was
    broadcast to a varying value, whose transpose is the sum over that
    axis, so its cotangent is psum'd over the axes it varies over and the
    primal does not; it is made varying over those the primal varies over
    and it does not (a cotangent computed from invariant values only)."""
    cotangent = cotangent.astype(primal.dtype)
    have, want = _varying_axes(cotangent), _varying_axes(primal)
    extra = tuple(sorted(have - want))
    if extra:
        cotangent = lax.psum(cotangent, extra)
    missing = tuple(sorted(want - _varying_axes(cotangent)))
    if missing:
        cotangent = lax.pcast(cotangent, missing, to="varying")
    return cotangent


def _ragged_dot_backward(config, residuals, g):
    lhs, rhs, sizes, offset, init_type = residuals
    # The forward call's signature (cached): its mode and free dimensions.
    signature = _signature_of(config, lhs, rhs, sizes, offset)
    if signature.mode == 1:
        d_lhs, d_rhs = _mode1_cotangents(config, signature, lhs, rhs, sizes, offset, g)
    elif signature.mode == 2:
        d_lhs, d_rhs = _mode2_cotangents(config, signature, lhs, rhs, sizes, offset, g)
    else:
        d_lhs, d_rhs = _mode3_cotangents(config, lhs, rhs, g)
    d_init = None if init_type is None else _like_primal(g, init_type)
    return _like_primal(d_lhs, lhs), _like_primal(d_rhs, rhs), None, None, d_init


_ragged_dot.defvjp(_ragged_dot_forward, _ragged_dot_backward)


def _prepare(
    lhs,
    rhs,
    group_sizes,
    ragged_dot_dimension_numbers,
    precision=None,
    preferred_element_type=None,
    group_offset=None,
    *,
    init=None,
    num_local_groups: Optional[int] = None,
    tile_sizes: Optional[Sequence[int]] = None,
):
    """jax.lax.ragged_dot_general through gmm (see the module docstring);
    `kernel_config` says which kernel configuration the call gets.

    lhs, rhs: float16, bfloat16, float32 or float64 arrays of one dtype.
    group_sizes: int32/int64, shape [g] or [prefix..., g] (as in JAX).
    ragged_dot_dimension_numbers: jax.lax.RaggedDotDimensionNumbers (or
      its tuple form), of non-negative integers (Python or NumPy).
    precision: one of jax.lax's, accepted for compatibility; gmm
      accumulates f16/bf16/f32 in f32 and f64 in f64 whatever it says.
    preferred_element_type: the result dtype (default: lhs's dtype).
    group_offset: an integer (Python, NumPy, or an array of any integer
      dtype; not a float or bool), scalar or shape [1]: compute only the
      groups [offset, offset + G_local) (modes 1 and 2). It becomes
      group_sizes' dtype exactly: a value beyond that dtype's range selects
      no group, and is clamped to the range, which selects none either.
    init: an accumulator of the result's shape, added to the result (gmm);
      a floating-point array that the result's dtype holds without loss.
    num_local_groups: mode 2 with group_offset: G_local, the result's
      leading dimension, an integer in [1, g] (default: all groups).
    tile_sizes: (m, n, k), positive integers, instead of gmm-configure's
      heuristic (on the CPU, the cache tile of a visit and its contraction
      block; the op's #gmm.kernel_config, see docs/Lowering.md).
    """
    _check_precision(precision)
    lhs = _array(lhs, "lhs")
    rhs = _array(rhs, "rhs")
    group_sizes = _array(group_sizes, "group_sizes")
    for what, x, types, names in (
        ("lhs", lhs, _FLOAT_TYPES, "float16, bfloat16, float32 or float64"),
        ("rhs", rhs, _FLOAT_TYPES, "float16, bfloat16, float32 or float64"),
        ("group_sizes", group_sizes, _INT_TYPES, "int32 or int64"),
    ):
        if np.dtype(x.dtype) not in types:
            raise TypeError(
                f"gmm.jax: {what} has dtype {np.dtype(x.dtype).name}; gmm takes {names}"
            )
    numbers = DimensionNumbers.of(ragged_dot_dimension_numbers)
    out_dtype = lhs.dtype
    if preferred_element_type is not None:
        try:
            out_dtype = np.dtype(preferred_element_type)
        except TypeError:
            raise TypeError(
                "gmm.jax: preferred_element_type must be a dtype, got "
                f"{preferred_element_type!r}"
            ) from None
    out_dtype = np.dtype(out_dtype)
    if out_dtype not in _FLOAT_TYPES:
        raise TypeError(
            f"gmm.jax: preferred_element_type {out_dtype.name} is not one of "
            "float16, bfloat16, float32, float64"
        )
    if group_offset is not None:
        group_offset = _group_offset(group_offset, np.dtype(group_sizes.dtype))
    if init is not None:
        init = _init(init, out_dtype)
    if num_local_groups is not None:
        # gmm says which mode the dimension numbers make (checking them
        # against the operands); the whole call is checked below.
        mode = _signature_of(
            _Config(numbers, out_dtype, None, None), lhs, rhs, group_sizes, group_offset
        ).mode
        if mode != 2 or group_offset is None:
            raise ValueError(
                "gmm.jax: num_local_groups is for mode 2 with a group_offset"
            )
        num_local_groups = _count(num_local_groups, "num_local_groups")
        groups = group_sizes.shape[-1] if group_sizes.ndim else 0
        if num_local_groups > groups:
            raise ValueError(
                f"gmm.jax: num_local_groups {num_local_groups} is more than the "
                f"{groups} groups of group_sizes"
            )
    if tile_sizes is not None:
        if isinstance(tile_sizes, (str, bytes)) or not hasattr(tile_sizes, "__iter__"):
            raise TypeError(
                f"gmm.jax: tile_sizes must be a sequence (m, n, k), got {tile_sizes!r}"
            )
        tile_sizes = tuple(tile_sizes)
        if len(tile_sizes) != 3:
            raise ValueError(
                f"gmm.jax: tile_sizes must be (m, n, k), got {list(tile_sizes)}"
            )
        tile_sizes = tuple(_count(t, "tile_sizes") for t in tile_sizes)
    config = _Config(numbers, out_dtype, num_local_groups, tile_sizes)
    # The whole call, as it will be compiled.
    _signature_of(config, lhs, rhs, group_sizes, group_offset, init)
    return config, lhs, rhs, group_sizes, group_offset, init


def ragged_dot_general(*args, **kwargs):
    config, lhs, rhs, group_sizes, group_offset, init = _prepare(*args, **kwargs)
    return _ragged_dot(config, lhs, rhs, group_sizes, group_offset, init)


# help() and inspect.signature() show _prepare's arguments and docstring.
ragged_dot_general.__doc__ = _prepare.__doc__
ragged_dot_general.__wrapped__ = _prepare


class KernelConfig(NamedTuple):
    """The kernel configuration gmm compiles a call with (see
    `kernel_config`)."""

    #: The op's #gmm.kernel_config, e.g. "#gmm.kernel_config<target = cpu,
    #: tile = [448, 512, 256], register_block = [14, 32], micro_kernel =
    #: bf16_dot>".
    config: str
    #: Per field (tile, register_block, micro_kernel): where its value came
    #: from (tile_sizes, or gmm-configure's heuristic and its reason).
    reasons: dict


def kernel_config(lhs, rhs, group_sizes, ragged_dot_dimension_numbers=None,
                  *args, **kwargs) -> KernelConfig:
    """The kernel configuration of `ragged_dot_general(lhs, rhs,
    group_sizes, ragged_dot_dimension_numbers, ...)`, or of `ragged_dot`'s
    (lhs [m, k], rhs [g, k, n]) without dimension numbers: what
    gmm-configure chooses for this call's shapes, dtypes and options on
    this machine, and why. Takes the same arguments and checks them the
    same way; compiles nothing that is kept.

        >>> gmm.jax.kernel_config(x, w, sizes).config
        '#gmm.kernel_config<target = cpu, tile = [...], ...>'
    """
    if ragged_dot_dimension_numbers is None:
        ragged_dot_dimension_numbers = _RAGGED_DOT_NUMBERS
    config, lhs, rhs, group_sizes, group_offset, init = _prepare(
        lhs, rhs, group_sizes, ragged_dot_dimension_numbers, *args, **kwargs
    )
    text, _ = _module(
        config, _describe(lhs), _describe(rhs), _describe(group_sizes),
        _describe(group_offset), _describe(init)
    )
    out = ctypes.create_string_buffer(1 << 16)
    if _load_library().gmm_jax_kernel_config(text.encode(), out, len(out)):
        raise ValueError(f"gmm.jax: {out.value.decode(errors='replace')}")
    lines = out.value.decode().splitlines()
    if not lines:
        raise RuntimeError("gmm.jax: gmm-configure reported no configuration")
    # "@ragged_dot at module:2:8: #gmm.kernel_config<...>", then
    # "  field: reason" lines.
    reasons = {}
    for line in lines[1:]:
        field, _, why = line.strip().partition(": ")
        reasons[field] = why
    return KernelConfig(lines[0].split(": ", 1)[1], reasons)


def _check_precision(precision):
    """`precision` is what jax.lax's ragged dot takes (it is then ignored),
    or ValueError naming it."""
    if precision is None:
        return
    try:
        from jax._src.lax.lax import canonicalize_precision
    except ImportError:  # another JAX: not checked
        return
    try:
        canonicalize_precision(precision)
    except (TypeError, ValueError):
        raise ValueError(
            "gmm.jax: precision must be None, a jax.lax.Precision or its name, "
            "a pair of them, or a jax.lax.DotAlgorithm(Preset), got "
            f"{precision!r}"
        ) from None


def _array(value, what):
    """`value` as a JAX array: a jax.Array (or tracer) as it is, anything
    else through NumPy, where an integer value that JAX would narrow (an
    int64 without jax_enable_x64) must fit the narrower type. TypeError or
    ValueError naming `what` otherwise."""
    if isinstance(value, jax.Array):
        return value
    try:
        host = np.asarray(value)
        if np.issubdtype(host.dtype, np.integer) and host.size:
            narrow = np.dtype(jax.dtypes.canonicalize_dtype(host.dtype))
            info = np.iinfo(narrow)
            if narrow != host.dtype and (host.min() < info.min or host.max() > info.max):
                raise ValueError(
                    f"gmm.jax: {what} has values outside the range of "
                    f"{narrow.name}, which JAX converts {host.dtype.name} to "
                    "(without jax_enable_x64)"
                )
        return jnp.asarray(host)
    except ValueError as error:
        if str(error).startswith("gmm.jax:"):
            raise
        raise TypeError(
            f"gmm.jax: {what} must be an array, got {value!r}"
        ) from None
    except TypeError:
        raise TypeError(
            f"gmm.jax: {what} must be an array, got {value!r}"
        ) from None


def _group_offset(value, dtype):
    """group_offset as an array of shape [1] and dtype `dtype` (group_sizes'
    dtype, the offset's type in the compiled ragged dot), converted without
    changing what it computes: any integer (Python, NumPy or an array of any
    integer dtype) whose value `dtype` cannot hold is clamped to `dtype`'s
    range. Clamping computes the same groups: only the groups
    [offset, offset + G_local) of [0, g) are computed, and as g and G_local
    (shapes) are at most dtype's largest value, an offset at or beyond it
    selects no group, just as one at or below its smallest (where
    offset + G_local <= -1). Floats and bools are TypeErrors."""
    info = np.iinfo(dtype)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"gmm.jax: group_offset must be an integer, got {value!r}")
    if _is_integer(value):
        return jnp.full((1,), min(max(int(value), info.min), info.max), dtype)
    if not isinstance(value, jax.Array):
        try:
            value = np.asarray(value)
        except (TypeError, ValueError):
            raise TypeError(
                f"gmm.jax: group_offset must be an integer, got {value!r}"
            ) from None
    source = np.dtype(value.dtype)
    if source == np.bool_ or not np.issubdtype(source, np.integer):
        raise TypeError(
            f"gmm.jax: group_offset has dtype {source.name}; it must be an "
            "integer (a Python or NumPy integer, or an array of an integer dtype)"
        )
    if value.size != 1 or value.ndim > 1:
        raise ValueError(
            "gmm.jax: group_offset must be a scalar or have shape [1], got "
            f"shape {list(value.shape)}"
        )
    xp = np if isinstance(value, np.ndarray) else jnp
    if not np.can_cast(source, dtype, "safe"):
        bounds = np.iinfo(source)
        value = xp.clip(
            value,
            xp.asarray(max(bounds.min, info.min), source),
            xp.asarray(min(bounds.max, info.max), source),
        )
    return jnp.asarray(xp.reshape(value, (1,)).astype(dtype))


def _init(value, dtype):
    """init as an array of the result dtype `dtype`: of a floating dtype
    that converts to it without loss (float32 to float32, bfloat16 to
    float32), TypeError naming init otherwise (no silent narrowing, nor
    integers or bools taken as floats)."""
    init = _array(value, "init")
    source = np.dtype(init.dtype)
    if not jnp.issubdtype(source, jnp.floating):
        raise TypeError(
            f"gmm.jax: init has dtype {source.name}; it must be a floating-point "
            f"array of the result's dtype {dtype.name}"
        )
    if source != dtype:
        if not np.can_cast(source, dtype, "safe"):
            raise TypeError(
                f"gmm.jax: init has dtype {source.name}, which the result's "
                f"dtype {dtype.name} cannot hold without loss"
            )
        init = init.astype(dtype)
    return init


def ragged_dot(
    lhs,
    rhs,
    group_sizes,
    precision=None,
    preferred_element_type=None,
    group_offset=None,
    *,
    init=None,
    tile_sizes: Optional[Sequence[int]] = None,
):
    """jax.lax.ragged_dot through gmm: lhs [m, k], rhs [g, k, n],
    group_sizes [g] -> [m, n]; rows of group i use rhs[i]."""
    lhs = _array(lhs, "lhs")
    rhs = _array(rhs, "rhs")
    group_sizes = _array(group_sizes, "group_sizes")
    for what, x, shape in (
        ("lhs", lhs, "[m, k]"),
        ("rhs", rhs, "[g, k, n]"),
        ("group_sizes", group_sizes, "[g]"),
    ):
        if x.ndim != shape.count(",") + 1:
            raise ValueError(
                f"gmm.jax: ragged_dot takes {what} of shape {shape}, got shape "
                f"{list(x.shape)}"
            )
    numbers = _RAGGED_DOT_NUMBERS
    return ragged_dot_general(
        lhs,
        rhs,
        group_sizes,
        numbers,
        precision=precision,
        preferred_element_type=preferred_element_type,
        group_offset=group_offset,
        init=init,
        tile_sizes=tile_sizes,
    )
