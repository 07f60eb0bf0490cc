#!/usr/bin/env python3
"""Writes fuse artifacts (.fbin, format version 3; 4 to 8 where a defect says so)
for the runtime tests.

    make_artifact.py MODEL OUT.fbin [--image KERNELS.so] [--target cuda]
                     [--arch ARCH] [--ptx FILE] [--defect NAME]
                     [--no-metadata]
    make_artifact.py MODEL OUTDIR --all-defects [--image KERNELS.so]
    make_artifact.py --list

A writer of the format independent of the compiler's, from
docs/artifact-format.md and runtime/include/fuse/runtime/Artifact.h: it
doubles as a check that the spec can be implemented from its text. MODEL is
one of MODELS below; the kernel image is a shared object compiled from
kernels.c in the RUN line. The library models ("matmul", "conv", ...) have
cuBLASLt and cuDNN launches and need --target cuda; the "choices" model
has groups with several candidates, one of them slow. Every model with
launches gets a Metadata section with one group per launch (not with
--no-metadata). --defect NAME writes the artifact with one defect (see
DEFECTS), with a valid checksum unless the defect is about the checksum, so
that each validation rule of the runtime is reached.

The expected outputs of each model (expected_outputs) are computed with
numpy from the parameters' meaning in Artifact.h (row-major, fuse's terms),
independently of how the runtime maps them onto the libraries.
"""

import argparse
import copy
import struct
import sys

import numpy as np

MAGIC = b"FUSEBIN\0"
FORMAT_VERSION = 3
ALIGNMENT = 64
HEADER_BYTES = 64
SECTION_ENTRY_BYTES = 24
TARGETS = {"cpu": 1, "cuda": 2}
SECTIONS = {"plan": 1, "image": 2, "ptx": 3, "weights": 4, "metadata": 5,
            "build": 6}
DTYPES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5,
          "int32": 6, "int64": 7, "bool": 9, "float16": 10, "float64": 11,
          "uint32": 12, "uint64": 13, "bfloat16": 16}
KINDS = {"input": 0, "output": 1, "weight": 2, "intermediate": 3,
         "check": 4}
# Launch kinds: a kernel of the image, a cuBLASLt matmul, a cuDNN conv.
LAUNCH_KINDS = {"kernel": 1, "matmul": 2, "conv": 3}
# LaunchDesc::kernel of a library launch; LaunchDesc::group of a launch
# without metadata.
NONE = 0xFFFFFFFF
# Matmul epilogues.
EPILOGUES = {"none": 0, "bias": 1, "relu": 2, "bias+relu": 3}


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


# Record encoding: little-endian scalars; a string is a u32 length and its
# bytes; a byte blob likewise. Values are masked so that defects can write
# any bit pattern.
def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def i64(v):
    return u64(v)


def f32(v):
    return struct.pack("<f", v)


def string(s):
    b = s if isinstance(s, bytes) else s.encode()
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
# Library parameters (MatmulParams, ConvParams): the fields in encoding order
# and their scalar types ("I" u32, "q" i64, "f" f32).
# ---------------------------------------------------------------------------

MATMUL_FIELDS = [("transA", "I"), ("transB", "I"), ("batch", "q"),
                 ("m", "q"), ("n", "q"), ("k", "q"), ("lda", "q"),
                 ("ldb", "q"), ("strideA", "q"), ("strideB", "q"),
                 ("alpha", "f"), ("beta", "f"), ("epilogue", "I"),
                 ("hasResidual", "I")]
CONV_FIELDS = [(name, "q") for name in (
    "n", "c", "h", "w", "k", "r", "s", "outH", "outW", "padH", "padW",
    "strideH", "strideW", "dilationH", "dilationW", "groups")] + [
    ("alpha", "f"), ("hasBias", "I"), ("hasResidual", "I"),
    ("activation", "I")]


def encode_params(kind, p):
    """The params blob of a library launch: MatmulParams or ConvParams."""
    fields = MATMUL_FIELDS if kind == "matmul" else CONV_FIELDS
    out = b""
    for name, fmt in fields:
        v = p[name]
        out += {"I": u32, "q": i64, "f": f32}[fmt](v)
    return out + p.get("trailer", b"")


def matmul_params(m, n, k, batch=1, trans_a=0, trans_b=0, lda=None,
                  ldb=None, stride_a=None, stride_b=None, alpha=1.0,
                  beta=0.0, epilogue="none", residual=0):
    """MatmulParams, with the packed defaults: rows of A (B) `lda` (`ldb`)
    apart = its columns, matrices of a batch one after the other."""
    cols_a = m if trans_a else k
    rows_a = k if trans_a else m
    cols_b = k if trans_b else n
    rows_b = n if trans_b else k
    lda = cols_a if lda is None else lda
    ldb = cols_b if ldb is None else ldb
    return {"transA": trans_a, "transB": trans_b, "batch": batch, "m": m,
            "n": n, "k": k, "lda": lda, "ldb": ldb,
            "strideA": rows_a * lda if stride_a is None else stride_a,
            "strideB": rows_b * ldb if stride_b is None else stride_b,
            "alpha": alpha, "beta": beta, "epilogue": EPILOGUES[epilogue],
            "hasResidual": residual}


def conv_params(x, w, pad=(0, 0), stride=(1, 1), dilation=(1, 1), groups=1,
                alpha=1.0, bias=0, residual=0, relu=0):
    """ConvParams for X of shape x ([n, c, h, w]) and W of shape w."""
    n, c, h, wd = x
    k, _, r, s = w
    span_h = dilation[0] * (r - 1) + 1
    span_w = dilation[1] * (s - 1) + 1
    return {"n": n, "c": c, "h": h, "w": wd, "k": k, "r": r, "s": s,
            "outH": (h + 2 * pad[0] - span_h) // stride[0] + 1,
            "outW": (wd + 2 * pad[1] - span_w) // stride[1] + 1,
            "padH": pad[0], "padW": pad[1], "strideH": stride[0],
            "strideW": stride[1], "dilationH": dilation[0],
            "dilationW": dilation[1], "groups": groups, "alpha": alpha,
            "hasBias": bias, "hasResidual": residual, "activation": relu}


