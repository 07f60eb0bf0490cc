#!/usr/bin/env python3
"""Zero-size tensors through every kind of op fuse supports: for each case a
one-node model whose input (or one of its inputs) has a dim of 0 is
compiled for the cpu target and, when it compiles, run and compared with
onnxruntime (shapes, and values where the result is not empty, e.g. a Pad
of an empty tensor). A case passes when fuse-compile either succeeds (and
the run matches) or refuses with exit status 1 and an error that names the
node; a crash, a hang, another exit status or an error that does not name
the node fails it.

    zero_size.py --fuse-compile BIN --fuse-run BIN --workdir DIR [--list]

Prints a line per case and `zero-size: N cases: P pass (C compiled, R
refused at the node), F fail`; exit 1 on any failure.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64

UNARY = ["Relu", "Sigmoid", "Tanh", "Exp", "Log", "Neg", "Abs", "Sqrt",
         "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Erf", "Reciprocal",
         "Softsign", "Softplus", "Elu", "Selu", "LeakyRelu", "HardSigmoid",
         "HardSwish", "Mish", "Identity", "IsNaN", "Gelu"]
BINARY = ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less",
          "Greater", "PRelu"]
# Cases whose values the specification leaves undefined ("reduction over
# an empty set of values yields undefined" for ReduceMean: fuse gives NaN,
# as numpy's mean does, onnxruntime 0): only the shapes are compared.
UNDEFINED_VALUES = {"ReduceMean_axis1"}


def case(cases, name, nodes, inputs, outputs, inits=(), opset=20):
    cases[name] = (nodes, inputs, outputs, list(inits), opset)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def floats(name, shape, seed=0):
    rng = np.random.default_rng(seed)
    return numpy_helper.from_array(
        rng.standard_normal(shape).astype(np.float32), name)


def build_cases():
    c = {}
    for op in UNARY:
        case(c, "unary_" + op, [helper.make_node(op, ["x"], ["y"], name="n")],
             [("x", F, [2, 0, 3])], ["y"])
    for op in BINARY:
        case(c, "binary_" + op, [helper.make_node(op, ["x", "z"], ["y"],
                                                  name="n")],
             [("x", F, [2, 0, 3]), ("z", F, [3])], ["y"])
    # Broadcasting an empty operand against a non-empty one.
    case(c, "broadcast_add", [helper.make_node("Add", ["x", "z"], ["y"],
                                               name="n")],
         [("x", F, [0, 1]), ("z", F, [1, 4])], ["y"])
    case(c, "where", [helper.make_node("Where", ["b", "x", "z"], ["y"],
                                       name="n")],
         [("b", TensorProto.BOOL, [2, 0]), ("x", F, [2, 0]),
          ("z", F, [2, 0])], ["y"])
    case(c, "clip", [helper.make_node("Clip", ["x", "lo", "hi"], ["y"],
                                      name="n")],
         [("x", F, [0, 5])], ["y"],
         [numpy_helper.from_array(np.array(-0.5, np.float32), "lo"),
          numpy_helper.from_array(np.array(0.5, np.float32), "hi")])
    case(c, "cast", [helper.make_node("Cast", ["x"], ["y"], name="n", to=7)],
         [("x", F, [3, 0])], ["y"])
    # Reductions: over the empty dim (an identity or a refusal) and over
    # another one (an empty result).
    for op in ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
               "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare",
               "ReduceLogSumExp"]:
        for axis in (1, 2):
            case(c, "%s_axis%d" % (op, axis),
                 [helper.make_node(op, ["x", "axes"], ["y"], name="n")],
                 [("x", F, [2, 0, 3])], ["y"], [ints("axes", [axis])])
    for op in ["ArgMax", "ArgMin"]:
        for axis in (1, 2):
            case(c, "%s_axis%d" % (op, axis),
                 [helper.make_node(op, ["x"], ["y"], name="n", axis=axis)],
                 [("x", F, [2, 0, 3])], ["y"])
    for axis in (1, -1):
        case(c, "softmax_axis%d" % axis,
             [helper.make_node("Softmax", ["x"], ["y"], name="n", axis=axis)],
             [("x", F, [2, 0, 3])], ["y"])
        case(c, "logsoftmax_axis%d" % axis,
             [helper.make_node("LogSoftmax", ["x"], ["y"], name="n",
                               axis=axis)],
             [("x", F, [2, 0, 3])], ["y"])
    case(c, "layernorm_rows", [helper.make_node(
        "LayerNormalization", ["x", "s"], ["y"], name="n", axis=-1)],
        [("x", F, [0, 4])], ["y"], [floats("s", [4])])
    case(c, "layernorm_empty_row", [helper.make_node(
        "LayerNormalization", ["x", "s"], ["y"], name="n", axis=-1)],
        [("x", F, [3, 0])], ["y"], [floats("s", [0])])
    case(c, "cumsum", [helper.make_node("CumSum", ["x", "ax"], ["y"],
                                        name="n")],
         [("x", F, [2, 0])], ["y"],
         [numpy_helper.from_array(np.array(1, np.int64), "ax")])
    # Contractions.
    case(c, "matmul_m0", [helper.make_node("MatMul", ["x", "w"], ["y"],
                                           name="n")],
         [("x", F, [0, 4])], ["y"], [floats("w", [4, 3])])
    case(c, "matmul_k0", [helper.make_node("MatMul", ["x", "w"], ["y"],
                                           name="n")],
         [("x", F, [2, 0])], ["y"], [floats("w", [0, 3])])
    case(c, "gemm_m0", [helper.make_node("Gemm", ["x", "w", "b"], ["y"],
                                         name="n", transB=1)],
         [("x", F, [0, 4])], ["y"], [floats("w", [3, 4]), floats("b", [3])])
    case(c, "conv_n0", [helper.make_node("Conv", ["x", "w"], ["y"], name="n",
                                         pads=[1, 1, 1, 1])],
         [("x", F, [0, 2, 5, 5])], ["y"], [floats("w", [4, 2, 3, 3])])
    case(c, "conv_c0", [helper.make_node("Conv", ["x", "w"], ["y"],
                                         name="n")],
         [("x", F, [1, 0, 5, 5])], ["y"], [floats("w", [4, 0, 3, 3])])
    case(c, "conv_h0", [helper.make_node("Conv", ["x", "w"], ["y"],
                                         name="n")],
         [("x", F, [1, 2, 0, 5])], ["y"], [floats("w", [4, 2, 1, 1])])
    for op in ["MaxPool", "AveragePool"]:
        case(c, op.lower() + "_n0", [helper.make_node(
            op, ["x"], ["y"], name="n", kernel_shape=[2, 2])],
            [("x", F, [0, 3, 4, 4])], ["y"])
    case(c, "globalavgpool_c0", [helper.make_node(
        "GlobalAveragePool", ["x"], ["y"], name="n")],
        [("x", F, [2, 0, 4, 4])], ["y"])
    case(c, "batchnorm_n0", [helper.make_node(
        "BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="n")],
        [("x", F, [0, 3, 2, 2])], ["y"],
        [floats("s", [3]), floats("b", [3]), floats("m", [3]),
         numpy_helper.from_array(np.ones(3, np.float32), "v")])
    # Data movement.
    case(c, "transpose", [helper.make_node("Transpose", ["x"], ["y"],
                                           name="n", perm=[1, 0, 2])],
         [("x", F, [2, 0, 3])], ["y"])
    case(c, "reshape", [helper.make_node("Reshape", ["x", "s"], ["y"],
                                         name="n", allowzero=1)],
         [("x", F, [2, 0, 3])], ["y"], [ints("s", [0, 6])])
    case(c, "flatten", [helper.make_node("Flatten", ["x"], ["y"], name="n",
                                         axis=1)],
         [("x", F, [2, 0, 3])], ["y"])
    case(c, "unsqueeze", [helper.make_node("Unsqueeze", ["x", "a"], ["y"],
                                           name="n")],
         [("x", F, [0, 3])], ["y"], [ints("a", [0])])
    case(c, "concat_empty_first", [helper.make_node(
        "Concat", ["x", "z"], ["y"], name="n", axis=1)],
        [("x", F, [2, 0]), ("z", F, [2, 3])], ["y"])
    case(c, "concat_all_empty", [helper.make_node(
        "Concat", ["x", "z"], ["y"], name="n", axis=0)],
        [("x", F, [0, 2]), ("z", F, [0, 2])], ["y"])
    case(c, "slice_to_empty", [helper.make_node(
        "Slice", ["x", "st", "en"], ["y"], name="n")],
        [("x", F, [4, 3])], ["y"], [ints("st", [2]), ints("en", [2])])
    case(c, "gather_empty_indices", [helper.make_node(
        "Gather", ["x", "i"], ["y"], name="n", axis=0)],
        [("x", F, [4, 3]), ("i", I64, [0])], ["y"])
    case(c, "gather_from_empty", [helper.make_node(
        "Gather", ["x", "i"], ["y"], name="n", axis=1)],
        [("x", F, [0, 3])], ["y"], [ints("i", [0, 2])])
    case(c, "pad_empty", [helper.make_node("Pad", ["x", "p"], ["y"],
                                           name="n")],
         [("x", F, [2, 0])], ["y"], [ints("p", [0, 1, 0, 2])])
    case(c, "pad_empty_value", [helper.make_node("Pad", ["x", "p", "v"],
                                                 ["y"], name="n")],
         [("x", F, [2, 0])], ["y"],
         [ints("p", [1, 1, 0, 0]),
          numpy_helper.from_array(np.array(2.5, np.float32), "v")])
    case(c, "pad_empty_input_value", [helper.make_node(
        "Pad", ["x", "p", "v"], ["y"], name="n")],
        [("x", F, [2, 0]), ("v", F, [])], ["y"], [ints("p", [1, 1, 0, 0])])
    case(c, "pad_empty_edge", [helper.make_node("Pad", ["x", "p"], ["y"],
                                                name="n", mode="edge")],
         [("x", F, [2, 0])], ["y"], [ints("p", [0, 1, 0, 2])])
    case(c, "tile", [helper.make_node("Tile", ["x", "r"], ["y"], name="n")],
         [("x", F, [0, 3])], ["y"], [ints("r", [2, 2])])
    case(c, "expand", [helper.make_node("Expand", ["x", "s"], ["y"],
                                        name="n")],
         [("x", F, [1, 3])], ["y"], [ints("s", [0, 3])])
    case(c, "split", [helper.make_node("Split", ["x", "s"], ["y", "w"],
                                       name="n", axis=0)],
         [("x", F, [3, 2])], ["y", "w"], [ints("s", [3, 0])])
    case(c, "topk", [helper.make_node("TopK", ["x", "k"], ["y", "i"],
                                      name="n", axis=1)],
         [("x", F, [0, 5])], ["y", "i"], [ints("k", [2])])
    return c


def make_model(spec):
    nodes, inputs, outputs, inits, opset = spec
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [onnx.ValueInfoProto(name=o) for o in outputs], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type for v in list(inferred.graph.value_info) +
             list(inferred.graph.output)}
    for out in model.graph.output:
        if out.name in types:
            out.type.CopyFrom(types[out.name])
    return model


def random_inputs(spec):
    rng = np.random.default_rng(0)
    values = {}
    for name, elem, shape in spec[1]:
        if elem == F:
            values[name] = rng.uniform(0.1, 1, shape).astype(np.float32)
        elif elem == I64:
            values[name] = np.zeros(shape, np.int64)
        else:
            values[name] = rng.integers(0, 2, shape).astype(bool)
    return values


def check(name, spec, args):
    """(ok, what) for one case."""
    path = os.path.join(args.workdir, name + ".onnx")
    artifact = os.path.join(args.workdir, name + ".fbin")
    onnx.save(make_model(spec), path)
    try:
        proc = subprocess.run(
            [args.fuse_compile, path, "-o", artifact, "--target=cpu"],
            capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return False, "fuse-compile hung (120 s)"
    if proc.returncode == 1:
        # Refused: the error must name the node ('n') or its op.
        errors = [line for line in proc.stderr.splitlines()
                  if "error:" in line]
        if errors and all("node 'n'" in line for line in errors):
            return True, "refused: " + errors[0]
        return False, "refused without naming the node: " + proc.stderr
    if proc.returncode != 0:
        return False, "fuse-compile crashed (exit %d): %s" % (
            proc.returncode, proc.stderr[-400:])
    inputs = random_inputs(spec)
    in_path = os.path.join(args.workdir, name + ".in.npz")
    out_path = os.path.join(args.workdir, name + ".out.npz")
    np.savez(in_path, **inputs)
    try:
        run = subprocess.run([args.fuse_run, artifact, "--inputs", in_path,
                              "--outputs", out_path],
                             capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return False, "fuse-run hung (120 s)"
    if run.returncode != 0:
        return False, "fuse-run failed (exit %d): %s" % (run.returncode,
                                                          run.stderr[-400:])
    got = np.load(out_path)
    try:
        options = ort.SessionOptions()
        options.log_severity_level = 4
        want = ort.InferenceSession(path, options, providers=[
            "CPUExecutionProvider"]).run(None, inputs)
    except Exception as e:  # onnxruntime refuses some empty cases
        shapes = ", ".join("%s%s" % (k, list(got[k].shape)) for k in got)
        return True, "compiled and ran (%s); onnxruntime: %s" % (
            shapes, str(e).splitlines()[0][:80])
    for value, expected in zip(spec[2], want):
        have = got[value]
        if have.shape != expected.shape:
            return False, "output %s: shape %s, onnxruntime %s" % (
                value, have.shape, expected.shape)
        if expected.size and name not in UNDEFINED_VALUES and \
                not np.allclose(have, expected, rtol=1e-5, atol=1e-6,
                                equal_nan=True):
            return False, "output %s differs from onnxruntime" % value
    return True, "compiled, matches onnxruntime (%s)" % ", ".join(
        str(list(got[v].shape)) for v in spec[2])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fuse-compile", required=True)
    p.add_argument("--fuse-run", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--list", action="store_true")
    args = p.parse_args()
    cases = build_cases()
    if args.list:
        print("\n".join(cases))
        return 0
    os.makedirs(args.workdir, exist_ok=True)
    failures = compiled = refused = 0
    for name, spec in cases.items():
        ok, what = check(name, spec, args)
        failures += not ok
        compiled += ok and not what.startswith("refused")
        refused += ok and what.startswith("refused")
        print("%s %s: %s" % ("PASS" if ok else "FAIL", name, what))
    print("zero-size: %d cases: %d pass (%d compiled, %d refused at the "
          "node), %d fail" % (len(cases), len(cases) - failures, compiled,
                             refused, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
