"""fuse's outputs against onnxruntime's on the same inputs (check_onnx,
`python3 -m fuse check-onnx`, `fuse-run --check-onnx`)."""

import dataclasses
from typing import List

import numpy as np

from ._errors import InvalidArgument


@dataclasses.dataclass
class OutputCheck:
    """One output compared: fuse's against onnxruntime's.

    max_abs_error: the largest |fuse - onnxruntime|; rel_l2:
    ||fuse - onnxruntime|| / ||onnxruntime|| (the plain norm of the
    difference when onnxruntime's output is all zeros). A NaN or infinity
    where the other has none, a shape that differs, or (integer and bool
    outputs) any element that differs fails the output; `reason` says
    which."""
    name: str
    shape: tuple
    dtype: str
    max_abs_error: float
    rel_l2: float
    passed: bool
    reason: str = ""


class CheckReport:
    """What check_onnx found: `outputs` (OutputCheck, in the artifact's
    output order), `passed` (every output within `tolerance`), and `str()`
    a table, one row per output, then "check-onnx: PASS" or "FAIL"."""

    def __init__(self, outputs: List[OutputCheck], tolerance: float):
        self.outputs = outputs
        self.tolerance = tolerance

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outputs)

    def __bool__(self):
        return self.passed

    def __iter__(self):
        return iter(self.outputs)

    def __repr__(self):
        return (f"<CheckReport {len(self.outputs)} outputs, "
                f"{'PASS' if self.passed else 'FAIL'}>")

    def __str__(self):
        rows = [("output", "dtype", "shape", "max abs error", "rel. L2",
                 "result")]
        for o in self.outputs:
            rows.append((o.name, o.dtype, "x".join(map(str, o.shape)) or
                         "scalar", f"{o.max_abs_error:.3g}",
                         f"{o.rel_l2:.3g}",
                         "ok" if o.passed else "FAIL: " + o.reason))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                 for r in rows]
        lines.append(f"check-onnx: {'PASS' if self.passed else 'FAIL'} "
                     f"(relative L2 error within {self.tolerance:g})")
        return "\n".join(lines)


def random_feed(session, seed=0):
    """Seeded inputs for every input of `session`: floats uniform in
    [-1, 1), integers in [0, 10) (as fuse-run's), bools 0/1."""
    rng = np.random.default_rng(seed)
    feed = {}
    for arg in session.get_inputs():
        dtype = np.dtype(arg.dtype)
        if dtype == np.bool_:
            feed[arg.name] = rng.integers(0, 2, arg.shape).astype(np.bool_)
        elif np.issubdtype(dtype, np.integer):
            feed[arg.name] = rng.integers(0, 10, arg.shape).astype(dtype)
        else:
            feed[arg.name] = rng.uniform(-1, 1, arg.shape).astype(dtype)
    return feed


def _compare(name, have, want, tolerance):
    have, want = np.asarray(have), np.asarray(want)
    shape = tuple(have.shape)
    if have.shape != want.shape:
        return OutputCheck(name, shape, str(have.dtype), float("nan"),
                           float("nan"), False,
                           f"shape {list(have.shape)}, onnxruntime's "
                           f"{list(want.shape)}")
    if have.dtype.kind in "biu" or want.dtype.kind in "biu":
        differ = int(np.count_nonzero(have != want))
        diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
        norm = np.linalg.norm(want.astype(np.float64))
        err = float(np.linalg.norm(diff) / (norm if norm else 1.0))
        return OutputCheck(name, shape, str(have.dtype),
                           float(diff.max()) if diff.size else 0.0, err,
                           differ == 0,
                           f"{differ} of {have.size} elements differ"
                           if differ else "")
    h, w = have.astype(np.float64), want.astype(np.float64)
    finite_h, finite_w = np.isfinite(h), np.isfinite(w)
    special = ~(finite_h & finite_w)
    # NaNs match NaNs, infinities the same infinity.
    same_special = (np.isnan(h) & np.isnan(w)) | (h == w)
    mismatched = int(np.count_nonzero(special & ~same_special))
    both = finite_h & finite_w
    diff = np.abs(h[both] - w[both])
    norm = np.linalg.norm(w[both])
    err = float(np.linalg.norm(diff) / (norm if norm else 1.0))
    max_abs = float(diff.max()) if diff.size else 0.0
    if mismatched:
        return OutputCheck(name, shape, str(have.dtype), max_abs, err, False,
                           f"{mismatched} NaN or infinite elements differ")
    return OutputCheck(name, shape, str(have.dtype), max_abs, err,
                       err <= tolerance,
                       "" if err <= tolerance else
                       f"relative L2 error {err:.3g} > {tolerance:g}")


