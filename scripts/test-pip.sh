#!/usr/bin/env bash
# The Python package as pip installs it (pyproject.toml; docs/JAX.md,
# "Installing gmm.jax with pip"), tested installed, after scripts/setup.sh
# has built the build directory (the test command's stage after the Python
# tests):
#
#  1. `pip wheel` builds the wheel once: scikit-build-core over gmm's CMake
#     in <build>-pip (beside the build directory, at its depth, so that
#     ccache, with the repository as its base directory, reuses the build
#     directory's compilations: the hits are printed), its isolated build
#     environment pinned by python/requirements-build.txt;
#  2. a fresh virtual environment with the pinned JAX (python/requirements.txt)
#     and the wheel: a subset of the Python tests (the test command's
#     previous stage ran them all on this JAX) on the package imported from
#     its site-packages (never the source or build tree: conftest.py checks
#     it), the handler's RUNPATH checked;
#  3. the same with the newest JAX the package declares
#     (python/requirements-newest.txt), every Python test but the fixtures
#     check (what the pinned JAX exports); it needs a Python >= 3.12
#     (GMM_PIP_NEWEST_PYTHON, else python3.12, python3.13, python3.14 or
#     pyenv's): skipped, saying so, where there is none;
#  4. `cmake --install <build> --component python` into a fresh prefix: a
#     ragged dot through the package installed there.
#
# Everything it writes is in <build>/pip-test/ (the wheel, the environments,
# the logs) and <build>-pip/. Exits non-zero on any failure.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GMM_BUILD_DIR:-$repo/build}
work=$build/pip-test
pip_build=$build-pip
export CCACHE_BASEDIR=$repo

rm -rf "$work"
mkdir -p "$work"
status=0
step() { echo "== $*"; }
seconds() { echo $(($(date +%s) - $1))s; }
ccache_stat() {
  ccache --print-stats 2>/dev/null | awk -v k="$1" '$1 == k { print $2 }'
}

# 1. The wheel.
step "pip wheel $repo (build directory $pip_build)"
hits_before=$(($(ccache_stat direct_cache_hit) + $(ccache_stat preprocessed_cache_hit)))
misses_before=$(ccache_stat cache_miss)
start=$(date +%s)
if ! PIP_CONSTRAINT="$repo/python/requirements-build.txt" \
  "$build/venv/bin/python" -m pip wheel --no-deps --disable-pip-version-check \
  -w "$work/wheel" -Cbuild-dir="$pip_build" "$repo" >"$work/wheel.log" 2>&1; then
  tail -40 "$work/wheel.log"
  echo "error: building the wheel failed ($work/wheel.log)" >&2
  exit 1
