#!/usr/bin/env python3
"""Checks the outputs fuse-run wrote against numpy.

    check_outputs.py MODEL OUTPUTS... [--random]

OUTPUTS is what `fuse-run --outputs` wrote: .npz, .npy or a directory of
output_N.pb (read with onnx's protobuf classes, so the TensorProto fuse-run
writes is checked by a real parser too). The inputs are
make_artifact.input_values(MODEL), the values every input file of the tests
holds; with --random, fuse-run's seeded random inputs were used instead and
only the relations between outputs are checked. The outputs of the kernel
models must equal numpy's exactly; those of the library models (matmul,
conv: fp32 sums in another order) to within 1e-5 relative and absolute.
"""

import os
import sys

import numpy as np

import make_artifact

NUMPY_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16,
                5: np.int16, 6: np.int32, 7: np.int64, 9: np.bool_,
                10: np.float16, 11: np.float64, 12: np.uint32,
                13: np.uint64, 16: np.uint16}


def read_outputs(path, names):
    if path.endswith(".npz"):
        with np.load(path) as npz:
            return {k: npz[k] for k in npz.files}
    if path.endswith(".npy"):
        return {names[0]: np.load(path)}
    from onnx import TensorProto  # Slow to import: only when needed.

    outputs = {}
    for i in range(len(names)):
        t = TensorProto()
        with open(os.path.join(path, f"output_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        outputs[t.name] = np.frombuffer(
            t.raw_data, NUMPY_DTYPES[t.data_type]).reshape(tuple(t.dims))
    return outputs


def main():
    model = sys.argv[1]
    for path in sys.argv[2:]:
        if path != "--random":
            check(model, path, "--random" in sys.argv)


def check(model, path, random):
    names = [t["name"] for t in make_artifact.MODELS[model]()["outputs"]]
    got = read_outputs(path, names)
    if sorted(got) != sorted(names):
        sys.exit(f"outputs {sorted(got)}, expected {sorted(names)}")
    if random:
        # multi: a_out is the random input a, b's values are in [0, 10).
        a = got["a_out"]
        assert a.dtype == np.float32 and (a >= -1).all() and (a < 1).all()
        np.testing.assert_array_equal(got["s"], a * np.float32(2))
        assert ((got["c"] >= 1) & (got["c"] <= 10)).all(), got["c"]
        want = {"w_out": make_artifact.MULTI_W}
    else:
        want = make_artifact.expected_outputs(
            model, make_artifact.input_values(model))
    for name, value in want.items():
        value = np.asarray(value)
        assert got[name].shape == value.shape, (name, got[name].shape,
                                                value.shape)
        assert got[name].dtype == value.dtype, (name, got[name].dtype,
                                                value.dtype)
        if model in make_artifact.LIBRARY_MODELS:
            np.testing.assert_allclose(got[name], value, rtol=1e-5,
                                       atol=1e-5, err_msg=name)
        else:
            np.testing.assert_array_equal(got[name], value, err_msg=name)
    print(f"outputs match: {', '.join(sorted(got))}")


if __name__ == "__main__":
    main()
