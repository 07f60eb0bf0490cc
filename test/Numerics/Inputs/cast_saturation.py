#!/usr/bin/env python3
"""Float-to-integer Cast of values beyond the integer type's range.

    cast_saturation.py --fuse-compile BIN --fuse-run BIN --workdir DIR
                       [--target cpu|cuda] [--no-fuse] [--folded]

ONNX leaves these casts undefined; fuse saturates them (docs/robustness.md):
values beyond the range give the type's lowest or highest value, NaN gives
0, and everything else truncates toward zero. One tensor must not hold two
answers, so each case has 97 elements (a vector loop's body and its scalar
tail) from float32, float16 and float64 to every integer type, compared
with exact integers; --folded makes the values a weight, so that the
compiler's constant folding computes the casts. Prints one line per case
that differs and `RESULT: PASS` or `RESULT: FAIL`.
"""

import argparse
import math
import os
import subprocess
import sys

import numpy as np
import onnx
import onnx.numpy_helper
from onnx import TensorProto as T, helper

VALUES = [70000.0, -70000.0, float("nan"), float("inf"), float("-inf"), 3e9,
          -3e9, 1e20, -1e20, 255.9, 256.0, -0.9, -1.0, 127.5, -128.7,
          32767.9, -32768.5, 4294967295.0, 2147483648.0, -2147483649.0,
          0.0, -0.0, 1.5, -1.5]
SOURCES = [(T.FLOAT, np.float32), (T.FLOAT16, np.float16),
           (T.DOUBLE, np.float64)]
TARGETS = [(T.INT8, np.int8), (T.UINT8, np.uint8), (T.INT16, np.int16),
           (T.UINT16, np.uint16), (T.INT32, np.int32), (T.UINT32, np.uint32),
           (T.INT64, np.int64), (T.UINT64, np.uint64)]
COUNT = 97


def expected(x, info):
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return info.max if x > 0 else info.min
    return max(info.min, min(info.max, math.trunc(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fuse-compile", required=True)
    parser.add_argument("--fuse-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--no-fuse", action="store_true")
    parser.add_argument("--folded", action="store_true",
                        help="the values are a weight: the casts fold at "
                             "compile time")
    args = parser.parse_args()
    failed = 0
    for source, source_np in SOURCES:
        with np.errstate(over="ignore"):
            x = np.resize(np.array(VALUES, np.float64).astype(source_np),
                          COUNT)
        # Many outputs in one model: one compile per source type. Folded:
        # x is a weight, each Cast of it is evaluated at compile time, and
        # a zero input of the integer type is added to it at run time.
        nodes, inputs, outputs, feeds = [], [], [], {}
        for target, target_np in TARGETS:
            name = "y%d" % target
            cast = "c%d" % target if args.folded else name
            nodes.append(helper.make_node("Cast", ["x"], [cast], to=target))
            if args.folded:
                zero = "z%d" % target
                nodes.append(helper.make_node("Add", [cast, zero], [name]))
                inputs.append(helper.make_tensor_value_info(zero, target,
                                                            [COUNT]))
                feeds[zero] = np.zeros(COUNT, target_np)
            outputs.append(helper.make_tensor_value_info(name, target,
                                                         [COUNT]))
        weights = []
        if args.folded:
            weights.append(onnx.numpy_helper.from_array(x, "x"))
        else:
            inputs.append(helper.make_tensor_value_info("x", source, [COUNT]))
            feeds["x"] = x
        graph = helper.make_graph(nodes, "cast", inputs, outputs, weights)
        model = helper.make_model(graph,
                                  opset_imports=[helper.make_opsetid("", 17)])
        stem = os.path.join(args.workdir, np.dtype(source_np).name)
        onnx.save(model, stem + ".onnx")
        np.savez(stem + "_in.npz", **feeds)
        compile_args = [args.fuse_compile, stem + ".onnx", "-o",
                        stem + ".fbin", "--target=" + args.target]
        if args.no_fuse:
            compile_args.append("--no-fuse")
        for command in (compile_args,
                        [args.fuse_run, stem + ".fbin", "--inputs",
                         stem + "_in.npz", "--outputs", stem + "_out.npz"]):
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode:
                sys.stdout.write(done.stdout + done.stderr)
                print("RESULT: FAIL")
                return 1
        got = np.load(stem + "_out.npz")
        for target, target_np in TARGETS:
            info = np.iinfo(target_np)
            y = got["y%d" % target]
            bad = [i for i in range(COUNT)
                   if int(y[i]) != expected(float(x[i]), info)]
            if bad:
                failed += 1
                i = bad[0]
                print("%s to %s: %d of %d differ, e.g. element %d: %r gave "
                      "%d, not %d" % (np.dtype(source_np).name,
                                      np.dtype(target_np).name, len(bad),
                                      COUNT, i, float(x[i]), int(y[i]),
                                      expected(float(x[i]), info)))
    print("RESULT: " + ("FAIL" if failed else "PASS"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
