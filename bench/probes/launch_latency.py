"""Probe (GPU machine): why one artifact's time in bench/models/benchmark.py
depends on what else the process did (BERT-base fp16 batch 1: 0.380 ms
with --no-compile, 0.420 ms after torch.compile in the same process).

  python3 bench/probes/launch_latency.py ARTIFACT.fbin

  python3 bench/probes/launch_latency.py ARTIFACT.fbin import triton default

Times plan 'main' three ways in a fresh process, then after each step
given ("libtriton": Triton's shared library loaded, nothing else;
"import": torch._inductor imported; "triton": a Triton kernel of
its own launched; "default", "reduce-overhead": torch.compile of a small
model in that mode; default: reduce-overhead):
  events   fuse_model_benchmark: start event, one graph launch, stop event
           (what benchmark.py reports; includes the host's submission
           when the GPU is idle)
  queued   the same, behind a 200 us GPU sleep, so the launch is queued
           before the GPU reaches it: the GPU's time alone
  pipelined  100 launches back to back between two events, per launch
"""
import ctypes
import importlib
import importlib.util
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import benchmark  # noqa: E402


def measure(model, stream):
    lib, handle = model.lib, model.handle
    events = [model.time_ms(10, 50) for _ in range(5)]
    run = lambda: model.check(lib.fuse_model_run_async(
        handle, 0, ctypes.c_void_p(stream.cuda_stream)))
    queued = []
    with torch.cuda.stream(stream):
        for _ in range(10):
            run()
        stream.synchronize()
        for _ in range(50):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(400000)
            start.record(stream)
            run()
            end.record(stream)
            end.synchronize()
            queued.append(start.elapsed_time(end))
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(400000)
        start.record(stream)
        for _ in range(100):
            run()
        end.record(stream)
        end.synchronize()
        pipelined = start.elapsed_time(end) / 100
    return ("events %s  queued %.3f  pipelined %.3f" %
            (" ".join("%.3f" % e for e in events), np.median(queued),
             pipelined))


class LaunchInfo(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("kernel", ctypes.c_char_p),
                ("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("shared_bytes", ctypes.c_uint32),
                ("num_args", ctypes.c_uint32),
                ("args", ctypes.POINTER(ctypes.c_uint32)),
                ("group", ctypes.c_uint32),
                ("workspace_offset", ctypes.c_uint64),
                ("workspace_bytes", ctypes.c_uint64), ("math", ctypes.c_int)]


def profile(model, iterations=50):
    """Median us of each launch, by fuse_model_profile."""
    lib = model.lib
    lib.fuse_model_plan_num_launches.restype = ctypes.c_size_t
    lib.fuse_model_plan_num_launches.argtypes = [ctypes.c_void_p,
                                                 ctypes.c_size_t]
    n = lib.fuse_model_plan_num_launches(model.handle, 0)
    times = (ctypes.c_double * (n * iterations))()
    overhead = ctypes.c_double()
    lib.fuse_model_profile.argtypes = [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
        ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)]
    model.check(lib.fuse_model_profile(model.handle, 0, 10, iterations, times,
                                       ctypes.byref(overhead)))
    medians = np.median(np.array(times).reshape(iterations, n), axis=0) * 1e3
    names = []
    lib.fuse_model_plan_launch.argtypes = [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.POINTER(LaunchInfo)]
    for i in range(n):
        info = LaunchInfo()
        model.check(lib.fuse_model_plan_launch(model.handle, 0, i,
                                               ctypes.byref(info)))
        names.append(info.kernel.decode())
    return names, medians


def by_kind(names, medians):
    totals = {}
    for name, us in zip(names, medians):
        kind = name.split()[0] if name.startswith("cu") else "kernel"
        totals[kind] = totals.get(kind, 0) + us
    return "  ".join("%s %.1f us" % kv for kv in sorted(totals.items()))


def cupti_subscribed():
    """Whether some library has subscribed to CUPTI's callbacks (CUPTI
    takes one subscriber a process)."""
    try:
        cupti = ctypes.CDLL("libcupti.so.13")
    except OSError:
        return "cupti ?"
    handle = ctypes.c_void_p()
    status = cupti.cuptiSubscribe(ctypes.byref(handle), None, None)
    if status == 0:
        cupti.cuptiUnsubscribe(handle)
        return "cupti free"
    return "cupti busy (%d)" % status


def loaded():
    """The profiling and compiler libraries mapped into this process."""
    with open("/proc/self/maps") as maps:
        names = {line.split()[-1].rsplit("/", 1)[-1] for line in maps
                 if ".so" in line}
    return " ".join(sorted(n for n in names
                           if any(k in n for k in ("cupti", "triton", "nvrtc",
                                                   "kineto")))) + \
        "; " + cupti_subscribed()


def triton_copy(x):
    """A Triton kernel of its own, compiled and launched without torch."""
    import triton
    import triton.language as tl

    @triton.jit
    def copy(src, dst, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(dst + offsets, tl.load(src + offsets, mask=offsets < n),
                 mask=offsets < n)

    y = torch.empty_like(x)
    copy[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)


def main():
    path = sys.argv[1]
    model = benchmark.FuseModel(path)
    model.lib.fuse_model_run_async.argtypes = [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    rng = np.random.default_rng(0)
    values = {}
    for name, dtype, shape in model.inputs:
        if np.issubdtype(dtype, np.integer):
            values[name] = np.ones(shape, dtype)
        else:
            values[name] = rng.uniform(-1, 1, shape).astype(dtype)
    model.set_inputs(values)
    stream = torch.cuda.Stream()
    print(model.libraries, flush=True)
    print("fresh process:", loaded())
    print("   ", measure(model, stream), flush=True)
    names, before = profile(model)
    print("  profile:", by_kind(names, before), flush=True)
    small = torch.nn.Sequential(*[torch.nn.Linear(256, 256)
                                  for _ in range(8)]).cuda().half().eval()
    x = torch.randn(4, 256, device="cuda", dtype=torch.half)
    for mode in sys.argv[2:] or ["reduce-overhead"]:
        if mode == "libtriton":
            spec = importlib.util.find_spec("triton")
            ctypes.CDLL(os.path.join(os.path.dirname(spec.origin), "_C",
                                     "libtriton.so"))
        elif mode == "import":
            importlib.import_module("torch._inductor.compile_fx")
        elif mode == "triton":
            triton_copy(x)
        else:
            torch._dynamo.reset()
            compiled = torch.compile(small, mode=None if mode == "default"
                                     else mode)
            with torch.no_grad():
                for _ in range(3):
                    compiled(x)
        torch.cuda.synchronize()
        print("after %s: %s" % (mode, loaded()))
        print("   ", measure(model, stream), flush=True)
    names, after = profile(model)
    print("  profile:", by_kind(names, after), flush=True)
    for i in np.argsort(before - after)[:4]:
        print("  %-60s %7.2f -> %7.2f us" % (names[i][:60], before[i],
                                              after[i]))
    model.close()


if __name__ == "__main__":
    main()
