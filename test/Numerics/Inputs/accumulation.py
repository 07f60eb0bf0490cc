#!/usr/bin/env python3
"""Accuracy of long reductions against a float64 reference (numpy).

    accumulation.py --fuse-compile BIN --fuse-run BIN --workdir DIR [--only NAME,...]
    accumulation.py --fuse-compile BIN --workdir DIR --target cuda --export OUT
    accumulation.py --run-only OUT --fuse-run BIN

Each case is a float32 model whose outputs add up many elements (sums of
up to 2^26 elements, rows and columns of 2^18, Softmax and LayerNorm over
2^20-2^24, GlobalAveragePool of a 4096x8192 map, MatMul and Conv with K up
to 16384). Its error is max |y - ref| / max |ref| against numpy in
float64. A case passes when fuse's error is within 4x onnxruntime's on the
same inputs (or under 2^-23 when onnxruntime is exact) and, for sums of
positive values, under 1e-5. Inputs are seeded: --export writes models
and artifacts only, and --run-only (on the GPU machine) draws the same
inputs again. Prints one line per case and `RESULT: PASS` or
`RESULT: FAIL`.
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

from check_model import run  # a command, its output on failure, exit 1

FLOAT = TensorProto.FLOAT


def graph_model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, FLOAT, s) for n, s in outputs],
        list(initializers))
    # IR version 8 (opset 18): the onnxruntime of the GPU machine reads at
    # most 13, and the onnx here writes 14 by default.
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 18)])


def reduce_case(op, shape, axes, positive, draw):
    out_shape = [d for i, d in enumerate(shape) if i not in axes]
    axes_init = helper.make_tensor("axes", TensorProto.INT64, [len(axes)], axes)

    def model():
        return graph_model(
            [helper.make_node(op, ["X", "axes"], ["Y"], keepdims=0)],
            [("X", shape)], [("Y", out_shape)], [axes_init])

    def reference(x):
        x = x["X"].astype(np.float64)
        t = tuple(axes)
        return {"ReduceSum": lambda: np.sum(x, axis=t),
                "ReduceMean": lambda: np.mean(x, axis=t),
                "ReduceSumSquare": lambda: np.sum(x * x, axis=t),
                "ReduceL2": lambda: np.sqrt(np.sum(x * x, axis=t)),
                "ReduceLogSumExp": lambda: np.log(np.sum(np.exp(x), axis=t)),
                }[op]()

    return {"model": model, "inputs": lambda rng: {"X": draw(rng, shape)},
            "reference": reference, "positive": positive}


def uniform(rng, shape):
    return rng.random(shape, dtype=np.float32)


def normal(rng, shape):
    return rng.standard_normal(shape, dtype=np.float32)


def ones(rng, shape):
    return np.ones(shape, np.float32)


def softmax_case(rows, length):
    def reference(x):
        x = x["X"].astype(np.float64)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    return {"model": lambda: graph_model(
                [helper.make_node("Softmax", ["X"], ["Y"], axis=1)],
                [("X", [rows, length])], [("Y", [rows, length])]),
            "inputs": lambda rng: {"X": uniform(rng, [rows, length])},
            "reference": reference, "positive": True}


def layernorm_case(rows, length):
    def model():
        scale = helper.make_tensor("scale", FLOAT, [length],
                                   np.ones(length, np.float32))
        bias = helper.make_tensor("bias", FLOAT, [length],
                                  np.zeros(length, np.float32))
        return graph_model(
            [helper.make_node("LayerNormalization", ["X", "scale", "bias"],
                              ["Y"], axis=1, epsilon=1e-5)],
            [("X", [rows, length])], [("Y", [rows, length])], [scale, bias])

    def reference(x):
        x = x["X"].astype(np.float64)
        mean = x.mean(axis=1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-5)
    # An offset mean makes a one-pass variance lose digits: the inputs sit
    # at 1 + U(0, 1).
    return {"model": model,
            "inputs": lambda rng: {"X": 1 + uniform(rng, [rows, length])},
            "reference": reference, "positive": False}


def global_average_pool_case(height, width):
    return {"model": lambda: graph_model(
                [helper.make_node("GlobalAveragePool", ["X"], ["Y"])],
                [("X", [1, 1, height, width])], [("Y", [1, 1, 1, 1])]),
            "inputs": lambda rng: {"X": uniform(rng, [1, 1, height, width])},
            "reference": lambda x: x["X"].astype(np.float64).mean(
                axis=(2, 3), keepdims=True),
            "positive": True}


def matmul_case(m, k, n, draw, positive):
    return {"model": lambda: graph_model(
                [helper.make_node("MatMul", ["A", "B"], ["Y"])],
                [("A", [m, k]), ("B", [k, n])], [("Y", [m, n])]),
            "inputs": lambda rng: {"A": draw(rng, [m, k]),
                                   "B": draw(rng, [k, n])},
            "reference": lambda x: x["A"].astype(np.float64) @
            x["B"].astype(np.float64),
            "positive": positive}


def conv_case(channels, size, filters):
    def reference(x):
        inp = np.pad(x["X"].astype(np.float64)[0], ((0, 0), (1, 1), (1, 1)))
        w = x["W"].astype(np.float64)
        out = np.zeros((filters, size, size))
        for i in range(3):
            for j in range(3):
                patch = inp[:, i:i + size, j:j + size]
                out += np.einsum("chw,fc->fhw", patch, w[:, :, i, j])
        return out[None]
    return {"model": lambda: graph_model(
                [helper.make_node("Conv", ["X", "W"], ["Y"],
                                  pads=[1, 1, 1, 1])],
                [("X", [1, channels, size, size]),
                 ("W", [filters, channels, 3, 3])],
                [("Y", [1, filters, size, size])]),
            "inputs": lambda rng: {
                "X": uniform(rng, [1, channels, size, size]),
                "W": uniform(rng, [filters, channels, 3, 3])},
            "reference": reference, "positive": True}


CASES = {
    "sum_ones_2^26": reduce_case("ReduceSum", [1 << 26], [0], True, ones),
    "sum_uniform_2^26": reduce_case("ReduceSum", [1 << 26], [0], True,
                                    uniform),
    "mean_uniform_2^24": reduce_case("ReduceMean", [1 << 24], [0], True,
                                     uniform),
    "sum_rows_64x2^18": reduce_case("ReduceSum", [64, 1 << 18], [1], True,
                                    uniform),
    "sum_columns_2^18x64": reduce_case("ReduceSum", [1 << 18, 64], [0], True,
                                       uniform),
    "sum_two_axes_4096x4096": reduce_case("ReduceSum", [4096, 4096, 2],
                                          [0, 1], True, uniform),
    "sumsquare_normal_2^24": reduce_case("ReduceSumSquare", [1 << 24], [0],
                                         True, normal),
    "l2_normal_2^24": reduce_case("ReduceL2", [1 << 24], [0], True, normal),
    "logsumexp_normal_2^24": reduce_case("ReduceLogSumExp", [1 << 24], [0],
                                         False, normal),
    "sum_normal_2^24": reduce_case("ReduceSum", [1 << 24], [0], False,
                                   normal),
    "softmax_4x2^22": softmax_case(4, 1 << 22),
    "layernorm_16x2^20": layernorm_case(16, 1 << 20),
    "global_average_pool_4096x8192": global_average_pool_case(4096, 8192),
    "matmul_uniform_K16384": matmul_case(16, 16384, 16, uniform, True),
    "matmul_normal_K8192": matmul_case(32, 8192, 32, normal, False),
    "conv_3x3_1024_channels": conv_case(1024, 8, 16),
}


def relative_error(got, want):
    want = np.asarray(want, np.float64)
    scale = max(float(np.max(np.abs(want))), 1e-300)
    return float(np.max(np.abs(np.asarray(got, np.float64) - want))) / scale


def onnxruntime_outputs(model, feeds):
    import onnxruntime as ort
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def run_case(name, case, artifact, fuse_run, workdir, model):
    rng = np.random.default_rng(sorted(CASES).index(name))
    feeds = case["inputs"](rng)
    inputs = os.path.join(workdir, name + ".inputs.npz")
    outputs = os.path.join(workdir, name + ".outputs.npz")
    np.savez(inputs, **feeds)
    run([fuse_run, artifact, "--inputs", inputs, "--outputs", outputs])
    got = np.load(outputs)["Y"]
    os.remove(inputs)
    os.remove(outputs)
    want = case["reference"](feeds)
    fuse_error = relative_error(got, want)
    ort_error = relative_error(onnxruntime_outputs(model, feeds), want)
    bound = max(4 * ort_error, 2.0 ** -23)
    ok = fuse_error <= bound
    if case["positive"]:
        ok = ok and fuse_error <= 1e-5
    print("%-32s fuse %.2e  onnxruntime %.2e  %s" % (
        name, fuse_error, ort_error, "PASS" if ok else "FAIL"), flush=True)
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--fuse-compile")
    p.add_argument("--fuse-run")
    p.add_argument("--workdir")
    p.add_argument("--target", default="cpu")
    p.add_argument("--export", metavar="OUT")
    p.add_argument("--run-only", metavar="OUT")
    p.add_argument("--only", help="comma-separated case names")
    args = p.parse_args()
    names = sorted(CASES)
    if args.only:
        names = args.only.split(",")
        unknown = [n for n in names if n not in CASES]
        if unknown:
            p.error("unknown case(s): %s (known: %s)" % (
                ", ".join(unknown), ", ".join(sorted(CASES))))

    if args.run_only:
        if not args.fuse_run:
            p.error("--run-only needs --fuse-run")
        with open(os.path.join(args.run_only, "cases.json")) as f:
            names = [n for n in json.load(f) if n in names]
        ok = True
        for name in names:
            model = onnx.load(os.path.join(args.run_only, name + ".onnx"))
            ok &= run_case(name, CASES[name],
                           os.path.join(args.run_only, name + ".fbin"),
                           args.fuse_run, args.run_only, model)
        print("RESULT: %s" % ("PASS" if ok else "FAIL"))
        return 0 if ok else 1

    if not args.fuse_compile or not args.workdir:
        p.error("--fuse-compile and --workdir are needed")
    out = args.export or args.workdir
    os.makedirs(out, exist_ok=True)
    ok = True
    for name in names:
        model = CASES[name]["model"]()
        path = os.path.join(out, name + ".onnx")
        onnx.save(model, path)
        artifact = os.path.join(out, name + ".fbin")
        run([args.fuse_compile, path, "--target=" + args.target,
               "--no-reference", "-o", artifact])
        if not args.export:
            if not args.fuse_run:
                p.error("--fuse-run is needed without --export")
            ok &= run_case(name, CASES[name], artifact, args.fuse_run,
                           args.workdir, model)
    if args.export:
        with open(os.path.join(out, "cases.json"), "w") as f:
            json.dump(names, f)
        print("exported %d cases to %s" % (len(names), out))
        return 0
    print("RESULT: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
