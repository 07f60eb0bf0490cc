#!/usr/bin/env bash
# Installs what fuse needs to build and test: Debian packages (LLVM/MLIR 22,
# libonnx, protobuf, build tools) and the Python packages (the tests', and
# nanobind and scikit-build-core for the Python package). Idempotent:
# installs only what is missing, so a second run takes about a second.
set -euo pipefail

DEB_PACKAGES=(
  cmake ninja-build ccache g++ python3
  # Python's headers, for the Python package's modules (python/).
  python3-dev
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  # For static links of LLVM (fuse-compile for the GPU machine).
  libzstd-dev zlib1g-dev libncurses-dev
  # libFuzzer and the sanitizer runtimes (fuzz/run.sh, the sanitizer build).
  clang-22 libclang-rt-22-dev
)
# Versions the tests were written against; newer ones are expected to work.
# nanobind and scikit-build-core build the Python package (python/,
# pyproject.toml); pytest runs its tests.
PY_PACKAGES=("onnx>=1.16" "onnxruntime>=1.18" "numpy>=1.26" "nanobind>=3.0"
             "scikit-build-core>=0.10" "pytest>=7")

run_as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Package lists may be missing or stale on a fresh machine.
  if ! run_as_root apt-get install -y -q --no-install-recommends \
      "${missing[@]}" >/tmp/fuse-apt.log 2>&1; then
    run_as_root apt-get update -q >/tmp/fuse-apt.log 2>&1
    run_as_root apt-get install -y -q --no-install-recommends "${missing[@]}" \
      >>/tmp/fuse-apt.log 2>&1 || { cat /tmp/fuse-apt.log; exit 1; }
  fi
fi

if ! python3 -c "import onnx, onnxruntime, numpy, nanobind, pytest
import scikit_build_core" 2>/dev/null; then
  echo "setup: installing Python packages"
  python3 -m pip install -q "${PY_PACKAGES[@]}"
fi
echo "setup: done"
