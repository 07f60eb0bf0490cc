#!/usr/bin/env python3
"""Writes one small binary ONNX model for the importer tests.

    make_model.py NAME OUT.onnx

Each NAME is a function below. These are the cases ONNX text syntax cannot
express (node names, raw_data, external data, values without types) or
that must go through the binary reader. Weights are seeded, so the output
is the same on every run.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def rng():
    return np.random.default_rng(0)


def make(nodes, inputs, outputs, initializers=(), opset=17, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    return helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="fuse-tests",
    )


def tensor_input(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


@case
def conv_relu():
    """Conv with weight and bias initializers, then Relu; symbolic batch."""
    w = numpy_helper.from_array(
        rng().standard_normal((16, 3, 3, 3)).astype(np.float32), "conv.weight")
    b = numpy_helper.from_array(
        rng().standard_normal(16).astype(np.float32), "conv.bias")
    nodes = [
        helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["c"],
                         name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"], name="relu1"),
    ]
    return make(nodes, [tensor_input("x", ["N", 3, 32, 32])],
                [tensor_input("y", None)], [w, b])


@case
def unsupported_op():
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu1"),
        helper.make_node("Unique", ["r"], ["y"], name="unique_7"),
    ]
    return make(nodes, [tensor_input("x", [2, 3])], [tensor_input("y", None)])


@case
def custom_domain():
    nodes = [helper.make_node("FusedGelu", ["x"], ["y"], name="gelu0",
                              domain="com.microsoft")]
    m = make(nodes, [tensor_input("x", [2, 3])], [tensor_input("y", None)])
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return m


@case
def raw_data_size():
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([4])
    w.raw_data = b"\0" * 12  # 3 floats for a shape of 4
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return make(nodes, [tensor_input("x", [4])], [tensor_input("y", None)],
                [w])


@case
def typed_data_count():
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 3], [1.0] * 6)
    del w.float_data[4:]
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return make(nodes, [tensor_input("x", [2, 3])], [tensor_input("y", None)],
                [w])


@case
def external_data():
    w = helper.make_tensor("w", TensorProto.FLOAT, [4], [1.0] * 4)
    w.ClearField("float_data")
    w.data_location = TensorProto.EXTERNAL
    entry = w.external_data.add()
    entry.key = "location"
    entry.value = "weights.bin"
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    return make(nodes, [tensor_input("x", [4])], [tensor_input("y", None)],
                [w])


@case
def string_initializer():
    w = helper.make_tensor("labels", TensorProto.STRING, [2], [b"a", b"b"])
    nodes = [helper.make_node("Identity", ["x"], ["y"], name="id")]
    return make(nodes, [tensor_input("x", [2])], [tensor_input("y", None)],
                [w])


@case
def complex_input():
    nodes = [helper.make_node("Identity", ["x"], ["y"], name="id")]
    return make(nodes, [tensor_input("x", [2], TensorProto.COMPLEX64)],
                [tensor_input("y", None)])


@case
def untyped_input():
    x = onnx.ValueInfoProto()
    x.name = "x"
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return make(nodes, [x], [tensor_input("y", None)])


@case
def unshaped_input():
    """A graph input with an element type but no shape at all."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, None)
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return make(nodes, [x], [tensor_input("y", None)])


@case
def sequence_input():
    x = helper.make_tensor_sequence_value_info("x", TensorProto.FLOAT, [2])
    nodes = [helper.make_node("Identity", ["x"], ["y"], name="id")]
    return make(nodes, [x], [tensor_input("y", None)])


@case
def old_opset():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return make(nodes, [tensor_input("x", [2])], [tensor_input("y", None)],
                opset=6)


@case
def future_opset():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    return make(nodes, [tensor_input("x", [2])], [tensor_input("y", None)],
                opset=99)


@case
def no_default_opset():
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    m = make(nodes, [tensor_input("x", [2])], [tensor_input("y", None)])
    del m.opset_import[:]
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    return m


@case
def maxpool_indices():
    nodes = [helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool",
                              kernel_shape=[2, 2])]
    return make(nodes, [tensor_input("x", [1, 1, 4, 4])],
                [tensor_input("y", None), tensor_input("idx", None)])


@case
def unsigned_relu():
    """Imports; its Relu of uint8 is refused when compiled."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu_u8")]
    return make(nodes, [tensor_input("x", [4], TensorProto.UINT8)],
                [tensor_input("y", [4], TensorProto.UINT8)])


@case
def batchnorm_training():
    c = 4
    params = [numpy_helper.from_array(np.ones(c, np.float32), n)
              for n in ("s", "b", "m", "v")]
    nodes = [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                              ["y"], name="bn", training_mode=1)]
    return make(nodes, [tensor_input("x", [1, c, 2, 2])],
                [tensor_input("y", None)], params, opset=15)


@case
def float_kernel_shape():
    node = helper.make_node("AveragePool", ["x"], ["y"], name="pool")
    node.attribute.append(helper.make_attribute("kernel_shape", [2.0, 2.0]))
    return make([node], [tensor_input("x", [1, 1, 4, 4])],
                [tensor_input("y", None)])


@case
def bool_and_int_weights():
    """Initializers of several element types, typed fields and raw_data."""
    inits = [
        helper.make_tensor("mask", TensorProto.BOOL, [3], [True, False, True]),
        numpy_helper.from_array(np.arange(12, dtype=np.int64), "ids"),
        numpy_helper.from_array(np.full(10, 0.5, np.float16), "halves"),
        helper.make_tensor("small_i32", TensorProto.INT32, [2], [7, -3]),
    ]
    nodes = [
        helper.make_node("Identity", ["mask"], ["m"], name="id_mask"),
        helper.make_node("Identity", ["ids"], ["i"], name="id_ids"),
        helper.make_node("Identity", ["halves"], ["h"], name="id_halves"),
        helper.make_node("Identity", ["small_i32"], ["s"], name="id_small"),
    ]
    outputs = [onnx.ValueInfoProto(name=n) for n in "mihs"]
    return make(nodes, [], outputs, inits)


@case
def dropout_training():
    """Dropout-13 with training_mode a constant true."""
    inits = [numpy_helper.from_array(np.array(0.1, np.float32), "ratio"),
             numpy_helper.from_array(np.array(True), "training")]
    nodes = [helper.make_node("Dropout", ["x", "ratio", "training"], ["y"],
                              name="drop")]
    return make(nodes, [tensor_input("x", [2, 3])],
                [tensor_input("y", None)], inits, opset=13)


@case
def cast_to_string():
    nodes = [helper.make_node("Cast", ["x"], ["y"], name="to_text",
                              to=TensorProto.STRING)]
    return make(nodes, [tensor_input("x", [4])],
                [tensor_input("y", None, TensorProto.STRING)])


def main(argv):
    if len(argv) != 3 or argv[1] not in CASES:
        sys.stderr.write("usage: make_model.py {%s} OUT.onnx\n" %
                         ",".join(sorted(CASES)))
        return 2
    onnx.save(CASES[argv[1]](), argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
