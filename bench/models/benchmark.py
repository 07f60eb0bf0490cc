#!/usr/bin/env python3
"""Whole models on the GPU machine: fuse against PyTorch, in one process.

    python3 bench/models/benchmark.py [--models resnet50,mobilenet_v2,bert,...]
        [--batches 1,32] [--precision fp32,fp16,bf16,tf32] [--out DIR]
        [--no-compile] [--strategy auto] [--conv auto]
        [--variant LABEL=FLAGS ...]

For each model and batch size, in this one process:

1. export the model from PyTorch at that batch size, random weights from a
   fixed seed: torchvision ResNet-50 and MobileNetV2, and transformers'
   BERT-base with eager attention (`bert`), sequence length 128, with
   torch.onnx.export(opset_version=17, dynamo=False), the path
   docs/models.md took first; `bert_sdpa` (BERT-base as it comes, sdpa
   attention) and `llama` (a Llama-style decoder, prefill of 128 tokens:
   4 layers, hidden size 1024, 16 heads and 4 key/value heads, SiLU-gated
   MLP of 2816, vocabulary 32000; its last hidden state) and `gpt2`
   (transformers' GPT2Model as configured by default: GPT-2 small, 12
   layers, hidden size 768, prefill of 128 tokens; its last hidden state)
   with
   torch.onnx.export's defaults (the dynamo exporter, opset 18+, weights
   in external data), as users export them;
2. compile it with fuse-compile for cuda (the static build in
   .device/compiler, bench/models/build_static_compiler.sh), its fusion
   report in NAME.fusion.json (the kernel counts of the table come from
   it), and load it with the runtime's C API (libfuse_runtime.so, through
   ctypes);
3. run fuse, PyTorch eager and torch.compile(mode="reduce-overhead") (CUDA
   graphs) on the same seeded random inputs, and compare every output
   with onnxruntime (CPU, fp32): relative L2 error ||x - ort|| / ||ort||,
   which must be under 1e-4 for fuse;
4. time them: in each --precision (default fp32): fp32 with TF32 off in
   PyTorch (matmul and cuDNN) and in fuse (cuBLASLt fp32 compute, cuDNN
   FMA math); tf32 with TF32 on in both (fuse-compile --precision=tf32);
   fp16 and bf16 with PyTorch's model converted (`model.half()`,
   `model.to(torch.bfloat16)`, float inputs likewise) and fuse compiling
   the same float32 export with --precision=fp16/bf16; CUDA events around
   each call after a warm-up, median of --iterations; the three are timed
   in turn, three rounds, and each reports the median of its rounds;
5. profile fuse (fuse-run --profile=NAME.profile.json, its table in
   NAME.profile.txt); its replay time, in fuse-run's own process, is the
   table's "fuse ms, own process": once torch.compile has run, Triton's
   library is loaded in this process, and from then on every kernel of a
   CUDA graph, fuse's and PyTorch's alike, takes about 0.4 us longer on
   the GPU (bench/probes/launch_latency.py), which at batch 1 is 5-10%
   of a model's time. The ratio to torch.compile is taken in this process.

Errors: fuse's and PyTorch's outputs against onnxruntime's float32 ones
(relative L2). fp32 fails at 1e-4 or more; tf32, fp16 and bf16 fail when
fuse's error is more than 1.5 times PyTorch's own in that precision (and
over 1e-4).

Each --variant (e.g. `tile1=--strategy=generated --gpu-contraction-tile=1,1`)
compiles the same export once more with those fuse-compile flags instead of
--strategy/--depthwise/--conv, and is checked, timed (same rounds, same
process) and profiled (NAME.LABEL.profile.txt) beside the default.

Prints one line per model and batch as it goes and a markdown table last.
Exit status 1 when any fuse output misses onnxruntime by 1e-4 or more, or
a step fails.
"""

import argparse
import copy
import ctypes
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnxruntime as ort
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
COMPILER = os.path.join(ROOT, ".device", "compiler", "bin", "fuse-compile")
RUNTIME_DIR = os.path.join(ROOT, ".device", "runtime")
TOLERANCE = 1e-4
SEQUENCE = 128


# ---------------------------------------------------------------------------
# fuse's runtime through its C API (runtime/include/fuse/runtime.h)
# ---------------------------------------------------------------------------

