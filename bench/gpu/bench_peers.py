#!/usr/bin/env python3
"""gmm-bench-gpu's rows run by gmm's Python peers: torch._grouped_mm and JAX.

    python3 bench/gpu/bench_peers.py --rows gmm.json --out peers.json
    ... bench_peers.py --rows gmm.json --sides jax --repeat 20 --time-budget 120
    ... bench_peers.py --rows tiny.json --device cpu     # no GPU: the same code on the CPU

For every row of a `gmm-bench-gpu --json` file (same order, same group sizes)
this measures, in one process, on device 0:

- torch_grouped_mm: `torch._grouped_mm` (PyTorch's CUTLASS grouped GEMM on
  sm_90/sm_100 for bf16 in and out, a loop of mm otherwise). Mode 1:
  `_grouped_mm(lhs [m,k], rhs [g,k,n], offs)`; mode 2: `_grouped_mm(x.t(), dy,
  offs)` -> [g,k,n]; offs are the int32 cumulative ends of the groups. When
  the natural call raises, transposed layouts made outside the timed region
  are tried; the note names the layout used. An f32 result is asked for with
  out_dtype=torch.float32 and is n/a where torch refuses it.
- jax_ragged_dot: `jax.lax.ragged_dot` (mode 1) or `jax.lax.ragged_dot_general`
  (mode 2, lhs ragged along the contracted dimension) under jax.jit, with
  preferred_element_type the row's result type, on the same device buffers
  as torch (DLPack, zero-copy where possible).

Inputs are uniform in [-1, 1) bf16, drawn on the device from the JSON's seed
and the row index. Each side's first call is checked: `--samples` output
elements (each non-empty group's first and last row, random positions; in
mode 2 every group, empty ones included, whose slice must be 0) against an
f64 reference computed on the host from the same bf16 values: error =
max|out - ref| / max|ref|, ok = error <= --tolerance. Neither API takes an
output buffer: before torch's checked call a NaN-filled block of the result's
size is freed into the caching allocator, which the result then usually
reuses, so that elements the kernel does not write show up.

Timing: torch: CUDA event pairs on the current stream, median of --repeat
calls after --warmup (the result is allocated in every call). JAX: --repeat
calls back to back and one block_until_ready, wall clock, the mean per call
(JAX runs on its own streams). A first call slower than 3 s cuts the number
of timed calls. The dense bf16 8192^3 torch.matmul (cuBLAS) is measured first.
Errors (OOM, unsupported layouts, a missing library) make that side n/a
(`note` starts with "n/a: ") and the run goes on. Exits with 1 when a side
computed a wrong result, else 0. The output JSON is rewritten after every row.
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

SLOW_FIRST_CALL_S = 3.0
SIDE_KEYS = {"torch": "torch_grouped_mm", "jax": "jax_ragged_dot"}
ROW_FIELDS = ("shape", "g", "m", "k", "n", "mode", "dtype", "result", "distribution")


def log(message):
    print(message, file=sys.stderr, flush=True)


def first_line(exc):
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".strip()


def side_result(ms=None, tflops=None, error=None, ok=None, note=""):
    return {"ms": ms, "tflops": tflops, "error": error, "ok": ok, "note": note}


def na(reason):
    return side_result(note="n/a: " + reason)


class Torch:
    """torch, its device and a timer for it; `error` says why it is unusable."""

    def __init__(self, device):
        self.mod = self.error = None
        try:
            import torch
        except Exception as exc:  # a missing or broken install
            self.error = "torch not importable: " + first_line(exc)
            return
        if device == "cuda" and not torch.cuda.is_available():
            self.error = "torch sees no CUDA device"
            return
        self.mod, self.cuda = torch, device == "cuda"
        self.device = torch.device("cuda:0" if self.cuda else "cpu")

    def sync(self):
        if self.cuda:
            self.mod.cuda.synchronize()

    def median_ms(self, fn, warmup, repeat):
        for _ in range(warmup):
            fn()
        if not self.cuda:
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                fn()
                times.append((time.perf_counter() - start) * 1e3)
            return statistics.median(times)
        events = [(self.mod.cuda.Event(enable_timing=True), self.mod.cuda.Event(enable_timing=True))
                  for _ in range(repeat)]
        for start, stop in events:
            start.record()
            fn()
            stop.record()
        self.sync()
        return statistics.median(start.elapsed_time(stop) for start, stop in events)

    def free(self):
        self.sync()
        if self.cuda:
            self.mod.cuda.empty_cache()


class Jax:
    """jax and the device it runs on; `error` says why it is unusable."""

    def __init__(self, device):
        self.mod = self.error = None
        try:
            import jax
            import jax.numpy as jnp
        except Exception as exc:
            self.error = "jax not importable: " + first_line(exc)
            return
        try:
            self.device = jax.devices("cpu" if device == "cpu" else "gpu")[0]
        except Exception as exc:
            self.error = "no JAX device for --device=" + device + ": " + first_line(exc)
            return
        self.mod, self.jnp = jax, jnp


def take(array, *index):
    """array[index] on the host as float64; index holds numpy arrays and slices.
    Works on torch tensors (indices moved to the tensor's device), JAX arrays
    and numpy arrays, and copies only the selected elements."""
    kind = type(array).__module__.split(".")[0]
    if kind == "torch":
        import torch
        index = tuple(torch.as_tensor(i, device=array.device) if isinstance(i, np.ndarray) else i
                      for i in index)
        return array[index].float().cpu().numpy().astype(np.float64)
    return np.asarray(array[index]).astype(np.float64)


class Row:
    """One row's inputs (torch tensors if torch works, else numpy bf16), its
    sample positions and their f64 reference values."""

    def __init__(self, spec, index, seed, tc, samples):
        self.spec, self.mode = spec, spec["mode"]
        g, m, k, n = (int(spec[key]) for key in ("g", "m", "k", "n"))
        self.sizes = np.asarray(spec["group_sizes"], dtype=np.int64)
        if len(self.sizes) != g or self.sizes.sum() != m or (self.sizes < 0).any():
            raise ValueError(f"group_sizes: {len(self.sizes)} groups summing to {self.sizes.sum()}, "
                             f"expected {g} summing to {m}")
        self.flops = float(spec.get("flops") or 2.0 * m * k * n)
        self.ends = np.cumsum(self.sizes)
        self.starts = self.ends - self.sizes
        shapes = [(m, k), (g, k, n)] if self.mode == 1 else [(m, k), (m, n)]
        row_seed = int(seed) * 1_000_003 + index
        if tc.mod is not None:
            torch = tc.mod
            gen = torch.Generator(device=tc.device).manual_seed(row_seed)
            self.a, self.b = (torch.empty(s, dtype=torch.bfloat16, device=tc.device)
                              .uniform_(-1, 1, generator=gen) for s in shapes)
            self.offs = torch.as_tensor(self.ends.astype(np.int32), device=tc.device)
            tc.sync()
        else:
            import ml_dtypes
            rng = np.random.default_rng(row_seed)
            self.a, self.b = (rng.uniform(-1, 1, s).astype(ml_dtypes.bfloat16) for s in shapes)
            self.offs = None
        self.index, self.ref = self._samples(np.random.default_rng(row_seed + 17), samples, k, n)

    def _samples(self, rng, count, k, n):
        g = len(self.sizes)
        if self.mode == 1:
            nonempty = np.flatnonzero(self.sizes)
            rows = np.concatenate([self.starts[nonempty], self.ends[nonempty] - 1])
            if len(rows) > count:
                rows = rng.choice(rows, count, replace=False)
            rows = np.concatenate([rows, rng.integers(0, self.ends[-1], max(0, count - len(rows)))])
            cols = rng.integers(0, n, len(rows))
            groups = np.searchsorted(self.ends, rows, side="right")
            ref = np.empty(len(rows))
            for lo in range(0, len(rows), 256):
                part = slice(lo, lo + 256)
                lhs = take(self.a, rows[part])
                rhs = take(self.b, groups[part], slice(None), cols[part])
                ref[part] = (lhs * rhs).sum(axis=1)
            return (rows, cols), ref
        groups = np.concatenate([np.arange(g), rng.integers(0, g, max(0, count - g))])
        ii, jj = rng.integers(0, k, len(groups)), rng.integers(0, n, len(groups))
        ref = np.zeros(len(groups))
        for group in np.flatnonzero(self.sizes):
            picked = np.flatnonzero(groups == group)
            rows = slice(int(self.starts[group]), int(self.ends[group]))
            step = max(1, 4_000_000 // int(self.sizes[group]))
            for lo in range(0, len(picked), step):
                part = picked[lo:lo + step]
                ref[part] = (take(self.a, rows, ii[part]) * take(self.b, rows, jj[part])).sum(axis=0)
        return (groups, ii, jj), ref

    def check(self, out, tolerance):
        """(error, ok, note) of `out` at the sample positions."""
        got = take(out, *self.index)
        bad = ~np.isfinite(got)
        if bad.any():
            return None, False, f"{bad.sum()} of {len(got)} sampled values not finite"
        scale = np.abs(self.ref).max()
        error = float(np.abs(got - self.ref).max() / (scale if scale > 0 else 1.0))
        return float(f"{error:.3g}"), error <= tolerance, ""


def figures(ms, flops):
    """(ms, TFLOP/s), each to 5 significant digits."""
    return float(f"{ms:.5g}"), float(f"{flops / (ms * 1e9):.5g}")


def timed_calls(first_s, repeat, warmup, deadline):
    """(warmup, repeat, note) after a first call of first_s seconds."""
    if first_s <= SLOW_FIRST_CALL_S:
        return warmup, repeat, ""
    left = max(0.0, deadline - time.monotonic())
    calls = max(1, min(repeat, int(min(5 * SLOW_FIRST_CALL_S, left / 2) / first_s)))
    return 0, calls, f"; first call {first_s:.1f} s: no warm-up, {calls} timed calls"


def run_torch(tc, row, args, deadline):
    if tc.mod is None:
        return na(tc.error)
    torch = tc.mod
    if not hasattr(torch, "_grouped_mm"):
        return na(f"torch {torch.__version__} has no torch._grouped_mm")
    out_dtype = torch.bfloat16 if row.spec["result"] == "bf16" else torch.float32
    a, b = row.a, row.b
    if row.mode == 1:
        layouts = [("lhs [m,k] row-major, rhs [g,k,n] row-major", lambda: (a, b)),
                   ("lhs [m,k] row-major, rhs [g,k,n] column-major (a transposed view of a "
                    "contiguous [g,n,k] copy)", lambda: (a, b.transpose(1, 2).contiguous().transpose(1, 2)))]
    else:
        layouts = [("mat_a = x.t() [k,m] column-major view, dy [m,n] row-major", lambda: (a.t(), b)),
                   ("mat_a = x.t().contiguous() [k,m] row-major copy, dy [m,n] row-major",
                    lambda: (a.t().contiguous(), b)),
                   ("mat_a = x.t().contiguous() [k,m] row-major copy, dy [m,n] column-major copy",
                    lambda: (a.t().contiguous(), b.t().contiguous().t()))]
    if not tc.cuda:
        path = "CPU"
    elif torch.cuda.get_device_capability()[0] in (9, 10) and out_dtype == torch.bfloat16:
        path = "CUTLASS path expected (sm_90/sm_100, bf16 out)"
    else:
        path = "per-group mm fallback expected"
    first_exc, out = None, None
    for label, prepare in layouts:
        try:
            mat_a, mat_b = prepare()
            call = (lambda x=mat_a, y=mat_b: torch._grouped_mm(x, y, offs=row.offs, out_dtype=out_dtype))
            shape = (row.spec["m"], row.spec["n"]) if row.mode == 1 else \
                (row.spec["g"], row.spec["k"], row.spec["n"])
            poison = torch.full(shape, float("nan"), dtype=out_dtype, device=tc.device)
            del poison
            tc.sync()
            start = time.perf_counter()
            out = call()
            tc.sync()
            first_s = time.perf_counter() - start
            break
        except Exception as exc:
            first_exc = first_exc or exc
            mat_a = mat_b = None
            tc.free()
    if out is None:
        more = f" (and {len(layouts) - 1} other layouts)" if len(layouts) > 1 else ""
        return na(first_line(first_exc) + more)
    error, ok, why = row.check(out, args.tolerance)
    del out
    warmup, repeat, slow = timed_calls(first_s, args.repeat, args.warmup, deadline)
    try:
        ms = tc.median_ms(call, warmup, repeat)
    except Exception as exc:
        return side_result(error=error, ok=ok, note=f"n/a: timing failed: {first_line(exc)}; {label}")
    finally:
        tc.free()
    timer = "CUDA events" if tc.cuda else "wall clock"
    note = f"{label}; {path}; median of {repeat}, {timer}{slow}" + (f"; {why}" if why else "")
    if first_exc is not None:
        note += f"; the natural layout raised {first_line(first_exc)}"
    return side_result(*figures(ms, row.flops), error, ok, note)


def jax_operands(jx, row):
    """The row's inputs as JAX arrays on jx.device, and how they got there."""
    jax = jx.mod
    sizes = jax.device_put(row.sizes.astype(np.int32), jx.device)
    if type(row.a).__module__.split(".")[0] != "torch":
        return [jax.device_put(t, jx.device) for t in (row.a, row.b)] + [sizes], "copied from the host"
    try:
        arrays = [jax.dlpack.from_dlpack(t) for t in (row.a, row.b)]
        if any(x.devices() != {jx.device} for x in arrays):
            arrays = [jax.device_put(x, jx.device) for x in arrays]
            return arrays + [sizes], "DLPack then copied to JAX's device"
        shared = all(x.unsafe_buffer_pointer() == t.data_ptr() for x, t in zip(arrays, (row.a, row.b)))
        return arrays + [sizes], "torch's buffers via DLPack" + ("" if shared else " (copied)")
    except Exception as exc:
        host = [jax.device_put(t.float().cpu().numpy().astype(jx.jnp.bfloat16), jx.device)
                for t in (row.a, row.b)]
        return host + [sizes], f"copied (DLPack failed: {first_line(exc)})"


def run_jax(jx, row, args, deadline):
    if jx.mod is None:
        return na(jx.error)
    jax, jnp = jx.mod, jx.jnp
    element = jnp.bfloat16 if row.spec["result"] == "bf16" else jnp.float32
    if row.mode == 1:
        def fn(lhs, rhs, sizes):
            return jax.lax.ragged_dot(lhs, rhs, sizes, preferred_element_type=element)
    else:
        numbers = jax.lax.RaggedDotDimensionNumbers(
            dot_dimension_numbers=(([0], [0]), ([], [])), lhs_ragged_dimensions=[0], rhs_group_dimensions=[])

        def fn(x, dy, sizes):
            return jax.lax.ragged_dot_general(x, dy, sizes, numbers, preferred_element_type=element)
    operands = out = None
    try:
        operands, how = jax_operands(jx, row)
        start = time.perf_counter()
        compiled = jax.jit(fn).lower(*operands).compile()
        compile_s = time.perf_counter() - start
        start = time.perf_counter()
        out = compiled(*operands)
        out.block_until_ready()
        first_s = time.perf_counter() - start
        error, ok, why = row.check(out, args.tolerance)
        out = None
        warmup, repeat, slow = timed_calls(first_s, args.repeat, args.warmup, deadline)
        for _ in range(warmup):
            compiled(*operands).block_until_ready()
        start = time.perf_counter()
        for _ in range(repeat):
            out = compiled(*operands)
        out.block_until_ready()
        ms = (time.perf_counter() - start) * 1e3 / repeat
    except Exception as exc:
        return na(first_line(exc))
    finally:
        operands = out = None
    note = f"wall clock, {repeat} calls; compile {compile_s:.2f} s; inputs: {how}{slow}"
    return side_result(*figures(ms, row.flops), error, ok, note + (f"; {why}" if why else ""))


def dense_peak(tc, size, warmup, repeat):
    if tc.mod is None:
        return None
    torch = tc.mod

    def measure():
        gen = torch.Generator(device=tc.device).manual_seed(0)
        a, b = (torch.empty(size, size, dtype=torch.bfloat16, device=tc.device).uniform_(-1, 1, generator=gen)
                for _ in range(2))
        return tc.median_ms(lambda: torch.matmul(a, b), warmup, repeat)
    try:
        ms = measure()
    except Exception as exc:
        log(f"dense peak: n/a: {first_line(exc)}")
        return None
    finally:
        tc.free()
    ms, tflops = figures(ms, 2.0 * size ** 3)
    return {"m": size, "n": size, "k": size, "ms": ms, "tflops": tflops}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", required=True, help="the JSON file of gmm-bench-gpu --json")
    parser.add_argument("--out", default="-", help="where to write the peers' JSON (default: stdout)")
    parser.add_argument("--repeat", type=int, default=10, help="timed calls per side and row (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed calls before them (default 2)")
    parser.add_argument("--time-budget", type=float, default=240.0,
                        help="seconds for the whole run; rows left then are skipped (default 240)")
    parser.add_argument("--sides", default="torch,jax", help="comma-separated: torch, jax (default both)")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                        help="cuda (default), or cpu to test the script without a GPU")
    parser.add_argument("--samples", type=int, default=4096, help="output elements checked per side (4096)")
    parser.add_argument("--tolerance", type=float, default=1e-2,
                        help="largest max|out - ref| / max|ref| that passes (default 1e-2)")
    parser.add_argument("--dense-size", type=int, default=0,
                        help="m = n = k of the dense torch.matmul (default 8192 on cuda, 512 on cpu; 0: default)")
    args = parser.parse_args()
    deadline = time.monotonic() + args.time_budget

    sides = []
    for name in args.sides.split(","):
        key = SIDE_KEYS.get(name.strip(), name.strip())
        if key not in SIDE_KEYS.values():
            parser.error(f"--sides: unknown side {name!r} (torch, jax)")
        sides.append(key)
    with open(args.rows) as f:
        source = json.load(f)

    # Before jax is imported: let torch and JAX share the GPU, and keep a CPU
    # run off any GPU.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    if args.device == "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"
    tc = Torch(args.device)
    if tc.error:
        log(f"torch: {tc.error}")
    peak = dense_peak(tc, args.dense_size or (8192 if args.device == "cuda" else 512), args.warmup, args.repeat)
    if peak:
        log(f"dense torch.matmul {peak['m']}^3 bf16: {peak['ms']:.3f} ms, {peak['tflops']:.1f} TFLOP/s")
    jx = Jax(args.device) if "jax_ragged_dot" in sides else None
    if jx and jx.error:
        log(f"jax: {jx.error}")

    result = {key: source[key] for key in ("device", "commit", "seed") if key in source}
    result.update({
        "tool": "bench_peers.py", "torch": tc.mod.__version__ if tc.mod else None,
        "jax": jx.mod.__version__ if jx and jx.mod else None,
        "peer_device": {"torch": (tc.mod.cuda.get_device_name(0) if tc.cuda else "cpu") if tc.mod else None,
                        "jax": str(jx.device) if jx and jx.mod else None},
        "repeat": args.repeat, "warmup": args.warmup, "samples": args.samples, "tolerance": args.tolerance,
        "dense_peak_torch": peak,
    })
    specs = source.get("rows", [])
    rows = [{**{key: spec.get(key) for key in ROW_FIELDS},
             "sides": {key: side_result(note="skipped: not reached (run interrupted)") for key in sides}}
            for spec in specs]
    result["rows"] = rows

    def write():
        text = json.dumps(result, indent=1) + "\n"
        if args.out == "-":
            return
        with open(args.out + ".tmp", "w") as f:
            f.write(text)
        os.replace(args.out + ".tmp", args.out)

    write()
    wrong = False
    runners = {"torch_grouped_mm": lambda row: run_torch(tc, row, args, deadline),
               "jax_ragged_dot": lambda row: run_jax(jx, row, args, deadline)}
    # Every (shape, mode, result) once before any of them twice: the uniform
    # rows first, so that a time budget that runs out leaves the other
    # distributions, not whole shapes or modes, unmeasured.
    order = sorted(range(len(specs)), key=lambda i: (specs[i].get("distribution") != "uniform", i))
    for index in order:
        spec, out = specs[index], rows[index]
        label = (f"row {index + 1}/{len(specs)} {spec.get('shape')} mode {spec.get('mode')} "
                 f"{spec.get('result')} {spec.get('distribution')}")
        row, failure = None, side_result(note="skipped: time budget")
        if time.monotonic() < deadline:
            try:
                row = Row(spec, index, source.get("seed", 1), tc, args.samples)
            except Exception as exc:
                failure = na("inputs: " + first_line(exc))
        for key in sides:
            if time.monotonic() >= deadline:
                figures_ = side_result(note="skipped: time budget")
            elif row is None:
                figures_ = failure
            else:
                try:
                    figures_ = runners[key](row)
                except Exception as exc:  # whatever a side raises, the run goes on
                    figures_ = na(first_line(exc))
            out["sides"][key] = figures_
            wrong |= figures_["ok"] is False
            shown = (f"{figures_['ms']:.3f} ms, {figures_['tflops']:.1f} TFLOP/s, error {figures_['error']}, "
                     f"{'ok' if figures_['ok'] else 'WRONG'}" if figures_["ms"] is not None else "")
            log(f"{label} {key}: {shown}{'; ' if shown else ''}{figures_['note']}")
        row = None
        if tc.mod:
            tc.free()
        write()
    if args.out == "-":
        print(json.dumps(result, indent=1))
    return 1 if wrong else 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip the interpreter's teardown: with torch and XLA loaded it now and
    # then aborts ("terminate called without an active exception") when their
    # thread pools are destroyed, after everything has been written.
    os._exit(status)
