#!/usr/bin/env python3
"""Attention chains that fuse-raise-attention raises, with the shapes the
GPU's `attention` mapping must get right: head sizes of 64 and 32, rows
and keys that are not multiples of the block's tiles, padding masks with
a sample whose keys are all masked (the sdpa guard makes its rows 0),
no mask. Writes one .onnx per case into the folder given; check_attention.sh
compiles each for cuda and compares it with onnxruntime.

  python3 bench/models/attention_cases.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def chain(name, b, h, sq, skv, d, dv, mask, guard, hkv=None, fused=False):
    """Q [b, h, sq, d], K [b, hkv, skv, d], V [b, hkv, skv, dv] inputs
    (hkv < h: each key/value head repeated for h / hkv query heads, by
    Unsqueeze, Expand, Reshape as Llama's export does); the mask from an
    int64 input `keep` [b, 1, 1, skv] (0 masks a key) times `alive` [b, 1,
    1, 1] (sample b - 1 has every key masked). `fused`: Q, K and V come
    instead from one projection of an input x [b, sq, h d] (MatMul with a
    [h d, 3 h d] weight, Split into three, Reshape to heads, Transpose),
    as GPT-2 computes them: the op reads the heads where the projection
    wrote them."""
    hkv = hkv or h
    nodes, inputs, inits = [], [], []
    inputs += [helper.make_tensor_value_info("q", TensorProto.FLOAT, [b, h, sq, d]),
               helper.make_tensor_value_info("k_in", TensorProto.FLOAT, [b, hkv, skv, d]),
               helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [b, hkv, skv, dv])]
    if hkv == h:
        nodes += [helper.make_node("Identity", ["k_in"], ["k"]),
                  helper.make_node("Identity", ["v_in"], ["v"])]
    else:
        g = h // hkv
        inits += [numpy_helper.from_array(np.array([2], np.int64), "axis2"),
                  numpy_helper.from_array(np.array([b, hkv, g, skv, d], np.int64), "wide_k"),
                  numpy_helper.from_array(np.array([b, hkv, g, skv, dv], np.int64), "wide_v"),
                  numpy_helper.from_array(np.array([b, h, skv, d], np.int64), "heads_k"),
                  numpy_helper.from_array(np.array([b, h, skv, dv], np.int64), "heads_v")]
        for t in "kv":
            nodes += [helper.make_node("Unsqueeze", [t + "_in", "axis2"], [t + "1"]),
                      helper.make_node("Expand", [t + "1", "wide_" + t], [t + "2"]),
                      helper.make_node("Reshape", [t + "2", "heads_" + t], [t])]
    inits.append(numpy_helper.from_array(np.float32(1 / np.sqrt(np.sqrt(d))), "root_scale"))
    inits.append(numpy_helper.from_array(np.float32(0), "zero"))
    nodes += [helper.make_node("Mul", ["q", "root_scale"], ["qs"]),
              helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
              helper.make_node("Mul", ["kt", "root_scale"], ["ks"]),
              helper.make_node("MatMul", ["qs", "ks"], ["scores"])]
    logits = "scores"
    if mask:
        inputs.append(helper.make_tensor_value_info("keep", TensorProto.INT64, [b, 1, 1, skv]))
        alive = np.ones([b, 1, 1, 1], np.int64)
        alive[-1] = 0
        inits += [numpy_helper.from_array(alive, "alive"),
                  numpy_helper.from_array(np.int64(0), "izero"),
                  numpy_helper.from_array(np.float32(-np.inf), "minus_inf")]
        nodes += [helper.make_node("Mul", ["keep", "alive"], ["kept"]),
                  helper.make_node("Equal", ["kept", "izero"], ["masked_key"]),
                  helper.make_node("Where", ["masked_key", "minus_inf", "zero"], ["mask"]),
                  helper.make_node("Add", ["scores", "mask"], ["masked"])]
        logits = "masked"
    nodes.append(helper.make_node("Softmax", [logits], ["weights"], axis=-1))
    weights = "weights"
    if guard:
        nodes += [helper.make_node("IsNaN", ["weights"], ["nan"]),
                  helper.make_node("Where", ["nan", "zero", "weights"], ["guarded"])]
        weights = "guarded"
    nodes.append(helper.make_node("MatMul", [weights, "v"], ["y"]))
    graph = helper.make_graph(nodes, name, inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [b, h, sq, dv])],
                              inits)
    if fused:
        e = h * d
        rng = np.random.default_rng(0)
        weight = (rng.standard_normal([e, 3 * e]) / np.sqrt(e)).astype(np.float32)
        front = [helper.make_node("MatMul", ["x", "w_qkv"], ["qkv"]),
                 helper.make_node("Split", ["qkv"], ["q2", "k2", "v2"], axis=2),
                 helper.make_node("Reshape", ["q2", "heads"], ["q3"]),
                 helper.make_node("Reshape", ["k2", "heads"], ["k3"]),
                 helper.make_node("Reshape", ["v2", "heads"], ["v3"]),
                 helper.make_node("Transpose", ["q3"], ["q"], perm=[0, 2, 1, 3]),
                 helper.make_node("Transpose", ["k3"], ["k_in"], perm=[0, 2, 1, 3]),
                 helper.make_node("Transpose", ["v3"], ["v_in"], perm=[0, 2, 1, 3])]
        rest = list(graph.node)
        del graph.node[:]
        graph.node.extend(front + rest)
        del graph.input[:3]
        graph.input.insert(0, helper.make_tensor_value_info(
            "x", TensorProto.FLOAT, [b, sq, e]))
        graph.initializer.extend([
            numpy_helper.from_array(weight, "w_qkv"),
            numpy_helper.from_array(np.array([b, sq, h, d], np.int64), "heads")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


CASES = {
    # BERT-like rows, a partial last row tile and key tile, one sample
    # masked whole (guarded: its rows are 0).
    "sdpa_b3_s77_d64": dict(b=3, h=4, sq=77, skv=77, d=64, dv=64, mask=True, guard=True),
    # Enough rows for 64-row blocks (4 x 12 x ceil(330 / 64) = 288 blocks)
    # and key tiles of 32, both partial at the end.
    "sdpa_b4_s330_d64": dict(b=4, h=12, sq=330, skv=330, d=64, dv=64, mask=True, guard=True),
    # No mask, no guard, head size 32, fewer keys than rows.
    "plain_b2_s50x40_d32": dict(b=2, h=3, sq=50, skv=40, d=32, dv=32, mask=False, guard=False),
    # Grouped-query heads (8 query heads, 2 key/value heads), 64-row
    # blocks (3 x 8 x ceil(700 / 64) = 264), a causal-free padding mask.
    "gqa_b3_s700_d64": dict(b=3, h=8, hkv=2, sq=700, skv=700, d=64, dv=64, mask=True, guard=True),
    # Head sizes that differ (D 48, Dv 16), a mask without the guard.
    "masked_b2_s33_d48": dict(b=2, h=2, sq=33, skv=33, d=48, dv=16, mask=True, guard=False),
    # Q, K and V split off one fused projection (GPT-2): read at head
    # offsets 0, 4 and 8 of the projection's [3, 40, 12, 64].
    "fused_b3_s40_d64": dict(b=3, h=4, sq=40, skv=40, d=64, dv=64, mask=True, guard=True, fused=True),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, shape in CASES.items():
        onnx.save(chain(name, **shape), os.path.join(out, name + ".onnx"))
        print(name)


if __name__ == "__main__":
    main()
