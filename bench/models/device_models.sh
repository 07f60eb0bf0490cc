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
. bench/models/unpack_compiler.sh
WORK=${FUSE_BENCH_DIR:-/tmp/models}
mkdir -p "$WORK"
PYTHONUNBUFFERED=1 python3 bench/models/benchmark.py --out "$WORK" "$@"
status=$?
if [ -n "${OUT:-}" ]; then
  (cd "$WORK" && tar czf "$OUT/models.tgz" --ignore-failed-read \
     *.json *.txt *.log 2>/dev/null)
fi
exit $status
