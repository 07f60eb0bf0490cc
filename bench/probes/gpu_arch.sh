#!/usr/bin/env bash
# On the GPU machine: artifacts compiled for other architectures than the
# card's (--gpu-arch=sm_80, sm_89: the runtime JIT-compiles their PTX, and
# their grids are sized for those GPUs' SM counts, fuse.target) and for the
# card's own (sm_90, and --gpu-sms=114), checked against onnxruntime:
# SqueezeNet, the tiny BERT and GPT-2 exports, fp32 and fp16 (the tiny
# transformers' attention on tensor cores from sm_80 on), each with its
# time. Needs .device/compiler and .device/runtime (carried).
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/models/unpack_compiler.sh
export LD_LIBRARY_PATH=$PWD/.device/runtime:$LD_LIBRARY_PATH
COMPILE=$PWD/.device/compiler/bin/fuse-compile
RUN=$PWD/.device/runtime/fuse-run
DIR=${GPU_ARCH_DIR:-/tmp/gpu_arch}
rm -rf "$DIR" && mkdir -p "$DIR"
nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader
python3 test/Models/Inputs/light_model.py squeezenet "$DIR/sq.onnx"
E=test/Models/Inputs/exports
runs=0 fails=0
check() {  # name model tolerance extra-args...
  local name=$1 model=$2 tol=$3; shift 3
  local out
  out=$(python3 test/Numerics/Inputs/check_model.py "$model" \
    --fuse-compile "$COMPILE" --fuse-run "$RUN" --workdir "$DIR/$name" \
    --target cuda --max-rel-l2 "$tol" "$@" 2>&1)
  runs=$((runs + 1))
  if echo "$out" | grep -q "RESULT: PASS"; then
    echo "ok $name: $(echo "$out" | grep -o 'rel_l2=[^ ]*' | tr '\n' ' ')"
  else
    fails=$((fails + 1)); echo "FAIL $name:"; echo "$out" | tail -5
  fi
}
for arch in sm_80 sm_89 sm_90; do
  for p in fp32 fp16; do
    tol=1e-5; [ $p = fp16 ] && tol=5e-3
    a=(--compile-arg=--gpu-arch=$arch --compile-arg=--precision=$p)
    check "sq.$arch.$p" "$DIR/sq.onnx" $tol "${a[@]}"
    check "bert.$arch.$p" $E/bert_sdpa_dynamo.onnx $tol "${a[@]}" \
      --int-high 100 --int-high attention_mask=2
    check "gpt2.$arch.$p" $E/gpt2_legacy.onnx $tol "${a[@]}" --int-high 100 \
      --int-high attention_mask=2
  done
done
check "sq.sms114.fp16" "$DIR/sq.onnx" 5e-3 --compile-arg=--gpu-sms=114 \
  --compile-arg=--precision=fp16
echo "gpu arch check: $runs runs, $fails failed"
# What the JIT costs at load, and what each artifact's replay takes.
for f in "$DIR"/*/*.fbin; do
  printf '%s ' "$f"
  "$RUN" "$f" --bench 2>&1 | grep -m1 "^bench:" || echo
done
[ "$fails" = 0 ]
