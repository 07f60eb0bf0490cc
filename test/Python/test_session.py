"""fuse.compile + fuse.InferenceSession on the cpu target, against
onnxruntime, at the lit numerics tests' tolerances (rtol 1e-4, atol 1e-5)."""

import os
import pathlib
import re
import threading

import models  # test/Numerics/Inputs/models.py

import numpy as np
import onnx
import pytest

import fuse
from common import assert_close, onnxruntime_outputs, random_inputs

# Fusion patterns and lowerings of the numerics suite; tensor_ops and
# mod_prelu take and give int64 tensors.
MODELS = ["conv_bias_relu", "gemm_bias_relu", "elementwise_chain",
          "multi_use", "softmax", "layernorm", "matmul_reshape",
          "tensor_ops", "mod_prelu"]
INT_HIGH = {"tensor_ops": 5}


@pytest.fixture(scope="module")
def conv_model():
    return models.MODELS["conv_bias_relu"]()


@pytest.fixture(scope="module")
def conv_artifact(conv_model):
    return fuse.compile(conv_model, reference=True)


@pytest.mark.parametrize("name", MODELS)
def test_matches_onnxruntime(name):
    model = models.MODELS[name]()
    session = fuse.InferenceSession(fuse.compile(model))
    feeds = random_inputs(model, int_high=INT_HIGH.get(name, 2))
    outputs = session.run(None, feeds)
    expected = onnxruntime_outputs(model, feeds)
    names = [o.name for o in model.graph.output]
    assert [o.name for o in session.get_outputs()] == names
    assert len(outputs) == len(expected)
    for out, have, want in zip(names, outputs, expected):
        assert_close(out, have, want)


def test_signature(conv_model, conv_artifact):
    session = fuse.InferenceSession(conv_artifact)
    (x,), (y,) = session.get_inputs(), session.get_outputs()
    assert (x.name, x.shape, x.type, x.dtype) == (
        "x", [2, 3, 16, 16], "tensor(float)", "float32")
    assert (y.name, y.shape, y.type) == ("y", [2, 8, 16, 16], "tensor(float)")
    assert repr(x) == "NodeArg(name='x', type='tensor(float)', " \
                      "shape=[2, 3, 16, 16])"
    assert session.target == "cpu" and session.arch == "x86-64"
    assert session.plans == ["main", "reference"]


def test_int64_signature():
    session = fuse.InferenceSession(
        fuse.compile(models.MODELS["mod_prelu"]()))
    types = {a.name: (a.type, a.dtype) for a in session.get_inputs()}
    assert types["i"] == ("tensor(int64)", "int64")


def test_model_forms_and_output_file(tmp_path, conv_model):
    """A path, bytes and a ModelProto compile to the same artifact; output=
    writes it; a session loads a str, a pathlib.Path or bytes."""
    path = tmp_path / "m.onnx"
    onnx.save(conv_model, str(path))
    from_proto = fuse.compile(conv_model)
    assert fuse.compile(path.read_bytes()) == from_proto
    out = tmp_path / "m.fbin"
    assert fuse.compile(str(path), output=out) == out
    assert out.read_bytes() == from_proto
    feeds = random_inputs(conv_model)
    want, = onnxruntime_outputs(conv_model, feeds)
    for source in (str(out), pathlib.Path(out), from_proto,
                   bytearray(from_proto)):
        y, = fuse.InferenceSession(source).run(["y"], feeds)
        assert_close("y", y, want)


def test_output_selection_and_order():
    model = models.MODELS["multi_use"]()
    session = fuse.InferenceSession(fuse.compile(model))
    feeds = random_inputs(model)
    y, r = session.run(None, feeds)
    r2, y2 = session.run(["r", "y"], feeds)
    np.testing.assert_array_equal(r, r2)
    np.testing.assert_array_equal(y, y2)
    assert session.run([], feeds) == []


def test_reference_plan_and_strided_input(conv_model, conv_artifact):
    session = fuse.InferenceSession(conv_artifact)
    x = np.random.default_rng(1).uniform(-1, 1, (2, 3, 16, 32)).astype(
        np.float32)[..., ::2]  # not contiguous: copied
    assert not x.flags.c_contiguous
    main, = session.run(None, {"x": x})
    reference, = session.run(None, {"x": x}, plan="reference")
    assert_close("y", main, reference)
    want, = onnxruntime_outputs(conv_model, {"x": np.ascontiguousarray(x)})
    assert_close("y", main, want)