class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_uint32),
                ("rank", ctypes.c_uint32), ("dims", ctypes.c_int64 * 8),
                ("bytes", ctypes.c_uint64)]


NUMPY_DTYPES = {1: np.float32, 6: np.int32, 7: np.int64, 9: np.bool_,
                11: np.float64}


class FuseModel:
    """A loaded artifact: set inputs, run, read outputs, time."""

    lib = None

    def __init__(self, path):
        if FuseModel.lib is None:
            lib = ctypes.CDLL(os.path.join(RUNTIME_DIR, "libfuse_runtime.so"))
            lib.fuse_last_error.restype = ctypes.c_char_p
            lib.fuse_model_load.argtypes = [ctypes.c_char_p,
                                            ctypes.POINTER(ctypes.c_void_p)]
            for name in ("fuse_model_num_inputs", "fuse_model_num_outputs"):
                getattr(lib, name).argtypes = [ctypes.c_void_p]
                getattr(lib, name).restype = ctypes.c_size_t
            for name in ("fuse_model_input_info", "fuse_model_output_info"):
                getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                               ctypes.POINTER(TensorInfo)]
            lib.fuse_model_set_input.argtypes = [
                ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                ctypes.c_size_t]
            lib.fuse_model_get_output.argtypes = [
                ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                ctypes.c_size_t]
            lib.fuse_model_run.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
            lib.fuse_model_benchmark.argtypes = [
                ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                ctypes.POINTER(ctypes.c_double)]
            lib.fuse_model_free.argtypes = [ctypes.c_void_p]
            lib.fuse_model_libraries.argtypes = [ctypes.c_void_p]
            lib.fuse_model_libraries.restype = ctypes.c_char_p
            FuseModel.lib = lib
        self.handle = ctypes.c_void_p()
        self.check(self.lib.fuse_model_load(path.encode(),
                                            ctypes.byref(self.handle)))
        self.inputs = self.describe(False)
        self.outputs = self.describe(True)
        self.libraries = self.lib.fuse_model_libraries(self.handle).decode()

    def check(self, status):
        if status != 0:
            raise RuntimeError("fuse: " + self.lib.fuse_last_error().decode())

    def describe(self, outputs):
        n = (self.lib.fuse_model_num_outputs if outputs
             else self.lib.fuse_model_num_inputs)(self.handle)
        info = (self.lib.fuse_model_output_info if outputs
                else self.lib.fuse_model_input_info)
        result = []
        for i in range(n):
            t = TensorInfo()
            self.check(info(self.handle, i, ctypes.byref(t)))
            result.append((t.name.decode(), NUMPY_DTYPES[t.dtype],
                           tuple(t.dims[:t.rank])))
        return result

    def set_inputs(self, values):
        for i, (name, dtype, shape) in enumerate(self.inputs):
            array = np.ascontiguousarray(values[name], dtype=dtype)
            assert array.shape == shape, (name, array.shape, shape)
            self.check(self.lib.fuse_model_set_input(
                self.handle, i, array.ctypes.data, array.nbytes))

    def run(self):
        self.check(self.lib.fuse_model_run(self.handle, 0))
        result = {}
        for i, (name, dtype, shape) in enumerate(self.outputs):
            array = np.empty(shape, dtype)
            self.check(self.lib.fuse_model_get_output(
                self.handle, i, array.ctypes.data, array.nbytes))
            result[name] = array
        return result

    def time_ms(self, warmup, iterations):
        """Median ms of plan 'main' (one CUDA-graph launch, CUDA events)."""
        times = (ctypes.c_double * iterations)()
        self.check(self.lib.fuse_model_benchmark(self.handle, 0, warmup,
                                                 iterations, times))
        return float(np.median(list(times)))

    def close(self):
        if self.handle:
            self.lib.fuse_model_free(self.handle)
            self.handle = ctypes.c_void_p()


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------

