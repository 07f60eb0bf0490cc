#!/usr/bin/env python3
"""Makes each CUDA driver call the runtime checks fail, one at a time, in
the stand-in driver (mock_cuda.c, MOCK_CUDA_FAIL), and prints the error
that fuse-run reports for each:

    driver_faults.py FUSE_RUN MOCKDIR ARTIFACTDIR [--libraries LIBDIR]

    <symbol>: exit=<status> <fuse-run's error line>

ARTIFACTDIR holds the artifacts of faults.test (cubin.fbin, ptx.fbin,
noptx.fbin, shared.fbin). With --libraries, each function of the stand-in
cuBLASLt and cuDNN in LIBDIR (mock_libraries.c, MOCK_CUBLASLT_FAIL and
MOCK_CUDNN_FAIL) fails instead, on the artifacts of cuda-libraries.test
(matmul.fbin, conv.fbin, conv-nobias.fbin). A crash, a hang, a success or an error that does
not name the failing call is reported as such (and fails the test through
FileCheck); a call whose failure the runtime gets past (it only describes
something, or the runtime has another way) must succeed, and its first
line of output is printed.
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
    ("cuStreamSynchronize", "cubin", ["--bench"], "cuStreamSynchronize"),
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
    # --profile: the events recorded in the profiling graph; the copy
    # bandwidth's memset and copies; the device's name (only printed: the
    # runtime calls the device "cuda" then).
    ("cuEventRecordWithFlags", "cubin", ["--profile"],
     "cuEventRecordWithFlags"),
    ("cuMemsetD32Async", "cubin", ["--profile"], "cuMemsetD32Async"),
    ("cuMemcpyDtoDAsync_v2", "cubin", ["--profile"], "cuMemcpyDtoDAsync"),
    ("cuDeviceGetName", "cubin", ["--profile", "--copy-gbps=1",
                                  "--peak-gflops=1"], None),
]

# (MOCK_*_FAIL value, artifact, options, what the error must name or None).
# The runtime names the library function that failed.
CUBLASLT = {"cublasLtCreate": None, "cublasLtMatmulDescCreate": None,
            "cublasLtMatmulDescSetAttribute": None,
            "cublasLtMatrixLayoutCreate": None,
            "cublasLtMatrixLayoutSetAttribute": None,
            "cublasLtMatmulPreferenceCreate": None,
            "cublasLtMatmulPreferenceSetAttribute": None,
            "cublasLtMatmulAlgoGetHeuristic": None, "cublasLtMatmul": None}
CUDNN = {"cudnnCreate": None, "cudnnSetStream": None,
         "cudnnCreateTensorDescriptor": None,
         "cudnnSetTensor4dDescriptor": None,
         "cudnnCreateFilterDescriptor": None,
         "cudnnSetFilter4dDescriptor": None,
         "cudnnCreateConvolutionDescriptor": None,
         "cudnnSetConvolution2dDescriptor": None,
         "cudnnSetConvolutionGroupCount": None,
         "cudnnSetConvolutionMathType": None,
         "cudnnCreateActivationDescriptor": None,
         "cudnnSetActivationDescriptor": None,
         "cudnnFindConvolutionForwardAlgorithmEx": None,
         "cudnnConvolutionForward": None}
LIBRARY_CASES = (
    [("MOCK_CUBLASLT_FAIL", f, "matmul", [], what or f)
     for f, what in CUBLASLT.items()] + [
        # Only describe: the version, the name of a status.
        ("MOCK_CUBLASLT_FAIL", "cublasLtGetVersion", "matmul",
         ["--profile", "--copy-gbps=1", "--peak-gflops=1"], None),
        ("MOCK_CUBLASLT_FAIL", "cublasLtMatmul,cublasLtGetStatusName",
         "matmul", [], "cublasLtMatmul"),
        # The SGEMM that measures the matmul rate (its failure is an error).
        ("MOCK_CUBLASLT_FAIL", "cublasLtMatmul", "conv",
         ["--profile", "--copy-gbps=1"], "cublasLtMatmul")] +
    [("MOCK_CUDNN_FAIL", f, "conv", [], what or f)
     for f, what in CUDNN.items()] + [
        # The fused call failing leaves the unfused ones, and the unfused
        # bias or activation failing leaves the fused call; without a bias
        # (the fused call needs one), the activation's failure is the error.
        ("MOCK_CUDNN_FAIL", "cudnnConvolutionBiasActivationForward", "conv",
         [], None),
        ("MOCK_CUDNN_FAIL", "cudnnAddTensor", "conv", [], None),
        ("MOCK_CUDNN_FAIL", "cudnnActivationForward", "conv", [], None),
        ("MOCK_CUDNN_FAIL", "cudnnActivationForward", "conv-nobias", [],
         "cudnnActivationForward"),
        ("MOCK_CUDNN_FAIL", "cudnnGetVersion", "conv",
         ["--profile", "--copy-gbps=1", "--peak-gflops=1"], None),
        ("MOCK_CUDNN_FAIL", "cudnnConvolutionForward,cudnnGetErrorString",
         "conv", [], "cudnnConvolutionForward")])

# No vendor library but the stand-ins: a real cuBLASLt (measuring the
# matmul rate) must not run on the stand-in driver.
env = dict(os.environ, LD_LIBRARY_PATH=mock, FUSE_CUDA_LIBRARY_PATH="")
cases = [("MOCK_CUDA_FAIL",) + case for case in CASES]
if len(sys.argv) > 5 and sys.argv[4] == "--libraries":
    env["FUSE_CUDA_LIBRARY_PATH"] = sys.argv[5]
    cases = LIBRARY_CASES
for variable, fail, artifact, options, call in cases:
    command = [fuse_run, os.path.join(artifacts, artifact + ".fbin"),
               "--iterations", "2"] + options
    try:
        result = subprocess.run(command, env=dict(env, **{variable: fail}),
                                capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        print(f"{fail}: TIMEOUT")
        continue
    errors = [line for line in result.stderr.splitlines()
              if line.startswith("error: ")]
    if call is None:
        lines = result.stdout.splitlines() or ["(no output)"]
        line = lines[0]
        verdict = "" if result.returncode == 0 and not errors else \
            " [DOES NOT SUCCEED: " + " ".join(errors) + "]"
    else:
        line = errors[0] if errors else "(no error line)"
        verdict = "" if call in line else " [DOES NOT NAME " + call + "]"
    if result.returncode < 0:
        verdict += f" [KILLED BY SIGNAL {-result.returncode}]"
    print(f"{fail}: exit={result.returncode} {line}{verdict}")
