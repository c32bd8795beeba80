# Installation and the GMM CMake package (`find_package(GMM)`), included at
# the end of the top-level CMakeLists.txt once every target exists.
#
#   cmake --install <build> --prefix <prefix>
#
# installs
#   <prefix>/bin/                 gmm-opt, gmm-runner and gmm-aot
#   <prefix>/include/gmm/         C++ headers, ODS (.td) and generated .inc
#   <prefix>/include/gmm-c/       C API headers
#   <prefix>/lib/                 libGMM*.a, libGMMPlugin.so, libGMM-C.so
#   <prefix>/lib/cmake/gmm/       GMMConfig.cmake, GMMTargets.cmake, version
#   <prefix>/lib/python3/site-packages/gmm/
#                                 the Python package gmm (gmm.jax, gmm.jax_export)
#                                 with libgmm_jax_ffi.so and libgmm_cuda_runtime.so,
#                                 component `python`, only when gmm.jax is built
#                                 (GMM_PYTHON); GMM_INSTALL_PYTHON_DIR moves it.
#                                 lib/JAX/CMakeLists.txt installs it; the wheel of
#                                 pyproject.toml (`pip install .`) is this component.
#
# The package exports every gmm library as an imported target in the GMM::
# namespace (GMM::GMMInit, GMM::GMMDialect, GMM::GMMCAPIShared, ...), each
# with gmm's include directory. The libraries link the shared libMLIR.so (the
# imported target `MLIR`), which GMMConfig.cmake finds with find_dependency.

include(CMakePackageConfigHelpers)

set(GMM_VERSION 0.1.0)
set(GMM_INSTALL_PACKAGE_DIR lib${LLVM_LIBDIR_SUFFIX}/cmake/gmm)

# Libraries. add_mlir_library and friends already install theirs (to lib/)
# into the export set that AddLLVM names `MLIRTargets` in any project that
# builds MLIR-style libraries, and list them in the MLIR_EXPORTS property;
# that set is installed below under gmm's own file name and namespace. Plain
# add_library targets that the exported libraries link join it here.
get_property(gmm_exported_libs GLOBAL PROPERTY MLIR_EXPORTS)
foreach(lib GMMReference GMMAOTLibrary gmm_cuda_runtime)
  if(TARGET ${lib} AND NOT ${lib} IN_LIST gmm_exported_libs)
    install(TARGETS ${lib}
      EXPORT MLIRTargets
      COMPONENT gmm-libraries
      ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX}
      LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX}
      RUNTIME DESTINATION bin)
    list(APPEND gmm_exported_libs ${lib})
  endif()
endforeach()

foreach(lib ${gmm_exported_libs})
  target_include_directories(${lib} INTERFACE
    $<INSTALL_INTERFACE:include>)
endforeach()

# Tools install themselves (install(TARGETS ... RUNTIME DESTINATION bin) in
# tools/<name>/CMakeLists.txt).

# Installed binaries and shared libraries find libMLIR.so/libLLVM.so where
# this build found them: Debian keeps them in /usr/lib/llvm-22/lib, which is
# not on the loader's default path.
foreach(target gmm-opt gmm-runner gmm-aot GMMPlugin GMMCAPIShared)
  if(TARGET ${target})
    set_property(TARGET ${target} APPEND PROPERTY
      INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  endif()
endforeach()

# Headers: the sources' .h/.td and the build's generated .inc.
install(DIRECTORY
    ${GMM_SOURCE_DIR}/include/gmm
    ${GMM_SOURCE_DIR}/include/gmm-c
  DESTINATION include
  COMPONENT gmm-headers
  FILES_MATCHING
  PATTERN "*.h"
  PATTERN "*.td"
  PATTERN "*.def")
install(DIRECTORY ${GMM_BINARY_DIR}/include/gmm
  DESTINATION include
  COMPONENT gmm-headers
  FILES_MATCHING
  PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# The CMake package.
install(EXPORT MLIRTargets
  FILE GMMTargets.cmake
  NAMESPACE GMM::
  DESTINATION ${GMM_INSTALL_PACKAGE_DIR}
  COMPONENT gmm-cmake-exports)

configure_package_config_file(
  ${GMM_SOURCE_DIR}/cmake/GMMConfig.cmake.in
  ${GMM_BINARY_DIR}/lib/cmake/gmm/GMMConfig.cmake
  INSTALL_DESTINATION ${GMM_INSTALL_PACKAGE_DIR})
write_basic_package_version_file(
  ${GMM_BINARY_DIR}/lib/cmake/gmm/GMMConfigVersion.cmake
  VERSION ${GMM_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
    ${GMM_BINARY_DIR}/lib/cmake/gmm/GMMConfig.cmake
    ${GMM_BINARY_DIR}/lib/cmake/gmm/GMMConfigVersion.cmake
  DESTINATION ${GMM_INSTALL_PACKAGE_DIR}
  COMPONENT gmm-cmake-exports)
