#!/usr/bin/env bash
# Builds, here, everything the GPU machine needs into .device/ (ignored by
# git, carried by the device call; the GPU machine has no LLVM, so models
# are compiled here):
#   .device/gpu_check/     the numeric test models, their cuda artifacts and
#                          fusion reports (NAME.fusion.json, which
#                          gpu_check.py reads the choices from)
#   .device/avgpool_relu/  the seed benchmark (see avgpool_relu/prepare.sh)
#   .device/conformance/   the ONNX node tests that compile for cuda, their
#                          artifacts and data (run_node_tests.py --export)
#   .device/runtime/       libfuse_runtime.so, fuse-run and fuse-tune, for
#                          bench/models/benchmark.py
# (bench/models/build_static_compiler.sh adds .device/compiler/, the
# fuse-compile that bench/models/benchmark.py runs there.)
# Then, on the GPU machine:  bash bench/device_run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${FUSE_BUILD_DIR:-build}
ARCH=${FUSE_GPU_ARCH:-sm_90}
OUT=.device/gpu_check

./scripts/build.sh >/dev/null
rm -rf "$OUT" && mkdir -p "$OUT/models" "$OUT/bin"
cp "$BUILD/bin/fuse-run" "$BUILD/bin/fuse-tune" "$BUILD/bin/fuse-runtime-api-test" \
  "$OUT/bin/"
compile() { # NAME FLAGS...: models/NAME.onnx to NAME.fbin, NAME.fusion.json
  local name=$1; shift
  "$BUILD/bin/fuse-compile" "$OUT/models/$name.onnx" -o "$OUT/$name.fbin" \
    --gpu-arch="$ARCH" --reference --fusion-report=json \
    --fusion-report-file="$OUT/$name.fusion.json" "$@" >/dev/null
}
for name in $(python3 test/Numerics/Inputs/models.py --list); do
  python3 test/Numerics/Inputs/models.py "$name" "$OUT/models/$name.onnx"
  compile "$name"
done
# Whole models small enough to carry: the mini transformer and SqueezeNet
# with random weights.
python3 test/Models/Inputs/transformer.py "$OUT/models/mini_bert.onnx"
python3 test/Models/Inputs/light_model.py squeezenet \
  "$OUT/models/light_squeezenet.onnx"
for name in mini_bert light_squeezenet; do
  compile "$name"
done
# fuse's generated contractions (the `tiles` mapping) against onnxruntime:
# the models with contractions compiled with --strategy=generated, as
# gen_NAME (convolutions as im2col and a matmul), and tiled_contractions
# with each thread tile forced, as genRC_NAME, with no staging (gen0_),
# with one stage (gen1s_), split-K (splitN_) and cp.async (asyncN_).
variant() { # PREFIX NAME FLAGS...
  local prefix=$1 name=$2; shift 2
  cp "$OUT/models/$name.onnx" "$OUT/models/${prefix}_$name.onnx"
  compile "${prefix}_$name" "$@"
}
for name in tiled_contractions gemm_bias_relu library_calls matmul_reshape \
    conv_gemm mini_bert; do
  variant gen "$name" --strategy=generated --conv=gemm
done
for tile in 8,8 8,4 4,4 4,2 2,1; do
  variant "gen${tile/,/}" tiled_contractions --strategy=generated \
    --gpu-contraction-tile="$tile"
done
variant gen0 tiled_contractions --strategy=generated --gpu-k-tile=0
variant gen1s tiled_contractions --strategy=generated --gpu-stages=1
# Split-K forced (splitN_): the partial products' `tiles` kernels read
# their operands through reshaped views.
for name in split_k tiled_contractions conv_gemm matmul_reshape mini_bert; do
  variant split4 "$name" --strategy=generated --conv=gemm --split-k=4
done
variant split16 split_k --strategy=generated --split-k=16
variant split2 tiled_contractions --strategy=generated --split-k=2 \
  --gpu-stages=1
# Asynchronous copies (asyncN_: cp.async into N shared buffers), with
# forced tiles, split-K (reshaped views) and convolutions as matmuls.
for name in tiled_contractions conv_gemm mini_bert split_k; do
  variant async3 "$name" --strategy=generated --conv=gemm --gpu-async-copy \
    --gpu-stages=3
done
variant async2 tiled_contractions --strategy=generated --gpu-async-copy \
  --gpu-stages=2
variant async88 tiled_contractions --strategy=generated --gpu-async-copy \
  --gpu-stages=3 --gpu-contraction-tile=8,8
variant async4s split_k --strategy=generated --split-k=4 --gpu-async-copy \
  --gpu-stages=2
mkdir -p .device/runtime
cp "$BUILD/lib/libfuse_runtime.so" "$BUILD/bin/fuse-run" "$BUILD/bin/fuse-tune" \
  .device/runtime/
bench/avgpool_relu/prepare.sh
python3 test/Conformance/run_node_tests.py --target=cuda --compile-only \
  --fuse-compile "$BUILD/bin/fuse-compile" --workdir "$BUILD/conformance-cuda" \
  --export .device/conformance --show
du -sh .device
