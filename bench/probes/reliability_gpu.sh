#!/usr/bin/env bash
# On the GPU machine: the numerics suites of issue "Reliability III" on the
# cuda target, compiled there by the static fuse-compile (.device/compiler)
# and run by .device/runtime's fuse-run: float-to-integer Cast saturation
# (test/Numerics/Inputs/cast_saturation.py), the float16 ulp suite
# (half_ulps.py), a Concat and a Sum of 10,000 inputs against onnxruntime,
# and the run-time index checks (index_checks.py's models, both plans;
# bench/probes/index_checks.c for async runs and the cost of a check), and
# Splits into 10,000 outputs (views of one copy). Prints the suites' lines.
# RELIABILITY_ONLY=index runs the index checks alone, =wide the wide ops
# alone, =differential (DIFF_MINUTES, DIFF_SEED) fuzz/differential.py on
# the cpu target with a job per core instead.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/models/unpack_compiler.sh
export LD_LIBRARY_PATH=$PWD/.device/runtime:$LD_LIBRARY_PATH
COMPILE=$PWD/.device/compiler/bin/fuse-compile
RUN=$PWD/.device/runtime/fuse-run
DIR=${RELIABILITY_DIR:-/tmp/reliability}
rm -rf "$DIR" && mkdir -p "$DIR/cast" "$DIR/ulps" "$DIR/wide"
status=0
index_checks() {
  local d=$DIR/index
  mkdir -p "$d"
  python3 test/Numerics/Inputs/index_checks.py "$d" || return 1
  local m
  for m in gather gather32 gather_elements gather_nd; do
    "$COMPILE" "$d/$m.onnx" -o "$d/$m.fbin" --reference >/dev/null || return 1
    for plan in main reference; do
      "$RUN" "$d/$m.fbin" --plan $plan --inputs "$d/$m-good.npz" |
        sed "s/^/$m $plan good: /"
      [ "${PIPESTATUS[0]}" = 0 ] || { echo "FAIL: $m $plan good"; return 1; }
      if "$RUN" "$d/$m.fbin" --plan $plan --inputs "$d/$m-bad.npz" \
           2>"$d/err.txt"; then
        echo "FAIL: $m $plan bad indices ran"; return 1
      fi
      grep -q "is out of range" "$d/err.txt" ||
        { echo "FAIL: $m $plan: $(cat "$d/err.txt")"; return 1; }
      echo "$m $plan bad: $(cat "$d/err.txt")"
    done
  done
  # A BERT-sized embedding: [32, 128] ids into 30522 rows of 768.
  python3 - "$d/embedding.onnx" <<'PY' || return 1
import sys, numpy as np, onnx
from onnx import TensorProto as T, helper, numpy_helper
table = numpy_helper.from_array(np.random.default_rng(0).standard_normal(
    (30522, 768)).astype(np.float16), "table")
graph = helper.make_graph(
    [helper.make_node("Gather", ["table", "ids"], ["y"], name="emb")], "e",
    [helper.make_tensor_value_info("ids", T.INT64, [32, 128])],
    [helper.make_tensor_value_info("y", T.FLOAT16, [32, 128, 768])], [table])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          sys.argv[1])
PY
  "$COMPILE" "$d/embedding.onnx" -o "$d/embedding.fbin" >/dev/null &&
    "$COMPILE" "$d/embedding.onnx" -o "$d/embedding-nc.fbin" \
      --no-index-checks >/dev/null || return 1
  cc -O2 bench/probes/index_checks.c -I runtime/include \
    -L .device/runtime -lfuse_runtime -o "$d/index_checks" || return 1
  "$d/index_checks" "$d/embedding.fbin" "$d/embedding-nc.fbin" 30522 || return 1
  for f in embedding embedding-nc; do
    "$RUN" "$d/$f.fbin" --bench --warmup 50 --iterations 500 | sed "s/^/$f: /"
  done
}
wide_ops() {
  local op n
  for op in Concat:10000 Sum:10000 Split:10000 SplitSqueeze:10000 \
            SplitInner:50; do
    n=${op#*:}; op=${op%:*}
    local start=$SECONDS
    python3 test/Numerics/Inputs/wide_ops.py check "$op" "$n" \
      --fuse-compile "$COMPILE" --fuse-run "$RUN" --workdir "$DIR/wide" \
      --target cuda || return 1
    echo "  ($((SECONDS - start)) s with the compile)"
  done
  python3 test/Numerics/Inputs/wide_ops.py growth Split 2000 8000 \
    --fuse-compile "$COMPILE" --workdir "$DIR/wide"
}
case "${RELIABILITY_ONLY:-}" in
index) index_checks; exit $? ;;
wide) wide_ops; exit $? ;;
differential)
  exec python3 fuzz/differential.py --seed "${DIFF_SEED:-20261129}" \
    --minutes "${DIFF_MINUTES:-9}" --jobs "$(nproc)" --out "$DIR/diff" \
    --fuse-compile "$COMPILE" --fuse-run "$RUN" ;;
esac
index_checks || status=1
python3 test/Numerics/Inputs/cast_saturation.py --fuse-compile "$COMPILE" \
  --fuse-run "$RUN" --workdir "$DIR/cast" --target cuda || status=1
python3 test/Numerics/Inputs/half_ulps.py --fuse-compile "$COMPILE" \
  --fuse-run "$RUN" --workdir "$DIR/ulps" --target cuda || status=1
wide_ops || status=1
exit $status
