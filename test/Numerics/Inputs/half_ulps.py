#!/usr/bin/env python3
"""Error in ulps of every op that accumulates, on float16 tensors.

    half_ulps.py --fuse-compile BIN --fuse-run BIN --workdir DIR
                 [--target cpu|cuda] [--only NAME,...]

Each case is a one-node float16 model (pools of several kinds and sizes,
Reduce*, Softmax, LogSoftmax, the normalizations, CumSum, MatMul, Conv).
The reference is the same model in float32 run by onnxruntime on the
float16 inputs widened exactly (its own error is far below a float16
ulp), or for the contractions numpy in float64.
fuse's error and onnxruntime's float16 run's are measured in ulps of the
float16 reference (the spacing of float16 at each reference value;
elements whose reference is below 2^-10 in magnitude are measured against
the ulp at 2^-10, so that cancellation to near zero is not counted as
thousands of ulps). A case passes when fuse's largest error is at most 1
ulp, or at most onnxruntime's where that is larger (1.05x of it, for its
order of additions). Prints one line per case and `RESULT: PASS` or
`RESULT: FAIL`; --expect-fail names cases known to fail (each must still
fail, so that the list stays true).
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

F16, F32 = TensorProto.FLOAT16, TensorProto.FLOAT


def cases():
    """name -> (nodes builder(elem), inputs {name: shape}, output shape,
    positive inputs, initializers builder(elem, rng))."""
    def pool(op, shape, out, **attrs):
        return (lambda e: [helper.make_node(op, ["x"], ["y"], **attrs)],
                {"x": shape}, out, False, None)

    def reduce(op, shape, axes, out, positive=True):
        return (lambda e: [helper.make_node(op, ["x", "axes"], ["y"],
                                            keepdims=0)],
                {"x": shape}, out, positive,
                lambda e, rng: [numpy_helper.from_array(
                    np.array(axes, np.int64), "axes")])

    def weights(*named):
        def make(e, rng):
            dtype = np.float16 if e == F16 else np.float32
            return [numpy_helper.from_array(
                rng.uniform(-1, 1, shape).astype(np.float16).astype(dtype),
                name) for name, shape in named]
        return make

    return {
        "global_avgpool_13": pool("GlobalAveragePool", [2, 32, 13, 13],
                                  [2, 32, 1, 1]),
        "global_avgpool_7": pool("GlobalAveragePool", [2, 32, 7, 7],
                                 [2, 32, 1, 1]),
        "avgpool_7x7": pool("AveragePool", [2, 16, 13, 13], [2, 16, 7, 7],
                            kernel_shape=[7, 7]),
        "avgpool_3x3_pad": pool("AveragePool", [2, 16, 14, 14],
                                [2, 16, 14, 14], kernel_shape=[3, 3],
                                pads=[1, 1, 1, 1]),
        "avgpool_3x3_pad_count": pool("AveragePool", [2, 16, 14, 14],
                                      [2, 16, 14, 14], kernel_shape=[3, 3],
                                      pads=[1, 1, 1, 1],
                                      count_include_pad=1),
        "lppool_2": pool("LpPool", [2, 16, 12, 12], [2, 16, 6, 6],
                         kernel_shape=[2, 2], strides=[2, 2], p=2),
        "maxpool_3x3": pool("MaxPool", [2, 16, 14, 14], [2, 16, 12, 12],
                            kernel_shape=[3, 3]),
        "reduce_mean": reduce("ReduceMean", [4, 1000], [1], [4]),
        "reduce_sum": reduce("ReduceSum", [4, 1000], [1], [4]),
        "reduce_sum_rows": reduce("ReduceSum", [1000, 8], [0], [8]),
        "reduce_sum_square": reduce("ReduceSumSquare", [4, 300], [1], [4]),
        "reduce_l1": reduce("ReduceL1", [4, 1000], [1], [4], False),
        "reduce_l2": reduce("ReduceL2", [4, 1000], [1], [4], False),
        "reduce_log_sum_exp": reduce("ReduceLogSumExp", [4, 1000], [1], [4],
                                     False),
        "reduce_prod": reduce("ReduceProd", [4, 16], [1], [4]),
        "softmax": (lambda e: [helper.make_node("Softmax", ["x"], ["y"],
                                                axis=-1)],
                    {"x": [8, 1000]}, [8, 1000], False, None),
        "log_softmax": (lambda e: [helper.make_node("LogSoftmax", ["x"],
                                                    ["y"], axis=-1)],
                        {"x": [8, 1000]}, [8, 1000], False, None),
        "layer_norm": (lambda e: [helper.make_node(
            "LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1)],
            {"x": [8, 768]}, [8, 768], False,
            weights(("scale", [768]), ("bias", [768]))),
        "instance_norm": (lambda e: [helper.make_node(
            "InstanceNormalization", ["x", "scale", "bias"], ["y"])],
            {"x": [2, 8, 10, 10]}, [2, 8, 10, 10], False,
            weights(("scale", [8]), ("bias", [8]))),
        "cumsum": (lambda e: [helper.make_node("CumSum", ["x", "axis"],
                                               ["y"])],
                   {"x": [4, 500]}, [4, 500], True,
                   lambda e, rng: [numpy_helper.from_array(
                       np.array(1, np.int64), "axis")]),
        "matmul": (lambda e: [helper.make_node("MatMul", ["x", "w"], ["y"])],
                   {"x": [64, 512]}, [64, 64], False,
                   weights(("w", [512, 64]))),
        "conv_3x3": (lambda e: [helper.make_node(
            "Conv", ["x", "w"], ["y"], kernel_shape=[3, 3],
            pads=[1, 1, 1, 1])],
            {"x": [1, 32, 12, 12]}, [1, 32, 12, 12], False,
            weights(("w", [32, 32, 3, 3]))),
    }


def build(spec, elem, rng_seed):
    nodes, inputs, out, _, inits = spec
    rng = np.random.default_rng(rng_seed)
    graph = helper.make_graph(
        nodes(elem), "g",
        [helper.make_tensor_value_info(n, elem, s) for n, s in inputs.items()],
        [helper.make_tensor_value_info("y", elem, out)],
        inits(elem, rng) if inits else [])
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 18)])


def float64_reference(name, model, feeds):
    """Contractions in float64 (numpy): a float32 reference's own error,
    where terms cancel, is larger than a float16 ulp of the result."""
    weights = {t.name: numpy_helper.to_array(t).astype(np.float64)
               for t in model.graph.initializer}
    x = feeds["x"].astype(np.float64)
    if name == "matmul":
        return x @ weights["w"]
    if name == "conv_3x3":
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        windows = np.lib.stride_tricks.sliding_window_view(
            padded, (3, 3), axis=(2, 3))
        return np.einsum("nchwij,fcij->nfhw", windows, weights["w"])
    return None


def ulps(got, ref):
    ref16 = np.maximum(np.abs(ref), 2.0 ** -10).astype(np.float16)
    spacing = np.spacing(ref16).astype(np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - ref) / spacing))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fuse-compile", required=True)
    parser.add_argument("--fuse-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--only", default="")
    parser.add_argument("--expect-fail", default="",
                        help="cases known to fail: reported, not counted "
                             "(and a failure when they pass)")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    known = set(filter(None, args.expect_fail.split(",")))
    failed = 0
    for index, (name, spec) in enumerate(cases().items()):
        if only and name not in only:
            continue
        rng = np.random.default_rng(index)
        positive = spec[3]
        feeds = {n: (rng.uniform(0.5, 2.0, s) if positive
                     else rng.uniform(-2.0, 2.0, s)).astype(np.float16)
                 for n, s in spec[1].items()}
        half, single = build(spec, F16, index), build(spec, F32, index)
        stem = os.path.join(args.workdir, name)
        onnx.save(half, stem + ".onnx")
        np.savez(stem + "_in.npz", **feeds)
        for command in (
                [args.fuse_compile, stem + ".onnx", "-o", stem + ".fbin",
                 "--target=" + args.target],
                [args.fuse_run, stem + ".fbin", "--inputs", stem + "_in.npz",
                 "--outputs", stem + "_out.npz"]):
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode:
                print("%s: %s failed:\n%s" % (name, os.path.basename(
                    command[0]), done.stdout + done.stderr))
                failed += 1
                break
        else:
            got = np.load(stem + "_out.npz")["y"]
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3
            run = lambda model, f: onnxruntime.InferenceSession(
                model.SerializeToString(), options,
                providers=["CPUExecutionProvider"]).run(None, f)[0]
            ref = float64_reference(name, half, feeds)
            if ref is None:
                ref = run(single, {n: v.astype(np.float32)
                                   for n, v in feeds.items()}).astype(
                                       np.float64)
            ort = run(half, feeds)
            fuse_ulps, ort_ulps = ulps(got, ref), ulps(ort, ref)
            ok = got.shape == ref.shape and \
                fuse_ulps <= max(1.0, 1.05 * ort_ulps)
            verdict = "PASS" if ok else "FAIL"
            if name in known:
                verdict = "UNEXPECTED PASS" if ok else "KNOWN FAILURE"
                ok = not ok
            print("%-24s fuse %7.2f ulps  onnxruntime %7.2f  %s" % (
                name, fuse_ulps, ort_ulps, verdict))
            failed += not ok
    print("RESULT: " + ("FAIL" if failed else "PASS"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
