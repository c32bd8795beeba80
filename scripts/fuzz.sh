#!/usr/bin/env bash
# A time-boxed libFuzzer run of gmm's fuzz targets (fuzz/README.md) in the
# sanitizer build (scripts/sanitize.sh builds it): gmm-fuzz-front and
# gmm-fuzz on .mlir text (parse, verify and the front end's passes; every
# named pipeline down to LLVM IR), seeded with the modules of test/ and
# examples/, with fuzz/gmm.dict; then gmm-fuzz-npy on the
# .npy reader, gmm-fuzz-call on gmm.jax's front door (JSON requests),
# gmm-fuzz-ptx on the simulated GPU's PTX loader and gmm-fuzz-driver on its
# driver API. Prints how many inputs ran; exits
# non-zero on a finding, whose input is left in <build>/fuzz/artifacts/.
#
#   scripts/fuzz.sh [SECONDS] [libFuzzer options...]   (default: 60 seconds)
#
# Environment:
#   GMM_ASAN_BUILD_DIR  the sanitizer build (default: <repo>/build-asan)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GMM_ASAN_BUILD_DIR:-$repo/build-asan}
export GMM_ASAN_BUILD_DIR=$build
seconds=${1:-60}
shift || true
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -lt 2 ]; then
  echo "usage: $0 [SECONDS >= 2] [libFuzzer options...]" >&2
  exit 2
fi

build_log=$(mktemp)
if ! "$repo/scripts/sanitize.sh" build >"$build_log" 2>&1; then
  tail -40 "$build_log" >&2
  rm -f "$build_log"
  exit 1
fi
rm -f "$build_log"

# scripts/sanitize.sh says why allow_user_poisoning=0.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer

work=$build/fuzz
seeds=$work/seeds
corpus=$work/corpus
artifacts=$work/artifacts
rm -rf "$seeds"
mkdir -p "$corpus" "$artifacts" "$work/npy-corpus"
python3 "$repo/fuzz/make-seed-corpus.py" "$repo" "$seeds"

# A tenth of the time (at least a second) each for the small .npy target,
# gmm.jax's front door and the simulated GPU's PTX loader, an eighth for its driver API (15 s of
# gmm.sh's 120), a quarter for the .mlir front end (gmm-fuzz-front, ten
# thousand inputs a second); the rest for .mlir through the pipelines
# (gmm-fuzz, a few inputs a second).
npy_seconds=$((seconds / 10 > 1 ? seconds / 10 : 1))
ptx_seconds=$npy_seconds
call_seconds=$npy_seconds
driver_seconds=$((seconds / 8 > 1 ? seconds / 8 : 1))
front_seconds=$((seconds / 4 > 1 ? seconds / 4 : 1))
mlir_seconds=$((seconds - npy_seconds - ptx_seconds - call_seconds -
  driver_seconds - front_seconds))
