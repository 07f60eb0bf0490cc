"""docs/tutorial/serve.py (steps 2 to 4 of docs/tutorial.md) on a small
model, so that the tutorial keeps working; the tutorial's C++ example is
built by test/Runtime/find-package.test."""

import os
import pathlib
import subprocess
import sys

import models  # test/Numerics/Inputs/models.py
import onnx

import fuse

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_serve_py(tmp_path):
    model = tmp_path / "model.onnx"
    onnx.save(models.MODELS["conv_bias_relu"](), model)
    package = pathlib.Path(fuse.__file__).resolve().parents[1]
    env = dict(os.environ,
               PYTHONPATH=os.pathsep.join(
                   [str(package)] + os.environ.get("PYTHONPATH", "").split(
                       os.pathsep)))
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "tutorial" / "serve.py"),
         str(model), "--artifact", str(tmp_path / "model.fbin")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NodeArg(name='x', type='tensor(float)', shape=[2, 3, 16, 16])" \
        in done.stdout
    assert "check-onnx: PASS" in done.stdout
