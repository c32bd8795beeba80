#!/usr/bin/env bash
# The GPU machine's one script: gmm's GPU tests on a real GPU and the
# benchmark against every peer, in one run of at most 8 minutes, from a kit
# that the development machine builds (no MLIR, no LLVM and nothing to
# compile on the GPU machine). See README.md, "On a GPU machine".
#
#   scripts/gpu-check.sh pack [--quick]   on the development machine: build,
#                                         compile the kit's libraries with
#                                         gmm-aot into gpu-kit/ (ignored by
#                                         git), check that it stays under the
#                                         upload limit, print the command to
#                                         run on the GPU machine
#   scripts/gpu-check.sh run OUT [--sim]  on the GPU machine, from the
#                                         repository root with gpu-kit/
#                                         beside it: the tests, the sanitizer
#                                         runs, the SASS facts and the
#                                         benchmark; JSON, logs and a
#                                         Markdown summary go to OUT
#
# --quick packs small shapes and few configurations with PTX instead of
# cubins, so that `run OUT --sim` runs the whole script on gmm's simulated
# GPU (no timings, no cuBLAS, no peers): a rehearsal that costs no GPU time.
#
# Environment (pack): GMM_BUILD_DIR (default build/), GMM_KIT_DIR (default
# gpu-kit/), GMM_KIT_CHIP (default sm_90a: the Hopper kernel where it
# applies; --quick: sm_90, which the simulated GPU runs), GMM_KIT_LIMIT_MB (default 48:
# the working tree travels too, under 64 MiB in all), GMM_KIT_NO_BUILD=1
# (the build is up to date: no set-up, no ninja; the test of this script).
# Environment (run): GMM_CHECK_BENCH_SECONDS (default 110) and
# GMM_CHECK_PEERS_SECONDS (default 110), the benchmark's time budgets;
# GMM_CHECK_PROFILE=0 skips the Nsight Compute profile of the Hopper kernel.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kit=${GMM_KIT_DIR:-$repo/gpu-kit}

usage() {
  echo "usage: $0 pack [--quick] | run OUT [--sim]" >&2
  exit 2
}

# The differential sets that run on the GPU: name, seed, configurations,
# gmm-difftest options (comma-separated, - for none), gmm-to-ptx options (as
# the simulated sets of test/Differential/CMakeLists.txt, fewer of each).
# The hopper sets draw the problems the wgmma kernel takes (sm_90a kits);
# their options must suit the sm_80 kernel too, which takes the one in ten
# with an init (hopper-n128: the heuristic's 7 stages for wgmma, 2 else).
difftest_sets() {
  if [ "$quick" = 1 ]; then
    echo "default 71 12 -"
    echo "adversarial 73 8 --adversarial"
    return
  fi
  echo "default 71 60 -"
  echo "adversarial 73 30 --adversarial"
  echo "wide 74 25 - tile-m=128 tile-n=256 tile-k=32 warps-m=2 warps-n=4 mma=mma-sync"
  echo "narrow 75 25 - tile-m=128 tile-n=128 tile-k=32 mma=mma-sync"
  echo "stages 76 25 - tile-m=64 tile-n=64 tile-k=16 stages=4 mma=mma-sync"
  if [ "$hopper" = 1 ]; then
    echo "hopper 81 60 --family=hopper,--max-dim=700"
    echo "hopper-adversarial 83 30 --family=hopper,--max-dim=300,--adversarial"
    echo "hopper-n128 84 30 --family=hopper,--max-dim=500 tile-n=128"
    echo "hopper-s2 85 20 --family=hopper,--max-dim=400 stages=2"
  fi
}

