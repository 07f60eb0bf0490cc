#!/usr/bin/env python3
"""Whole models on the GPU machine: export, compile, run, compare.

    python3 bench/models/run_models.py [--models resnet50,mobilenet_v2,bert]
                                       [--out DIR]

For each model: export it from PyTorch with torch.onnx.export (opset 17,
dynamo=False, random weights from a fixed seed, batch 1; BERT-base with
sequence length 128), compile it with fuse-compile for cuda (the static
build in .device/compiler, see build_static_compiler.sh), run it with
fuse-run on seeded random inputs, and compare every output with
onnxruntime (CPU, fp32) on the same inputs: relative L2 error
||fuse - ort|| / ||ort||, which must be under 1e-4. fuse's kernels compute
in fp32 (no TF32: they use no tensor cores). Also reports the kernel
counts before and after fusion (from --fusion-report), the compile time,
and the median latency of fuse-run --bench next to PyTorch eager on the
same GPU (TF32 off).

Writes each model's graph without its weights (DIR/NAME.graph.onnx) so a
failure can be reproduced elsewhere, and prints a markdown table last.
Exit status 1 when any model fails.
"""

import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
COMPILER = os.path.join(ROOT, ".device", "compiler", "bin", "fuse-compile")
RUNNER = os.path.join(ROOT, ".device", "gpu_check", "bin", "fuse-run")
TOLERANCE = 1e-4


