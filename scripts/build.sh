#!/usr/bin/env bash
# Configures (once) and builds fuse with CMake + Ninja into $FUSE_BUILD_DIR
# (default: build/). Extra arguments go to the first CMake configure.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FUSE_BUILD_DIR:-build}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE="$(command -v python3)" \
    "$@"
fi
cmake --build "$BUILD_DIR"
