"""Combines runs of `gmm-bench-cpu --format=json` into one JSON of the same
form: per row (shape, group sizes, mode, operand type), the median run's
figures by ratio, and `ratios`, every run's ratio in order. A bf16 row's
`gmm_vs_f32` is the median of its gmm GFLOP/s over the runs divided by the
median of its f32 row's (one run's pair would carry that run's noise on
either side), and `gmm_vs_f32_runs` lists every run's own. Rows missing from
a run are combined over the runs that have them. The machine's fields (CPU,
OpenBLAS, threads, peaks) come from the first run.

    python3 bench/combine-runs.py run1.json run2.json run3.json > combined.json
    build/venv/bin/python bench/plot-bench.py combined.json chart.png
"""

import json
import statistics
import sys


def key(row):
    return (row["shape"], row["sizes"], row["mode"], row.get("dtype", "f32"))


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    runs = []
    for path in argv[1:]:
        with open(path) as f:
            runs.append(json.load(f))
    order, by_key = [], {}
    for run in runs:
        for row in run["rows"]:
            k = key(row)
            if k not in by_key:
                order.append(k)
                by_key[k] = []
            by_key[k].append(row)
    rows = []
    for k in order:
        same = by_key[k]
        # The run whose ratio is the median (the lower one of two middles),
        # so that a row's times, throughputs and ratio come from one run.
        ranked = sorted(same, key=lambda r: r["ratio"])
        median = dict(ranked[(len(ranked) - 1) // 2])
        median["ratios"] = [r["ratio"] for r in same]
        median["matches"] = all(r.get("matches", True) for r in same)
        rows.append(median)
    # gmm's own bf16 over f32, from the medians of gmm's GFLOP/s.
    for row in rows:
        if row.get("gmm_vs_f32") is None:
            continue
        f32 = by_key.get(key(row)[:3] + ("f32",))
        if not f32:
            continue
        same = by_key[key(row)]
        row["gmm_vs_f32_runs"] = [r.get("gmm_vs_f32") for r in same]
        row["gmm_vs_f32"] = round(
            statistics.median(r["gmm_gflops"] for r in same)
            / statistics.median(r["gmm_gflops"] for r in f32),
            3,
        )
    combined = {k: v for k, v in runs[0].items() if k != "rows"}
    combined["note"] = (
        f"median of {len(runs)} runs of gmm-bench-cpu --format=json (each "
        "itself the median of its timed calls) by ratio; ratios lists every "
        "run's ratio; gmm_vs_f32 is the ratio of gmm's median GFLOP/s"
    )
    combined["rows"] = rows
    ratios = [r["ratio"] for r in rows]
    print(
        f"{len(rows)} rows from {len(runs)} runs; median ratio "
        f"{statistics.median(ratios):.2f}",
        file=sys.stderr,
    )
    json.dump(combined, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv)
