#!/usr/bin/env python3
"""Transposes of the shapes models have, each a kernel of its own, for
`fuse-run --profile` on the GPU machine: the `transpose` mapping (tiles
through shared memory) against the flat one (--gpu-transpose-tiles=false),
in float32 and float16 (--precision=fp16 --io-precision=fp16: the kernels
read and write half precision). Writes OUT/transposes.onnx and compiles
OUT/{f32,f16}.{tiles,flat}.fbin (with the reference plan, for --check and
compute-sanitizer):

    python3 bench/probes/transpose_shapes.py build/bin/fuse-compile .device/transposes
    # there, for each artifact:
    fuse-run f16.tiles.fbin --profile --warmup 20 --iterations 100
    fuse-run f16.tiles.fbin --check
"""

import os
import subprocess
import sys

import onnx
import onnx.helper as h
from onnx import TensorProto

# (name, input shape, perm): MobileNetV2's NCHW <-> NHWC around its
# depthwise convolutions (14 x 14 and 7 x 7 maps at batch 32), ResNet-50's
# first map, an input image to NHWC (3 channels: short output run, flat
# either way), BERT's K^T at batch 1, a matrix, and a head transpose that
# keeps the innermost dim (flat either way).
SHAPES = [
    ("nchw_to_nhwc_14", [32, 576, 14, 14], [0, 2, 3, 1]),
    ("nhwc_to_nchw_14", [32, 14, 14, 576], [0, 3, 1, 2]),
    ("nchw_to_nhwc_7", [32, 960, 7, 7], [0, 2, 3, 1]),
    ("nhwc_to_nchw_7", [32, 7, 7, 960], [0, 3, 1, 2]),
    ("nchw_to_nhwc_56", [32, 64, 56, 56], [0, 2, 3, 1]),
    ("image_to_nhwc", [32, 3, 224, 224], [0, 2, 3, 1]),
    ("bert_kt", [1, 128, 12, 64], [0, 2, 3, 1]),
    ("bert_kt_b32", [32, 128, 12, 64], [0, 2, 3, 1]),
    ("matrix", [2048, 1024], [1, 0]),
    ("heads", [32, 128, 12, 64], [0, 2, 1, 3]),
]


def main():
    compiler, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    nodes, inputs, outputs = [], [], []
    for name, shape, perm in SHAPES:
        nodes.append(h.make_node("Transpose", [name], [name + "_t"],
                                 perm=perm))
        inputs.append(h.make_tensor_value_info(name, TensorProto.FLOAT,
                                               shape))
        outputs.append(h.make_tensor_value_info(
            name + "_t", TensorProto.FLOAT, [shape[p] for p in perm]))
    model = h.make_model(h.make_graph(nodes, "transposes", inputs, outputs),
                         opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(out, "transposes.onnx")
    onnx.save(model, path)
    precisions = {"f32": [], "f16": ["--precision=fp16", "--io-precision=fp16"]}
    for prefix, flags in precisions.items():
        for mapping, extra in (("tiles", []),
                               ("flat", ["--gpu-transpose-tiles=false"])):
            subprocess.run([compiler, path, "-o",
                            os.path.join(out, f"{prefix}.{mapping}.fbin"),
                            "--reference"] + flags + extra, check=True)


if __name__ == "__main__":
    main()
