#!/usr/bin/env python3
"""Runs the ONNX backend node tests through fuse (cpu target).

    run_node_tests.py --fuse-compile BIN --fuse-run BIN --workdir DIR
                      [--jobs N] [--filter REGEX] [--show CATEGORY ...]
                      [--fail-on-failure]

The node tests are generated from the `onnx` package's own case definitions
(onnx.backend.test.case.node): for each, model.onnx and test_data_set_N/
with input_K.pb and output_K.pb, written under DIR/node/. Each test is
compiled with `fuse-compile --target=cpu --no-reference`, run by fuse-run on
every data set, and its outputs compared with the expected ones
(|fuse - expected| <= atol + rtol * |expected|, rtol 1e-3, atol 1e-5;
NaN matches NaN). Every test ends in one category:

  pass                 every output of every data set matches
  fail                 anything else: a wrong value, a compile or run error
                       that is not one of the two below, a crash
  unsupported-op       fuse-compile rejected an operator fuse does not
                       implement ("unsupported operator")
  unsupported-feature  fuse-compile rejected the test with a clear refusal:
                       a supported operator used in a way fuse does not
                       implement (a data type, an attribute value, an
                       optional output, an output shape that depends on
                       input values)

Prints a summary (per category, and which operators fail) and exits 1 with
--fail-on-failure when any test fails.
"""

import argparse
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

import numpy as np
from onnx import TensorProto, load, numpy_helper

RTOL, ATOL = 1e-3, 1e-5


def generate(root):
    """Writes every node test case under root/node (once)."""
    marker = os.path.join(root, "node", ".complete")
    if os.path.exists(marker):
        return
    import warnings

    from onnx.backend.test.case import node as node_cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases()
    for case in cases:
        out = os.path.join(root, "node", case.name)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            data = os.path.join(out, "test_data_set_%d" % i)
            os.makedirs(data, exist_ok=True)
            for kind, values, infos in (("input", inputs, case.model.graph.input),
                                        ("output", outputs,
                                         case.model.graph.output)):
                for j, value in enumerate(values):
                    info = infos[j] if j < len(infos) else None
                    if info is not None and not info.type.HasField("tensor_type"):
                        # Sequences, maps and optionals: fuse takes tensors
                        # only; the importer rejects these models.
                        continue
                    if isinstance(value, TensorProto):
                        proto = value
                    else:
                        proto = numpy_helper.from_array(
                            np.asarray(value), info.name if info else "")
                    with open(os.path.join(data, "%s_%d.pb" % (kind, j)),
                              "wb") as f:
                        f.write(proto.SerializeToString())
    open(marker, "w").close()


# The importer's and compiler's clear refusals, by category.
UNSUPPORTED_OP = ("unsupported operator",
                  "imports no opset of the default ONNX domain")
UNSUPPORTED_FEATURE = ("not supported", "unsupported element type",
                       "unsupported data type", "is older than the oldest",
                       "needs a static shape", "does not support",
                       "which the lowering does not support")


def classify_error(text):
    if any(s in text for s in UNSUPPORTED_OP):
        return "unsupported-op"
    if any(s in text for s in UNSUPPORTED_FEATURE):
        return "unsupported-feature"
    return "fail"


def first_line(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return text.strip().splitlines()[-1][:300] if text.strip() else ""


def run_test(test_dir, args):
    name = os.path.basename(test_dir)
    artifact = os.path.join(args.workdir, "artifacts", name + ".fbin")
    try:
        proc = subprocess.run(
            [args.fuse_compile, os.path.join(test_dir, "model.onnx"), "-o",
             artifact, "--target=cpu", "--no-reference"],
            capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return name, "fail", "fuse-compile timed out"
    if proc.returncode < 0 or proc.returncode > 1:
        return name, "fail", "fuse-compile crashed (exit %d): %s" % (
            proc.returncode, first_line(proc.stderr))
    if proc.returncode == 1:
        category = classify_error(proc.stderr)
        return name, category, first_line(proc.stderr)

    model = load(os.path.join(test_dir, "model.onnx"), load_external_data=False)
    for data in sorted(glob.glob(os.path.join(test_dir, "test_data_set_*"))):
        out_dir = os.path.join(args.workdir, "outputs", name,
                               os.path.basename(data))
        os.makedirs(out_dir, exist_ok=True)
        command = [args.fuse_run, artifact, "--outputs", out_dir]
        if model.graph.input:
            command += ["--inputs", data]
        try:
            run = subprocess.run(command,
                                 capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return name, "fail", "fuse-run timed out"
        if run.returncode != 0:
            kind = "crashed" if run.returncode < 0 else "failed"
            return name, "fail", "fuse-run %s: %s" % (kind, first_line(run.stderr))
        for k in range(len(model.graph.output)):
            expected_path = os.path.join(data, "output_%d.pb" % k)
            if not os.path.exists(expected_path):
                continue
            want = numpy_helper.to_array(TensorProto.FromString(
                open(expected_path, "rb").read()))
            have = numpy_helper.to_array(TensorProto.FromString(
                open(os.path.join(out_dir, "output_%d.pb" % k), "rb").read()))
            if have.shape != want.shape:
                return name, "fail", "output %d: shape %s, expected %s" % (
                    k, have.shape, want.shape)
            if want.dtype.kind not in "biufc":
                # bfloat16 and friends (ml_dtypes): compare as float32.
                want = want.astype(np.float32)
                have = have.astype(np.float32)
            if want.dtype.kind in "fc":
                ok = np.allclose(have, want, rtol=RTOL, atol=ATOL,
                                 equal_nan=True)
            else:
                ok = np.array_equal(have, want)
            if not ok:
                diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
                return name, "fail", "output %d: max abs error %.3g" % (
                    k, np.nanmax(diff) if diff.size else 0)
    return name, "pass", ""


def op_of(test_name):
    """test_conv_with_strides_padding -> conv (the case file's name)."""
    parts = test_name[len("test_"):].split("_")
    return parts[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fuse-compile", required=True)
    p.add_argument("--fuse-run", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--filter", default="")
    p.add_argument("--show", nargs="*", default=["fail"],
                   help="categories whose tests to list (default: fail)")
    p.add_argument("--fail-on-failure", action="store_true")
    args = p.parse_args()

    os.makedirs(os.path.join(args.workdir, "artifacts"), exist_ok=True)
    generate(args.workdir)
    tests = sorted(d for d in glob.glob(os.path.join(args.workdir, "node", "*"))
                   if os.path.isdir(d) and re.search(args.filter,
                                                     os.path.basename(d)))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda t: run_test(t, args), tests))

    counts = collections.Counter(category for _, category, _ in results)
    for category in args.show:
        listed = [(n, why) for n, c, why in results if c == category]
        if listed:
            print("%s (%d):" % (category, len(listed)))
            for n, why in listed:
                print("  %s: %s" % (n, why))
    passing_ops = {op_of(n) for n, c, _ in results if c == "pass"}
    failing_ops = sorted({op_of(n) for n, c, _ in results if c == "fail"})
    print("conformance: %d node tests: %d pass, %d fail, %d unsupported-op, "
          "%d unsupported-feature" % (
              len(results), counts["pass"], counts["fail"],
              counts["unsupported-op"], counts["unsupported-feature"]))
    print("conformance: operators with a passing test: %d; with a failing "
          "test: %s" % (len(passing_ops), ", ".join(failing_ops) or "none"))
    return 1 if args.fail_on_failure and counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
