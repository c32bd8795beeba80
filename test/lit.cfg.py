# -*- Python -*-
# lit configuration for gmm's regression tests.

import os
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "GMM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gmm_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%gmm_src_root", config.gmm_src_root))
config.substitutions.append(("%gmm_lib_dir", os.path.join(config.gmm_obj_root, "lib")))
config.substitutions.append(("%gmm_include_dir", os.path.join(config.gmm_src_root, "include")))

# The C compiler that builds programs against gmm-aot's libraries: the clang
# of the LLVM gmm is built with, else cc.
import shutil as _shutil

c_compiler = os.path.join(config.llvm_tools_dir, "clang")
if not os.path.exists(c_compiler):
    c_compiler = _shutil.which("cc") or "cc"
config.substitutions.append(("%cc", c_compiler))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# FileCheck, not and count come from Debian's LLVM tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.gmm_tools_dir, config.llvm_tools_dir]
tools = ["gmm-opt", "gmm-runner", "gmm-aot", "gmm-difftest", "gmm-aot-difftest",
         ToolSubst("mlir-opt", unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# gmm-bench-gpu is built where the CUDA toolkit (cuBLAS) is found.
if os.path.exists(os.path.join(config.gmm_tools_dir, "gmm-bench-gpu")):
    config.available_features.add("gmm-bench-gpu")
    llvm_config.add_tool_substitutions(["gmm-bench-gpu"], tool_dirs)

# Tests that execute compiled code need gmm-runner.
if os.path.exists(os.path.join(config.gmm_tools_dir, "gmm-runner")):
    config.available_features.add("gmm-runner")

# The host CPU has AVX-512 with BF16 (vdpbf16ps): the bf16_dot micro-kernel
# runs here, and gmm-configure's heuristic picks it for bf16 ragged dots.
def host_has_avx512_bf16():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.split(":", 1)[1].split()
                    return "avx512f" in flags and "avx512_bf16" in flags
    except OSError:
        pass
    return False


if host_has_avx512_bf16():
    config.available_features.add("host-avx512-bf16")


# gmm-configure's heuristic gives this host's bf16 ragged dots the bf16_dot
# micro-kernel: it has AVX512-BF16 and its vdpbf16ps is at least as fast as
# f32 FMAs (the rule and its table are unit-tested in GMMTransformsTests;
# this only tells the heuristic's lit tests which answer to expect).
def host_prefers_bf16_dot():
    gmm_opt = os.path.join(config.gmm_tools_dir, "gmm-opt")
    if not host_has_avx512_bf16() or not os.path.exists(gmm_opt):
        return False
    module = (
        "func.func @f(%a: tensor<64x32xbf16>, %b: tensor<2x32x64xbf16>, "
        "%s: tensor<2xi32>) -> tensor<64x64xf32> {\n"
        "  %0 = gmm.ragged_dot %a, %b, %s dimension_numbers = "
        "<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], "
        "lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]> : "
        "tensor<64x32xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> "
        "tensor<64x64xf32>\n"
        "  return %0 : tensor<64x64xf32>\n}\n"
    )
    try:
        result = subprocess.run(
            [gmm_opt, "--gmm-configure", "-"],
            input=module, capture_output=True, text=True, timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return "micro_kernel = bf16_dot" in result.stdout


if host_prefers_bf16_dot():
    config.available_features.add("host-prefers-bf16-dot")

# The host is x86-64: gmm-to-cpu compiles for it, with what is x86's alone
# (gmm-cpu-stream-results' barriers for 16-bit float results).
import platform

if platform.machine().lower() in ("x86_64", "amd64"):
    config.available_features.add("host-x86")

# A sanitizer build (scripts/sanitize.sh): gmm's libraries need the
# sanitizer runtimes, which programs that are not gmm's own (mlir-runner)
# do not load, so tests that load gmm's libraries into them say
# UNSUPPORTED: sanitizer.
if config.gmm_sanitize:
    config.available_features.add("sanitizer")

# GPU features, for every directory:
#   cuda-device  GPU execution tests can run: on a real CUDA device when the
#                driver loads and has one (feature cuda-gpu), else on gmm's
#                simulated GPU, libgmm_cuda_sim.so (feature cuda-sim).
#                GMM_TEST_DEVICE=sim uses the simulator even where a GPU
#                exists. Substitutions:
#                  %cuda_target  gmm-runner's options for the device
#                                (--target=cuda, plus --device=sim)
#                  %cuda_env     the environment for programs that load the
#                                driver themselves (mlir-runner with
#                                libgmm_cuda_runtime.so)
#                  %time_check   the FileCheck prefix of gmm-runner's time
#                                line (TIME-GPU, or TIME-SIM: no GPU time)
#   ptxas        the CUDA toolkit's ptxas is found (%ptxas): PTX tests
#                assemble each kernel and check its spills
import ctypes
import shutil


def has_cuda_device():
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    if driver.cuInit(0) != 0:
        return False
    count = ctypes.c_int(0)
    return driver.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


# The runtime of compiled GPU programs, and MLIR's runner libraries, for
# mlir-runner.
config.substitutions.append(
    ("%gmm_cuda_runtime",
     os.path.join(config.gmm_obj_root, "lib",
                  "libgmm_cuda_runtime" + config.llvm_shlib_ext)))
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
for name in ["mlir_runner_utils", "mlir_c_runner_utils"]:
    config.substitutions.append(
        ("%" + name, os.path.join(llvm_lib_dir, "lib" + name + config.llvm_shlib_ext))
    )

simulator = os.path.join(config.gmm_obj_root, "lib", "libgmm_cuda_sim" + config.llvm_shlib_ext)
config.substitutions.append(("%gmm_cuda_sim", simulator))
if os.environ.get("GMM_TEST_DEVICE") != "sim" and has_cuda_device():
    config.available_features.update(["cuda-device", "cuda-gpu"])
    config.substitutions.append(("%cuda_target", "--target=cuda"))
    config.substitutions.append(("%cuda_env", "env"))
    config.substitutions.append(("%time_check", "TIME-GPU"))
elif os.path.exists(simulator):
    config.available_features.update(["cuda-device", "cuda-sim"])
    config.substitutions.append(("%cuda_target", "--target=cuda --device=sim"))
    config.substitutions.append(
        ("%cuda_env", "env GMM_CUDA_DRIVER_LIBRARY=" + simulator))
    config.substitutions.append(("%time_check", "TIME-SIM"))
if os.path.exists(simulator):
    config.available_features.add("gmm-sim")

ptxas = shutil.which("ptxas")
for root in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]:
    if not ptxas and root and os.path.exists(os.path.join(root, "bin", "ptxas")):
        ptxas = os.path.join(root, "bin", "ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
