#!/usr/bin/env python3
"""Writes fuse artifacts (.fbin) for the runtime tests.

    make_artifact.py MODEL OUT.fbin [--image KERNELS.so] [--target cuda]
                     [--arch ARCH] [--ptx FILE] [--defect NAME]
    make_artifact.py MODEL OUTDIR --all-defects [--image KERNELS.so]
    make_artifact.py --list

A writer of the format independent of the compiler's, from
docs/artifact-format.md and runtime/include/fuse/runtime/Artifact.h: it
doubles as a check that the spec can be implemented from its text. MODEL is
one of MODELS below; the kernel image is a shared object compiled from
kernels.c in the RUN line. --defect NAME writes the artifact with one
defect (see DEFECTS), with a valid checksum unless the defect is about the
checksum, so that each validation rule of the runtime is reached.
"""

import argparse
import copy
import struct
import sys

import numpy as np

MAGIC = b"FUSEBIN\0"
FORMAT_VERSION = 1
ALIGNMENT = 64
HEADER_BYTES = 64
SECTION_ENTRY_BYTES = 24
TARGETS = {"cpu": 1, "cuda": 2}
SECTIONS = {"plan": 1, "image": 2, "ptx": 3, "weights": 4}
DTYPES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5,
          "int32": 6, "int64": 7, "bool": 9, "float16": 10, "float64": 11,
          "uint32": 12, "uint64": 13, "bfloat16": 16}
KINDS = {"input": 0, "output": 1, "weight": 2, "intermediate": 3}


def dtype_size(dtype):
    """Bytes per element; 4 for a number that is not a dtype (a defect)."""
    code = DTYPES[dtype] if isinstance(dtype, str) else dtype
    return {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8,
            12: 4, 13: 8, 16: 2}.get(code, 4)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def align(n, a=ALIGNMENT):
    return (n + a - 1) // a * a


# Plan section encoding: little-endian scalars; a string is a u32 length and
# its bytes. Values are masked so that defects can write any bit pattern.
def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def string(s):
    b = s.encode()
    return u32(len(b)) + b


def dims_of(t):
    return u32(t.get("rank", len(t["dims"]))) + b"".join(
        u64(d) for d in t["dims"])


def dtype_of(t):
    d = t["dtype"]
    return DTYPES[d] if isinstance(d, str) else d


def tensor_desc(t):
    return string(t["name"]) + u32(dtype_of(t)) + dims_of(t)


def nbytes(t):
    return dtype_size(t["dtype"]) * int(np.prod(t["dims"], dtype=np.int64))


# ---------------------------------------------------------------------------
# Models: signature, kernels, plans and weights, as dicts. Buffers name
# their weight ("weight": "w"); offsets, byte sizes and arena sizes are
# filled in by lay_out() unless a defect set them.
# ---------------------------------------------------------------------------

def f32(dims):
    return {"dtype": "float32", "dims": list(dims)}


def buf(kind, t, **extra):
    return dict(kind=kind, dtype=t["dtype"], dims=list(t["dims"]), **extra)


def kernel(name, args):
    return {"name": name, "grid": [1, 1, 1], "block": [1, 1, 1], "shared": 0,
            "args": args}


X = dict(name="x", **f32([2, 3, 4]))
Y = dict(name="y", **f32([2, 3, 4]))
ADDRELU_W = np.linspace(-0.5, 0.5, 24, dtype=np.float32).reshape(2, 3, 4)
MULTI_W = np.array([1, 2, 3, 4], dtype=np.float32)


def model_relu():
    return {
        "inputs": [X], "outputs": [Y],
        "kernels": [kernel("relu_0", 2)],
        "plans": [{"name": "main",
                   "buffers": [buf("input", X), buf("output", Y)],
                   "inputs": [0], "outputs": [1],
                   "launches": [{"kernel": 0, "args": [0, 1]}]}],
        "weights": {},
    }


def model_addrelu(bad_reference=False):
    w = buf("weight", X, weight="w")
    return {
        "inputs": [X], "outputs": [Y],
        "kernels": [kernel("add_relu_0", 3), kernel("add_1", 3),
                    kernel("relu_bad" if bad_reference else "relu_2", 2)],
        "plans": [
            {"name": "main",
             "buffers": [buf("input", X), w, buf("output", Y)],
             "inputs": [0], "outputs": [2],
             "launches": [{"kernel": 0, "args": [0, 1, 2]}]},
            {"name": "reference",
             "buffers": [buf("input", X), w, buf("intermediate", X),
                         buf("output", Y)],
             "inputs": [0], "outputs": [3],
             "launches": [{"kernel": 1, "args": [0, 1, 2]},
                          {"kernel": 2, "args": [2, 3]}]},
        ],
        "weights": {"w": ADDRELU_W},
    }