def test_big_endian_input(conv_model, conv_artifact):
    # DLPack has no byte order: converted, not refused ("must be a numpy
    # array (float32), not ndarray").
    session = fuse.InferenceSession(conv_artifact)
    x = np.random.default_rng(2).uniform(-1, 1, (2, 3, 16, 16)).astype(
        np.float32)
    big = x.astype(">f4")
    got, = session.run(None, {"x": big})
    want, = session.run(None, {"x": x})
    np.testing.assert_array_equal(got, want)


def test_threads_share_a_session(conv_model, conv_artifact):
    session = fuse.InferenceSession(conv_artifact)
    feeds = [random_inputs(conv_model, seed=s) for s in range(4)]
    expected = [onnxruntime_outputs(conv_model, f)[0] for f in feeds]
    errors = []

    def work(i):
        try:
            for _ in range(20):
                y, = session.run(None, feeds[i])
                assert_close("y", y, expected[i])
        except Exception as e:  # reported below, not lost in the thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_input_shapes():
    """A symbolic batch dimension, fixed at compile time."""
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(fuse.CompileError, match="'x' needs a static shape"):
        fuse.compile(model)
    session = fuse.InferenceSession(
        fuse.compile(model, input_shapes={"x": [5, 3]}))
    assert session.get_inputs()[0].shape == [5, 3]
    # The artifact records the compiler and the options, as fuse-compile's
    # flags.
    assert re.fullmatch(r"fuse \d+\.\d+\.\d+, commit \S+, LLVM [\d.]+",
                        session.compiler), session.compiler
    assert session.compile_flags == (
        "--target=cpu --cpu=x86-64,x86-64-v3 --strategy=auto "
        "--depthwise=kernel --conv=auto --input-shape=x=5x3")
    x = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
    y, = session.run(None, {"x": x})
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_options(conv_model):
    """The options reach the compiler: fused, Conv and Relu are one group,
    unfused one each; the x86-64 level is recorded."""
    def node_counts(**options):
        session = fuse.InferenceSession(
            fuse.compile(conv_model, conv="direct", **options))
        return sorted(len(g["nodes"]) for g in session.groups())
    assert node_counts() == [2]
    assert node_counts(fusion=False, strategy="generated") == [1, 1]
    v2 = fuse.InferenceSession(fuse.compile(conv_model, cpu="x86-64-v2"))
    assert v2.arch == "x86-64-v2"
    # conv="nhwc": the Conv is a matmul over the NHWC input, whose
    # Transpose is a kernel of its own.
    nhwc = fuse.InferenceSession(fuse.compile(conv_model, conv="nhwc"))
    assert "--conv=nhwc" in nhwc.compile_flags
    op_types = {op for g in nhwc.groups() for _, op in g["nodes"]}
    assert {"Transpose", "MatMul"} <= op_types, op_types
    # conv="nhwc-direct": a windowed Conv stays a convolution, NhwcConv,
    # over the NHWC input (its filters' Transpose in its group); the
    # answers are the Conv's.
    direct = fuse.InferenceSession(fuse.compile(conv_model,
                                                conv="nhwc-direct"))
    assert "--conv=nhwc-direct" in direct.compile_flags
    op_types = {op for g in direct.groups() for _, op in g["nodes"]}
    assert "NhwcConv" in op_types and "MatMul" not in op_types, op_types
    feeds = random_inputs(conv_model)
    want = onnxruntime_outputs(conv_model, feeds)[0]
    assert_close("y", direct.run(None, feeds)[0], want)


def test_precision():
    """precision= and keep_fp32= reach the compiler: an fp16 compile of a
    Gemm (its input converted, its weight fp16) is recorded as the flag and
    matches onnxruntime at fp16's error; keeping every node in fp32 gives
    f32's."""
    model = models.MODELS["gemm_bias_relu"]()
    feeds = random_inputs(model)
    want = onnxruntime_outputs(model, feeds)[0]
    session = fuse.InferenceSession(fuse.compile(model, precision="fp16"))
    assert "--precision=fp16" in session.compile_flags
    have, = session.run(None, feeds)
    error = np.linalg.norm(have - want) / np.linalg.norm(want)
    assert 0 < error < 5e-3, error
    kept = fuse.InferenceSession(fuse.compile(model, precision="fp16",
                                              keep_fp32=["*"]))
    assert "--keep-fp32=*" in kept.compile_flags
    have, = kept.run(None, feeds)
    assert_close("y", have, want)


