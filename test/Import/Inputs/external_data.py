#!/usr/bin/env python3
"""Writes a model whose initializers are ONNX external data.

    external_data.py CASE DIR

DIR/model.onnx: y = x @ w + b + c, with the initializers w (4x4) and b (4)
in DIR/model.onnx.data (as onnx.save_model writes them) and c (4), the
value of a Constant node, in DIR/weights/c.bin with neither offset nor
length. `good` is that model; the
other cases break one thing in it.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def entries(tensor):
    return {e.key: e for e in tensor.external_data}


def write_good(out):
    w = numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(4, 4),
                                "w")
    b = numpy_helper.from_array(np.array([1, 2, 3, 4], np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
         helper.make_node("Add", ["m", "b"], ["mb"], name="add_b"),
         helper.make_node("Add", ["mb", "c"], ["y"], name="add_c")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [w, b])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(out, "model.onnx")
    onnx.save_model(model, path, save_as_external_data=True,
                    all_tensors_to_one_file=True, location="model.onnx.data",
                    size_threshold=0)
    # c: by hand, in a subfolder, offset and length left out.
    os.makedirs(os.path.join(out, "weights"), exist_ok=True)
    np.array([10, 20, 30, 40], np.float32).tofile(
        os.path.join(out, "weights", "c.bin"))
    model = onnx.load(path, load_external_data=False)
    c = onnx.TensorProto(name="c", data_type=TensorProto.FLOAT, dims=[4])
    c.data_location = TensorProto.EXTERNAL
    c.external_data.add(key="location", value="weights/c.bin")
    model.graph.node.insert(0, helper.make_node("Constant", [], ["c"],
                                                name="const_c", value=c))
    return model


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    case, out = argv[1], argv[2]
    os.makedirs(out, exist_ok=True)
    model = write_good(out)
    w = model.graph.initializer[0]
    data = os.path.join(out, "model.onnx.data")
    if case == "missing":
        os.remove(data)
    elif case == "short":
        os.truncate(data, 70)  # b needs bytes 64 to 80
    elif case == "length":
        entries(w)["length"].value = "60"
    elif case == "absolute":
        entries(w)["location"].value = os.path.abspath(data)
    elif case == "escape":
        entries(w)["location"].value = "weights/../../model.onnx.data"
    elif case == "symlink":
        # weights/link points at a file outside DIR.
        outside = os.path.join(os.path.dirname(os.path.abspath(out)),
                               "outside.data")
        os.replace(data, outside)
        os.symlink(outside, os.path.join(out, "weights", "link"))
        entries(w)["location"].value = "weights/link"
    elif case == "no_location":
        del w.external_data[:]
    elif case == "bad_offset":
        entries(w)["offset"].value = "-4"
    elif case != "good":
        sys.stderr.write("unknown case %s\n" % case)
        return 2
    onnx.save(model, os.path.join(out, "model.onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
