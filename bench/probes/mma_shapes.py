#!/usr/bin/env python3
"""BERT-base's four matmuls (sequence 128, batch 1 and 32) with the
epilogues the model gives them, each a kernel of its own, for `fuse-run
--profile` on the GPU machine: the tensor-core `mma` kernel
(--mma-over-library) against the cuBLASLt call with the generated kernel
of what it cannot fuse (the default), in float16 and bfloat16 with
half-precision inputs and outputs; plus odd shapes (partial tiles, a
Gemm with transB and C, a batch) for numerics. Writes OUT/NAME.onnx and
compiles OUT/NAME.{precision}.{library,mma,mma_sN}.fbin (mma_sN: the
reduction split among N blocks of a cluster), with the reference plan
(for --check and compute-sanitizer):

    python3 bench/probes/mma_shapes.py path/to/fuse-compile OUT
    # there, for each artifact:
    fuse-run OUT/bert_b1.fp16.mma.fbin --profile --warmup 20 --iterations 100
    fuse-run OUT/bert_b1.fp16.mma.fbin --check
"""

import os
import subprocess
import sys

import numpy as np
import onnx
import onnx.helper as h
from onnx import TensorProto, numpy_helper

RNG = np.random.default_rng(0)


def weight(name, shape, scale):
    return numpy_helper.from_array(
        (RNG.standard_normal(shape) * scale).astype(np.float32), name)


def gelu(nodes, x, out):
    nodes += [h.make_node("Div", [x, "sqrt2"], [out + "_d"]),
              h.make_node("Erf", [out + "_d"], [out + "_e"]),
              h.make_node("Add", [out + "_e", "one"], [out + "_e1"]),
              h.make_node("Mul", [x, out + "_e1"], [out + "_m"]),
              h.make_node("Mul", [out + "_m", "half"], [out])]


def bert_matmuls(batch):
    """QKV (+bias), the attention output (+bias +residual), FFN1 (+bias,
    GELU), FFN2 (+bias +residual)."""
    s, d, f = 128, 768, 3072
    nodes, inits = [], [
        numpy_helper.from_array(np.array(2 ** 0.5, np.float32), "sqrt2"),
        numpy_helper.from_array(np.array(1.0, np.float32), "one"),
        numpy_helper.from_array(np.array(0.5, np.float32), "half")]
    inputs = [h.make_tensor_value_info("x", TensorProto.FLOAT, [batch, s, d]),
              h.make_tensor_value_info("h", TensorProto.FLOAT, [batch, s, f]),
              h.make_tensor_value_info("r", TensorProto.FLOAT, [batch, s, d])]
    outputs = []
    for name, k, n, residual, act in (("qkv", d, 3 * d, False, False),
                                      ("out", d, d, True, False),
                                      ("ffn1", d, f, False, True),
                                      ("ffn2", f, d, True, False)):
        inits += [weight(name + "_w", [k, n], k ** -0.5),
                  weight(name + "_b", [n], 0.1)]
        source = "x" if k == d else "h"
        nodes += [h.make_node("MatMul", [source, name + "_w"], [name + "_mm"]),
                  h.make_node("Add", [name + "_mm", name + "_b"],
                              [name + "_y" if residual or act else name])]
        if residual:
            nodes.append(h.make_node("Add", [name + "_y", "r"], [name]))
        if act:
            gelu(nodes, name + "_y", name)
        outputs.append(h.make_tensor_value_info(name, TensorProto.FLOAT,
                                                [batch, s, n]))
    return h.make_graph(nodes, f"bert_b{batch}", inputs, outputs, inits)


def odd_shapes():
    """Partial block tiles and chunks (100 x 200 over 264), a Gemm with
    transB and its C, a batched MatMul with a batched B."""
    nodes = [h.make_node("MatMul", ["a", "w1"], ["odd"]),
             h.make_node("Gemm", ["g", "w2", "c2"], ["gemm_y"], transB=1)]
    gelu(nodes, "gemm_y", "gemm")
    nodes.append(h.make_node("MatMul", ["p", "q"], ["batched"]))
    inits = [weight("w1", [264, 200], 0.06), weight("w2", [384, 512], 0.05),
             weight("c2", [384], 0.1),
             numpy_helper.from_array(np.array(2 ** 0.5, np.float32), "sqrt2"),
             numpy_helper.from_array(np.array(1.0, np.float32), "one"),
             numpy_helper.from_array(np.array(0.5, np.float32), "half")]
    inputs = [h.make_tensor_value_info("a", TensorProto.FLOAT, [100, 264]),
              h.make_tensor_value_info("g", TensorProto.FLOAT, [96, 512]),
              h.make_tensor_value_info("p", TensorProto.FLOAT, [3, 72, 64]),
              h.make_tensor_value_info("q", TensorProto.FLOAT, [3, 64, 40])]
    outputs = [h.make_tensor_value_info("odd", TensorProto.FLOAT, [100, 200]),
               h.make_tensor_value_info("gemm", TensorProto.FLOAT, [96, 384]),
               h.make_tensor_value_info("batched", TensorProto.FLOAT,
                                        [3, 72, 40])]
    return h.make_graph(nodes, "odd_shapes", inputs, outputs, inits)


def main():
    compiler, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for graph in (bert_matmuls(1), bert_matmuls(32), odd_shapes()):
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
        model.ir_version = 8
        path = os.path.join(out, graph.name + ".onnx")
        onnx.save(model, path)
        variants = [("library", []), ("mma", ["--mma-over-library"])]
        # The reduction split in a cluster (sm_90), by fuse's choice above;
        # here unsplit and at each split for batch 1, split in two for the
        # odd shapes (whose chunks 2 divides).
        if graph.name == "bert_b1":
            variants += [(f"mma_s{s}", ["--mma-over-library",
                                        f"--gpu-mma-split-k={s}"])
                         for s in (1, 2, 4, 8)]
        if graph.name == "odd_shapes":
            variants.append(("mma_s2", ["--mma-over-library",
                                        "--gpu-mma-split-k=2"]))
        for precision in ("fp16", "bf16"):
            for variant, extra in variants:
                subprocess.run(
                    [compiler, path, "-o",
                     os.path.join(out, f"{graph.name}.{precision}.{variant}"
                                  ".fbin"),
                     "--reference", f"--precision={precision}",
                     f"--io-precision={precision}"] + extra, check=True)


if __name__ == "__main__":
    main()
