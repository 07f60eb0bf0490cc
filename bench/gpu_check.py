#!/usr/bin/env python3
"""GPU numerics, on the GPU machine: every test model compiled for cuda
(bench/prepare_device.sh) is run by fuse-run on seeded random inputs and
compared with onnxruntime (CPU) on the same inputs; `fuse-run --check` also
compares the fused plan with the unfused reference plan on the GPU. An
artifact with choices (fuse-compile's candidates) is run once per candidate
index (`fuse-run --candidate K`), so every candidate of every group is
checked.

    python3 gpu_check.py DIR [NAME...]   # DIR/models/*.onnx, DIR/*.fbin,
                                         # DIR/*.fusion.json, DIR/bin; only
                                         # NAMEs if given

An element passes when |fuse - ort| <= atol + rtol * |ort| (rtol 1e-4,
atol 1e-5, float32). Prints a markdown table last, naming the outputs that
fail; exit 1 on any failure.
"""

import glob
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

RTOL, ATOL = 1e-4, 1e-5

# Outputs onnxruntime gets wrong, computed with numpy instead: onnxruntime
# 1.30 (the GPU machine's) pads in 'wrap' mode wrongly when a pad is longer
# than its dim (max error 0.94 on tensor_more's pw; 1.32 agrees with
# numpy.pad, and so does fuse on both targets).
NUMPY_ORACLES = {
    ("tensor_more", "pw"): lambda x: np.pad(
        x["x"], [(0, 0), (0, 0), (4, 2), (1, 7)], mode="wrap"),
}

# Models onnxruntime must compute node by node, as specified: its QDQ
# fusions (QLinearConv) round differently (check_model.py --ort-as-written).
AS_WRITTEN = {"qdq"}


def check_run(fuse, artifact, flags, label, model, inputs, want, in_path,
              out_path):
    """One run of the artifact against onnxruntime, and its --check."""
    run = subprocess.run([fuse, artifact, "--inputs", in_path,
                          "--outputs", out_path] + flags,
                         capture_output=True, text=True)
    if run.returncode != 0:
        return (label, "fuse-run failed: " + run.stderr.strip(), "", "")
    got = np.load(out_path)
    worst, failing = 0.0, []
    name = os.path.splitext(os.path.basename(artifact))[0]
    for value, expected in zip(model.graph.output, want):
        oracle = NUMPY_ORACLES.get((name, value.name))
        if oracle:
            expected = oracle(inputs)
        have = got[value.name]
        diff = np.abs(have.astype(np.float64) - expected)
        worst = max(worst, float(diff.max(initial=0.0)))
        if not np.all(diff <= ATOL + RTOL * np.abs(expected)):
            failing.append("%s (%.2e)" % (value.name, diff.max()))
    # On the same inputs: fuse-run's own random ones give masks values up
    # to 9, where BERT's f32 arithmetic (onnxruntime's too) is 2e-3 from
    # the f64 reference's exact answer.
    check = subprocess.run([fuse, artifact, "--check", "--inputs", in_path]
                           + flags, capture_output=True, text=True)
    return (label, "PASS" if not failing else "FAIL: " + ", ".join(failing),
            "%.2e" % worst, "PASS" if check.returncode == 0 else "FAIL")


def candidate_counts(root, name):
    """How many candidates each choice of NAME.fbin has, from the fusion
    report fuse-compile wrote beside it (bench/prepare_device.sh). A choice
    whose candidates hold two groups (a library call and the rest of its
    epilogue) is named by both."""
    with open(os.path.join(root, name + ".fusion.json")) as f:
        report = json.load(f)
    choices = {}
    for function in report["functions"]:
        for group in function["groups"]:
            if group["choice"]:
                choices[group["choice"]["id"]] = len(
                    group["choice"]["candidates"])
    return list(choices.values())


def main():
    root = sys.argv[1]
    fuse = os.path.join(root, "bin", "fuse-run")
    rows, ok = [], True
    for model_path in sorted(glob.glob(os.path.join(root, "models", "*.onnx"))):
        name = os.path.splitext(os.path.basename(model_path))[0]
        if sys.argv[2:] and name not in sys.argv[2:]:
            continue
        artifact = os.path.join(root, name + ".fbin")
        model = onnx.load(model_path)
        rng = np.random.default_rng(1)
        inputs = {}
        for value in model.graph.input:
            t = value.type.tensor_type
            shape = [d.dim_value for d in t.shape.dim]
            if t.elem_type == onnx.TensorProto.INT64:  # ids and masks
                inputs[value.name] = rng.integers(0, 2, shape).astype(np.int64)
            else:
                inputs[value.name] = rng.uniform(-1, 1,
                                                 shape).astype(np.float32)
        in_path = os.path.join(root, name + ".in.npz")
        np.savez(in_path, **inputs)
        options = ort.SessionOptions()
        if name in AS_WRITTEN:
            options.graph_optimization_level = \
                ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        want = ort.InferenceSession(model_path, options, providers=[
            "CPUExecutionProvider"]).run(None, inputs)
        # Every candidate of every choice: run k runs each choice's
        # candidate k (its last when it has fewer).
        counts = candidate_counts(root, name)
        runs = [[]] + [["--candidate", str(k)]
                       for k in range(max(counts, default=0))]
        for flags in runs:
            label = name + (" (candidate %s)" % flags[1] if flags else "")
            rows.append(check_run(fuse, artifact, flags, label, model,
                                  inputs, want, in_path,
                                  os.path.join(root, name + ".out.npz")))
            ok &= rows[-1][1] == "PASS" and rows[-1][3] == "PASS"
    print("| model | vs onnxruntime | max abs err | fused vs reference (--check) |")
    print("|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %s |" % row)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
