"""Bad models, bad artifacts and bad calls raise the documented exception,
with the compiler's or the runtime's message."""

import models  # test/Numerics/Inputs/models.py
import numpy as np
import pytest
import onnx
from onnx import TensorProto, helper

import fuse


@pytest.fixture(scope="module")
def session():
    # Inputs x: float32[2,3,5,16], mask: float32[1,1,1,16]; outputs y, z.
    return fuse.InferenceSession(fuse.compile(models.MODELS["softmax"]()))


@pytest.fixture(scope="module")
def feeds():
    return {"x": np.zeros((2, 3, 5, 16), np.float32),
            "mask": np.zeros((1, 1, 1, 16), np.float32)}


def test_hierarchy():
    assert issubclass(fuse.InvalidArgument, ValueError)
    for error in (fuse.CompileError, fuse.ArtifactError, fuse.TargetError,
                  fuse.DeviceError, fuse.InvalidArgument):
        assert issubclass(error, fuse.FuseError)
    assert issubclass(fuse.FuseError, RuntimeError)


# Compiling.

def test_not_a_model():
    with pytest.raises(fuse.CompileError,
                       match=r"<bytes>: error: not a valid ONNX model"):
        fuse.compile(b"this is not an onnx model\x01\xff\xff")


def test_output_is_the_model(tmp_path):
    # The model (here through a hard link) is never the output: refused,
    # and the file is as it was.
    path = tmp_path / "model.onnx"
    onnx.save(models.MODELS["softmax"](), str(path))
    before = path.read_bytes()
    (tmp_path / "link.onnx").hardlink_to(path)
    with pytest.raises(fuse.CompileError,
                       match=r"'.*link.onnx' is the model \('.*model.onnx'\), "
                             r"which this run reads"):
        fuse.compile(str(path), output=str(tmp_path / "link.onnx"),
                     target="cpu")
    assert path.read_bytes() == before


