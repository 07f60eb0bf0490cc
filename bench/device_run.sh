#!/usr/bin/env bash
# On the GPU machine, after bench/prepare_device.sh ran here and .device/
# was carried over: GPU numerics of the test models, then the seed
# benchmark. Tables are printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bench/runtime_gpu_smoke.sh
smoke=$?
python3 bench/gpu_check.py .device/gpu_check
check=$?
python3 test/Conformance/run_node_tests.py --run-only .device/conformance \
  --fuse-run .device/gpu_check/bin/fuse-run --fail-on-failure
conformance=$?
python3 bench/avgpool_relu/run.py .device/avgpool_relu
exit $(( smoke || check || conformance || $? ))
