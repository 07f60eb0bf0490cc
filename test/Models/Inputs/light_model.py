#!/usr/bin/env python3
"""Writes a model-zoo `light_*` model from the onnx package with real,
seeded random weights.

    light_model.py NAME OUT.onnx

The light models replace every weight by ConstantOfShape(0.02), which makes
every output element equal and a comparison with onnxruntime meaningless.
Here each such weight becomes an initializer of N(0, 1/fan_in) values, and
BatchNormalization variances are made positive, so the activations stay in a
sane range through the whole network.
"""

import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    name, out = sys.argv[1], sys.argv[2]
    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test",
                        "data", "light", "light_%s.onnx" % name)
    model = onnx.load(path)
    graph = model.graph
    rng = np.random.default_rng(0)
    inits = {init.name: init for init in graph.initializer}

    # BatchNormalization parameters: scale and bias near (1, 0), variance
    # positive (a weight from N(0, 1) would make it NaN).
    bn_ranges = [(0.5, 1.5), (-0.2, 0.2), (-0.2, 0.2), (0.5, 1.5)]
    bn_params = {}
    for node in graph.node:
        if node.op_type == "BatchNormalization":
            for i in range(1, 5):
                bn_params[node.input[i]] = bn_ranges[i - 1]

    weights = {}
    kept = []
    for node in graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in inits:
            shape = numpy_helper.to_array(inits[node.input[0]]).astype(int)
            out_name = node.output[0]
            if out_name in bn_params:
                values = rng.uniform(*bn_params[out_name], shape)
            else:
                fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
                values = rng.normal(0, 1 / np.sqrt(fan_in), shape)
            weights[out_name] = values.astype(np.float32)
        else:
            kept.append(node)
    del graph.node[:]
    graph.node.extend(kept)
    for name_, (lo, hi) in bn_params.items():
        if name_ in inits:
            shape = numpy_helper.to_array(inits[name_]).shape
            inits[name_].CopyFrom(numpy_helper.from_array(
                rng.uniform(lo, hi, shape).astype(np.float32), name_))

    used = {n for node in kept for n in node.input}
    for name_, values in weights.items():
        graph.initializer.append(numpy_helper.from_array(values, name_))
    # Drop the shape initializers nothing reads any more.
    for init in list(graph.initializer):
        if init.name not in used and init.name.endswith("__SHAPE"):
            graph.initializer.remove(init)
    # IR 4 lets initializers exist without a matching graph input: keep
    # only the real inputs.
    model.ir_version = max(model.ir_version, 4)
    constant = {init.name for init in graph.initializer}
    real = [v for v in graph.input if v.name not in constant]
    del graph.input[:]
    graph.input.extend(real)
    onnx.checker.check_model(model)
    onnx.save(model, out)


if __name__ == "__main__":
    main()
