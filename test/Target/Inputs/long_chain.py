#!/usr/bin/env python3
"""A chain of N elementwise ops (Add, Mul, Tanh, Sub in turn) on a
float[1024] input: a model whose one fusible chain is as long as N.

    long_chain.py N OUT.onnx
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(argv):
    n, out = int(argv[1]), argv[2]
    nodes, prev = [], "x"
    for i in range(n):
        name = "y" if i == n - 1 else "t%d" % i
        op = ("Add", "Mul", "Tanh", "Sub")[i % 4]
        ins = [prev] if op == "Tanh" else [prev, "m" if op == "Mul" else "h"]
        nodes.append(helper.make_node(op, ins, [name], name="n%d" % i))
        prev = name
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])],
        [numpy_helper.from_array(np.array(0.5, np.float32), "h"),
         numpy_helper.from_array(np.array(0.999, np.float32), "m")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