def build(name, batch):
    """The PyTorch model, its ONNX export arguments and numpy inputs."""
    torch.manual_seed(0)
    rng = np.random.default_rng(batch)
    if name in ("resnet50", "mobilenet_v2"):
        import torchvision
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = rng.uniform(-1, 1, (batch, 3, 224, 224)).astype(np.float32)
        return model, {"input": x}, ["logits"]
    if name == "bert":
        from transformers import BertConfig, BertModel
        config = BertConfig(attn_implementation="eager")
        bert = BertModel(config).eval()
        ids, mask = token_inputs(rng, config.vocab_size, batch, padded=True)
        return (Encoder(bert).eval(), {"input_ids": ids, "attention_mask": mask},
                ["last_hidden_state", "pooler_output"])
    if name == "bert_sdpa":
        from transformers import BertConfig, BertModel
        config = BertConfig()  # sdpa attention, the default
        bert = BertModel(config).eval()
        ids, mask = token_inputs(rng, config.vocab_size, batch, padded=True)
        return (Encoder(bert).eval(), {"input_ids": ids, "attention_mask": mask},
                ["last_hidden_state", "pooler_output"])
    if name == "llama":
        from transformers import LlamaConfig, LlamaModel
        config = LlamaConfig(hidden_size=1024, intermediate_size=2816,
                             num_hidden_layers=4, num_attention_heads=16,
                             num_key_value_heads=4, vocab_size=32000,
                             max_position_embeddings=2048, use_cache=False)
        llama = LlamaModel(config).eval()
        # Prefill: every token real, the causal mask the model's own.
        ids, mask = token_inputs(rng, config.vocab_size, batch, padded=False)
        return (Decoder(llama).eval(), {"input_ids": ids, "attention_mask": mask},
                ["last_hidden_state"])
    if name == "gpt2":
        from transformers import GPT2Config, GPT2Model
        config = GPT2Config(use_cache=False)  # GPT-2 small
        gpt2 = GPT2Model(config).eval()
        ids, mask = token_inputs(rng, config.vocab_size, batch, padded=False)
        return (Decoder(gpt2).eval(), {"input_ids": ids, "attention_mask": mask},
                ["last_hidden_state"])
    raise ValueError(name)


class Encoder(torch.nn.Module):
    """Positional inputs, tuple outputs: what the exporters want."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask):
        out = self.bert(input_ids=input_ids, attention_mask=attention_mask)
        return out.last_hidden_state, out.pooler_output


class Decoder(torch.nn.Module):
    """A decoder's last hidden state (its logits would be 32000 wide)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids,
                          attention_mask=attention_mask).last_hidden_state


def token_inputs(rng, vocabulary, batch, padded):
    ids = rng.integers(0, vocabulary, (batch, SEQUENCE)).astype(np.int64)
    mask = np.ones((batch, SEQUENCE), np.int64)
    if padded:
        for b in range(batch):  # padding at the end, so the mask matters
            mask[b, 100 - b % 32:] = 0
    return ids, mask


# How each model is exported: "legacy" (opset 17, dynamo=False) or
# "default" (torch.onnx.export's defaults: the dynamo exporter).
EXPORTERS = {"bert_sdpa": "default", "llama": "default", "gpt2": "default"}


def export(name, model, inputs, output_names, path):
    args = tuple(torch.from_numpy(v) for v in inputs.values())
    with torch.no_grad():
        if EXPORTERS.get(name, "legacy") == "default":
            torch.onnx.export(model, args, path, input_names=list(inputs),
                              output_names=output_names)
        else:
            torch.onnx.export(model, args, path, input_names=list(inputs),
                              output_names=output_names, opset_version=17,
                              dynamo=False)


def rel_l2(have, want):
    have = np.asarray(have, np.float64)
    want = np.asarray(want, np.float64)
    return float(np.linalg.norm(have - want) /
                 max(np.linalg.norm(want), 1e-30))


def time_torch_ms(call, warmup, iterations):
    with torch.no_grad():
        for _ in range(warmup):
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


TORCH_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def set_tf32(enabled):
    torch.backends.cuda.matmul.allow_tf32 = enabled
    torch.backends.cudnn.allow_tf32 = enabled
    torch.set_float32_matmul_precision("high" if enabled else "highest")


