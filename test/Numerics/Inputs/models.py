#!/usr/bin/env python3
"""Small ONNX models whose compiled numerics are checked against onnxruntime.

    models.py NAME OUT.onnx      write one model
    models.py --list             the names

Each model exercises a fusion pattern or a lowering path. Weights are
seeded; shapes are small so that the CPU kernels run in milliseconds.
"""

import os
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


def make(nodes, inputs, outputs, inits=(), opset=17, declared=()):
    """`inputs` are (name, shape) for float inputs or (name, shape,
    TensorProto type); `declared` are (name, shape) of float outputs that
    ONNX's shape inference leaves untyped (GroupNormalization's)."""
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(i[0], i[2] if len(i) > 2 else
                                       TensorProto.FLOAT, i[1])
         for i in inputs],
        [onnx.ValueInfoProto(name=n) for n in outputs],
        list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    # Output types come from ONNX's own shape inference.
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    types = {v.name: v.type for v in
             list(inferred.graph.value_info) + list(inferred.graph.output)}
    types.update({name: helper.make_tensor_type_proto(TensorProto.FLOAT,
                                                      shape)
                  for name, shape in declared})
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


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def ints(name, values):
    return const(name, np.array(values, np.int64))


@model
def softmax():
    """Softmax-13 on the last axis with a scale and mask prologue and a
    Log epilogue, and on a middle axis (one row per outer x inner index)."""
    return make([node("Div", ["x", "scale"], ["d"]),
                 node("Add", ["d", "mask"], ["a"]),
                 node("Softmax", ["a"], ["s"], axis=-1),
                 node("Log", ["s"], ["y"]),
                 node("Softmax", ["x"], ["z"], axis=1)],
                [("x", [2, 3, 5, 16]), ("mask", [1, 1, 1, 16])], ["y", "z"],
                [const("scale", np.float32(4.0))], opset=13)


@model
def softmax_opset11():
    """Softmax-11: the input flattened to 2-D at `axis` (default 1, a
    Reshape/Softmax/Reshape), and on the last axis."""
    return make([node("Softmax", ["x"], ["y"]),
                 node("Softmax", ["x"], ["z"], axis=3),
                 node("Softmax", ["x"], ["w"], axis=2)],
                [("x", [2, 3, 4, 5])], ["y", "z", "w"], opset=11)


@model
def layernorm():
    """LayerNormalization: bias + residual + LN over the last dim; LN over
    the last two dims without B, then Relu."""
    return make([node("Add", ["x", "b"], ["xb"]),
                 node("Add", ["xb", "r"], ["xr"]),
                 node("LayerNormalization", ["xr", "g", "b"], ["y"],
                      epsilon=1e-5),
                 node("LayerNormalization", ["x", "g2"], ["n"], axis=-2,
                      epsilon=1e-3),
                 node("Relu", ["n"], ["z"])],
                [("x", [2, 6, 32]), ("r", [2, 6, 32])], ["y", "z"],
                [weight("g", [32], 20), weight("b", [32], 21),
                 weight("g2", [6, 32], 22)])


@model
def reduce_ops():
    """ReduceMean/Sum/Max/Min with and without keepdims, over one, two and
    all dims, a prologue and an epilogue; LayerNorm written out with
    ReduceMean, Sub, Pow, Sqrt and Div as older exporters emit it."""
    return make([node("ReduceMean", ["x", "last"], ["m"], keepdims=1),
                 node("Mul", ["x", "x"], ["sq"]),
                 node("ReduceSum", ["sq", "outer"], ["ss"], keepdims=0),
                 node("Sqrt", ["ss"], ["norm"]),
                 node("ReduceMax", ["x", "mid"], ["mx"], keepdims=0),
                 node("ReduceMin", ["x"], ["mn"], keepdims=1),
                 node("Sub", ["x", "m"], ["c"]),
                 node("Pow", ["c", "two"], ["c2"]),
                 node("ReduceMean", ["c2", "last"], ["var"]),
                 node("Add", ["var", "eps"], ["ve"]),
                 node("Sqrt", ["ve"], ["sd"]),
                 node("Div", ["c", "sd"], ["ln"])],
                [("x", [3, 4, 10])], ["m", "norm", "mx", "mn", "ln"],
                [ints("last", [-1]), ints("outer", [0, 2]), ints("mid", [1]),
                 const("two", np.float32(2.0)),
                 const("eps", np.float32(1e-5))], opset=18)


@model
def reduce_more():
    """ReduceL1, ReduceL2, ReduceLogSum (of |x| + 1), ReduceLogSumExp,
    ReduceSumSquare and ReduceProd, over one dim, two dims and all dims,
    with and without keepdims (axes as constant inputs, opset 18)."""
    return make([node("ReduceL1", ["x", "last"], ["l1"], keepdims=1),
                 node("ReduceL2", ["x", "outer"], ["l2"], keepdims=0),
                 node("Abs", ["x"], ["ax"]),
                 node("Add", ["ax", "one"], ["ax1"]),
                 node("ReduceLogSum", ["ax1", "mid"], ["ls"], keepdims=0),
                 node("ReduceLogSumExp", ["x", "last"], ["lse"], keepdims=0),
                 node("ReduceSumSquare", ["x"], ["ssq"], keepdims=1),
                 node("ReduceProd", ["x", "mid"], ["prod"], keepdims=1)],
                [("x", [3, 4, 10])], ["l1", "l2", "ls", "lse", "ssq", "prod"],
                [ints("last", [-1]), ints("outer", [0, 2]), ints("mid", [1]),
                 const("one", np.float32(1.0))], opset=18)


