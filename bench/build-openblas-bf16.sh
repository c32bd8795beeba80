#!/bin/bash
# Builds the OpenBLAS that this Debian ships (its own source package, the
# same version) with BUILD_BFLOAT16=1, so that gmm-bench-cpu's bf16 rows can
# be compared with OpenBLAS's cblas_sbgemm: Debian builds it without, and
# gmm-bench-cpu then compares them with cblas_sgemm on the same values.
#
#   bench/build-openblas-bf16.sh [DIR]     (default: build/openblas-bf16)
#   env -u OPENBLAS_CORETYPE LD_LIBRARY_PATH=build/openblas-bf16/lib \
#     build/bin/gmm-bench-cpu --dtypes=f32,bf16
#
# The library is built for the core that Debian's OpenBLAS picks on this CPU
# (its openblas_get_corename(), with OPENBLAS_CORETYPE unset), single
# precision and bf16 only, pthreads as Debian's, and takes the place of
# Debian's libopenblas.so.0 (sgemm too) for the programs run with it on
# LD_LIBRARY_PATH; gmm-bench-cpu prints the OpenBLAS it runs and whether it
# found cblas_sbgemm. Needs the network (deb.debian.org) and about five
# minutes on two cores. Not part of the tests.
set -euo pipefail

dir=$(realpath -m "${1:-build/openblas-bf16}")
fail() {
  echo "build-openblas-bf16.sh: $*" >&2
  exit 1
}

# The installed OpenBLAS's upstream version, e.g. 0.3.21+ds.
full=$(dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null) ||
  fail "libopenblas0-pthread is not installed (scripts/setup.sh installs it)"
upstream=${full%-*}
upstream=${upstream#*:}
# The core Debian's OpenBLAS runs here, as a TARGET name (Cooperlake ->
# COOPERLAKE).
core=$(env -u OPENBLAS_CORETYPE python3 -c '
import ctypes
lib = ctypes.CDLL("libopenblas.so.0")
lib.openblas_get_corename.restype = ctypes.c_char_p
print(lib.openblas_get_corename().decode())') ||
  fail "could not ask libopenblas.so.0 for its core"
target=${core^^}
echo "OpenBLAS ${upstream} (Debian ${full}), TARGET=${target}, into ${dir}"

mkdir -p "${dir}"
tarball="${dir}/openblas_${upstream}.orig.tar.xz"
if [ ! -s "${tarball}" ]; then
  url="https://deb.debian.org/debian/pool/main/o/openblas/openblas_${upstream}.orig.tar.xz"
  curl -fsSL --retry 3 -o "${tarball}.part" "${url}" ||
    fail "could not download ${url}"
  mv "${tarball}.part" "${tarball}"
fi
rm -rf "${dir}/src"
mkdir -p "${dir}/src"
tar -xf "${tarball}" -C "${dir}/src" --strip-components=1

# Debian's source has no LAPACK (it uses the system's): BLAS alone, single
# precision and bf16, no Fortran.
make -C "${dir}/src" -j"$(nproc)" TARGET="${target}" BUILD_BFLOAT16=1 \
  BUILD_SINGLE=1 NO_LAPACK=1 NO_LAPACKE=1 NOFORTRAN=1 USE_THREAD=1 \
  USE_OPENMP=0 NUM_THREADS=256 libs shared >"${dir}/build.log" 2>&1 ||
  fail "the build failed: see ${dir}/build.log"

mkdir -p "${dir}/lib"
so=$(find "${dir}/src" -maxdepth 1 -name 'libopenblas*.so' -type f | head -1)
[ -n "${so}" ] || fail "no shared library was built: see ${dir}/build.log"
cp "${so}" "${dir}/lib/libopenblas.so.0"
symbols=$(nm -D --defined-only "${dir}/lib/libopenblas.so.0")
grep -q ' cblas_sbgemm$' <<<"${symbols}" || fail "the library has no cblas_sbgemm"
echo "built ${dir}/lib/libopenblas.so.0 (with cblas_sbgemm)"
