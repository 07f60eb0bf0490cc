#!/usr/bin/env python3
"""Writes a small BERT-style encoder as PyTorch's ONNX exporter (opset 17,
dynamo=False) lays it out, with seeded random weights.

    transformer.py OUT.onnx [--layers N] [--seq S] [--hidden H] [--heads A]

The graph keeps what makes exported transformers hard to compile: shape
subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) around the
attention heads, an attention mask built with Cast/Sub/Mul/Unsqueeze,
position ids sliced from a constant, Softmax scaled by Div, GELU as
Div/Erf/Add/Mul/Mul, LayerNormalization, and a Gather + Gemm + Tanh pooler.
Inputs: input_ids and attention_mask, int64 [1, S].
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Builder:
    def __init__(self, seed):
        self.nodes, self.inits = [], []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, hint):
        self.count += 1
        return "%s_%d" % (hint, self.count)

    def const(self, array, hint="c"):
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def weight(self, shape, scale=None, hint="w"):
        scale = scale if scale is not None else 1 / np.sqrt(shape[0])
        return self.const(
            self.rng.normal(0, scale, shape).astype(np.float32), hint)

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out],
                                           name=out, **attrs))
        return out

    def dim(self, x, index):
        """Shape(x)[index] as a 1-D tensor, the exporter's way."""
        shape = self.op("Shape", [x])
        d = self.op("Gather", [shape, self.const(np.int64(index))], axis=0)
        return self.op("Unsqueeze", [d, self.const(np.array([0]))])

    def linear(self, x, fan_in, fan_out):
        y = self.op("MatMul", [x, self.weight([fan_in, fan_out])])
        return self.op("Add", [self.const(np.zeros(fan_out, np.float32) +
                                          self.rng.normal(0, 0.02, fan_out)
                                          .astype(np.float32), "bias"), y])

    def layer_norm(self, x, hidden):
        scale = self.const((1 + self.rng.normal(0, 0.1, hidden))
                           .astype(np.float32), "ln_w")
        bias = self.const(self.rng.normal(0, 0.1, hidden).astype(np.float32),
                          "ln_b")
        return self.op("LayerNormalization", [x, scale, bias], axis=-1,
                       epsilon=1e-12)


def encoder_layer(b, x, mask, hidden, heads):
    head = hidden // heads

    def split_heads(t):
        shape = b.op("Concat", [b.dim(t, 0), b.dim(t, 1),
                                b.const(np.array([heads])),
                                b.const(np.array([head]))], axis=0)
        t = b.op("Reshape", [t, shape])
        return b.op("Transpose", [t], perm=[0, 2, 1, 3])

    q = split_heads(b.linear(x, hidden, hidden))
    k = split_heads(b.linear(x, hidden, hidden))
    v = split_heads(b.linear(x, hidden, hidden))
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.op("Div", [scores, b.const(np.float32(np.sqrt(head)))])
    scores = b.op("Add", [scores, mask])
    probs = b.op("Softmax", [scores], axis=-1)
    context = b.op("Transpose", [b.op("MatMul", [probs, v])],
                   perm=[0, 2, 1, 3])
    shape = b.op("Concat", [b.dim(context, 0), b.dim(context, 1),
                            b.const(np.array([hidden]))], axis=0)
    context = b.op("Reshape", [context, shape])
    attn = b.linear(context, hidden, hidden)
    x = b.layer_norm(b.op("Add", [attn, x]), hidden)

    h = b.linear(x, hidden, 4 * hidden)
    gelu = b.op("Mul", [h, b.op("Add", [b.op("Erf", [b.op(
        "Div", [h, b.const(np.float32(1.4142135))])]),
        b.const(np.float32(1.0))])])
    gelu = b.op("Mul", [gelu, b.const(np.float32(0.5))])
    out = b.linear(gelu, 4 * hidden, hidden)
    return b.layer_norm(b.op("Add", [out, x]), hidden)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seq", type=int, default=16)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=100)
    args = p.parse_args()
    b = Builder(0)
    hidden = args.hidden

    # Embeddings: words + positions (sliced from a constant) + token types.
    words = b.op("Gather", [b.weight([args.vocab, hidden], 1.0), "input_ids"])
    seq = b.dim("input_ids", 1)
    position_ids = b.op("Slice", [b.const(np.arange(512)[None, :]),
                                  b.const(np.array([0])), seq,
                                  b.const(np.array([1]))])
    positions = b.op("Gather", [b.weight([512, hidden], 1.0), position_ids])
    types = b.op("Gather", [b.weight([2, hidden], 1.0),
                            b.op("ConstantOfShape", [b.op("Shape", [
                                "input_ids"])], value=helper.make_tensor(
                                    "v", TensorProto.INT64, [1], [0]))])
    x = b.op("Add", [b.op("Add", [words, types]), positions])
    x = b.layer_norm(x, hidden)

    # Extended attention mask: (1 - mask) * -10000, as [B, 1, 1, S].
    mask = b.op("Unsqueeze", [b.op("Unsqueeze", [
        "attention_mask", b.const(np.array([1]))]), b.const(np.array([2]))])
    mask = b.op("Cast", [mask], to=TensorProto.FLOAT)
    mask = b.op("Mul", [b.op("Sub", [b.const(np.float32(1.0)), mask]),
                        b.const(np.float32(-10000.0))])

    for _ in range(args.layers):
        x = encoder_layer(b, x, mask, hidden, args.heads)
    hidden_state = b.op("Identity", [x], hint="last_hidden_state")

    first = b.op("Gather", [hidden_state, b.const(np.int64(0))], axis=1)
    pooled = b.op("Gemm", [first, b.weight([hidden, hidden]),
                           b.const(np.zeros(hidden, np.float32))], transB=1)
    pooled = b.op("Tanh", [pooled], hint="pooler_output")

    graph = helper.make_graph(
        b.nodes, "mini_bert",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                       [1, args.seq]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                       [1, args.seq])],
        [helper.make_tensor_value_info(hidden_state, TensorProto.FLOAT,
                                       [1, args.seq, hidden]),
         helper.make_tensor_value_info(pooled, TensorProto.FLOAT,
                                       [1, hidden])],
        b.inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, args.out)


if __name__ == "__main__":
    main()
