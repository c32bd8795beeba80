#!/usr/bin/env python3
"""Merges gmm-bench-gpu's JSON with its peers' and writes a Markdown report.

    python3 bench/gpu/report.py gmm.json [peers.json ...] --json merged.json --markdown table.md

gmm.json is what `gmm-bench-gpu --json=FILE` writes (sides gmm, cublas_loop,
cublas_grouped); each peers.json is what `bench/gpu/bench_peers.py` writes
(sides torch_grouped_mm, jax_ragged_dot). Rows are matched by (shape, mode,
result, distribution); a peers row without a match in gmm.json is added as a
row of its own. Writes:

- --json: gmm.json's top-level fields, the peers' versions and dense peak,
  every row with all its sides, and a `summary` (gmm's TFLOP/s and share of
  the measured dense peak; per peer the median, min and max of gmm/peer over
  the rows where both have figures and how many are >= 1; the failed checks);
- --markdown (and stdout): a header (device, commit, date, the measured dense
  bf16 peaks), one table per (mode, result) with one row per (shape,
  distribution), then the summary per peer.

In the tables `gmm/<peer>` is gmm's TFLOP/s over the peer's (above 1: gmm
is faster), `% peak` gmm's TFLOP/s over gmm-bench-gpu's measured cuBLAS
8192^3 (torch's when gmm.json has none), and `check` says "ok (largest
error)", "FAIL: side=error" for a side whose result was wrong, and the
sides that were n/a or skipped with their reasons shortened.
"""

import argparse
import datetime
import json
import statistics
import sys

NAMES = {
    "gmm": "gmm",
    "cublas_loop": "cuBLAS loop",
    "cublas_grouped": "cuBLAS grouped",
    "torch_grouped_mm": "torch._grouped_mm",
    "jax_ragged_dot": "jax.lax.ragged_dot",
}
MODES = {1: "mode 1 (MoE forward: [m,k] x [g,k,n] -> [m,n])",
         2: "mode 2 (weight gradient: [m,k]^T [m,n] -> [g,k,n])"}
KEY_FIELDS = ("shape", "mode", "result", "distribution")
NOTE_CHARS = 48


def name(side):
    return NAMES.get(side, side)


def key_of(row):
    return tuple(row.get(field) for field in KEY_FIELDS)


def tflops_of(row, side):
    """The side's TFLOP/s in this row, or None."""
    figures = row.get("sides", {}).get(side) or {}
    if figures.get("tflops") is not None:
        return float(figures["tflops"])
    if figures.get("ms") and row.get("flops"):
        return float(row["flops"]) / (float(figures["ms"]) * 1e9)
    return None


def ratio(row, peer):
    mine, theirs = tflops_of(row, "gmm"), tflops_of(row, peer)
    return mine / theirs if mine is not None and theirs else None


def merge(base, peers_docs, peer_files):
    """gmm.json's document with the peers' sides merged into its rows."""
    merged = {key: value for key, value in base.items() if key != "rows"}
    rows = [dict(row, sides=dict(row.get("sides", {}))) for row in base.get("rows", [])]
    merged["peers"] = []
    index = {}
    for position, row in enumerate(rows):
        index.setdefault(key_of(row), []).append(position)
    for path, doc in zip(peer_files, peers_docs):
        merged["peers"].append({key: doc.get(key) for key in ("tool", "torch", "jax", "peer_device",
                                                              "dense_peak_torch", "repeat", "warmup")}
                               | {"file": path})
        if doc.get("dense_peak_torch") and not merged.get("dense_peak_torch"):
            merged["dense_peak_torch"] = doc["dense_peak_torch"]
        taken = {}
        for peer_row in doc.get("rows", []):
            key = key_of(peer_row)
            candidates = index.get(key, [])
            nth = taken.get(key, 0)
            taken[key] = nth + 1
            if nth < len(candidates):
                target = rows[candidates[nth]]
                for field in ("g", "m", "k", "n"):
                    if peer_row.get(field) != target.get(field):
                        print(f"report.py: warning: {path}: row {key}: {field} = {peer_row.get(field)}, "
                              f"gmm.json has {target.get(field)}", file=sys.stderr)
            else:
                target = {field: value for field, value in peer_row.items() if field != "sides"}
                target["sides"] = {}
                rows.append(target)
                index.setdefault(key, []).append(len(rows) - 1)
            for side, figures in peer_row.get("sides", {}).items():
                if side in target["sides"]:
                    print(f"report.py: warning: {path}: row {key}: side {side} given twice, "
                          f"the later one is kept", file=sys.stderr)
                target["sides"][side] = figures
    merged["rows"] = rows
    return merged


