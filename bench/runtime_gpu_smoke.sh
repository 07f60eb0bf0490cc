#!/usr/bin/env bash
# The runtime's GPU tests (test/Runtime/cuda-gpu.test, cuda-cubin.test,
# cuda-gpu-oom.test),
# for a GPU machine without lit/FileCheck: the same artifacts and checks,
# with grep. Needs .device/gpu_check/bin/{fuse-run,fuse-runtime-api-test}.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.device/gpu_check/bin
IN=test/Runtime/Inputs
T=$(mktemp -d)
PTXAS=$(command -v ptxas || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas")
fails=0
expect() { # expect NAME PATTERN COMMAND...
  local name=$1 pattern=$2; shift 2
  if { "$@" 2>&1 || true; } | grep -q -- "$pattern"; then echo "smoke: PASS $name";
  else echo "smoke: FAIL $name"; "$@" 2>&1 | tail -3; fails=$((fails + 1)); fi
}
arch=$(python3 -c "import ctypes; c = ctypes.CDLL('libcuda.so.1'); c.cuInit(0); d = ctypes.c_int(); c.cuDeviceGet(ctypes.byref(d), 0); M = ctypes.c_int(); m = ctypes.c_int(); c.cuDeviceGetAttribute(ctypes.byref(M), 75, d); c.cuDeviceGetAttribute(ctypes.byref(m), 76, d); print(f'sm_{M.value}{m.value}')")
python3 $IN/make_artifact.py addrelu $T/ptx.fbin --target cuda --ptx $IN/kernels.ptx
expect "PTX JIT --check" "check: PASS" $BIN/fuse-run $T/ptx.fbin --check
expect "C API on CUDA" "main == reference: 1" $BIN/fuse-runtime-api-test $T/ptx.fbin
"$PTXAS" -arch=$arch $IN/kernels.ptx -o $T/native.cubin
python3 $IN/make_artifact.py addrelu $T/native.fbin --target cuda --arch $arch --image $T/native.cubin
expect "native cubin ($arch)" "check: PASS" $BIN/fuse-run $T/native.fbin --check
"$PTXAS" -arch=sm_75 $IN/kernels.ptx -o $T/other.cubin
python3 $IN/make_artifact.py addrelu $T/fallback.fbin --target cuda --arch sm_75 --image $T/other.cubin --ptx $IN/kernels.ptx
expect "sm_75 cubin falls back to PTX" "check: PASS" $BIN/fuse-run $T/fallback.fbin --check
python3 $IN/make_artifact.py addrelu $T/noptx.fbin --target cuda --arch sm_75 --image $T/other.cubin
expect "sm_75 cubin without PTX is an error" "has no PTX to compile for it" $BIN/fuse-run $T/noptx.fbin
python3 $IN/make_artifact.py addrelu $T/huge.fbin --target cuda --ptx $IN/kernels.ptx --extra-arena 1125899906842624
expect "1 PiB arena: C API error names the sizes" "load: status=4 cuda: cuMemAlloc of [0-9]* bytes (weights 96 + plan 'main' arena 1125899906842848.*CUDA_ERROR_OUT_OF_MEMORY (out of memory): the device has [0-9]* bytes free of [0-9]*" $BIN/fuse-runtime-api-test --load $T/huge.fbin
expect "1 PiB arena: fuse-run error" "error: cuda: cuMemAlloc of [0-9]* bytes" $BIN/fuse-run $T/huge.fbin
rm -rf $T
exit $((fails > 0))
