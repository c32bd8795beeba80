"""Draws gmm-bench-cpu's table as a PNG chart: per row (shape, group sizes,
mode, operand type), gmm's ratio to OpenBLAS, both sides' share of the
machine's peak for the row's type, and for bf16 rows gmm's ratio to its own
f32 row (the target is 1.6).

    build/bin/gmm-bench-cpu --format=json > bench.json
    build/venv/bin/pip install -r bench/requirements.txt   # matplotlib, once
    build/venv/bin/python bench/plot-bench.py bench.json bench/results/cpu-latest.png
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        run = json.load(f)
    rows = run["rows"]
    if not rows:
        sys.exit(f"{argv[1]}: no rows")
    labels = [
        f"{r['shape']}\n{r['sizes']}, mode {r['mode']}, {r.get('dtype', 'f32')}"
        for r in rows
    ]
    x = range(len(rows))
    vs_f32 = [r.get("gmm_vs_f32") for r in rows]
    with_vs_f32 = any(v is not None for v in vs_f32)
    panels = 3 if with_vs_f32 else 2
    fig, axes = plt.subplots(
        panels, 1, figsize=(max(8, 0.8 * len(rows)), 4 * panels), sharex=True
    )
    top, bottom = axes[0], axes[-1]
    ratios = [r["ratio"] for r in rows]
    top.bar(x, ratios, color=["tab:green" if v >= 1 else "tab:red" for v in ratios])
    top.axhline(1.0, color="black", linewidth=1)
    top.set_ylabel("gmm / OpenBLAS (GFLOP/s)")
    bf16_peak = run.get("bf16_peak_gflops")
    top.set_title(
        f"gmm-bench-cpu: {run['cpu']}, {run['threads']} threads\nf32 peak "
        f"{run['f32_peak_gflops']:.0f} GFLOP/s ({run['f32_peak_instruction']})"
        + (f", bf16 peak {bf16_peak:.0f} GFLOP/s" if bf16_peak else ""),
        fontsize=10,
    )
    for i, v in enumerate(ratios):
        top.annotate(f"{v:.2f}", (i, v), ha="center", va="bottom", fontsize=8)
    width = 0.4
    bottom.bar([i - width / 2 for i in x], [100 * r["gmm_share_of_peak"] for r in rows],
               width, label="gmm")
    bottom.bar([i + width / 2 for i in x], [100 * r["openblas_share_of_peak"] for r in rows],
               width, label="OpenBLAS")
    bottom.set_ylabel("% of the peak of the row's type")
    if with_vs_f32:
        middle = axes[1]
        values = [v if v is not None else 0 for v in vs_f32]
        middle.bar(x, values, color=["tab:blue" if v is not None else "none" for v in vs_f32])
        middle.axhline(1.6, color="black", linewidth=1, linestyle="--")
        middle.set_ylabel("gmm bf16 / gmm f32 (GFLOP/s)")
        for i, v in enumerate(vs_f32):
            if v is not None:
                middle.annotate(f"{v:.2f}", (i, v), ha="center", va="bottom", fontsize=8)
    bottom.legend()
    bottom.set_xticks(list(x))
    bottom.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    print(f"wrote {argv[2]} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
