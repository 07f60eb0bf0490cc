#!/usr/bin/env bash
# On the GPU machine, after bench/prepare_device.sh ran here and .device/
# was carried over: runs NVIDIA's compute-sanitizer on fuse-run over every
# GPU artifact, once with --tool memcheck (out-of-bounds and misaligned
# accesses, invalid frees, leaks of device memory with --leak-check full)
# and once with --tool racecheck (shared-memory hazards), and prints a table
# of error counts. One run each: the test models of .device/gpu_check with
# --check (plan main, then plan reference, so both are checked), the seed
# benchmark's fused_*/unfused_*.fbin with a plain run (the 16384x16384 one
# is slow under memcheck; it is given $FUSE_SANITIZE_TIMEOUT seconds, default
# 3600).
#
#   bash bench/sanitize_gpu.sh [all|models|bench]   # logs in $OUT or .device-out/, sanitize/
#
# `models` runs the test models only, `bench` the seed benchmark only (two
# device calls where one would run past the per-call time limit).
#
# Exit status: 0 if every run reported 0 errors and fuse-run succeeded, 1
# otherwise, 2 if something needed is missing. The results go into
# docs/robustness.md ("GPU: compute-sanitizer").
set -uo pipefail
cd "$(dirname "$0")/.."

SANITIZER=${COMPUTE_SANITIZER:-}
if [ -z "$SANITIZER" ]; then
  for candidate in "$(command -v compute-sanitizer || true)" \
      "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
      /usr/local/cuda/bin/compute-sanitizer; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      SANITIZER=$candidate
      break
    fi
  done
fi
if [ -z "$SANITIZER" ]; then
  echo "sanitize_gpu: compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2
  exit 2
fi

FUSE_RUN=""
for candidate in .device/gpu_check/bin/fuse-run .device/avgpool_relu/bin/fuse-run; do
  if [ -x "$candidate" ]; then
    FUSE_RUN=$candidate
    break
  fi
done
if [ -z "$FUSE_RUN" ]; then
  echo "sanitize_gpu: no .device/*/bin/fuse-run: run bench/prepare_device.sh" \
    "here first and carry .device/ over" >&2
  exit 2
fi

SET=${1:-all}
case "$SET" in
  all|models|bench) ;;
  *) echo "sanitize_gpu: unknown set '$SET' (all, models or bench)" >&2; exit 2 ;;
esac
shopt -s nullglob
CHECKED=() PLAIN=()
[ "$SET" = bench ] || CHECKED=(.device/gpu_check/*.fbin)
[ "$SET" = models ] ||
  PLAIN=(.device/avgpool_relu/fused_*.fbin .device/avgpool_relu/unfused_*.fbin)
shopt -u nullglob
if [ $((${#CHECKED[@]} + ${#PLAIN[@]})) -eq 0 ]; then
  echo "sanitize_gpu: no artifacts in .device/: run bench/prepare_device.sh" >&2
  exit 2
fi

LOGS=${OUT:-.device-out}/sanitize
mkdir -p "$LOGS"
TIMEOUT=${FUSE_SANITIZE_TIMEOUT:-3600}
echo "sanitize_gpu: $("$SANITIZER" --version | tail -1), fuse-run $FUSE_RUN"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null

rows=()
failures=0
# run ARTIFACT TOOL FUSE-RUN-OPTION...
run() {
  local artifact=$1 tool=$2
  shift 2
  local name log start status seconds errors
  name=$(basename "$(dirname "$artifact")")_$(basename "$artifact" .fbin)
  log=$LOGS/$name.$tool.log
  local options=(--tool "$tool" --print-limit 50)
  [ "$tool" = memcheck ] && options+=(--leak-check full)
  start=$(date +%s)
  timeout "$TIMEOUT" "$SANITIZER" "${options[@]}" "$FUSE_RUN" "$artifact" \
    "$@" >"$log" 2>&1
  status=$?
  seconds=$(($(date +%s) - start))
  # memcheck ends with "========= ERROR SUMMARY: 3 errors"; racecheck with
  # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)" only.
  local hazards=""
  if [ "$tool" = racecheck ]; then
    hazards=$(grep -oE 'RACECHECK SUMMARY: [0-9]+' "$log" | tail -1 |
              grep -oE '[0-9]+')
    errors=$(grep -oE 'RACECHECK SUMMARY: .*\([0-9]+ errors' "$log" | tail -1 |
             grep -oE '[0-9]+ errors' | grep -oE '[0-9]+')
  else
    errors=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | tail -1 |
             grep -oE '[0-9]+')
  fi
  local result=ok
  if [ "$status" -eq 124 ]; then
    result="TIMEOUT after ${TIMEOUT}s"
  elif [ -z "$errors" ]; then
    result="no summary (exit $status)"
  elif [ "$errors" -ne 0 ] || [ "${hazards:-0}" -ne 0 ]; then
    result="ERRORS"
  elif [ "$status" -ne 0 ]; then
    result="fuse-run exit $status"
  fi
  [ "$result" = ok ] || failures=$((failures + 1))
  rows+=("$(printf '%-34s %-9s %6s %7s %7s  %s' "$name" "$tool" \
    "${errors:-?}" "${hazards:--}" "$seconds" "$result")")
  echo "sanitize_gpu: $name $tool: ${errors:-?} errors, $result ($log)"
}

for artifact in "${CHECKED[@]}"; do
  for tool in memcheck racecheck; do
    run "$artifact" "$tool" --check
  done
done
for artifact in "${PLAIN[@]}"; do
  for tool in memcheck racecheck; do
    run "$artifact" "$tool"
  done
done

echo
printf '%-34s %-9s %6s %7s %7s  %s\n' artifact tool errors hazards seconds result
printf '%s\n' "${rows[@]}"
if [ "$failures" -gt 0 ]; then
  echo "sanitize_gpu: $failures run(s) with errors or failures (logs in $LOGS)"
  exit 1
fi
echo "sanitize_gpu: ${#rows[@]} runs, no errors"