def matmul_reference(p, a, b, bias=None, c=None):
    """D of a MatmulParams per Artifact.h, row-major, in float64: for each
    matrix of the batch, act(alpha * op(A) op(B) + beta * C + bias)."""
    a, b = a.reshape(-1).astype(np.float64), b.reshape(-1).astype(np.float64)
    m, n, k, batch = p["m"], p["n"], p["k"], p["batch"]
    rows_a, cols_a = (k, m) if p["transA"] else (m, k)
    rows_b, cols_b = (n, k) if p["transB"] else (k, n)
    out = np.zeros((batch, m, n))
    for i in range(batch):
        at = a[i * p["strideA"] + np.arange(rows_a)[:, None] * p["lda"] +
               np.arange(cols_a)[None, :]]
        bt = b[i * p["strideB"] + np.arange(rows_b)[:, None] * p["ldb"] +
               np.arange(cols_b)[None, :]]
        d = p["alpha"] * ((at.T if p["transA"] else at) @
                          (bt.T if p["transB"] else bt))
        if p["hasResidual"]:
            d += p["beta"] * c.reshape(batch, m, n)[i]
        if p["epilogue"] in (1, 3):
            d += bias.reshape(n)
        if p["epilogue"] in (2, 3):
            d = np.maximum(d, 0)
        out[i] = d
    return out


def conv_reference(p, x, w, bias=None, z=None):
    """Y of a ConvParams per Artifact.h, NCHW cross-correlation, float64:
    act(alpha * conv(X, W) + Z + bias)."""
    n, c, h, wd, k = p["n"], p["c"], p["h"], p["w"], p["k"]
    r, s, g = p["r"], p["s"], p["groups"]
    x = x.reshape(n, c, h, wd).astype(np.float64)
    w = w.reshape(k, c // g, r, s).astype(np.float64)
    ph, pw = p["padH"], p["padW"]
    xp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    y = np.zeros((n, k, p["outH"], p["outW"]))
    cg, kg = c // g, k // g
    for oh in range(p["outH"]):
        for ow in range(p["outW"]):
            hs = oh * p["strideH"] + np.arange(r) * p["dilationH"]
            ws = ow * p["strideW"] + np.arange(s) * p["dilationW"]
            window = xp[:, :, hs][:, :, :, ws]  # n, c, r, s
            for gi in range(g):
                y[:, gi * kg:(gi + 1) * kg, oh, ow] = np.einsum(
                    "ncrs,kcrs->nk", window[:, gi * cg:(gi + 1) * cg],
                    w[gi * kg:(gi + 1) * kg])
    y *= p["alpha"]
    if p["hasResidual"]:
        y += z.reshape(y.shape)
    if p["hasBias"]:
        y += bias.reshape(1, k, 1, 1)
    if p["activation"] == 1:
        y = np.maximum(y, 0)
    return y


# ---------------------------------------------------------------------------
# Models: signature, kernels, plans, weights and metadata, as dicts. Buffers
# name their weight ("weight": "w"); offsets, byte sizes, workspaces and
# arena sizes are filled in by lay_out() unless a defect set them. A launch
# is {"kind": "kernel" (default), "matmul" or "conv", "kernel": index,
# "args": [...], "params": dict (libraries), "workspace_bytes": N,
# "nodes": [(name, op type)], "strategy": "..."}.
# ---------------------------------------------------------------------------

def f32t(dims):
    return {"dtype": "float32", "dims": list(dims)}


def buf(kind, t, **extra):
    return dict(kind=kind, dtype=t["dtype"], dims=list(t["dims"]), **extra)


def kernel(name, args):
    return {"name": name, "args": args}


X = dict(name="x", **f32t([2, 3, 4]))
Y = dict(name="y", **f32t([2, 3, 4]))
ADDRELU_W = np.linspace(-0.5, 0.5, 24, dtype=np.float32).reshape(2, 3, 4)
MULTI_W = np.array([1, 2, 3, 4], dtype=np.float32)


def model_relu():
    return {
        "inputs": [X], "outputs": [Y],
        "kernels": [kernel("relu_0", 2)],
        "plans": [{"name": "main",
                   "buffers": [buf("input", X), buf("output", Y)],
                   "inputs": [0], "outputs": [1],
                   "launches": [{"kernel": 0, "args": [0, 1],
                                 "nodes": [("relu", "Relu")]}]}],
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
             "launches": [{"kernel": 0, "args": [0, 1, 2],
                           "strategy": "kernel elementwise(32)",
                           "nodes": [("add", "Add"), ("relu", "Relu")]}]},
            {"name": "reference",
             "buffers": [buf("input", X), w, buf("intermediate", X),
                         buf("output", Y)],
             "inputs": [0], "outputs": [3],
             "launches": [{"kernel": 1, "args": [0, 1, 2],
                           "nodes": [("add", "Add")]},
                          {"kernel": 2, "args": [2, 3],
                           "nodes": [("relu", "Relu")]}]},
        ],
        "weights": {"w": ADDRELU_W},
    }


