#!/usr/bin/env python3
"""Writes a model as PyTorch's `model.half()` (or `.to(torch.bfloat16)`)
export looks: every float32 tensor of the graph in float16 (bfloat16).

    to_half.py MODEL.onnx OUT.onnx [--bf16]

Initializers, the graph's float inputs and outputs, Constant and
ConstantOfShape values, Cast targets and the value_info of float32 tensors
become float16; integer tensors stay. External data is loaded and written
inside OUT. This is not a general converter (onnxconverter_common's keeps
some ops in float32): it is for the test models, whose ops all take half
precision.
"""

import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def convert_tensor(tensor, half):
    if tensor.data_type != TensorProto.FLOAT:
        return tensor
    values = numpy_helper.to_array(tensor)
    if half == TensorProto.FLOAT16:
        # float32's extremes (a mask's -3.4e38) become float16's, as in a
        # model built in half precision (torch.finfo(torch.float16).min).
        finite = np.isfinite(values)
        values = np.where(finite, np.clip(values, -65504, 65504), values)
        converted = numpy_helper.from_array(values.astype(np.float16),
                                            tensor.name)
    else:
        # bfloat16: round to nearest even on the bits.
        bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        converted = helper.make_tensor(tensor.name, TensorProto.BFLOAT16,
                                       values.shape, bits.tobytes(), raw=True)
    return converted


def convert_type(type_proto, half):
    if type_proto.HasField("tensor_type") and \
            type_proto.tensor_type.elem_type == TensorProto.FLOAT:
        type_proto.tensor_type.elem_type = half


def convert_graph(graph, half):
    for i, init in enumerate(graph.initializer):
        graph.initializer[i].CopyFrom(convert_tensor(init, half))
    for value in list(graph.input) + list(graph.output) + \
            list(graph.value_info):
        convert_type(value.type, half)
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                attr.t.CopyFrom(convert_tensor(attr.t, half))
            elif attr.type == onnx.AttributeProto.GRAPH:
                convert_graph(attr.g, half)
            elif node.op_type == "Cast" and attr.name == "to" and \
                    attr.i == TensorProto.FLOAT:
                attr.i = half


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--bf16", action="store_true")
    args = p.parse_args()
    model = onnx.load(args.model)
    half = TensorProto.BFLOAT16 if args.bf16 else TensorProto.FLOAT16
    convert_graph(model.graph, half)
    onnx.save(model, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