mlir_seconds=$((mlir_seconds > 1 ? mlir_seconds : 1))
# gmm-fuzz starts from a sample of the seeds: replaying all of them through
# every pipeline takes it longer than its share (and the ctest
# fuzz.seed-corpus already runs each seed once), so it would never mutate.
# gmm-fuzz-front replays them all in a second or two.
pipeline_seeds=$work/pipeline-seeds
rm -rf "$pipeline_seeds"
mkdir -p "$pipeline_seeds" "$work/front-corpus"
find "$seeds" -type f | shuf -n 48 | xargs -r cp -t "$pipeline_seeds"
# PTX seeds: the kernels gmm writes for the examples (sm_80, and sm_90a's
# Hopper kernel: TMA, mbarrier ring, wgmma), and fuzz/seeds/ptx (sm_90 forms
# gmm does not write: clusters and multicast, bulk reductions, tensor maps
# built on the device, inline-asm scopes).
mkdir -p "$work/ptx-corpus" "$work/ptx-seeds"
cp "$repo"/fuzz/seeds/ptx/*.ptx "$work/ptx-seeds"
for example in "$repo"/examples/*.mlir; do
  for chip in sm_80 sm_90a; do
    "$build/bin/gmm-opt" "$example" \
      --gmm-to-ptx="chip=$chip ptx-dir=$work/ptx-seeds" -o /dev/null \
      >/dev/null 2>&1 || true
  done
done

# Whether the crash that `log` reports happened inside MLIR's own parser,
# called by the harness (ParsedInput), with no gmm code on the way: a bug of
# upstream MLIR (libMLIR.so, not instrumented), which Debian's mlir-opt has
# too, e.g. `linalg.transpose ... permutation = &1, 0]` in MLIR 22.1. The
# first stack frame outside LLVM's installed files, the C and C++ runtimes
# and the sanitizers' interceptors must be the harness's parse. The
# interceptors (operator new[], memcpy, ...) are linked into the fuzzer
# binary without debug information: their frames name the binary and an
# offset, where gmm's own frames name a source line.
upstream_parser_crash() {
  grep -E '^ +#[0-9]+ 0x' "$1" | grep -v -e '/usr/lib/llvm-22/' \
    -e 'libc\.so' -e 'libstdc++' -e '__sanitizer' -e '__asan' -e '__ubsan' \
    -e '/bin/gmm-fuzz[-a-z]*+0x[0-9a-f]*)' |
    head -1 | grep -q 'ParsedInput::ParsedInput'
}

# Runs one target for `time` seconds; prints its executions, their rate and
# the edges covered; returns libFuzzer's status. A crash inside MLIR's own
# parser (upstream_parser_crash) is reported, its input kept in
# <build>/fuzz/upstream/, and the target restarted for the time left (at
# most five times): it is not a finding of gmm.
total=0
run() {
  local name=$1 time=$2
  shift 2
  local status=0 attempt=0 left=$time runs=0 cov edges
  echo "== $name for $time s"
  while :; do
    local log=$work/$name.$attempt.log start
    start=$(date +%s)
    status=0
    "$build/bin/$name" -max_total_time="$left" -timeout=30 \
      -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$@" >"$log" 2>&1 || status=$?
    runs=$((runs + $(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
      awk '{s += $1} END {print s + 0}')))
    # Edges of gmm's own (instrumented) code that the run covered, of all
    # of them in the binary.
    cov=$(sed -n 's/.*[[:space:]]cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
    edges=$(sed -n 's/^INFO: Loaded [0-9]* modules *(\([0-9]*\) inline.*/\1/p' \
      "$log" | head -1)
    left=$((left - ($(date +%s) - start)))
    if [ $status -eq 0 ] || ! upstream_parser_crash "$log"; then
      break
    fi
    local input
    input=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    mkdir -p "$work/upstream"
    [ -f "$input" ] && mv "$input" "$work/upstream/"
    echo "$name: MLIR's parser crashed on an input, not in gmm's code" \
      "(an upstream bug; input in $work/upstream/$(basename "$input"))"
    attempt=$((attempt + 1))
    if [ $attempt -ge 5 ] || [ $left -lt 2 ]; then
      status=0
      break
    fi
  done
  total=$((total + runs))
  echo "$name: $runs executions ($((runs / (time > 0 ? time : 1)))/s)," \
    "${cov:-?} of ${edges:-?} edges covered"
  if [ $status -ne 0 ]; then
    echo "$name: FINDING (exit $status); log: $log" >&2
    grep -E 'ERROR|FINDING|SUMMARY|Test unit written' "$log" | head -20 >&2
  fi
  return $status
}

status=0
run gmm-fuzz-front "$front_seconds" -dict="$repo/fuzz/gmm.dict" \
  -max_len=4096 "$work/front-corpus" "$seeds" || status=1
run gmm-fuzz "$mlir_seconds" -dict="$repo/fuzz/gmm.dict" -max_len=4096 \
  "$@" "$corpus" "$pipeline_seeds" || status=1
run gmm-fuzz-npy "$npy_seconds" -max_len=512 "$work/npy-corpus" || status=1
mkdir -p "$work/call-corpus"
run gmm-fuzz-call "$call_seconds" -dict="$repo/fuzz/call.dict" \
  -max_len=2048 "$work/call-corpus" "$repo/fuzz/seeds/call" || status=1
run gmm-fuzz-ptx "$ptx_seconds" -max_len=65536 "$work/ptx-corpus" \
  "$work/ptx-seeds" || status=1
# Driver-call programs: seeded with the ones that once found something.
mkdir -p "$work/driver-corpus" "$work/driver-seeds"
cp "$repo"/fuzz/regressions/*.driver "$work/driver-seeds/" 2>/dev/null || true
run gmm-fuzz-driver "$driver_seconds" -max_len=1024 "$work/driver-corpus" \
  "$work/driver-seeds" || status=1
echo "== fuzzing: $total executions in $seconds s; $(
  [ $status -eq 0 ] && echo "no findings" || echo "FINDINGS in $artifacts")"
exit $status