@model
def tensor_ops():
    """Data movement and selection: Gather (input and constant indices,
    negative ones), Concat, Slice (negative step, clamped bounds), Split,
    Transpose, Expand, Squeeze/Unsqueeze, Where on a comparison, Cast both
    ways, Equal/Not, Max/Min/Sum/Mean."""
    return make([node("Gather", ["table", "ids"], ["emb"]),
                 node("Gather", ["x", "cols"], ["gx"], axis=1),
                 node("Concat", ["x", "gx"], ["cat"], axis=1),
                 node("Slice", ["cat", "st", "en", "ax", "sp"], ["sl"]),
                 node("Split", ["x", "parts"], ["p0", "p1"], axis=1),
                 node("Transpose", ["p1"], ["tr"], perm=[1, 0]),
                 node("Unsqueeze", ["tr", "ax0"], ["un"]),
                 node("Expand", ["un", "shape"], ["ex"]),
                 node("Squeeze", ["un", "ax0"], ["sqz"]),
                 node("Greater", ["x", "zero"], ["pos"]),
                 node("Not", ["pos"], ["neg"]),
                 node("Where", ["neg", "x", "p0half"], ["wh"]),
                 node("Mul", ["x", "ten"], ["x10"]),
                 node("Cast", ["x10"], ["xi"], to=TensorProto.INT64),
                 node("Cast", ["xi"], ["xf"], to=TensorProto.FLOAT),
                 node("Equal", ["ids", "ids2"], ["eq"]),
                 node("Cast", ["eq"], ["eqf"], to=TensorProto.FLOAT),
                 node("Max", ["x", "xf", "wh"], ["mx"]),
                 node("Min", ["x", "wh"], ["mn"]),
                 node("Sum", ["mx", "mn"], ["sm"]),
                 node("Mean", ["sm", "x"], ["y"])],
                [("x", [4, 6]), ("ids", [2, 3], TensorProto.INT64),
                 ("ids2", [2, 3], TensorProto.INT64)],
                ["emb", "sl", "ex", "sqz", "xi", "eqf", "y"],
                [weight("table", [5, 8], 30), ints("cols", [-1, 0, 2]),
                 ints("st", [-1, 1000]), ints("en", [-1000, 0]),
                 ints("ax", [1, 0]), ints("sp", [-2, -1]),
                 ints("parts", [2, 4]), ints("ax0", [0]),
                 ints("shape", [3, 1, 1]), const("zero", np.float32(0)),
                 const("p0half", np.float32(0.5)),
                 const("ten", np.float32(10.0))], opset=13)


@model
def gelu_chain():
    """MatMul + bias + GELU as PyTorch exports it (Div, Erf, Add, Mul, Mul),
    then a second layer with tanh-approximated Gelu-20 and a residual."""
    return make([node("MatMul", ["x", "w1"], ["h"]),
                 node("Add", ["b1", "h"], ["hb"]),
                 node("Div", ["hb", "sqrt2"], ["d"]),
                 node("Erf", ["d"], ["e"]),
                 node("Add", ["e", "one"], ["e1"]),
                 node("Mul", ["hb", "e1"], ["m"]),
                 node("Mul", ["m", "half"], ["g"]),
                 node("MatMul", ["g", "w2"], ["o"]),
                 node("Add", ["o", "b2"], ["ob"]),
                 node("Gelu", ["ob"], ["og"], approximate="tanh"),
                 node("Add", ["og", "x"], ["y"])],
                [("x", [2, 5, 16])], ["y"],
                [weight("w1", [16, 32], 40), weight("b1", [32], 41),
                 weight("w2", [32, 16], 42), weight("b2", [16], 43),
                 const("sqrt2", np.float32(np.sqrt(2.0))),
                 const("one", np.float32(1.0)),
                 const("half", np.float32(0.5))], opset=20)


@model
def elementwise_new():
    """The unary and binary ops added with the transformer work:
    Reciprocal, Log, HardSigmoid, HardSwish, Pow (2, 0.5, 3 and a tensor
    exponent), comparisons, Clip-free activations."""
    return make([node("Abs", ["x"], ["ax"]),
                 node("Add", ["ax", "one"], ["a1"]),
                 node("Reciprocal", ["a1"], ["r"]),
                 node("Log", ["a1"], ["l"]),
                 node("HardSigmoid", ["x"], ["hs"], alpha=0.3, beta=0.4),
                 node("HardSwish", ["x"], ["hw"]),
                 node("Pow", ["x", "two"], ["p2"]),
                 node("Pow", ["a1", "half"], ["p05"]),
                 node("Pow", ["x", "three"], ["p3"]),
                 node("Pow", ["a1", "x"], ["px"]),
                 node("Sum", ["r", "l", "hs", "hw"], ["s1"]),
                 node("Sum", ["p2", "p05", "p3", "px"], ["s2"]),
                 node("LessOrEqual", ["s1", "s2"], ["le"]),
                 node("Where", ["le", "s1", "s2"], ["y"])],
                [("x", [3, 7])], ["y", "s1", "s2"],
                [const("one", np.float32(1.0)), const("two", np.float32(2.0)),
                 const("half", np.float32(0.5)),
                 const("three", np.int64(3))], opset=14)


@model
def activations():
    """Trigonometric and hyperbolic functions, Sign, Round, Softsign,
    Softplus, Mish, Elu, Selu, Celu, ThresholdedRelu, Shrink, IsNaN and
    IsInf, summed into one output (inputs in [-1, 1]; Atanh of 0.9 x,
    Acosh of x^2 + 1)."""
    unary = ["Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
             "Asinh", "Sign", "Softsign", "Softplus", "Mish"]
    nodes = [node(op, ["x"], [op.lower()]) for op in unary]
    nodes += [node("Mul", ["x", "nine_tenths"], ["x09"]),
              node("Atanh", ["x09"], ["atanh"]),
              node("Mul", ["x", "x"], ["x2"]),
              node("Add", ["x2", "one"], ["x2p1"]),
              node("Acosh", ["x2p1"], ["acosh"]),
              node("Mul", ["x", "three"], ["x3"]),
              node("Round", ["x3"], ["round"]),
              node("Elu", ["x"], ["elu"], alpha=0.7),
              node("Selu", ["x"], ["selu"]),
              node("Celu", ["x"], ["celu"], alpha=0.5),
              node("ThresholdedRelu", ["x"], ["trelu"], alpha=0.2),
              node("Shrink", ["x"], ["shrink"], bias=0.1, lambd=0.3),
              node("Sum", [op.lower() for op in unary] +
                   ["atanh", "acosh", "round", "elu", "selu", "celu",
                    "trelu", "shrink"], ["y"]),
              node("Reciprocal", ["round"], ["inv"]),
              node("IsInf", ["inv"], ["posinf"], detect_negative=0),
              node("IsNaN", ["inv"], ["nan"]),
              node("Or", ["posinf", "nan"], ["flag"]),
              node("Where", ["flag", "one", "x"], ["flagged"])]
    return make(nodes, [("x", [4, 33])], ["y", "flagged"],
                [const("nine_tenths", np.float32(0.9)),
                 const("one", np.float32(1.0)),
                 const("three", np.float32(3.0))], opset=18)


