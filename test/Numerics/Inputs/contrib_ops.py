#!/usr/bin/env python3
"""Writes small models of onnxruntime's contrib operators (domain
com.microsoft), as its transformer optimizer writes them, for
test/Numerics/contrib_ops.test:

    contrib_ops.py DIR

DIR/NAME.onnx for each case below; DIR/NAME.oracle.onnx, where onnxruntime
has no CPU kernel for the op (BiasAdd), computes the same with standard
ops. Weights are seeded random values.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)
MS = "com.microsoft"


def weight(name, shape, scale=1.0):
    return numpy_helper.from_array(
        (RNG.standard_normal(shape) * scale).astype(np.float32), name)


def model(nodes, inputs, outputs, inits=(), contrib=True):
    graph = helper.make_graph(
        nodes, "contrib",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
         for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
         for n in outputs],
        list(inits))
    opsets = [helper.make_opsetid("", 17)]
    if contrib:
        opsets.append(helper.make_opsetid(MS, 1))
    m = helper.make_model(graph, opset_imports=opsets)
    m.ir_version = 8
    return m


X = [("x", [2, 5, 16])]


def cases():
    yield "gelu", model([helper.make_node("Gelu", ["x"], ["y"], domain=MS)],
                        X, ["y"])
    yield "bias_gelu", model(
        [helper.make_node("BiasGelu", ["x", "b"], ["y"], domain=MS)], X, ["y"],
        [weight("b", [16])])
    yield "fast_gelu", model(
        [helper.make_node("FastGelu", ["x", "b"], ["y"], domain=MS)], X, ["y"],
        [weight("b", [16])])
    yield "fast_gelu_nobias", model(
        [helper.make_node("FastGelu", ["x"], ["y"], domain=MS)], X, ["y"])
    yield "quick_gelu", model(
        [helper.make_node("QuickGelu", ["x"], ["y"], domain=MS)], X, ["y"])
    yield "quick_gelu_alpha", model(
        [helper.make_node("QuickGelu", ["x"], ["y"], domain=MS, alpha=1.25)],
        X, ["y"])
    yield "fused_matmul", model(
        [helper.make_node("FusedMatMul", ["x", "w"], ["y"], domain=MS,
                          alpha=0.5)], X, ["y"], [weight("w", [16, 8])])
    yield "fused_matmul_trans", model(
        [helper.make_node("FusedMatMul", ["x", "w"], ["y"], domain=MS,
                          transA=1, transB=1)], X, ["y"],
        [weight("w", [2, 3, 5])])
    # BERT's residual and LayerNorm: the sum as a second output, read by
    # the next layer's (as the optimizer chains them).
    yield "skip_layer_norm", model(
        [helper.make_node("SkipLayerNormalization",
                          ["x", "s", "g", "be", "bi"], ["y", "", "", "sum"],
                          domain=MS, epsilon=1e-5),
         helper.make_node("SkipLayerNormalization", ["y", "sum", "g"],
                          ["z"], domain=MS)],
        X + [("s", [2, 5, 16])], ["z", "sum"],
        [weight("g", [16]), weight("be", [16]), weight("bi", [16])])
    yield "skip_simplified_layer_norm", model(
        [helper.make_node("SkipSimplifiedLayerNormalization",
                          ["x", "s", "g", "bi"], ["y", "", "", "sum"],
                          domain=MS, epsilon=1e-6),
         helper.make_node("SimplifiedLayerNormalization", ["sum", "g"],
                          ["z"], epsilon=1e-6)],
        X + [("s", [2, 5, 16])], ["y", "z"],
        [weight("g", [16]), weight("bi", [16])])
    yield "simplified_layer_norm", model(
        [helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"],
                          axis=-1, epsilon=1e-5)],
        X, ["y"], [weight("g", [16])], contrib=False)
    # BERT's self-attention, Q, K and V weights packed, 4 heads of 4.
    attn = [weight("w", [16, 48], 0.5), weight("b", [48])]
    yield "attention", model(
        [helper.make_node("Attention", ["x", "w", "b"], ["y"], domain=MS,
                          num_heads=4)], X, ["y"], attn)
    # A length per row (as the optimizer's ReduceSum of the mask gives).
    lengths = helper.make_tensor_value_info("len", TensorProto.INT32, [2])
    m = model([helper.make_node("Attention", ["x", "w", "b", "len"], ["y"],
                                domain=MS, num_heads=4, scale=0.3)],
              X, ["y"], attn)
    m.graph.input.append(lengths)
    yield "attention_lengths", m
    raw = helper.make_tensor_value_info("mask", TensorProto.INT32, [2, 5])
    m = model([helper.make_node("Attention", ["x", "w", "", "mask"], ["y"],
                                domain=MS, num_heads=2,
                                mask_filter_value=-1e4)],
              X, ["y"], attn[:1])
    m.graph.input.append(raw)
    yield "attention_raw_mask", m
    bias_add = [("x", [2, 5, 16]), ("s", [2, 5, 16])]
    yield "bias_add", model(
        [helper.make_node("BiasAdd", ["x", "b", "s"], ["y"], domain=MS)],
        bias_add, ["y"], [weight("b", [16])])


def errors():
    """Models fuse refuses, each with a message the test checks."""
    yield "err_trans_batch", model(
        [helper.make_node("FusedMatMul", ["x", "w"], ["y"], domain=MS,
                          transBatchA=1)], X, ["y"], [weight("w", [16, 8])])
    yield "err_mean_output", model(
        [helper.make_node("SkipLayerNormalization", ["x", "x", "g"],
                          ["y", "mean"], domain=MS)],
        X, ["y", "mean"], [weight("g", [16])])
    yield "err_no_opset", model(
        [helper.make_node("Gelu", ["x"], ["y"], domain=MS)], X, ["y"],
        contrib=False)
    yield "err_unsupported", model(
        [helper.make_node("EmbedLayerNormalization", ["x"], ["y"], domain=MS),
         helper.make_node("QOrderedGelu", ["y"], ["z"], domain=MS)],
        X, ["z"])


    yield "err_attention_past", model(
        [helper.make_node("Attention", ["x", "w", "b", "", "x"], ["y"],
                          domain=MS, num_heads=4)], X, ["y"],
        [weight("w", [16, 48]), weight("b", [48])])
    yield "err_attention_causal", model(
        [helper.make_node("Attention", ["x", "w"], ["y"], domain=MS,
                          num_heads=4, unidirectional=1)], X, ["y"],
        [weight("w", [16, 48])])


def oracles():
    b = weight("b", [16])
    yield "bias_add", model(
        [helper.make_node("Add", ["x", "b"], ["t"]),
         helper.make_node("Add", ["t", "s"], ["y"])],
        [("x", [2, 5, 16]), ("s", [2, 5, 16])], ["y"], [b], contrib=False)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, m in list(cases()) + list(errors()):
        onnx.save(m, os.path.join(out, name + ".onnx"))
    # The oracle takes the case's weights: the same seed, drawn again.
    global RNG
    RNG = np.random.default_rng(7)
    ms = dict(cases())
    for name, m in oracles():
        m.graph.ClearField("initializer")
        m.graph.initializer.extend(ms[name].graph.initializer)
        onnx.save(m, os.path.join(out, name + ".oracle.onnx"))


if __name__ == "__main__":
    main()
