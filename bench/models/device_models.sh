#!/usr/bin/env bash
# On the GPU machine: ResNet-50, MobileNetV2 and BERT-base exported from
# PyTorch, compiled there by the static fuse-compile, run and compared with
# onnxruntime (see run_models.py). Needs .device/compiler
# (build_static_compiler.sh) and .device/gpu_check/bin/fuse-run
# (bench/prepare_device.sh), carried over.
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .device/compiler/bin/fuse-compile ]; then
  python3 -c "import lzma, shutil, sys
with lzma.open(sys.argv[1]) as src, open(sys.argv[2], 'wb') as dst:
    shutil.copyfileobj(src, dst)" .device/compiler/bin/fuse-compile.xz \
    .device/compiler/bin/fuse-compile
  chmod +x .device/compiler/bin/fuse-compile
fi
python3 bench/models/run_models.py --out /tmp/models "$@"
status=$?
# The weightless graphs and compile logs (small) come back for debugging.
if [ -n "${OUT:-}" ]; then
  cp /tmp/models/*.graph.onnx /tmp/models/*.compile.log "$OUT/" 2>/dev/null
fi
exit $status