@model
def row_reductions():
    """Row-wise groups long enough for the `rows` strategy on cuda (a warp
    or a block per row): a scaled, masked Softmax over rows of 128, bias +
    residual + LayerNormalization over 768 (few rows: a block per row) and
    over 2048, ReduceMean over the trailing dims with an epilogue,
    GlobalAveragePool over 7x7 (8 lanes a row), and short rows of 4 and 16
    lanes: Softmax over 20 and ReduceMax over 64."""
    return make([node("Div", ["s", "scale"], ["sd"]),
                 node("Add", ["sd", "mask"], ["sm"]),
                 node("Softmax", ["sm"], ["ys"], axis=-1),
                 node("Add", ["h", "hb"], ["hh"]),
                 node("Add", ["hh", "r"], ["hr"]),
                 node("LayerNormalization", ["hr", "g", "b"], ["yl"],
                      epsilon=1e-12),
                 node("LayerNormalization", ["w", "g2"], ["yw"]),
                 node("ReduceMean", ["p", "axes"], ["pm"], keepdims=1),
                 node("Sigmoid", ["pm"], ["yp"]),
                 node("GlobalAveragePool", ["p"], ["gp"]),
                 node("Relu", ["gp"], ["yg"]),
                 node("Softmax", ["q"], ["yq"], axis=-1),
                 node("ReduceMax", ["u", "last"], ["yu"], keepdims=1)],
                [("s", [2, 3, 8, 128]), ("mask", [2, 1, 1, 128]),
                 ("h", [1, 5, 768]), ("r", [1, 5, 768]), ("w", [3, 2048]),
                 ("p", [2, 40, 7, 7]), ("q", [8, 20]), ("u", [16, 64])],
                ["ys", "yl", "yw", "yp", "yg", "yq", "yu"],
                [const("scale", np.float32(8.0)), weight("hb", [768], 50),
                 weight("g", [768], 51), weight("b", [768], 52),
                 weight("g2", [2048], 53), ints("axes", [2, 3]),
                 ints("last", [-1])], opset=18)


@model
def library_calls():
    """Contractions in every shape the cuBLASLt and cuDNN calls take on
    cuda: a batched MatMul (attention scores) and one whose second operand
    is shared by the batch (stride 0), Gemm with transposed operands and a
    bias, Gemm with a full C scaled by beta (the residual), MatMul + bias +
    residual + ReLU, Conv + bias + residual + ReLU, a strided grouped Conv
    without bias, and a Conv + ReLU without bias (cuDNN gets zeros)."""
    return make([node("MatMul", ["q", "k"], ["qk"]),
                 node("MatMul", ["q", "v"], ["qv"]),
                 node("Gemm", ["a", "bt", "c"], ["g1"], transA=1, transB=1,
                      alpha=0.5),
                 node("Gemm", ["a2", "b2", "full"], ["g2"], beta=0.25),
                 node("MatMul", ["x", "w"], ["xw"]),
                 node("Add", ["xw", "bias"], ["xb"]),
                 node("Add", ["res", "xb"], ["xr"]),
                 node("Relu", ["xr"], ["ym"]),
                 node("Conv", ["img", "cw", "cb"], ["c1"], pads=[1, 1, 1, 1]),
                 node("Add", ["c1", "img"], ["c2"]),
                 node("Relu", ["c2"], ["yc"]),
                 node("Conv", ["img", "gw"], ["yg"], group=2,
                      strides=[2, 2], pads=[1, 1, 1, 1]),
                 node("Conv", ["img", "cw"], ["c3"], pads=[1, 1, 1, 1]),
                 node("Relu", ["c3"], ["yr"])],
                [("q", [2, 3, 8, 16]), ("k", [2, 3, 16, 8]), ("a", [16, 6]),
                 ("a2", [6, 16]), ("full", [6, 10]), ("x", [2, 5, 16]),
                 ("res", [2, 5, 12]), ("img", [2, 4, 9, 9])],
                ["qk", "qv", "g1", "g2", "ym", "yc", "yg", "yr"],
                [weight("v", [16, 4], 60), weight("bt", [10, 16], 61),
                 weight("c", [10], 62), weight("b2", [16, 10], 63),
                 weight("w", [16, 12], 64), weight("bias", [12], 65),
                 weight("cw", [4, 4, 3, 3], 66), weight("cb", [4], 67),
                 weight("gw", [6, 2, 3, 3], 68)])


@model
def conv_gemm():
    """Convolutions in the shapes fuse-convs-to-matmuls rewrites (im2col and
    a matmul; bias as a weight column): strided with asymmetric pads,
    dilated, SAME_UPPER auto_pad, a 1x1 stride-2 downsample without bias,
    a residual Add (computed after the Conv; the Conv second), then ReLU;
    and a Conv whose result is also an output (the chain stops there). Four
    images of 9x7: im2cols with 63 columns are tiled over the images."""
    return make([node("Conv", ["img", "w1", "b1"], ["s1"], strides=[2, 2],
                      pads=[0, 1, 2, 1]),
                 node("Conv", ["img", "w1", "b1"], ["s2"], dilations=[2, 2],
                      pads=[2, 2, 2, 2]),
                 node("Relu", ["img2"], ["r2"]),
                 node("Add", ["r2", "s2"], ["s3"]),
                 node("Relu", ["s3"], ["ydil"]),
                 node("Conv", ["img", "w2"], ["ysame"], auto_pad="SAME_UPPER",
                      strides=[2, 2]),
                 node("Conv", ["img", "w3"], ["ydown"], strides=[2, 2]),
                 node("Conv", ["img", "w4", "b4"], ["yboth"]),
                 node("Relu", ["yboth"], ["yrelu"])],
                [("img", [4, 3, 9, 7]), ("img2", [4, 5, 9, 7])],
                ["s1", "ydil", "ysame", "ydown", "yboth", "yrelu"],
                [weight("w1", [5, 3, 3, 3], 70), weight("b1", [5], 71),
                 weight("w2", [4, 3, 2, 3], 72), weight("w3", [6, 3, 1, 1], 73),
                 weight("w4", [7, 3, 1, 1], 74), weight("b4", [7], 75)])


