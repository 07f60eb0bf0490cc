#!/usr/bin/env python3
"""Compares two fuse-run --profile traces of one model, node by node.

    python3 bench/models/compare_profiles.py A.profile.json B.profile.json
        [--op Conv] [--top 20]

Each launch's time goes to the first ONNX node it names (a contraction
group names its Conv, MatMul or Gemm first; an im2col kernel names the
Conv it was cut from), so a convolution run directly in A and as im2col +
matmul in B compares as one row. Prints the rows whose node has the given
op type in A (every node without --op), sorted by B - A, then the totals.
Used for the per-convolution tables in docs/models.md (--conv=direct
against --conv=gemm).
"""

import argparse
import collections
import json


def per_node(path):
    """{node name: (op type, microseconds, strategies)} of one trace."""
    with open(path) as f:
        trace = json.load(f)
    nodes = collections.OrderedDict()
    for event in trace["traceEvents"]:
        listed = event["args"].get("nodes", "")
        if not listed:
            continue
        first = listed.split(", ")[0]
        name, _, op = first.rpartition(" (")
        op = op.rstrip(")")
        old_op, us, kinds = nodes.get(name, (op, 0.0, []))
        kinds.append(event["name"])
        nodes[name] = (old_op, us + event["dur"], kinds)
    return nodes


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--op", help="only nodes of this ONNX op type in A")
    p.add_argument("--top", type=int, default=0,
                   help="print only the N rows with the largest |B - A|")
    args = p.parse_args()
    a, b = per_node(args.a), per_node(args.b)
    rows = []
    for name, (op, us_a, kinds_a) in a.items():
        if args.op and op != args.op or name not in b:
            continue
        us_b, kinds_b = b[name][1], b[name][2]
        rows.append((us_b - us_a, name, us_a, us_b, " + ".join(kinds_a),
                     " + ".join(kinds_b)))
    rows.sort()
    shown = rows
    if args.top:
        shown = sorted(rows, key=lambda r: -abs(r[0]))[:args.top]
        shown.sort()
    print("| node | A us | B us | B - A | A runs as | B runs as |")
    print("|---|---|---|---|---|---|")
    for delta, name, us_a, us_b, kinds_a, kinds_b in shown:
        print("| %s | %.1f | %.1f | %+.1f | %s | %s |" % (
            name, us_a, us_b, delta, kinds_a, kinds_b))
    print("\n%d nodes: A %.1f us, B %.1f us, B - A %+.1f us; B faster on %d"
          % (len(rows), sum(r[2] for r in rows), sum(r[3] for r in rows),
             sum(r[0] for r in rows), sum(1 for r in rows if r[0] < 0)))


if __name__ == "__main__":
    main()
