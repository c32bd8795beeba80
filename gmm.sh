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
    # Each kernel is named <function>_<role>[_<configuration>]; say what
    # each role is and count what that role is made of.
    for p in "$ptx/$name"/*.ptx; do
      case "$(basename "$p")" in
      *_tile_*)
        # 16-bit inputs: tensor cores fed by ldmatrix; f32: FMAs.
        copies="$(grep -c 'cp.async.cg' "$p" || true) cp.async"
        mma=$(grep -c 'mma.sync' "$p" || true)
        if [ "$mma" -gt 0 ]; then
          echo "   tile kernel     $p: $mma mma.sync, $copies, $(grep -c 'ldmatrix' "$p" || true) ldmatrix"
        else
          echo "   tile kernel     $p: $(grep -c 'fma.rn.f32' "$p" || true) fma.rn.f32 (f32 inputs: FMAs, no tensor cores), $copies"
        fi
        ;;
      *_metadata.*)
        echo "   group metadata  $p: a thread per group (offsets, the tile schedule)"
        ;;
      *_serial.*)
        echo "   serial kernel   $p: one thread (scalars the host must not read from device memory)"
        ;;
      *)
        echo "   kernel          $p"
        ;;
      esac
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
  echo "== docs: every shell block of README.md and docs/ runs as written"
  "$repo/scripts/test-docs.sh" || status=1
  echo "== gmm.jax installed with pip: the wheel, with the pinned and the newest JAX (scripts/test-pip.sh)"
  "$repo/scripts/test-pip.sh" || status=1
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
