"""Draws gmm-bench-cpu's table as a PNG chart: per row (shape, group sizes,
mode), gmm's ratio to OpenBLAS and both sides' share of the machine's f32
peak.

    build/bin/gmm-bench-cpu --format=json > bench.json
    build/venv/bin/pip install -r bench/requirements.txt   # matplotlib, once
    build/venv/bin/python bench/plot-bench.py bench.json bench/cpu-latest.png
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
        f"{r['shape']}\n{r['sizes']}, mode {r['mode']}" for r in rows
    ]
    x = range(len(rows))
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(max(8, 1.1 * len(rows)), 8), sharex=True
    )
    ratios = [r["ratio"] for r in rows]
    top.bar(x, ratios, color=["tab:green" if v >= 1 else "tab:red" for v in ratios])
    top.axhline(1.0, color="black", linewidth=1)
    top.set_ylabel("gmm / OpenBLAS (GFLOP/s)")
    top.set_title(
        f"gmm-bench-cpu: {run['cpu']}, {run['threads']} threads\nf32 peak "
        f"{run['f32_peak_gflops']:.0f} GFLOP/s ({run['f32_peak_instruction']})",
        fontsize=10,
    )
    for i, v in enumerate(ratios):
        top.annotate(f"{v:.2f}", (i, v), ha="center", va="bottom", fontsize=8)
    width = 0.4
    bottom.bar([i - width / 2 for i in x], [100 * r["gmm_share_of_peak"] for r in rows],
               width, label="gmm")
    bottom.bar([i + width / 2 for i in x], [100 * r["openblas_share_of_peak"] for r in rows],
               width, label="OpenBLAS")
    bottom.set_ylabel("% of the f32 peak")
    bottom.legend()
    bottom.set_xticks(list(x))
    bottom.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    print(f"wrote {argv[2]} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
