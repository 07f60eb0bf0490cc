#!/usr/bin/env bash
# README command 1: installs what is missing, builds, then imports the bundled
# example (AveragePool -> ReLU) and shows its fusion and the fusion report.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${FUSE_BUILD_DIR:-build}
MODEL=examples/avgpool_relu.onnx

./scripts/setup.sh
./scripts/build.sh

echo
echo "== $BUILD_DIR/bin/fuse-translate --import-onnx $MODEL"
"$BUILD_DIR/bin/fuse-translate" --import-onnx "$MODEL"
echo "== $BUILD_DIR/bin/fuse-opt $MODEL --fuse-chains --fusion-report"
"$BUILD_DIR/bin/fuse-opt" "$MODEL" --fuse-chains --fusion-report
