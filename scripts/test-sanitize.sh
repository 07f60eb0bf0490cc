#!/usr/bin/env bash
# The sanitizer build: fuse's own code and the runtime instrumented with
# -DFUSE_SANITIZE (default address,undefined; any comma list of -fsanitize=
# values), built with the default compiler into $FUSE_SANITIZE_BUILD_DIR
# (default build-sanitize/), then the whole lit suite under it, the numeric
# tests included. MLIR and LLVM (Debian's) and the CPU kernels fuse-compile
# links stay uninstrumented. Every sanitizer report aborts the tool (see
# test/lit.cfg.py), so a test fails on it even where it expects the tool to
# fail. CI runs this after scripts/test.sh and fuzz/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FUSE_SANITIZE_BUILD_DIR:-build-sanitize}

./scripts/setup.sh
FUSE_BUILD_DIR=$BUILD_DIR ./scripts/build.sh \
  -DFUSE_SANITIZE="${FUSE_SANITIZE:-address,undefined}"
cmake --build "$BUILD_DIR" --target check-fuse