def model_multi():
    """Two inputs of two dtypes; outputs computed, an input and a weight."""
    a = dict(name="a", **f32([2, 3]))
    b = dict(name="b", dtype="int64", dims=[3])
    s = dict(name="s", **f32([2, 3]))
    c = dict(name="c", dtype="int64", dims=[3])
    a_out = dict(a, name="a_out")
    w_out = dict(name="w_out", **f32([4]))
    return {
        "inputs": [a, b], "outputs": [s, c, a_out, w_out],
        "kernels": [kernel("scale_0", 2), kernel("inc_1", 2)],
        "plans": [{"name": "main",
                   "buffers": [buf("input", a), buf("input", b),
                               buf("output", s), buf("output", c),
                               buf("weight", w_out, weight="w")],
                   "inputs": [0, 1], "outputs": [2, 3, 0, 4],
                   "launches": [{"kernel": 0, "args": [0, 2]},
                                {"kernel": 1, "args": [1, 3]}]}],
        "weights": {"w": MULTI_W},
    }


DTYPES_MODEL = [("f16", "float16", [3]), ("bf16", "bfloat16", [2]),
                ("f64", "float64", [2]), ("i8", "int8", [4]),
                ("u8", "uint8", [2]), ("i16", "int16", [2]),
                ("u16", "uint16", [2]), ("i32", "int32", [2, 1]),
                ("u32", "uint32", [2]), ("i64", "int64", [2]),
                ("u64", "uint64", [2]), ("flag", "bool", [5]),
                ("scalar", "float32", [])]


def model_dtypes():
    """Every dtype; each output is its input's buffer, so no kernels."""
    inputs = [dict(name=n, dtype=d, dims=s) for n, d, s in DTYPES_MODEL]
    outputs = [dict(t, name=t["name"] + "_out") for t in inputs]
    return {
        "inputs": inputs, "outputs": outputs, "kernels": [],
        "plans": [{"name": "main",
                   "buffers": [buf("input", t) for t in inputs],
                   "inputs": list(range(len(inputs))),
                   "outputs": list(range(len(inputs))), "launches": []}],
        "weights": {},
    }


MODELS = {
    "relu": model_relu,
    "addrelu": model_addrelu,
    "addrelu-bad-reference": lambda: model_addrelu(bad_reference=True),
    "multi": model_multi,
    "dtypes": model_dtypes,
}


def input_values(name):
    """The deterministic input values the tests feed MODELS[name], by name
    (bfloat16 as its uint16 bits, as fuse-run takes it)."""
    rng = np.random.default_rng(7)
    if name in ("relu", "addrelu", "addrelu-bad-reference"):
        return {"x": rng.standard_normal((2, 3, 4)).astype(np.float32)}
    if name == "multi":
        return {"a": rng.standard_normal((2, 3)).astype(np.float32),
                "b": rng.integers(-5, 5, 3).astype(np.int64)}
    if name == "dtypes":
        values = {}
        for n, d, shape in DTYPES_MODEL:
            v = rng.standard_normal(shape) * 50
            if d == "bfloat16":
                v = (v.astype(np.float32).view(np.uint32) >> 16).astype(
                    np.uint16)
            elif d == "bool":
                v = v > 0
            else:
                v = np.asarray(v).astype(d)
            values[n] = v
        return values
    raise KeyError(name)


def expected_outputs(name, inputs):
    """The outputs of MODELS[name] computed with numpy, by name."""
    if name == "relu":
        return {"y": np.maximum(inputs["x"], 0)}
    if name.startswith("addrelu"):
        return {"y": np.maximum(inputs["x"] + ADDRELU_W, np.float32(0))}
    if name == "multi":
        return {"s": inputs["a"] * np.float32(2), "c": inputs["b"] + 1,
                "a_out": inputs["a"], "w_out": MULTI_W}
    if name == "dtypes":
        return {k + "_out": v for k, v in inputs.items()}
    raise KeyError(name)


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------

