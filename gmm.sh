#!/usr/bin/env bash
# gmm's two entry points (see README.md):
#   ./gmm.sh example [FILE.mlir ...]   set up, build and run the bundled example
#   ./gmm.sh test                      set up, build and run the whole test suite
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${GMM_BUILD_DIR:-$repo/build}
export GMM_BUILD_DIR=$build

usage() {
  echo "usage: $0 example [FILE.mlir ...] | test" >&2
  exit 2
}

[ $# -ge 1 ] || usage
command=$1
shift

case "$command" in
example)
  "$repo/scripts/setup.sh"
  files=("$@")
  if [ ${#files[@]} -eq 0 ]; then
    files=("$repo"/examples/*.mlir)
  fi
  ptx=$build/ptx
  for f in "${files[@]}"; do
    name=$(basename "$f" .mlir)
    echo "== gmm-opt $f (parse, verify, print)"
    "$build/bin/gmm-opt" "$f"
    echo "== gmm-runner $f: run on the CPU and check against the C++ reference"
    "$build/bin/gmm-runner" "$f" --seed=1 --group-sizes=skewed \
      --check --repeat=5
    echo "== gmm-opt $f --gmm-to-ptx: PTX for sm_90 in $ptx/$name"
    rm -rf "${ptx:?}/$name"
    "$build/bin/gmm-opt" "$f" --gmm-to-ptx="chip=sm_90 ptx-dir=$ptx/$name" \
      -o /dev/null
    for p in "$ptx/$name"/*.ptx; do
      echo "   $p: $(grep -c 'mma.sync' "$p") mma.sync, $(grep -c 'cp.async.cg' "$p") cp.async, $(grep -c 'ldmatrix' "$p") ldmatrix"
    done
    if "$build/bin/gmm-runner" --cuda-available >/dev/null 2>&1; then
      echo "== gmm-runner $f --target=cuda: run on the GPU and check"
      "$build/bin/gmm-runner" "$f" --target=cuda --seed=1 \
        --group-sizes=skewed --check --repeat=5
    else
      reason=$("$build/bin/gmm-runner" --cuda-available 2>&1 | sed 's/^no: //' || true)
      echo "== no GPU ($reason): gmm-runner $f --target=cuda --device=sim: the same host code and PTX on the simulated GPU (on the CPU, memory/race/init/sync checks on), checked"
      "$build/bin/gmm-runner" "$f" --target=cuda --device=sim --seed=1 \
        --group-sizes=skewed --check --repeat=1
    fi
  done
  ;;
test)
  "$repo/scripts/setup.sh"
  status=0
  echo "== lit regression tests"
  /usr/lib/llvm-22/bin/lit -sv "$build/test" || status=1
  echo "== unit tests (ctest)"
  (cd "$build" && ctest -j2 --output-on-failure) || status=1
  echo "== Python tests of gmm.jax (pytest, build/venv)"
  PYTHONPATH="$build/python" GMM_BUILD_DIR="$build" \
    "$build/venv/bin/python" -m pytest -q -p no:cacheprovider \
    "$repo/python/tests" || status=1
  echo "== sanitizer build (ASan + UBSan): lit, unit, differential, robustness tests"
  "$repo/scripts/sanitize.sh" || status=1
  echo "== fuzzing (120 s)"
  "$repo/scripts/fuzz.sh" 120 || status=1
  exit $status
  ;;
*)
  usage
  ;;
esac