@model
def conv_nhwc():
    """A small ResNet as --conv=nhwc rewrites it: a 7x7 stride-2 stem,
    MaxPool, a bottleneck block with a strided 1x1 downsample, an identity
    block (the residual Adds), then a depthwise conv and the 1x1 convs
    around it (kept NCHW), GlobalAveragePool, Flatten and Gemm. Between
    the blocks' convolutions the activations stay NHWC."""
    nodes = [node("Conv", ["x", "w0", "b0"], ["c0"], strides=[2, 2],
                  pads=[3, 3, 3, 3]),
             node("Relu", ["c0"], ["r0"]),
             node("MaxPool", ["r0"], ["p0"], kernel_shape=[3, 3],
                  strides=[2, 2], pads=[1, 1, 1, 1])]
    inits = [weight("w0", [16, 3, 7, 7], 80, 0.2), weight("b0", [16], 81)]

    def block(name, x, cin, mid, cout, stride, seed, downsample):
        nonlocal nodes, inits
        nodes += [node("Conv", [x, name + "w1", name + "b1"], [name + "c1"]),
                  node("Relu", [name + "c1"], [name + "r1"]),
                  node("Conv", [name + "r1", name + "w2", name + "b2"],
                       [name + "c2"], strides=[stride, stride],
                       pads=[1, 1, 1, 1]),
                  node("Relu", [name + "c2"], [name + "r2"]),
                  node("Conv", [name + "r2", name + "w3", name + "b3"],
                       [name + "c3"])]
        inits += [weight(name + "w1", [mid, cin, 1, 1], seed, 0.3),
                  weight(name + "b1", [mid], seed + 1),
                  weight(name + "w2", [mid, mid, 3, 3], seed + 2, 0.2),
                  weight(name + "b2", [mid], seed + 3),
                  weight(name + "w3", [cout, mid, 1, 1], seed + 4, 0.3),
                  weight(name + "b3", [cout], seed + 5)]
        skip = x
        if downsample:
            nodes.append(node("Conv", [x, name + "wd"], [name + "d"],
                              strides=[stride, stride]))
            inits.append(weight(name + "wd", [cout, cin, 1, 1], seed + 6, 0.3))
            skip = name + "d"
        nodes += [node("Add", [name + "c3", skip], [name + "s"]),
                  node("Relu", [name + "s"], [name + "y"])]
        return name + "y"

    y = block("a", "p0", 16, 8, 32, 2, 82, True)
    y = block("b", y, 32, 8, 32, 1, 90, False)
    nodes += [node("Conv", [y, "wdw", "bdw"], ["dw"], group=32,
                   pads=[1, 1, 1, 1]),
              node("Clip", ["dw", "lo", "hi"], ["dwr"]),
              node("Conv", ["dwr", "wp"], ["pw"]),
              node("GlobalAveragePool", ["pw"], ["gap"]),
              node("Flatten", ["gap"], ["flat"]),
              node("Gemm", ["flat", "wfc", "bfc"], ["logits"], transB=1)]
    inits += [weight("wdw", [32, 1, 3, 3], 100, 0.3), weight("bdw", [32], 101),
              const("lo", np.array(0.0, np.float32)),
              const("hi", np.array(6.0, np.float32)),
              weight("wp", [16, 32, 1, 1], 102, 0.3),
              weight("wfc", [10, 16], 103), weight("bfc", [10], 104)]
    return make(nodes, [("x", [2, 3, 32, 32])], ["logits"], inits)


@model
def tiled_contractions():
    """MatMul and Gemm in the shapes that test the `tiles` mapping of fuse's
    generated contractions on cuda (block and thread tiles, operand tiles
    staged in shared memory 16 reduction steps at a time): partial block
    tiles (100 x 50) and a reduction of 72 (not whole chunks); Gemm with
    transB, alpha and a bias over a reduction of 300 (blocked accumulation
    in chunks of 256, the last one partial); a batched MatMul of odd sizes;
    K = 1; one row (a loop of one dim: B is read once, only A is staged);
    a 256 x 512 x 256 product with a residual and Sigmoid (full 8 x 4
    thread tiles); a batch of A against a broadcast B."""
    return make([node("MatMul", ["a1", "w1"], ["m1"]),
                 node("Add", ["m1", "b1"], ["s1"]),
                 node("Relu", ["s1"], ["y1"]),
                 node("Gemm", ["a2", "w2", "b2"], ["y2"], transB=1,
                      alpha=0.5),
                 node("MatMul", ["a3", "b3"], ["y3"]),
                 node("MatMul", ["a4", "w4"], ["y4"]),
                 node("MatMul", ["a5", "w5"], ["y5"]),
                 node("MatMul", ["a6", "w6"], ["m6"]),
                 node("Add", ["m6", "r6"], ["s6"]),
                 node("Sigmoid", ["s6"], ["y6"]),
                 node("MatMul", ["a7", "w7"], ["y7"])],
                [("a1", [100, 72]), ("a2", [64, 300]), ("a3", [3, 33, 17]),
                 ("b3", [3, 17, 65]), ("a4", [64, 1]), ("a5", [1, 256]),
                 ("a6", [256, 512]), ("r6", [256, 256]),
                 ("a7", [2, 3, 40, 24])],
                ["y1", "y2", "y3", "y4", "y5", "y6", "y7"],
                [weight("w1", [72, 50], 80), weight("b1", [50], 81),
                 weight("w2", [40, 300], 82), weight("b2", [40], 83),
                 weight("w4", [1, 128], 84), weight("w5", [256, 96], 85),
                 weight("w6", [512, 256], 86, 0.05),
                 weight("w7", [24, 36], 87)])


@model
def split_k():
    """MatMuls for split-K (--split-k): few outputs over long reductions,
    in every operand layout the split handles. A rank-3 A against a
    weight matrix with a bias, a residual and Tanh in the epilogue (the
    epilogue moves to the group that adds the partial products up); a
    weight matrix against a batched B (a convolution as a matmul: 64
    filters over 7x7 positions); batched A and B (attention's products)
    of odd sizes; one row over a reduction of 1024 (16 slices of 64);
    and a reduction of 72 that 4 slices do not divide into whole 16-deep
    chunks."""
    return make([node("MatMul", ["a1", "w1"], ["m1"]),
                 node("Add", ["m1", "b1"], ["s1"]),
                 node("Add", ["s1", "r1"], ["t1"]),
                 node("Tanh", ["t1"], ["y1"]),
                 node("MatMul", ["w2", "c2"], ["y2"]),
                 node("MatMul", ["a3", "b3"], ["m3"]),
                 node("Sigmoid", ["m3"], ["y3"]),
                 node("MatMul", ["a4", "w4"], ["m4"]),
                 node("Relu", ["m4"], ["y4"]),
                 node("MatMul", ["a5", "w5"], ["m5"]),
                 node("Neg", ["m5"], ["y5"])],
                [("a1", [2, 24, 512]), ("r1", [2, 24, 40]),
                 ("c2", [2, 256, 49]), ("a3", [2, 3, 5, 256]),
                 ("b3", [2, 3, 256, 7]), ("a4", [1, 1024]), ("a5", [9, 72])],
                ["y1", "y2", "y3", "y4", "y5"],
                [weight("w1", [512, 40], 90, 0.05), weight("b1", [40], 91),
                 weight("w2", [64, 256], 92, 0.1),
                 weight("w4", [1024, 33], 93, 0.05),
                 weight("w5", [72, 10], 94)])

