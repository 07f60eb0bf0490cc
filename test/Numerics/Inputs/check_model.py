#!/usr/bin/env python3
"""Compiles a model with fuse-compile, runs it with fuse-run and compares
every output with onnxruntime.

    check_model.py MODEL.onnx --fuse-compile BIN --fuse-run BIN --workdir DIR
                   [--target cpu|cuda] [--no-fuse] [--rtol R] [--atol A]
                   [--seed N] [--int-high [NAME=]N] [--compile-arg ARG]...
                   [--ort-as-written] [--inputs NPZ] [--artifact FBIN]
                   [--max-rel-l2 E] [--oracle MODEL.onnx] [--run-arg ARG]...

Inputs are seeded random floats in [-1, 1] (integers in [0, INT_HIGH);
`--int-high NAME=N`, repeatable, sets it for one input: token ids over a
vocabulary beside a 0/1 mask), or those of --inputs. Prints one line per output:
`output NAME: max_abs_err=... max_rel_err=... rel_l2=... PASS|FAIL`, then
`RESULT: PASS` or `RESULT: FAIL` (exit 1). With --artifact the model is
not compiled: that artifact (compiled from the model some other way, e.g.
from MLIR a pass rewrote) runs instead. An element passes when
|fuse - ort| <= atol + rtol * |ort|, or both are NaN; with --max-rel-l2 an
output passes when its relative L2 error ||fuse - ort|| / ||ort|| is at
most E instead (half precision: the error is spread over every element).
--oracle runs onnxruntime on another model with the same inputs (cast to
its input types): the float32 model a half-precision one was made from.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

NUMPY_TYPES = {1: np.float32, 6: np.int32, 7: np.int64, 10: np.float16,
               11: np.float64}


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write("command failed (%d): %s\n%s%s" % (
            proc.returncode, " ".join(cmd), proc.stdout, proc.stderr))
        sys.exit(1)
    return proc.stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--fuse-compile", required=True)
    p.add_argument("--fuse-run", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--target", default="cpu")
    p.add_argument("--no-fuse", action="store_true")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="one more fuse-compile argument (repeatable)")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ort-as-written", action="store_true",
                   help="turn onnxruntime's graph optimizations off, so that "
                   "it computes each node as specified (its QDQ fusions, "
                   "such as QLinearConv, round differently)")
    p.add_argument("--int-high", action="append", default=[],
                   help="integer inputs are drawn from [0, INT_HIGH) "
                   "(default 2); NAME=N: input NAME's from [0, N) "
                   "(repeatable)")
    p.add_argument("--inputs", help="an .npz of the inputs to use")
    p.add_argument("--artifact",
                   help="run this artifact instead of compiling the model")
    p.add_argument("--run-arg", action="append", default=[],
                   help="one more fuse-run argument (repeatable)")
    p.add_argument("--max-rel-l2", type=float,
                   help="pass each output whose relative L2 error is at "
                   "most this, instead of element by element")
    p.add_argument("--oracle",
                   help="compare with onnxruntime's outputs of this model "
                   "(the inputs cast to its input types)")
    args = p.parse_args()
    int_high, int_high_of = 2, {}
    for spec in args.int_high:
        name, _, value = spec.rpartition("=")
        try:
            high = int(value)
        except ValueError:
            p.error("--int-high takes N or NAME=N, not '%s'" % spec)
        if high < 1:
            p.error("--int-high: the bound must be at least 1 in '%s'" % spec)
        if name:
            int_high_of[name] = high
        else:
            int_high = high

    os.makedirs(args.workdir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.model))[0]
    stem += "-unfused" if args.no_fuse else ""
    artifact = os.path.join(args.workdir, stem + ".fbin")
    inputs_path = os.path.join(args.workdir, stem + ".inputs.npz")
    outputs_path = os.path.join(args.workdir, stem + ".outputs.npz")

    model = onnx.load(args.model)
    rng = np.random.default_rng(args.seed)
    inputs = {}
    # Graph inputs with an initializer (IR < 4 models) are constants.
    initializers = {init.name for init in model.graph.initializer}
    for value in model.graph.input:
        if args.inputs:
            break
        if value.name in initializers:
            continue
        t = value.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = NUMPY_TYPES[t.elem_type]
        if np.issubdtype(dtype, np.integer):
            high = int_high_of.pop(value.name, int_high)
            inputs[value.name] = rng.integers(0, high, shape).astype(dtype)
        else:
            inputs[value.name] = rng.uniform(-1, 1, shape).astype(dtype)
    if int_high_of:
        p.error("--int-high names no integer input of the model: " +
                ", ".join(sorted(int_high_of)))
    if args.inputs:
        inputs = dict(np.load(args.inputs))
    np.savez(inputs_path, **inputs)

    if args.artifact:
        artifact = args.artifact
    else:
        compile_cmd = [args.fuse_compile, args.model, "-o", artifact,
                       "--target=" + args.target]
        if args.no_fuse:
            compile_cmd.append("--no-fuse")
        # The reference plan, for the tests' fuse-run --check after this.
        if "--no-reference" not in args.compile_arg:
            compile_cmd.append("--reference")
        compile_cmd += args.compile_arg
        run(compile_cmd)
    run([args.fuse_run, artifact, "--inputs", inputs_path,
         "--outputs", outputs_path] + args.run_arg)

    options = ort.SessionOptions()
    options.log_severity_level = 3  # errors only
    if args.ort_as_written:
        options.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    oracle = args.oracle or args.model
    session = ort.InferenceSession(oracle, options,
                                   providers=["CPUExecutionProvider"])
    feeds = inputs
    if args.oracle:
        types = {i.name: NUMPY_TYPES[i.type.tensor_type.elem_type]
                 for i in onnx.load(oracle, load_external_data=False)
                 .graph.input}
        feeds = {n: v.astype(types.get(n, v.dtype)) for n, v in inputs.items()}
    expected = session.run(None, feeds)
    got = np.load(outputs_path)
    ok = True
    for value, want in zip(model.graph.output, expected):
        have = got[value.name]
        if have.shape != want.shape:
            print("output %s: shape %s, onnxruntime %s FAIL" % (
                value.name, have.shape, want.shape))
            ok = False
            continue
        have, want = np.atleast_1d(have), np.atleast_1d(want)
        diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
        nan = np.isnan(have.astype(np.float64)) & np.isnan(
            want.astype(np.float64))
        passed = bool(np.all((diff <= args.atol + args.rtol * np.abs(want))
                             | nan))
        diff[nan] = 0
        rel = diff / np.maximum(np.abs(want.astype(np.float64)), 1e-30)
        norm = np.linalg.norm(want.astype(np.float64)[~nan])
        rel_l2 = np.linalg.norm(diff) / norm if norm > 0 else 0.0
        if args.max_rel_l2 is not None:
            passed = bool(rel_l2 <= args.max_rel_l2) and not bool(
                np.any(np.isnan(have.astype(np.float64)) & ~nan))
        ok &= passed
        print("output %s: max_abs_err=%.3g max_rel_err=%.3g rel_l2=%.3g %s" % (
            value.name, diff.max() if diff.size else 0.0,
            rel.max() if rel.size else 0.0, rel_l2,
            "PASS" if passed else "FAIL"))
    print("RESULT: " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
