#!/usr/bin/env bash
# README command 2: installs what is missing, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FUSE_BUILD_DIR:-build}

./scripts/setup.sh
./scripts/build.sh
cmake --build "$BUILD_DIR" --target check-fuse