def export(name, path):
    """Exports `name`; returns its example inputs (numpy, by input name)."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    if name in ("resnet50", "mobilenet_v2"):
        import torchvision
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = rng.uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
        torch.onnx.export(model, (torch.from_numpy(x),), path,
                          input_names=["input"], output_names=["logits"],
                          opset_version=17, dynamo=False)
        return model, {"input": x}
    if name == "bert":
        from transformers import BertConfig, BertModel
        config = BertConfig(attn_implementation="eager")
        bert = BertModel(config).eval()

        class Encoder(torch.nn.Module):
            """Positional inputs, tuple outputs: what the exporter wants."""

            def __init__(self, bert):
                super().__init__()
                self.bert = bert

            def forward(self, input_ids, attention_mask):
                out = self.bert(input_ids=input_ids,
                                attention_mask=attention_mask)
                return out.last_hidden_state, out.pooler_output

        model = Encoder(bert).eval()
        seq = 128
        ids = rng.integers(0, config.vocab_size, (1, seq)).astype(np.int64)
        mask = np.ones((1, seq), np.int64)
        mask[0, 100:] = 0  # padding at the end, so the mask matters
        torch.onnx.export(model, (torch.from_numpy(ids),
                                  torch.from_numpy(mask)), path,
                          input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state", "pooler_output"],
                          opset_version=17, dynamo=False)
        return model, {"input_ids": ids, "attention_mask": mask}
    raise ValueError(name)


def torch_latency_ms(model, inputs, iterations=50):
    model = model.cuda()
    args = {k: torch.from_numpy(v).cuda() for k, v in inputs.items()}
    call = ((lambda: model(args["input"])) if "input" in args
            else (lambda: model(args["input_ids"], args["attention_mask"])))
    with torch.no_grad():
        for _ in range(10):
            call()
        torch.cuda.synchronize()
        times = []
        for _ in range(iterations):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    return float(np.median(times))


def save_graph_only(path, out):
    model = onnx.load(path)
    for init in model.graph.initializer:
        # Keep dims and type; drop the data.
        init.ClearField("raw_data")
        init.ClearField("float_data")
        init.ClearField("int64_data")
        init.ClearField("int32_data")
    onnx.save(model, out)


def run_model(name, out_dir):
    row = {"model": name}
    path = os.path.join(out_dir, name + ".onnx")
    t0 = time.time()
    model, inputs = export(name, path)
    row["export_s"] = time.time() - t0
    save_graph_only(path, os.path.join(out_dir, name + ".graph.onnx"))
    graph = onnx.load(path, load_external_data=False)
    row["onnx_nodes"] = len(graph.graph.node)
    ops = sorted({n.op_type for n in graph.graph.node})
    print("%s: %d nodes, ops: %s" % (name, len(graph.graph.node),
                                     " ".join(ops)), flush=True)

    artifact = os.path.join(out_dir, name + ".fbin")
    t0 = time.time()
    compiled = subprocess.run(
        [COMPILER, path, "-o", artifact, "--target=cuda", "--gpu-arch=sm_90",
         "--fusion-report", "--no-reference"],
        capture_output=True, text=True, timeout=1200)
    row["compile_s"] = time.time() - t0
    report = compiled.stderr
    with open(os.path.join(out_dir, name + ".compile.log"), "w") as f:
        f.write(report)
    if compiled.returncode != 0:
        row["error"] = "fuse-compile failed: " + report.strip()[-800:]
        return row
    m = re.search(r"kernels: (\d+) before fusion, (\d+) after", report)
    if m:
        row["kernels_before"], row["kernels_after"] = map(int, m.groups())

    in_path = os.path.join(out_dir, name + ".in.npz")
    out_path = os.path.join(out_dir, name + ".out.npz")
    np.savez(in_path, **inputs)
    ran = subprocess.run([RUNNER, artifact, "--inputs", in_path,
                          "--outputs", out_path],
                         capture_output=True, text=True, timeout=600)
    if ran.returncode != 0:
        row["error"] = "fuse-run failed: " + ran.stderr.strip()[-800:]
        return row
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    expected = session.run(None, inputs)
    got = np.load(out_path)
    errors = []
    for value, want in zip(session.get_outputs(), expected):
        have = got[value.name].astype(np.float64)
        want = want.astype(np.float64)
        errors.append(float(np.linalg.norm(have - want) /
                            max(np.linalg.norm(want), 1e-30)))
    row["rel_l2"] = max(errors)
    row["pass"] = row["rel_l2"] < TOLERANCE

    bench = subprocess.run([RUNNER, artifact, "--inputs", in_path, "--bench"],
                           capture_output=True, text=True, timeout=600)
    m = re.search(r"plan=main .*median_ms=([0-9.]+)", bench.stdout)
    if m:
        row["fuse_ms"] = float(m.group(1))
    try:
        row["torch_ms"] = torch_latency_ms(model, inputs)
    except Exception as e:  # the table is still useful without it
        print("%s: PyTorch timing failed: %s" % (name, e), flush=True)
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", default="resnet50,mobilenet_v2,bert")
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/models"))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print("device: %s, torch %s, onnxruntime %s" % (
        torch.cuda.get_device_name(), torch.__version__, ort.__version__))
    rows = []
    for name in args.models.split(","):
        try:
            row = run_model(name, args.out)
        except Exception as e:
            row = {"model": name, "error": "%s: %s" % (type(e).__name__, e)}
        print(row, flush=True)
        rows.append(row)

    print("\n| model | ONNX nodes | kernels before fusion | after | "
          "compile s | rel. L2 error vs onnxruntime | fuse ms | "
          "PyTorch eager ms | result |")
    print("|---|---|---|---|---|---|---|---|---|")
    ok = True
    for r in rows:
        if "error" in r:
            ok = False
            print("| %s | %s | | | | | | | FAIL: %s |" % (
                r["model"], r.get("onnx_nodes", ""),
                r["error"].replace("\n", " ")[:300]))
            continue
        ok &= r["pass"]
        print("| %s | %d | %s | %s | %.1f | %.2e | %s | %s | %s |" % (
            r["model"], r["onnx_nodes"], r.get("kernels_before", "?"),
            r.get("kernels_after", "?"), r["compile_s"], r["rel_l2"],
            "%.3f" % r["fuse_ms"] if "fuse_ms" in r else "",
            "%.3f" % r["torch_ms"] if "torch_ms" in r else "",
            "PASS" if r["pass"] else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
