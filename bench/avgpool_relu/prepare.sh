#!/usr/bin/env bash
# Builds what the seed benchmark needs on the GPU machine into .device/
# (ignored by git; carried by the device call): fuse-run, one fused and one
# unfused (--no-fuse) cuda artifact per size, and the CPU baseline.
#
#   bench/avgpool_relu/prepare.sh        # here
#   (device) python3 bench/avgpool_relu/run.py .device/avgpool_relu
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${FUSE_BUILD_DIR:-build}
OUT=.device/avgpool_relu
ARCH=${FUSE_GPU_ARCH:-sm_90}

./scripts/build.sh >/dev/null
mkdir -p "$OUT/models" "$OUT/bin"
cp "$BUILD/bin/fuse-run" "$OUT/bin/"
g++ -O3 -march=x86-64-v2 -o "$OUT/bin/cpu_avgpool_relu" \
  bench/avgpool_relu/cpu_avgpool_relu.cpp
for size in $(python3 bench/avgpool_relu/make_models.py "$OUT/models"); do
  model="$OUT/models/avgpool_relu_$size.onnx"
  "$BUILD/bin/fuse-compile" "$model" -o "$OUT/fused_$size.fbin" \
    --gpu-arch="$ARCH" --no-reference 2>/dev/null
  "$BUILD/bin/fuse-compile" "$model" -o "$OUT/unfused_$size.fbin" \
    --gpu-arch="$ARCH" --no-reference --no-fuse 2>/dev/null
  rm "$model" # the device writes its own inputs; models are not needed there
done
du -sh "$OUT"
