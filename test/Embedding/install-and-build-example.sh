#!/usr/bin/env bash
# Installs a built gmm into a fresh prefix, builds examples/standalone-opt (a
# separate project using find_package(GMM)) against that prefix alone, and
# runs the example's checks through the resulting my-opt; then checks that
# the installed gmm-opt and libGMMPlugin.so (in Debian's mlir-opt) run.
#
# usage: install-and-build-example.sh BUILD_DIR WORK_DIR EXAMPLE_DIR
# environment (all optional): GMM_EXAMPLE_CMAKE_ARGS (extra configure
# arguments, e.g. compilers and launchers), LLVM_TOOLS_DIR (FileCheck and
# mlir-opt; default /usr/lib/llvm-22/bin).
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 BUILD_DIR WORK_DIR EXAMPLE_DIR" >&2
  exit 2
fi
build=$1
work=$2
example=$3
tools=${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}
read -r -a extra_args <<<"${GMM_EXAMPLE_CMAKE_ARGS:-}"

# The same paths every run keep ccache hits; their contents are new.
prefix=$work/prefix
example_build=$work/example-build
rm -rf "$prefix" "$example_build"
mkdir -p "$work"

step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

step "configure $example against $prefix"
cmake -G Ninja -S "$example" -B "$example_build" \
  -DCMAKE_PREFIX_PATH="$prefix" \
  "${extra_args[@]}" >"$work/configure.log"
# The package must come from the fresh prefix, not from the build tree.
if ! grep -qx -- "-- Using GMMConfig.cmake in: $prefix/lib/cmake/gmm" \
  "$work/configure.log"; then
  echo "error: find_package(GMM) did not use $prefix" >&2
  cat "$work/configure.log" >&2
  exit 1
fi
if grep -rq -- "$build" "$prefix/lib/cmake/gmm"; then
  echo "error: the installed package refers to the build tree $build" >&2
  exit 1
fi

step "build my-opt"
cmake --build "$example_build" >"$work/build.log"
my_opt=$example_build/bin/my-opt

input=$example/test/ragged-dot.mlir
step "my-opt --convert-gmm-to-loops --canonicalize --cse | FileCheck"
"$my_opt" "$input" --convert-gmm-to-loops --canonicalize --cse |
  "$tools/FileCheck" "$input" --check-prefix=LOOPS
step "my-opt --gmm-reference-to-llvm | FileCheck"
"$my_opt" "$input" --gmm-reference-to-llvm |
  "$tools/FileCheck" "$input" --check-prefix=LLVM

step "my-opt --gmm-to-cpu | FileCheck"
"$my_opt" "$input" --gmm-to-cpu |
  "$tools/FileCheck" "$input" --check-prefix=CPU
step "my-opt --gmm-to-ptx=chip=sm_80 | FileCheck"
"$my_opt" "$input" --gmm-to-ptx=chip=sm_80 |
  "$tools/FileCheck" "$input" --check-prefix=PTX

step "installed gmm-opt and libGMMPlugin.so run"
"$prefix/bin/gmm-opt" "$input" --convert-gmm-to-loops |
  "$tools/FileCheck" "$input" --check-prefix=LOOPS
"$tools/mlir-opt" "$input" --load-dialect-plugin="$prefix/lib/libGMMPlugin.so" \
  --pass-pipeline='builtin.module(convert-gmm-to-loops)' |
  "$tools/FileCheck" "$input" --check-prefix=LOOPS

echo "PASS"