@model
def planes():
    """Window kernels large enough for the `planes` mapping on cuda (input
    planes staged in shared memory): a depthwise conv + bias + Clip on
    56x56 maps in tiles of 4 (4 rounds of copying and computing for a
    block); a 5x5 stride-2 depthwise conv with asymmetric pads and a
    residual Add; a MaxPool 3x3/2 whose planes the blocks do not divide
    (3208, 5 a block); an AveragePool that does not count pads; an
    8x8/8 AveragePool of 64x64 planes, each copied in 16 rounds of a
    64-thread block; and stride-1 depthwise convs of 7x7 and 14x14 planes,
    whose output planes are staged too (the 7x7 one's 9727 planes, 16 a
    block in rows of 7, leave the last block 15)."""
    return make([node("Conv", ["x", "wd", "bd"], ["c"], group=150,
                      pads=[1, 1, 1, 1]),
                 node("Clip", ["c", "lo", "hi"], ["y"]),
                 node("Conv", ["u", "w5"], ["d"], group=600, strides=[2, 2],
                      kernel_shape=[5, 5], pads=[1, 2, 2, 1]),
                 node("Add", ["d", "res"], ["yd"]),
                 node("MaxPool", ["v"], ["ym"], kernel_shape=[3, 3],
                      strides=[2, 2], pads=[1, 1, 1, 1]),
                 node("AveragePool", ["u"], ["ya"], kernel_shape=[3, 3],
                      pads=[1, 1, 1, 1], count_include_pad=0),
                 node("AveragePool", ["p"], ["yp"], kernel_shape=[8, 8],
                      strides=[8, 8]),
                 node("Conv", ["q", "wq", "bq"], ["cq"], group=137,
                      pads=[1, 1, 1, 1]),
                 node("Clip", ["cq", "lo", "hi"], ["yq"]),
                 node("Conv", ["res", "w14"], ["c14"], group=600,
                      pads=[1, 1, 1, 1]),
                 node("Relu", ["c14"], ["y14"])],
                [("x", [2, 150, 56, 56]), ("u", [4, 600, 28, 28]),
                 ("res", [4, 600, 14, 14]), ("v", [8, 401, 14, 14]),
                 ("p", [1, 300, 64, 64]), ("q", [71, 137, 7, 7])],
                ["y", "yd", "ym", "ya", "yp", "yq", "y14"],
                [weight("wd", [150, 1, 3, 3], 80), weight("bd", [150], 81),
                 weight("w5", [600, 1, 5, 5], 82),
                 weight("wq", [137, 1, 3, 3], 83), weight("bq", [137], 84),
                 weight("w14", [600, 1, 3, 3], 85),
                 const("lo", np.array(-0.5, np.float32)),
                 const("hi", np.array(0.5, np.float32))])


@model
def transposes():
    """Transposes that the cuda target maps as `transpose` tiles (their
    input's tile through shared memory), alone and in elementwise groups:
    NCHW -> NHWC after a Clip (tiles of 196 positions by 96 channels, none
    of them whole), NHWC -> NCHW before a Relu and a residual Add in NCHW,
    the default permutation of a rank-3 tensor (an outer dim between the
    two runs), dims of extent 1 either side, two same-shaped inputs added
    before the Transpose (both staged), a rank-5 permutation whose runs
    are two dims each, one that keeps the innermost dim (flat), and a
    larger one in tiles of 64 x 32, the last of each run partial (200
    channels, 300 positions), then a Sigmoid. Small tensors get 16 x 16
    tiles (enough blocks)."""
    return make([node("Clip", ["x1", "lo", "hi"], ["c1"]),
                 node("Transpose", ["c1"], ["y1"], perm=[0, 2, 3, 1]),
                 node("Transpose", ["x2"], ["t2"], perm=[0, 3, 1, 2]),
                 node("Relu", ["t2"], ["r2"]),
                 node("Add", ["r2", "res2"], ["y2"]),
                 node("Transpose", ["x3"], ["y3"]),
                 node("Transpose", ["x4"], ["y4"], perm=[0, 3, 2, 1]),
                 node("Add", ["x5", "x5b"], ["s5"]),
                 node("Exp", ["s5"], ["e5"]),
                 node("Transpose", ["e5"], ["y5"], perm=[0, 2, 1]),
                 node("Transpose", ["x6"], ["y6"], perm=[0, 3, 4, 1, 2]),
                 node("Transpose", ["x7"], ["y7"], perm=[0, 2, 1, 3]),
                 node("Transpose", ["x8"], ["t8"], perm=[0, 2, 3, 1]),
                 node("Sigmoid", ["t8"], ["y8"])],
                [("x1", [4, 96, 14, 14]), ("x2", [4, 7, 7, 160]),
                 ("res2", [4, 160, 7, 7]), ("x3", [20, 50, 37]),
                 ("x4", [1, 33, 1, 70]), ("x5", [8, 40, 24]),
                 ("x5b", [8, 40, 24]), ("x6", [2, 6, 5, 20, 18]),
                 ("x7", [2, 64, 33, 5]), ("x8", [16, 200, 15, 20])],
                ["y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8"],
                [const("lo", np.array(0.0, np.float32)),
                 const("hi", np.array(6.0, np.float32))])


@model
def matmuls():
    """Products the cuda target's tensor-core kernels (`mma`) take in half
    precision: a MatMul with a bias and an erf GELU whose rows, columns and
    reduction all end in partial tiles (100 x 200 over 264 steps), a Gemm
    with transB and C (B N x K), and a batched MatMul with a batched B."""
    sqrt2 = const("sqrt2", np.array(2 ** 0.5, np.float32))
    return make([node("MatMul", ["a", "w1"], ["m1"]),
                 node("Add", ["m1", "b1"], ["s1"]),
                 node("Div", ["s1", "sqrt2"], ["d1"]),
                 node("Erf", ["d1"], ["e1"]),
                 node("Add", ["e1", "one"], ["f1"]),
                 node("Mul", ["s1", "f1"], ["g1"]),
                 node("Mul", ["g1", "half"], ["y1"]),
                 node("Gemm", ["g", "w2", "c2"], ["y2"], transB=1),
                 node("MatMul", ["p", "q"], ["y3"])],
                [("a", [100, 264]), ("g", [96, 512]), ("p", [3, 72, 64]),
                 ("q", [3, 64, 40])],
                ["y1", "y2", "y3"],
                [weight("w1", [264, 200], 90, 0.06), weight("b1", [200], 91),
                 weight("w2", [384, 512], 92, 0.05), weight("c2", [384], 93),
                 sqrt2, const("one", np.array(1.0, np.float32)),
                 const("half", np.array(0.5, np.float32))])