def test_io_precision():
    """io_precision= makes the float inputs and outputs float16: run takes
    and returns float16 arrays (the casts run inside the kernels: one
    launch fewer than with float32 edges) and matches onnxruntime at
    fp16's error; a float32 array for a float16 input is refused with a
    message naming the input and both types."""
    model = models.MODELS["gemm_bias_relu"]()
    feeds = random_inputs(model)
    want = onnxruntime_outputs(model, feeds)[0]
    edges32 = fuse.InferenceSession(fuse.compile(model, precision="fp16"))
    session = fuse.InferenceSession(
        fuse.compile(model, precision="fp16", io_precision="fp16"))
    assert "--io-precision=fp16" in session.compile_flags
    assert [a.type for a in session.get_inputs()] == ["tensor(float16)"]
    assert [a.type for a in session.get_outputs()] == ["tensor(float16)"]
    assert len(session.profile(warmup=1, iterations=1)) < \
        len(edges32.profile(warmup=1, iterations=1))
    half = {k: v.astype(np.float16) for k, v in feeds.items()}
    have, = session.run(None, half)
    assert have.dtype == np.float16
    error = np.linalg.norm(have.astype(np.float32) - want) / \
        np.linalg.norm(want)
    assert 0 < error < 5e-3, error
    with pytest.raises(fuse.InvalidArgument,
                       match="is float32 but the model takes float16"):
        session.run(None, feeds)


def test_profile(conv_model, conv_artifact):
    session = fuse.InferenceSession(conv_artifact)
    profile = session.profile(warmup=1, iterations=3)
    assert len(profile) >= 2
    node_names = {n.name for n in conv_model.graph.node}
    for launch in profile:
        assert launch.time_us >= 0 and 0 <= launch.share <= 1
        assert launch.group is not None and launch.strategy
        assert {n for n, _ in launch.nodes} <= node_names
        assert launch.math == "fp32"  # kernels; library calls say theirs
    assert abs(sum(l.share for l in profile) - 1) < 1e-6
    # No matrix library on the CPU: no rate to judge FLOPs against.
    measured = session.profile(iterations=1, measure_limits=True)
    assert set(measured.matmul_gflops) == {"fp32", "tf32", "fp16", "bf16"}
    assert not any(measured.matmul_gflops.values())
    assert any(l.flops > 0 for l in profile)
    table = str(profile)
    assert table.startswith("profile: plan 'main' on cpu: ")
    assert "whole plan" in table and "(Relu)" in table
    # With inputs, and the reference plan.
    feeds = random_inputs(conv_model)
    reference = session.profile(feeds, plan="reference", iterations=2)
    assert reference.plan == "reference" and len(reference) >= 1


def _gather_model():
    from onnx import TensorProto, helper, numpy_helper
    table = numpy_helper.from_array(
        np.arange(20, dtype=np.float32).reshape(5, 4), "table")
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["y"], name="emb")],
        "gather", [helper.make_tensor_value_info("ids", TensorProto.INT64,
                                                 [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
        [table])
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 17)])


def test_index_out_of_range():
    model = _gather_model()
    session = fuse.InferenceSession(fuse.compile(model))
    good = {"ids": np.array([1, 4, -5], np.int64)}
    have, = session.run(None, good)
    want, = onnxruntime_outputs(model, good)
    assert_close("y", have, want)
    with pytest.raises(fuse.InvalidArgument,
                       match="Gather node 'emb': index 7 is out of range "
                             "for axis 0 of size 5"):
        session.run(None, {"ids": np.array([1, 7, -100000000], np.int64)})
    # The session still runs good inputs after a failed run.
    have, = session.run(None, good)
    assert_close("y", have, want)
    # Without the checks, clamped: rows 1, 4 and 0.
    clamped = fuse.InferenceSession(fuse.compile(model, index_checks=False))
    assert "--no-index-checks" in clamped.compile_flags
    have, = clamped.run(None, {"ids": np.array([1, 7, -100000000],
                                               np.int64)})
    assert_close("y", have, want)
