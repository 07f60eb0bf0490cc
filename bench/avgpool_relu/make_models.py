#!/usr/bin/env python3
"""Writes the seed benchmark's models: AveragePool(8x8, stride 8) + Relu on
a 1x1xHxW float input, one file per size, into the given folder."""

import os
import sys

import onnx
from onnx import TensorProto, helper

SIZES = [(128, 3096), (1024, 1024), (2048, 2048), (4096, 4096),
         (8192, 8192), (16384, 16384)]


def model(h, w):
    nodes = [helper.make_node("AveragePool", ["x"], ["p"], name="avgpool",
                              kernel_shape=[8, 8], strides=[8, 8]),
             helper.make_node("Relu", ["p"], ["y"], name="relu")]
    graph = helper.make_graph(
        nodes, "avgpool_relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [1, 1, h // 8, w // 8])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for h, w in SIZES:
        onnx.save(model(h, w), os.path.join(out, "avgpool_relu_%dx%d.onnx" % (h, w)))
        print("%dx%d" % (h, w))