fi
hits=$(($(ccache_stat direct_cache_hit) + $(ccache_stat preprocessed_cache_hit) - hits_before))
misses=$(($(ccache_stat cache_miss) - misses_before))
wheel=$(echo "$work"/wheel/*.whl)
echo "   $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB in $(seconds "$start"), ccache: $hits hits, $misses misses"
"$build/venv/bin/python" -c 'import sys, zipfile
for name in zipfile.ZipFile(sys.argv[1]).namelist():
    if ".dist-info/" not in name:
        print("  ", name)' "$wheel"

# 2 and 3. A fresh environment with a JAX, the wheel, the tests.
# usage: test_venv NAME PYTHON REQUIREMENTS PYTEST_ARGUMENTS...
test_venv() {
  local name=$1 python=$2 requirements=$3
  shift 3
  local venv=$work/$name start
  start=$(date +%s)
  "$python" -m venv "$venv"
  # The wheel with its declared dependencies, resolved together with the
  # pinned versions (pip fails if they do not fit the declared range).
  "$venv/bin/pip" install -q --disable-pip-version-check \
    -r "$requirements" "$wheel" >"$work/$name-install.log" 2>&1 ||
    { cat "$work/$name-install.log"; return 1; }
  local site runpath
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
  # The handler finds gmm's runtime in the package and LLVM/MLIR in the
  # system, never anything in the build or source tree.
  runpath=$(/usr/lib/llvm-22/bin/llvm-readelf -d "$site/gmm/libgmm_jax_ffi.so" |
    sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  if [ "$runpath" != "\$ORIGIN:/usr/lib/llvm-22/lib" ]; then
    echo "error: $site/gmm/libgmm_jax_ffi.so: RUNPATH '$runpath'" >&2
    return 1
  fi
  echo "   $("$venv/bin/python" --version), jax $("$venv/bin/python" -c \
    'import importlib.metadata as m; print(m.version("jax"), "jaxlib", m.version("jaxlib"))') ($(seconds "$start"))"
  # From a directory with nothing importable, without PYTHONPATH: gmm can
  # only come from the environment's site-packages.
  (cd "$work" && env -u PYTHONPATH GMM_BUILD_DIR="$build" \
    GMM_TEST_PACKAGE_DIR="$site/gmm" "$venv/bin/python" -m pytest -q \
    -p no:cacheprovider "$@")
}

newest_python() {
  local candidate root
  for candidate in "${GMM_PIP_NEWEST_PYTHON:-}" python3.12 python3.13 python3.14; do
    if [ -n "$candidate" ] && command -v "$candidate" >/dev/null &&
      "$candidate" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$candidate"
      return
    fi
  done
  root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
  for candidate in "$root"/versions/3.1[2-9]*/bin/python3; do
    if [ -x "$candidate" ] &&
      "$candidate" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      echo "$candidate"
      return
    fi
  done
  return 1
}

tests=$repo/python/tests
start=$(date +%s)
step "the wheel with the pinned JAX (python/requirements.txt)"
# The previous stage ran every test on this JAX with build/python: here what
# touches the package's files (the handler, the runtime beside it,
# gmm.jax_export, the example), each kind of call once.
test_venv venv-pinned "$build/venv/bin/python" "$repo/python/requirements.txt" \
  "$tests/test_ffi_target.py" "$tests/test_export.py" \
  "$tests/test_moe_shard_map.py::test_example_runs" \
  "$tests/test_jax.py::test_grad_matches_jax" "$tests/test_jax.py::test_vmap" \
  "$tests/test_jax.py::test_compiled_once_per_signature" \
  "$tests/test_jax.py::test_float64" || status=1
echo "   ($(seconds "$start"))"

start=$(date +%s)
newest=$(sed -n 's/^jax==//p' "$repo/python/requirements-newest.txt")
if python=$(newest_python); then
  step "the wheel with the newest JAX it declares, $newest (python/requirements-newest.txt)"
  # The fixtures are what the pinned JAX writes, not this one.
  test_venv venv-newest "$python" "$repo/python/requirements-newest.txt" \
    "$tests" -k "not test_fixtures_are_what_jax_writes" ||
    status=1
  echo "   ($(seconds "$start"))"
else
  step "SKIPPED: the wheel with JAX $newest: no Python >= 3.12 here (set GMM_PIP_NEWEST_PYTHON)"
fi

# 4. `cmake --install`'s python component.
step "cmake --install $build --component python, a ragged dot from there"
prefix=$work/prefix
cmake --install "$build" --component python --prefix "$prefix" >"$work/install.log"
(cd "$work" && env -u PYTHONPATH PYTHONPATH="$prefix/lib/python3/site-packages" \
  "$build/venv/bin/python" -c '
import os, sys
import jax.numpy as jnp
import gmm, gmm.jax
assert gmm.__file__.startswith(sys.argv[1]), gmm.__file__
out = gmm.jax.ragged_dot(jnp.ones((8, 4)), jnp.ones((2, 4, 3)), jnp.array([5, 3], jnp.int32))
assert out.shape == (8, 3) and float(out.sum()) == 96.0, out
print("   ragged_dot from", os.path.dirname(gmm.__file__))
' "$prefix/") || status=1

exit $status
