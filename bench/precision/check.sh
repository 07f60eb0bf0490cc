#!/usr/bin/env bash
# On the GPU machine, after bench/precision/prepare.sh: every artifact of
# .device/precision against onnxruntime's float32 outputs of its model
# (check_model.py --artifact), each candidate of every choice in turn
# (fuse-run --candidate K). Pass: relative L2 error at most 5e-3 for fp16
# and tf32, 3e-2 for bf16 (about 2^-8 and 2^-5 of what the rounding of
# one operand gives, summed over a model's layers). Prints one line per
# run and a summary last; exit 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
DIR=.device/precision
fails=0 runs=0
for fbin in "$DIR"/*.fbin; do
  base=$(basename "$fbin" .fbin)
  model=${base%.*} kind=${base##*.}
  tol=5e-3
  case $kind in bf16*) tol=3e-2 ;; esac
  onnx="$DIR/models/$model.onnx"
  args=()
  # A model exported in fp16, or compiled with --io-precision=fp16, takes
  # fp16 inputs; the float32 one is the oracle.
  if [ "$kind" = f16model ] || [ "$kind" = iofp16 ]; then
    args+=(--oracle "$onnx")
    onnx="$DIR/models/${model}_f16.onnx"
  fi
  case $model in
    *bert*|*gpt2*|*llama*) args+=(--inputs "$DIR/tokens_$model.npz") ;;
  esac
  if [[ " ${args[*]} " == *" --inputs "* ]] && [ ! -f "$DIR/tokens_$model.npz" ]; then
    python3 - "$onnx" "$DIR/tokens_$model.npz" <<'PY'
import sys, numpy as np, onnx
m = onnx.load(sys.argv[1], load_external_data=False)
rng = np.random.default_rng(0)
feeds = {}
for i in m.graph.input:
    shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
    if "mask" in i.name:
        mask = np.ones(shape, np.int64)
        mask[0, shape[1] * 3 // 4:] = 0  # padding at the end of one row
        feeds[i.name] = mask
    else:
        feeds[i.name] = rng.integers(0, 100, shape).astype(np.int64)
np.savez(sys.argv[2], **feeds)
PY
  fi
  # Each candidate of the fp16 artifacts' choices (up to 4), else the
  # selected ones: fuse-run refuses --candidate on a plan without choices.
  most=$("$DIR/fuse-run" "$fbin" --info |
         sed -n 's/^  choice [0-9]* .*: \([0-9]*\) candidates,.*/\1/p' |
         sort -n | tail -1)
  candidates="selected"
  if [ "$kind" = fp16 ] && [ -n "$most" ]; then
    candidates=$(seq 0 $(( (most < 4 ? most : 4) - 1 )))
  fi
  for k in $candidates; do
    pick=()
    [ "$k" != selected ] && pick=(--run-arg=--candidate --run-arg=$k)
    out=$(python3 test/Numerics/Inputs/check_model.py "$onnx" --artifact "$fbin" \
      --fuse-compile none --fuse-run "$DIR/fuse-run" --workdir /tmp/precision \
      --max-rel-l2 $tol "${pick[@]}" "${args[@]}" 2>&1)
    runs=$((runs + 1))
    if ! echo "$out" | grep -q "RESULT: PASS"; then
      fails=$((fails + 1))
      echo "FAIL $base candidate $k:"; echo "$out" | tail -5
    else
      echo "ok $base candidate $k: $(echo "$out" | grep -o 'rel_l2=[^ ]*' | tr '\n' ' ')"
    fi
  done
done
echo "precision check: $runs runs, $fails failed"
exit $(( fails > 0 ))
