#!/usr/bin/env python3
"""On the GPU machine: BERT-base exported from PyTorch (legacy exporter,
opset 17; eager and sdpa attention), and the same export put through
onnxruntime's transformer optimizer (opt_level 0: SkipLayerNormalization,
BiasGelu, and for eager attention com.microsoft Attention), each compiled
by fuse for cuda and timed with fuse-run --bench in one run; outputs
checked against onnxruntime (CPU) on the unoptimized export, each row's
relative L2 error printed. Sequence 128, right-padded masks (the
optimizer's Attention takes the mask as row lengths).

    ort_optimized.py --fuse-compile BIN --fuse-run BIN --workdir DIR
        [--batches 1,32] [--precisions fp16,fp32]
"""

import argparse
import logging
import os
import re
import subprocess
import sys

import numpy as np
import onnxruntime as ort
import torch

SEQUENCE = 128


def export(attn, batch, path):
    from transformers import BertConfig, BertModel
    torch.manual_seed(0)
    bert = BertModel(BertConfig(attn_implementation=attn)).eval()

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask):
            return self.bert(input_ids=input_ids,
                             attention_mask=attention_mask).last_hidden_state

    rng = np.random.default_rng(batch)
    ids = rng.integers(0, 30522, (batch, SEQUENCE)).astype(np.int64)
    mask = np.ones((batch, SEQUENCE), np.int64)
    for b in range(batch):
        mask[b, 100 - b % 32:] = 0
    with torch.no_grad():
        torch.onnx.export(Encoder().eval(),
                          (torch.from_numpy(ids), torch.from_numpy(mask)),
                          path, input_names=["input_ids", "attention_mask"],
                          output_names=["hidden"], opset_version=17,
                          dynamo=False)
    return {"input_ids": ids, "attention_mask": mask}


def optimize(path, out):
    from onnxruntime.transformers import optimizer
    logging.disable(logging.WARNING)
    model = optimizer.optimize_model(path, model_type="bert", num_heads=12,
                                     hidden_size=768, opt_level=0)
    model.save_model_to_file(out)
    ops = sorted({n.op_type for n in model.model.graph.node
                  if n.domain == "com.microsoft"})
    return ops


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fuse-compile", required=True)
    p.add_argument("--fuse-run", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--batches", default="1,32")
    p.add_argument("--precisions", default="fp16")
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rows = []
    for batch in map(int, args.batches.split(",")):
        for attn in ("eager", "sdpa"):
            base = os.path.join(args.workdir, f"bert_{attn}_b{batch}.onnx")
            opt = base.replace(".onnx", "_opt.onnx")
            feeds = export(attn, batch, base)
            ops = optimize(base, opt)
            inputs = base.replace(".onnx", ".inputs.npz")
            np.savez(inputs, **feeds)
            want = ort.InferenceSession(
                base, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
            for precision in args.precisions.split(","):
                for label, model in (("export", base), ("optimized", opt)):
                    fbin = model.replace(".onnx", f".{precision}.fbin")
                    out = fbin.replace(".fbin", ".out.npz")
                    subprocess.run([args.fuse_compile, model, "-o", fbin,
                                    f"--precision={precision}"], check=True,
                                   stderr=subprocess.DEVNULL)
                    subprocess.run([args.fuse_run, fbin, "--inputs", inputs,
                                    "--outputs", out], check=True,
                                   stdout=subprocess.DEVNULL)
                    have = np.load(out)["hidden"].astype(np.float64)
                    err = (np.linalg.norm(have - want) /
                           np.linalg.norm(want))
                    bench = subprocess.run(
                        [args.fuse_run, fbin, "--bench", "--iterations",
                         "200"], check=True, capture_output=True,
                        text=True).stdout
                    line = next(l for l in bench.splitlines()
                                if l.startswith("bench:"))
                    ms = float(re.search(r"median_ms=([0-9.]+)", line)[1])
                    launches = int(re.search(r"launches=(\d+)", line)[1])
                    rows.append((attn, batch, precision, label, launches, ms,
                                 err, ",".join(ops) if label == "optimized"
                                 else "-"))
                    print(*rows[-1], flush=True)
    print("\n| attention | batch | precision | model | launches | fuse ms "
          "| rel. L2 vs onnxruntime | com.microsoft ops |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.3f} "
              f"| {r[6]:.1e} | {r[7]} |")


if __name__ == "__main__":
    sys.exit(main())
