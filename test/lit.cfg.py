# -*- Python -*-
# lit configuration for gmm's regression tests.

import os

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

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# FileCheck, not and count come from Debian's LLVM tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.gmm_tools_dir, config.llvm_tools_dir]
tools = ["gmm-opt", "gmm-runner", ToolSubst("mlir-opt", unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Tests that execute compiled code need gmm-runner.
if os.path.exists(os.path.join(config.gmm_tools_dir, "gmm-runner")):
    config.available_features.add("gmm-runner")

# GPU features, for every directory:
#   cuda-device  the CUDA driver loads and has a device (GPU execution tests)
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


if has_cuda_device():
    config.available_features.add("cuda-device")

ptxas = shutil.which("ptxas")
for root in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]:
    if not ptxas and root and os.path.exists(os.path.join(root, "bin", "ptxas")):
        ptxas = os.path.join(root, "bin", "ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
