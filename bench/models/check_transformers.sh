#!/usr/bin/env bash
# On the GPU machine: the small transformer exports of
# export_transformers.py (BERT sdpa/eager with and without a mask, GPT-2,
# Llama-style; legacy and default exporters), compiled for cuda by the
# static fuse-compile (.device/compiler, carried over) and run by fuse-run
# (.device/runtime), every output compared with onnxruntime (CPU, fp32) by
# test/Numerics/Inputs/check_model.py: per element |fuse - ort| <= 1e-5 +
# 1e-4 |ort|, and the relative L2 error. Prints a line per model and a
# markdown table last; exit 1 if one fails. docs/transformers.md has the
# table.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/models/unpack_compiler.sh
WORK=${FUSE_BENCH_DIR:-/tmp/transformers}
mkdir -p "$WORK"
python3 bench/models/export_transformers.py --out "$WORK/models" \
  > "$WORK/export.log" 2>&1 || echo "some exports failed: $WORK/export.log"
status=0
table="| model | result | max abs err | rel. L2 |"$'\n'"|---|---|---|---|"
for model in "$WORK"/models/*.onnx; do
  name=$(basename "$model" .onnx)
  if out=$(python3 test/Numerics/Inputs/check_model.py "$model" \
      --target cuda --compile-arg=--no-reference \
      --fuse-compile .device/compiler/bin/fuse-compile \
      --fuse-run .device/runtime/fuse-run --workdir "$WORK/$name" 2>&1); then
    result=PASS
  else
    result=FAIL
    status=1
  fi
  echo "$name: $result"
  echo "$out" | tail -4
  line=$(echo "$out" | grep '^output ' | head -1)
  abs=$(echo "$line" | sed -n 's/.*max_abs_err=\([^ ]*\).*/\1/p')
  l2=$(echo "$line" | sed -n 's/.*rel_l2=\([^ ]*\).*/\1/p')
  table+=$'\n'"| $name | $result | ${abs:--} | ${l2:--} |"
done
echo
echo "$table"
exit $status