def lay_out(model):
    """Places the weights in the Weights section and each plan's arena
    buffers one after the other, 64-byte aligned."""
    weights = b""
    weight_offsets = {}
    for name, array in model["weights"].items():
        weights += b"\0" * (align(len(weights)) - len(weights))
        weight_offsets[name] = len(weights)
        weights += array.tobytes()
    model.setdefault("weights_blob", weights)
    for plan in model["plans"]:
        end = 0
        for b in plan["buffers"]:
            b.setdefault("bytes", nbytes(b))
            if b["kind"] == "weight":
                b.setdefault("offset", weight_offsets[b["weight"]])
            else:
                b.setdefault("offset", align(end))
                end = max(end, b["offset"] + b["bytes"])
        # --extra-arena: a plan 'main' arena larger than its buffers need.
        extra = model.get("extra_arena", 0) if plan is model["plans"][0] else 0
        plan.setdefault("arena", end + extra)


def encode_plan(model):
    out = u32(len(model["inputs"])) + b"".join(
        tensor_desc(t) for t in model["inputs"])
    out += u32(len(model["outputs"])) + b"".join(
        tensor_desc(t) for t in model["outputs"])
    out += u32(len(model["kernels"]))
    for k in model["kernels"]:
        out += string(k["name"]) + b"".join(u32(v) for v in k["grid"])
        out += b"".join(u32(v) for v in k["block"])
        out += u32(k["shared"]) + u32(k["args"])
    out += u32(model.get("num_plans", len(model["plans"])))
    for p in model["plans"]:
        out += string(p["name"]) + u64(p["arena"])
        out += u32(p.get("num_buffers", len(p["buffers"])))
        for b in p["buffers"]:
            kind = KINDS[b["kind"]] if isinstance(b["kind"], str) else b["kind"]
            out += u32(kind) + u32(dtype_of(b)) + u64(b["offset"])
            out += u64(b["bytes"]) + dims_of(b)
        out += b"".join(u32(i) for i in p["inputs"])
        out += b"".join(u32(i) for i in p["outputs"])
        out += u32(len(p["launches"]))
        for launch in p["launches"]:
            args = launch["args"]
            out += u32(launch["kernel"]) + u32(launch.get("num_args",
                                                          len(args)))
            out += b"".join(u32(a) for a in args)
    return out + model.get("plan_trailer", b"")


def encode(model, target, arch, image, ptx=None):
    """The artifact's bytes. Hooks in `model` let defects change the
    sections ("section_hook"), the header ("header") and the checksum."""
    lay_out(model)
    sections = [("plan", encode_plan(model)), ("image", image)]
    if ptx is not None:
        sections.append(("ptx", ptx))
    sections.append(("weights", model["weights_blob"]))
    sections = model.get("sections_hook", lambda s: s)(sections)

    table_end = HEADER_BYTES + SECTION_ENTRY_BYTES * len(sections)
    body = bytearray(align(table_end))
    entries = []
    for kind, payload in sections:
        offset = align(len(body))
        body += b"\0" * (offset - len(body)) + payload
        entries.append([SECTIONS[kind] if isinstance(kind, str) else kind, 0,
                        offset, len(payload)])
    model.get("entries_hook", lambda e: None)(entries)
    for i, (kind, reserved, offset, size) in enumerate(entries):
        at = HEADER_BYTES + SECTION_ENTRY_BYTES * i
        body[at:at + SECTION_ENTRY_BYTES] = struct.pack(
            "<IIQQ", kind, reserved, offset & 0xFFFFFFFFFFFFFFFF, size)

    header = dict(magic=MAGIC, version=FORMAT_VERSION,
                  target=TARGETS.get(target, target), file_size=len(body),
                  checksum=fnv1a64(bytes(body[HEADER_BYTES:])),
                  num_sections=len(entries), reserved=0,
                  arch=arch.encode().ljust(24, b"\0"))
    header.update(model.get("header", {}))
    body[:HEADER_BYTES] = (header["magic"] + struct.pack(
        "<IIQQII", header["version"], header["target"], header["file_size"],
        header["checksum"], header["num_sections"], header["reserved"])
        + header["arch"])
    return bytes(body)


# ---------------------------------------------------------------------------
# Defects: each edits the model (or its sections, entries or header) so that
# exactly one validation rule fails.
# ---------------------------------------------------------------------------

def main_plan(m):
    return m["plans"][0]


def set_header(**fields):
    return lambda m: m.setdefault("header", {}).update(fields)


