#!/usr/bin/env bash
# Idempotent set-up for gmm on Debian 12: installs the packages that are
# missing (LLVM/MLIR 22 and the build tools), configures the build directory
# with Ninja once, and builds. A second run with nothing changed only runs a
# no-op build.
#
# Environment:
#   GMM_BUILD_DIR   build directory (default: <repo>/build)
#   GMM_BUILD_TYPE  CMake build type (default: Release)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GMM_BUILD_DIR:-$repo/build}
build_type=${GMM_BUILD_TYPE:-Release}
llvm_prefix=/usr/lib/llvm-22

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  clang-22 lld-22 clang-format-22
  cmake ninja-build ccache python3 libgtest-dev
  libomp-22-dev libopenblas-dev libclang-rt-22-dev python3-venv
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "gmm setup: installing ${missing[*]}"
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Python virtual environment for gmm.jax and its tests: the pinned
# packages of python/requirements.txt from PyPI, reinstalled when that file
# changes. GMM_SETUP_PYTHON=0 skips it (and builds without gmm.jax).
venv=$build/venv
python_args=()
if [ "${GMM_SETUP_PYTHON:-1}" != 0 ]; then
  if [ ! -x "$venv/bin/python" ] ||
    ! cmp -s "$repo/python/requirements.txt" "$venv/gmm-requirements.txt"; then
    echo "gmm setup: installing python/requirements.txt into $venv"
    mkdir -p "$build"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check \
      -r "$repo/python/requirements.txt"
    cp "$repo/python/requirements.txt" "$venv/gmm-requirements.txt"
  fi
  python_args=(-DGMM_PYTHON="$venv/bin/python")
  # A build directory configured before gmm.jax existed.
  if [ -f "$build/CMakeCache.txt" ] &&
    ! grep -q "^GMM_PYTHON:FILEPATH=$venv/bin/python\$" "$build/CMakeCache.txt"; then
    cmake "${python_args[@]}" "$build" >/dev/null
  fi
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$repo" -B "$build" "${python_args[@]}" \
    -DCMAKE_BUILD_TYPE="$build_type" \
    -DCMAKE_C_COMPILER="$llvm_prefix/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm_prefix/bin/clang++" \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit" \
    -DCMAKE_INSTALL_PREFIX="$build/install"
fi

# ccache keys compilations by paths relative to the build directory for what
# lies under the repository, so that the wheel's build (pyproject.toml, in
# build-pip/ at the same depth, with the same base directory) reuses these
# compilations (scripts/test-pip.sh).
export CCACHE_BASEDIR=$repo
ninja -C "$build"
