#!/usr/bin/env python3
"""Registers, spills, shared memory and occupancy of gmm's tile kernel.

For each kernel configuration (element type, tile, warps) and each chip,
compiles one ragged dot through `gmm-opt --gmm-to-ptx`, assembles the tile
kernel's PTX with `ptxas -v`, and prints what ptxas reports with the
occupancy that follows from it (resident blocks per SM, limited by
registers, shared memory and threads; the SM's limits are NVIDIA's for the
chip). Needs no GPU.

    bench/gpu/ptxas-table.py [--gmm-opt build/bin/gmm-opt] [--ptxas ptxas]
        [--chips sm_80,sm_90,sm_90a] [--format markdown|csv]

Without --configs the rows are the configurations gmm-configure's heuristic
picks (f16/bf16: 128x128x32 on 2x4 warps; f32: 128x128x16 on 2x4, 2 stages),
a few smaller tiles it picks warps for, 3- and 4-stage pipelines (the
128x128 ones in dynamic shared memory), and the largest tiles, 128x256 and
256x128 on 8 warps, which a configuration can name and the heuristic does
not pick. For sm_90a the rows are the Hopper (wgmma) kernel's: 128 x 256 x
64 and 128 x 128 x 64 in the heuristic's stages and in fewer, on 384
threads (a producer and two consumer warpgroups).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Per-SM limits (CUDA C++ Programming Guide, compute capabilities 8.0 and
# 9.0): 64 Ki 32-bit registers, registers allocated per warp in units of 256
# (8 per thread), shared memory usable by blocks (with 1 KiB reserved per
# block), resident threads and blocks.
SM_LIMITS = {
    "sm_80": dict(regs=65536, smem=167936, threads=2048, blocks=32),
    "sm_90": dict(regs=65536, smem=233472, threads=2048, blocks=32),
    "sm_90a": dict(regs=65536, smem=233472, threads=2048, blocks=32),
}

DEFAULT_CONFIGS = [
    # (element type, tile m, n, k, warps m, n, stages); 0: the heuristic's.
    ("bf16", 128, 128, 32, 0, 0, 0),
    ("f16", 128, 128, 32, 0, 0, 0),
    ("f32", 128, 128, 16, 0, 0, 0),
    ("bf16", 64, 64, 32, 0, 0, 0),
    ("bf16", 64, 64, 32, 0, 0, 3),
    ("bf16", 64, 64, 32, 0, 0, 4),
    ("bf16", 128, 128, 32, 0, 0, 3),
    ("bf16", 128, 128, 32, 0, 0, 4),
    ("bf16", 32, 32, 16, 0, 0, 0),
    ("f32", 64, 64, 16, 0, 0, 0),
    # The largest tiles, chosen by hand: 64 x 64 warp tiles on 8 warps.
    ("bf16", 128, 256, 32, 2, 4, 0),
    ("bf16", 256, 128, 32, 4, 2, 3),
]

# The Hopper kernel's rows (sm_90a; the heuristic picks it for these).
HOPPER_CONFIGS = [
    ("bf16", 128, 256, 64, 0, 0, 0),
    ("f16", 128, 256, 64, 0, 0, 0),
    ("bf16", 128, 256, 64, 0, 0, 3),
    ("bf16", 128, 256, 64, 0, 0, 2),
    ("bf16", 128, 128, 64, 0, 0, 0),
    ("bf16", 128, 128, 64, 0, 0, 4),
]

MODULE = """func.func @rd(%lhs: tensor<1024x512x{t}>, %rhs: tensor<8x512x512x{t}>, %gs: tensor<8xi32>) -> tensor<1024x512xf32> {{
  %0 = gmm.ragged_dot %lhs, %rhs, %gs dimension_numbers = <lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : tensor<1024x512x{t}>, tensor<8x512x512x{t}>, tensor<8xi32> -> tensor<1024x512xf32>
  return %0 : tensor<1024x512xf32>
}}
"""


def parse_configs(text):
    configs = []
    for item in text.split(","):
        m = re.fullmatch(
            r"(bf16|f16|f32):(\d+)x(\d+)x(\d+)(?:@(\d+)x(\d+))?(?:/(\d+))?",
            item)
        if not m:
            sys.exit(f"ptxas-table: bad configuration '{item}' "
                     "(expected e.g. bf16:128x128x32@2x4/2)")
        t, a, b, c, wm, wn, st = m.groups()
        configs.append((t, int(a), int(b), int(c), int(wm or 0), int(wn or 0),
                        int(st or 0)))
    return configs


def compile_config(gmm_opt, ptxas, chip, config, work):
    t, tm, tn, tk, wm, wn, st = config
    source = os.path.join(work, "rd.mlir")
    with open(source, "w") as f:
        f.write(MODULE.format(t=t))
    out = os.path.join(work, f"{t}-{tm}x{tn}x{tk}-{wm}x{wn}-{st}-{chip}")
    os.makedirs(out, exist_ok=True)
    kernel = f"tile-m={tm} tile-n={tn} tile-k={tk} stages={st}"
    if wm:
        kernel += f" warps-m={wm} warps-n={wn}"
    options = f"chip={chip} ptx-dir={out} {kernel}"
    configured = subprocess.run(
        [gmm_opt, source, "--gmm-check-sizes", "--gmm-normalize",
         f"--gmm-configure=target=gpu chip={chip} {kernel}"],
        capture_output=True, text=True)
    if configured.returncode:
        return {"error": configured.stderr.strip().splitlines()[0]}
    config_text = re.search(r"#gmm\.kernel_config<[^>]*>", configured.stdout).group(0)
    warps = re.search(r"warps = \[(\d+), (\d+)\]", config_text)
    threads = int(warps.group(1)) * int(warps.group(2)) * 32
    if "mma = wgmma" in config_text:
        # The consumer warpgroups and the producer's.
        threads += 128
    run = subprocess.run([gmm_opt, source, f"--gmm-to-ptx={options}"],
                         capture_output=True, text=True)
    if run.returncode:
        return {"error": run.stderr.strip().splitlines()[0]}
    # Above 48 KiB the buffer is dynamic shared memory, which ptxas does not
    # count: its size is the launch's.
    dynamic = re.search(r"gpu.launch_func .*dynamic_shared_memory_size "
                        r"%(\w+)", run.stdout)
    dynamic_bytes = 0
    if dynamic:
        value = re.search(r"%" + dynamic.group(1) +
                          r" = llvm.mlir.constant\((\d+) : i32\)",
                          run.stdout)
        dynamic_bytes = int(value.group(1)) if value else 0
    # The tile kernel is the one with barriers (the metadata kernels are
    # single-thread loops without).
    rows = []
    for name in sorted(os.listdir(out)):
        report = subprocess.run([ptxas, f"-arch={chip}", "-v",
                                 os.path.join(out, name), "-o", os.devnull],
                                capture_output=True, text=True)
        text = report.stdout + report.stderr
        used = re.search(r"Used (\d+) registers, used (\d+) barriers"
                         r"(?:, (\d+) bytes smem)?", text)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads",
                          text)
        if used and int(used.group(2)) > 0:
            rows.append(dict(regs=int(used.group(1)),
                             smem=int(used.group(3) or 0),
                             spill_stores=int(spill.group(1)),
                             spill_loads=int(spill.group(2))))
    if len(rows) != 1:
        return {"error": f"expected one tile kernel, found {len(rows)}"}
    row = rows[0]
    row["dynamic"] = dynamic_bytes > 0
    if dynamic_bytes:
        # ptxas counts the extern dynamic array's declaration as 1 byte.
        row["smem"] = dynamic_bytes
    row["config"] = config_text
    row["threads"] = threads
    limits = SM_LIMITS[chip]
    regs_per_warp = ((row["regs"] + 7) // 8 * 8) * 32
    warps_per_block = threads // 32
    by_regs = (limits["regs"] // regs_per_warp) // warps_per_block
    by_smem = (limits["smem"] // (row["smem"] + 1024)) if row["smem"] else limits["blocks"]
    by_threads = limits["threads"] // threads
    blocks = min(by_regs, by_smem, by_threads, limits["blocks"])
    row["blocks"] = blocks
    row["limit"] = min(("registers", by_regs), ("shared memory", by_smem),
                       ("threads", by_threads),
                       ("blocks", limits["blocks"]), key=lambda p: p[1])[0]
    row["occupancy"] = blocks * threads / limits["threads"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gmm-opt", default="build/bin/gmm-opt")
    parser.add_argument("--ptxas", default=shutil.which("ptxas")
                        or "/usr/local/cuda/bin/ptxas")
    parser.add_argument("--chips", default="sm_80,sm_90")
    parser.add_argument("--configs",
                        help="e.g. bf16:128x128x32@2x4,f32:64x64x16/3 "
                             "(@warps, /stages; the heuristic's when left out)")
    parser.add_argument("--format", choices=["markdown", "csv"],
                        default="markdown")
    args = parser.parse_args()
    for tool in (args.gmm_opt, args.ptxas):
        if not os.path.exists(tool):
            sys.exit(f"ptxas-table: {tool} not found")
    configs = parse_configs(args.configs) if args.configs else None
    chips = args.chips.split(",")
    for chip in chips:
        if chip not in SM_LIMITS:
            sys.exit(f"ptxas-table: no SM limits for {chip} "
                     f"(known: {', '.join(SM_LIMITS)})")
    header = ["chip", "inputs", "configuration", "threads", "registers", "spill stores",
              "spill loads", "smem bytes", "blocks/SM", "limited by",
              "occupancy"]
    lines = []
    with tempfile.TemporaryDirectory() as work:
        for chip in chips:
            chip_configs = configs or (HOPPER_CONFIGS if chip == "sm_90a"
                                       else DEFAULT_CONFIGS)
            for config in chip_configs:
                row = compile_config(args.gmm_opt, args.ptxas, chip, config,
                                     work)
                if "error" in row:
                    lines.append([chip, config[0],
                                  f"{config[1]}x{config[2]}x{config[3]}",
                                  row["error"]] + [""] * 7)
                    continue
                lines.append([chip, config[0],
                              row["config"].replace("#gmm.kernel_config", ""),
                              str(row["threads"]), str(row["regs"]),
                              str(row["spill_stores"]), str(row["spill_loads"]),
                              str(row["smem"]) + (" (dynamic)" if row["dynamic"] else ""),
                              str(row["blocks"]), row["limit"],
                              f"{row['occupancy']:.0%}"])
    if args.format == "csv":
        print(",".join(header))
        for line in lines:
            print(",".join(f'"{cell}"' if "," in cell else cell for cell in line))
        return
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for line in lines:
        print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
