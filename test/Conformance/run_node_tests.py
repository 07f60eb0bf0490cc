#!/usr/bin/env python3
"""Runs the ONNX backend node tests through fuse (cpu or cuda target).

    run_node_tests.py --fuse-compile BIN --fuse-run BIN --workdir DIR
                      [--target cpu|cuda] [--jobs N] [--filter REGEX]
                      [--show CATEGORY ...] [--fail-on-failure]

    # compile here, run elsewhere (the GPU machine has no LLVM):
    run_node_tests.py --fuse-compile BIN --workdir DIR --target cuda \
                      --compile-only --export OUT
    run_node_tests.py --run-only OUT --fuse-run BIN [--fail-on-failure]

The node tests are generated from the `onnx` package's own case definitions
(onnx.backend.test.case.node): for each, model.onnx and test_data_set_N/
with input_K.pb and output_K.pb, written under DIR/node/. Each test is
compiled with `fuse-compile --target=T --no-reference`, run by fuse-run on
every data set, and its outputs compared with the expected ones
(|fuse - expected| <= atol + rtol * |expected|, rtol 1e-3 (float16 and
bfloat16: two units in the last place, 2^-9 and 2^-6), atol 1e-5; NaN matches
NaN). Every test ends in one category:

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

--compile-only stops after fuse-compile; with --export OUT it copies what a
run needs (each compiled test's model and data sets, its artifact, and
manifest.json with every test's compile result) to OUT, which
--run-only OUT later runs and compares, without fuse-compile or the
generator.
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
from onnx import TensorProto, load, numpy_helper

RTOL, ATOL = 1e-3, 1e-5
# Two units in the last place at 1 of the narrow float types: what fuse
# and the reference may differ by after the chain of ops of an expanded
# function (Attention), each op rounding in its own place.
NARROW_RTOL = {"float16": 2.0 ** -9, "bfloat16": 2.0 ** -6}


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
                       "needs a static shape", "needs a constant",
                       "does not support",
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


# Integer inputs this small that a refused test feeds are taken for shapes,
# axes or pads, and fixed to their values (--input-value) on a second try;
# so are float ones that the error names as needing a constant (Resize's
# 'scales' and 'roi').
MAX_FIXED_ELEMENTS = 64
FLOAT_TYPES = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16)


def fixable_inputs(test_dir, error=""):
    """{input name: input_K.pb of data set 0} for the small integer inputs,
    and the small float inputs `error` names ('NAME'), whose value is the
    same in every data set."""
    model = load(os.path.join(test_dir, "model.onnx"), load_external_data=False)
    sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    fixed = {}
    for k, info in enumerate(model.graph.input):
        elem_type = info.type.tensor_type.elem_type
        named = elem_type in FLOAT_TYPES and "'%s'" % info.name in error
        if elem_type not in (TensorProto.INT32, TensorProto.INT64) and \
                not named:
            continue
        paths = [os.path.join(d, "input_%d.pb" % k) for d in sets]
        if not paths or not all(os.path.exists(p) for p in paths):
            continue
        values = [open(p, "rb").read() for p in paths]
        first = numpy_helper.to_array(TensorProto.FromString(values[0]))
        if first.size <= MAX_FIXED_ELEMENTS and all(
                v == values[0] for v in values):
            fixed[info.name] = paths[0]
    return fixed


def fuse_compile(test_dir, artifact, args, extra=()):
    # One x86-64 level (the portable one) unless --compile-arg names
    # others: the tests check each op's numerics, and the default's second
    # level would double the compile time.
    cpu = [] if args.target != "cpu" or any(
        a.startswith("--cpu") for a in args.compile_arg) else ["--cpu=x86-64"]
    return subprocess.run(
        [args.fuse_compile, os.path.join(test_dir, "model.onnx"), "-o",
         artifact, "--target=" + args.target, "--no-reference"] + cpu +
        args.compile_arg + list(extra),
        capture_output=True, text=True, timeout=300)


def compile_test(test_dir, args):
    """Returns (name, category, why); category "compiled" on success. A test
    refused because a shape, or an operand that must be a constant (CumSum's
    axis, Trilu's k, Resize's scales), depends on an input it feeds is
    compiled again with its small integer inputs (and the float ones the
    error names) fixed to the test's values; the names of those go to
    ARTIFACT.fixed, for run_compiled."""
    name = os.path.basename(test_dir)
    artifact = os.path.join(args.workdir, "artifacts", name + ".fbin")
    if os.path.exists(artifact + ".fixed"):
        os.remove(artifact + ".fixed")
    try:
        proc = fuse_compile(test_dir, artifact, args)
        fixed = fixable_inputs(test_dir, proc.stderr) \
            if proc.returncode == 1 and any(
                s in proc.stderr for s in ("needs a static shape",
                                           "needs a constant")) \
            else {}
        if fixed:
            retry = fuse_compile(
                test_dir, artifact, args,
                ["--input-value=%s=%s" % item for item in fixed.items()])
            if retry.returncode == 0:
                with open(artifact + ".fixed", "w") as f:
                    json.dump(sorted(fixed), f)
            proc = retry
    except subprocess.TimeoutExpired:
        return name, "fail", "fuse-compile timed out"
    if proc.returncode < 0 or proc.returncode > 1:
        return name, "fail", "fuse-compile crashed (exit %d): %s" % (
            proc.returncode, first_line(proc.stderr))
    if proc.returncode == 1:
        category = classify_error(proc.stderr)
        return name, category, first_line(proc.stderr)
    return name, "compiled", ""


def run_test(test_dir, args):
    name = os.path.basename(test_dir)
    result = compile_test(test_dir, args)
    if result[1] != "compiled":
        return result
    return run_compiled(test_dir,
                        os.path.join(args.workdir, "artifacts", name + ".fbin"),
                        os.path.join(args.workdir, "outputs", name), args)


def run_compiled(test_dir, artifact, outputs, args):
    """Runs a compiled test on each data set and compares its outputs."""
    name = os.path.basename(test_dir)
    model = load(os.path.join(test_dir, "model.onnx"), load_external_data=False)
    for data in sorted(glob.glob(os.path.join(test_dir, "test_data_set_*"))):
        out_dir = os.path.join(outputs, os.path.basename(data))
        os.makedirs(out_dir, exist_ok=True)
        command = [args.fuse_run, artifact, "--outputs", out_dir]
        fixed = []
        if os.path.exists(artifact + ".fixed"):
            with open(artifact + ".fixed") as f:
                fixed = json.load(f)
        if fixed:
            # The rest of the inputs, one file each, bound by name.
            for k, info in enumerate(model.graph.input):
                if info.name not in fixed:
                    command += ["--inputs",
                                os.path.join(data, "input_%d.pb" % k)]
        elif model.graph.input:
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
            # A narrow float may differ from the reference by roundings of
            # its own type (fuse sums in f32; the reference rounds at other
            # steps).
            rtol = max(RTOL, NARROW_RTOL.get(want.dtype.name, 0.0))
            if want.dtype.kind not in "biufc":
                # bfloat16 and friends (ml_dtypes): compare as float32.
                want = want.astype(np.float32)
                have = have.astype(np.float32)
            if want.dtype.kind in "fc":
                ok = np.allclose(have, want, rtol=rtol, atol=ATOL,
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


def export(results, args):
    """Copies what --run-only needs for the compiled tests to args.export."""
    if os.path.exists(args.export):
        shutil.rmtree(args.export)
    os.makedirs(os.path.join(args.export, "artifacts"))
    for name, category, _ in results:
        if category != "compiled":
            continue
        shutil.copytree(os.path.join(args.workdir, "node", name),
                        os.path.join(args.export, "node", name))
        shutil.copy(os.path.join(args.workdir, "artifacts", name + ".fbin"),
                    os.path.join(args.export, "artifacts"))
        fixed = os.path.join(args.workdir, "artifacts", name + ".fbin.fixed")
        if os.path.exists(fixed):
            shutil.copy(fixed, os.path.join(args.export, "artifacts"))
    with open(os.path.join(args.export, "manifest.json"), "w") as f:
        json.dump({"target": args.target, "results": results}, f, indent=0)


def run_exported(args):
    """--run-only: runs the compiled tests of an exported directory."""
    root = args.run_only
    with open(os.path.join(root, "manifest.json")) as f:
        manifest = json.load(f)
    args.target = manifest["target"]
    entries = [tuple(r) for r in manifest["results"]
               if re.search(args.filter, r[0])]

    def one(entry):
        name, category, why = entry
        if category != "compiled":
            return entry
        return run_compiled(os.path.join(root, "node", name),
                            os.path.join(root, "artifacts", name + ".fbin"),
                            os.path.join(root, "outputs", name), args)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        return list(pool.map(one, entries))


def summarize(results, args):
    counts = collections.Counter(category for _, category, _ in results)
    for category in args.show:
        listed = [(n, why) for n, c, why in results if c == category]
        if listed:
            print("%s (%d):" % (category, len(listed)))
            for n, why in listed:
                print("  %s: %s" % (n, why))
    passing_ops = {op_of(n) for n, c, _ in results if c == "pass"}
    failing_ops = sorted({op_of(n) for n, c, _ in results if c == "fail"})
    compiled = " (compiled, not run: %d)" % counts["compiled"] \
        if counts["compiled"] else ""
    print("conformance (%s): %d node tests: %d pass, %d fail, %d "
          "unsupported-op, %d unsupported-feature%s" % (
              args.target, len(results), counts["pass"], counts["fail"],
              counts["unsupported-op"], counts["unsupported-feature"],
              compiled))
    print("conformance (%s): operators with a passing test: %d; with a "
          "failing test: %s" % (args.target, len(passing_ops),
                                ", ".join(failing_ops) or "none"))
    return 1 if args.fail_on_failure and counts["fail"] else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fuse-compile")
    p.add_argument("--fuse-run")
    p.add_argument("--workdir")
    p.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="one more fuse-compile argument (repeatable)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--filter", default="")
    p.add_argument("--show", nargs="*", default=["fail"],
                   help="categories whose tests to list (default: fail)")
    p.add_argument("--fail-on-failure", action="store_true")
    p.add_argument("--compile-only", action="store_true",
                   help="compile every test, run none")
    p.add_argument("--export", metavar="OUT",
                   help="with --compile-only: copy the compiled tests, "
                   "their artifacts and a manifest to OUT")
    p.add_argument("--run-only", metavar="OUT",
                   help="run the tests an earlier --export wrote to OUT")
    args = p.parse_args()

    if args.run_only:
        if not args.fuse_run:
            p.error("--run-only needs --fuse-run")
        return summarize(run_exported(args), args)
    if not args.fuse_compile or not args.workdir:
        p.error("--fuse-compile and --workdir are required")
    if not args.compile_only and not args.fuse_run:
        p.error("--fuse-run is required unless --compile-only")
    if args.export and not args.compile_only:
        p.error("--export needs --compile-only")

    os.makedirs(os.path.join(args.workdir, "artifacts"), exist_ok=True)
    generate(args.workdir)
    tests = sorted(d for d in glob.glob(os.path.join(args.workdir, "node", "*"))
                   if os.path.isdir(d) and re.search(args.filter,
                                                     os.path.basename(d)))
    step = compile_test if args.compile_only else run_test
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda t: step(t, args), tests))
    if args.export:
        export(results, args)
    return summarize(results, args)


if __name__ == "__main__":
    sys.exit(main())
