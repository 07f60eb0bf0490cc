#!/usr/bin/env python3
"""Probe (GPU machine): what the memory layout is worth to ResNet-50's
convolutions in fp16, the measurement behind an NHWC layout for whole
CNNs (issue "Half precision on tensor cores"). For batch 32 and 1, every
convolution of torchvision's ResNet-50 (shapes captured by forward hooks)
timed through cuDNN in NCHW and in NHWC (channels_last),
cudnn.benchmark on, fp16, median of 30 CUDA-event timings each; then the
whole model, eager in both layouts and torch.compile(mode=
"reduce-overhead") in channels_last.

    python3 bench/probes/resnet_layout_fp16.py
"""
import torch
import torch.nn.functional as F
import torchvision

torch.backends.cudnn.benchmark = True


def time_ms(fn, n=30):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return sorted(ts)[n // 2]


def conv_shapes(model, x):
    shapes = []

    def hook(module, inputs, output):
        shapes.append((tuple(inputs[0].shape), module.weight, module.stride,
                       module.padding, tuple(output.shape)))

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, torch.nn.Conv2d)]
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return shapes


def main():
    model = torchvision.models.resnet50().cuda().half().eval()
    for batch in (32, 1):
        x = torch.randn(batch, 3, 224, 224, device="cuda").half()
        total = {"nchw": 0.0, "nhwc": 0.0}
        flops = 0
        for shape, weight, stride, padding, out in conv_shapes(model, x):
            flops += 2 * out[0] * out[1] * out[2] * out[3] * (
                weight.shape[1] * weight.shape[2] * weight.shape[3])
            for layout in total:
                fmt = (torch.channels_last if layout == "nhwc"
                       else torch.contiguous_format)
                inp = torch.randn(shape, device="cuda").half().to(
                    memory_format=fmt)
                w = weight.detach().to(memory_format=fmt)
                with torch.no_grad():
                    total[layout] += time_ms(
                        lambda: F.conv2d(inp, w, None, stride, padding))
        print("b%d convolutions, sum of %s: NCHW %.3f ms (%.0f TFLOP/s), "
              "NHWC %.3f ms (%.0f TFLOP/s)" %
              (batch, "one at a time", total["nchw"],
               flops / total["nchw"] / 1e9, total["nhwc"],
               flops / total["nhwc"] / 1e9))
        with torch.no_grad():
            eager = time_ms(lambda: model(x))
            last = model.to(memory_format=torch.channels_last)
            xl = x.to(memory_format=torch.channels_last)
            eager_last = time_ms(lambda: last(xl))
            compiled = torch.compile(last, mode="reduce-overhead")
            for _ in range(3):
                compiled(xl)
            compiled_last = time_ms(lambda: compiled(xl))
            model = model.to(memory_format=torch.contiguous_format)
        print("b%d whole model: eager NCHW %.3f ms, eager NHWC %.3f ms, "
              "torch.compile NHWC %.3f ms" %
              (batch, eager, eager_last, compiled_last))


if __name__ == "__main__":
    main()
