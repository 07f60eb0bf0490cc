#!/usr/bin/env bash
# README command 1: installs what is missing, builds, then compiles the
# bundled example (AveragePool -> ReLU) into an artifact and runs it: on the
# GPU when there is one, else on the CPU. Prints the fused IR, the fusion
# report, the artifact's plan and the check of the fused plan against the
# unfused reference.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FUSE_BUILD_DIR:-build}
MODEL=examples/avgpool_relu.onnx
ARTIFACT=$BUILD_DIR/avgpool_relu.fbin

./scripts/setup.sh
./scripts/build.sh

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  TARGET=cuda
else
  TARGET=cpu
fi

echo
echo "== fuse-opt $MODEL --fuse-chains"
"$BUILD_DIR/bin/fuse-opt" "$MODEL" --fuse-chains
echo "== fuse-compile $MODEL --target=$TARGET --fusion-report --reference -o $ARTIFACT"
"$BUILD_DIR/bin/fuse-compile" "$MODEL" --target=$TARGET --fusion-report --reference \
  -o "$ARTIFACT"
echo "== fuse-run $ARTIFACT --info"
"$BUILD_DIR/bin/fuse-run" "$ARTIFACT" --info
echo "== fuse-run $ARTIFACT --check"
"$BUILD_DIR/bin/fuse-run" "$ARTIFACT" --check
