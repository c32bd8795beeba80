#!/usr/bin/env bash
# The sanitizer run: configures a second build directory in which gmm's own
# code (not the prebuilt libMLIR.so / libLLVM.so) is compiled with clang's
# AddressSanitizer and UndefinedBehaviorSanitizer (-fno-sanitize-recover=all:
# the first report fails), plus libFuzzer coverage for the fuzz targets
# (cmake/Sanitizers.cmake); builds everything; runs the lit suite and ctest
# (unit tests, the differential test and the adversarial out-of-bounds
# tests with guard pages) in it.
#
#   scripts/sanitize.sh          configure (once), build, test
#   scripts/sanitize.sh build    configure (once) and build only
#
# Left out in this build: the tests that load gmm's instrumented shared
# libraries into Debian's uninstrumented tools (libGMMPlugin.so into
# mlir-opt: test/Embedding; libgmm_cuda_runtime.so into mlir-runner:
# test/Runtime), which cannot resolve the sanitizer runtime there; the
# install-and-embed test (ctest embedding.*); and the format/docs checks,
# which the normal run covers. The runtime library's own unit tests do run.
#
# Environment:
#   GMM_ASAN_BUILD_DIR  build directory (default: <repo>/build-asan)
#   GMM_CMAKE_ARGS      extra configure arguments
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GMM_ASAN_BUILD_DIR:-$repo/build-asan}
llvm_prefix=/usr/lib/llvm-22
read -r -a extra_args <<<"${GMM_CMAKE_ARGS:-}"

# The options that make an instrumented gmm work inside the uninstrumented
# MLIR and LLVM:
# - allow_user_poisoning=0: llvm::BumpPtrAllocator (MLIR's uniquer, the
#   parser) poisons each new slab and unpoisons what it hands out, but only
#   in instrumented code (LLVM_ADDRESS_SANITIZER_BUILD); when gmm's inlined
#   copy poisons a slab that libMLIR's copy then allocates from, ASan reports
#   a false use-after-poison. This option ignores manual poisoning.
# JIT-compiled code is not instrumented; gmm-difftest and the robustness
# tests put its buffers next to guard pages instead (GuardedMemory.h).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:check_initialization_order=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_SYMBOLIZER_PATH=$llvm_prefix/bin/llvm-symbolizer
export UBSAN_SYMBOLIZER_PATH=$llvm_prefix/bin/llvm-symbolizer

if ! compgen -G "$llvm_prefix/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.a" \
  >/dev/null; then
  echo "error: clang's sanitizer runtimes are missing (apt-get install" \
    "libclang-rt-22-dev; scripts/setup.sh installs it)" >&2
  exit 1
fi

start=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$repo" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$llvm_prefix/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm_prefix/bin/clang++" \
    -DLLVM_USE_LINKER=lld \
    "${launcher[@]}" \
    -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm_prefix/bin/lit" \
    -DGMM_SANITIZE=address,undefined \
    -DGMM_BUILD_FUZZER=ON \
    "${extra_args[@]}"
fi
ninja -C "$build"
echo "== sanitizer build: $(($(date +%s) - start)) s"
if [ "${1:-}" = build ]; then
  exit 0
fi

status=0
echo "== lit regression tests (ASan + UBSan)"
LIT_FILTER_OUT='Embedding/|Runtime/' "$llvm_prefix/bin/lit" -sv "$build/test" ||
  status=1
echo "== unit, differential and robustness tests (ASan + UBSan)"
(cd "$build" && ctest -j2 --output-on-failure \
  -E '^(embedding\.|format\.|docs\.)') || status=1
echo "== sanitizer run: $(($(date +%s) - start)) s in all"
exit $status