def peak(doc):
    """(TFLOP/s, what) of the dense peak that `% peak` divides by."""
    for field, what in (("dense_peak", "cuBLAS"), ("dense_peak_torch", "torch.matmul")):
        figures = doc.get(field) or {}
        if figures.get("tflops"):
            return float(figures["tflops"]), what
    return None, None


def side_order(rows):
    seen = []
    for row in rows:
        for side in row.get("sides", {}):
            if side not in seen:
                seen.append(side)
    known = [side for side in NAMES if side in seen]
    return known + [side for side in seen if side not in NAMES]


def summarize(doc):
    rows = doc["rows"]
    peers = [side for side in side_order(rows) if side != "gmm"]
    summary = {"peers": {}, "failures": []}
    gmm = [value for value in (tflops_of(row, "gmm") for row in rows) if value is not None]
    top, _ = peak(doc)
    if gmm:
        summary["gmm"] = {"rows": len(gmm), "best_tflops": round(max(gmm), 2),
                          "median_tflops": round(statistics.median(gmm), 2)}
        if top:
            summary["gmm"]["best_peak_percent"] = round(100 * max(gmm) / top, 1)
            summary["gmm"]["median_peak_percent"] = round(100 * statistics.median(gmm) / top, 1)
    for peer in peers:
        values = [value for value in (ratio(row, peer) for row in rows) if value is not None]
        summary["peers"][peer] = {"name": name(peer), "rows": len(values)}
        if values:
            summary["peers"][peer].update(median=round(statistics.median(values), 3),
                                          min=round(min(values), 3), max=round(max(values), 3),
                                          at_least_1=sum(value >= 1 for value in values))
    for row in rows:
        for side, figures in row.get("sides", {}).items():
            if figures.get("ok") is False:
                summary["failures"].append({**{field: row.get(field) for field in KEY_FIELDS},
                                            "side": side, "error": figures.get("error"),
                                            "note": figures.get("note", "")})
    return summary


def count_rows(count):
    return f"{count} row" + ("" if count == 1 else "s")


def number(value, digits):
    return "n/a" if value is None else f"{value:.{digits}f}"


def shorten(text):
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= NOTE_CHARS else text[:NOTE_CHARS - 3].rstrip() + "..."


def check_cell(row, sides):
    figures = {side: row["sides"][side] for side in sides if side in row.get("sides", {})}
    failed = [f"{name(side)}=" + ("n/a" if f.get("error") is None else f"{f['error']:.1e}")
              for side, f in figures.items() if f.get("ok") is False]
    passed = [f.get("error") for f in figures.values() if f.get("ok") is True and f.get("error") is not None]
    missing = [f"{name(side)}: {shorten(f.get('note') or 'no figures')}"
               for side, f in figures.items() if f.get("ok") is None]
    parts = []
    if failed:
        parts.append("FAIL: " + ", ".join(failed))
    elif passed:
        parts.append(f"ok ({max(passed):.1e})")
    return "; ".join(parts + missing) or "n/a"


