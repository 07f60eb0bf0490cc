#!/usr/bin/env bash
# Builds every fuzz target (clang-22, libFuzzer + ASan + UBSan, into
# $FUSE_FUZZ_BUILD_DIR, default build-fuzz/) and runs each for SECONDS
# (default 60) on a scratch copy of its seed corpus, fuzz/corpus/<target>/,
# so that runs do not grow the repository's corpus.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     e.g. fuzz/run.sh 20, fuzz/run.sh 1800 import
#
# Exits non-zero if any target finds a crash, a sanitizer report, a leak, a
# timeout (an input that runs longer than $FUSE_FUZZ_TIMEOUT seconds,
# default 30) or an out-of-memory (over 2 GiB); each is printed with the
# path of the input that causes it, kept under
# $FUSE_FUZZ_BUILD_DIR/fuzz-out/<target>/, and the command that replays it.
# FUSE_FUZZ_SEED=N passes -seed=N to every target (CI's run uses 1).
# With FUSE_FUZZ_KEEP_GOING=1 a target goes on after a crash (libFuzzer's
# -fork=1 -ignore_crashes=1 ...: one child process at a time), so that a long
# run collects every crash it finds; the run still fails at the end.
# Ends with a table per target: executions, exec/s, coverage (libFuzzer's
# cov: and ft:), corpus size, inputs that failed and the result.
# docs/robustness.md has more.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
BUILD_DIR=${FUSE_FUZZ_BUILD_DIR:-build-fuzz}
TIMEOUT=${FUSE_FUZZ_TIMEOUT:-30}
ALL_TARGETS=(import import-text artifact tensor-files)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")

./scripts/setup.sh
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  # -O1: the usual fuzzing trade between speed and build time; the MLIR
  # translation units are slow to compile with sanitizers at -O3.
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_FLAGS_RELEASE=-O1 -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
    -DFUSE_BUILD_FUZZERS=ON -DFUSE_SANITIZE=address,undefined \
    -DPython3_EXECUTABLE="$(command -v python3)"
fi
cmake --build "$BUILD_DIR" --target fuzzers

# Sanitizer reports are fatal and carry stacks; leaks are checked after
# every input that allocates more than it frees (libFuzzer's -detect_leaks).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export FUSE_FUZZ_TRUSTED_IMAGES=$PWD/fuzz/corpus/artifact

OUT=$BUILD_DIR/fuzz-out
failed=()
summary=()
for target in "${TARGETS[@]}"; do
  binary=$BUILD_DIR/bin/fuzz-$target
  [ -x "$binary" ] || { echo "fuzz: no target '$target'" >&2; exit 2; }
  work=$OUT/$target
  # The inputs a previous run failed on are kept, not overwritten.
  if [ -n "$(ls -A "$work/crashes" 2>/dev/null)" ]; then
    mkdir -p "$OUT/previous"
    mv "$work" "$OUT/previous/$target-$(date +%Y%m%d-%H%M%S)"
  fi
  rm -rf "$work"
  mkdir -p "$work/crashes"
  cp -r "fuzz/corpus/$target" "$work/corpus"
  extra=()
  [ -f "fuzz/$target.dict" ] && extra+=("-dict=fuzz/$target.dict")
  # A fixed seed (CI sets one) makes a run on the same code mostly
  # repeatable; new inputs are the long runs' job.
  [ -n "${FUSE_FUZZ_SEED:-}" ] && extra+=("-seed=$FUSE_FUZZ_SEED")
  [ "${FUSE_FUZZ_KEEP_GOING:-0}" = 1 ] &&
    extra+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  echo "== fuzz-$target for ${SECONDS_PER_TARGET}s ($(ls "$work/corpus" | wc -l) seeds)"
  status=0
  "$binary" "$work/corpus" -max_total_time="$SECONDS_PER_TARGET" \
    -timeout="$TIMEOUT" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/crashes/" "${extra[@]}" \
    >"$work/log" 2>&1 || status=$?
  # The last status line: "#N<tab>DONE cov: C ft: F corp: K ... exec/s: E"
  # (in fork mode "#N: cov: ..."); N counts the executions.
  last=$(grep -E '^#[0-9]+:?[[:space:]].*cov: ' "$work/log" | tail -1 || true)
  field() { grep -oE "$1:? [0-9]+" <<<"$last" | head -1 | grep -oE '[0-9]+$' || echo "?"; }
  execs=$(grep -oE '^#[0-9]+' <<<"$last" | tr -d '#' || echo "?")
  execs_per_s=$(field exec/s)
  if [ "${FUSE_FUZZ_KEEP_GOING:-0}" != 1 ]; then
    stat() { grep -o "^stat::$1: *[0-9]*" "$work/log" | grep -o '[0-9]*$' || echo "?"; }
    execs=$(stat number_of_executed_units)
    execs_per_s=$(stat average_exec_per_sec)
  fi
  cov=$(field cov)
  ft=$(field ft)
  corpus=$(ls "$work/corpus" | wc -l)
  crashes=$(find "$work/crashes" -type f | sort)
  ncrashes=$(grep -c . <<<"$crashes" || true)
  if [ "$status" -ne 0 ] || [ -n "$crashes" ]; then
    result="FAIL (exit $status)"
    failed+=("$target")
    echo "fuzz-$target FAILED (exit $status); the log is $work/log:"
    grep -E 'ERROR: |runtime error:|SUMMARY:|fuzz: |fuzz-[a-z-]+: |==[0-9]+== ' \
      "$work/log" | head -20 || true
    for crash in $crashes; do
      echo "  input: $crash"
      echo "  replay: $binary $crash"
    done
  else
    result=ok
  fi
  summary+=("$(printf '%-14s %8s %10s %8s %6s %7s %7s %7s  %s' "$target" \
    "$SECONDS_PER_TARGET" "$execs" "$execs_per_s" "$cov" "$ft" "$corpus" \
    "$ncrashes" "$result")")
done

echo
printf '%-14s %8s %10s %8s %6s %7s %7s %7s  %s\n' target seconds execs \
  exec/s cov ft corpus failed result
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: all ${#TARGETS[@]} targets ran clean"
