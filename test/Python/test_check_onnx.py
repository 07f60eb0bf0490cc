"""fuse.check_onnx, `python3 -m fuse check-onnx` and `fuse-run
--check-onnx`: fuse's outputs against onnxruntime's, on the cpu target."""

import os
import subprocess
import sys

import models  # test/Numerics/Inputs/models.py
import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import fuse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))


@pytest.fixture(scope="module")
def gemm():
    model = models.MODELS["gemm_bias_relu"]()
    return model, fuse.compile(model)


def perturbed(model):
    """The model with one weight changed: same signature, other outputs."""
    wrong = onnx.ModelProto()
    wrong.CopyFrom(model)
    init = wrong.graph.initializer[0]
    array = numpy_helper.to_array(init).copy()
    array.flat[0] += 1.0
    init.CopyFrom(numpy_helper.from_array(array, init.name))
    return wrong


def test_passes(gemm):
    model, artifact = gemm
    report = fuse.check_onnx(artifact, model)
    assert report.passed and bool(report)
    (y,) = report.outputs
    assert (y.name, y.shape, y.dtype) == ("y", (4, 16), "float32")
    assert y.rel_l2 < 1e-6 and y.max_abs_error < 1e-5
    text = str(report)
    assert text.splitlines()[0].split() == [
        "output", "dtype", "shape", "max", "abs", "error", "rel.", "L2",
        "result"]
    assert text.endswith("check-onnx: PASS (relative L2 error within 0.0001)")


def test_precision_tolerance(gemm):
    """The default tolerance is the artifact's precision's: an fp16 compile
    passes at 5e-3, which is more than float32's 1e-4 allows."""
    model, _ = gemm
    half = fuse.compile(model, precision="fp16")
    report = fuse.check_onnx(half, model)
    assert report and report.tolerance == 5e-3, str(report)
    assert 1e-4 < report.outputs[0].rel_l2 < 5e-3
    assert not fuse.check_onnx(half, model, tolerance=1e-4)
    assert fuse.check_onnx(fuse.compile(model, precision="bf16"),
                           model).tolerance == 3e-2


def test_given_inputs_and_session(gemm):
    model, artifact = gemm
    session = fuse.InferenceSession(artifact)
    feed = {"x": np.random.default_rng(3).standard_normal((4, 32),
                                                         np.float32)}
    assert fuse.check_onnx(session, model.SerializeToString(), feed).passed


def test_fails_on_other_weights(gemm):
    model, artifact = gemm
    report = fuse.check_onnx(artifact, perturbed(model))
    assert not report.passed
    assert report.outputs[0].reason.startswith("relative L2 error ")
    assert "check-onnx: FAIL" in str(report)
    # A tolerance that admits it.
    assert fuse.check_onnx(artifact, perturbed(model), tolerance=1.0).passed


def test_integer_outputs_exact():
    model = models.MODELS["tensor_ops"]()
    artifact = fuse.compile(model)
    feed = {k: v for k, v in fuse._check.random_feed(
        fuse.InferenceSession(artifact)).items()}
    # tensor_ops gathers with its int64 input: indices in [0, 5).
    feed = {k: (v % 5 if v.dtype.kind == "i" else v) for k, v in feed.items()}
    report = fuse.check_onnx(artifact, model, feed)
    assert report.passed, str(report)


def test_wrong_model(gemm):
    _, artifact = gemm
    other = models.MODELS["conv_bias_relu"]()
    with pytest.raises(fuse.InvalidArgument,
                       match=r"input 'x' is \[4, 32\] for the artifact but "
                             r"the ONNX model takes \[2, 3, 16, 16\]"):
        fuse.check_onnx(artifact, other)
    renamed = onnx.ModelProto()
    renamed.CopyFrom(gemm[0])
    renamed.graph.output[0].name = "z"
    renamed.graph.node[-1].output[0] = "z"
    with pytest.raises(fuse.InvalidArgument, match="has no output 'y'"):
        fuse.check_onnx(artifact, renamed)
    with pytest.raises(fuse.InvalidArgument, match="tolerance must be"):
        fuse.check_onnx(artifact, gemm[0], tolerance=-1)


def run(args, **kwargs):
    env = dict(os.environ)
    package = os.path.dirname(os.path.dirname(fuse.__file__))
    env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
    env["FUSE_PYTHON"] = sys.executable
    return subprocess.run(args, capture_output=True, text=True, env=env,
                          **kwargs)


@pytest.fixture
def files(gemm, tmp_path):
    """The artifact, its model and the model with a changed weight, as
    files."""
    model, artifact = gemm
    fbin, good, bad = (tmp_path / "g.fbin", tmp_path / "g.onnx",
                       tmp_path / "bad.onnx")
    fbin.write_bytes(artifact)
    onnx.save(model, good)
    onnx.save(perturbed(model), bad)
    return fbin, good, bad


def test_command_line(files, tmp_path):
    fbin, good, bad = files
    command = [sys.executable, "-m", "fuse", "check-onnx"]
    ok = run(command + [str(fbin), str(good)])
    assert ok.returncode == 0, ok.stderr
    assert "check-onnx: PASS" in ok.stdout
    failed = run(command + [str(fbin), str(bad)])
    assert failed.returncode == 1 and "check-onnx: FAIL" in failed.stdout
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.ones((4, 32), np.float32))
    given = run(command + [str(fbin), str(good), "--inputs", str(inputs)])
    assert given.returncode == 0, given.stderr
    missing = run(command + [str(tmp_path / "none.fbin"), str(good)])
    assert missing.returncode == 1
    assert missing.stderr.startswith("fuse check-onnx: ")
    usage = run([sys.executable, "-m", "fuse"])
    assert usage.returncode == 2


def test_fuse_run(files):
    """fuse-run --check-onnx becomes `python3 -m fuse check-onnx`."""
    fuse_run = os.path.join(ROOT, "build", "bin", "fuse-run")
    if not os.path.exists(fuse_run):
        pytest.skip("no build/bin/fuse-run in this checkout")
    fbin, good, bad = files
    ok = run([fuse_run, str(fbin), "--check-onnx", str(good), "--seed", "7"])
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("output  dtype")
    failed = run([fuse_run, str(fbin), "--check-onnx", str(bad)])
    assert failed.returncode == 1 and "FAIL" in failed.stdout
    alone = run([fuse_run, str(fbin), "--check-onnx", str(good), "--bench"])
    assert alone.returncode == 2
    assert "--check-onnx runs on its own" in alone.stderr
