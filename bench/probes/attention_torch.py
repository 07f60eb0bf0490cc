#!/usr/bin/env python3
"""PyTorch's attention at attention_fp32.cu's shapes, fp32, TF32 off: the
peers of the hand-written kernel, in the same layout (Q, K, V and the
output as [B, S, heads * D], the head split and merge included).

    python3 bench/probes/attention_torch.py

sdpa: F.scaled_dot_product_attention (PyTorch picks its fused fp32
kernel, memory-efficient attention); math: the same with the math backend
(matmul, softmax, matmul: what fuse runs today, with its Transposes);
compiled: torch.compile(mode="reduce-overhead") of the sdpa version.
Medians of 50 CUDA-event timings after a warm-up, in us.
"""

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")

D = 64
SHAPES = [("bert b1", 1, 12, 12, 128, 128, False, True),
          ("bert b32", 32, 12, 12, 128, 128, False, True),
          ("llama b1", 1, 16, 4, 128, 128, True, False),
          ("llama b32", 32, 16, 4, 128, 128, True, False),
          ("long b1 s1024", 1, 16, 16, 1024, 1024, False, False)]


def median_us(fn):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(50):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000)
    return sorted(times)[len(times) // 2]


def main():
    print("%-14s %10s %10s %10s" % ("shape", "sdpa us", "math us",
                                    "compiled us"))
    for name, b, hq, hkv, sq, skv, causal, padded in SHAPES:
        q = torch.rand(b, sq, hq * D, device="cuda") * 2 - 1
        k = torch.rand(b, skv, hkv * D, device="cuda") * 2 - 1
        v = torch.rand(b, skv, hkv * D, device="cuda") * 2 - 1
        mask = None
        if padded:
            mask = torch.zeros(b, 1, 1, skv, device="cuda")
            for i in range(b):
                mask[i, :, :, 100 - i % 32:] = float("-inf")

        def attention(q, k, v):
            qh = q.view(b, sq, hq, D).transpose(1, 2)
            kh = k.view(b, skv, hkv, D).transpose(1, 2)
            vh = v.view(b, skv, hkv, D).transpose(1, 2)
            o = F.scaled_dot_product_attention(
                qh, kh, vh, attn_mask=mask, is_causal=causal,
                enable_gqa=hq != hkv)
            return o.transpose(1, 2).reshape(b, sq, hq * D)

        with torch.no_grad():
            sdpa = median_us(lambda: attention(q, k, v))
            with sdpa_kernel(SDPBackend.MATH):
                math = median_us(lambda: attention(q, k, v))
            compiled_fn = torch.compile(attention, mode="reduce-overhead")
            for _ in range(3):
                compiled_fn(q, k, v)
            compiled = median_us(lambda: compiled_fn(q, k, v))
        print("%-14s %10.1f %10.1f %10.1f" % (name, sdpa, math, compiled),
              flush=True)


if __name__ == "__main__":
    main()
