#!/usr/bin/env bash
# On the GPU machine: the attention chains of attention_cases.py (head
# sizes 64, 48 and 32, partial row and key tiles, 16- and 64-row blocks,
# a sample whose keys are all masked, grouped-query heads, Q, K and V
# split off one fused projection (read at head offsets); Q, K and V
# [B, H, S, D], read heads first), compiled for cuda by the static
# fuse-compile (.device/compiler) and run by fuse-run (.device/runtime)
# through the `attention` mapping, each compared with onnxruntime (CPU,
# fp32) by test/Numerics/Inputs/check_model.py. Exit 1 if one fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/models/unpack_compiler.sh
WORK=${FUSE_BENCH_DIR:-/tmp/attention_cases}
python3 bench/models/attention_cases.py "$WORK/models" > /dev/null || exit 1
status=0
for model in "$WORK"/models/*.onnx; do
  name=$(basename "$model" .onnx)
  strategy=$(.device/compiler/bin/fuse-compile "$model" --target=cuda \
    --fusion-report -o /dev/null 2>&1 | grep -o 'kernel attention[^)]*')
  if out=$(python3 test/Numerics/Inputs/check_model.py "$model" \
      --target cuda --compile-arg=--no-reference --int-high 2 \
      --fuse-compile .device/compiler/bin/fuse-compile \
      --fuse-run .device/runtime/fuse-run --workdir "$WORK/$name" 2>&1); then
    echo "$name ($strategy): PASS"
  else
    echo "$name ($strategy): FAIL"
    status=1
  fi
  echo "$out" | grep '^output '
done
exit $status
