#!/usr/bin/env python3
"""Probe (GPU machine): how fast PyTorch's cuDNN and cuBLAS run the
convolution shapes fuse finds slow, fp32 with TF32 off, median of 50 with
CUDA events: each conv with cudnn.benchmark off (heuristics, what
torch.compile uses by default) and on (timed search), and each 1x1 conv as
the equivalent matmul (cuBLAS)."""
import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def time_us(fn, n=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) * 1000)
    return sorted(ts)[n // 2]


# (name, N, C, H, K, R, stride, groups)
SHAPES = [("r50 l3 conv1", 1, 1024, 14, 256, 1, 1, 1),
          ("r50 l4 conv2", 1, 512, 7, 512, 3, 1, 1),
          ("r50 l4 conv1", 1, 2048, 7, 512, 1, 1, 1),
          ("r50 l3 conv2", 1, 256, 14, 256, 3, 1, 1),
          ("r50 l2 conv2", 1, 128, 28, 128, 3, 1, 1),
          ("r50 l1 conv2", 1, 64, 56, 64, 3, 1, 1),
          ("r50 l3 conv1 b32", 32, 1024, 14, 256, 1, 1, 1),
          ("r50 l4 conv2 b32", 32, 512, 7, 512, 3, 1, 1),
          ("mbv2 dw 144@56 b32", 32, 144, 56, 144, 3, 1, 144),
          ("mbv2 dw 96@112 s2 b32", 32, 96, 112, 96, 3, 2, 96),
          ("mbv2 dw 32@112 b32", 32, 32, 112, 32, 3, 1, 32),
          ("mbv2 pw 16->96@112 b32", 32, 16, 112, 96, 1, 1, 1),
          ("mbv2 dw 144@56 b1", 1, 144, 56, 144, 3, 1, 144)]
for bench in (False, True):
    torch.backends.cudnn.benchmark = bench
    for name, n, c, h, k, r, s, g in SHAPES:
        x = torch.randn(n, c, h, h, device="cuda")
        w = torch.randn(k, c // g, r, r, device="cuda")
        b = torch.randn(k, device="cuda")
        t = time_us(lambda: F.conv2d(x, w, b, stride=s, padding=r // 2, groups=g))
        flops = 2 * n * k * (h // s) ** 2 * (c // g) * r * r
        line = "cudnn benchmark=%d %-24s %8.1f us %6.2f TFLOP/s" % (
            bench, name, t, flops / t / 1e6)
        if r == 1 and g == 1 and not bench:
            a = w.view(k, c)
            xm = x.view(n, c, h * h)
            tm = time_us(lambda: torch.matmul(a, xm))
            line += "   as matmul %8.1f us" % tm
        print(line, flush=True)
