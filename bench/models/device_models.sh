#!/usr/bin/env bash
# On the GPU machine: the whole-model benchmark (benchmark.py: ResNet-50,
# MobileNetV2 and BERT-base exported from PyTorch, compiled there by the
# static fuse-compile, run by fuse, PyTorch eager and torch.compile in one
# process, checked against onnxruntime). Needs .device/compiler
# (build_static_compiler.sh) and .device/runtime (bench/prepare_device.sh),
# carried over. Arguments go to benchmark.py. The small results (table,
# profiles, fusion reports) are packed into $OUT/models.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .device/compiler/bin/fuse-compile ]; then
  python3 -c "import lzma, shutil, sys
with lzma.open(sys.argv[1]) as src, open(sys.argv[2], 'wb') as dst:
    shutil.copyfileobj(src, dst)" .device/compiler/bin/fuse-compile.xz \
    .device/compiler/bin/fuse-compile
  chmod +x .device/compiler/bin/fuse-compile
fi
export LD_LIBRARY_PATH=$PWD/.device/compiler/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
WORK=${FUSE_BENCH_DIR:-/tmp/models}
mkdir -p "$WORK"
PYTHONUNBUFFERED=1 python3 bench/models/benchmark.py --out "$WORK" "$@"
status=$?
if [ -n "${OUT:-}" ]; then
  (cd "$WORK" && tar czf "$OUT/models.tgz" --ignore-failed-read \
     *.json *.txt *.log 2>/dev/null)
fi
exit $status
