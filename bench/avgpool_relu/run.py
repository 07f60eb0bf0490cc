#!/usr/bin/env python3
"""The seed experiment, on the GPU machine: AvgPool2D (kernel 8, stride 8) +
ReLU over H x W inputs, timed in one run for

  (a) a plain C++ CPU implementation (one core),
  (b) two kernels: fuse-compile --no-fuse,
  (c) one fused kernel: fuse-compile,
  (d) PyTorch eager and torch.compile on the same GPU,

next to a device-to-device copy measured in the same run. Every GPU variant
is timed with CUDA events around each run, after a warm-up, and the median
is reported. Outputs of (b) and (c) are checked against PyTorch's on the
same random input first.

    python3 run.py DIR        # DIR: what bench/avgpool_relu/prepare.sh made

Prints a markdown table last.
"""

import glob
import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

WARMUP, ITERS = 20, 200


def events_median_ms(fn, warmup=WARMUP, iters=ITERS):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times))


def copy_bandwidth_gbs():
    """Device-to-device copy of 1 GiB, counting bytes read plus written."""
    n = (1 << 30) // 4
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    ms = events_median_ms(lambda: dst.copy_(src), warmup=5, iters=50)
    return 2 * n * 4 / (ms * 1e-3) / 1e9


def avgpool_relu(x):
    return torch.relu(F.avg_pool2d(x, 8, 8))


def fuse_run(*args):
    proc = subprocess.run(list(args), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("fuse-run failed: %s\n%s%s" % (
            " ".join(args), proc.stdout, proc.stderr))
    return proc.stdout


def fuse_bench(fuse, artifact):
    out = fuse_run(fuse, artifact, "--bench", "--warmup", str(WARMUP),
                   "--iterations", str(ITERS))
    median = float(re.search(r"median_ms=([0-9.eE+-]+)", out).group(1))
    gbs = float(re.search(r"GB/s=([0-9.eE+-]+)", out).group(1))
    return median, gbs


def main():
    root = sys.argv[1]
    fuse = os.path.join(root, "bin", "fuse-run")
    cpu = os.path.join(root, "bin", "cpu_avgpool_relu")
    sizes = []
    for path in glob.glob(os.path.join(root, "fused_*.fbin")):
        h, w = map(int, re.search(r"_(\d+)x(\d+)\.fbin", path).groups())
        sizes.append((h, w))
    sizes.sort(key=lambda s: s[0] * s[1])

    torch.backends.cudnn.benchmark = False
    compiled = torch.compile(avgpool_relu)
    copy_gbs = copy_bandwidth_gbs()
    print("device: %s, copy bandwidth %.0f GB/s (read + write)" % (
        torch.cuda.get_device_name(), copy_gbs), flush=True)

    rows = []
    for h, w in sizes:
        tag = "%dx%d" % (h, w)
        fused = os.path.join(root, "fused_%s.fbin" % tag)
        unfused = os.path.join(root, "unfused_%s.fbin" % tag)

        # Correctness on a fresh random input, against PyTorch.
        x = torch.rand(1, 1, h, w, device="cuda") * 2 - 1
        want = avgpool_relu(x).cpu().numpy()
        x_path = os.path.join(root, "x_%s.npy" % tag)
        np.save(x_path, x.cpu().numpy())
        errors = []
        for artifact in (fused, unfused):
            y_path = artifact + ".y.npy"
            fuse_run(fuse, artifact, "--inputs", x_path, "--outputs", y_path)
            errors.append(float(np.abs(np.load(y_path) - want).max()))
            os.remove(y_path)
        os.remove(x_path)

        # Timing; PyTorch on new random data.
        x = torch.rand(1, 1, h, w, device="cuda") * 2 - 1
        eager_ms = events_median_ms(lambda: avgpool_relu(x))
        compiled(x)  # compile for this shape outside the timing
        compiled_ms = events_median_ms(lambda: compiled(x))
        fused_ms, fused_gbs = fuse_bench(fuse, fused)
        unfused_ms, _ = fuse_bench(fuse, unfused)
        runs = "3" if h * w >= 8192 * 8192 else "9"
        cpu_ms = float(re.search(r"median_ms=([0-9.]+)", subprocess.run(
            [cpu, str(h), str(w), runs], capture_output=True, text=True,
            check=True).stdout).group(1))
        rows.append((tag, cpu_ms, unfused_ms, fused_ms, eager_ms, compiled_ms,
                     fused_gbs, max(errors)))
        print("done %s" % tag, flush=True)

    print()
    print("| input | CPU (1 core) ms | two kernels us | fused us | "
          "PyTorch eager us | torch.compile us | fused vs two kernels | "
          "fused vs eager | fused GB/s | % of copy | max abs err |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for tag, cpu_ms, un, fu, ea, co, gbs, err in rows:
        print("| %s | %.3f | %.1f | %.1f | %.1f | %.1f | %.2fx | %.2fx | "
              "%.0f | %.1f%% | %.1e |" % (
                  tag, cpu_ms, un * 1e3, fu * 1e3, ea * 1e3, co * 1e3,
                  un / fu, ea / fu, gbs, 100 * gbs / copy_gbs, err))


if __name__ == "__main__":
    main()