@model
def gather_nd():
    """GatherND as the dynamo exporter's masks use it: index tuples of every
    length (negative ones included), batch_dims 1 with indices from an
    input, and bool data."""
    return make([node("GatherND", ["x", "pairs"], ["rows"]),
                 node("GatherND", ["x", "ids"], ["batched"], batch_dims=1),
                 node("GatherND", ["x2", "points"], ["elems"]),
                 node("Greater", ["x2", "zero"], ["pos"]),
                 node("GatherND", ["pos", "mask_ids"], ["picked"]),
                 node("Cast", ["picked"], ["picked_f"], to=TensorProto.FLOAT)],
                [("x", [3, 4, 5]), ("ids", [3, 2, 1], TensorProto.INT64),
                 ("x2", [4, 6])],
                ["rows", "batched", "elems", "picked_f"],
                [ints("pairs", [[0, 1], [-1, 2], [2, -4]]),
                 ints("points", [[0, 0], [3, 5], [-2, 1], [1, -6], [2, 3]]),
                 ints("mask_ids", [[[0, 1], [1, 5], [3, 0]],
                                   [[2, 2], [-1, -1], [0, 4]]]),
                 const("zero", np.float32(0))], opset=13)


@model
def sdpa_attention():
    """Attention as PyTorch's sdpa export writes it: Q and K^T scaled by
    sqrt(scale) each, an additive mask, Softmax, the IsNaN/Where guard,
    then the product with V ([batch, heads, sequence, head size])."""
    return make([node("Mul", ["q", "root_scale"], ["q_scaled"]),
                 node("Transpose", ["k"], ["k_t"], perm=[0, 1, 3, 2]),
                 node("Mul", ["k_t", "root_scale"], ["k_scaled"]),
                 node("MatMul", ["q_scaled", "k_scaled"], ["scores"]),
                 node("Add", ["scores", "mask"], ["masked"]),
                 node("Softmax", ["masked"], ["weights"], axis=-1),
                 node("IsNaN", ["weights"], ["nan"]),
                 node("Where", ["nan", "zero", "weights"], ["guarded"]),
                 node("MatMul", ["guarded", "v"], ["y"])],
                [("q", [2, 4, 8, 16]), ("k", [2, 4, 8, 16]),
                 ("v", [2, 4, 8, 16]), ("mask", [2, 1, 1, 8])], ["y"],
                [const("root_scale", np.float32(0.5)),
                 const("zero", np.float32(0))], opset=17)


def sdpa_chain(prefix, q, k, v, mask, scale):
    """The nodes of one sdpa chain over inputs `q`, `k`, `v` (heads first)
    and `mask`, its output `prefix`_y."""
    p = prefix + "_"
    return [node("Mul", [q, scale], [p + "qs"]),
            node("Transpose", [k], [p + "kt"], perm=[0, 1, 3, 2]),
            node("Mul", [p + "kt", scale], [p + "ks"]),
            node("MatMul", [p + "qs", p + "ks"], [p + "scores"]),
            node("Add", [p + "scores", mask], [p + "masked"]),
            node("Softmax", [p + "masked"], [p + "weights"], axis=-1),
            node("IsNaN", [p + "weights"], [p + "nan"]),
            node("Where", [p + "nan", "zero", p + "weights"], [p + "guarded"]),
            node("MatMul", [p + "guarded", v], [p + "y"])]


@model
def attention_tiles():
    """Seven sdpa chains whose head sizes (multiples of 16) take the GPU's
    tensor-core attention kernel in half precision: tiles of rows and of
    keys cut short (100 queries and keys; 70 with a mask per row; 40
    queries over 200 keys at a head size of 128), a value head size unlike
    the query's (32 and 64), and enough heads for blocks of 64 and 32 rows
    (at a head size of 128, one K and V tile at a time). Q, K and V are computed (an Add each)
    and so is the output (a Mul), so that --precision stores them in half
    precision."""
    nodes = []
    for chain, scale in [("a", "s64"), ("b", "s32"), ("c", "s128"),
                         ("d", "s32"), ("e", "s64"), ("f", "s64"),
                         ("g", "s128")]:
        nodes += [node("Add", [t + chain, "half"], [t + chain + "_h"])
                  for t in "qkv"]
        nodes += sdpa_chain(chain, "q%s_h" % chain, "k%s_h" % chain,
                            "v%s_h" % chain, "m" + chain, scale)
        nodes.append(node("Mul", [chain + "_y", "half"], [chain + "_out"]))
    return make(nodes,
                [("qa", [2, 4, 100, 64]), ("ka", [2, 4, 100, 64]),
                 ("va", [2, 4, 100, 64]), ("ma", [2, 1, 1, 100]),
                 ("qb", [1, 2, 70, 32]), ("kb", [1, 2, 70, 32]),
                 ("vb", [1, 2, 70, 32]), ("mb", [1, 1, 70, 70]),
                 ("qc", [1, 2, 40, 128]), ("kc", [1, 2, 200, 128]),
                 ("vc", [1, 2, 200, 128]), ("mc", [1, 1, 1, 200]),
                 ("qd", [2, 3, 48, 32]), ("kd", [2, 3, 80, 32]),
                 ("vd", [2, 3, 80, 64]), ("md", [2, 1, 1, 80]),
                 ("qe", [6, 12, 256, 64]), ("ke", [6, 12, 256, 64]),
                 ("ve", [6, 12, 256, 64]), ("me", [6, 1, 1, 256]),
                 ("qf", [3, 12, 256, 64]), ("kf", [3, 12, 256, 64]),
                 ("vf", [3, 12, 256, 64]), ("mf", [3, 1, 1, 256]),
                 ("qg", [6, 12, 256, 128]), ("kg", [6, 12, 256, 128]),
                 ("vg", [6, 12, 256, 128]), ("mg", [6, 1, 1, 256])],
                ["a_out", "b_out", "c_out", "d_out", "e_out", "f_out",
                 "g_out"],
                [const("half", np.float32(0.5)),
                 const("s64", np.float32(64 ** -0.25)),
                 const("s32", np.float32(32 ** -0.25)),
                 const("s128", np.float32(128 ** -0.25)),
                 const("zero", np.float32(0))], opset=17)


