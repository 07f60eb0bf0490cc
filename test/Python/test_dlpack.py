"""InferenceSession.run_dlpack, new_session and device= on the cpu target,
where DLPack tensors are host tensors (numpy arrays); the GPU side (torch
tensors, the caller's stream) is bench/python_session.py on the H100."""

import gc

import models  # test/Numerics/Inputs/models.py
import numpy as np
import pytest

import fuse
from common import random_inputs


@pytest.fixture(scope="module")
def model():
    return models.MODELS["conv_bias_relu"]()


@pytest.fixture(scope="module")
def artifact(model):
    return fuse.compile(model)


def test_run_dlpack_matches_run(model, artifact):
    session = fuse.InferenceSession(artifact)
    feeds = random_inputs(model)
    want, = session.run(None, feeds)
    got, = session.run_dlpack(feeds)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    # Into the caller's tensor, which is returned.
    out = np.full(want.shape, np.nan, dtype=np.float32)
    result = session.run_dlpack(feeds, [out])
    assert result[0] is out
    np.testing.assert_array_equal(out, want)
    # The bindings do not outlive the call: run() takes numpy again, and
    # `out` is not written by it.
    out[...] = -1
    feeds2 = random_inputs(model, seed=5)
    want2, = session.run(None, feeds2)
    assert (out == -1).all()
    assert not np.array_equal(want2, want)


def test_run_dlpack_read_only(model, artifact):
    """A read-only array is an input like any other; an output must be
    writable."""
    session = fuse.InferenceSession(artifact)
    feeds = random_inputs(model)
    want, = session.run(None, feeds)
    x = feeds["x"].copy()
    x.setflags(write=False)
    got, = session.run_dlpack({"x": x})
    np.testing.assert_array_equal(got, want)
    out = np.zeros(want.shape, np.float32)
    out.setflags(write=False)
    with pytest.raises(fuse.InvalidArgument, match="output 'y' is read-only: "
                       "run_dlpack writes its outputs into it"):
        session.run_dlpack(feeds, [out])
    assert not out.any()


def test_run_dlpack_output_not_wanted(model, artifact):
    session = fuse.InferenceSession(artifact)
    assert session.run_dlpack(random_inputs(model), [None]) == [None]


def test_run_dlpack_errors(model, artifact):
    session = fuse.InferenceSession(artifact)
    feeds = random_inputs(model)
    x = feeds["x"]
    with pytest.raises(fuse.InvalidArgument, match="input 'x' is float64 but "
                       r"the model takes float32\[2,3,16,16\]"):
        session.run_dlpack({"x": x.astype(np.float64)})
    with pytest.raises(fuse.InvalidArgument, match="input 'x' has the wrong "
                       "shape"):
        session.run_dlpack({"x": x[:1]})
    with pytest.raises(TypeError, match="C-contiguous"):
        session.run_dlpack({"x": np.asfortranarray(x)})
    with pytest.raises(fuse.InvalidArgument, match="missing input 'x'"):
        session.run_dlpack({}, [None])
    with pytest.raises(fuse.InvalidArgument, match="one output tensor per "
                       "output"):
        session.run_dlpack(feeds, [])
    with pytest.raises(fuse.InvalidArgument, match="output 'y' is float64"):
        session.run_dlpack(feeds, [np.empty((2, 8, 16, 16))])
    with pytest.raises(fuse.InvalidArgument, match="takes no stream"):
        session.run_dlpack(feeds, stream=7)
    with pytest.raises(fuse.InvalidArgument, match="cannot allocate outputs "
                       "like a list"):
        session.run_dlpack({"x": x.tolist()})


def test_new_session_shares_and_outlives(model, artifact):
    first = fuse.InferenceSession(artifact)
    second = first.new_session()
    assert isinstance(second, fuse.InferenceSession)
    assert second.plans == first.plans and second.target == "cpu"
    a, b = random_inputs(model, seed=1), random_inputs(model, seed=2)
    want_a, = first.run(None, a)
    want_b, = second.run(None, b)
    # Each session keeps its own activations and outputs.
    got_a, = first.run(None, a)
    np.testing.assert_array_equal(got_a, want_a)
    del first
    gc.collect()
    got_b, = second.run(None, b)
    np.testing.assert_array_equal(got_b, want_b)
    third = second.new_session()
    np.testing.assert_array_equal(third.run(None, a)[0], want_a)


def test_device_option(artifact):
    assert fuse.InferenceSession(artifact, device=0).device_index == 0
    with pytest.raises(fuse.InvalidArgument, match="cpu target takes device "
                       "0 only"):
        fuse.InferenceSession(artifact, device=1)


class _Device:
    def __init__(self, type, index=None):
        self.type, self.index = type, index

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type,
                                                               self.index)


class _DType:
    """torch.float32 is an object whose str() is 'torch.float32'."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


class _TorchLike:
    """What run_dlpack reads of a torch.Tensor (its fast path, which does
    not go through __dlpack__), over a numpy array."""
    __module__ = "torch"

    def __init__(self, array, dtype="torch.float32", device=None,
                 contiguous=True):
        self.array, self.dtype = array, _DType(dtype)
        self.shape = tuple(array.shape)
        self.device = device or _Device("cpu")
        self.contiguous = contiguous

    def data_ptr(self):
        return self.array.ctypes.data

    def is_contiguous(self):
        return self.contiguous


def test_torch_tensor_path(model, artifact):
    session = fuse.InferenceSession(artifact)
    feeds = random_inputs(model)
    want, = session.run(None, feeds)
    out = np.zeros(want.shape, np.float32)
    session.run_dlpack({"x": _TorchLike(feeds["x"])}, [_TorchLike(out)])
    np.testing.assert_array_equal(out, want)
    x = feeds["x"]
    with pytest.raises(fuse.InvalidArgument, match="input 'x' is "
                       "torch.float64 but the model takes float32"):
        session.run_dlpack({"x": _TorchLike(x, "torch.float64")}, [None])
    with pytest.raises(fuse.InvalidArgument, match=r"has shape \(2, 3, 16\)"):
        session.run_dlpack({"x": _TorchLike(x[:, :, 0])}, [None])
    with pytest.raises(fuse.InvalidArgument, match="not contiguous"):
        session.run_dlpack({"x": _TorchLike(x, contiguous=False)}, [None])
    with pytest.raises(fuse.InvalidArgument, match="input 'x' is on cuda:0 "
                       "but the model runs on the host"):
        session.run_dlpack({"x": _TorchLike(x, device=_Device("cuda", 0))},
                           [None])
    bad = _TorchLike(x)
    bad.data_ptr = lambda: "nowhere"
    with pytest.raises(TypeError, match=r"cannot read its data_ptr\(\)"):
        session.run_dlpack({"x": bad}, [None])
