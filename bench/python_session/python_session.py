"""On the GPU machine (bench/python_session/run.sh): what fuse's Python
session costs per call over fuse-run, on ResNet-50 at batch 1, and whether
it gives fuse-run's outputs.

1. ResNet-50 (torchvision, random weights, eval) exported at batch 1
   (opset 17, the legacy exporter) and compiled for cuda (--no-reference).
2. fuse-run --bench: the plan's CUDA Graph, inputs in place, CUDA events
   around each replay (median).
3. In one Python process: fuse.InferenceSession.run_dlpack on torch CUDA
   tensors, on torch's current stream (no host copy, no sync in the call):
   - outputs: against fuse-run --outputs on the same input (bitwise), and
     against session.run (numpy) and PyTorch eager (relative L2);
   - the plan alone in-process (session.profile's plan times, which are
     fuse_model_benchmark's, fuse-run --bench's measure);
   - pipelined: N calls back to back between two CUDA events: per call;
   - host time of one call (perf_counter, the call returns before the GPU
     runs it) and the latency of a call plus torch.cuda.synchronize;
   - two sessions (new_session, shared weights) on two streams at once,
     outputs checked.
Prints a short table last.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
COMPILER = os.path.join(ROOT, ".device", "compiler", "bin", "fuse-compile")
FUSE_RUN = os.path.join(ROOT, ".device", "runtime", "fuse-run")


def rel_l2(have, want):
    have = np.asarray(have, np.float64)
    want = np.asarray(want, np.float64)
    return float(np.linalg.norm(have - want) / max(np.linalg.norm(want),
                                                   1e-30))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--iterations", type=int, default=200)
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    import fuse
    print("fuse", fuse.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(0))

    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).eval().cuda()
    x = torch.randn(1, 3, 224, 224, device="cuda")
    onnx_path = os.path.join(args.work, "resnet50_b1.onnx")
    fbin = os.path.join(args.work, "resnet50_b1.fbin")
    t0 = time.time()
    torch.onnx.export(model.cpu(), (x.cpu(),), onnx_path,
                      input_names=["input"], output_names=["logits"],
                      opset_version=17, dynamo=False)
    model.cuda()
    print("exported in %.1f s" % (time.time() - t0))
    t0 = time.time()
    subprocess.run([COMPILER, onnx_path, "-o", fbin, "--no-reference"],
                   check=True)
    print("compiled in %.1f s" % (time.time() - t0))

    # fuse-run: the plan's time and its outputs for x.
    np.savez(os.path.join(args.work, "x.npz"), input=x.cpu().numpy())
    bench = subprocess.run(
        [FUSE_RUN, fbin, "--bench", "--warmup", "20", "--iterations",
         str(args.iterations)], capture_output=True, text=True, check=True)
    print(bench.stdout.strip())
    fuse_run_ms = float(re.search(r"median_ms=([0-9.eE+-]+)",
                                  bench.stdout).group(1))
    subprocess.run([FUSE_RUN, fbin, "--inputs",
                    os.path.join(args.work, "x.npz"), "--outputs",
                    os.path.join(args.work, "y.npz")], check=True)
    y_fuse_run = np.load(os.path.join(args.work, "y.npz"))["logits"]

    session = fuse.InferenceSession(fbin)
    feeds = {"input": x}
    out = torch.empty(1, 1000, device="cuda")
    print("input: dtype=%r shape=%r device=%r data_ptr=%r contiguous=%r" %
          (x.dtype, x.shape, x.device, x.data_ptr(), x.is_contiguous()))
    y, = session.run_dlpack(feeds, [out])
    torch.cuda.synchronize()
    y_dlpack = y.cpu().numpy()
    y_numpy, = session.run(None, {"input": x.cpu().numpy()})
    with torch.no_grad():
        y_torch = model(x).cpu().numpy()
    allocated, = session.run_dlpack(feeds)
    torch.cuda.synchronize()
    checks = {
        "dlpack == fuse-run (max abs diff)":
            float(np.abs(y_dlpack - y_fuse_run).max()),
        "dlpack == run(numpy) (max abs diff)":
            float(np.abs(y_dlpack - y_numpy).max()),
        "allocated outputs == given (max abs diff)":
            float(np.abs(allocated.cpu().numpy() - y_dlpack).max()),
        "dlpack vs PyTorch eager (rel L2)": rel_l2(y_dlpack, y_torch),
    }

    # The plan alone, in this process.
    prof = session._profile(None, "main", 20, args.iterations, False)
    plan_ms = statistics.median(prof["plan_times_ms"])

    # Pipelined: back to back on torch's stream, one event pair.
    n = args.iterations
    for _ in range(20):
        session.run_dlpack(feeds, [out])
    torch.cuda.synchronize()
    per_call = []
    for _ in range(5):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            session.run_dlpack(feeds, [out])
        end.record()
        end.synchronize()
        per_call.append(start.elapsed_time(end) / n)
    pipelined_ms = statistics.median(per_call)

    # Host time of a call, and the latency of a call and a sync.
    host, latency = [], []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        session.run_dlpack(feeds, [out])
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        host.append((t1 - t0) * 1e6)
        latency.append((t2 - t0) * 1e3)
    host_us = statistics.median(host)
    latency_ms = statistics.median(latency)
    # The same with a caller-allocated output left to fuse (torch.empty).
    host_alloc = []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        session.run_dlpack(feeds)
        host_alloc.append((time.perf_counter() - t0) * 1e6)
    host_alloc_us = statistics.median(host_alloc)

    # Where the host time goes: the binding call alone (no Python wrapper,
    # stream handle given), and the same call on a one-kernel model (the
    # fixed cost; the rest grows with the graph's 353 nodes: cuGraphLaunch).
    handle = torch.cuda.current_stream().cuda_stream or 1

    def host_time(sess, feed, outs):
        samples = []
        for _ in range(n):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            sess._run_bound(feed, outs, handle, "main")
            samples.append((time.perf_counter() - t0) * 1e6)
        return statistics.median(samples)

    bound_us = host_time(session, feeds, [out])
    tiny_onnx = os.path.join(args.work, "relu.onnx")
    tiny_fbin = os.path.join(args.work, "relu.fbin")
    torch.onnx.export(torch.nn.ReLU(), (torch.randn(1, 1000),), tiny_onnx,
                      input_names=["x"], output_names=["y"],
                      opset_version=17, dynamo=False)
    subprocess.run([COMPILER, tiny_onnx, "-o", tiny_fbin, "--no-reference"],
                   check=True)
    tiny = fuse.InferenceSession(tiny_fbin)
    tx = torch.randn(1, 1000, device="cuda")
    ty = torch.empty(1, 1000, device="cuda")
    tiny_us = host_time(tiny, {"x": tx}, [ty])
    torch.cuda.synchronize()
    checks["one-kernel model: relu (max abs diff)"] = float(
        (ty - torch.relu(tx)).abs().max())
    tiny_bench = subprocess.run(
        [FUSE_RUN, tiny_fbin, "--bench", "--warmup", "20", "--iterations",
         str(n)], capture_output=True, text=True, check=True)
    tiny_run_ms = float(re.search(r"median_ms=([0-9.eE+-]+)",
                                  tiny_bench.stdout).group(1))
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(n):
        tiny.run_dlpack({"x": tx}, [ty])
    end.record()
    end.synchronize()
    tiny_pipelined_ms = start.elapsed_time(end) / n

    # Two sessions sharing the weights, on two streams at once.
    second = session.new_session()
    xs = [torch.randn(1, 3, 224, 224, device="cuda") for _ in range(2)]
    want = [session.run(None, {"input": v.cpu().numpy()})[0] for v in xs]
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    outs = [torch.empty(1, 1000, device="cuda") for _ in range(2)]
    for _ in range(10):
        for s, sess, v, o in zip(streams, (session, second), xs, outs):
            with torch.cuda.stream(s):
                sess.run_dlpack({"input": v}, [o])
    torch.cuda.synchronize()
    checks["two sessions on two streams (max abs diff)"] = max(
        float(np.abs(o.cpu().numpy() - w).max()) for o, w in zip(outs, want))
    free, total = torch.cuda.mem_get_info()

    print()
    for k, v in checks.items():
        print("%-48s %.3g" % (k, v))
    print()
    print("ResNet-50 batch 1, H100, fp32 (ms; medians)")
    rows = [
        ("fuse-run --bench (graph replay, events)", fuse_run_ms),
        ("in-process plan (fuse_model_benchmark)", plan_ms),
        ("run_dlpack pipelined, per call", pipelined_ms),
        ("run_dlpack + synchronize, latency", latency_ms),
    ]
    for name, ms in rows:
        print("%-44s %8.4f" % (name, ms))
    print("%-44s %8.2f us" % ("run_dlpack host time (outputs given)",
                              host_us))
    print("%-44s %8.2f us" % ("run_dlpack host time (outputs allocated)",
                              host_alloc_us))
    print("%-44s %8.2f us" % ("_run_bound host time (no wrapper)",
                              bound_us))
    print("%-44s %8.2f us" % ("one-kernel model: _run_bound host time",
                              tiny_us))
    print("%-44s %8.4f" % ("one-kernel model: fuse-run --bench", tiny_run_ms))
    print("%-44s %8.4f" % ("one-kernel model: run_dlpack pipelined",
                           tiny_pipelined_ms))
    print("%-44s %8.2f us" % ("pipelined - fuse-run",
                              (pipelined_ms - fuse_run_ms) * 1e3))
    print("%-44s %8.2f us" % ("pipelined - in-process plan",
                              (pipelined_ms - plan_ms) * 1e3))
    result = {"checks": checks, "fuse_run_ms": fuse_run_ms,
              "plan_ms": plan_ms, "pipelined_ms": pipelined_ms,
              "latency_ms": latency_ms, "host_us": host_us,
              "host_alloc_us": host_alloc_us, "bound_us": bound_us,
              "tiny_host_us": tiny_us, "tiny_fuse_run_ms": tiny_run_ms,
              "tiny_pipelined_ms": tiny_pipelined_ms}
    out_dir = os.environ.get("OUT")
    if out_dir:
        with open(os.path.join(out_dir, "python_session.json"), "w") as f:
            json.dump(result, f, indent=1)
    ok = checks["dlpack == fuse-run (max abs diff)"] == 0 and \
        checks["two sessions on two streams (max abs diff)"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
