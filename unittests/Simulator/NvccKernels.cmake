# PTX that nvcc (not LLVM) wrote: NvccKernels.cu is compiled to sm_80, sm_90
# and sm_90a PTX by the CUDA toolkit's nvcc when it is found, and the tests of
# NvccKernelsTest.cpp (part of GMMSimulatorTests) read those files at run
# time. Without nvcc the tests are still built, and skip themselves.
find_program(GMM_NVCC nvcc HINTS /usr/local/cuda/bin $ENV{CUDA_HOME}/bin)

target_sources(GMMSimulatorTests PRIVATE NvccKernelsTest.cpp)

if(GMM_NVCC)
  set(GMM_NVCC_KERNELS ${CMAKE_CURRENT_SOURCE_DIR}/NvccKernels.cu)
  set(GMM_NVCC_PTX_FILES)
  foreach(arch 80 90 90a)
    set(ptx ${CMAKE_CURRENT_BINARY_DIR}/NvccKernels.sm_${arch}.ptx)
    add_custom_command(
      OUTPUT ${ptx}
      COMMAND ${GMM_NVCC} -ptx -arch=sm_${arch} -O3 -lineinfo
              ${GMM_NVCC_KERNELS} -o ${ptx}
      DEPENDS ${GMM_NVCC_KERNELS}
      COMMENT "Compiling NvccKernels.cu to sm_${arch} PTX with nvcc"
      VERBATIM)
    list(APPEND GMM_NVCC_PTX_FILES ${ptx})
  endforeach()
  add_custom_target(GMMSimulatorNvccPTX DEPENDS ${GMM_NVCC_PTX_FILES})
  add_dependencies(GMMSimulatorTests GMMSimulatorNvccPTX)
  target_compile_definitions(GMMSimulatorTests PRIVATE
    GMM_NVCC_PTX="${CMAKE_CURRENT_BINARY_DIR}/NvccKernels.sm_80.ptx"
    GMM_NVCC_PTX_SM90="${CMAKE_CURRENT_BINARY_DIR}/NvccKernels.sm_90.ptx"
    GMM_NVCC_PTX_SM90A="${CMAKE_CURRENT_BINARY_DIR}/NvccKernels.sm_90a.ptx")
else()
  message(STATUS "nvcc not found: the simulator's tests on nvcc's PTX "
                 "(NvccKernelsTest.cpp) will skip themselves")
  target_compile_definitions(GMMSimulatorTests PRIVATE
    GMM_NVCC_PTX="" GMM_NVCC_PTX_SM90="" GMM_NVCC_PTX_SM90A="")
endif()