def markdown(doc, summary):
    device = doc.get("device") or {}
    details = ", ".join(str(part) for part in (
        device.get("chip"), device.get("sms") and f"{device['sms']} SMs",
        device.get("driver") and f"driver {device['driver']}",
        device.get("cublas") and f"cuBLAS {device['cublas']}") if part)
    date = doc.get("date") or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"# gmm on {device.get('name', 'an unnamed device')} against its peers", "",
             f"- device: {device.get('name', 'n/a')}" + (f" ({details})" if details else ""),
             f"- commit: {doc.get('commit', 'n/a')}; date: {date}"]
    peaks = []
    for field, what in (("dense_peak", "cuBLAS (gmm-bench-gpu)"), ("dense_peak_torch", "torch.matmul")):
        figures = doc.get(field) or {}
        if figures.get("tflops"):
            peaks.append(f"{what} {figures.get('m')}x{figures.get('n')}x{figures.get('k')}: "
                         f"{figures['tflops']:.1f} TFLOP/s ({figures.get('ms', 0):.3f} ms)")
    lines.append("- measured dense bf16 peak: " + ("; ".join(peaks) if peaks else "n/a"))
    runs = [f"gmm-bench-gpu repeat {doc.get('repeat', '?')}, warm-up {doc.get('warmup', '?')}"]
    for peer in doc.get("peers", []):
        versions = ", ".join(f"{lib} {peer[lib]}" for lib in ("torch", "jax") if peer.get(lib))
        runs.append(f"{peer['file']}: {versions or 'no libraries'}, repeat {peer.get('repeat', '?')}")
    lines.append("- runs: " + "; ".join(runs))
    top, top_what = peak(doc)
    rows = doc["rows"]
    for mode, result in sorted({(row.get("mode"), row.get("result")) for row in rows}, key=str):
        table = [row for row in rows if (row.get("mode"), row.get("result")) == (mode, result)]
        sides = side_order(table)
        peers = [side for side in sides if side != "gmm"]
        head = ["shape", "g", "m", "k", "n", "sizes"]
        for side in sides:
            head += [f"{name(side)} ms", f"{name(side)} TFLOP/s"]
        head += (["gmm % peak"] if "gmm" in sides else []) + [f"gmm/{name(peer)}" for peer in peers] + ["check"]
        align = ["---"] + ["---:"] * 4 + ["---"] + ["---:"] * (len(head) - 7) + ["---"]
        lines += ["", f"## {MODES.get(mode, f'mode {mode}')}, {result} result", "",
                  "| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
        for row in table:
            cells = [str(row.get(field, "")) for field in ("shape", "g", "m", "k", "n", "distribution")]
            for side in sides:
                figures = row.get("sides", {}).get(side) or {}
                cells += [number(figures.get("ms"), 3), number(tflops_of(row, side), 1)]
            if "gmm" in sides:
                mine = tflops_of(row, "gmm")
                cells.append(number(100 * mine / top if mine is not None and top else None, 1))
            cells += [number(ratio(row, peer), 2) for peer in peers]
            cells.append(check_cell(row, sides))
            lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Summary", ""]
    if "gmm" in summary:
        gmm = summary["gmm"]
        share = (f" ({gmm['best_peak_percent']}% of {top_what}'s measured {top:.1f}), median "
                 f"{gmm['median_tflops']:.1f} ({gmm['median_peak_percent']}%)" if top
                 else f", median {gmm['median_tflops']:.1f}")
        lines.append(f"- gmm: best {gmm['best_tflops']:.1f} TFLOP/s{share}, over {count_rows(gmm['rows'])}.")
    for peer, stats in summary["peers"].items():
        if stats["rows"]:
            lines.append(f"- gmm / {stats['name']}: median {stats['median']:.2f} (min {stats['min']:.2f}, "
                         f"max {stats['max']:.2f}) over {count_rows(stats['rows'])}; {stats['at_least_1']} of "
                         f"{stats['rows']} at or above 1.")
        else:
            lines.append(f"- gmm / {stats['name']}: no row where both have figures.")
    failures = summary["failures"]
    lines.append(f"- failed checks: {len(failures)}" + ("" if not failures else ": " + "; ".join(
        f"{name(f['side'])} on {f['shape']} mode {f['mode']} {f['result']} {f['distribution']}"
        for f in failures)) + ".")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gmm", help="the JSON file of gmm-bench-gpu --json")
    parser.add_argument("peers", nargs="*", help="JSON files of bench/gpu/bench_peers.py")
    parser.add_argument("--json", help="write the merged JSON here")
    parser.add_argument("--markdown", help="write the Markdown report here (it is printed in any case)")
    args = parser.parse_args()
    with open(args.gmm) as f:
        base = json.load(f)
    docs = []
    for path in args.peers:
        with open(path) as f:
            docs.append(json.load(f))
    doc = merge(base, docs, args.peers)
    doc["summary"] = summarize(doc)
    text = markdown(doc, doc["summary"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
