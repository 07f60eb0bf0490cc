# -*- Python -*-
# lit configuration for fuse: finds fuse-opt/fuse-translate in the build
# tree and FileCheck, not, count in LLVM's tools directory.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "fuse"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)

# .onnxtxt tests are ONNX models in text syntax whose `#` comments carry the
# RUN and CHECK lines.
config.suffixes = [".mlir", ".onnxtxt", ".test"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fuse_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "Conformance", "lsan.supp"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%fuse_src_root", os.path.dirname(config.test_source_root)))
config.substitutions.append(("%fuse_obj_root", config.fuse_obj_root))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# ptxas (CUDA toolkit) assembles cubins; without it only PTX can be made.
cuda_path = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_path, "bin", "ptxas")):
    config.available_features.add("ptxas")
    config.substitutions.append(("%cuda_path", cuda_path))

# A sanitizer build (-DFUSE_SANITIZE=...): every report aborts, so that a
# tool expected to fail (`not`, exit_code.py) cannot hide one behind its
# exit status; leaks are reported at exit (docs/robustness.md).
if config.fuse_sanitize:
    config.available_features.add("sanitize")
    supp = os.path.join(config.test_source_root, "lsan.supp")
    config.environment["ASAN_OPTIONS"] = (
        "abort_on_error=1:detect_leaks=1:disable_coredump=1")
    config.environment["LSAN_OPTIONS"] = "suppressions=" + supp
    config.environment["UBSAN_OPTIONS"] = (
        "abort_on_error=1:halt_on_error=1:print_stacktrace=1")

tools = ["fuse-compile", "fuse-opt", "fuse-run", "fuse-runtime-api-test",
         "fuse-translate", "fuse-tune"]
llvm_config.add_tool_substitutions(tools, [config.fuse_tools_dir])