def run_model(name, batch, args):
    """Exports the model once, then one row per precision."""
    tag = "%s_b%d" % (name, batch)
    model, inputs, output_names = build(name, batch)
    path = os.path.join(args.out, tag + ".onnx")
    export(name, model, inputs, output_names, path)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
        None, inputs)
    rows = []
    for precision in args.precision.split(","):
        try:
            row = run_case(name, batch, precision, model, inputs,
                           output_names, path, want, args)
        except Exception as e:  # the other precisions still run
            row = {"model": name, "batch": batch, "precision": precision,
                   "error": "%s: %s" % (type(e).__name__, e)}
        finally:
            set_tf32(False)
            torch.cuda.empty_cache()
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def run_case(name, batch, precision, model, inputs, output_names, path,
             want, args):
    tag = "%s_b%d" % (name, batch)
    if precision != "fp32":
        tag += "_" + precision
    row = {"model": name, "batch": batch, "precision": precision}

    # fuse, then each variant
    default_flags = ["--strategy=" + args.strategy,
                     "--depthwise=" + args.depthwise, "--conv=" + args.conv,
                     "--precision=" + precision]
    fuse = None
    variants = {}
    for label, flags in [("", default_flags)] + args.variant:
        # A variant is compiled in the run's precision unless it names one.
        if label and not any(f.startswith("--precision=") for f in flags):
            flags = flags + ["--precision=" + precision]
        vtag = tag + ("." + label if label else "")
        artifact = os.path.join(args.out, vtag + ".fbin")
        report = os.path.join(args.out, vtag + ".fusion.json")
        t0 = time.time()
        compiled = subprocess.run(
            [COMPILER, path, "-o", artifact, "--no-reference",
             "--fusion-report=json", "--fusion-report-file=" + report] + flags,
            capture_output=True, text=True, timeout=1200)
        compile_s = time.time() - t0
        with open(os.path.join(args.out, vtag + ".compile.log"), "w") as f:
            f.write(compiled.stderr)
        if compiled.returncode != 0:
            if not label:
                raise RuntimeError("fuse-compile failed: " +
                                   compiled.stderr.strip()[-1500:])
            variants[label] = {"error": compiled.stderr.strip()[-300:]}
            continue
        tuned = None
        if args.tune and not label:
            # fuse-tune on a copy, timed; then again from its cache.
            tuned = os.path.join(args.out, vtag + ".tuned.fbin")
            cache = os.path.join(args.out, "timing.json")
            t0 = time.time()
            tune = subprocess.run(
                [os.path.join(RUNTIME_DIR, "fuse-tune"), artifact, "-o", tuned,
                 "--cache", cache], capture_output=True, text=True,
                timeout=1200)
            tune_s = time.time() - t0
            with open(os.path.join(args.out, vtag + ".tune.log"), "w") as f:
                f.write(tune.stdout + tune.stderr)
            if tune.returncode != 0:
                raise RuntimeError("fuse-tune failed: " +
                                   tune.stderr.strip()[-1500:])
            t0 = time.time()
            subprocess.run(
                [os.path.join(RUNTIME_DIR, "fuse-tune"), artifact, "-o",
                 tuned + ".again", "--cache", cache, "--quiet"],
                capture_output=True, text=True, timeout=1200, check=True)
            row["tune_s"], row["tune_cached_s"] = tune_s, time.time() - t0
            row["tune_changed"] = " ".join(
                re.findall(r"(\d+) selections? changed", tune.stdout))
        model_ = FuseModel(artifact)
        model_.set_inputs(inputs)
        got = model_.run()
        error = max(rel_l2(got[n], w) for n, w in zip(output_names, want))
        if tuned:
            tuned_model = FuseModel(tuned)
            tuned_model.set_inputs(inputs)
            got_tuned = tuned_model.run()
            variants["tuned"] = {
                "model": tuned_model, "artifact": tuned, "ms": [],
                "rel_l2": max(rel_l2(got_tuned[n], w)
                              for n, w in zip(output_names, want)),
                "compile_s": row.get("tune_s", 0)}
        if not label:
            fuse = model_
            row["compile_s"] = compile_s
            row["rel_l2"] = error
            row["libraries"] = fuse.libraries
            with open(report) as f:
                fusion = json.load(f)["functions"][0]
            row["kernels_before"] = fusion["kernels_before"]
            row["kernels_after"] = fusion["kernels_after"]
        else:
            variants[label] = {"model": model_, "artifact": artifact,
                               "rel_l2": error, "compile_s": compile_s,
                               "ms": []}
    artifact = os.path.join(args.out, tag + ".fbin")

    # PyTorch, eager and compiled (CUDA graphs), in the same precision
    set_tf32(precision == "tf32")
    dtype = TORCH_DTYPES.get(precision)
    cuda_model = copy.deepcopy(model).cuda()
    if dtype:
        cuda_model = cuda_model.to(dtype)
    cuda_inputs = [torch.from_numpy(v).cuda() for v in inputs.values()]
    if dtype:
        cuda_inputs = [t.to(dtype) if t.is_floating_point() else t
                       for t in cuda_inputs]
    with torch.no_grad():
        eager_out = cuda_model(*cuda_inputs)
    eager_out = eager_out if isinstance(eager_out, tuple) else (eager_out,)
    row["torch_rel_l2"] = max(rel_l2(o.float().cpu().numpy(), w)
                              for o, w in zip(eager_out, want))
    eager = lambda: cuda_model(*cuda_inputs)
    compiled_call = None
    if not args.no_compile:
        t0 = time.time()
        compiled_model = torch.compile(cuda_model, mode="reduce-overhead")
        with torch.no_grad():
            for _ in range(3):  # compile, record the graph, replay
                compiled_model(*cuda_inputs)
        torch.cuda.synchronize()
        row["torch_compile_s"] = time.time() - t0
        compiled_call = lambda: compiled_model(*cuda_inputs)

    fuse_ms, eager_ms, compiled_ms = [], [], []
    for _ in range(3):
        fuse_ms.append(fuse.time_ms(args.warmup, args.iterations))
        for v in variants.values():
            if "model" in v:
                v["ms"].append(v["model"].time_ms(args.warmup,
                                                  args.iterations))
        eager_ms.append(time_torch_ms(eager, args.warmup, args.iterations))
        if compiled_call:
            compiled_ms.append(time_torch_ms(compiled_call, args.warmup,
                                             args.iterations))
    row["fuse_ms"] = float(np.median(fuse_ms))
    row["eager_ms"] = float(np.median(eager_ms))
    if compiled_ms:
        row["compiled_ms"] = float(np.median(compiled_ms))
    fuse.close()
    for v in variants.values():
        if "model" in v:
            v.pop("model").close()
    del cuda_model, cuda_inputs
    torch.cuda.empty_cache()

    # fuse's per-launch profile, with fuse-run (same artifact and inputs)
    in_path = os.path.join(args.out, tag + ".in.npz")
    np.savez(in_path, **inputs)
    runner = os.path.join(RUNTIME_DIR, "fuse-run")
    for label, v in [("", row)] + list(variants.items()):
        if "error" in v:
            continue
        vtag = tag + ("." + label if label else "")
        prof = subprocess.run(
            [runner, v.get("artifact", artifact), "--inputs", in_path,
             "--profile=" + os.path.join(args.out, vtag + ".profile.json"),
             "--iterations", "50", "--warmup", "5"],
            capture_output=True, text=True, timeout=600)
        with open(os.path.join(args.out, vtag + ".profile.txt"), "w") as f:
            f.write(prof.stdout + prof.stderr)
        profile = os.path.join(args.out, vtag + ".profile.json")
        if prof.returncode == 0 and os.path.exists(profile):
            with open(profile) as f:
                totals = json.load(f)["otherData"]
            v["profile_sum_ms"] = totals["sum_ms"]
            v["profile_replay_ms"] = totals["replay_ms"]
    os.remove(in_path)
    for v in variants.values():
        if v.get("ms"):
            v["ms"] = float(np.median(v["ms"]))
        v.pop("artifact", None)
    if variants:
        row["variants"] = variants
    return row


