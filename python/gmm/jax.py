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
- Bad shapes, dtypes or dimension numbers raise ValueError or TypeError with
  gmm's verifier message when the call is traced.

The compiled code runs in this process (MLIR's JIT in libgmm_jax_ffi.so,
next to jaxlib; see docs/JAX.md for why that is safe).
"""

import ctypes
import functools
import os
import threading
from typing import NamedTuple, Optional, Sequence, Tuple

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

__all__ = [
    "DimensionNumbers",
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
                f"gmm.jax: {path} does not exist; build gmm with "
                "-DGMM_PYTHON=<a python with jax> (the test command does)"
            )
        library = ctypes.CDLL(path)
        library.gmm_jax_verify.argtypes = [
            ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t
        ]
        library.gmm_jax_verify.restype = ctypes.c_int
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
        lhs_ragged, rhs_group)."""
        if isinstance(numbers, DimensionNumbers):
            return numbers
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

            def ints(values):
                return tuple(int(v) for v in values)

            return DimensionNumbers(
                ints(lc), ints(rc), ints(lb), ints(rb), ints(ragged), ints(group)
            )
        except (TypeError, ValueError):
            raise TypeError(
                f"gmm.jax: malformed dimension numbers {numbers!r}"
            ) from None

    def mode(self) -> int:
        """1: ragged free dimension, 2: ragged contracting dimension, 3:
        ragged batch dimension (docs/Semantics.md)."""
        (ragged,) = self.lhs_ragged
        if ragged in self.lhs_contracting:
            return 2
        if ragged in self.lhs_batch:
            return 3
        return 1

    def lhs_free(self, rank: int):
        return [
            d
            for d in range(rank)
            if d not in self.lhs_contracting and d not in self.lhs_batch
        ]

    def rhs_free(self, rank: int):
        return [
            d
            for d in range(rank)
            if d not in self.rhs_contracting
            and d not in self.rhs_batch
            and d not in self.rhs_group
        ]

    def attribute(self) -> str:
        def dims(values):
            return "[" + ", ".join(str(v) for v in values) + "]"

        return (
            f"<lhs_batching_dimensions = {dims(self.lhs_batch)}, "
            f"rhs_batching_dimensions = {dims(self.rhs_batch)}, "
            f"lhs_contracting_dimensions = {dims(self.lhs_contracting)}, "
            f"rhs_contracting_dimensions = {dims(self.rhs_contracting)}, "
            f"lhs_ragged_dimensions = {dims(self.lhs_ragged)}, "
            f"rhs_group_dimensions = {dims(self.rhs_group)}>"
        )


_FLOAT_TYPES = {
    np.dtype(jnp.float16): "f16",
    np.dtype(jnp.bfloat16): "bf16",
    np.dtype(jnp.float32): "f32",
    np.dtype(jnp.float64): "f64",
}
_INT_TYPES = {np.dtype(jnp.int32): "i32", np.dtype(jnp.int64): "i64"}


def _tensor_type(shape, dtype, memref=False) -> str:
    element = _FLOAT_TYPES.get(np.dtype(dtype)) or _INT_TYPES[np.dtype(dtype)]
    dims = "".join(f"{int(d)}x" for d in shape)
    return f"{'memref' if memref else 'tensor'}<{dims}{element}>"


class _Config(NamedTuple):
    """What a compiled ragged dot depends on besides its operand shapes:
    the static arguments of the custom_vjp."""

    numbers: DimensionNumbers
    out_dtype: np.dtype
    # Mode 2 with group_offset: the result's number of local groups.
    num_local_groups: Optional[int]
    tile_sizes: Optional[Tuple[int, int, int]]


def _result_shape(config: _Config, lhs_shape, rhs_shape, sizes_shape):
    numbers = config.numbers
    shape = [lhs_shape[d] for d in numbers.lhs_batch]
    shape += [lhs_shape[d] for d in numbers.lhs_free(len(lhs_shape))]
    shape += [rhs_shape[d] for d in numbers.rhs_free(len(rhs_shape))]
    if numbers.mode() == 2:
        groups = config.num_local_groups
        if groups is None:
            groups = sizes_shape[-1] if sizes_shape else 0
        shape = [groups] + shape
    return tuple(int(d) for d in shape)


