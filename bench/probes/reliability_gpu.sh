#!/usr/bin/env bash
# On the GPU machine: the numerics suites of issue "Reliability III" on the
# cuda target, compiled there by the static fuse-compile (.device/compiler)
# and run by .device/runtime's fuse-run: float-to-integer Cast saturation
# (test/Numerics/Inputs/cast_saturation.py), the float16 ulp suite
# (half_ulps.py) and a Concat and a Sum of
# 10,000 inputs against onnxruntime. Prints the suites' lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/models/unpack_compiler.sh
export LD_LIBRARY_PATH=$PWD/.device/runtime:$LD_LIBRARY_PATH
COMPILE=$PWD/.device/compiler/bin/fuse-compile
RUN=$PWD/.device/runtime/fuse-run
DIR=${RELIABILITY_DIR:-/tmp/reliability}
rm -rf "$DIR" && mkdir -p "$DIR/cast" "$DIR/ulps" "$DIR/wide"
status=0
python3 test/Numerics/Inputs/cast_saturation.py --fuse-compile "$COMPILE" \
  --fuse-run "$RUN" --workdir "$DIR/cast" --target cuda || status=1
python3 test/Numerics/Inputs/half_ulps.py --fuse-compile "$COMPILE" \
  --fuse-run "$RUN" --workdir "$DIR/ulps" --target cuda || status=1
for op in Concat Sum; do
  python3 test/Numerics/Inputs/wide_ops.py check "$op" 10000 \
    --fuse-compile "$COMPILE" --fuse-run "$RUN" --workdir "$DIR/wide" \
    --target cuda || status=1
done
exit $status
