#!/usr/bin/env bash
# On the GPU machine: bench/probes/mma_shapes.py's models compiled there by
# the static fuse-compile (.device/compiler, carried), each artifact
# checked against its reference plan (fuse-run --check, at a few ulps of
# the half type) and profiled
# (--profile); compute-sanitizer memcheck and racecheck on the odd shapes'
# tensor-core kernels. Logs go to $OUT/mma_*.log; a summary to stdout.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/models/unpack_compiler.sh
RUN=.device/runtime/fuse-run
export LD_LIBRARY_PATH=$PWD/.device/runtime:$LD_LIBRARY_PATH
DIR=${MMA_DIR:-/tmp/mma_shapes}
LOG=${OUT:-/tmp}/mma_runs.log
python3 bench/probes/mma_shapes.py .device/compiler/bin/fuse-compile "$DIR" \
  > "${OUT:-/tmp}/mma_compile.log" 2>&1 || { tail -20 "${OUT:-/tmp}/mma_compile.log"; exit 1; }
: > "$LOG"
for f in "$DIR"/*.fbin; do
  n=$(basename "$f" .fbin)
  echo "== $n check" >> "$LOG"
  # Half-precision outputs against the reference plan's f32: a few ulps.
  tol=1e-2; case $n in *bf16*) tol=5e-2 ;; esac
  "$RUN" "$f" --check --rtol $tol --atol $tol >> "$LOG" 2>&1
  echo "rc $?" >> "$LOG"
  echo "== $n profile" >> "$LOG"
  "$RUN" "$f" --profile --warmup 20 --iterations 200 >> "$LOG" 2>&1
done
for tool in memcheck racecheck; do
  for p in fp16 bf16; do
    for v in mma mma_s2; do
      echo "== sanitizer $tool odd_shapes.$p.$v" >> "$LOG"
      compute-sanitizer --tool $tool "$RUN" "$DIR/odd_shapes.$p.$v.fbin" \
        --iterations 1 --warmup 0 --bench >> "$LOG" 2>&1 | tail -3
    done
  done
done
cat "$LOG" | cut -c1-150