def test_unsupported_operator():
    graph = helper.make_graph(
        [helper.make_node("Unique", ["x"], ["y"], name="unique_7")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(fuse.CompileError) as info:
        fuse.compile(model)
    assert "node 'unique_7': unsupported operator 'Unique' " \
           "(domain 'ai.onnx', opset 17)" in str(info.value)
    assert ":0:0" not in str(info.value)


def test_external_data_needs_a_file(tmp_path):
    """Weights in a side file are read from the model's folder: a path
    compiles, the same model as bytes cannot."""
    path = str(tmp_path / "m.onnx")
    onnx.save(models.MODELS["conv_bias_relu"](), path,
              save_as_external_data=True, location="m.onnx.data",
              size_threshold=0)
    fuse.compile(path)
    refs = onnx.load(path, load_external_data=False)
    with pytest.raises(fuse.CompileError,
                       match="given as bytes, so there is no folder"):
        fuse.compile(refs)


def test_bad_arguments(tmp_path):
    model = models.MODELS["conv_bias_relu"]()
    with pytest.raises(FileNotFoundError, match="no ONNX model at"):
        fuse.compile(str(tmp_path / "missing.onnx"))
    with pytest.raises(TypeError, match="must be a path, bytes or an "
                                        "onnx.ModelProto, not int"):
        fuse.compile(42)
    with pytest.raises(ValueError, match="target must be cpu or cuda, not "
                                         "'tpu'"):
        fuse.compile(model, target="tpu")
    with pytest.raises(ValueError, match="strategy must be auto, generated "
                                         "or library"):
        fuse.compile(model, strategy="fast")
    with pytest.raises(ValueError, match="precision must be auto, fp32, "
                                         "tf32, fp16 or bf16, not 'fp8'"):
        fuse.compile(model, precision="fp8")
    with pytest.raises(ValueError, match="io_precision must be model, fp32, "
                                         "fp16 or bf16, not 'tf32'"):
        fuse.compile(model, io_precision="tf32")
    with pytest.raises(TypeError, match="keep_fp32 must be a sequence of "
                                        "node-name patterns"):
        fuse.compile(model, keep_fp32="conv*")
    with pytest.raises(ValueError, match="cpu must be a comma-separated "
                                         "list of x86-64, .* not "
                                         "'pentium'"):
        fuse.compile(model, cpu="pentium")
    with pytest.raises(ValueError, match=r"input_shapes\['x'\]: -1 is not "
                                         "a dimension"):
        fuse.compile(model, input_shapes={"x": [-1, 3, 16, 16]})
    with pytest.raises(fuse.CompileError,
                       match="--input-shape names 'z', which is not a "
                             "graph input"):
        fuse.compile(model, input_shapes={"z": [1]})
    with pytest.raises(fuse.CompileError, match="has rank 2 but the model "
                                                "declares 'x' with rank 4"):
        fuse.compile(model, input_shapes={"x": [2, 3]})


# Loading.

def test_bad_artifacts(tmp_path):
    with pytest.raises(fuse.ArtifactError, match="not a fuse artifact "
                                                 r"\(bad magic\)"):
        fuse.InferenceSession(b"garbage")
    with pytest.raises(fuse.ArtifactError, match="cannot open '.*missing"
                                                 ".fbin': No such file"):
        fuse.InferenceSession(str(tmp_path / "missing.fbin"))
    artifact = fuse.compile(models.MODELS["conv_bias_relu"]())
    with pytest.raises(fuse.ArtifactError):
        fuse.InferenceSession(artifact[:len(artifact) // 2])
    with pytest.raises(TypeError):
        fuse.InferenceSession(42)


def test_cuda_artifact_without_a_gpu():
    try:
        import ctypes
        ctypes.CDLL("libcuda.so.1")
        pytest.skip("this machine has a CUDA driver")
    except OSError:
        pass
    artifact = fuse.compile(models.MODELS["conv_bias_relu"](),
                            target="cuda", arch="sm_90")
    with pytest.raises(fuse.TargetError,
                       match=r"CUDA driver \(libcuda.so.1\) not found"):
        fuse.InferenceSession(artifact)


def test_gpu_sms():
    # The grids' SM count goes to the compile (recorded as fuse-compile's
    # flag in the artifact); one out of range is refused before it.
    artifact = fuse.compile(models.MODELS["conv_bias_relu"](), target="cuda",
                            arch="sm_80", sms=7)
    assert b"--gpu-arch=sm_80 --gpu-sms=7" in artifact
    artifact = fuse.compile(models.MODELS["conv_bias_relu"](), target="cuda",
                            arch="sm_80", sms=np.int64(9))
    assert b"--gpu-arch=sm_80 --gpu-sms=9" in artifact
    for bad in (-1, 5000, 2.5, True):
        with pytest.raises(ValueError, match=r"sms must be an int from 1 "
                                             r"to 4096"):
            fuse.compile(models.MODELS["conv_bias_relu"](), target="cuda",
                         sms=bad)


# Running.

def test_wrong_dtype(session, feeds):
    with pytest.raises(fuse.InvalidArgument,
                       match=r"input 'x' is float64 but the model takes "
                             r"float32\[2,3,5,16\] \(numpy float32\)"):
        session.run(None, {**feeds, "x": feeds["x"].astype(np.float64)})


def test_wrong_shape(session, feeds):
    with pytest.raises(fuse.InvalidArgument,
                       match=r"input 'mask' has shape \[16,1,1,1\] but the "
                             r"model takes float32\[1,1,1,16\]"):
        session.run(None, {**feeds, "mask": feeds["mask"].T.copy()})


def test_unknown_and_missing_inputs(session, feeds):
    with pytest.raises(fuse.InvalidArgument,
                       match="unknown input 'y'; the model's inputs are "
                             "'x', 'mask'"):
        session.run(None, {**feeds, "y": feeds["x"]})
    with pytest.raises(fuse.InvalidArgument,
                       match=r"missing input 'mask' \(float32\[1,1,1,16\]\)"):
        session.run(None, {"x": feeds["x"]})


def test_unknown_output_and_plan(session, feeds):
    with pytest.raises(fuse.InvalidArgument,
                       match="unknown output 'w'; the model's outputs are "
                             "'y', 'z'"):
        session.run(["y", "w"], feeds)
    with pytest.raises(fuse.InvalidArgument,
                       match="unknown plan 'reference'; the artifact has "
                             "'main' .compile with reference=True"):
        session.run(None, feeds, plan="reference")


def test_not_arrays(session, feeds):
    with pytest.raises(TypeError, match="input 'x' must be a numpy array "
                                        r"\(float32\), not str"):
        session.run(None, {**feeds, "x": "zeros"})
    with pytest.raises(TypeError, match="the feeds must be a dict"):
        session.run(None, [feeds["x"], feeds["mask"]])
    with pytest.raises(TypeError, match="output_names must be a list"):
        session.run("y", feeds)
    # A list of numbers is converted, then checked like an array.
    with pytest.raises(fuse.InvalidArgument, match="input 'x' is float64"):
        session.run(None, {**feeds, "x": np.zeros((2, 3, 5, 16)).tolist()})


def test_profile_arguments(session):
    with pytest.raises(fuse.InvalidArgument, match="iterations .0. must be "
                                                   "at least 1"):
        session.profile(iterations=0)


def test_session_still_works(session, feeds):
    """After every error above, the session runs."""
    y, z = session.run(None, feeds)
    assert y.shape == (2, 3, 5, 16) and np.isfinite(y).all()
