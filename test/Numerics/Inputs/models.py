#!/usr/bin/env python3
"""Small ONNX models whose compiled numerics are checked against onnxruntime.

    models.py NAME OUT.onnx      write one model
    models.py --list             the names

Each model exercises a fusion pattern or a lowering path. Weights are
seeded; shapes are small so that the CPU kernels run in milliseconds.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MODELS = {}


def model(fn):
    MODELS[fn.__name__] = fn
    return fn


def rng(seed=0):
    return np.random.default_rng(seed)


def weight(name, shape, seed=0, scale=0.5):
    data = (rng(seed).standard_normal(shape) * scale).astype(np.float32)
    return numpy_helper.from_array(data, name)


def make(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
         for n, s in inputs],
        [onnx.ValueInfoProto(name=n) for n in outputs],
        list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    # Output types come from ONNX's own shape inference.
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    types = {v.name: v.type for v in
             list(inferred.graph.value_info) + list(inferred.graph.output)}
    for out in m.graph.output:
        out.type.CopyFrom(types[out.name])
    onnx.checker.check_model(m, full_check=True)
    return m


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0], **attrs)


@model
def avgpool_relu():
    """The seed: AveragePool 8x8/8 + Relu."""
    return make([node("AveragePool", ["x"], ["p"], kernel_shape=[8, 8],
                      strides=[8, 8]),
                 node("Relu", ["p"], ["y"])],
                [("x", [1, 1, 128, 3096])], ["y"])


@model
def conv_bias_relu():
    """Conv (pads 1) with bias, then Relu: a contraction epilogue."""
    return make([node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                 node("Relu", ["c"], ["y"])],
                [("x", [2, 3, 16, 16])], ["y"],
                [weight("w", [8, 3, 3, 3], 1), weight("b", [8], 2)])


@model
def gemm_bias_relu():
    """Gemm (transB, alpha) + Add(bias) + Relu."""
    return make([node("Gemm", ["x", "w"], ["g"], transB=1, alpha=0.75),
                 node("Add", ["g", "b"], ["a"]),
                 node("Relu", ["a"], ["y"])],
                [("x", [4, 32])], ["y"],
                [weight("w", [16, 32], 3), weight("b", [16], 4)])


@model
def elementwise_chain():
    """A chain of elementwise ops with a broadcast operand and constants."""
    six = numpy_helper.from_array(np.array(6.0, np.float32), "six")
    return make([node("Mul", ["x", "s"], ["m"]),
                 node("Add", ["m", "b"], ["a"]),
                 node("Sigmoid", ["a"], ["sg"]),
                 node("Tanh", ["sg"], ["t"]),
                 node("Exp", ["t"], ["e"]),
                 node("Clip", ["e", "", "six"], ["c"]),
                 node("LeakyRelu", ["c"], ["l"], alpha=0.1),
                 node("Neg", ["l"], ["n"]),
                 node("Abs", ["n"], ["ab"]),
                 node("Sqrt", ["ab"], ["sq"]),
                 node("Div", ["sq", "s"], ["y"])],
                [("x", [3, 4, 5]), ("s", [5])], ["y"],
                [weight("b", [4, 1], 5), six])


@model
def multi_use():
    """An intermediate with two users: the chain must stop there."""
    return make([node("MaxPool", ["x"], ["p"], kernel_shape=[2, 2],
                      strides=[2, 2]),
                 node("Relu", ["p"], ["r"]),
                 node("Sigmoid", ["r"], ["s"]),
                 node("Tanh", ["r"], ["t"]),
                 node("Mul", ["s", "t"], ["y"])],
                [("x", [1, 4, 8, 8])], ["y", "r"])


@model
def pooling_variants():
    """Padded and ceil-mode pooling, with and without counting pads."""
    return make([node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3],
                      strides=[2, 2], pads=[1, 1, 1, 1]),
                 node("AveragePool", ["x"], ["a0"], kernel_shape=[3, 3],
                      strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1),
                 node("AveragePool", ["x"], ["a1"], kernel_shape=[3, 2],
                      strides=[2, 2], pads=[1, 0, 1, 1],
                      count_include_pad=1),
                 node("AveragePool", ["x"], ["a2"], kernel_shape=[2, 2],
                      auto_pad="SAME_UPPER"),
                 node("GlobalAveragePool", ["x"], ["g"])],
                [("x", [1, 2, 7, 9])], ["m", "a0", "a1", "a2", "g"])


@model
def conv_variants():
    """Grouped, depthwise, strided/dilated and 1-D convolutions, BN."""
    bn = [numpy_helper.from_array(
        (rng(9 + i).random(8) + 0.5).astype(np.float32), n)
        for i, n in enumerate(["s", "bb", "mean", "var"])]
    return make([node("Conv", ["x", "wg"], ["g"], group=2, pads=[1, 1, 1, 1]),
                 node("Conv", ["g", "wd", "bd"], ["d"], group=8,
                      strides=[2, 2], dilations=[2, 2], pads=[2, 2, 2, 2]),
                 node("BatchNormalization", ["d", "s", "bb", "mean", "var"],
                      ["n"], epsilon=1e-3),
                 node("Conv", ["x1", "w1"], ["y1"], strides=[2],
                      auto_pad="SAME_LOWER")],
                [("x", [1, 4, 9, 9]), ("x1", [2, 3, 11])], ["n", "y1"],
                [weight("wg", [8, 2, 3, 3], 6), weight("wd", [8, 1, 3, 3], 7),
                 weight("bd", [8], 8), weight("w1", [5, 3, 4], 13)] + bn)


@model
def matmul_reshape():
    """Batched MatMul with broadcasting, 1-D operands, Flatten, Reshape."""
    shape = numpy_helper.from_array(np.array([2, -1], np.int64), "shape")
    return make([node("MatMul", ["a", "b"], ["m"]),
                 node("Add", ["m", "bias"], ["mb"]),
                 node("Flatten", ["mb"], ["f"], axis=2),
                 node("Reshape", ["f", "shape"], ["r"]),
                 node("MatMul", ["v", "b2"], ["y2"]),
                 node("MatMul", ["b2t", "v"], ["y3"])],
                [("a", [2, 3, 4, 5]), ("b", [3, 5, 6]), ("v", [5]),
                 ("b2", [2, 5, 3]), ("b2t", [4, 5])], ["r", "y2", "y3"],
                [weight("bias", [6], 10), shape])


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(sorted(MODELS)))
        return 0
    if len(argv) != 3 or argv[1] not in MODELS:
        sys.stderr.write("usage: models.py {%s} OUT.onnx\n" %
                         ",".join(sorted(MODELS)))
        return 2
    onnx.save(MODELS[argv[1]](), argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