@model
def row_chunks():
    """Row kernels (LayerNorm, Softmax, a row sum, GlobalAveragePool) over
    widths that the GPU's rows kernels split into 16-byte chunks or not:
    768 (whole rounds of chunks in f16 and f32), 100 (not a multiple of 8
    f16; 25 f32 chunks for 32 lanes), 1000 (125 f16 chunks: a last round
    cut short), 4096 (a row sum) and a 8x8 pool plane. Each row reads a
    MatMul's (or a Conv's) output, which --precision stores in half
    precision; the first also adds a residual input."""
    return make([node("MatMul", ["x1", "w1"], ["h1"]),
                 node("Add", ["h1", "b1"], ["hb1"]),
                 node("Add", ["hb1", "res1"], ["s1"]),
                 node("LayerNormalization", ["s1", "g1", "be1"], ["y1"],
                      axis=-1, epsilon=1e-5),
                 node("MatMul", ["x2", "w2"], ["h2"]),
                 node("LayerNormalization", ["h2", "g2", "be2"], ["y2"],
                      axis=-1, epsilon=1e-5),
                 node("MatMul", ["x3", "w3"], ["h3"]),
                 node("Softmax", ["h3"], ["y3"], axis=-1),
                 node("MatMul", ["x4", "w4"], ["h4"]),
                 node("ReduceSum", ["h4", "last"], ["y4"], keepdims=1),
                 node("Conv", ["x5", "w5"], ["c5"], pads=[1, 1, 1, 1]),
                 node("GlobalAveragePool", ["c5"], ["y5"])],
                [("x1", [64, 256]), ("res1", [64, 768]), ("x2", [50, 64]),
                 ("x3", [20, 32]), ("x4", [8, 64]), ("x5", [2, 3, 8, 8])],
                ["y1", "y2", "y3", "y4", "y5"],
                [weight("w1", [256, 768], 90, 0.1), weight("b1", [768], 91),
                 weight("g1", [768], 92), weight("be1", [768], 93),
                 weight("w2", [64, 100], 94, 0.2), weight("g2", [100], 95),
                 weight("be2", [100], 96), weight("w3", [32, 1000], 97, 0.2),
                 weight("w4", [64, 4096], 98, 0.2),
                 weight("w5", [16, 3, 3, 3], 99), ints("last", [-1])],
                opset=17)


@model
def external_data():
    """Every initializer in one external data file (`.onnx.data`, as the
    dynamo exporter writes it): weights, a bias, scalars, a splat and
    int64 Gather indices; exact Gelu-20 between. (onnxruntime cannot infer
    shapes from an external Reshape shape, so there is none.)"""
    return make([node("MatMul", ["x", "w1"], ["h"]),
                 node("Add", ["h", "b1"], ["hb"]),
                 node("Gelu", ["hb"], ["g"]),
                 node("Mul", ["g", "ones"], ["g1"]),
                 node("MatMul", ["g1", "w2"], ["o"]),
                 node("Add", ["o", "half"], ["oh"]),
                 node("Gather", ["oh", "cols"], ["y"], axis=2)],
                [("x", [2, 5, 16])], ["y"],
                [weight("w1", [16, 32], 50), weight("b1", [32], 51),
                 weight("w2", [32, 16], 52),
                 const("ones", np.ones([32], np.float32)),
                 const("half", np.float32(0.5)),
                 ints("cols", [15, 0, 3, -1, 7, 7, 2, 9, 11, 4])],
                opset=20)


@model
def mod_prelu():
    """PRelu with a per-channel slope, then Mod (fmod 1) and Relu: one
    elementwise chain; integer Mod (fmod 0) of negative and positive
    values by divisors of both signs."""
    return make([node("PRelu", ["x", "slope"], ["p"]),
                 node("Mod", ["p", "d"], ["m"], fmod=1),
                 node("Relu", ["m"], ["y"]),
                 node("Sub", ["i", "five"], ["signed"]),
                 node("Mod", ["signed", "divisors"], ["r"]),
                 node("Mod", ["signed", "divisors"], ["t"], fmod=1)],
                [("x", [2, 4, 3, 5]), ("i", [3, 5], TensorProto.INT64)],
                ["y", "r", "t"],
                [weight("slope", [4, 1, 1], 80),
                 const("d", np.float32(0.3)), ints("five", 5),
                 ints("divisors", [3, -4, 2, -3, 7])], opset=16)


@model
def normalizations():
    """LRN (AlexNet's), InstanceNormalization, GroupNormalization-21 and
    RMSNormalization-23, each with an elementwise op before and after."""
    return make([node("Relu", ["x"], ["r"]),
                 node("LRN", ["r"], ["lrn"], size=5, alpha=1e-2, beta=0.75,
                      bias=2.0),
                 node("Mul", ["x", "two"], ["x2"]),
                 node("InstanceNormalization", ["x2", "s4", "b4"], ["inorm"],
                      epsilon=1e-3),
                 node("Tanh", ["inorm"], ["it"]),
                 node("GroupNormalization", ["x", "s4", "b4"], ["gnorm"],
                      num_groups=2),
                 node("Add", ["x", "two"], ["xa"]),
                 node("RMSNormalization", ["xa", "s5"], ["rms"], axis=-2),
                 node("Neg", ["rms"], ["y"])],
                [("x", [2, 4, 3, 5])], ["lrn", "it", "gnorm", "y"],
                [weight("s4", [4], 81), weight("b4", [4], 82),
                 weight("s5", [3, 5], 83), const("two", np.float32(2.0))],
                opset=23, declared=[("gnorm", [2, 4, 3, 5])])


@model
def tensor_more():
    """Pad in every mode (a crop and an axes input among them), Tile,
    Trilu, DepthToSpace (both modes), SpaceToDepth, CumSum (reverse and
    exclusive) and ArgMax/ArgMin."""
    return make([node("Pad", ["x", "p1"], ["pc"]),
                 node("Pad", ["x", "p2", "v", "ax"], ["pv"]),
                 node("Pad", ["x", "p1"], ["pr"], mode="reflect"),
                 node("Pad", ["x", "p3"], ["pe"], mode="edge"),
                 node("Pad", ["x", "p4"], ["pw"], mode="wrap"),
                 node("Tile", ["x", "reps"], ["tile"]),
                 node("Trilu", ["x", "k"], ["tl"], upper=0),
                 node("Trilu", ["x"], ["tu"]),
                 node("DepthToSpace", ["x"], ["dcr"], blocksize=2),
                 node("DepthToSpace", ["x"], ["crd"], blocksize=2,
                      mode="CRD"),
                 node("SpaceToDepth", ["dcr"], ["back"], blocksize=2),
                 node("CumSum", ["x", "axis"], ["cs"]),
                 node("CumSum", ["x", "axis"], ["cse"], exclusive=1,
                      reverse=1),
                 node("ArgMax", ["x"], ["amax"], axis=1),
                 node("ArgMin", ["x"], ["amin"], axis=-1, keepdims=0,
                      select_last_index=1)],
                [("x", [2, 4, 3, 5])],
                ["pc", "pv", "pr", "pe", "pw", "tile", "tl", "tu", "dcr",
                 "crd", "back", "cs", "cse", "amax", "amin"],
                [ints("p1", [0, 0, 1, 2, 0, 1, 2, 1]),
                 ints("p2", [2, -1]), const("v", np.float32(-3.5)),
                 ints("ax", [-1]),
                 ints("p3", [1, 0, 0, 3, 0, 0, 2, 0]),
                 ints("p4", [0, 0, 4, 1, 0, 0, 2, 7]),
                 ints("reps", [1, 2, 3, 1]), ints("k", -1),
                 ints("axis", 2)], opset=18)


