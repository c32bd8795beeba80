"""gmm through JAX against jax.lax.ragged_dot on the CPU, in one process.

    PYTHONPATH=build/python build/venv/bin/python bench/jax/bench_jax.py
    ... bench_jax.py --quick            # small shapes, seconds
    ... bench_jax.py --repeat=20 --format=csv

For every shape (mode 1, f32: tokens [m, k] x experts [g, k, n], uniform
group sizes summing to m) both sides run under jax.jit on the same inputs,
with the same threads (XLA's CPU thread pool for JAX, OpenMP for gmm; both
use every core unless OMP_NUM_THREADS / XLA flags say otherwise):

- gmm: gmm.jax.ragged_dot, an XLA FFI call into gmm's compiled code;
- jax: jax.lax.ragged_dot, which XLA's CPU backend expands to dense matmuls
  over all groups (g times the work of the ragged product);
- gmm alone: the very module that gmm.jax compiles for the shape, run by
  `gmm-runner --repeat` (same group sizes, no JAX, no XLA): what the JAX
  path costs is the difference between the two gmm columns.

Results are compared before timing. Times are medians over --repeat calls
after --warmup calls (block_until_ready on each). GFLOP/s count the ragged
product's 2*m*k*n. The FFI overhead is the median time of a jitted gmm call
on a problem with no rows (m = 0), which compiles to a call that returns at
once: XLA's dispatch, the FFI call and the handler's cache lookup.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

import gmm.jax as gj

SHAPES = [
    # (g, m, k, n)
    (8, 2048, 1024, 1024),
    (8, 4096, 512, 1024),
    (32, 2048, 512, 512),
    (32, 4096, 1024, 512),
]
QUICK = [(8, 256, 128, 128), (32, 512, 128, 128)]


def median_seconds(fn, args, warmup, repeat):
    for _ in range(warmup):
        fn(*args).block_until_ready()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args).block_until_ready()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def gmm_alone_seconds(lhs, rhs, sizes, repeat):
    """The median time of gmm.jax's module for these operands, called by
    gmm-runner (gmm's own JIT driver) on the same group sizes."""
    text, _ = gj._module(
        gj._Config(gj.DimensionNumbers((1,), (1,), (), (), (0,), (0,)), np.dtype(lhs.dtype), None, None),
        gj._describe(lhs), gj._describe(rhs), gj._describe(sizes), None, None,
    )
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(gj.__file__))))
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as module:
        module.write(text)
        module.flush()
        run = subprocess.run(
            [os.path.join(build, "bin", "gmm-runner"), module.name,
             "--group-sizes=" + ",".join(str(int(v)) for v in np.asarray(sizes)),
             f"--repeat={repeat}"],
            capture_output=True, text=True, check=True,
        )
    found = re.search(r"time: median ([0-9.eE+-]+) ms", run.stdout)
    if not found:
        sys.exit("gmm-runner printed no time: " + run.stdout + run.stderr)
    return float(found.group(1)) / 1e3


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--format", choices=["markdown", "csv", "json"], default="markdown")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    gmm_fn = jax.jit(gj.ragged_dot)
    jax_fn = jax.jit(jax.lax.ragged_dot)
    threads = os.environ.get("OMP_NUM_THREADS", str(os.cpu_count()))
    shapes = QUICK if args.quick else SHAPES
    columns = ["g", "m", "k", "n", "gmm_alone_ms", "gmm_ms", "jax_ms", "gmm_gflops",
               "jax_gflops", "speedup_alone", "speedup"]

    def status(text):
        """What the benchmark is doing, on stderr (rows go to stdout as
        they finish)."""
        print(text, file=sys.stderr, flush=True)

    # Rows are printed as they finish (markdown and csv); json at the end.
    if args.format == "markdown":
        print(f"gmm.jax.ragged_dot vs jax.lax.ragged_dot, f32, CPU, {threads} threads "
              f"(JAX {jax.__version__}), median of {args.repeat}")
        print()
        print("| g | m | k | n | gmm alone ms | gmm via JAX ms | jax.lax ms | gmm via JAX GFLOP/s "
              "| jax.lax GFLOP/s | speedup, gmm alone | speedup, gmm via JAX |")
        print("|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    elif args.format == "csv":
        print(",".join(columns), flush=True)
    rows = []
    for i, (g, m, k, n) in enumerate(shapes, 1):
        shape = f"[{i}/{len(shapes)}] g={g} m={m} k={k} n={n}"
        status(f"{shape}: compiling and comparing gmm with jax.lax")
        lhs = jnp.asarray(rng.standard_normal((m, k)), jnp.float32)
        rhs = jnp.asarray(rng.standard_normal((g, k, n)), jnp.float32)
        sizes = jnp.full((g,), m // g, jnp.int32).at[-1].add(m - (m // g) * g)
        ours, theirs = gmm_fn(lhs, rhs, sizes), jax_fn(lhs, rhs, sizes)
        scale = float(jnp.max(jnp.abs(theirs)))
        error = float(jnp.max(jnp.abs(ours - theirs)))
        if error > 1e-4 * scale:
            sys.exit(f"g={g} m={m} k={k} n={n}: gmm and jax differ by {error}")
        status(f"{shape}: timing gmm via JAX, jax.lax and gmm alone")
        t_gmm = median_seconds(gmm_fn, (lhs, rhs, sizes), args.warmup, args.repeat)
        t_jax = median_seconds(jax_fn, (lhs, rhs, sizes), args.warmup, args.repeat)
        t_alone = gmm_alone_seconds(lhs, rhs, sizes, args.repeat)
        flops = 2.0 * m * k * n
        r = {
            "g": g, "m": m, "k": k, "n": n,
            "gmm_alone_ms": t_alone * 1e3,
            "gmm_ms": t_gmm * 1e3, "jax_ms": t_jax * 1e3,
            "gmm_gflops": flops / t_gmm / 1e9, "jax_gflops": flops / t_jax / 1e9,
            "speedup_alone": t_jax / t_alone,
            "speedup": t_jax / t_gmm,
        }
        rows.append(r)
        if args.format == "markdown":
            print(f"| {r['g']} | {r['m']} | {r['k']} | {r['n']} | {r['gmm_alone_ms']:.2f} | "
                  f"{r['gmm_ms']:.2f} | {r['jax_ms']:.2f} | {r['gmm_gflops']:.1f} | "
                  f"{r['jax_gflops']:.1f} | {r['speedup_alone']:.1f}x | {r['speedup']:.1f}x |",
                  flush=True)
        elif args.format == "csv":
            print(",".join(f"{r[c]:.4g}" if isinstance(r[c], float) else str(r[c])
                           for c in columns), flush=True)
    # The per-call overhead: a call with no rows.
    status("timing the FFI overhead (calls with no rows)")
    empty = (jnp.zeros((0, 64), jnp.float32), jnp.zeros((8, 64, 64), jnp.float32),
             jnp.zeros((8,), jnp.int32))
    overhead = median_seconds(gmm_fn, empty, 10, max(args.repeat, 200))
    if args.format == "json":
        print(json.dumps({"threads": threads, "ffi_overhead_us": overhead * 1e6, "rows": rows}, indent=1))
    elif args.format == "csv":
        print(f"# ffi_overhead_us,{overhead * 1e6:.1f}")
    else:
        print()
        print(f"FFI overhead per call (jitted gmm call with m = 0): {overhead * 1e6:.1f} us")
    return 0

if __name__ == "__main__":
    sys.exit(main())
