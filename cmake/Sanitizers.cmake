# Sanitizer and fuzzer builds of gmm's own code (scripts/sanitize.sh,
# scripts/fuzz.sh). Included from the top-level CMakeLists.txt before the
# first target is defined; it only adds compile and link options in this
# project's directories, so they reach gmm's targets and nothing else (the
# prebuilt libMLIR.so / libLLVM.so stay uninstrumented, and nothing leaks into
# the installed GMM package's interface).
#
#   GMM_SANITIZE=address,undefined   -fsanitize=<list> on every gmm target,
#                                    with -fno-sanitize-recover=all so that
#                                    the first report fails the run
#   GMM_BUILD_FUZZER=ON              also -fsanitize=fuzzer-no-link (coverage
#                                    for libFuzzer) and the gmm-fuzz targets
#                                    in fuzz/; needs clang and GMM_SANITIZE
#
# Running an instrumented build next to the uninstrumented MLIR needs
# ASAN_OPTIONS=allow_user_poisoning=0 (scripts/sanitize.sh says why and sets
# the options).

include_guard(GLOBAL)

set(GMM_SANITIZE "" CACHE STRING
  "Sanitizers for gmm's own code, e.g. address,undefined (empty: none)")
option(GMM_BUILD_FUZZER
  "Build the libFuzzer targets in fuzz/ (clang, with GMM_SANITIZE)" OFF)

set(GMM_SANITIZER_ENABLED OFF)
if(GMM_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GMM_SANITIZE needs clang (got "
      "${CMAKE_CXX_COMPILER_ID}); see scripts/sanitize.sh")
  endif()
  set(GMM_SANITIZER_ENABLED ON)
  message(STATUS "gmm: building with -fsanitize=${GMM_SANITIZE}")
  add_compile_options(
    -fsanitize=${GMM_SANITIZE}
    -fno-sanitize-recover=all
    -fno-omit-frame-pointer
    -g1)
  add_link_options(-fsanitize=${GMM_SANITIZE})
  if(GMM_SANITIZE MATCHES "address")
    # Instrumented shared libraries (libGMMPlugin.so, libGMM-C.so) resolve
    # the sanitizer runtime from the executable that loads them, so they
    # cannot be linked with LLVM's -Wl,-z,defs; the last -z option wins.
    add_link_options(
      "$<$<IN_LIST:$<TARGET_PROPERTY:TYPE>,SHARED_LIBRARY;MODULE_LIBRARY>:LINKER:-z,undefs>")
  endif()
endif()

if(GMM_BUILD_FUZZER)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT GMM_SANITIZE)
    message(FATAL_ERROR "GMM_BUILD_FUZZER needs clang and GMM_SANITIZE "
      "(e.g. -DGMM_SANITIZE=address,undefined)")
  endif()
  # Coverage feedback from gmm's own code; MLIR itself is not instrumented,
  # so libFuzzer sees the gmm dialect, passes and runner, not the parser.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