def accurate(error, torch_error, precision):
    """fp32: under TOLERANCE; otherwise at most 1.5x PyTorch's error in the
    same precision (or under TOLERANCE)."""
    if precision == "fp32":
        return error < TOLERANCE
    return error < TOLERANCE or error <= 1.5 * torch_error


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet50,mobilenet_v2,bert")
    p.add_argument("--batches", default="1,32")
    p.add_argument("--precision", default="fp32",
                   help="comma-separated: fp32 (TF32 off), tf32, fp16, bf16")
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/models"))
    p.add_argument("--no-compile", action="store_true",
                   help="skip torch.compile (it takes about a minute a model)")
    p.add_argument("--strategy", default="auto",
                   help="fuse-compile --strategy (auto, generated, library)")
    p.add_argument("--depthwise", default="kernel",
                   help="fuse-compile --depthwise (kernel, library)")
    p.add_argument("--conv", default="auto",
                   help="fuse-compile --conv (auto, direct, gemm)")
    p.add_argument("--variant", action="append", default=[],
                   type=lambda v: (v.split("=", 1)[0], v.split("=", 1)[1]
                                   .split()),
                   help="LABEL=FLAGS: also compile with these fuse-compile "
                        "flags (and the run's --precision unless they name "
                        "one), check and time it beside the default")
    p.add_argument("--tune", action="store_true",
                   help="also tune the default artifact with fuse-tune "
                        "(a timing cache shared by the models) and time "
                        "the tuned one as variant 'tuned'")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--iterations", type=int, default=50)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    print("device: %s, torch %s, onnxruntime %s, date %s" % (
        torch.cuda.get_device_name(), torch.__version__, ort.__version__,
        time.strftime("%Y-%m-%d")), flush=True)
    rows, ok = [], True
    for name in args.models.split(","):
        for batch in [int(b) for b in args.batches.split(",")]:
            try:
                rows += run_model(name, batch, args)
            except Exception as e:  # the other cases still run
                row = {"model": name, "batch": batch,
                       "error": "%s: %s" % (type(e).__name__, e)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    with open(os.path.join(args.out, "benchmark.json"), "w") as f:
        json.dump(rows, f, indent=1)

    print("\n| model | batch | precision | kernels (unfused -> fuse) | "
          "rel. L2 vs fp32 ORT: fuse / torch | fuse ms | "
          "fuse ms, own process | eager ms | "
          "compile(reduce-overhead) ms | fuse / compile | "
          "profile sum / replay |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            ok = False
            print("| %s | %d | %s | FAIL: %s |" % (
                r["model"], r["batch"], r.get("precision", "-"),
                r["error"][:400]))
            continue
        ok &= accurate(r["rel_l2"], r["torch_rel_l2"], r["precision"])
        compiled = r.get("compiled_ms")
        print("| %s | %d | %s | %s -> %s | %.1e / %.1e | %.3f | %s | %.3f | "
              "%s | %s | %s |" % (
                  r["model"], r["batch"], r["precision"],
                  r.get("kernels_before", "?"), r.get("kernels_after", "?"),
                  r["rel_l2"], r["torch_rel_l2"], r["fuse_ms"],
                  "%.3f" % r["profile_replay_ms"]
                  if r.get("profile_replay_ms") else "-",
                  r["eager_ms"], "%.3f" % compiled if compiled else "-",
                  "%.2fx" % (r["fuse_ms"] / compiled) if compiled else "-",
                  "%.2f" % (r["profile_sum_ms"] / r["profile_replay_ms"])
                  if r.get("profile_replay_ms") else "-"))
    labels = sorted({l for r in rows for l in r.get("variants", {})})
    if labels:
        print("\n| model | batch | fuse ms | " +
              " | ".join("%s ms (rel. L2)" % l for l in labels) + " |")
        print("|---|---|---|" + "---|" * len(labels))
        for r in rows:
            if "error" in r:
                continue
            cells = []
            for l in labels:
                v = r.get("variants", {}).get(l, {})
                if "error" in v:
                    cells.append("FAIL")
                    ok = False
                elif "ms" in v:
                    ok &= accurate(v["rel_l2"], r["torch_rel_l2"],
                                   r["precision"])
                    cells.append("%.3f (%.0e)" % (v["ms"], v["rel_l2"]))
                else:
                    cells.append("-")
            print("| %s | %d | %.3f | %s |" % (r["model"], r["batch"],
                                               r["fuse_ms"], " | ".join(cells)))
    tuned = [r for r in rows if "tune_s" in r]
    if tuned:
        print("\n| model | batch | compile s | fuse-tune s | again, from "
              "the cache s | selections changed | untuned ms | tuned ms |")
        print("|---|---|---|---|---|---|---|---|")
        for r in tuned:
            print("| %s | %d | %.1f | %.1f | %.2f | %s | %.3f | %s |" % (
                r["model"], r["batch"], r["compile_s"], r["tune_s"],
                r["tune_cached_s"], r["tune_changed"], r["fuse_ms"],
                "%.3f" % r["variants"]["tuned"]["ms"]
                if "ms" in r["variants"].get("tuned", {}) else "-"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
