"""`python3 -m fuse check-onnx ARTIFACT MODEL`: fuse against onnxruntime.

Exit status: 0 every output within the tolerance, 1 a failed check or an
error (message on stderr), 2 bad usage."""

import argparse
import sys

import numpy as np


def _check_onnx(args):
    from . import FuseError, InferenceSession
    from ._check import check_onnx
    try:
        feed = None
        if args.inputs:
            with np.load(args.inputs) as archive:
                feed = {name: archive[name] for name in archive.files}
        session = InferenceSession(args.artifact)
        report = check_onnx(session, args.model, feed,
                            tolerance=args.tolerance, seed=args.seed,
                            plan=args.plan)
    except (FuseError, OSError, ImportError, ValueError, TypeError) as error:
        print(f"fuse check-onnx: {error}", file=sys.stderr)
        return 1
    print(report)
    return 0 if report.passed else 1


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m fuse",
        description="fuse's command-line helpers that need Python.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    check = commands.add_parser(
        "check-onnx",
        help="run an artifact and onnxruntime on the same inputs and compare "
             "every output",
        description="Runs ARTIFACT (fuse's runtime) and MODEL (onnxruntime, "
                    "CPU, fp32) on the same inputs and prints each output's "
                    "max abs and relative L2 error, then 'check-onnx: PASS' "
                    "(exit 0) or 'FAIL' (exit 1). fuse-run ARTIFACT "
                    "--check-onnx MODEL runs this.")
    check.add_argument("artifact", help="the .fbin artifact")
    check.add_argument("model", help="the ONNX model it was compiled from")
    check.add_argument("--inputs", metavar="FILE.npz",
                       help="inputs by name (default: seeded random values: "
                            "floats uniform in [-1, 1), integers in [0, 10))")
    check.add_argument("--seed", type=int, default=0,
                       help="seed of the random inputs (default 0)")
    check.add_argument("--tolerance", type=float, default=None,
                       help="largest relative L2 error of an output "
                            "(default: the artifact's precision's: 1e-4 "
                            "fp32, 5e-3 tf32 and fp16, 3e-2 bf16)")
    check.add_argument("--plan", default="main",
                       help="the artifact's plan to run (default main)")
    args = parser.parse_args(argv)
    if args.command == "check-onnx":
        return _check_onnx(args)
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
