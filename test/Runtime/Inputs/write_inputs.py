#!/usr/bin/env python3
"""Writes input files for fuse-run in each format it reads.

    write_inputs.py MODEL FORMAT[:NAME]=OUT...

The values are make_artifact.input_values(MODEL); NAME picks the input of
the one-input formats (default: the first). FORMAT:

  npz, npz-compressed   np.savez / np.savez_compressed, every input by name
  npy, npy-v2, npy-v3   one input (--only, default the first), .npy version
                        1.0 / 2.0 / 3.0
  npy-fortran           a Fortran-order array (rejected)
  npy-bigendian         a big-endian array (rejected)
  pb                    a TensorProto with raw_data, packed dims
  pb-typed              typed data fields (float_data, int64_data, ...)
                        with packed encoding, dims unpacked, an unknown
                        field to skip
  pb-unpacked           typed data fields, one key per value
  pb-unnamed            raw_data and no name (binds in order)
  dir                   OUT/input_0.pb, input_1.pb, ... (all inputs)
  dir-typed, dir-unpacked  the same with pb-typed / pb-unpacked encoding

The TensorProtos are encoded by hand from the protobuf wire format, so the
tests do not depend on how the onnx package chooses to encode them.
"""

import os
import struct
import sys

import numpy as np
from numpy.lib import format as npy_format

import make_artifact

ONNX_TYPES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5,
              "int32": 6, "int64": 7, "bool": 9, "float16": 10,
              "float64": 11, "uint32": 12, "uint64": 13}


def varint(v):
    v &= 0xFFFFFFFFFFFFFFFF
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7F | 0x80])
        v >>= 7
    return out + bytes([v])


def key(field, wire_type):
    return varint(field << 3 | wire_type)


def length_delimited(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def tensor_proto(name, array, mode, onnx_type=None):
    """TensorProto bytes; mode is raw, typed (packed) or unpacked."""
    array = np.asarray(array)
    dtype = onnx_type or ONNX_TYPES[array.dtype.name]
    out = b""
    if mode == "typed":  # Unpacked dims, for variety.
        out += b"".join(key(1, 0) + varint(d) for d in array.shape)
    elif array.ndim:
        out += length_delimited(1, b"".join(varint(d) for d in array.shape))
    out += key(2, 0) + varint(dtype)
    if name is not None:
        out += length_delimited(8, name.encode())
    out += length_delimited(12, b"doc string: a field readers skip")
    flat = array.reshape(-1)
    if mode == "raw":
        return out + length_delimited(9, array.tobytes())
    # onnx.proto: which field holds which dtype.
    if dtype == 1:
        field, wire_type, fmt = 4, 5, "<f"
    elif dtype == 11:
        field, wire_type, fmt = 10, 1, "<d"
    elif dtype == 7:
        field, wire_type, fmt = 7, 0, None
    elif dtype in (12, 13):
        field, wire_type, fmt = 11, 0, None
    else:
        field, wire_type, fmt = 5, 0, None
        if dtype in (10, 16):  # float16 and bfloat16 travel as their bits.
            flat = flat.view(np.uint16)
    if fmt:
        values = [struct.pack(fmt, v) for v in flat]
    else:
        values = [varint(int(v)) for v in flat]
    if mode == "unpacked":
        return out + b"".join(key(field, wire_type) + v for v in values)
    return out + length_delimited(field, b"".join(values))


def write_npy(path, array, version):
    with open(path, "wb") as f:
        npy_format.write_array(f, np.asarray(array), version=version)


def main():
    model = sys.argv[1]
    for request in sys.argv[2:]:
        fmt, out = request.split("=", 1)
        fmt, _, only = fmt.partition(":")
        write(model, fmt, only, out)


def write(model, fmt, only, out):
    values = make_artifact.input_values(model)
    only = only or next(iter(values))
    types = {t["name"]: make_artifact.DTYPES[t["dtype"]]
             for t in make_artifact.MODELS[model]()["inputs"]}
    if fmt == "npz":
        np.savez(out, **values)
    elif fmt == "npz-compressed":
        np.savez_compressed(out, **values)
    elif fmt in ("npy", "npy-v2", "npy-v3"):
        write_npy(out, values[only],
                  {"npy": (1, 0), "npy-v2": (2, 0), "npy-v3": (3, 0)}[fmt])
    elif fmt == "npy-fortran":
        np.save(out, np.asfortranarray(values[only]))
    elif fmt == "npy-bigendian":
        np.save(out, values[only].astype(values[only].dtype.newbyteorder(">")))
    elif fmt in ("pb", "pb-typed", "pb-unpacked", "pb-unnamed"):
        mode = {"pb": "raw", "pb-typed": "typed", "pb-unpacked": "unpacked",
                "pb-unnamed": "raw"}[fmt]
        name = None if fmt == "pb-unnamed" else only
        with open(out, "wb") as f:
            f.write(tensor_proto(name, values[only], mode, types[only]))
    elif fmt in ("dir", "dir-typed", "dir-unpacked"):
        mode = {"dir": "raw", "dir-typed": "typed",
                "dir-unpacked": "unpacked"}[fmt]
        os.makedirs(out, exist_ok=True)
        for i, (name, value) in enumerate(values.items()):
            with open(os.path.join(out, f"input_{i}.pb"), "wb") as f:
                f.write(tensor_proto(name, value, mode, types[name]))
    else:
        sys.exit(f"unknown format {fmt}")


if __name__ == "__main__":
    main()