@functools.lru_cache(maxsize=None)
def _module(config: _Config, lhs, rhs, sizes, offset, init) -> Tuple[str, tuple]:
    """The gmm module of one call and its result shape; each operand is a
    (shape, dtype) pair or None. The module is verified by gmm here, so a
    bad call fails when it is traced, with gmm's message."""
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
    if len(numbers.lhs_ragged) != 1:
        raise ValueError(
            "gmm.jax: exactly one lhs ragged dimension is needed, got "
            f"{list(numbers.lhs_ragged)}"
        )
    for what, dims, rank in (
        ("lhs", numbers.lhs_contracting + numbers.lhs_batch + numbers.lhs_ragged, len(lhs[0])),
        ("rhs", numbers.rhs_contracting + numbers.rhs_batch + numbers.rhs_group, len(rhs[0])),
    ):
        bad = [d for d in dims if not 0 <= d < rank]
        if bad:
            raise ValueError(
                f"gmm.jax: {what} dimension {bad[0]} is out of range for "
                f"rank {rank}"
            )
    result = _result_shape(config, lhs[0], rhs[0], sizes[0])
    out_type = _tensor_type(result, config.out_dtype)
    arguments = [("lhs", lhs), ("rhs", rhs), ("group_sizes", sizes)]
    if offset is not None:
        arguments.append(("group_offset", offset))
    if init is not None:
        arguments.append(("init", init))
    parameters = [
        f"%{name}: {_tensor_type(*operand)} {{bufferization.writable = false}}"
        for name, operand in arguments
    ]
    parameters.append(f"%out: {_tensor_type(result, config.out_dtype, memref=True)}")
    operands = ""
    if offset is not None:
        operands += f" group_offset(%group_offset : {_tensor_type(*offset)})"
    if init is not None:
        operands += f" init(%init : {_tensor_type(*init)})"
    attributes = ""
    if config.tile_sizes is not None:
        m, n, k = config.tile_sizes
        attributes = (
            f" {{gmm.kernel_config = #gmm.kernel_config<tile = [{m}, {n}, {k}]>}}"
        )
    text = (
        f"func.func @{_ENTRY}({', '.join(parameters)}) {{\n"
        f"  %r = gmm.ragged_dot %lhs, %rhs, %group_sizes{operands}\n"
        f"      dimension_numbers = {numbers.attribute()}{attributes}\n"
        f"      : {_tensor_type(*lhs)}, {_tensor_type(*rhs)}, "
        f"{_tensor_type(*sizes)} -> {out_type}\n"
        f"  bufferization.materialize_in_destination %r in restrict writable "
        f"%out : ({out_type}, {_tensor_type(result, config.out_dtype, memref=True)}) -> ()\n"
        f"  return\n"
        f"}}\n"
    )
    error = ctypes.create_string_buffer(4096)
    if _load_library().gmm_jax_verify(text.encode(), error, len(error)):
        message = error.value.decode(errors="replace")
        raise ValueError(f"gmm.jax: {message}")
    return text, result


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


def _mode1_cotangents(config, lhs, rhs, sizes, offset, g):
    """Mode 1: d lhs is a mode-1 ragged dot of the cotangent with the
    weights (contracting their free dims), d rhs a mode-2 ragged dot of lhs
    and the cotangent (over the ragged dim), both with `offset`. They go
    through the differentiable _ragged_dot, so higher derivatives work
    too."""
    n = config.numbers
    (ragged,) = n.lhs_ragged
    (group,) = n.rhs_group
    batch = len(n.lhs_batch)
    lhs_free = n.lhs_free(lhs.ndim)
    rhs_free = n.rhs_free(rhs.ndim)
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


