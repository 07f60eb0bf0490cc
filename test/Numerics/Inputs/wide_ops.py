#!/usr/bin/env python3
"""Ops of many inputs: Concat, Sum, Max, Min and Mean of N tensors; Split
into N outputs.

    wide_ops.py model OP N OUT.onnx          # writes the model
    wide_ops.py check OP N --fuse-compile BIN --fuse-run BIN --workdir DIR
    wide_ops.py growth OP N1 N2 --fuse-compile BIN --workdir DIR

Op `SumConstants` is N Sums in a chain, each of the last one's result and
60 constants of its own: a group of them would read 60 weights a Sum. Op
`MatMulWeights` is x @ W + x + W then N Adds of a weight each: a group of
128 inputs that split-K (or a library call) splits into two. `Split` is
one input [N, 3] split into N outputs [1, 3]; `SplitSqueeze` the Relu of
[N, 3] split into N parts each squeezed to [3]; `SplitInner` [2, N] split
along its last dim into N outputs [2, 1] (parts that are not consecutive
in memory).

`check` compiles for the cpu target (or --target) and compares with
onnxruntime (exact for Concat, Max and Min; 1e-5 relative for Sum and
Mean, whose order of additions differs). `growth` times the compiles of
N1 and N2 inputs and prints their ratio: compile time must grow about
linearly with the inputs.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np
import onnx
import onnx.numpy_helper
from onnx import TensorProto, helper


def make_constant_sums(n, elem):
    rng = np.random.default_rng(0)
    dtype = np.float16 if elem == TensorProto.FLOAT16 else np.float32
    nodes, weights, last = [], [], "x0"
    for s in range(n):
        names = ["c%d_%d" % (s, i) for i in range(60)]
        weights += [onnx.numpy_helper.from_array(
            rng.standard_normal((1, 3)).astype(dtype), name)
            for name in names]
        result = "y" if s == n - 1 else "s%d" % s
        nodes.append(helper.make_node("Sum", [last] + names, [result]))
        last = result
    graph = helper.make_graph(
        nodes, "constant_sums", [helper.make_tensor_value_info("x0", elem,
                                                               [1, 3])],
        [helper.make_tensor_value_info("y", elem, [1, 3])], weights)
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 17)])


def make_matmul_weights(n):
    rng = np.random.default_rng(0)
    weights = [onnx.numpy_helper.from_array(
        rng.standard_normal((16, 16)).astype(np.float32), "W")]
    weights += [onnx.numpy_helper.from_array(
        rng.standard_normal((16, 16)).astype(np.float32), "w%d" % i)
        for i in range(n)]
    nodes = [helper.make_node("MatMul", ["x0", "W"], ["m"]),
             helper.make_node("Add", ["m", "x0"], ["r"]),
             helper.make_node("Add", ["r", "W"], ["c0"])]
    for i in range(n):
        nodes.append(helper.make_node(
            "Add", ["c%d" % i, "w%d" % i], ["y" if i == n - 1 else
                                            "c%d" % (i + 1)]))
    graph = helper.make_graph(
        nodes, "matmul_weights",
        [helper.make_tensor_value_info("x0", TensorProto.FLOAT, [16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 16])],
        weights)
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 17)])


def make_split(op, n, elem):
    shape = [2, n] if op == "SplitInner" else [n, 3]
    part = [2, 1] if op == "SplitInner" else [1, 3]
    parts = ["p%d" % i for i in range(n)]
    outputs = ["y%d" % i for i in range(n)]
    nodes = []
    source = "x0"
    if op == "SplitSqueeze":
        nodes.append(helper.make_node("Relu", ["x0"], ["r"]))
        source = "r"
        part = [3]
        nodes.append(helper.make_node("Constant", [], ["zero"],
                                      value_ints=[0]))
    nodes.append(helper.make_node(
        "Split", [source], parts if op == "SplitSqueeze" else outputs,
        axis=1 if op == "SplitInner" else 0, num_outputs=n))
    if op == "SplitSqueeze":
        nodes += [helper.make_node("Squeeze", [p, "zero"], [y])
                  for p, y in zip(parts, outputs)]
    graph = helper.make_graph(
        nodes, "split", [helper.make_tensor_value_info("x0", elem, shape)],
        [helper.make_tensor_value_info(y, elem, part) for y in outputs])
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 18)])


def make_model(op, n, elem=TensorProto.FLOAT):
    if op.startswith("Split"):
        return make_split(op, n, elem)
    if op == "SumConstants":
        return make_constant_sums(n, elem)
    if op == "MatMulWeights":
        return make_matmul_weights(n)
    inputs = [helper.make_tensor_value_info("x%d" % i, elem, [1, 3])
              for i in range(n)]
    attrs = {"axis": 0} if op == "Concat" else {}
    shape = [n, 3] if op == "Concat" else [1, 3]
    node = helper.make_node(op, [v.name for v in inputs], ["y"], **attrs)
    graph = helper.make_graph(
        [node], "wide", inputs,
        [helper.make_tensor_value_info("y", elem, shape)])
    # IR version 8: the onnxruntime of the GPU machine reads at most 13.
    return helper.make_model(graph, ir_version=8,
                             opset_imports=[helper.make_opsetid("", 17)])


def what(op):
    return "outputs" if op.startswith("Split") else "inputs"


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        sys.stdout.write(done.stdout + done.stderr)
        print("RESULT: FAIL")
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["model", "check", "growth"])
    parser.add_argument("op")
    parser.add_argument("counts", nargs="+")
    parser.add_argument("--fuse-compile")
    parser.add_argument("--fuse-run")
    parser.add_argument("--workdir")
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--float16", action="store_true",
                        help="check: float16 inputs, all 2000 (a Sum of "
                             "them overflows float16; their Mean is 2000)")
    parser.add_argument("--compile-flag", dest="compile_flags",
                        action="append", default=[],
                        help="check: one more fuse-compile flag")
    args = parser.parse_args()
    if args.mode == "model":
        onnx.save(make_model(args.op, int(args.counts[0])), args.counts[1])
        return 0
    if args.mode == "growth":
        seconds = []
        for n in map(int, args.counts):
            path = os.path.join(args.workdir, "%s%d.onnx" % (args.op, n))
            onnx.save(make_model(args.op, n), path)
            start = time.perf_counter()
            run([args.fuse_compile, path, "--target=cpu", "-o",
                 path + ".fbin"])
            seconds.append(time.perf_counter() - start)
            print("%s of %d %s: %.2f s" % (args.op, n, what(args.op),
                                            seconds[-1]))
        print("ratio %.2f" % (seconds[-1] / seconds[0]))
        return 0
    import onnxruntime
    n = int(args.counts[0])
    path = os.path.join(args.workdir, "%s%d.onnx" % (args.op, n))
    elem = TensorProto.FLOAT16 if args.float16 else TensorProto.FLOAT
    onnx.save(make_model(args.op, n, elem), path)
    rng = np.random.default_rng(n)
    feeds = {"x%d" % i: rng.standard_normal((1, 3)).astype(np.float32)
             for i in range(1 if args.op in ("SumConstants", "MatMulWeights")
                            else n)}
    if args.op == "MatMulWeights":
        feeds = {"x0": rng.standard_normal((16, 16)).astype(np.float32)}
    if args.op.startswith("Split"):
        feeds = {"x0": rng.standard_normal(
            (2, n) if args.op == "SplitInner" else (n, 3)).astype(np.float32)}
    if args.float16:
        feeds = {name: np.full((1, 3), 2000, np.float16) for name in feeds}
    np.savez(path + ".in.npz", **feeds)
    run([args.fuse_compile, path, "--target=" + args.target, "-o",
         path + ".fbin"] + args.compile_flags)
    run([args.fuse_run, path + ".fbin", "--inputs", path + ".in.npz",
         "--outputs", path + ".out.npz"])
    session = onnxruntime.InferenceSession(
        path, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    with np.load(path + ".out.npz") as f:
        got = np.concatenate([f[name].reshape(-1) for name in names])
        shapes_ok = all(f[name].shape == want.shape for name, want in
                        zip(names, session.run(None, feeds)))
    want = np.concatenate([w.reshape(-1) for w in session.run(None, feeds)])
    exact = args.op in ("Concat", "Max", "Min") or args.op.startswith("Split")
    error = float(np.abs(got - want).max() / np.abs(want).max())
    ok = shapes_ok and got.shape == want.shape and (
        error == 0 if exact else error < 1e-5)
    print("%s of %d %s: error %.2e %s" % (args.op, n, what(args.op), error,
                                              "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
