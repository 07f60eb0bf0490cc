#!/usr/bin/env bash
# Builds, here, what bench/precision/check.sh checks on the GPU machine:
# small models compiled for cuda in each precision, into .device/precision
# (ignored by git, carried by the device call). Models: the library-call
# shapes of test/Numerics (library_calls), the mini transformer, light
# SqueezeNet, the attention shapes of the tensor-core kernel
# (attention_tiles), the row widths of the rows kernels (row_chunks), a
# small ResNet (conv_nhwc), the `transpose` tiles (transposes) and three of the small transformer exports,
# each compiled
# from its float32 file with --precision=fp16, bf16 and tf32, and from its
# float16 version (to_half.py; what PyTorch's model.half() exports) with
# the default precision, and with --precision=fp16 --io-precision=fp16;
# models with convolutions also with --conv=nhwc-direct in fp16, bf16 and
# tf32.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${FUSE_BUILD_DIR:-build}
OUT=.device/precision
ARCH=${FUSE_GPU_ARCH:-sm_90}
./scripts/build.sh >/dev/null
rm -rf "$OUT" && mkdir -p "$OUT/models"
cp "$BUILD/bin/fuse-run" "$OUT/"
python3 test/Numerics/Inputs/models.py library_calls "$OUT/models/library_calls.onnx"
python3 test/Numerics/Inputs/models.py attention_tiles "$OUT/models/attention_tiles.onnx"
python3 test/Numerics/Inputs/models.py row_chunks "$OUT/models/row_chunks.onnx"
python3 test/Numerics/Inputs/models.py conv_nhwc "$OUT/models/conv_nhwc.onnx"
python3 test/Numerics/Inputs/models.py transposes "$OUT/models/transposes.onnx"
python3 test/Models/Inputs/transformer.py "$OUT/models/mini_bert.onnx"
python3 test/Models/Inputs/light_model.py squeezenet "$OUT/models/squeezenet.onnx"
for m in bert_sdpa_dynamo gpt2_dynamo llama_dynamo; do
  # Weights inside the file: the device call carries one file a model.
  python3 -c "import onnx,sys; onnx.save(onnx.load(sys.argv[1]), sys.argv[2])" \
    "test/Models/Inputs/exports/$m.onnx" "$OUT/models/$m.onnx"
done
for m in $(cd "$OUT/models" && ls *.onnx | sed 's/\.onnx$//'); do
  python3 test/Models/Inputs/to_half.py "$OUT/models/$m.onnx" "$OUT/models/${m}_f16.onnx"
  for p in fp16 bf16 tf32; do
    "$BUILD/bin/fuse-compile" "$OUT/models/$m.onnx" -o "$OUT/$m.$p.fbin" \
      --gpu-arch="$ARCH" --precision=$p --conv=direct \
      --fusion-report --fusion-report-file="$OUT/$m.$p.report.txt" 2>/dev/null
  done
  # The conv path through im2col and cuBLASLt too (NHWC for CNNs).
  "$BUILD/bin/fuse-compile" "$OUT/models/$m.onnx" -o "$OUT/$m.fp16gemm.fbin" \
    --gpu-arch="$ARCH" --precision=fp16 2>/dev/null
  "$BUILD/bin/fuse-compile" "$OUT/models/$m.onnx" -o "$OUT/$m.bf16gemm.fbin" \
    --gpu-arch="$ARCH" --precision=bf16 2>/dev/null
  "$BUILD/bin/fuse-compile" "$OUT/models/${m}_f16.onnx" -o "$OUT/$m.f16model.fbin" \
    --gpu-arch="$ARCH" 2>/dev/null
  # CNNs' windowed convolutions as cuDNN NHWC calls (onnx.NhwcConv).
  if python3 -c "import onnx,sys; sys.exit(not any(n.op_type == 'Conv' for n in onnx.load(sys.argv[1]).graph.node))" "$OUT/models/$m.onnx"; then
    for p in fp16 bf16 tf32; do
      "$BUILD/bin/fuse-compile" "$OUT/models/$m.onnx" -o "$OUT/$m.${p}direct.fbin" \
        --gpu-arch="$ARCH" --precision=$p --conv=nhwc-direct 2>/dev/null
    done
  fi
  # float16 inputs and outputs of the float32 model (checked like the
  # float16 export, whose inputs they take).
  "$BUILD/bin/fuse-compile" "$OUT/models/$m.onnx" -o "$OUT/$m.iofp16.fbin" \
    --gpu-arch="$ARCH" --precision=fp16 --io-precision=fp16 2>/dev/null
done
du -sh "$OUT"