pack() {
  quick=0
  [ "${1:-}" = --quick ] && quick=1
  local build=${GMM_BUILD_DIR:-$repo/build}
  local chip=${GMM_KIT_CHIP:-sm_90a}
  [ "$quick" = 1 ] && chip=${GMM_KIT_CHIP:-sm_90}
  hopper=0
  [ "$chip" = sm_90a ] && hopper=1
  local limit=${GMM_KIT_LIMIT_MB:-48}
  # Cubins: the driver loads them as they are (PTX would be compiled by the
  # driver at load, minutes for these libraries). The simulated GPU runs
  # PTX only.
  local format=bin
  [ "$quick" = 1 ] && format=isa
  set -e
  if [ "${GMM_KIT_NO_BUILD:-0}" != 1 ]; then
    "$repo/scripts/setup.sh" >/dev/null
    ninja -C "$build" gmm-aot gmm-difftest gmm-aot-difftest gmm-bench-gpu \
      gmm-opt gmm_cuda_runtime gmm_cuda_sim >/dev/null
  fi
  rm -rf "$kit"
  mkdir -p "$kit/bin" "$kit/lib" "$kit/src" "$kit/ptx"
  cp "$build/bin/gmm-aot-difftest" "$build/bin/gmm-bench-gpu" "$kit/bin/"
  cp -L "$build/lib/libgmm_cuda_runtime.so" "$kit/lib/"
  # The rehearsal's GPU, which the runtime finds beside itself.
  [ "$quick" = 1 ] && cp -L "$build/lib/libgmm_cuda_sim.so" "$kit/lib/"
  local aot=("$build/bin/gmm-aot" --target=cuda "--chip=$chip")

  echo "== the benchmark's library ($format)"
  local shapes=()
  [ "$quick" = 1 ] && shapes=(--shapes=4x96x64x48,8x200x40x72)
  "$build/bin/gmm-bench-gpu" --emit-module="$kit/src/bench.mlir" \
    "${shapes[@]}"
  "${aot[@]}" "$kit/src/bench.mlir" --options="format=$format" \
    -o "$kit/lib/libgmm-bench.so"
  # Variants to compare with the heuristic on the same run (bf16 results):
  # with the Hopper kernel, other raster bands (the 2026-11-28 run compared
  # the mma.sync kernel, 128-column tiles and 3 stages: bench/README.md);
  # else the sm_80 design's former 128 x 128 tile.
  "$build/bin/gmm-bench-gpu" --emit-module="$kit/src/bench-variant.mlir" \
    --results=bf16 "${shapes[@]}"
  : >"$kit/bench-variants.txt"
  variant() {
    "${aot[@]}" "$kit/src/bench-variant.mlir" \
      --options="format=$format $2" -o "$kit/lib/libgmm-bench-$1.so"
    echo "$1 $2" >>"$kit/bench-variants.txt"
  }
  if [ "$hopper" = 1 ]; then
    # The blocks' order over the tiles (the heuristic: bands of 8 visits):
    # one band of all the visits (the order before raster bands), column
    # tiles fastest, and bands of 32.
    variant raster-none "raster=2147483647"
    variant raster-1 "raster=1"
    variant raster-32 "raster=32"
  else
    variant 128x128 "tile-m=128 tile-n=128 tile-k=32"
  fi
  # The kernels as PTX, for ptxas -v here and the SASS there.
  "$build/bin/gmm-opt" "$kit/src/bench.mlir" \
    --gmm-to-ptx="chip=$chip ptx-dir=$kit/ptx" -o /dev/null
  if command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
    local ptxas
    ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
    : >"$kit/ptxas.txt"
    for p in "$kit"/ptx/*.ptx; do
      local name
      name=$(basename "$p" .ptx)
      echo "== $name" >>"$kit/ptxas.txt"
      "$ptxas" -v -arch="$chip" "$p" -o "$kit/ptx/$name.cubin" \
        >>"$kit/ptxas.txt" 2>&1
    done
  fi

  echo "== the C program of test/AOT, against a GPU library"
  "${aot[@]}" "$repo/test/AOT/Inputs/moe.mlir" --options="format=$format" \
    -o "$kit/lib/libmoe.so"
  /usr/lib/llvm-22/bin/clang -std=c11 -O1 -DGMM_TEST_CUDA -I"$kit/lib" \
    "$repo/test/AOT/Inputs/moe_main.c" -L"$kit/lib" -lmoe -lgmm_cuda_runtime \
    -Wl,-rpath,'$ORIGIN/../lib' -lm -o "$kit/bin/moe_main"

  # The kernels of unittests/Simulator/NvccKernels.cu on the GPU: the
  # simulator's test of nvcc's PTX (NvccKernelsTest.cpp) built against the
  # CUDA driver, with nvcc's PTX and, for the kit's chip, ptxas's cubins
  # (which it loads first; the PTX gives the parameter layouts and is the
  # fallback). Not with --quick: the rehearsal has no GPU to run it on.
  if [ "$quick" = 0 ]; then
    echo "== the nvcc kernels' tests on the GPU"
    if [ "${GMM_KIT_NO_BUILD:-0}" = 1 ] ||
      ninja -C "$build" GMMNvccKernelsOnGPU >/dev/null; then
      :
    else
      echo "gpu-check: warning: GMMNvccKernelsOnGPU does not build (no" \
        "nvcc?): the kit runs without it" >&2
    fi
    if [ -x "$build/unittests/bin/GMMNvccKernelsOnGPU" ]; then
      cp "$build/unittests/bin/GMMNvccKernelsOnGPU" "$kit/bin/"
      mkdir -p "$kit/nvcc"
      local ptxas=/usr/local/cuda/bin/ptxas target arch
      command -v ptxas >/dev/null && ptxas=$(command -v ptxas)
      for target in sm_80 sm_90 sm_90a; do
        cp "$build/unittests/Simulator/NvccKernels.$target.ptx" "$kit/nvcc/"
        # The cubin for the kit's chip: sm_80 and sm_90 PTX for ${chip%a},
        # sm_90a PTX for sm_90a only.
        arch=${chip%a}
        [ "$target" = sm_90a ] && arch=$chip
        [ "$target" = sm_90a ] && [ "$chip" != sm_90a ] && continue
        [ -x "$ptxas" ] || continue
        "$ptxas" -arch="$arch" "$kit/nvcc/NvccKernels.$target.ptx" \
          -o "$kit/nvcc/NvccKernels.$target.cubin" 2>/dev/null ||
          rm -f "$kit/nvcc/NvccKernels.$target.cubin"
      done
    fi
  fi

  echo "== the differential sets"
  : >"$kit/difftest-sets.txt"
  while read -r name seed configs flags options; do
    [ "$flags" = - ] && flags=""
    "$build/bin/gmm-difftest" --pipeline=cuda "--seed=$seed" \
      "--configs=$configs" ${flags//,/ } \
      --emit-module="$kit/src/diff-$name.mlir"
    "${aot[@]}" "$kit/src/diff-$name.mlir" \
      --options="format=$format ${options:-}" -o "$kit/lib/libdiff-$name.so"
    echo "$name $seed $configs ${flags:--}" >>"$kit/difftest-sets.txt"
  done < <(difftest_sets)
  rm -rf "$kit/src"
  git -C "$repo" rev-parse --short HEAD >"$kit/commit.txt" 2>/dev/null ||
    echo unknown >"$kit/commit.txt"
  echo "$format $chip $quick" >"$kit/kit.txt"
  set +e

  local bytes
  bytes=$(du -sb "$kit" | cut -f1)
  local tree
  tree=$(git -C "$repo" ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 |
    cut -f1)
  echo "== $kit: $((bytes / 1024 / 1024)) MiB ($bytes bytes); the tracked" \
    "tree: $((tree / 1024 / 1024)) MiB"
  if [ "$bytes" -gt $((limit * 1024 * 1024)) ]; then
    echo "gpu-check: error: the kit is over ${limit} MiB" >&2
    exit 1
  fi
  echo "On the GPU machine, from the repository root (gpu-kit/ beside it):"
  echo "  scripts/gpu-check.sh run \$OUT"
  echo "With the device tool: run(command='scripts/gpu-check.sh run \$OUT'," \
    "carry=['gpu-kit'], timeout_s=540)"
}

# --- run ---------------------------------------------------------------

# step NAME SECONDS COMMAND...: runs COMMAND with a time limit, its output
# in $out/NAME.log; records the outcome for the summary.
step() {
  local name=$1 seconds=$2
  shift 2
  local start=$SECONDS status
  echo "== $name" >&2
  timeout --kill-after=10 "$seconds" "$@" >"$out/$name.log" 2>&1
  status=$?
  local verdict=passed
  if [ $status = 124 ] || [ $status = 137 ]; then
    verdict="TIMED OUT after ${seconds} s"
  elif [ $status != 0 ]; then
    verdict="FAILED (exit $status)"
  fi
  [ "$verdict" = passed ] || failures=$((failures + 1))
  printf -- '- %s: %s in %d s; %s\n' "$name" "$verdict" \
    $((SECONDS - start)) "$(tail -1 "$out/$name.log" | cut -c1-160)" \
    >>"$out/summary.md"
  tail -3 "$out/$name.log" >&2
  return 0
}

run() {
  out=${1:-}
  [ -n "$out" ] || usage
  local sim=0
  [ "${2:-}" = --sim ] && sim=1
  mkdir -p "$out"
  failures=0
  # The CUDA toolkit's tools (compute-sanitizer, cuobjdump) where the
  # machine has them off the PATH.
  for dir in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer \
    /opt/nvidia/nsight-compute/*; do
    [ -d "$dir" ] && PATH="$PATH:$dir"
  done
  if [ ! -f "$kit/kit.txt" ]; then
    echo "gpu-check: error: no kit in $kit: run '$0 pack' on the" \
      "development machine and carry gpu-kit/" >&2
    exit 1
  fi
  read -r format chip quick <"$kit/kit.txt"
  local device=(--device=gpu) env=()
  if [ "$sim" = 1 ]; then
    device=(--device=sim)
    env=(env "GMM_CUDA_DRIVER_LIBRARY=$kit/lib/libgmm_cuda_sim.so")
  fi
  {
    echo "# gpu-check: $(date -u '+%Y-%m-%d %H:%M UTC'), kit of commit" \
      "$(cat "$kit/commit.txt") ($format for $chip)"
    echo
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
      --format=csv,noheader 2>/dev/null | sed 's/^/- GPU: /'
    echo
  } >"$out/summary.md"
  nvidia-smi >"$out/nvidia-smi.txt" 2>&1

  # The tests, on the GPU. The C program comes first and briefly: with an
  # sm_90a kit it runs the wgmma kernel, and if that hangs (an mbarrier
  # phase never completing), the steps that run it are skipped rather than
  # each waiting out its limit.
  local hang=0
  step aot-c-program 30 "${env[@]}" "$kit/bin/moe_main"
  grep -q "aot-c-program: TIMED OUT" "$out/summary.md" && hang=1
  # The kernels of NvccKernels.cu, checked element by element as on the
  # simulator, and the experiment on the wgmma descriptor's base offset,
  # whose verdict goes into the summary.
  # Each test in a process of its own: a kernel that faults leaves the
  # CUDA context unusable for the tests after it.
  if [ "$sim" = 0 ] && [ -x "$kit/bin/GMMNvccKernelsOnGPU" ]; then
    step nvcc-kernels-gpu 90 env "GMM_NVCC_KERNELS_DIR=$kit/nvcc" \
      bash -c 'n=0; for t in $("$0" --gtest_list_tests |
        awk "/^[^ ]/ {s = \$1} /^  / {print s \$1}"); do
        "$0" --gtest_color=no --gtest_brief=1 "--gtest_filter=$t" ||
          n=$((n + 1)); done; echo "$n test(s) failed"; [ "$n" = 0 ]' \
      "$kit/bin/GMMNvccKernelsOnGPU"
    sed -n '/^wgmma base offset experiment/,/^wgmma base offset:/p' \
      "$out/nvcc-kernels-gpu.log" | sed 's/^ */  - /' |
      tee -a "$out/summary.md" >&2
  fi
  while read -r name seed configs flags; do
    [ "$flags" = - ] && flags=""
    if [ "$hang" = 1 ] && [ "$chip" = sm_90a ]; then
      echo "- difftest-$name: SKIPPED (the C program hung)" >>"$out/summary.md"
      continue
    fi
    step "difftest-$name" 90 "$kit/bin/gmm-aot-difftest" \
      "--library=$kit/lib/libdiff-$name.so" "--seed=$seed" \
      "--configs=$configs" ${flags//,/ } "${device[@]}"
  done <"$kit/difftest-sets.txt"

  if [ "$sim" = 0 ] && command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
      step "sanitizer-$tool" 50 compute-sanitizer --tool "$tool" \
        --error-exitcode 1 "$kit/bin/gmm-aot-difftest" \
        "--library=$kit/lib/libdiff-default.so" --seed=71 --configs=4 \
        --device=gpu
    done
    if [ -f "$kit/lib/libdiff-hopper.so" ] && [ "$hang" = 0 ]; then
      step sanitizer-memcheck-hopper 60 compute-sanitizer --tool memcheck \
        --error-exitcode 1 "$kit/bin/gmm-aot-difftest" \
        "--library=$kit/lib/libdiff-hopper.so" --seed=81 --configs=4 \
        --family=hopper --max-dim=700 --device=gpu
    fi
  fi

  # The kernels: registers, spills (ptxas -v at pack time) and the tensor
  # core instructions of the SASS.
  if [ -f "$kit/ptxas.txt" ]; then
    cp "$kit/ptxas.txt" "$out/ptxas.txt"
    if command -v cuobjdump >/dev/null; then
      for cubin in "$kit"/ptx/*.cubin; do
        sass=$(cuobjdump --dump-sass "$cubin" 2>/dev/null)
        printf '%s: %s HGMMA, %s HMMA, %s LDSM, %s LDGSTS\n' \
          "$(basename "$cubin" .cubin)" \
          "$(grep -c HGMMA <<<"$sass")" "$(grep -c HMMA <<<"$sass")" \
          "$(grep -c LDSM <<<"$sass")" "$(grep -c LDGSTS <<<"$sass")"
      done >"$out/sass.txt"
    fi
  fi

  # cuBLAS: the system's, else the one PyTorch's wheels bring.
  if ldd "$kit/bin/gmm-bench-gpu" 2>/dev/null | grep -q 'libcublas.*not found'; then
    local cublas
    cublas=$(find /usr/local /opt /usr/lib -name 'libcublas.so.1*' 2>/dev/null |
      head -1)
    [ -n "$cublas" ] &&
      export LD_LIBRARY_PATH="$(dirname "$cublas")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi

  # The benchmark: gmm and cuBLAS, then torch and JAX on the same rows.
  local bench=(--json="$out/gmm.json" --commit="$(cat "$kit/commit.txt")"
    --time-budget="${GMM_CHECK_BENCH_SECONDS:-110}")
  [ "$sim" = 1 ] && bench+=(--device=sim --peers=none --repeat=1 --warmup=1)
  [ "$quick" = 1 ] && bench+=(--shapes=4x96x64x48,8x200x40x72)
  if [ "$hang" = 1 ] && [ "$chip" = sm_90a ]; then
    echo "- bench-gmm-cublas: SKIPPED (the C program hung)" >>"$out/summary.md"
  else
    step bench-gmm-cublas $((${GMM_CHECK_BENCH_SECONDS:-110} + 60)) \
      "$kit/bin/gmm-bench-gpu" --library="$kit/lib/libgmm-bench.so" \
      "${bench[@]}"
    cp "$out/bench-gmm-cublas.log" "$out/gmm-bench.md"
  fi
  # The variants (bench-variants.txt) on the same rows, bf16 results.
  while read -r variant options; do
    if [ "$hang" = 1 ] && [ "$chip" = sm_90a ]; then
      echo "- bench-gmm-$variant: SKIPPED (the C program hung)" >>"$out/summary.md"
      continue
    fi
    local rows=(--json="$out/gmm-$variant.json" --results=bf16
      --distributions=uniform,zipf --peers=none --dense=0 --time-budget=40)
    [ "$sim" = 1 ] && rows+=(--device=sim --repeat=1 --warmup=1)
    [ "$quick" = 1 ] && rows+=(--shapes=4x96x64x48,8x200x40x72)
    step "bench-gmm-$variant" 70 "$kit/bin/gmm-bench-gpu" \
      --library="$kit/lib/libgmm-bench-$variant.so" "${rows[@]}"
  done <"$kit/bench-variants.txt"
  # Where the Hopper kernel's time goes: Nsight Compute's throughput, warp
  # stall, scheduler and occupancy sections of its first launch on a long
  # and a short contraction, where ncu is there (GMM_CHECK_PROFILE=0 skips
  # it). Nothing else runs meanwhile; ncu leaves the clocks alone.
  if [ "$sim" = 0 ] && [ "$chip" = sm_90a ] && [ "$hang" = 0 ] &&
    [ "${GMM_CHECK_PROFILE:-1}" = 1 ] && command -v ncu >/dev/null; then
    for shape in deepseek-up qwen3-down; do
      step "profile-$shape" 120 ncu --clock-control none \
        --kernel-name regex:wgmma --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats \
        --section SchedulerStats --section Occupancy \
        "$kit/bin/gmm-bench-gpu" --library="$kit/lib/libgmm-bench.so" \
        "--shapes=$shape" --modes=1 --results=bf16 --distributions=uniform \
        --repeat=1 --warmup=1 --peers=none --dense=0
    done
  fi
  if [ "$sim" = 0 ] && [ -f "$out/gmm.json" ]; then
    step bench-peers $((${GMM_CHECK_PEERS_SECONDS:-110} + 60)) \
      env PYTHONUNBUFFERED=1 python3 "$repo/bench/gpu/bench_peers.py" \
      --rows "$out/gmm.json" --out "$out/peers.json" \
      --time-budget "${GMM_CHECK_PEERS_SECONDS:-110}"
  fi
  if [ -f "$out/gmm.json" ]; then
    local peers=()
    [ -f "$out/peers.json" ] && peers=("$out/peers.json")
    python3 "$repo/bench/gpu/report.py" "$out/gmm.json" "${peers[@]}" \
      --json "$out/report.json" --markdown "$out/report.md" >/dev/null 2>&1
  fi
  {
    echo
    echo "$failures step(s) failed."
    [ -f "$out/sass.txt" ] && { echo; echo '## Kernels (SASS)'; echo; \
      sed 's/^/- /' "$out/sass.txt"; }
  } >>"$out/summary.md"
  cat "$out/summary.md"
  [ -f "$out/report.md" ] && cat "$out/report.md"
  [ "$failures" = 0 ]
}

case "${1:-}" in
pack)
  shift
  pack "$@"
  ;;
run)
  shift
  run "$@"
  ;;
*)
  usage
  ;;
esac
