#!/usr/bin/env python3
"""Regenerates the example models in this folder (run from anywhere).

avgpool_relu.onnx: the seed experiment, AveragePool (kernel 8, stride 8)
followed by ReLU on a 1x1x128x3096 float tensor, as ONNX opset 17.
"""

import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def avgpool_relu():
    nodes = [
        helper.make_node("AveragePool", ["X"], ["pooled"], name="avgpool",
                         kernel_shape=[8, 8], strides=[8, 8]),
        helper.make_node("Relu", ["pooled"], ["Y"], name="relu"),
    ]
    graph = helper.make_graph(
        nodes, "avgpool_relu",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT,
                                       [1, 1, 128, 3096])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT,
                                       [1, 1, 16, 387])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="fuse-examples")
    # A fixed IR version keeps the file byte-identical across onnx releases.
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    onnx.save(avgpool_relu(), os.path.join(HERE, "avgpool_relu.onnx"))
