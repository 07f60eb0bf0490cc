#!/usr/bin/env python3
"""CPU benchmark: fuse's cpu target against onnxruntime's CPU provider on
one thread, on the model-zoo `light_*` models of the onnx package (with
seeded random weights, test/Models/Inputs/light_model.py), in one run.

    cpu_benchmark.py --fuse-compile build/bin/fuse-compile \
        --fuse-run build/bin/fuse-run [--models resnet50,squeezenet]
        [--cpu default,x86-64,native] [--iterations 10] [--out DIR]

For each model and each --cpu level: fuse-run --bench (median of
--iterations runs after one warm-up) and onnxruntime with
intra_op_num_threads = inter_op_num_threads = 1 (median of as many runs,
same random input). Prints one table, slowest ratio last. Not a test: run
it by hand on an idle machine (timings of a loaded machine mean little).
"""

import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
LIGHT_MODEL = os.path.join(HERE, "..", "..", "test", "Models", "Inputs",
                           "light_model.py")


def onnxruntime_ms(path, iterations):
    import onnxruntime as ort
    model = onnx.load(path)
    # light_model.py leaves the model's unused `__SHAPE` inputs declared;
    # onnxruntime wants a value for every declared input.
    used = {name for node in model.graph.node for name in node.input}
    kept = [v for v in model.graph.input if v.name in used]
    del model.graph.input[:]
    model.graph.input.extend(kept)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    feeds = {}
    rng = np.random.default_rng(0)
    for value in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in value.shape]
        feeds[value.name] = rng.random(shape, dtype=np.float32)
    session.run(None, feeds)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times))


def fuse_ms(args, path, level, out):
    artifact = os.path.join(out, "%s.%s.fbin" % (
        os.path.splitext(os.path.basename(path))[0], level))
    start = time.perf_counter()
    # "default": fuse-compile's own --cpu (x86-64 and x86-64-v3 kernels,
    # the host's best loaded).
    cpu = [] if level == "default" else ["--cpu=" + level]
    subprocess.run([args.fuse_compile, path, "--target=cpu", "--no-reference",
                    "-o", artifact] + cpu, check=True,
                   stderr=subprocess.DEVNULL)
    compile_s = time.perf_counter() - start
    result = subprocess.run([args.fuse_run, artifact, "--bench", "--warmup",
                             "1", "--iterations", str(args.iterations)],
                            check=True, capture_output=True, text=True)
    median = re.search(r"median_ms=([0-9.]+)", result.stdout)
    info = subprocess.run([args.fuse_run, artifact, "--info"],
                          capture_output=True, text=True).stdout
    arch = re.search(r"kernels for: (\S+)", info)
    arch = arch.group(1) if arch else level
    return float(median.group(1)), compile_s, (
        "default: " + arch if level == "default" else arch)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--fuse-compile", required=True)
    p.add_argument("--fuse-run", required=True)
    p.add_argument("--models", default="resnet50,squeezenet")
    p.add_argument("--cpu", default="default,x86-64,native",
                   help="fuse-compile --cpu levels to compare, "
                        "comma-separated; default: no --cpu")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--out", default="/tmp/fuse-cpu-bench")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows = []
    for name in args.models.split(","):
        path = os.path.join(args.out, "light_%s.onnx" % name)
        subprocess.run([sys.executable, LIGHT_MODEL, name, path], check=True)
        ort_ms = onnxruntime_ms(path, args.iterations)
        for level in args.cpu.split(","):
            ms, compile_s, arch = fuse_ms(args, path, level, args.out)
            rows.append((name, arch, ms, ort_ms, compile_s))
            print("%s --cpu=%s: fuse %.1f ms, onnxruntime (1 thread) %.1f ms"
                  % (name, level, ms, ort_ms), flush=True)

    print()
    print("| model | fuse --cpu | fuse ms | onnxruntime 1 thread ms | "
          "fuse / onnxruntime | compile s |")
    print("|---|---|---|---|---|---|")
    for name, arch, ms, ort_ms, compile_s in rows:
        print("| light_%s | %s | %.1f | %.1f | %.2fx | %.1f |"
              % (name, arch, ms, ort_ms, ms / ort_ms, compile_s))


if __name__ == "__main__":
    main()
