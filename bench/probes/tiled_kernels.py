#!/usr/bin/env python3
"""A model whose generated kernels take the GPU thread tiles: two 3x3
convolutions and a batched MatMul + bias big enough for contraction tiles
under --strategy=generated, and, under --conv=gemm, im2col kernels tiled
along columns and (a 7x7 map at batch 32) over images. Writes OUT/tiles.onnx
and compiles OUT/gen.fbin and OUT/gemm.fbin (with the reference plan), for
compute-sanitizer on the GPU machine:

    python3 bench/probes/tiled_kernels.py build/bin/fuse-compile .device/tiles
    # there:
    compute-sanitizer --tool memcheck --leak-check full fuse-run gen.fbin --check
    compute-sanitizer --tool racecheck fuse-run gen.fbin   (and gemm.fbin)
"""

import os
import subprocess
import sys

import numpy as np
import onnx
import onnx.helper as h
from onnx import numpy_helper


def main():
    compiler, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)

    def weight(name, shape):
        return numpy_helper.from_array(
            rng.uniform(-0.1, 0.1, shape).astype(np.float32), name)

    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1] * 4),
             h.make_node("Relu", ["c1"], ["r1"]),
             h.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1] * 4,
                         strides=[2, 2]),
             h.make_node("Relu", ["c2"], ["y1"]),
             h.make_node("MatMul", ["a", "m"], ["mm"]),
             h.make_node("Add", ["mm", "mb"], ["y2"]),
             h.make_node("Conv", ["z", "w3"], ["y3"], pads=[1] * 4)]
    graph = h.make_graph(
        nodes, "tiles",
        [h.make_tensor_value_info("x", 1, [8, 32, 28, 28]),
         h.make_tensor_value_info("a", 1, [4, 384, 256]),
         h.make_tensor_value_info("z", 1, [32, 64, 7, 7])],
        [h.make_tensor_value_info("y1", 1, [8, 64, 14, 14]),
         h.make_tensor_value_info("y2", 1, [4, 384, 512]),
         h.make_tensor_value_info("y3", 1, [32, 64, 7, 7])],
        [weight("w1", [64, 32, 3, 3]), weight("b1", [64]),
         weight("w2", [64, 64, 3, 3]), weight("m", [256, 512]),
         weight("mb", [512]), weight("w3", [64, 64, 3, 3])])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(out, "tiles.onnx")
    onnx.save(model, path)
    for name, flags in (("gen", ["--strategy=generated"]),
                        ("gemm", ["--conv=gemm"])):
        subprocess.run([compiler, path, "-o", os.path.join(out, name + ".fbin")]
                       + flags, check=True)


if __name__ == "__main__":
    main()