# The relative L2 error each precision implies against float32
# onnxruntime (docs/precision.md): float32 1e-4, TF32 and fp16 5e-3
# (10-bit mantissas), bf16 3e-2 (7 bits).
PRECISION_TOLERANCE = {"fp32": 1e-4, "tf32": 5e-3, "fp16": 5e-3,
                       "bf16": 3e-2}


def precision_of(session):
    """The precision an artifact was compiled in: its --precision flag, else
    the half type of its inputs or outputs (a model exported in half
    precision), else fp32."""
    import re
    match = re.search(r"--precision=(\w+)", session.compile_flags or "")
    if match and match.group(1) in PRECISION_TOLERANCE:
        return match.group(1)
    types = {a.type for a in session.get_inputs() + session.get_outputs()}
    if "tensor(float16)" in types:
        return "fp16"
    if "tensor(bfloat16)" in types:
        return "bf16"
    return "fp32"


def check_onnx(artifact, model, input_feed=None, *, tolerance=None,
               seed=0, plan="main"):
    """Runs `artifact` and onnxruntime (CPU, fp32) on the same inputs and
    compares every output of the artifact with onnxruntime's of the same
    name; returns a CheckReport (truthy when every output passes).

    artifact: an InferenceSession, a .fbin path or an artifact's bytes.
    model: the ONNX model it was compiled from: a path (external data is
        read from its folder), bytes or an onnx.ModelProto.
    input_feed: {name: array}; default: seeded random inputs
        (random_feed(session, seed)).
    tolerance: the largest relative L2 error an output may have; default
        the artifact's precision's (precision_of): 1e-4 for fp32, as
        docs/models.md's benchmarks, 5e-3 for tf32 and fp16, 3e-2 for
        bf16.

    Needs the onnxruntime package. Raises InvalidArgument when the model's
    outputs do not include the artifact's, or for bfloat16 tensors (numpy
    and onnxruntime's Python API have no bfloat16).
    """
    from . import InferenceSession, _model_source
    try:
        import onnxruntime as ort
    except ImportError as error:
        raise ImportError("check_onnx needs onnxruntime (pip install "
                          "onnxruntime)") from error
    if tolerance is not None and (not isinstance(tolerance, (int, float))
                                  or not tolerance >= 0):
        raise InvalidArgument(f"tolerance must be a number >= 0, not "
                              f"{tolerance!r}")
    session = (artifact if isinstance(artifact, InferenceSession)
               else InferenceSession(artifact))
    if tolerance is None:
        tolerance = PRECISION_TOLERANCE[precision_of(session)]
    for arg in session.get_inputs() + session.get_outputs():
        if arg.type == "tensor(bfloat16)":
            raise InvalidArgument(f"'{arg.name}' is bfloat16, which "
                                  "onnxruntime's Python API cannot take or "
                                  "give")
    feed = random_feed(session, seed) if input_feed is None else input_feed
    options = ort.SessionOptions()
    options.log_severity_level = 3
    # A path stays a path: onnxruntime reads external data beside it.
    data, path = _model_source(model)
    reference = ort.InferenceSession(path if data is None else data, options,
                                     providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    known = {o.name for o in reference.get_outputs()}
    missing = [n for n in names if n not in known]
    if missing:
        raise InvalidArgument(
            f"the ONNX model has no output {', '.join(map(repr, missing))} "
            f"(its outputs: {', '.join(sorted(known))}): is it the model the "
            "artifact was compiled from?")
    feed = {k: np.asarray(v) for k, v in feed.items()}
    for arg in reference.get_inputs():
        if arg.name not in feed:
            raise InvalidArgument(
                f"the ONNX model takes an input '{arg.name}' that the "
                "artifact does not: is it the model the artifact was "
                "compiled from?")
        given = feed[arg.name].shape
        dims = arg.shape
        if len(dims) != len(given) or any(
                isinstance(d, int) and d != g for d, g in zip(dims, given)):
            raise InvalidArgument(
                f"input '{arg.name}' is {list(given)} for the artifact but "
                f"the ONNX model takes {list(dims)}: is it the model the "
                "artifact was compiled from?")
    have = session.run(None, feed, plan=plan)
    try:
        want = reference.run(
            names, {a.name: feed[a.name] for a in reference.get_inputs()})
    except Exception as error:  # onnxruntime's own exception types
        raise InvalidArgument(f"onnxruntime could not run the model: "
                              f"{error}") from error
    return CheckReport([_compare(n, h, w, tolerance)
                        for n, h, w in zip(names, have, want)], tolerance)