def edit_entry(index, **fields):
    names = ["kind", "reserved", "offset", "size"]

    def hook(entries):
        for name, value in fields.items():
            value = value(entries) if callable(value) else value
            entries[index][names.index(name)] = value
    return lambda m: m.__setitem__("entries_hook", hook)


def edit_sections(fn):
    return lambda m: m.__setitem__("sections_hook", fn)


def edit(fn):
    """A defect that edits the model dict in place."""
    return fn


DEFECTS = {
    "bad-magic": set_header(magic=b"NOTFUSE\0"),
    "bad-version": set_header(version=7),
    "unknown-target": set_header(target=5),
    "header-reserved": set_header(reserved=3),
    "bad-checksum": set_header(checksum=0x1234),
    "trailing-bytes": None,  # Handled in main: bytes appended.
    "arch-unterminated": set_header(arch=b"x" * 24),
    "section-table-past-end": set_header(num_sections=1000),
    "unknown-section": edit_entry(0, kind=9),
    "section-reserved": edit_entry(1, reserved=1),
    "section-misaligned": edit_entry(1, offset=lambda e: e[1][2] + 8),
    "section-overlaps-header": edit_entry(1, offset=0),
    "section-out-of-bounds": edit_entry(2, size=1 << 20),
    "section-offset-huge": edit_entry(2, offset=0xFFFFFFFFFFFFFFC0),
    "sections-overlap": edit_entry(2, offset=lambda e: e[1][2]),
    "duplicate-section": edit_entry(2, kind=2),
    "no-plan-section": edit_sections(lambda s: s[1:]),
    "no-kernel-image": edit_sections(lambda s: [x for x in s
                                                if x[0] != "image"]),
    "empty-kernel-image": edit_sections(lambda s: [
        (k, b"" if k == "image" else p) for k, p in s]),
    "cpu-with-ptx": edit_sections(lambda s: s + [("ptx", b".version 8.0")]),
    "not-elf": edit_sections(lambda s: [
        (k, b"hello, world\n" * 8 if k == "image" else p) for k, p in s]),
    "truncated-plan": edit_sections(lambda s: [
        (k, p[:-3] if k == "plan" else p) for k, p in s]),
    "huge-count": edit(lambda m: main_plan(m).__setitem__("num_buffers",
                                                          1000000)),
    "plan-trailing-bytes": edit(lambda m: m.__setitem__("plan_trailer",
                                                        b"\0" * 4)),
    "no-plans": edit(lambda m: m.__setitem__("plans", [])),
    "first-plan-not-main": edit(lambda m: main_plan(m).__setitem__("name",
                                                                   "fast")),
    "duplicate-plan": edit(lambda m: m["plans"][1].__setitem__("name",
                                                               "main")),
    "duplicate-input-name": edit(lambda m: m["inputs"][1].__setitem__(
        "name", "a")),
    "nul-in-name": edit(lambda m: m["kernels"][0].__setitem__("name",
                                                              "relu\0x")),
    "empty-kernel-name": edit(lambda m: m["kernels"][0].__setitem__("name",
                                                                    "")),
    "grid-zero": edit(lambda m: m["kernels"][0].__setitem__("grid",
                                                            [4, 0, 1])),
    "missing-symbol": edit(lambda m: m["kernels"][0].__setitem__("name",
                                                                 "nosuch")),
    "unknown-dtype": edit(lambda m: main_plan(m)["buffers"][2].__setitem__(
        "dtype", 99)),
    "signature-unknown-dtype": edit(lambda m: m["inputs"][0].__setitem__(
        "dtype", 8)),
    "rank-too-large": edit(lambda m: main_plan(m)["buffers"][2].update(
        dims=[1] * 9)),
    "negative-dim": edit(lambda m: m["outputs"][0].__setitem__(
        "dims", [2, -3, 4])),
    "huge-dims": edit(lambda m: m["inputs"][0].__setitem__(
        "dims", [1 << 40, 1 << 40, 4])),
    "buffer-bytes": edit(lambda m: main_plan(m)["buffers"][2].__setitem__(
        "bytes", 100)),
    "buffer-kind": edit(lambda m: main_plan(m)["buffers"][2].__setitem__(
        "kind", 6)),
    "buffer-misaligned": edit(lambda m: main_plan(m)["buffers"][2]
                              .__setitem__("offset", 32)),
    "buffer-out-of-arena": edit(lambda m: main_plan(m).__setitem__("arena",
                                                                   150)),
    "weight-out-of-section": edit(lambda m: main_plan(m)["buffers"][1]
                                  .__setitem__("offset", 64)),
    "input-buffer-index": edit(lambda m: main_plan(m).__setitem__("inputs",
                                                                  [12])),
    "output-buffer-index": edit(lambda m: main_plan(m).__setitem__(
        "outputs", [3])),
    "input-not-input-kind": edit(lambda m: main_plan(m)["buffers"][0]
                                 .__setitem__("kind", "intermediate")),
    "inputs-share-buffer": edit(lambda m: (
        main_plan(m).__setitem__("inputs", [0, 0]),
        m["inputs"].__setitem__(1, dict(m["inputs"][0], name="b")))),
    "unnamed-output-buffer": edit(lambda m: main_plan(m).__setitem__(
        "outputs", [0])),
    "input-dtype": edit(lambda m: m["inputs"][0].__setitem__("dtype",
                                                             "int32")),
    "output-shape": edit(lambda m: m["outputs"][0].__setitem__("dims",
                                                               [4, 3, 2])),
    "input-overlap": edit(lambda m: m["plans"][1]["buffers"][2].__setitem__(
        "offset", 64)),
    "kernel-index": edit(lambda m: main_plan(m)["launches"][0].__setitem__(
        "kernel", 9)),
    "arg-count": edit(lambda m: main_plan(m)["launches"][0].__setitem__(
        "args", [0, 2])),
    "launch-buffer-index": edit(lambda m: main_plan(m)["launches"][0]
                                .__setitem__("args", [0, 17, 2])),
    "arena-overflow": edit(lambda m: [p.__setitem__("arena", 1 << 63)
                                      for p in m["plans"]]),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", choices=sorted(MODELS))
    parser.add_argument("out", nargs="?")
    parser.add_argument("--image", help="the kernel image (a shared object)")
    parser.add_argument("--target", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--arch", help="default: x86-64 or sm_90")
    parser.add_argument("--ptx", help="PTX file (cuda target)")
    parser.add_argument("--defect", choices=sorted(DEFECTS))
    parser.add_argument("--shared-bytes", type=int, default=0,
                        help="dynamic shared memory of every kernel")
    parser.add_argument("--extra-arena", type=int, default=0,
                        help="bytes added to plan 'main''s arena (to make "
                        "one larger than the device's memory)")
    parser.add_argument("--all-defects", action="store_true",
                        help="write OUT/<defect>.fbin for every defect")
    parser.add_argument("--list", action="store_true",
                        help="list the models and defects")
    args = parser.parse_args()
    if args.list:
        print("models:", " ".join(sorted(MODELS)))
        print("defects:", " ".join(sorted(DEFECTS)))
        return
    if not args.model or not args.out:
        parser.error("MODEL and OUT are required")
    image = open(args.image, "rb").read() if args.image else b""
    ptx = open(args.ptx, "rb").read() if args.ptx else None
    if args.target == "cuda" and ptx is None and not args.image:
        # No GPU toolchain in the tests: a stand-in cubin and PTX.
        image, ptx = b"\x7fELF fake cubin", b".version 8.0\n.target sm_90\n"
    arch = args.arch or ("sm_90" if args.target == "cuda" else "x86-64")
    if args.all_defects:
        for defect in DEFECTS:
            # These need a model with two inputs.
            name = "multi" if defect in MULTI_DEFECTS else args.model
            write(f"{args.out}/{defect}.fbin", name, defect, args.target,
                  arch, image, ptx)
    else:
        write(args.out, args.model, args.defect, args.target, arch, image,
              ptx, args.shared_bytes, args.extra_arena)


MULTI_DEFECTS = ("duplicate-input-name", "inputs-share-buffer")


def write(path, name, defect, target, arch, image, ptx, shared_bytes=0,
          extra_arena=0):
    # A deep copy: the models share their tensor dicts, which defects edit.
    model = copy.deepcopy(MODELS[name]())
    model["extra_arena"] = extra_arena
    for k in model["kernels"]:
        k["shared"] = shared_bytes
        if target == "cuda":  # kernels.ptx: one thread per element.
            k["block"] = [32, 1, 1]
    if defect and DEFECTS[defect]:
        DEFECTS[defect](model)
    data = encode(model, target, arch, image, ptx)
    if defect == "trailing-bytes":
        data += b"\0" * 64
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    sys.exit(main())
