"""Shared by the tests: models, inputs and onnxruntime's outputs."""

import numpy as np
import onnxruntime as ort


def random_inputs(model, seed=0, int_high=2):
    """Seeded inputs as check_model.py draws them: floats in [-1, 1],
    integers in [0, int_high)."""
    from onnx import helper
    rng = np.random.default_rng(seed)
    inits = {i.name for i in model.graph.initializer}
    feeds = {}
    for value in model.graph.input:
        if value.name in inits:
            continue
        t = value.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        if np.issubdtype(dtype, np.integer):
            feeds[value.name] = rng.integers(0, int_high, shape).astype(dtype)
        else:
            feeds[value.name] = rng.uniform(-1, 1, shape).astype(dtype)
    return feeds


def onnxruntime_outputs(model, feeds):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def assert_close(name, have, want, rtol=1e-4, atol=1e-5):
    assert have.shape == want.shape, name
    assert have.dtype == want.dtype, name
    diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
    bad = diff > atol + rtol * np.abs(want.astype(np.float64))
    assert not bad.any(), (
        f"output {name}: {int(bad.sum())} of {bad.size} elements differ, "
        f"max abs error {diff.max():.3g}")
