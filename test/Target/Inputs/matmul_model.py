"""Writes OUT.onnx: MatMul of an M x K input by a K x N weight, + bias,
Relu (seeded random weights).

    matmul_model.py OUT.onnx M K N
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(argv):
    out, m, k, n = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32),
                                "w")
    b = numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"]),
         helper.make_node("Add", ["y", "b"], ["z"]),
         helper.make_node("Relu", ["z"], ["r"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("r", TensorProto.FLOAT, [m, n])],
        [w, b])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
