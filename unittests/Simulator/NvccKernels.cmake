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

# The same tests on a real GPU: GMMNvccKernelsOnGPU, built from
# NvccKernelsTest.cpp with GMM_NVCC_ON_GPU (NvccKernelsOnGPU.h) and linked
# against the CUDA driver (here the toolkit's stub libcuda; at run time the
# machine's libcuda.so.1) instead of the simulator. Not a ctest test: it
# needs a GPU. It reads the PTX of the build, or of $GMM_NVCC_KERNELS_DIR
# (scripts/gpu-check.sh carries it in the GPU kit).
if(GMM_NVCC)
  get_filename_component(GMM_CUDA_ROOT ${GMM_NVCC} DIRECTORY)
  get_filename_component(GMM_CUDA_ROOT ${GMM_CUDA_ROOT} DIRECTORY)
  find_path(GMM_CUDA_INCLUDE_DIR cuda.h
    HINTS ${GMM_CUDA_ROOT}/include NO_DEFAULT_PATH)
  find_library(GMM_CUDA_DRIVER_LIBRARY cuda
    HINTS ${GMM_CUDA_ROOT}/lib64/stubs ${GMM_CUDA_ROOT}/lib/stubs
          ${GMM_CUDA_ROOT}/targets/x86_64-linux/lib/stubs NO_DEFAULT_PATH)
  if(GMM_CUDA_INCLUDE_DIR AND GMM_CUDA_DRIVER_LIBRARY)
    add_executable(GMMNvccKernelsOnGPU NvccKernelsTest.cpp)
    llvm_update_compile_flags(GMMNvccKernelsOnGPU)
    target_include_directories(GMMNvccKernelsOnGPU PRIVATE
      ${GMM_CUDA_INCLUDE_DIR})
    target_compile_definitions(GMMNvccKernelsOnGPU PRIVATE
      GMM_NVCC_ON_GPU
      GMM_NVCC_PTX="${CMAKE_CURRENT_BINARY_DIR}/NvccKernels.sm_80.ptx"
      GMM_NVCC_PTX_SM90="${CMAKE_CURRENT_BINARY_DIR}/NvccKernels.sm_90.ptx"
      GMM_NVCC_PTX_SM90A="${CMAKE_CURRENT_BINARY_DIR}/NvccKernels.sm_90a.ptx")
    target_link_libraries(GMMNvccKernelsOnGPU PRIVATE
      ${GMM_CUDA_DRIVER_LIBRARY} GTest::gtest GTest::gtest_main)
    add_dependencies(GMMNvccKernelsOnGPU GMMSimulatorNvccPTX)
    set_target_properties(GMMNvccKernelsOnGPU PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/unittests/bin)
  else()
    message(STATUS "cuda.h or the CUDA driver's stub library not found "
                   "beside nvcc: GMMNvccKernelsOnGPU is not built")
  endif()
endif()
