#!/usr/bin/env python3
"""Makes each CUDA driver call the runtime checks fail, one at a time, in
the stand-in driver (mock_cuda.c, MOCK_CUDA_FAIL), and prints the error
that fuse-run reports for each:

    driver_faults.py FUSE_RUN MOCKDIR ARTIFACTDIR

    <symbol>: exit=<status> <fuse-run's error line>

ARTIFACTDIR holds the artifacts of cuda-mock-faults.test (cubin.fbin,
ptx.fbin, noptx.fbin, shared.fbin). A crash, a hang, a success or an error
that does not name the failing call is reported as such (and fails the
test through FileCheck).
"""

import os
import subprocess
import sys

fuse_run, mock, artifacts = sys.argv[1:4]

# (MOCK_CUDA_FAIL, artifact, fuse-run options, what the error must name).
# The call the runtime makes, then the step it fails in: load, run,
# reading the outputs, benchmarking.
CASES = [
    ("cuInit", "cubin", [], "cuInit"),
    ("cuDeviceGetCount", "cubin", [], "cuDeviceGetCount"),
    ("cuDeviceGet", "cubin", [], "cuDeviceGet"),
    ("cuDevicePrimaryCtxRetain", "cubin", [], "cuDevicePrimaryCtxRetain"),
    ("cuCtxSetCurrent", "cubin", [], "cuCtxSetCurrent"),
    ("cuModuleLoadData", "cubin", [], "cuModuleLoadData"),
    ("cuModuleLoadDataEx", "ptx", [], "cuModuleLoadDataEx"),
    ("cuModuleGetFunction", "cubin", [], "cuModuleGetFunction"),
    ("cuFuncSetAttribute", "shared", [], "cuFuncSetAttribute"),
    ("cuMemAlloc_v2", "cubin", [], "cuMemAlloc"),
    ("cuMemcpyHtoD_v2", "cubin", [], "cuMemcpyHtoD"),
    ("cuStreamCreate", "cubin", [], "cuStreamCreate"),
    ("cuEventCreate", "cubin", [], "cuEventCreate"),
    ("cuStreamBeginCapture_v2", "cubin", [], "cuStreamBeginCapture"),
    ("cuLaunchKernel", "cubin", [], "cuLaunchKernel"),
    ("cuStreamEndCapture", "cubin", [], "cuStreamEndCapture"),
    ("cuGraphInstantiateWithFlags", "cubin", [], "cuGraphInstantiate"),
    ("cuGraphLaunch", "cubin", [], "cuGraphLaunch"),
    ("cuStreamSynchronize", "cubin", [], "cuStreamSynchronize"),
    ("cuMemcpyDtoH_v2", "cubin", [], "cuMemcpyDtoH"),
    ("cuEventRecord", "cubin", ["--bench"], "cuEventRecord"),
    ("cuEventSynchronize", "cubin", ["--bench"], "cuEventSynchronize"),
    ("cuEventElapsedTime_v2", "cubin", ["--bench"], "cuEventElapsedTime"),
    # The calls that only describe an error: it is still reported, with
    # less detail.
    ("cuMemAlloc_v2,cuMemGetInfo_v2", "cubin", [], "cuMemAlloc"),
    ("cuMemAlloc_v2,cuGetErrorName", "cubin", [], "cuMemAlloc"),
    ("cuMemAlloc_v2,cuGetErrorString", "cubin", [], "cuMemAlloc"),
    ("cuDeviceGetAttribute", "noptx", [], "cuDeviceGetAttribute"),
]

env = dict(os.environ, LD_LIBRARY_PATH=mock)
for fail, artifact, options, call in CASES:
    command = [fuse_run, os.path.join(artifacts, artifact + ".fbin"),
               "--iterations", "2"] + options
    try:
        result = subprocess.run(command, env=dict(env, MOCK_CUDA_FAIL=fail),
                                capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        print(f"{fail}: TIMEOUT")
        continue
    errors = [line for line in result.stderr.splitlines()
              if line.startswith("error: ")]
    line = errors[0] if errors else "(no error line)"
    verdict = "" if call in line else " [DOES NOT NAME " + call + "]"
    if result.returncode < 0:
        verdict += f" [KILLED BY SIGNAL {-result.returncode}]"
    print(f"{fail}: exit={result.returncode} {line}{verdict}")