def _mode2_cotangents(config, lhs, rhs, sizes, offset, g):
    """Mode 2: each of d lhs and d rhs is a mode-1 ragged dot of the other
    operand (ragged along its partner of the ragged dim) with the cotangent
    (grouped along its leading group dim), with `offset`."""
    n = config.numbers
    (ragged,) = n.lhs_ragged
    batch = len(n.lhs_batch)
    contracting = len(n.lhs_contracting)
    position = n.lhs_contracting.index(ragged)
    lhs_free = n.lhs_free(lhs.ndim)
    rhs_free = n.rhs_free(rhs.ndim)
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
    return out, (lhs, rhs, sizes, offset, init is not None)


def _ragged_dot_backward(config, residuals, g):
    lhs, rhs, sizes, offset, has_init = residuals
    mode = config.numbers.mode()
    if mode == 1:
        d_lhs, d_rhs = _mode1_cotangents(config, lhs, rhs, sizes, offset, g)
    elif mode == 2:
        d_lhs, d_rhs = _mode2_cotangents(config, lhs, rhs, sizes, offset, g)
    else:
        d_lhs, d_rhs = _mode3_cotangents(config, lhs, rhs, g)
    d_init = g if has_init else None
    return d_lhs.astype(lhs.dtype), d_rhs.astype(rhs.dtype), None, None, d_init


_ragged_dot.defvjp(_ragged_dot_forward, _ragged_dot_backward)


def ragged_dot_general(
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
    """jax.lax.ragged_dot_general through gmm (see the module docstring).

    lhs, rhs: float16, bfloat16, float32 or float64 arrays of one dtype.
    group_sizes: int32/int64, shape [g] or [prefix..., g] (as in JAX).
    ragged_dot_dimension_numbers: jax.lax.RaggedDotDimensionNumbers.
    precision: accepted for compatibility; gmm accumulates f16/bf16/f32 in
      f32 and f64 in f64 whatever it says.
    preferred_element_type: the result dtype (default: lhs's dtype).
    group_offset: int32/int64 scalar or shape [1]: compute only the groups
      [offset, offset + G_local) (modes 1 and 2).
    init: an accumulator of the result's shape, added to the result (gmm).
    num_local_groups: mode 2 with group_offset: G_local, the result's
      leading dimension (default: all groups).
    tile_sizes: (m, n, k) instead of gmm-configure's heuristic (on the CPU,
      the cache tile of a visit and its contraction block; the op's
      #gmm.kernel_config, see docs/Lowering.md).
    """
    del precision
    lhs = jnp.asarray(lhs)
    rhs = jnp.asarray(rhs)
    group_sizes = jnp.asarray(group_sizes)
    numbers = DimensionNumbers.of(ragged_dot_dimension_numbers)
    out_dtype = np.dtype(
        preferred_element_type if preferred_element_type is not None else lhs.dtype
    )
    if group_offset is not None:
        group_offset = jnp.asarray(group_offset)
        if group_offset.size != 1 or group_offset.ndim > 1:
            raise ValueError(
                "gmm.jax: group_offset must be a scalar or have shape [1], got "
                f"shape {list(group_offset.shape)}"
            )
        group_offset = group_offset.reshape((1,)).astype(group_sizes.dtype)
    if init is not None:
        init = jnp.asarray(init).astype(out_dtype)
    if num_local_groups is not None and (
        numbers.mode() != 2 or group_offset is None
    ):
        raise ValueError(
            "gmm.jax: num_local_groups is for mode 2 with a group_offset"
        )
    if tile_sizes is not None:
        tile_sizes = tuple(int(t) for t in tile_sizes)
        if len(tile_sizes) != 3:
            raise ValueError("gmm.jax: tile_sizes must be (m, n, k)")
    config = _Config(numbers, out_dtype, num_local_groups, tile_sizes)
    return _ragged_dot(config, lhs, rhs, group_sizes, group_offset, init)


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
    numbers = DimensionNumbers((1,), (1,), (), (), (0,), (0,))
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
