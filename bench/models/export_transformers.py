#!/usr/bin/env python3
"""Export small transformers the way users do, for import tests.

    python3 bench/models/export_transformers.py --out DIR

On the GPU machine (PyTorch and transformers are there), builds small
models from configs (2 layers, hidden size 64, random weights from a fixed
seed; --tiny: hidden size 32) and exports each with both of PyTorch's exporters:

- legacy: torch.onnx.export(..., opset_version=17, dynamo=False)
- dynamo: torch.onnx.export(model, args, path), the default (opset 18+)

Models: BERT (sdpa and eager attention, with and without an attention
mask), GPT-2, and a Llama-style decoder (RMSNorm, rotary embeddings,
SiLU-gated MLP, grouped-query attention), all at batch 2 and sequence 16,
no KV cache. Writes DIR/NAME.onnx (and NAME.onnx.data where the exporter
stores external data), DIR/ops.json (op types and counts per model, the
opset, the inputs and outputs, or the error) and DIR/ops.md (the table for
docs/). One failed export does not stop the others.
"""

import argparse
import collections
import json
import os
import sys
import traceback

import torch

BATCH = 2
SEQUENCE = 16


# --tiny: the sizes of the copies in test/Models/Inputs/exports, which CI
# compiles for the cpu target (about 100 KB each).
SIZES = {
    "small": dict(hidden=64, intermediate=128, vocab=1000, positions=64,
                  init=0.02),
    # Weights ten times transformers' default spread, so that the
    # attention is far from uniform and a test sees a wrong scale or mask.
    "tiny": dict(hidden=32, intermediate=64, vocab=100, positions=32,
                 init=0.2),
}


def small_models(size):
    import transformers as tf
    common = dict(hidden_size=size["hidden"], num_hidden_layers=2,
                  num_attention_heads=4,
                  intermediate_size=size["intermediate"],
                  vocab_size=size["vocab"], initializer_range=size["init"])
    positions = size["positions"]
    for attn in ("sdpa", "eager"):
        cfg = tf.BertConfig(max_position_embeddings=positions,
                            attn_implementation=attn, **common)
        yield f"bert_{attn}", lambda c=cfg: tf.BertModel(
            c, add_pooling_layer=False), True
        yield f"bert_{attn}_nomask", lambda c=cfg: tf.BertModel(
            c, add_pooling_layer=False), False
    cfg = tf.GPT2Config(n_embd=size["hidden"], n_layer=2, n_head=4,
                        n_positions=positions, vocab_size=size["vocab"],
                        initializer_range=size["init"], use_cache=False)
    yield "gpt2", lambda c=cfg: tf.GPT2Model(c), True
    cfg = tf.LlamaConfig(num_key_value_heads=2,
                         max_position_embeddings=positions,
                         use_cache=False, **common)
    yield "llama", lambda c=cfg: tf.LlamaModel(c), True


class Wrapper(torch.nn.Module):
    """Keyword inputs and one tensor out, as the exporters want them."""

    def __init__(self, model, with_mask):
        super().__init__()
        self.model = model
        self.with_mask = with_mask

    def forward(self, input_ids, attention_mask=None):
        kwargs = {"input_ids": input_ids}
        if self.with_mask:
            kwargs["attention_mask"] = attention_mask
        return self.model(**kwargs).last_hidden_state


def op_table(path):
    import onnx
    model = onnx.load(path, load_external_data=False)
    counts = collections.Counter()

    def walk(graph):
        for node in graph.node:
            counts[(node.domain or "") + ("::" if node.domain else "")
                   + node.op_type] += 1
            for attr in node.attribute:
                if attr.g is not None and attr.g.node:
                    walk(attr.g)
    walk(model.graph)
    for fn in model.functions:
        for node in fn.node:
            counts["(function) " + node.op_type] += 1
    opset = max((o.version for o in model.opset_import
                 if o.domain in ("", "ai.onnx")), default=0)
    external = any(
        t.data_location == onnx.TensorProto.EXTERNAL
        for t in model.graph.initializer)
    return {
        "opset": opset, "ops": dict(sorted(counts.items())),
        "external_data": external,
        "inputs": [i.name for i in model.graph.input],
        "outputs": [o.name for o in model.graph.output],
        "functions": len(model.functions),
    }


def strip_stack_traces(path):
    """Drops the dynamo exporter's per-node stack traces (they hold the
    exporting machine's file paths; nothing reads them) from a model whose
    weights stay where they are."""
    import onnx
    model = onnx.load(path, load_external_data=False)
    for node in model.graph.node:
        kept = [(p.key, p.value) for p in node.metadata_props
                if p.key != "pkg.torch.onnx.stack_trace"]
        del node.metadata_props[:]
        for key, value in kept:
            node.metadata_props.add(key=key, value=value)
    onnx.save(model, path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--tiny", action="store_true",
                        help="hidden size 32, vocabulary 100: the size of "
                        "the copies CI checks (test/Models/exports.test)")
    args = parser.parse_args()
    size = SIZES["tiny" if args.tiny else "small"]
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    results = {}
    for name, build, with_mask in small_models(size):
        torch.manual_seed(0)
        try:
            model = Wrapper(build(), with_mask).eval()
        except Exception as error:
            results[name] = {"error": f"{type(error).__name__}: {error}"}
            print(f"{name}: cannot build: {error}", flush=True)
            continue
        ids = torch.randint(0, size["vocab"], (BATCH, SEQUENCE))
        mask = torch.ones(BATCH, SEQUENCE, dtype=torch.int64)
        mask[1, SEQUENCE - 5:] = 0
        inputs = (ids, mask) if with_mask else (ids,)
        names = ["input_ids", "attention_mask"][:len(inputs)]
        for exporter in ("legacy", "dynamo"):
            key = f"{name}_{exporter}"
            path = os.path.join(args.out, key + ".onnx")
            try:
                with torch.no_grad():
                    if exporter == "legacy":
                        torch.onnx.export(model, inputs, path,
                                          opset_version=17, dynamo=False,
                                          input_names=names,
                                          output_names=["hidden"])
                    else:
                        torch.onnx.export(model, inputs, path,
                                          input_names=names,
                                          output_names=["hidden"])
                if args.tiny:
                    strip_stack_traces(path)
                results[key] = op_table(path)
                print(f"{key}: opset {results[key]['opset']}, "
                      f"{sum(results[key]['ops'].values())} nodes", flush=True)
            except Exception as error:  # one failure must not stop the rest
                results[key] = {"error": f"{type(error).__name__}: {error}"[:2000]}
                traceback.print_exc()
                print(f"{key}: FAILED", flush=True)
    with open(os.path.join(args.out, "ops.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    ops = sorted({op for r in results.values() for op in r.get("ops", {})})
    keys = [k for k in results if "ops" in results[k]]
    with open(os.path.join(args.out, "ops.md"), "w") as f:
        f.write("| op | " + " | ".join(keys) + " |\n")
        f.write("|---|" + "---|" * len(keys) + "\n")
        for op in ops:
            f.write(f"| {op} | " + " | ".join(
                str(results[k]["ops"].get(op, "")) for k in keys) + " |\n")
    return 0 if all("ops" in r for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