@model
def qdq():
    """A QDQ model as quantization tools write it: the input quantized to
    uint8 and back, int8 weights with per-channel scales, Conv + Relu, the
    result quantized to int8 and back; DynamicQuantizeLinear; a blocked
    DequantizeLinear (block 4 along axis 1) and int16 quantization."""
    r = rng(90)
    wq = r.integers(-127, 128, size=[8, 4, 3, 3]).astype(np.int8)
    wb = r.integers(-128, 128, size=[6, 8]).astype(np.int8)
    zb = r.integers(-5, 6, size=[6, 2]).astype(np.int8)
    sb = (r.random([6, 2]) * 0.1 + 0.01).astype(np.float32)
    sw = (r.random([8]) * 0.02 + 0.005).astype(np.float32)
    return make([node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
                 node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
                 node("DequantizeLinear", ["wq", "sw"], ["wd"], axis=0),
                 node("Conv", ["xd", "wd", "b"], ["c"], pads=[1, 1, 1, 1]),
                 node("Relu", ["c"], ["cr"]),
                 node("QuantizeLinear", ["cr", "sr", "zr"], ["rq"]),
                 node("DequantizeLinear", ["rq", "sr", "zr"], ["y"]),
                 node("DynamicQuantizeLinear", ["x"], ["dq", "ds", "dz"]),
                 node("DequantizeLinear", ["dq", "ds", "dz"], ["y2"]),
                 node("DequantizeLinear", ["wb", "sb", "zb"], ["wbd"], axis=1,
                      block_size=4),
                 node("Add", ["wbd", "z"], ["y3"]),
                 node("QuantizeLinear", ["x", "s16", "z16"], ["q16"]),
                 node("DequantizeLinear", ["q16", "s16", "z16"], ["y4"])],
                [("x", [2, 4, 6, 6]), ("z", [6, 8])], ["y", "y2", "y3", "y4"],
                [const("sx", np.float32(0.01)), const("zx", np.uint8(128)),
                 numpy_helper.from_array(wq, "wq"), const("sw", sw),
                 weight("b", [8], 91, 0.1), const("sr", np.float32(0.05)),
                 const("zr", np.int8(-10)), numpy_helper.from_array(wb, "wb"),
                 const("sb", sb), numpy_helper.from_array(zb, "zb"),
                 const("s16", np.float32(0.001)),
                 const("z16", np.int16(7))], opset=21)


# Written with every initializer in NAME.onnx.data beside the model.
@model
def slice_concat_groups():
    """Slices and Concats inside elementwise groups: a rotary embedding
    (x * cos + Concat(-x[..., 8:], x[..., :8]) * sin, as decoders write
    it), a Concat along the first dim of an elementwise op over a strided
    Slice and of an op that broadcasts, a Concat of one value twice; and a
    Slice with a negative step, which stays out of its consumer's group."""
    return make([node("Slice", ["x", "half", "end", "last"], ["x2"]),
                 node("Slice", ["x", "zero", "half", "last"], ["x1"]),
                 node("Neg", ["x2"], ["nx2"]),
                 node("Concat", ["nx2", "x1"], ["rot"], axis=-1),
                 node("Mul", ["x", "cos"], ["xc"]),
                 node("Mul", ["rot", "sin"], ["rs"]),
                 node("Add", ["xc", "rs"], ["rope"]),
                 node("Slice", ["a", "one", "big", "first", "two"], ["as"]),
                 node("Sigmoid", ["as"], ["sg"]),
                 node("Add", ["b", "row"], ["br"]),
                 node("Concat", ["sg", "br", "sg"], ["cat"], axis=0),
                 node("Mul", ["cat", "w"], ["mixed"]),
                 node("Exp", ["b"], ["eb"]),
                 node("Concat", ["eb", "eb"], ["twice"], axis=1),
                 node("Tanh", ["twice"], ["tw"]),
                 node("Slice", ["a", "minus_one", "low", "first",
                                "minus_one"], ["rev"]),
                 node("Relu", ["rev"], ["back"])],
                [("x", [2, 8, 4, 16]), ("a", [7, 5]), ("b", [2, 5])],
                ["rope", "mixed", "tw", "back"],
                [weight("cos", [8, 1, 16], 40), weight("sin", [8, 1, 16], 41),
                 weight("row", [1, 5], 42), weight("w", [8, 5], 43),
                 ints("zero", [0]), ints("half", [8]), ints("end", [16]),
                 ints("last", [-1]), ints("one", [1]),
                 ints("big", [1 << 40]), ints("first", [0]), ints("two", [2]),
                 ints("minus_one", [-1]), ints("low", [-100])])


@model
def big_weight():
    """A weight with a value beyond fp16's range (70000): under
    --precision=fp16 it stays f32 (with a warning), and so does the product
    it feeds; the next product, of ordinary weights, runs in fp16."""
    w = (rng(70).standard_normal([16, 8]) * 0.5).astype(np.float32)
    w[3, 5] = 70000.0
    return make([node("MatMul", ["x", "w"], ["xw"]),
                 node("Relu", ["xw"], ["r"]),
                 node("MatMul", ["r", "w2"], ["y"])],
                [("x", [4, 16])], ["y"],
                [numpy_helper.from_array(w, "w"), weight("w2", [8, 8], 71)])


EXTERNAL_DATA = {"external_data"}


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(sorted(MODELS)))
        return 0
    if len(argv) != 3 or argv[1] not in MODELS:
        sys.stderr.write("usage: models.py {%s} OUT.onnx\n" %
                         ",".join(sorted(MODELS)))
        return 2
    m = MODELS[argv[1]]()
    if argv[1] in EXTERNAL_DATA:
        onnx.save_model(m, argv[2], save_as_external_data=True,
                        all_tensors_to_one_file=True,
                        location=os.path.basename(argv[2]) + ".data",
                        size_threshold=0)
    else:
        onnx.save(m, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