def model_multi():
    """Two inputs of two dtypes; outputs computed, an input and a weight."""
    a = dict(name="a", **f32t([2, 3]))
    b = dict(name="b", dtype="int64", dims=[3])
    s = dict(name="s", **f32t([2, 3]))
    c = dict(name="c", dtype="int64", dims=[3])
    a_out = dict(a, name="a_out")
    w_out = dict(name="w_out", **f32t([4]))
    return {
        "inputs": [a, b], "outputs": [s, c, a_out, w_out],
        "kernels": [kernel("scale_0", 2), kernel("inc_1", 2)],
        "plans": [{"name": "main",
                   "buffers": [buf("input", a), buf("input", b),
                               buf("output", s), buf("output", c),
                               buf("weight", w_out, weight="w")],
                   "inputs": [0, 1], "outputs": [2, 3, 0, 4],
                   "launches": [{"kernel": 0, "args": [0, 2],
                                 "nodes": [("scale", "Mul")]},
                                {"kernel": 1, "args": [1, 3],
                                 "nodes": [("inc", "Add")]}]}],
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


def weight_values(seed, shape, scale=0.5):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# --- matmul: cuBLASLt launches (cuda only) ---------------------------------
#
#   0: y1 = relu(a @ w1 + b1 + c)                       bias+relu, residual
#   1: y2 = 0.5 * at^T @ w2t^T + b2                     A^T, B^T, bias
#   2: y3[i] = relu(x3[i] @ w3 + 2 * r3[i]), i < 3      batch, B stride 0
#   3: t = y1 @ w4                                      an intermediate
#   4: y4 = relu(t @ w5 + b5)
#   5: y5[i] = apad[:, :6] @ wb[i], i < 2               lda 8, A stride 0
#
# Launches 0-2 have a workspace, 3-5 none.

MATMUL_INPUTS = {"a": [4, 6], "at": [6, 4], "c": [4, 5], "x3": [3, 4, 6],
                 "r3": [3, 4, 5], "apad": [4, 8]}
MATMUL_WEIGHTS = {"w1": [6, 5], "b1": [5], "w2t": [5, 6], "b2": [5],
                  "w3": [6, 5], "w4": [5, 3], "w5": [3, 2], "b5": [2],
                  "wb": [2, 6, 5]}
MATMUL_OUTPUTS = {"y1": [4, 5], "y2": [4, 5], "y3": [3, 4, 5], "y4": [4, 2],
                  "y5": [2, 4, 5]}
MATMUL_LAUNCHES = [
    # (params, args by name, nodes)
    (matmul_params(4, 5, 6, beta=1.0, epilogue="bias+relu", residual=1),
     ["a", "w1", "b1", "c", "y1"],
     [("mm1", "MatMul"), ("bias1", "Add"), ("res1", "Add"), ("relu1", "Relu")]),
    (matmul_params(4, 5, 6, trans_a=1, trans_b=1, alpha=0.5, epilogue="bias"),
     ["at", "w2t", "b2", "y2"], [("gemm2", "Gemm")]),
    (matmul_params(4, 5, 6, batch=3, stride_b=0, beta=2.0, epilogue="relu",
                   residual=1),
     ["x3", "w3", "r3", "y3"],
     [("mm3", "MatMul"), ("scale3", "Mul"), ("res3", "Add"),
      ("relu3", "Relu")]),
    (matmul_params(4, 3, 5), ["y1", "w4", "t"], [("mm4", "MatMul")]),
    (matmul_params(4, 2, 3, epilogue="bias+relu"), ["t", "w5", "b5", "y4"],
     [("mm5", "MatMul"), ("bias5", "Add"), ("relu5", "Relu")]),
    (matmul_params(4, 5, 6, batch=2, lda=8, stride_a=0),
     ["apad", "wb", "y5"], [("mm6", "MatMul")]),
]
MATMUL_WORKSPACE = 4096


def library_model(inputs, weights, outputs, intermediates, kind, launches,
                  seed, workspace):
    """A one-plan model of library launches; buffers in the order inputs,
    weights, outputs, intermediates."""
    names = list(inputs) + list(weights) + list(outputs) + list(intermediates)
    shapes = dict(inputs, **weights, **outputs, **intermediates)
    kinds = (["input"] * len(inputs) + ["weight"] * len(weights) +
             ["output"] * len(outputs) + ["intermediate"] * len(intermediates))
    buffers = []
    for name, k in zip(names, kinds):
        extra = {"weight": name} if k == "weight" else {}
        buffers.append(buf(k, f32t(shapes[name]), **extra))
    plan_launches = []
    for i, (params, args, nodes) in enumerate(launches):
        plan_launches.append({
            "kind": kind, "params": params,
            "args": [names.index(a) for a in args], "nodes": nodes,
            "workspace_bytes": workspace if i < 3 else 0})
    return {
        "inputs": [dict(name=n, **f32t(s)) for n, s in inputs.items()],
        "outputs": [dict(name=n, **f32t(s)) for n, s in outputs.items()],
        "kernels": [],
        "plans": [{"name": "main", "buffers": buffers,
                   "inputs": list(range(len(inputs))),
                   "outputs": [names.index(n) for n in outputs],
                   "launches": plan_launches}],
        "weights": {n: weight_values(seed + i, s)
                    for i, (n, s) in enumerate(weights.items())},
    }


def model_matmul():
    return library_model(MATMUL_INPUTS, MATMUL_WEIGHTS, MATMUL_OUTPUTS,
                         {"t": [4, 3]}, "matmul", MATMUL_LAUNCHES, 100,
                         MATMUL_WORKSPACE)


def expected_matmul(inputs):
    w = model_matmul()["weights"]
    v = dict(inputs, **w)
    out = {}
    for params, args, _ in MATMUL_LAUNCHES:
        operands = [v[a] for a in args[:-1]]
        a, b, rest = operands[0], operands[1], operands[2:]
        bias = rest.pop(0) if params["epilogue"] in (1, 3) else None
        c = rest.pop(0) if params["hasResidual"] else None
        d = matmul_reference(params, a, b, bias, c)
        shape = MATMUL_OUTPUTS.get(args[-1], [4, 3])
        v[args[-1]] = d.reshape(shape).astype(np.float32)
        if args[-1] in MATMUL_OUTPUTS:
            out[args[-1]] = v[args[-1]]
    return out


# --- conv: cuDNN launches (cuda only) --------------------------------------
#
#   0: y0 = relu(conv(x, w0, pad 1, groups 2) + b0)          fused, relu
#   1: y1 = 0.5 * conv(x2, w1, pad 1, stride 2, dilation 2) + z + b1
#                                      bias and residual without relu
#   2: y2 = conv(y0, w2), a 1x3 window, pad (0, 1)          no epilogue
#   3: y3 = relu(conv(y0, w3, pad 1, depthwise) + y0 + b3)  residual, relu

CONV_INPUTS = {"x": [1, 4, 6, 6], "x2": [2, 3, 9, 9], "z": [2, 4, 4, 4]}
CONV_WEIGHTS = {"w0": [6, 2, 3, 3], "b0": [6], "w1": [4, 3, 3, 3],
                "b1": [4], "w2": [2, 6, 1, 3], "w3": [6, 1, 3, 3],
                "b3": [6]}
CONV_OUTPUTS = {"y0": [1, 6, 6, 6], "y1": [2, 4, 4, 4], "y2": [1, 2, 6, 6],
                "y3": [1, 6, 6, 6]}
CONV_LAUNCHES = [
    (conv_params([1, 4, 6, 6], [6, 2, 3, 3], pad=(1, 1), groups=2, bias=1,
                 relu=1),
     ["x", "w0", "b0", "y0"], [("conv0", "Conv"), ("relu0", "Relu")]),
    (conv_params([2, 3, 9, 9], [4, 3, 3, 3], pad=(1, 1), stride=(2, 2),
                 dilation=(2, 2), alpha=0.5, bias=1, residual=1),
     ["x2", "w1", "b1", "z", "y1"],
     [("conv1", "Conv"), ("half1", "Mul"), ("res1", "Add")]),
    (conv_params([1, 6, 6, 6], [2, 6, 1, 3], pad=(0, 1)), ["y0", "w2", "y2"],
     [("conv2", "Conv")]),
    (conv_params([1, 6, 6, 6], [6, 1, 3, 3], pad=(1, 1), groups=6, bias=1,
                 residual=1, relu=1),
     ["y0", "w3", "b3", "y0", "y3"],
     [("conv3", "Conv"), ("res3", "Add"), ("relu3", "Relu")]),
]
CONV_WORKSPACE = 8192


def model_conv():
    return library_model(CONV_INPUTS, CONV_WEIGHTS, CONV_OUTPUTS, {}, "conv",
                         CONV_LAUNCHES, 200, CONV_WORKSPACE)


def expected_conv(inputs):
    v = dict(inputs, **model_conv()["weights"])
    for params, args, _ in CONV_LAUNCHES:
        operands = [v[a] for a in args[:-1]]
        x, w, rest = operands[0], operands[1], operands[2:]
        bias = rest.pop(0) if params["hasBias"] else None
        z = rest.pop(0) if params["hasResidual"] else None
        v[args[-1]] = conv_reference(params, x, w, bias, z).astype(np.float32)
    return {n: v[n] for n in CONV_OUTPUTS}


def model_conv_nobias():
    """A ReLU conv without a bias (valid: hasBias 0, activation 1)."""
    x, w = [1, 2, 4, 4], [3, 2, 3, 3]
    return library_model(
        {"x": x}, {"w": w}, {"y": [1, 3, 4, 4]}, {}, "conv",
        [(conv_params(x, w, pad=(1, 1), relu=1), ["x", "w", "y"],
          [("conv", "Conv"), ("relu", "Relu")])], 300, CONV_WORKSPACE)


def expected_conv_nobias(inputs):
    model = model_conv_nobias()
    params = model["plans"][0]["launches"][0]["params"]
    return {"y": conv_reference(params, inputs["x"], model["weights"]["w"])
            .astype(np.float32)}


def model_conv_nhwc():
    """One NHWC convolution (format 7, layout 1): x [2, 7, 7, 4] channels
    last, filters [6, 3, 3, 4] (k, r, s, c), stride 2, pad 1, dilation 1,
    with bias, a residual z [2, 4, 4, 6] and ReLU: the layouts the runtime
    gives cuDNN are what numpy's channels-last answer checks."""
    params = conv_params([2, 4, 7, 7], [6, 4, 3, 3], pad=(1, 1),
                         stride=(2, 2), bias=1, residual=1, relu=1)
    m = library_model(
        {"x": [2, 7, 7, 4], "z": [2, 4, 4, 6]}, {"w": [6, 3, 3, 4], "b": [6]},
        {"y": [2, 4, 4, 6]}, {}, "conv",
        [(params, ["x", "w", "b", "z", "y"],
          [("conv", "NhwcConv"), ("res", "Add"), ("relu", "Relu")])], 310,
        CONV_WORKSPACE)
    typed_params(version=7, layout=1)(m)
    return m


def expected_conv_nhwc(inputs):
    """The NCHW reference on transposed operands, transposed back."""
    model = model_conv_nhwc()
    params = model["plans"][0]["launches"][0]["params"]
    weights = model["weights"]
    y = conv_reference(params, inputs["x"].transpose(0, 3, 1, 2),
                       weights["w"].transpose(0, 3, 1, 2), weights["b"],
                       inputs["z"].transpose(0, 3, 1, 2))
    return {"y": y.transpose(0, 2, 3, 1).astype(np.float32)}


# --- mixed: kernels and a library call in one graph (cuda) -----------------
#
#   main and reference: t = relu(x) (kernel relu_2, x float32[2,3,4]);
#   y = relu(t @ w + b), t taken as 6 x 4, y float32[6,5] (cuBLASLt).

MIXED_W = weight_values(400, [4, 5])
MIXED_B = weight_values(401, [5])


def model_mixed():
    t = f32t([2, 3, 4])
    out = dict(name="y", **f32t([6, 5]))
    params = matmul_params(6, 5, 4, epilogue="bias+relu")

    def plan(name):
        return {"name": name,
                "buffers": [buf("input", X), buf("intermediate", t),
                            buf("weight", f32t([4, 5]), weight="w"),
                            buf("weight", f32t([5]), weight="b"),
                            buf("output", out)],
                "inputs": [0], "outputs": [4],
                "launches": [
                    {"kernel": 0, "args": [0, 1], "nodes": [("relu", "Relu")]},
                    {"kind": "matmul", "params": params, "args": [1, 2, 3, 4],
                     "workspace_bytes": 1024,
                     "nodes": [("mm", "MatMul"), ("bias", "Add"),
                               ("relu2", "Relu")]}]}
    return {"inputs": [X], "outputs": [out],
            "kernels": [kernel("relu_2", 2)],
            "plans": [plan("main"), plan("reference")],
            "weights": {"w": MIXED_W, "b": MIXED_B}}


def expected_mixed(inputs):
    t = np.maximum(inputs["x"], 0)
    params = model_mixed()["plans"][0]["launches"][1]["params"]
    return {"y": matmul_reference(params, t, MIXED_W, MIXED_B)
            .reshape(6, 5).astype(np.float32)}


# --- choices: groups with several candidates (cpu) --------------------------
#
#   choice 0, launches 0-1: y = relu(x + w), by add_relu_slow (selected by
#       the "heuristic", and slow: a tuner must switch) or add_relu_0;
#   launch 2, in no choice: z = relu(y);
#   choice 1, launches 3-5: y2 = relu(x + w), by add_1 then relu_2 through
#       an intermediate (selected, and the faster) or by add_relu_slow.

def model_choices():
    w = buf("weight", X, weight="w")
    y2 = dict(name="y2", **f32t([2, 3, 4]))
    z = dict(name="z", **f32t([2, 3, 4]))
    return {
        "inputs": [X], "outputs": [Y, z, y2],
        "kernels": [kernel("add_relu_slow", 3), kernel("add_relu_0", 3),
                    kernel("relu_0", 2), kernel("add_1", 3),
                    kernel("relu_2", 2)],
        "plans": [{
            "name": "main",
            "buffers": [buf("input", X), w, buf("output", Y),
                        buf("output", z), buf("intermediate", X),
                        buf("output", y2)],
            "inputs": [0], "outputs": [2, 3, 5],
            "launches": [
                {"kernel": 0, "args": [0, 1, 2], "strategy": "kernel slow",
                 "nodes": [("add", "Add"), ("relu", "Relu")]},
                {"kernel": 1, "args": [0, 1, 2],
                 "nodes": [("add", "Add"), ("relu", "Relu")]},
                {"kernel": 2, "args": [2, 3], "nodes": [("relu_z", "Relu")]},
                {"kernel": 3, "args": [0, 1, 4], "nodes": [("add2", "Add")]},
                {"kernel": 4, "args": [4, 5], "nodes": [("relu2", "Relu")]},
                {"kernel": 0, "args": [0, 1, 5], "strategy": "kernel slow",
                 "nodes": [("add2", "Add"), ("relu2", "Relu")]}],
            "choices": [
                {"key": "Add+Relu float32[2,3,4]", "selected": 0, "tuned": 0,
                 "candidates": [
                     {"label": "kernel add_relu slow", "first": 0, "num": 1},
                     {"label": "kernel add_relu", "first": 1, "num": 1}]},
                {"key": "Add,Relu float32[2,3,4] \"two\"", "selected": 0,
                 "tuned": 0,
                 "candidates": [
                     {"label": "kernel add + kernel relu", "first": 3,
                      "num": 2},
                     {"label": "kernel add_relu slow", "first": 5,
                      "num": 1}]}]}],
        "weights": {"w": ADDRELU_W},
    }


MODELS = {
    "relu": model_relu,
    "addrelu": model_addrelu,
    "addrelu-bad-reference": lambda: model_addrelu(bad_reference=True),
    "multi": model_multi,
    "dtypes": model_dtypes,
    "matmul": model_matmul,
    "conv": model_conv,
    "conv-nobias": model_conv_nobias,
    "conv-nhwc": model_conv_nhwc,
    "mixed": model_mixed,
    "choices": model_choices,
}

# The models whose launches call cuBLASLt or cuDNN: --target cuda.
LIBRARY_MODELS = ("matmul", "conv", "conv-nobias", "conv-nhwc", "mixed")


def input_values(name):
    """The deterministic input values the tests feed MODELS[name], by name
    (bfloat16 as its uint16 bits, as fuse-run takes it)."""
    rng = np.random.default_rng(7)
    if name in ("relu", "addrelu", "addrelu-bad-reference", "mixed",
                "choices"):
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
    if name in ("matmul", "conv", "conv-nobias", "conv-nhwc"):
        model = MODELS[name]()
        return {t["name"]: rng.standard_normal(t["dims"]).astype(np.float32)
                for t in model["inputs"]}
    raise KeyError(name)


def expected_outputs(name, inputs):
    """The outputs of MODELS[name] computed with numpy, by name."""
    if name == "relu":
        return {"y": np.maximum(inputs["x"], 0)}
    if name.startswith("addrelu"):
        return {"y": np.maximum(inputs["x"] + ADDRELU_W, np.float32(0))}
    if name == "choices":
        y = np.maximum(inputs["x"] + ADDRELU_W, np.float32(0))
        return {"y": y, "z": y, "y2": y}
    if name == "multi":
        return {"s": inputs["a"] * np.float32(2), "c": inputs["b"] + 1,
                "a_out": inputs["a"], "w_out": MULTI_W}
    if name == "dtypes":
        return {k + "_out": v for k, v in inputs.items()}
    if name == "matmul":
        return expected_matmul(inputs)
    if name == "conv":
        return expected_conv(inputs)
    if name == "conv-nobias":
        return expected_conv_nobias(inputs)
    if name == "conv-nhwc":
        return expected_conv_nhwc(inputs)
    if name == "mixed":
        return expected_mixed(inputs)
    raise KeyError(name)


# ---------------------------------------------------------------------------
# Metadata: one group per launch, over all plans in order (as fuse-compile
# writes it), unless a launch says otherwise.
# ---------------------------------------------------------------------------

def describe_launch(model, plan, launch):
    """(strategy, flops, bytes) of a launch, for its group."""
    kind = launch.get("kind", "kernel")
    args = sorted(set(launch["args"]))
    moved = sum(nbytes(plan["buffers"][a]) for a in args)
    if kind == "matmul":
        p = launch["params"]
        strategy = "cublaslt matmul" + ("+bias" if p["epilogue"] in (1, 3)
                                        else "") + (
            "+residual" if p["hasResidual"] else "") + (
            "+relu" if p["epilogue"] in (2, 3) else "")
        return strategy, 2 * p["batch"] * p["m"] * p["n"] * p["k"], moved
    if kind == "conv":
        p = launch["params"]
        strategy = "cudnn conv" + ("+bias" if p["hasBias"] else "") + (
            "+residual" if p["hasResidual"] else "") + (
            "+relu" if p["activation"] else "")
        flops = (2 * p["n"] * p["k"] * p["outH"] * p["outW"] *
                 (p["c"] // p["groups"]) * p["r"] * p["s"])
        return strategy, flops, moved
    out = plan["buffers"][launch["args"][-1]]
    elements = int(np.prod(out["dims"], dtype=np.int64))
    strategy = launch.get("strategy", "kernel elementwise(32)")
    return strategy, elements * len(launch.get("nodes", [1])), moved


def add_metadata(model):
    """Gives each launch a group (unless the model has its own groups)."""
    if "groups" in model:
        return
    groups = []
    for plan in model["plans"]:
        for launch in plan["launches"]:
            strategy, flops, moved = describe_launch(model, plan, launch)
            launch["group"] = len(groups)
            groups.append({"strategy": strategy, "flops": flops,
                           "bytes": moved,
                           "nodes": launch.get("nodes", [])})
    model["groups"] = groups


def encode_metadata(model):
    groups = model.get("groups", [])
    out = u32(model.get("num_groups", len(groups)))
    for g in groups:
        out += string(g["strategy"]) + u64(g["flops"]) + u64(g["bytes"])
        out += u32(len(g["nodes"]))
        for name, op in g["nodes"]:
            out += string(name) + string(op)
    return out + model.get("metadata_trailer", b"")


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------

def lay_out(model):
    """Places the weights in the Weights section and each plan's arena
    buffers one after the other, 64-byte aligned, then one workspace after
    them that the plan's library launches share (they run one at a time)."""
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
        workspace = align(end)
        for launch in plan["launches"]:
            wanted = launch.get("workspace_bytes", 0)
            launch.setdefault("workspace",
                              (workspace, wanted) if wanted else (0, 0))
            end = max(end, launch["workspace"][0] + launch["workspace"][1])
        # --extra-arena: a plan 'main' arena larger than its buffers need.
        extra = model.get("extra_arena", 0) if plan is model["plans"][0] else 0
        plan.setdefault("arena", end + extra)


def encode_launch(launch):
    kind = launch.get("kind", "kernel")
    library = kind in ("matmul", "conv")
    zeros = [0, 0, 0]
    out = u32(LAUNCH_KINDS.get(kind, kind) if isinstance(kind, str) else kind)
    out += u32(launch.get("kernel", NONE if library else 0))
    out += b"".join(u32(v) for v in launch.get("grid", zeros if library
                                               else [1, 1, 1]))
    out += b"".join(u32(v) for v in launch.get("block", zeros if library
                                               else [1, 1, 1]))
    out += u32(launch.get("shared", 0))
    out += u32(launch.get("group", NONE))
    offset, size = launch.get("workspace", (0, 0))
    out += u64(offset) + u64(size)
    args = launch["args"]
    out += u32(launch.get("num_args", len(args)))
    out += b"".join(u32(a) for a in args)
    params = launch.get("params", b"")
    if isinstance(params, dict):
        params = encode_params(kind, params)
    return out + u32(len(params)) + params


def encode_plan(model):
    out = u32(len(model["inputs"])) + b"".join(
        tensor_desc(t) for t in model["inputs"])
    out += u32(len(model["outputs"])) + b"".join(
        tensor_desc(t) for t in model["outputs"])
    out += u32(len(model["kernels"]))
    for k in model["kernels"]:
        out += string(k["name"]) + u32(k["args"])
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
            out += encode_launch(launch)
        out += encode_choices(p.get("choices", []))
        if model.get("header", {}).get("version", FORMAT_VERSION) >= 8:
            out += u32(len(p.get("checks", [])))
            for c in p.get("checks", []):
                out += u32(c["buffer"]) + string(c["node"])
                out += string(c["op"]) + string(c["range"])
    return out + model.get("plan_trailer", b"")


def encode_choices(choices):
    """numChoices, then each ChoiceDesc with its CandidateDescs."""
    out = u32(len(choices))
    for c in choices:
        out += string(c["key"]) + u32(c["selected"]) + u32(c["tuned"])
        out += u32(c.get("num_candidates", len(c["candidates"])))
        for d in c["candidates"]:
            out += string(d["label"]) + u32(d["first"]) + u32(d["num"])
            out += f32(d.get("time", 0.0))
    return out


def encode(model, target, arch, image, ptx=None):
    """The artifact's bytes. Hooks in `model` let defects change the
    sections ("section_hook"), the header ("header") and the checksum."""
    lay_out(model)
    sections = [("plan", encode_plan(model)), ("image", image)]
    if ptx is not None:
        sections.append(("ptx", ptx))
    sections.append(("weights", model["weights_blob"]))
    if model.get("groups") or "metadata_trailer" in model:
        sections.append(("metadata", encode_metadata(model)))
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


def launch0(m):
    return main_plan(m)["launches"][0]


def choice(m, index):
    return main_plan(m)["choices"][index]


def candidate(m, index, which):
    return choice(m, index)["candidates"][which]


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


def cpu_levels(*variants, version=4):
    """Format `version`, with one KernelImage (the same bytes) for each
    of `variants` (their sections' variant fields: x86-64 levels)."""
    def sections(s):
        out = []
        for k, p in s:
            out += [(k, p)] * (len(variants) if k == "image" else 1)
        return out

    def entries(e):
        images = [x for x in e if x[0] == SECTIONS["image"]]
        for entry, variant in zip(images, variants):
            entry[1] = variant

    def apply(m):
        m.setdefault("header", {})["version"] = version
        m["sections_hook"] = sections
        m["entries_hook"] = entries
    return apply


def build_section(compiler, flags, version=5, cut=0):
    """Format `version` with a Build section (compiler, flags), its last
    `cut` bytes cut off; the KernelImage names its level (x86-64), as it
    must from version 4."""
    payload = string(compiler) + string(flags)
    payload = payload[:len(payload) - cut]
    level = cpu_levels(1, version=version)

    def apply(m):
        level(m)
        images = m["sections_hook"]
        m["sections_hook"] = lambda s: images(s) + [("build", payload)]
    return apply


def edit(fn):
    """A defect that edits the model dict in place."""
    return fn


def edit_params(**fields):
    """Sets fields of launch 0's library parameters."""
    return lambda m: launch0(m)["params"].update(fields)


def typed_params(version=6, **launch0_fields):
    """Format 6, whose library parameters end with their element types:
    float32 everywhere (no TF32), but for `launch0_fields` of launch 0;
    format 7's convolutions also end with their layout (NCHW)."""
    def apply(m):
        m.setdefault("header", {})["version"] = version
        for plan in m["plans"]:
            for launch in plan["launches"]:
                if launch.get("kind") not in ("matmul", "conv"):
                    continue
                p = launch["params"]
                fields = (["inputType", "outputType", "tf32"]
                          if launch["kind"] == "matmul"
                          else ["dataType", "tf32"] +
                          (["layout"] if version >= 7 else []))
                values = {"inputType": 1, "outputType": 1, "dataType": 1,
                          "tf32": 0, "layout": 0}
                if launch is launch0(m):
                    values.update(launch0_fields)
                p["trailer"] = b"".join(u32(values[f]) for f in fields)
    return apply


def index_check(buffer_kind="check", dtype="float32", dims=(), **fields):
    """Format 8, plan 'main' with an index check of a buffer of its own
    (`buffer_kind`, `dtype`, `dims`); `fields` change the check."""
    def apply(m):
        cpu_levels(1, version=8)(m)
        plan = main_plan(m)
        plan["buffers"].append(buf(buffer_kind, dict(name="check",
                                                     dtype=dtype,
                                                     dims=list(dims))))
        check = dict(buffer=len(plan["buffers"]) - 1, node="g", op="Gather",
                     range="axis 0 of size 5")
        check.update(fields)
        plan["checks"] = [check]
    return apply


def spread_checks(m):
    """A second check whose buffer lies 1088 bytes past the first's."""
    plan = main_plan(m)
    plan["buffers"].append(buf("intermediate", f32t([256])))
    plan["buffers"].append(buf("check", dict(dtype="float32", dims=[])))
    plan["checks"].append(dict(plan["checks"][0],
                               buffer=len(plan["buffers"]) - 1))


def raw_params(fn):
    """Replaces launch 0's params by fn(its encoded bytes)."""
    def apply(m):
        launch = launch0(m)
        launch["params"] = fn(encode_params(launch["kind"], launch["params"]))
    return apply


def cut_section(kind, n):
    return edit_sections(lambda s: [(k, p[:-n] if k == kind else p)
                                    for k, p in s])


DEFECTS = {
    "bad-magic": set_header(magic=b"NOTFUSE\0"),
    "bad-version": set_header(version=9),
    "old-version": set_header(version=2),
    "unknown-target": set_header(target=5),
    "header-reserved": set_header(reserved=3),
    "bad-checksum": set_header(checksum=0x1234),
    "trailing-bytes": None,  # Handled in main: bytes appended.
    "arch-unterminated": set_header(arch=b"x" * 24),
    "unknown-cpu-level": set_header(arch=b"x86-64-v9".ljust(24, b"\0")),
    "section-table-past-end": set_header(num_sections=1000),
    "unknown-section": edit_entry(0, kind=9),
    "section-reserved": edit_entry(1, reserved=1),
    # Format 4: a cpu KernelImage per x86-64 level, the header's arch the
    # lowest.
    "twolevels": cpu_levels(1, 3),  # valid: no "-", unlike the defects
    "cpu-level-unknown": cpu_levels(1, 9),
    "cpu-level-twice": cpu_levels(1, 1),
    "cpu-level-not-arch": cpu_levels(3),
    "cpu-level-in-v3": cpu_levels(1, 3, version=3),
    # Format 5: the compiler and its flags (valid: no "-").
    "withbuild": build_section("fuse 9.9.9, commit abc, LLVM 22.1.0",
                               "--target=cpu --input-shape=x=2x3"),
    "build-in-v4": build_section("fuse", "", version=4),
    "build-truncated": build_section("fuse 9.9.9", "--target=cpu", cut=3),
    "section-misaligned": edit_entry(1, offset=lambda e: e[1][2] + 8),
    "section-overlaps-header": edit_entry(1, offset=0),
    "section-out-of-bounds": edit_entry(2, size=1 << 20),
    "section-offset-huge": edit_entry(2, offset=0xFFFFFFFFFFFFFFC0),
    "sections-overlap": edit_entry(2, offset=lambda e: e[1][2]),
    "duplicate-section": edit_entry(2, kind=2),
    "duplicate-metadata": edit_sections(lambda s: s + [
        x for x in s if x[0] == "metadata"]),
    "no-plan-section": edit_sections(lambda s: s[1:]),
    "no-kernel-image": edit_sections(lambda s: [x for x in s
                                                if x[0] != "image"]),
    "empty-kernel-image": edit_sections(lambda s: [
        (k, b"" if k == "image" else p) for k, p in s]),
    "cpu-with-ptx": edit_sections(lambda s: s + [("ptx", b".version 8.0")]),
    "not-elf": edit_sections(lambda s: [
        (k, b"hello, world\n" * 8 if k == "image" else p) for k, p in s]),
    # 7: launch 1's params length cut, its numChoices gone.
    "truncated-plan": cut_section("plan", 7),
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
    "non-utf8-name": edit(lambda m: m["kernels"][0].__setitem__(
        "name", b"relu\xff")),
    "empty-kernel-name": edit(lambda m: m["kernels"][0].__setitem__("name",
                                                                    "")),
    "grid-zero": edit(lambda m: launch0(m).__setitem__("grid", [4, 0, 1])),
    "block-zero": edit(lambda m: m["plans"][1]["launches"][1].__setitem__(
        "block", [0, 1, 1])),
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
                              .__setitem__("offset", 112)),
    "input-misaligned": edit(lambda m: main_plan(m)["buffers"][0]
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
    "kernel-index": edit(lambda m: launch0(m).__setitem__("kernel", 9)),
    "arg-count": edit(lambda m: launch0(m).__setitem__("args", [0, 2])),
    "launch-buffer-index": edit(lambda m: launch0(m).__setitem__(
        "args", [0, 17, 2])),
    "arena-overflow": edit(lambda m: [p.__setitem__("arena", 1 << 63)
                                      for p in m["plans"]]),

    # Launch kinds, groups, and what a kernel launch may not have.
    "unknown-launch-kind": edit(lambda m: launch0(m).__setitem__("kind", 7)),
    "launch-kind-zero": edit(lambda m: launch0(m).__setitem__("kind", 0)),
    "group-out-of-range": edit(lambda m: launch0(m).__setitem__("group", 5)),
    "group-without-metadata": edit(lambda m: (
        m.__setitem__("groups", []), launch0(m).__setitem__("group", 0))),
    "kernel-with-params": edit(lambda m: launch0(m).__setitem__(
        "params", b"\0" * 8)),
    "kernel-with-workspace": edit(lambda m: launch0(m).__setitem__(
        "workspace", (0, 64))),
    "kernel-with-workspace-offset": edit(lambda m: launch0(m).__setitem__(
        "workspace", (64, 0))),

    # Library launches (on the matmul and conv models, see DEFECT_MODELS).
    "library-in-cpu": None,  # The matmul model written for the cpu target.
    "library-names-kernel": edit(lambda m: launch0(m).__setitem__("kernel",
                                                                  0)),
    "matmul-params-truncated": raw_params(lambda p: p[:-2]),
    "matmul-params-trailing": raw_params(lambda p: p + b"\0" * 4),
    "matmul-params-empty": raw_params(lambda p: b""),
    "conv-params-truncated": raw_params(lambda p: p[:100]),
    "conv-params-trailing": raw_params(lambda p: p + b"\1"),
    "matmul-zero-m": edit_params(m=0),
    "matmul-negative-batch": edit_params(batch=-2),
    "matmul-trans-flag": edit_params(transA=2),
    "matmul-epilogue": edit_params(epilogue=4),
    "matmul-residual-flag": edit_params(hasResidual=7),
    "matmul-lda": edit_params(lda=5),
    "matmul-ldb": edit_params(ldb=4),
    "matmul-negative-stride": edit_params(strideA=-24),
    "matmul-overflow": edit_params(batch=1 << 40, strideA=1 << 40),
    # Format 6's element types: float32 reads as version 5 did; a type no
    # library call takes, TF32 of half inputs, half outputs of float32
    # inputs, half inputs on float32 buffers.
    # (Valid, so not named like the defects: validation.test loads every
    # <kind>-<defect>.fbin expecting a format error.)
    "typedfloat32": typed_params(),
    "tf32first": typed_params(tf32=1),
    "matmul-input-type": typed_params(inputType=6),
    "matmul-tf32-half": typed_params(inputType=10, outputType=10, tf32=1),
    "matmul-narrowing-output": typed_params(outputType=16),
    "matmul-half-buffers": typed_params(inputType=10),
    "conv-data-type": typed_params(dataType=11),
    # Format 7's layout: NCHW reads as before; NHWC takes one group.
    "layoutnchw": typed_params(version=7),
    "conv-layout": typed_params(version=7, layout=2),
    "conv-nhwc-groups": typed_params(version=7, layout=1),
    "conv-out-size": edit_params(outH=5),
    "conv-groups": edit_params(groups=4),
    "conv-zero-stride": edit_params(strideH=0),
    "conv-negative-pad": edit_params(padW=-1),
    "conv-window": edit_params(r=9, outH=0),
    "conv-activation": edit_params(activation=2),
    "conv-bias-flag": edit_params(hasBias=2),
    "conv-huge": edit_params(n=1 << 31, c=1 << 31, h=1 << 31, w=1 << 31,
                             outH=1 << 31, outW=1 << 31, groups=1),
    "conv-too-large-dim": edit_params(n=(1 << 31) + 1),
    "library-arg-count": edit(lambda m: launch0(m)["args"].pop(2)),
    "library-arg-extra": edit(lambda m: launch0(m)["args"].insert(0, 0)),
    "operand-too-small": edit_params(lda=8),
    "operand-wrong-size": edit(lambda m: (
        main_plan(m)["buffers"][MATMUL_NAMES.index("y1")].update(dims=[4, 6]),
        m["outputs"][0].update(dims=[4, 6]))),
    "operand-not-float32": edit(lambda m: main_plan(m)["buffers"][
        MATMUL_NAMES.index("b1")].update(dtype="int32")),
    # D is a weight: a float32[4,5] view of the first bytes of w1.
    "library-writes-weight": edit(lambda m: (
        main_plan(m)["buffers"].append(buf("weight", f32t([4, 5]),
                                           weight="w1")),
        launch0(m)["args"].__setitem__(4, len(MATMUL_NAMES)))),
    "library-writes-input": edit(lambda m: launch0(m)["args"].__setitem__(
        4, MATMUL_NAMES.index("c"))),
    "workspace-out-of-arena": edit(lambda m: (lay_out(m), launch0(
        m).__setitem__("workspace", (main_plan(m)["arena"] - 64, 4096)))),
    "workspace-misaligned": edit(lambda m: launch0(m).__setitem__(
        "workspace", (32, 64))),
    "workspace-huge": edit(lambda m: (lay_out(m), launch0(m).__setitem__(
        "workspace", (64, 0xFFFFFFFFFFFFFFC0)))),
    "workspace-on-input": edit(lambda m: launch0(m).__setitem__(
        "workspace", (0, 64))),
    # The workspace of launch 0 on its own output.
    "workspace-on-operand": edit(lambda m: (lay_out(m), launch0(
        m).__setitem__("workspace", (main_plan(m)["buffers"][
            launch0(m)["args"][-1]]["offset"], 64)))),
    # The launch that reads intermediate t writes over it.
    "library-output-aliases-operand": edit(lambda m: (lay_out(m), main_plan(
        m)["buffers"][MATMUL_NAMES.index("y4")].__setitem__(
            "offset", main_plan(m)["buffers"][MATMUL_NAMES.index("t")][
                "offset"]))),

    # Index checks (format 8). Valid: its buffer is never written, and the
    # zeros of a fresh arena read as index 0 out of range.
    "indexcheck": index_check(),
    "check-buffer-range": index_check(buffer=99),
    "check-buffer-kind": index_check(buffer_kind="intermediate"),
    "check-buffer-type": index_check(dtype="int32", dims=[1]),
    "check-empty-range": index_check(range=""),
    "check-unnamed": edit(lambda m: (index_check()(m),
                                     main_plan(m).__setitem__("checks", []))),
    "check-spread": edit(lambda m: (index_check()(m), spread_checks(m))),

    # Choices (on the choices model, see DEFECT_MODELS).
    "choice-one-candidate": edit(lambda m: choice(m, 0)["candidates"].pop()),
    "choice-selected": edit(lambda m: choice(m, 1).__setitem__("selected",
                                                               2)),
    "choice-tuned-flag": edit(lambda m: choice(m, 0).__setitem__("tuned", 2)),
    "choice-no-launches": edit(lambda m: candidate(m, 0, 1).__setitem__(
        "num", 0)),
    "choice-gap": edit(lambda m: candidate(m, 1, 1).__setitem__("first", 6)),
    "choice-past-end": edit(lambda m: candidate(m, 1, 1).__setitem__(
        "num", 5)),
    "choice-overlap": edit(lambda m: candidate(m, 1, 0).__setitem__(
        "first", 1)),
    "choice-order": edit(lambda m: main_plan(m)["choices"].reverse()),
    "choice-negative-time": edit(lambda m: candidate(m, 0, 1).__setitem__(
        "time", -1.0)),
    "choice-nan-time": edit(lambda m: candidate(m, 1, 0).__setitem__(
        "time", float("nan"))),
    "choice-truncated": cut_section("plan", 3),
    "choice-huge-count": edit(lambda m: choice(m, 1).__setitem__(
        "num_candidates", 1000000)),
    "choice-nul-key": edit(lambda m: choice(m, 0).__setitem__("key",
                                                              "Add\0")),

    # The Metadata section.
    "metadata-truncated": cut_section("metadata", 5),
    "metadata-trailing-bytes": edit(lambda m: m.__setitem__(
        "metadata_trailer", b"\0" * 4)),
    "metadata-huge-count": edit(lambda m: m.__setitem__("num_groups",
                                                        1000000)),
    "metadata-nul": edit(lambda m: m["groups"][0].__setitem__(
        "strategy", "kernel\0")),
}

# The names of the matmul model's buffers, in order, for its defects.
MATMUL_NAMES = (list(MATMUL_INPUTS) + list(MATMUL_WEIGHTS) +
                list(MATMUL_OUTPUTS) + ["t"])

# Defects written on another model than --all-defects' (name, target).
DEFECT_MODELS = {
    "duplicate-input-name": ("multi", None),
    "inputs-share-buffer": ("multi", None),
    "library-in-cpu": ("matmul", "cpu"),
    "typedfloat32": ("matmul", "cuda"),
    "layoutnchw": ("conv", "cuda"),
}
for _defect in DEFECTS:
    if _defect.startswith(("library-", "matmul-", "operand-", "workspace-")):
        DEFECT_MODELS.setdefault(_defect, ("matmul", "cuda"))
    if _defect.startswith("conv-"):
        DEFECT_MODELS.setdefault(_defect, ("conv", "cuda"))
    if _defect.startswith("choice-"):
        DEFECT_MODELS.setdefault(_defect, ("choices", "cpu"))

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
                        help="dynamic shared memory of every kernel launch")
    parser.add_argument("--extra-arena", type=int, default=0,
                        help="bytes added to plan 'main''s arena (to make "
                        "one larger than the device's memory)")
    parser.add_argument("--no-metadata", action="store_true",
                        help="write no Metadata section (no groups)")
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
    if args.all_defects:
        for defect in DEFECTS:
            name, target = DEFECT_MODELS.get(defect, (args.model, None))
            target = target or args.target
            write(f"{args.out}/{defect}.fbin", name, defect, target,
                  args.arch, image, ptx, args.image)
    else:
        if args.model in LIBRARY_MODELS and args.target != "cuda" and \
                args.defect != "library-in-cpu":
            parser.error(f"model '{args.model}' calls cuBLASLt or cuDNN: "
                         "it needs --target cuda")
        target = "cpu" if args.defect == "library-in-cpu" else args.target
        write(args.out, args.model, args.defect, target, args.arch, image,
              ptx, args.image, args.shared_bytes, args.extra_arena,
              args.no_metadata)


def write(path, name, defect, target, arch, image, ptx, image_given,
          shared_bytes=0, extra_arena=0, no_metadata=False):
    if target == "cuda" and ptx is None and not image_given:
        # No GPU toolchain in the tests: a stand-in cubin and PTX.
        image, ptx = b"\x7fELF fake cubin", b".version 8.0\n.target sm_90\n"
    if target == "cpu":
        ptx = None
    arch = arch or ("sm_90" if target == "cuda" else "x86-64")
    # A deep copy: the models share their tensor dicts, which defects edit.
    model = copy.deepcopy(MODELS[name]())
    model["extra_arena"] = extra_arena
    for plan in model["plans"]:
        for launch in plan["launches"]:
            if launch.get("kind", "kernel") != "kernel":
                continue
            launch["shared"] = shared_bytes
            if target == "cuda":  # kernels.ptx: one thread per element.
                launch["block"] = [32, 1, 1]
    if not no_metadata:
        add_metadata(model)
    if defect and DEFECTS[defect]:
        DEFECTS[defect](model)
    data = encode(model, target, arch, image, ptx)
    if defect == "trailing-bytes":
        data += b"\0" * 64
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    sys.exit(main())
