#!/usr/bin/env bash
# README command 2: installs what is missing, builds, runs every test: the
# lit suite, the Python package's pytest suite, then the ONNX backend node
# tests (conformance summary).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FUSE_BUILD_DIR:-build}

./scripts/setup.sh
./scripts/build.sh
cmake --build "$BUILD_DIR" --target check-fuse
# The Python package against onnxruntime (test/Python, pytest).
cmake --build "$BUILD_DIR" --target check-fuse-python
python3 test/Conformance/run_node_tests.py \
  --fuse-compile "$BUILD_DIR/bin/fuse-compile" \
  --fuse-run "$BUILD_DIR/bin/fuse-run" \
  --workdir "$BUILD_DIR/conformance" --fail-on-failure
