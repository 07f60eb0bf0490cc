#!/usr/bin/env python3
"""Puts a model through onnxruntime's transformer optimizer, as optimum's
ORTOptimizer and the `*_optimized.onnx` files on model hubs do:

    ort_optimize.py IN.onnx OUT.onnx --model-type bert|gpt2 --num-heads N
                    --hidden-size H [--no-attention]

opt_level 0: the optimizer's own fusions (SkipLayerNormalization,
BiasGelu, FastGelu, Attention where its patterns match), without
onnxruntime's graph optimizations, which need PyTorch installed. Prints
the com.microsoft operators the result holds.
"""

import argparse
import collections
import logging

from onnxruntime.transformers import optimizer
from onnxruntime.transformers.fusion_options import FusionOptions


def main():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--model-type", required=True)
    p.add_argument("--num-heads", type=int, required=True)
    p.add_argument("--hidden-size", type=int, required=True)
    p.add_argument("--no-attention", action="store_true",
                   help="leave attention as its ops (no Attention or "
                        "EmbedLayerNormalization)")
    args = p.parse_args()
    logging.disable(logging.WARNING)
    options = FusionOptions(args.model_type)
    if args.no_attention:
        options.enable_attention = False
        options.enable_embed_layer_norm = False
    model = optimizer.optimize_model(
        args.input, model_type=args.model_type, num_heads=args.num_heads,
        hidden_size=args.hidden_size, optimization_options=options,
        opt_level=0)
    model.save_model_to_file(args.output)
    ops = collections.Counter(n.op_type for n in model.model.graph.node
                              if n.domain == "com.microsoft")
    print("com.microsoft:", ", ".join(f"{op} {count}"
                                      for op, count in sorted(ops.items())))


if __name__ == "__main__":
    main()
