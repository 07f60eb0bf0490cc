#!/usr/bin/env python3
"""Differential testing of fuse against onnxruntime on random models.

Each case is a small random ONNX graph (1 to 8 nodes, a DAG) of operators
fuse supports, on random shapes (dims of 0 and 1 included) and dtypes
(float32 mostly; float16, bfloat16, float64, int32, int64, bool where the
operator's schema at the opset, and onnxruntime, take them), with random
attributes, at opset 13, 17, 18, 20 or 21. The model is checked with
onnx.checker and shape inference, run by onnxruntime's CPU provider on
random inputs, compiled with `fuse-compile --target=cpu --cpu=x86-64
--no-reference`, run with `fuse-run`, and the outputs compared.

onnxruntime's CPU provider has almost no bfloat16 kernels: a model with
bfloat16 values (bfloat16 is the main dtype of about 7% of the cases, and
some values of others) is run by onnxruntime as its float32 twin
(float32_twin), whose bfloat16 outputs are compared at bfloat16's
tolerance. fuse-run reads and writes bfloat16 in an .npz as its bits, in
uint16. About 4% of the cases expect an error (OOB_CASES): one Gather,
GatherElements or GatherND takes indices from a graph input with values
out of range (past the end, below -dim, or as far as 2^40 or the type's
limits), its result a graph output.

    differential.py [--seed N] [--count N | --minutes M] [--jobs J]
                    [--out DIR] [--fuse-compile BIN] [--fuse-run BIN]
    differential.py --seed N --case I [--out DIR]    # one case again
    differential.py --replay MODEL.onnx [--inputs IN.npz]
    differential.py --reduce DIR      # shrink a failing case saved in DIR

Every case ends in one category:

  pass      fuse's outputs match onnxruntime's: shapes and dtypes exactly;
            integers and bool exactly; floats within the tolerance of the
            least precise float type the value went through (float32 rtol
            1e-4, atol 1e-5; float16 1e-2, 4e-3; bfloat16 8e-2, 3e-2;
            float64 1e-7, 1e-9; atol scaled by the output's largest
            magnitude), NaN matching NaN. A float element beyond that
            passes if the model computed in float64 (onnx's reference
            evaluator) shows the difference is rounding: see compare().
            An error-expected case passes when onnxruntime fails at the
            node and fuse-run exits with status 1 and an error that names
            the node and says "out of range"
  refused   fuse-compile exited with status 1 and every `error:` line
            names a node or a graph input or output (an operator, dtype
            or feature fuse does not support)
  invalid   the generated model was rejected by onnx.checker or shape
            inference, onnxruntime refused, failed or crashed on it, or
            it computed an output shape other than onnx's shape inference
            (no oracle); in an error-expected case, onnxruntime did not
            fail at the node
  mismatch  (failure) an output differs from onnxruntime's, or fuse-run
            succeeded on out-of-range indices (a silent wrong answer)
  crash     (failure) a tool died of a signal or exited with another
            status, printed "LLVM ERROR", an assertion, a stack dump or a
            sanitizer report, refused with an error that names no node or
            with an internal error (about an op of the dialects fuse
            lowers to, such as 'linalg.generic'), or fuse-run failed on a
            model that compiled (in an error-expected case: failed
            otherwise than with the node's out-of-range error)
  hang      (failure) a tool ran longer than --timeout seconds (60)

A given seed always generates the same models (case I of seed N is the
same whatever --jobs, --count or --minutes). Each failing case is saved
under --out (model.onnx, inputs.npz, expect.json with its tolerances,
onnxruntime's, fuse's and the float64 outputs, the tools' messages and
replay.sh with the commands); an --out that exists and is not empty is
left alone: a fresh folder run-K inside it is used. Prints a line per
failure, progress every --progress seconds, and a summary (categories,
those of the bfloat16 and of the error-expected cases, the most frequent
refusals and onnxruntime errors, how often each operator appeared);
exits 1 on any failure.

What the generator stays away from, and why:

  - integer divisors of 0 or -1 (onnxruntime traps on x / 0 and INT_MIN
    / -1, fuse defines a value: docs/robustness.md, "Defined results"),
    and integer results that could overflow (int_bound);
  - a ReduceMean over an empty dim into a non-empty result is compared
    where both agree: fuse gives NaN (as numpy), onnxruntime 0;
  - values that may hold NaN into min/max-like ops (NAN_SENSITIVE:
    onnxruntime's answer depends on where the NaN is);
  - ops that jump (Floor, comparisons, Cast to integers, ArgMax, TopK's
    indices...) take only exact values (EXACT_OPS), never ones a rounding
    difference upstream could move across the jump;
  - float16 and bfloat16 values that are not exact into ops that
    magnify a rounding difference (AMPLIFY);
  - dtypes the op's schema does not take at the opset (schema_dtypes:
    the model would only be invalid), what onnxruntime has no kernel for
    (ORT_NO_FLOAT64), and onnxruntime's own deviations (SAME padding with
    dilations);
  - the fuse bugs in KNOWN_BUGS (--known-bugs generates them again).
"""

import argparse
import collections
import concurrent.futures
import functools
import json
import math
import multiprocessing
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import ml_dtypes  # onnx's own dependency: numpy has no bfloat16
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ONNX_TYPE = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16,
             "bfloat16": TensorProto.BFLOAT16,
             "float64": TensorProto.DOUBLE, "int32": TensorProto.INT32,
             "int64": TensorProto.INT64, "bool": TensorProto.BOOL}
NP_TYPE = {v: k for k, v in ONNX_TYPE.items()}
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = ("float32", "float16", "bfloat16", "float64")
# The float types of few bits, whose rounding errors ops that amplify
# them (AMPLIFY) turn into large differences.
HALF = ("float16", "bfloat16")
INTS = ("int32", "int64")
NUMERIC = FLOATS + INTS
ALL = NUMERIC + ("bool",)
OPSETS = (13, 17, 18, 20, 21)
MAX_NODES = 8
MAX_ELEMENTS = 512

# |fuse - ort| <= atol * scale + rtol * |ort|, scale = max(1, max |ort|)
# of the output (an output computed through a cancellation is compared
# against the magnitude of its values, not each element's).
# bfloat16 has 8 significant bits to float16's 11: a unit in the last
# place 8 times as large, so the same count of rounding errors is float16's
# tolerance times 8 (rounded: (8e-2, 3e-2)). Its values are compared with
# onnxruntime's float32 result (see float32_twin), which has none of
# fuse's bfloat16 roundings of the intermediate values: the tolerance
# covers those.
TOLERANCE = {"float32": (1e-4, 1e-5), "float16": (1e-2, 4e-3),
             "bfloat16": (8e-2, 3e-2), "float64": (1e-7, 1e-9)}

# Float ops whose result is bit for bit the same in any correct
# implementation when their inputs are: data movement, selection and
# rounding. Their outputs stay "exact"; ops that change when an input
# moves by a rounding error (comparisons, Floor, Cast to an integer,
# ArgMax, TopK's indices, Mod, Sign...) take only exact inputs, so that a
# rounding difference upstream cannot flip them.
EXACT_OPS = {
    "Identity", "Neg", "Abs", "Relu", "Max", "Min", "Clip", "Floor", "Ceil",
    "Round", "Sign", "Where", "Cast", "ReduceMax", "ReduceMin", "MaxPool",
    "TopK", "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
    "Concat", "Slice", "Gather", "GatherElements", "GatherND", "Pad", "Tile",
    "Expand", "Split", "DepthToSpace", "SpaceToDepth", "Trilu",
    "ScatterElements", "ScatterND", "Hardmax", "Shape", "Size", "OneHot",
    "Not", "And", "Or", "Xor", "Equal", "Less", "Greater", "LessOrEqual",
    "GreaterOrEqual", "IsNaN", "IsInf", "ArgMax", "ArgMin",
}


# Ops whose result may be NaN or infinite for finite inputs (with inf,
# NaN follows: inf - inf, 0 * inf), and ops that onnxruntime and fuse
# may answer differently for a NaN input: onnxruntime's min and max
# (ReduceMax, Max, MaxPool, Clip, Relu...) return the NaN or the other
# operand depending on where it is, fuse's propagate it, and the
# specification leaves it open. Those take no value that may hold NaN.
NAN_SOURCES = {
    "Log", "Sqrt", "Asin", "Acos", "Acosh", "Atanh", "Pow", "Div",
    "Reciprocal", "Exp", "Sinh", "Cosh", "Tan", "ReduceLogSum",
    "ReduceProd", "ReduceSumSquare", "ReduceLogSumExp", "Softplus", "Mod",
}
NAN_SENSITIVE = {
    "ReduceMax", "ReduceMin", "Max", "Min", "MaxPool", "Clip", "Relu",
    "HardSigmoid", "HardSwish", "Celu", "TopK", "Shrink", "ThresholdedRelu",
    "LeakyRelu", "PRelu", "Elu", "Selu", "Softsign", "Mish", "Gelu",
    # onnxruntime's LRN keeps a running sum of squares across channels, so
    # a NaN makes every later channel of its image NaN, not only those
    # whose window holds it (the specification's window).
    "LRN",
}

# Ops that turn a small difference of their input into a large one (near
# 0 or 1): they take float16 and bfloat16 values only when exact, since
# onnxruntime computes float16 through float32 with casts it inserts, and
# keeps float32 along some edges of a graph and not others (x - x is not
# 0); its bfloat16 oracle is float32 throughout (float32_twin).
AMPLIFY = {
    "Log", "ReduceLogSum", "Div", "Reciprocal", "Pow", "Sqrt", "Mod",
    "Atanh", "Acosh", "Asin", "Acos", "Tan", "ReduceL2", "LpNormalization",
    "LayerNormalization", "InstanceNormalization",
}

# Normalizations divide by the spread of their rows: a row of near-equal
# values (an Expand, a Selu saturated at -1.76) makes x - mean a rounding
# error that 1/sqrt(var + epsilon) blows up, and fuse's and onnxruntime's
# rounding errors differ. They take only values whose rows are spread:
# random inputs, moved, or through ops that keep them apart.
NEEDS_SPREAD = {"LayerNormalization", "InstanceNormalization"}
SPREAD_OPS = {
    "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Slice",
    "Concat", "Identity", "Neg", "Add", "Sub", "Mul", "Exp", "Sin", "Erf",
    "MatMul", "Gemm", "Conv", "Softmax", "LogSoftmax", "Split",
    "LayerNormalization", "InstanceNormalization", "BatchNormalization",
}

# Ops onnxruntime's CPU provider has no float64 kernel for: not generated
# in float64 (the model would only be invalid).
ORT_NO_FLOAT64 = {
    "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "AveragePool", "Conv",
    "ConvTranspose", "Cosh", "Elu", "Erf", "GlobalAveragePool", "HardSigmoid",
    "HardSwish", "Hardmax", "InstanceNormalization", "LRN", "LeakyRelu",
    "LpPool", "Mean", "Mish", "PRelu", "Sinh", "Softplus", "Softsign", "Tan",
    "ThresholdedRelu", "Selu", "Gelu",
}

# Ops whose float64 kernel in onnxruntime computes in float32 (Shrink
# rounds x - bias to float): compared with float32's tolerance.
ORT_FLOAT32_MATH = {"Shrink"}

# Fuse bugs this generator found and leaves out of the models it makes
# (--known-bugs makes them again); docs/robustness.md lists them.
# Fuse bugs the generator stays away from until they are fixed (name: what
# goes wrong); the generator asks `"NAME" in AVOID` where it would make
# them. The first long run found five (reduce-no-dims, f16-conv-pads-lrn,
# logsumexp-overflow, pool-valid-ceil, importer-reshape-zero), all fixed:
# docs/robustness.md, "Bugs found".
KNOWN_BUGS = {}
AVOID = set(KNOWN_BUGS)


def np_dtype(name):
    """numpy's dtype of one of ONNX_TYPE's names (ml_dtypes' for
    bfloat16)."""
    return BF16 if name == "bfloat16" else np.dtype(name)


def is_float(a):
    """Whether an array holds floats (bfloat16 is not numpy's kind 'f')."""
    return a.dtype.kind == "f" or a.dtype == BF16


@functools.lru_cache(maxsize=None)
def schema_dtypes(op, opset):
    """The dtypes (ONNX_TYPE's names) op's schema at opset takes for its
    data operands: those that the first input and every required input
    of a type that holds floats allow (indices, shapes, a condition are
    not data); None where there is no schema (RowsGemm: several ops)."""
    try:
        schema = onnx.defs.get_schema(op, opset)
    except onnx.defs.SchemaError:
        return None
    constraints = {c.type_param_str: set(c.allowed_type_strs)
                   for c in schema.type_constraints}
    names = {d: "tensor(%s)" % {"float32": "float",
                                "float64": "double"}.get(d, d)
             for d in ONNX_TYPE}
    result = set(ONNX_TYPE)
    optional = onnx.defs.OpSchema.FormalParameterOption.Optional
    for k, formal in enumerate(schema.inputs):
        types = constraints.get(formal.type_str, {formal.type_str})
        if "tensor(float)" not in types or \
                k and formal.option == optional:
            continue
        result &= {d for d, t in names.items() if t in types}
    return frozenset(result)


class GenError(Exception):
    """The generator could not build this node (shape inference refused
    it, no fitting parameters): the node is dropped and another tried."""


class Value:
    def __init__(self, name, dtype, shape, exact, kind, data=None,
                 undefined=False):
        self.name = name
        self.dtype = dtype
        self.shape = tuple(shape)
        self.exact = exact
        self.kind = kind          # "input", "init" or "node"
        self.data = data          # for inputs and initializers
        self.undefined = undefined
        self.uses = 0
        self.hidden = False
        # The loosest tolerance of the float types it was computed in.
        self.tol = TOLERANCE.get(dtype)
        # Whether it may hold NaN or inf.
        self.maynan = False
        # A bound of |value|, for integers (no integer op may overflow:
        # fuse wraps, onnxruntime's ReduceProd saturates, C++ leaves it
        # undefined) and exact floats (which a Cast may make integers).
        self.spread = data is not None and data.size > 1
        self.bound = 1
        if data is not None and data.size:
            self.bound = int(np.ceil(np.abs(data.astype(np.float64)).max()))

    @property
    def rank(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))


class Gen:
    """Builds one random model."""

    def __init__(self, rng, opset):
        self.rng = rng
        self.opset = opset
        self.nodes = []
        self.pool = []            # every value a node may take
        self.inputs = []
        self.inits = []
        self.counter = 0
        self.current_op = None
        # A quarter of the cases have dims of 0.
        self.p_zero = 0.12 if rng.random() < 0.25 else 0.0
        self.main = self.pick(["float32", "float16", "bfloat16", "float64",
                               "int32", "int64"],
                              [0.56, 0.12, 0.07, 0.09, 0.08, 0.08])
        # An error-expected case: one Gather, GatherElements or GatherND
        # takes out-of-range indices (oob_wanted until it is made; oob:
        # that node's name and its result).
        self.oob_wanted = False
        self.oob = None

    # -- randomness ---------------------------------------------------------

    def pick(self, items, weights=None):
        items = list(items)
        if weights is not None:
            w = np.asarray(weights, np.float64)
            return items[int(self.rng.choice(len(items), p=w / w.sum()))]
        return items[int(self.rng.integers(len(items)))]

    def chance(self, p):
        return self.rng.random() < p

    def randint(self, lo, hi):
        """An integer in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def dim(self, allow_zero=True):
        if allow_zero and self.chance(self.p_zero):
            return 0
        if self.chance(0.25):
            return 1
        if self.chance(0.1):
            return self.randint(7, 16)
        return self.randint(2, 6)

    def shape(self, rank=None, allow_zero=True):
        if rank is None:
            rank = self.pick([0, 1, 2, 3, 4], [0.06, 0.19, 0.3, 0.25, 0.2])
        dims = [self.dim(allow_zero) for _ in range(rank)]
        while int(np.prod(dims, dtype=np.int64)) > MAX_ELEMENTS:
            k = int(np.argmax(dims))
            dims[k] = max(1, dims[k] // 2)
        return tuple(dims)

    def allowed(self, dtypes):
        """dtypes less those the current op's schema does not take at
        this opset and those onnxruntime has no kernel of the op for
        (GenError when none is left)."""
        schema = schema_dtypes(self.current_op, self.opset) \
            if self.current_op else None
        dtypes = tuple(d for d in dtypes if
                       (schema is None or d in schema) and
                       not (d == "float64" and
                            self.current_op in ORT_NO_FLOAT64))
        if not dtypes:
            raise GenError("no dtype for " + str(self.current_op))
        return dtypes

    def dtype(self, allowed=ALL):
        allowed = self.allowed(allowed)
        if self.main in allowed and self.chance(0.8):
            return self.main
        weights = {"float32": 0.5, "float16": 0.1, "bfloat16": 0.04,
                   "float64": 0.1, "int32": 0.1, "int64": 0.12, "bool": 0.08}
        allowed = list(allowed)
        return self.pick(allowed, [weights[d] for d in allowed])

    def name(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    # -- values -------------------------------------------------------------

    def data(self, dtype, shape, domain="any"):
        """Random values: never all zeros; domain 'positive', 'nonzero'
        (integers: never 0 or -1), 'small' (integers 0..3) or 'any'."""
        rng = self.rng
        ints = dtype in INTS
        if dtype == "bool":
            a = rng.random(shape) < 0.5
        elif domain == "positive":
            a = rng.integers(1, 8, shape) if ints else \
                rng.uniform(0.1, 3.0, shape)
        elif domain == "nonzero":
            a = rng.choice(np.array([-5, -4, -3, -2, 1, 2, 3, 4, 5]),
                           shape) if ints else \
                rng.uniform(0.25, 3.0, shape) * rng.choice([-1.0, 1.0], shape)
        elif domain == "small":
            a = rng.integers(0, 4, shape) if ints else rng.choice(
                np.array([0.0, 0.5, 1.0, 2.0, 3.0, -1.0, -2.0]), shape)
        else:
            a = rng.integers(-9, 10, shape) if ints else \
                rng.uniform(-3.0, 3.0, shape)
        a = np.asarray(a).astype(np_dtype(dtype))
        if a.size and not a.any():
            a.flat[0] = 1
        return a

    def fresh(self, dtype, shape, domain="any", kind=None, pool=True):
        """A new graph input or initializer."""
        if kind is None:
            kind = "init" if self.chance(0.3) else "input"
        data = self.data(dtype, shape, domain)
        v = Value(self.name("x" if kind == "input" else "c"), dtype, shape,
                  True, kind, data)
        (self.inputs if kind == "input" else self.inits).append(v)
        if pool and domain == "any":
            self.pool.append(v)
        return v

    def const(self, array, dtype=None):
        """An initializer holding a parameter (axes, shapes, pads...)."""
        a = np.asarray(array, dtype=dtype)
        v = Value(self.name("c"), str(a.dtype), a.shape, True, "init", a)
        self.inits.append(v)
        return v

    def take(self, pred, make, p_pool=0.8):
        """A value of the pool that satisfies pred (later and unused values
        more likely), else make()."""
        finite = self.current_op in NAN_SENSITIVE
        amplify = self.current_op in AMPLIFY
        spread = self.current_op in NEEDS_SPREAD
        cands = [v for v in self.pool if not v.undefined and pred(v)
                 and (v.spread or not spread)
                 and not (finite and v.maynan)
                 and not (amplify and v.dtype in HALF and not v.exact)]
        if cands and self.chance(p_pool):
            w = np.array([(1.0 + i) * (3.0 if v.uses == 0 else 1.0)
                          for i, v in enumerate(cands)])
            return cands[int(self.rng.choice(len(cands), p=w / w.sum()))]
        return make()

    def operand(self, dtypes=NUMERIC, exact=False, rank=None, min_rank=0,
                max_rank=4, nonempty=False, domain="any", finite=False):
        """A data operand: from the pool, or a fresh input; `finite`: not
        a value that may hold NaN or inf."""
        dtypes = self.allowed(dtypes)
        def ok(v):
            return (v.dtype in dtypes and (v.exact or not exact)
                    and not (finite and v.maynan)
                    and (rank is None or v.rank == rank)
                    and min_rank <= v.rank <= max_rank
                    and (not nonempty or v.size > 0))

        def make():
            r = rank if rank is not None else self.randint(
                min_rank, max(min_rank, min(max_rank, 4)))
            return self.fresh(self.dtype(dtypes),
                              self.shape(r, allow_zero=not nonempty),
                              domain)
        return self.take(ok, make)

    def like(self, shape, dtype, exact=False, domain="any", p_pool=0.5,
             finite=False):
        """An operand that broadcasts with `shape` (the same dtype)."""
        target = self.broadcastable(shape)

        def ok(v):
            if v.dtype != dtype or (exact and not v.exact) or \
                    (finite and v.maynan):
                return False
            try:
                out = np.broadcast_shapes(v.shape, tuple(shape))
            except ValueError:
                return False
            return int(np.prod(out, dtype=np.int64)) <= 4 * MAX_ELEMENTS
        if domain != "any":
            return self.fresh(dtype, target, domain, pool=False)
        return self.take(ok, lambda: self.fresh(dtype, target, domain),
                         p_pool)

    def broadcastable(self, shape):
        """A random shape that broadcasts with `shape` (one of: the same,
        a suffix, dims set to 1, more leading dims, 1s where shape has)."""
        shape = list(shape)
        choice = self.randint(0, 4)
        if choice == 0 or not shape and choice < 3:
            return tuple(shape)
        if choice == 1:
            return tuple(shape[self.randint(0, len(shape)):])
        if choice == 2:
            return tuple(1 if self.chance(0.5) else d for d in shape)
        if choice == 3 and len(shape) < 4:
            return tuple([self.dim()] + shape)
        return tuple(self.dim() if d == 1 and self.chance(0.7) else d
                     for d in shape)

    def made_oob(self):
        """After an index op: if it was to take out-of-range indices, it
        did (the last node is the one)."""
        if self.oob_wanted:
            self.oob_wanted = False
            self.oob = (self.nodes[-1].name, self.node_values[-1])

    # -- nodes --------------------------------------------------------------

    def add(self, op, inputs, attrs=None, outputs=1, exact=None,
            undefined=(), hidden=(), domain=""):
        """Adds a node; its output types come from onnx's shape inference
        of the node alone (GenError when it fails or leaves a dim
        unknown)."""
        attrs = {k: v for k, v in (attrs or {}).items() if v is not None}
        out_names = [self.name("v") for _ in range(outputs)]
        node = helper.make_node(
            op, [v.name if v is not None else "" for v in inputs], out_names,
            name="n%d_%s" % (len(self.nodes), op), **attrs)
        types = infer_node(node, [v for v in inputs if v is not None],
                           self.opset)
        if exact is None:
            exact = op in EXACT_OPS
        given = [v for v in inputs if v is not None]
        exact = exact and all(v.exact for v in given)
        if op in NAN_SENSITIVE and any(v.maynan for v in given):
            raise GenError("a NaN into " + op)
        # A Reduce* over no elements is its identity: +-inf for the min
        # and max.
        maynan = any(v.maynan for v in given) or op in NAN_SOURCES or (
            op.startswith("Reduce") and any(v.size == 0 for v in given))
        tols = [v.tol for v in given if v.tol]
        bound = int_bound(op, given, types)
        outs = []
        for k, (name, (dtype, shape)) in enumerate(zip(out_names, types)):
            if int(np.prod(shape, dtype=np.int64)) > 8 * MAX_ELEMENTS:
                raise GenError("too large")
            v = Value(name, dtype, shape,
                      exact or dtype in INTS + ("bool",) and k not in hidden,
                      "node", undefined=k in undefined)
            v.hidden = k in hidden
            if dtype in INTS:
                if bound >= 2 ** (31 if dtype == "int32" else 63):
                    raise GenError("%s may overflow %s" % (op, dtype))
            v.bound = bound
            v.spread = op in SPREAD_OPS and all(
                u.spread or u.size <= 1 for u in given if u.dtype in FLOATS)
            if dtype in FLOATS:
                v.maynan = maynan or dtype in HALF and not exact
                if op in ORT_FLOAT32_MATH:
                    tols.append(TOLERANCE["float32"])
                v.tol = tuple(max(t) for t in zip(TOLERANCE[dtype], *tols))
            outs.append(v)
        for v in inputs:
            if v is not None:
                v.uses += 1
        self.nodes.append(node)
        for v in outs:
            if not v.hidden:
                self.pool.append(v)
        self.node_values = getattr(self, "node_values", []) + outs
        return outs


def int_bound(op, inputs, types):
    """A bound of |result| of an integer op (2^70 standing for more)."""
    cap = 2 ** 70
    b = [min(v.bound, cap) for v in inputs] or [1]
    out_size = max(1, int(np.prod(types[0][1], dtype=np.int64)))
    n = max(1, inputs[0].size // out_size) if inputs else 1

    def power(x, k):
        if x <= 1:
            return x
        return cap if k * math.log2(x) >= 70 else x ** k
    if op in ("Add", "Sub", "Sum"):
        r = sum(b)
    elif op == "Mul":
        r = int(np.prod([min(x, cap) for x in b], dtype=object))
    elif op == "Pow":
        r = power(b[0], 3)
    elif op in ("MatMul", "Gemm", "Einsum"):
        k = inputs[0].shape[-1] if inputs[0].rank else 1
        r = max(1, k) * b[0] * (b[1] if len(b) > 1 else 1)
    elif op in ("ReduceSum", "ReduceL1", "CumSum", "ReduceMean"):
        r = b[0] * (inputs[0].size if op == "CumSum" else n)
    elif op == "ReduceSumSquare":
        r = n * b[0] * b[0]
    elif op == "ReduceProd":
        r = power(b[0], n)
    elif op in ("Shape", "Size", "ArgMax", "ArgMin", "TopK"):
        r = max([4096] + b)
    elif op in ("ReduceMin", "ReduceMax") and inputs and not inputs[0].size:
        # Over nothing: the type's largest or smallest value, whose sum with
        # anything may overflow (onnxruntime's ReduceProd of INT64_MAX - 7
        # went through a double and came back INT64_MAX).
        r = 2 ** (31 if types[0][0] == "int32" else 63) - 1
    else:
        r = max(b)
    return min(r, cap)


def infer_node(node, inputs, opset):
    """[(dtype, shape)] of the node's outputs, by onnx's shape inference
    of a model holding the node alone (initializers included, so that
    shapes that depend on them resolve)."""
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(v.name, ONNX_TYPE[v.dtype], v.shape)
         for v in inputs if v.kind != "init"],
        [onnx.ValueInfoProto(name=o) for o in node.output],
        [numpy_helper.from_array(v.data, v.name)
         for v in inputs if v.kind == "init"])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    try:
        inferred = onnx.shape_inference.infer_shapes(
            model, check_type=True, strict_mode=True, data_prop=True)
    except Exception as e:  # onnx's InferenceError and others
        raise GenError(str(e).splitlines()[0][:200])
    result = []
    for out in inferred.graph.output:
        t = out.type.tensor_type
        if t.elem_type not in NP_TYPE or not t.HasField("shape"):
            raise GenError("no type for " + out.name)
        dims = []
        for d in t.shape.dim:
            if not d.HasField("dim_value") or d.dim_value < 0:
                raise GenError("unknown or negative dim")
            dims.append(d.dim_value)
        result.append((NP_TYPE[t.elem_type], tuple(dims)))
    return result


# -- operators ---------------------------------------------------------------

UNARY_FLOAT = {
    # op: (min opset, domain of fresh inputs, needs exact input, attrs)
    "Relu": (1, "any", False, None), "Sigmoid": (1, "any", False, None),
    "Tanh": (1, "any", False, None), "Exp": (1, "any", False, None),
    "Log": (1, "positive", False, None), "Neg": (1, "any", False, None),
    "Abs": (1, "any", False, None), "Sqrt": (1, "positive", False, None),
    "Floor": (1, "any", True, None), "Ceil": (1, "any", True, None),
    "Round": (11, "any", True, None), "Sign": (9, "any", True, None),
    "Sin": (7, "any", False, None), "Cos": (7, "any", False, None),
    "Tan": (7, "any", False, None), "Asin": (7, "any", False, None),
    "Acos": (7, "any", False, None), "Atan": (7, "any", False, None),
    "Sinh": (9, "any", False, None), "Cosh": (9, "any", False, None),
    "Asinh": (9, "any", False, None), "Acosh": (9, "positive", False, None),
    "Atanh": (9, "any", False, None), "Erf": (9, "any", False, None),
    "Reciprocal": (1, "nonzero", False, None),
    "Softsign": (1, "any", False, None), "Softplus": (1, "any", False, None),
    "Elu": (1, "any", False, lambda g: {"alpha": g.pick([1.0, 0.5, 2.0])}),
    "Selu": (1, "any", False, None),
    "Celu": (12, "any", False, lambda g: {"alpha": g.pick([1.0, 0.5])}),
    "LeakyRelu": (1, "any", False,
                  lambda g: {"alpha": g.pick([0.01, 0.1, 0.5])}),
    "ThresholdedRelu": (10, "any", True,
                        lambda g: {"alpha": g.pick([1.0, 0.5, 0.0])}),
    "HardSigmoid": (1, "any", False,
                    lambda g: {"alpha": g.pick([0.2, 0.5]),
                               "beta": g.pick([0.5, 0.3])}),
    "HardSwish": (14, "any", False, None), "Mish": (18, "any", False, None),
    "Gelu": (20, "any", False,
             lambda g: {"approximate": g.pick(["none", "tanh"])}),
    "Shrink": (9, "any", True,
               lambda g: {"lambd": g.pick([0.5, 1.0]),
                          "bias": g.pick([0.0, 0.5])}),
    "IsNaN": (9, "any", False, None),
    "IsInf": (10, "any", False,
              lambda g: {"detect_negative": g.pick([0, 1]),
                         "detect_positive": g.pick([0, 1])}),
    "Identity": (1, "any", False, None),
}
FLOAT_ONLY32 = {"Celu"}


def op_unary(op):
    min_opset, domain, exact, attrs = UNARY_FLOAT[op]

    def build(g):
        dtypes = ("float32",) if op in FLOAT_ONLY32 else FLOATS
        if op in ("Abs", "Neg", "Sign", "Identity", "Relu"):
            dtypes = NUMERIC if op != "Relu" else FLOATS + ("int32",)
        if op == "Identity":
            dtypes = ALL
        if domain != "any" and g.chance(0.5):
            x = g.fresh(g.dtype(dtypes), g.shape(), domain)
        else:
            x = g.operand(dtypes, exact=exact)
        g.add(op, [x], attrs(g) if attrs else None)
    return min_opset, build


def op_not(g):
    g.add("Not", [g.operand(("bool",))])


ARITH = ("Add", "Sub", "Mul", "Div", "Pow", "Mod")
COMPARE = ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual")


def op_binary(op):
    def build(g):
        if op in ("And", "Or", "Xor"):
            dtypes = ("bool",)
        elif op == "Equal":
            dtypes = ALL
        else:
            dtypes = NUMERIC
        exact = op in COMPARE or op == "Mod"
        a = g.operand(dtypes, exact=exact and True)
        attrs = None
        if op in ("Div", "Mod") and a.dtype in INTS or op == "Mod":
            # Divisors: never 0 (nor -1 for integers, INT_MIN / -1).
            b = g.like(a.shape, a.dtype, domain="nonzero")
            if op == "Mod":
                attrs = {"fmod": 1 if a.dtype in FLOATS else g.pick([0, 1])}
        elif op == "Pow":
            b = g.like(a.shape, a.dtype, domain="small")
        elif g.chance(0.1):
            b = a
        else:
            b = g.like(a.shape, a.dtype, exact=exact)
        if g.chance(0.5):
            a, b = (b, a) if op not in ("Div", "Mod", "Pow") else (a, b)
        g.add(op, [a, b], attrs)
    return build


def op_variadic(op):
    def build(g):
        dtypes = FLOATS if op == "Mean" else NUMERIC
        a = g.operand(dtypes)
        args = [a] + [g.like(a.shape, a.dtype)
                      for _ in range(g.randint(0, 2))]
        g.add(op, args)
    return build


def op_prelu(g):
    x = g.operand(FLOATS)
    # The slope broadcasts to x (unidirectionally).
    shape = list(x.shape[g.randint(0, x.rank):])
    shape = [1 if g.chance(0.5) else d for d in shape]
    g.add("PRelu", [x, g.fresh(x.dtype, tuple(shape), kind="init")])


def op_where(g):
    x = g.operand(NUMERIC)  # onnxruntime has no bool Where
    y = g.like(x.shape, x.dtype)
    shape = np.broadcast_shapes(x.shape, y.shape)
    cond = g.take(lambda v: v.dtype == "bool" and _bcast(v.shape, shape),
                  lambda: g.fresh("bool", g.broadcastable(shape)))
    g.add("Where", [cond, x, y])


def _bcast(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def op_clip(g):
    x = g.operand(NUMERIC)
    lo = hi = None
    if g.chance(0.8):
        lo = g.fresh(x.dtype, (), kind="init" if g.chance(0.8) else "input",
                     pool=False)
    if g.chance(0.8):
        hi = g.fresh(x.dtype, (), kind="init" if g.chance(0.8) else "input",
                     pool=False)
    args = [x, lo, hi]
    while args[-1] is None:
        args.pop()
    g.add("Clip", args)


def op_cast(g):
    to = g.dtype(ALL)
    # To an integer or bool: only exact inputs (no rounding difference
    # upstream may flip the truncation); to an integer only finite ones
    # (a NaN or inf has no integer value: onnxruntime gives INT_MIN).
    exact = to in INTS + ("bool",)
    x = g.operand(ALL, exact=exact, finite=to in INTS)
    g.add("Cast", [x], {"to": ONNX_TYPE[to]})


REDUCE = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
          "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
          "ReduceLogSumExp")


def op_reduce(op):
    def build(g):
        dtypes = NUMERIC
        if op in ("ReduceL2", "ReduceLogSum", "ReduceLogSumExp"):
            dtypes = FLOATS
        no_dims = op in ("ReduceL1", "ReduceL2", "ReduceSumSquare",
                         "ReduceLogSum") and "reduce-no-dims" in AVOID
        x = g.operand(dtypes, min_rank=1 if no_dims else 0,
                      exact=op == "ReduceLogSumExp" and
                      "logsumexp-overflow" in AVOID)
        axes = None
        if x.rank and g.chance(0.85):
            k = g.randint(1, x.rank)
            axes = sorted(int(a) for a in g.rng.choice(x.rank, k,
                                                       replace=False))
            axes = [a - x.rank if g.chance(0.3) else a for a in axes]
        attrs = {"keepdims": g.pick([0, 1])}
        inputs = [x]
        as_input = op == "ReduceSum" or g.opset >= 18
        if axes is not None:
            if as_input:
                inputs.append(g.const(axes, np.int64))
            else:
                attrs["axes"] = axes
        elif as_input and g.chance(0.2) and not no_dims:
            attrs["noop_with_empty_axes"] = 1
        # A ReduceMean over an empty dim into a non-empty result: NaN in
        # fuse (as numpy), 0 in onnxruntime; its output is compared where
        # both agree, and not used by other nodes.
        reduced = range(x.rank) if axes is None else [a % x.rank for a in axes]
        if attrs.get("noop_with_empty_axes") == 1 and axes is None:
            reduced = []
        undefined = ()
        if op == "ReduceMean" and any(x.shape[a] == 0 for a in reduced):
            undefined = (0,)
        g.add(op, inputs, attrs, undefined=undefined)
    return build


def op_argmax(op):
    def build(g):
        x = g.operand(NUMERIC, exact=True, min_rank=1)
        g.add(op, [x], {"axis": g.randint(-x.rank, x.rank - 1),
                        "keepdims": g.pick([0, 1]),
                        "select_last_index": g.pick([0, 0, 1])})
    return build


def op_softmax(op):
    def build(g):
        x = g.operand(FLOATS, min_rank=1, exact=op == "Hardmax")
        g.add(op, [x], {"axis": g.randint(-x.rank, x.rank - 1)})
    return build


def normalized(g, shape, first):
    """An axis >= first over which a normalization is not of a single
    element (whose variance, 0, onnxruntime computes inexactly)."""
    axes = [a for a in range(first, len(shape))
            if np.prod(shape[a:], dtype=np.int64) != 1]
    if not axes:
        raise GenError("a normalization of one element")
    return g.pick(axes)


def op_layernorm(g):
    x = g.operand(FLOATS, min_rank=1)
    axis = normalized(g, x.shape, 0)
    if g.chance(0.3):
        axis -= x.rank
    norm = x.shape[axis:]
    scale = g.fresh(x.dtype, norm, kind="init" if g.chance(0.8) else "input",
                    pool=False)
    bias = g.fresh(x.dtype, norm, kind="init", pool=False) \
        if g.chance(0.6) else None
    outputs = g.pick([1, 1, 3])
    g.add("LayerNormalization", [x, scale] + ([bias] if bias else []),
          {"axis": axis, "epsilon": g.pick([1e-5, 1e-3, None])},
          outputs=outputs)


def op_batchnorm(g):
    x = g.operand(FLOATS, min_rank=2)
    c = (x.shape[1],)
    params = [g.fresh(x.dtype, c, kind="init", pool=False) for _ in range(3)]
    var = g.fresh(x.dtype, c, "positive", kind="init")
    g.add("BatchNormalization", [x] + params + [var],
          {"epsilon": g.pick([1e-5, 1e-3, None])})


def op_instancenorm(g):
    x = g.operand(FLOATS, min_rank=3)
    if normalized(g, x.shape, 2) != 2:
        raise GenError("an instance normalization of one element")
    c = (x.shape[1],)
    g.add("InstanceNormalization",
          [x, g.fresh(x.dtype, c, kind="init", pool=False),
           g.fresh(x.dtype, c, kind="init", pool=False)],
          {"epsilon": g.pick([1e-5, None])})


def op_lpnorm(g):
    x = g.operand(FLOATS, min_rank=1)
    g.add("LpNormalization", [x], {"axis": g.randint(-x.rank, x.rank - 1),
                                   "p": g.pick([1, 2])})


def op_matmul(g):
    a = g.operand(NUMERIC, min_rank=1)
    k = a.shape[-1]
    if a.rank == 1 or g.chance(0.15):
        bshape = (k,) if g.chance(0.3) and a.rank > 1 else (k, g.dim())
    else:
        batch = list(g.broadcastable(a.shape[:-2])) if g.chance(0.5) else []
        bshape = tuple(batch) + (k, g.dim())
    b = g.take(lambda v: v.dtype == a.dtype and v.shape == bshape,
               lambda: g.fresh(a.dtype, bshape), p_pool=0.3)
    g.add("MatMul", [a, b], exact=False)


def gemm_bias(g, dtype, m, n, args):
    """Gemm's optional C (70% of the time), of a shape that broadcasts to
    [m, n], appended to `args`."""
    if g.chance(0.7):
        cshape = g.pick([(), (n,), (1, n), (m, 1), (m, n)])
        args.append(g.fresh(dtype, cshape, kind="init", pool=False))


def op_gemm(g):
    a = g.operand(FLOATS, rank=2)
    trans_a, trans_b = g.pick([0, 0, 1]), g.pick([0, 1])
    m, k = a.shape[::-1] if trans_a else a.shape
    n = g.dim()
    b = g.fresh(a.dtype, (n, k) if trans_b else (k, n))
    args = [a, b]
    gemm_bias(g, a.dtype, m, n, args)
    g.add("Gemm", args,
          {"transA": trans_a or None, "transB": trans_b or None,
           "alpha": g.pick([None, 0.5, 2.0]), "beta": g.pick([None, 0.5])},
          exact=False)


def op_rows_gemm(g):
    """A Gemm over rows collapsed by a Reshape, its result reshaped back
    (or not): how both exporters write GPT-2's Conv1D, which
    fuse-simplify-graph turns into a MatMul when it can."""
    x = g.operand(FLOATS, min_rank=2)
    split = g.randint(1, x.rank - 1)
    m = int(np.prod(x.shape[:split], dtype=np.int64))
    k = int(np.prod(x.shape[split:], dtype=np.int64))
    rows = g.add("Reshape", [x, g.const([m, k], np.int64)])[0]
    trans_b = 1 if g.chance(0.2) else 0
    n = g.dim()
    b = g.fresh(x.dtype, (n, k) if trans_b else (k, n))
    args = [rows, b]
    gemm_bias(g, x.dtype, m, n, args)
    y = g.add("Gemm", args,
              {"transB": trans_b or None,
               "alpha": g.pick([None, None, 0.5]),
               "beta": g.pick([None, None, 0.5])}, exact=False)[0]
    if g.chance(0.8):
        g.add("Reshape",
              [y, g.const(list(x.shape[:split]) + [n], np.int64)])


def spatial_operand(g, nonempty=False):
    def make():
        r = g.pick([3, 4, 4, 5], [0.3, 0.35, 0.3, 0.05])
        shape = [g.dim(), g.dim()] + [g.randint(1, 9) for _ in range(r - 2)]
        if r == 5:
            shape = [min(d, 4) for d in shape]
        return g.fresh(g.dtype(FLOATS), tuple(shape))
    return g.take(lambda v: v.dtype in g.allowed(FLOATS) and 3 <= v.rank <= 5
                  and (not nonempty or v.size > 0), make)


def window(g, x, k_max=3, dilations=True, pads=True):
    """Random kernel, strides, pads, dilations for x's spatial dims."""
    spatial = x.shape[2:]
    kernel = [g.randint(1, max(1, min(k_max, d))) for d in spatial]
    attrs = {"kernel_shape": kernel}
    if g.chance(0.5):
        attrs["strides"] = [g.randint(1, 2) for _ in spatial]
    if dilations and g.chance(0.25):
        attrs["dilations"] = [g.randint(1, 2) for _ in spatial]
    mode = g.pick(["NOTSET", "NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER",
                   "VALID"] if pads else ["NOTSET", "VALID"])
    if mode.startswith("SAME") and any(
            d != 1 for d in attrs.get("dilations", [])):
        # onnxruntime refuses SAME with dilations in Conv, and its pools
        # pad as if there were none (an output smaller than SAME's).
        mode = "NOTSET"
    if mode != "NOTSET":
        attrs["auto_pad"] = mode
    elif g.chance(0.5) and pads:
        attrs["pads"] = [g.randint(0, k - 1) for k in kernel] * 2
    return attrs


def op_conv(g):
    x = spatial_operand(g)
    c = x.shape[1]
    group = g.pick([d for d in (1, 2, 3, c) if d and c % d == 0]
                   or [1]) if g.chance(0.3) else 1
    m = group * g.randint(1, 3)
    attrs = window(g, x, pads=not (x.dtype == "float16" and
                                   "f16-conv-pads-lrn" in AVOID))
    w = g.fresh(x.dtype, (m, c // group) + tuple(attrs["kernel_shape"]),
                kind="init" if g.chance(0.7) else "input", pool=False)
    if g.chance(0.5):
        del attrs["kernel_shape"]
    args = [x, w]
    if g.chance(0.5):
        args.append(g.fresh(x.dtype, (m,), kind="init", pool=False))
    if group > 1:
        attrs["group"] = group
    g.add("Conv", args, attrs, exact=False)


def op_convtranspose(g):
    x = spatial_operand(g)
    c = x.shape[1]
    group = 2 if c % 2 == 0 and c and g.chance(0.2) else 1
    m = group * g.randint(1, 3)
    spatial = x.shape[2:]
    kernel = [g.randint(1, 3) for _ in spatial]
    attrs = {"strides": [g.randint(1, 2) for _ in spatial]}
    if g.chance(0.5):
        attrs["pads"] = [g.randint(0, k - 1) for k in kernel] * 2
    if g.chance(0.3):
        attrs["output_padding"] = [g.randint(0, s - 1)
                                   for s in attrs["strides"]]
    if group > 1:
        attrs["group"] = group
    w = g.fresh(x.dtype, (c, m // group) + tuple(kernel), kind="init",
                pool=False)
    args = [x, w]
    if g.chance(0.4):
        args.append(g.fresh(x.dtype, (m,), kind="init", pool=False))
    g.add("ConvTranspose", args, attrs, exact=False)


def op_pool(op):
    def build(g):
        x = spatial_operand(g)
        attrs = window(g, x, dilations=op == "MaxPool" or g.opset >= 19)
        if g.chance(0.3) and not (attrs.get("auto_pad") == "VALID" and
                                  "pool-valid-ceil" in AVOID):
            attrs["ceil_mode"] = 1
        if op == "AveragePool" and g.chance(0.4):
            attrs["count_include_pad"] = 1
        if op == "LpPool":
            attrs.pop("ceil_mode", None)
            attrs.pop("dilations", None)
            attrs["p"] = g.pick([1, 2])
        g.add(op, [x], attrs, exact=op == "MaxPool")
    return build


def op_global_pool(op):
    def build(g):
        g.add(op, [spatial_operand(g)])
    return build


def op_transpose(g):
    x = g.operand(ALL, min_rank=1)
    perm = None if g.chance(0.2) else [int(p) for p in
                                       g.rng.permutation(x.rank)]
    g.add("Transpose", [x], {"perm": perm})


def factor_shape(g, n):
    """A random shape of n elements."""
    if n == 0:
        dims = [g.dim() for _ in range(g.randint(0, 3))] + [0]
        return [int(d) for d in g.rng.permutation(dims)]
    dims = []
    rest = n
    for p in (2, 3, 5, 7, 11, 13):
        while rest % p == 0:
            dims.append(p)
            rest //= p
    if rest > 1:
        dims.append(rest)
    g.rng.shuffle(dims)
    rank = g.randint(1, 4)
    out = [1] * rank
    for d in dims:
        out[g.randint(0, rank - 1)] *= d
    return out


def op_reshape(g):
    x = g.operand(ALL)
    shape = factor_shape(g, x.size)
    attrs = {}
    if x.size and g.chance(0.4):
        shape[g.randint(0, len(shape) - 1)] = -1
    if x.size == 0 and g.opset >= 14 and g.chance(0.7):
        attrs["allowzero"] = 1
    elif g.chance(0.3):
        # 0 copies the input's dim.
        k = [i for i in range(min(len(shape), x.rank))
             if shape[i] == x.shape[i] and x.shape[i] != 0]
        if k:
            shape[g.pick(k)] = 0
    # A 0 in the shape copies the input's dim unless allowzero: a model
    # whose shape then does not hold the elements is invalid (onnx's shape
    # inference lets it through).
    dims = [x.shape[i] if d == 0 and not attrs and i < x.rank else d
            for i, d in enumerate(shape)]
    if any(d == 0 and not attrs and i >= x.rank
           for i, d in enumerate(shape)) or (
               -1 not in dims and int(np.prod(dims)) != x.size):
        raise GenError("a Reshape of the wrong size")
    g.add("Reshape", [x, g.const(shape, np.int64)], attrs)


def op_flatten(g):
    x = g.operand(ALL)
    g.add("Flatten", [x], {"axis": g.randint(-x.rank, x.rank)})


def op_squeeze(g):
    x = g.operand(ALL, min_rank=1)
    ones = [i for i, d in enumerate(x.shape) if d == 1]
    args = [x]
    if ones and g.chance(0.8):
        k = g.randint(1, len(ones))
        axes = sorted(int(a) for a in g.rng.choice(ones, k, replace=False))
        axes = [a - x.rank if g.chance(0.3) else a for a in axes]
        args.append(g.const(axes, np.int64))
    g.add("Squeeze", args)


def op_unsqueeze(g):
    x = g.operand(ALL, max_rank=3)
    n = g.randint(1, 2)
    rank = x.rank + n
    axes = sorted(int(a) for a in g.rng.choice(rank, n, replace=False))
    axes = [a - rank if g.chance(0.3) else a for a in axes]
    g.add("Unsqueeze", [x, g.const(axes, np.int64)])


def op_concat(g):
    x = g.operand(ALL, min_rank=1)
    axis = g.randint(-x.rank, x.rank - 1)
    args = [x]
    for _ in range(g.randint(0, 2)):
        shape = list(x.shape)
        shape[axis] = g.dim()
        args.append(g.take(lambda v: v.dtype == x.dtype
                           and v.shape == tuple(shape),
                           lambda: g.fresh(x.dtype, tuple(shape)), 0.5))
    g.rng.shuffle(args)
    g.add("Concat", args, {"axis": axis})


def op_slice(g):
    x = g.operand(ALL, min_rank=1)
    n = g.randint(1, x.rank)
    axes = [int(a) for a in g.rng.choice(x.rank, n, replace=False)]
    starts, ends, steps = [], [], []
    big = 2 ** 63 - 1
    for a in axes:
        d = x.shape[a]
        step = g.pick([1, 1, 1, 2, 3, -1, -2])
        lo, hi = -d - 2, d + 2
        s, e = g.randint(lo, hi), g.randint(lo, hi)
        if g.chance(0.15):
            e = big if step > 0 else -big - 1
        if g.chance(0.1):
            s = -big - 1 if step > 0 else big
        starts.append(s)
        ends.append(e)
        steps.append(step)
    axes = [a - x.rank if g.chance(0.3) else a for a in axes]
    args = [x, g.const(starts, np.int64), g.const(ends, np.int64)]
    if g.chance(0.8) or any(s != 1 for s in steps):
        args.append(g.const(axes, np.int64))
        if g.chance(0.7) or any(s != 1 for s in steps):
            args.append(g.const(steps, np.int64))
    g.add("Slice", args)


def indices(g, dim, shape, dtype=None):
    """An index tensor of values in [-dim, dim - 1] (fresh: an input or an
    initializer, never a computed value that could leave the range)."""
    dtype = dtype or g.pick(["int64", "int32"])
    if dim == 0:
        shape = tuple(0 if i == 0 else d for i, d in enumerate(shape)) \
            if shape else (0,)
        a = np.zeros(shape, dtype)
    else:
        a = g.rng.integers(-dim, dim, shape).astype(dtype)
    kind = "init" if g.chance(0.5) else "input"
    v = Value(g.name("x" if kind == "input" else "c"), dtype, a.shape, True,
              kind, a)
    (g.inputs if kind == "input" else g.inits).append(v)
    return v


def out_of_range(g, a, dims):
    """A graph input holding the index tensor a (in range: of values in
    [-dim, dim - 1]) with one to three elements out of range: past the
    end, below -dim, or far out (-100000000, 2^40, the type's limits);
    dims: each element's dim (an array of a's shape). The model is an
    error, and the input is not a constant that fuse-compile would
    refuse."""
    a = a.copy()
    info = np.iinfo(a.dtype)
    far = [-100000000, 100000000, int(info.max), int(info.min)]
    if a.dtype == np.int64:
        far += [2 ** 40, -2 ** 40]
    n = g.randint(1, min(3, a.size))
    for k in g.rng.choice(a.size, n, replace=False):
        d = int(dims.flat[k])
        how = g.pick(["past", "below", "far"], [0.4, 0.4, 0.2])
        if how == "past":
            a.flat[k] = d + g.randint(0, 3)
        elif how == "below":
            a.flat[k] = -d - g.randint(1, 3)
        else:
            a.flat[k] = g.pick(far)
    v = Value(g.name("x"), str(a.dtype), a.shape, True, "input", a)
    g.inputs.append(v)
    return v


def op_gather(g):
    oob = g.oob_wanted
    x = g.operand(ALL, min_rank=1, nonempty=oob)
    axis = g.randint(-x.rank, x.rank - 1)
    if oob:
        d = x.shape[axis]
        shape = g.shape(g.randint(0, 2), allow_zero=False)
        a = g.rng.integers(-d, d, shape).astype(g.pick(["int64", "int32"]))
        idx = out_of_range(g, a, np.full(shape, d))
    else:
        idx = indices(g, x.shape[axis], g.shape(g.randint(0, 2)))
    g.add("Gather", [x, idx], {"axis": axis})
    g.made_oob()


def op_gather_elements(g):
    oob = g.oob_wanted
    x = g.operand(ALL, min_rank=1, nonempty=oob)
    axis = g.randint(-x.rank, x.rank - 1)
    low = 1 if oob else 0
    shape = [g.randint(low, d) if d and g.chance(0.3) else d
             for d in x.shape]
    shape[axis] = g.dim(allow_zero=not oob)
    if oob:
        d = x.shape[axis]
        a = g.rng.integers(-d, d, shape).astype(g.pick(["int64", "int32"]))
        idx = out_of_range(g, a, np.full(shape, d))
    else:
        idx = indices(g, x.shape[axis], tuple(shape))
    g.add("GatherElements", [x, idx], {"axis": axis})
    g.made_oob()


def op_gather_nd(g):
    oob = g.oob_wanted
    x = g.operand(ALL, min_rank=1, nonempty=oob)
    k = g.randint(1, x.rank)
    lead = g.shape(g.randint(0, 2), allow_zero=not oob)
    cols = [g.rng.integers(-d, d, lead + (1,)) if d else
            np.zeros(lead + (1,), np.int64) for d in x.shape[:k]]
    if any(d == 0 for d in x.shape[:k]):
        lead = (0,) + lead[1:] if lead else (0,)
        cols = [np.zeros(lead + (1,), np.int64) for _ in range(k)]
    a = np.concatenate(cols, axis=-1).astype(np.int64)
    if oob:
        v = out_of_range(g, a, np.broadcast_to(
            np.array(x.shape[:k], np.int64), a.shape))
    else:
        v = g.const(a, np.int64)
    g.add("GatherND", [x, v])
    g.made_oob()


def op_pad(g):
    x = g.operand(ALL, min_rank=1)
    mode = g.pick(["constant", "constant", "reflect", "edge"] +
                  (["wrap"] if g.opset >= 19 else []))
    pads = []
    for d in x.shape:
        limit = 3 if mode in ("constant", "edge") else max(0, d - 1)
        if mode == "wrap":
            limit = d
        pads.append([g.randint(0, limit) for _ in range(2)])
    if mode == "constant" and g.chance(0.2):
        a = g.randint(0, x.rank - 1)
        pads[a][g.randint(0, 1)] = -g.randint(0, x.shape[a])
    flat = [p[0] for p in pads] + [p[1] for p in pads]
    args = [x, g.const(flat, np.int64)]
    if mode == "constant" and g.chance(0.5):
        args.append(g.fresh(x.dtype, (), kind="init", pool=False))
    g.add("Pad", args, {"mode": mode if mode != "constant" or g.chance(0.3)
                        else None})


def op_tile(g):
    x = g.operand(ALL, min_rank=1, max_rank=3)
    reps = [g.pick([1, 1, 2, 3, 0] if g.p_zero else [1, 1, 2, 3])
            for _ in x.shape]
    g.add("Tile", [x, g.const(reps, np.int64)])


def op_expand(g):
    x = g.operand(ALL, max_rank=3)
    shape = [g.dim() if d == 1 and g.chance(0.6) else
             (1 if g.chance(0.15) else d) for d in x.shape]
    if g.chance(0.4):
        shape = [g.dim()] + shape
    g.add("Expand", [x, g.const(shape, np.int64)])


def op_split(g):
    x = g.operand(ALL, min_rank=1)
    axis = g.randint(-x.rank, x.rank - 1)
    d = x.shape[axis]
    attrs = {"axis": axis}
    args = [x]
    choice = g.randint(0, 2)
    if choice == 0 or d == 0:
        n = g.randint(1, 3)
        parts = sorted(int(p) for p in g.rng.integers(0, d + 1, n - 1))
        sizes = [b - a for a, b in zip([0] + parts, parts + [d])]
        args.append(g.const(sizes, np.int64))
        outputs = n
    elif choice == 1 and g.opset >= 18:
        outputs = g.randint(1, min(3, d))
        attrs["num_outputs"] = outputs
    else:
        outputs = g.pick([n for n in (1, 2, 3) if d % n == 0])
        if g.opset >= 18:
            attrs["num_outputs"] = outputs
    g.add("Split", args, attrs, outputs=outputs)


def op_cumsum(g):
    x = g.operand(("float32", "bfloat16", "float64", "int32", "int64"),
                  min_rank=1)
    axis = g.const(g.randint(-x.rank, x.rank - 1), g.pick([np.int64,
                                                           np.int32]))
    g.add("CumSum", [x, axis], {"exclusive": g.pick([None, 1]),
                                "reverse": g.pick([None, 1])}, exact=False)


def op_topk(g):
    x = g.operand(NUMERIC, min_rank=1)
    axis = g.randint(-x.rank, x.rank - 1)
    # k is positive (fuse refuses 0; onnxruntime takes it).
    k = g.randint(min(1, x.shape[axis]), x.shape[axis])
    # The indices are compared only when the input is exact.
    hidden = () if x.exact else (1,)
    g.add("TopK", [x, g.const([k], np.int64)],
          {"axis": axis, "largest": g.pick([None, 0]),
           "sorted": None}, outputs=2, hidden=hidden)


def op_depth_space(op):
    def build(g):
        b = g.pick([1, 2])
        if op == "DepthToSpace":
            shape = (g.randint(1, 2), b * b * g.randint(1, 3),
                     g.randint(1, 4), g.randint(1, 4))
            attrs = {"blocksize": b, "mode": g.pick([None, "CRD"])}
        else:
            shape = (g.randint(1, 2), g.randint(1, 3), b * g.randint(1, 3),
                     b * g.randint(1, 3))
            attrs = {"blocksize": b}
        x = g.take(lambda v: v.dtype in ALL and v.shape == shape,
                   lambda: g.fresh(g.dtype(FLOATS), shape))
        g.add(op, [x], attrs)
    return build


def op_trilu(g):
    x = g.operand(ALL, min_rank=2)
    args = [x]
    if g.chance(0.6):
        args.append(g.const(g.randint(-3, 3), np.int64))
    g.add("Trilu", args, {"upper": g.pick([None, 0])})


def op_shape(g):
    x = g.operand(ALL)
    attrs = {}
    if g.opset >= 15 and g.chance(0.4):
        attrs = {"start": g.randint(-x.rank - 1, x.rank),
                 "end": g.randint(-x.rank - 1, x.rank + 1)}
    g.add(g.pick(["Shape", "Size"]) if not attrs else "Shape", [x], attrs)


def op_onehot(g):
    depth = g.randint(1, 6)
    idx = indices(g, depth, g.shape(g.randint(0, 2)), "int64")
    dtype = g.pick(["float32", "int64"])
    values = g.const(g.data(dtype, (2,)), dtype)
    g.add("OneHot", [idx, g.const(depth, np.int64), values],
          {"axis": g.randint(-idx.rank - 1, idx.rank)})


def op_scatter_elements(g):
    x = g.operand(ALL, min_rank=1)
    axis = g.randint(-x.rank, x.rank - 1)
    d = x.shape[axis]
    low = 1 if "importer-reshape-zero" in AVOID and x.size else 0
    shape = [g.randint(low, e) if g.chance(0.3) else e for e in x.shape]
    shape[axis] = g.randint(min(low, d), d)
    # Distinct targets along the axis for every other position.
    moved = np.moveaxis(np.zeros(shape, np.int64), axis, -1)
    if moved.size:
        flat = moved.reshape(-1, shape[axis])
        for row in flat:
            row[:] = g.rng.permutation(d)[:len(row)]
            if g.chance(0.5):
                row -= d
        moved = flat.reshape(moved.shape)
    idx = np.moveaxis(moved, -1, axis)
    updates = g.fresh(x.dtype, tuple(shape), kind="init", pool=False)
    g.add("ScatterElements", [x, g.const(idx, np.int64), updates],
          {"axis": axis})


def op_scatter_nd(g):
    x = g.operand(ALL, min_rank=1)
    k = g.randint(1, x.rank)
    total = int(np.prod(x.shape[:k], dtype=np.int64))
    low = 1 if "importer-reshape-zero" in AVOID and x.size else 0
    n = g.randint(min(low, total), min(total, 4))
    flat = g.rng.permutation(total)[:n]
    idx = np.stack(np.unravel_index(flat, x.shape[:k]), axis=-1) \
        if n else np.zeros((0, k), np.int64)
    idx = idx.astype(np.int64).reshape(n, k)
    updates = g.fresh(x.dtype, (n,) + x.shape[k:], kind="init", pool=False)
    g.add("ScatterND", [x, g.const(idx, np.int64), updates])


def op_lrn(g):
    dtypes = g.allowed(FLOATS)
    if "f16-conv-pads-lrn" in AVOID:
        dtypes = tuple(d for d in dtypes if d != "float16")
    x = g.take(lambda v: v.dtype in dtypes and v.rank == 4,
               lambda: g.fresh(g.dtype(dtypes), g.shape(4)))
    g.add("LRN", [x], {"size": g.pick([1, 3, 5]),
                       "alpha": g.pick([None, 0.001]),
                       "beta": g.pick([None, 0.5]),
                       "bias": g.pick([None, 2.0])})


def op_dropout(g):
    g.add("Dropout", [g.operand(FLOATS)])


def op_einsum(g):
    a = g.operand(FLOATS, rank=2, nonempty="importer-reshape-zero" in AVOID)
    m, k = a.shape
    eq = g.pick(["ij,jk->ik", "ij,kj->ik", "ij->ji", "ij->i", "ij,ij->ij"])
    if eq == "ij->ji" or eq == "ij->i":
        g.add("Einsum", [a], {"equation": eq}, exact=eq == "ij->ji")
        return
    n = g.dim(allow_zero="importer-reshape-zero" not in AVOID)
    shape = {"ij,jk->ik": (k, n), "ij,kj->ik": (n, k),
             "ij,ij->ij": (m, k)}[eq]
    g.add("Einsum", [a, g.fresh(a.dtype, shape)], {"equation": eq},
          exact=False)


# name: (weight, min opset, builder)
OPS = {}

# The share of cases that expect an error: one Gather, GatherElements or
# GatherND takes out-of-range indices from a graph input (out_of_range),
# its result a graph output. onnxruntime must fail at that node, fuse-run
# exit with status 1 and an error that names the node and says "out of
# range" (fuse checks indices that are not constants at run time); the
# model's metadata EXPECT_ERROR names the node.
OOB_CASES = 0.04
EXPECT_ERROR = "fuse-differential:expect-error"


def register():
    for op in UNARY_FLOAT:
        min_opset, build = op_unary(op)
        OPS[op] = (0.4, min_opset, build)
    OPS["Not"] = (0.4, 1, op_not)
    for op in ARITH:
        OPS[op] = (2.5 if op in ("Add", "Mul", "Sub") else 1.5, 1,
                   op_binary(op))
    for op in COMPARE + ("And", "Or", "Xor"):
        OPS[op] = (0.6, 1, op_binary(op))
    for op in ("Max", "Min", "Sum", "Mean"):
        OPS[op] = (0.8, 1, op_variadic(op))
    table = [
        # op, weight, first opset, builder (in this order: the order
        # picks the ops of a seed)
        ("PRelu", 0.6, 1, op_prelu), ("Where", 1.5, 1, op_where),
        ("Clip", 1.2, 11, op_clip), ("Cast", 1.5, 1, op_cast),
    ] + [(op, 1.0, 1, op_reduce(op)) for op in REDUCE] + [
        ("ArgMax", 0.8, 1, op_argmax("ArgMax")),
        ("ArgMin", 0.6, 1, op_argmax("ArgMin")),
        ("Softmax", 1.5, 13, op_softmax("Softmax")),
        ("LogSoftmax", 1.0, 13, op_softmax("LogSoftmax")),
        ("Hardmax", 0.4, 13, op_softmax("Hardmax")),
        ("LayerNormalization", 1.5, 17, op_layernorm),
        ("BatchNormalization", 1.0, 15, op_batchnorm),
        ("InstanceNormalization", 0.5, 6, op_instancenorm),
        ("LpNormalization", 0.3, 1, op_lpnorm),
        ("MatMul", 3.0, 1, op_matmul), ("Gemm", 1.5, 13, op_gemm),
        ("Conv", 2.5, 11, op_conv),
        ("ConvTranspose", 0.6, 11, op_convtranspose),
        ("MaxPool", 1.2, 12, op_pool("MaxPool")),
        ("AveragePool", 1.2, 11, op_pool("AveragePool")),
        ("LpPool", 0.3, 11, op_pool("LpPool")),
        ("GlobalAveragePool", 0.8, 1, op_global_pool("GlobalAveragePool")),
        ("Transpose", 1.5, 1, op_transpose), ("Reshape", 1.5, 14, op_reshape),
        ("Flatten", 0.8, 13, op_flatten), ("Squeeze", 0.8, 13, op_squeeze),
        ("Unsqueeze", 0.8, 13, op_unsqueeze), ("Concat", 1.5, 13, op_concat),
        ("Slice", 1.5, 13, op_slice), ("Gather", 1.2, 13, op_gather),
        ("GatherElements", 0.5, 13, op_gather_elements),
        ("GatherND", 0.4, 13, op_gather_nd), ("Pad", 1.2, 13, op_pad),
        ("Tile", 0.8, 13, op_tile), ("Expand", 0.8, 13, op_expand),
        ("Split", 1.0, 13, op_split), ("CumSum", 0.8, 14, op_cumsum),
        ("TopK", 0.8, 11, op_topk),
        ("DepthToSpace", 0.3, 13, op_depth_space("DepthToSpace")),
        ("SpaceToDepth", 0.3, 13, op_depth_space("SpaceToDepth")),
        ("Trilu", 0.4, 14, op_trilu), ("Shape", 0.4, 15, op_shape),
        ("OneHot", 0.3, 11, op_onehot),
        ("ScatterElements", 0.4, 13, op_scatter_elements),
        ("ScatterND", 0.4, 13, op_scatter_nd), ("LRN", 0.3, 13, op_lrn),
        ("Dropout", 0.2, 13, op_dropout), ("Einsum", 0.4, 12, op_einsum),
        ("RowsGemm", 0.6, 14, op_rows_gemm),
    ]
    for op, weight, opset, build in table:
        OPS[op] = (weight, opset, build)


register()


def generate(seed, index):
    """Case `index` of `seed`: (model, inputs {name: array}, {output name:
    compare values?}, [op types])."""
    rng = np.random.default_rng([seed, index])
    opset = OPSETS[int(rng.integers(len(OPSETS)))]
    g = Gen(rng, opset)
    for _ in range(g.randint(1, 2)):
        g.fresh(g.dtype(), g.shape(), kind="input")
    ops = [op for op, (w, m, _) in OPS.items() if m <= opset]
    weights = np.array([OPS[op][0] for op in ops])
    want = g.randint(1, MAX_NODES)
    # An error-expected case: its node oob_at is a Gather, GatherElements
    # or GatherND of out-of-range indices.
    oob_at = g.randint(0, want - 1) if g.chance(OOB_CASES) else None
    tries = 0
    while (len(g.nodes) < want or g.oob_wanted) and \
            tries < 10 * MAX_NODES:
        tries += 1
        if len(g.nodes) == oob_at and g.oob is None:
            g.oob_wanted = True
            op = g.pick(["Gather", "GatherElements", "GatherND"],
                        [0.5, 0.25, 0.25])
        else:
            op = ops[int(rng.choice(len(ops), p=weights / weights.sum()))]
        saved = (len(g.inputs), len(g.inits), list(g.pool),
                 [v.uses for v in g.pool], g.counter,
                 list(getattr(g, "node_values", [])), len(g.nodes))
        g.current_op = op
        try:
            OPS[op][2](g)
        except GenError:
            # Also the nodes a builder of several (RowsGemm) added before
            # it failed: their initializers go.
            del g.nodes[saved[6]:]
            del g.inputs[saved[0]:]
            del g.inits[saved[1]:]
            g.pool = saved[2]
            for v, uses in zip(g.pool, saved[3]):
                v.uses = uses
            g.node_values = saved[5]
    if not g.nodes:
        return None
    values = g.node_values
    outputs = [v for v in values if not v.hidden and
               (v.uses == 0 or g.chance(0.2))]
    if not outputs:
        outputs = [values[-1]]
    if g.oob is not None and g.oob[1] not in outputs:
        # A graph output: not dead code that fuse could leave out.
        outputs.append(g.oob[1])
    used = {name for n in g.nodes for name in n.input}
    g.inputs = [v for v in g.inputs if v.name in used]
    g.inits = [v for v in g.inits if v.name in used]
    graph = helper.make_graph(
        g.nodes, "differential",
        [helper.make_tensor_value_info(v.name, ONNX_TYPE[v.dtype], v.shape)
         for v in g.inputs],
        [helper.make_tensor_value_info(v.name, ONNX_TYPE[v.dtype], v.shape)
         for v in outputs],
        [numpy_helper.from_array(v.data, v.name) for v in g.inits])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)],
        producer_name="fuse differential.py")
    model.ir_version = 8
    if g.oob is not None:
        helper.set_model_props(model, {EXPECT_ERROR: g.oob[0]})
    inputs = {v.name: v.data for v in g.inputs}
    expect = {v.name: {"tol": v.tol, "undefined": v.undefined}
              for v in outputs}
    return model, inputs, expect, [n.op_type for n in g.nodes]


# -- running -----------------------------------------------------------------

FAILURES = ("mismatch", "crash", "hang", "generator")
CRASH_MARKS = ("LLVM ERROR", "Assertion", "Stack dump", "PLEASE submit",
               "AddressSanitizer", "UndefinedBehaviorSanitizer",
               "runtime error:", "Segmentation fault", "terminate called")


def ort_server(conn):
    """Runs onnxruntime for a Runner, in a process of its own: onnxruntime
    crashes on some models (an InstanceNormalization of an empty tensor:
    SIGSEGV), which must not take the tester down."""
    while True:
        try:
            path, inputs = conn.recv()
        except EOFError:
            return
        if path.startswith("reference64:"):
            try:
                conn.send(("ok", reference64(path[len("reference64:"):],
                                             inputs)))
            except Exception as e:
                conn.send(("invalid", "float64 reference: " +
                           str(e).splitlines()[0][:200]))
            continue
        try:
            model = onnx.load(path)
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:
            conn.send(("invalid", "onnx: " + str(e).splitlines()[0][:150]))
            continue
        try:
            if has_bfloat16(model):
                # onnxruntime's CPU provider has almost no bfloat16
                # kernels: it runs the float32 twin.
                path = float32_twin(model).SerializeToString()
                inputs = {k: a.astype(np.float32) if a.dtype == BF16 else a
                          for k, a in inputs.items()}
            conn.send(("ok", run_ort(path, inputs)))
        except Exception as e:
            msg = str(e).replace("\n", " ")
            msg = re.sub(r"^\[ONNXRuntimeError\] : \d+ : ", "", msg)
            conn.send(("invalid", "onnxruntime: " + msg[:300]))


def has_bfloat16(model):
    """Whether a graph input, output, initializer or node output type of
    the model, or a Cast, is bfloat16."""
    g = model.graph
    return any(vi.type.tensor_type.elem_type == TensorProto.BFLOAT16
               for vi in list(g.input) + list(g.output) +
               list(g.value_info)) or \
        any(t.data_type == TensorProto.BFLOAT16 for t in g.initializer) or \
        any(a.name == "to" and a.i == TensorProto.BFLOAT16
            for n in g.node if n.op_type == "Cast" for a in n.attribute)


def float32_twin(model):
    """The model with every bfloat16 made float32: types of graph inputs,
    outputs and values, initializers, tensor attributes. A Cast to
    bfloat16 becomes a Cast to bfloat16 and back to float32, which rounds
    as the model does (onnxruntime has those two kernels). bfloat16 values
    are exact in float32, so the twin computes what the model does, only
    without rounding its results to bfloat16: the oracle of its bfloat16
    outputs, compared at bfloat16's tolerance."""
    twin = onnx.ModelProto()
    twin.CopyFrom(model)
    g = twin.graph
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        if vi.type.tensor_type.elem_type == TensorProto.BFLOAT16:
            vi.type.tensor_type.elem_type = TensorProto.FLOAT
    for k, t in enumerate(g.initializer):
        if t.data_type == TensorProto.BFLOAT16:
            g.initializer[k].CopyFrom(numpy_helper.from_array(
                numpy_helper.to_array(t).astype(np.float32), t.name))
    nodes = []
    for original in model.graph.node:
        node = onnx.NodeProto()
        node.CopyFrom(original)
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR and \
                    a.t.data_type == TensorProto.BFLOAT16:
                a.t.CopyFrom(numpy_helper.from_array(
                    numpy_helper.to_array(a.t).astype(np.float32),
                    a.t.name))
        nodes.append(node)
        to = [a for a in node.attribute if a.name == "to"]
        if node.op_type == "Cast" and to[0].i == TensorProto.BFLOAT16:
            out = node.output[0]
            node.output[0] = out + "__bf16"
            nodes.append(helper.make_node(
                "Cast", [node.output[0]], [out], name=node.name + "__f32",
                to=TensorProto.FLOAT))
    del g.node[:]
    g.node.extend(nodes)
    return twin


class Ort:
    """A server process running onnxruntime (ort_server), restarted when
    it dies or hangs."""

    def __init__(self, timeout):
        self.timeout = timeout
        self.proc = None

    def start(self):
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=ort_server, args=(child,),
                                daemon=True)
        self.proc.start()
        child.close()

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
            self.proc = None

    def reference(self, path, inputs):
        """("ok", float64 outputs) or ("invalid", why)."""
        return self.run("reference64:" + path, inputs)

    def run(self, path, inputs):
        """("ok", outputs) or ("invalid", why)."""
        if self.proc is None:
            self.start()
        try:
            self.conn.send((path, inputs))
            if self.conn.poll(self.timeout):
                return self.conn.recv()
            why = "onnxruntime ran over %d s" % self.timeout
        except (EOFError, OSError):
            self.proc.join(5)
            why = "onnxruntime crashed (exit %s)" % self.proc.exitcode
        self.stop()
        return "invalid", why


# Relative size of one rounding error of each float type (a unit in the
# last place: 2^-explicit mantissa bits).
ULP = {TensorProto.FLOAT: 2.0 ** -23, TensorProto.FLOAT16: 2.0 ** -10,
       TensorProto.BFLOAT16: 2.0 ** -7, TensorProto.DOUBLE: 2.0 ** -52}


def reference64(path, inputs):
    """The model's outputs computed in float64, each op's float results
    rounded to their own type (float16, float32), and how much they move
    when every float value (inputs, weights, each node's results) is off
    by up to a unit in the last place of its own type: {"ref": outputs,
    "spread": |moved - ref|, the most of two tries}. Every float tensor,
    input, initializer and Cast is made float64 and the model run by
    onnx's reference evaluator (onnxruntime has no float64 kernel of many
    ops)."""
    from onnx.reference import ReferenceEvaluator
    model = onnx.load(path)
    floats = tuple(ULP)
    g = model.graph
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {}
    for vi in list(inferred.graph.input) + list(inferred.graph.value_info) \
            + list(inferred.graph.output):
        t = vi.type.tensor_type
        known = t.HasField("shape") and all(d.HasField("dim_value")
                                            for d in t.shape.dim)
        shape = tuple(d.dim_value for d in t.shape.dim) if known else ()
        types[vi.name] = (t.elem_type, shape, known)
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        if vi.type.tensor_type.elem_type in floats:
            vi.type.tensor_type.elem_type = TensorProto.DOUBLE
    weights = {}
    for t in g.initializer:
        weights[t.name] = (t.data_type, numpy_helper.to_array(t))
    for node in g.node:
        for a in node.attribute:
            if node.op_type == "Cast" and a.name == "to" and a.i in floats:
                a.i = TensorProto.DOUBLE
    nodes = list(g.node)
    # Exponents stay: Pow of a negative base by 3 (1 + 2^-23) is NaN.
    exact = {n.input[1] for n in nodes if n.op_type == "Pow"}

    def run(rng):
        m = onnx.ModelProto()
        m.CopyFrom(model)
        feeds, inits, body = {}, [], []

        def moved(elem, a, name):
            if rng is None or elem not in ULP or not a.size or \
                    name in exact:
                return a
            return a * (1 + ULP[elem] * rng.uniform(-1, 1, a.shape))
        for name, a in inputs.items():
            if is_float(a):
                elem = ONNX_TYPE[str(a.dtype)]
                a = moved(elem, a.astype(np.float64), name)
            feeds[name] = a
        for name, (elem, a) in weights.items():
            if is_float(a):
                a = moved(elem, a.astype(np.float64), name)
            inits.append(numpy_helper.from_array(a, name))
        for node in nodes:
            node = onnx.NodeProto.FromString(node.SerializeToString())
            x = node.input[0] if node.input else ""
            if node.op_type == "ReduceLogSumExp" and (
                    types.get(x, (0, (), False))[1:] == ((), True) or
                    x in weights and weights[x][1].ndim == 0):
                # The reference evaluator fails on a rank-0 input, whose
                # log-sum-exp is itself.
                node = helper.make_node("Identity", [x], list(node.output))
            body.append(node)
            for k, out in enumerate(node.output):
                elem, shape = types.get(out, (None, ()))[:2]
                if not out or elem not in ULP:
                    continue
                value = out + "__f64"
                node.output[k] = value
                if elem != TensorProto.DOUBLE:
                    # Rounded to its own type, as each op's result is
                    # (a float16 Exp overflows to inf; the reference
                    # evaluator's Cast to bfloat16 rounds to nearest even,
                    # as ml_dtypes does).
                    body.append(helper.make_node(
                        "Cast", [value], [out + "__narrow"], to=elem))
                    body.append(helper.make_node(
                        "Cast", [out + "__narrow"], [out + "__rounded"],
                        to=TensorProto.DOUBLE))
                    value = out + "__rounded"
                if rng is not None and out not in exact:
                    factor = moved(elem, np.ones(shape, np.float64), out)
                    inits.append(numpy_helper.from_array(factor,
                                                         out + "__ulp"))
                    body.append(helper.make_node(
                        "Mul", [value, out + "__ulp"], [out]))
                else:
                    body.append(helper.make_node("Identity", [value], [out]))
        del m.graph.initializer[:]
        m.graph.initializer.extend(inits)
        del m.graph.node[:]
        m.graph.node.extend(body)
        with np.errstate(all="ignore"):
            outs = ReferenceEvaluator(m).run(None, feeds)
        return {o.name: np.asarray(v) for o, v in zip(g.output, outs)}
    ref = run(None)
    spread = {}
    for seed in (1, 2):
        other = run(np.random.default_rng(seed))
        for name, value in ref.items():
            if value.dtype.kind != "f":
                continue
            with np.errstate(invalid="ignore"):
                d = np.abs(other[name].astype(np.float64) - value)
            spread[name] = np.fmax(spread.get(name, d), d)
    return {"ref": ref, "spread": spread}


def run_ort(path, inputs):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options,
                                   providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, inputs)))


# An error about an op of the dialects fuse lowers to, not the model's:
# an internal failure of the compiler, not a refusal.
INTERNAL = re.compile(r"'(linalg|scf|memref|tensor|arith|llvm|func|gpu|"
                      r"vector|affine|bufferization|math|builtin|nvvm|"
                      r"fuse)\.[a-z_.]+' op")


def refusal(stderr):
    """The refusal's first error, with names and numbers taken out (for
    counting), or None when an error names no node, graph input or
    output, or a crash mark is there."""
    if any(m in stderr for m in CRASH_MARKS):
        return None
    errors = [line for line in stderr.splitlines() if "error:" in line]
    if not errors:
        return None
    for line in errors:
        if not re.search(r"node '|graph (input|output) '|node #\d", line):
            return None
        if INTERNAL.search(line):
            return None
    return normalize(errors[0])


def normalize(line):
    line = re.sub(r"^.*?(node '|graph |node #)", r"\1", line)
    line = re.sub(r"node '[^']*'", "node", line)
    line = re.sub(r"node #\d+ \(([A-Za-z]+)[^)]*\)", r"node (\1)", line)
    line = re.sub(r"'tensor<[^']*>'", "TYPE", line)
    line = re.sub(r"tensor<[^>]*>", "TYPE", line)
    line = re.sub(r"'[xcv]\d+'", "'V'", line)
    line = re.sub(r"\b\d+\b", "N", line)
    return line[:160]


def compare(got, want, expect, f64=None):
    """None, or why fuse's outputs differ from onnxruntime's. expect:
    {output: {"tol": (rtol, atol), "undefined": bool}}, where known.

    With f64 (reference64: the outputs computed in float64, and how far
    they move when every value is off by a rounding error), a float
    element that differs from onnxruntime's still passes when it is
    within the tolerance of the float64 result, no more than 8 times as
    far from it as onnxruntime's, within 8 times the distance rounding
    errors move it (or any finite value when they move it by more than its
    own size), or the very inf or NaN it is: an ill-conditioned op
    (Tan near a pole, a Cos of a large float16 sum, a normalization of
    near-equal values) magnifies
    both implementations' rounding, and onnxruntime is not always the
    closer one."""
    for name, ref in want.items():
        if name not in got:
            return "output %s missing from fuse's outputs" % name
        have = got[name]
        # A bfloat16 output's oracle is float32 (float32_twin).
        twin = have.dtype == BF16 and ref.dtype == np.float32
        if have.dtype != ref.dtype and not twin:
            return "output %s: dtype %s, onnxruntime %s" % (
                name, have.dtype, ref.dtype)
        if have.shape != ref.shape:
            return "output %s: shape %s, onnxruntime %s" % (
                name, have.shape, ref.shape)
        if ref.size == 0:
            continue
        if ref.dtype.kind in "biu":
            bad = have != ref
        else:
            rtol, atol = expect.get(name, {}).get("tol") or \
                TOLERANCE[str(have.dtype)]
            h = have.astype(np.float64)
            r = ref.astype(np.float64)
            finite = np.isfinite(r)
            scale = max(1.0, float(np.abs(r[finite]).max())) \
                if finite.any() else 1.0
            with np.errstate(invalid="ignore"):
                close = np.abs(h - r) <= atol * scale + rtol * np.abs(r)
            same = (h == r) | (np.isnan(h) & np.isnan(r))
            bad = ~(close | same)
            if f64 is not None and name in f64["ref"] and bad.any():
                x = np.broadcast_to(
                    np.asarray(f64["ref"][name], np.float64), r.shape)
                moved = np.broadcast_to(
                    np.asarray(f64["spread"].get(name, 0.0), np.float64),
                    r.shape)
                with np.errstate(invalid="ignore"):
                    err_fuse = np.abs(h - x)
                    near_ref = err_fuse <= atol * scale + rtol * np.abs(x)
                    no_worse = err_fuse <= 8 * np.abs(r - x)
                    conditioned = err_fuse <= 8 * moved
                    # Rounding errors move it by more than its own size
                    # (and a quarter at least): a Tan of a Sinh of 1e7, any
                    # finite answer is as good.
                    arbitrary = moved >= np.maximum(0.25, np.abs(x))
                finite = np.isfinite(h) & np.isfinite(r) & np.isfinite(x)
                # Or the very value (inf, NaN) computed in float64.
                same = (h == x) | (np.isnan(h) & np.isnan(x))
                bad &= ~((finite & (near_ref | no_worse | conditioned |
                                    arbitrary)) | same)
            if expect.get(name, {}).get("undefined"):
                bad &= ~(np.isnan(h) & (r == 0))
        if bad.any():
            k = np.flatnonzero(bad.reshape(-1))
            where = np.unravel_index(k[0], ref.shape)
            return ("output %s (%s %s): %d of %d elements differ; at %s "
                    "fuse %r, onnxruntime %r" % (
                        name, have.dtype, list(ref.shape), len(k), ref.size,
                        list(int(i) for i in where),
                        have[where].item(), ref[where].item()))
    return None


RUNNERS_LOCK = threading.Lock()
SERVERS = []


def stop_servers():
    for server in SERVERS:
        server.stop()


class Runner:
    def __init__(self, args):
        self.args = args
        self.local = threading.local()

    def ort(self):
        """This thread's onnxruntime server."""
        if not hasattr(self.local, "ort"):
            self.local.ort = Ort(self.args.timeout)
            with RUNNERS_LOCK:
                SERVERS.append(self.local.ort)
        return self.local.ort

    def tool(self, command):
        """(returncode or 'hang', stderr)."""
        try:
            proc = subprocess.run(command, capture_output=True, text=True,
                                  timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return "hang", ""
        return proc.returncode, proc.stderr

    def check(self, model_path, inputs, expect, workdir):
        """(category, detail, extra files {name: content})."""
        args = self.args
        files = {}
        model = onnx.load(model_path)
        error_node = expected_error(model)
        status, want = self.ort().run(model_path, inputs)
        if error_node is not None:
            # onnxruntime's failure at that node is the oracle.
            if status == "ok":
                return "invalid", "onnxruntime accepts the out-of-range " \
                    "indices of node %s" % error_node, files
            if not want.startswith("onnxruntime:") or \
                    "Name:'%s'" % error_node not in want:
                return "invalid", want, files
            files["ort.txt"] = want
        elif status != "ok":
            return "invalid", want, files
        else:
            files["ort.npz"] = want
        declared = {o.name: tuple(d.dim_value for d in
                                  o.type.tensor_type.shape.dim)
                    for o in model.graph.output}
        if error_node is not None:
            want = {}
        for name, value in want.items():
            if name in declared and value.shape != declared[name]:
                # onnx's shape inference (which the generator declared
                # the output with) and onnxruntime disagree.
                return "invalid", "onnxruntime computes %s %s, onnx's " \
                    "shape inference %s" % (name, list(value.shape),
                                             list(declared[name])), files
        artifact = os.path.join(workdir, "model.fbin")
        compile_cmd = [args.fuse_compile, model_path, "-o", artifact,
                       "--target=cpu", "--cpu=x86-64", "--no-reference"]
        rc, err = self.tool(compile_cmd)
        files["fuse-compile.stderr"] = err
        if rc == "hang":
            return "hang", "fuse-compile ran over %d s" % args.timeout, files
        if rc == 1:
            why = refusal(err)
            if why is not None:
                return "refused", why, files
            what = "an internal error" if INTERNAL.search(err) else \
                "an error that names no node"
            return "crash", "fuse-compile failed with %s: %s" % (
                what, first_lines(err)), files
        if rc != 0 or any(m in err for m in CRASH_MARKS):
            return "crash", "fuse-compile exit %s: %s" % (
                rc, first_lines(err)), files
        in_path = os.path.join(workdir, "inputs.npz")
        out_path = os.path.join(workdir, "fuse.npz")
        np.savez(in_path, **npz_arrays(inputs))
        run_cmd = [args.fuse_run, artifact, "--outputs", out_path]
        if inputs:
            run_cmd[2:2] = ["--inputs", in_path]
        rc, err = self.tool(run_cmd)
        files["fuse-run.stderr"] = err
        if rc == "hang":
            return "hang", "fuse-run ran over %d s" % args.timeout, files
        if error_node is not None:
            category, detail = run_error(rc, err, error_node)
            return category, detail, files
        if rc != 0 or any(m in err for m in CRASH_MARKS):
            return "crash", "fuse-run exit %s: %s" % (rc, first_lines(err)), \
                files
        with np.load(out_path) as f:
            got = {k: f[k] for k in f.files}
        for o in model.graph.output:
            if o.type.tensor_type.elem_type == TensorProto.BFLOAT16 and \
                    o.name in got:
                # fuse-run writes bfloat16 as its bits, in uint16.
                if got[o.name].dtype != np.uint16:
                    return "mismatch", "output %s: dtype %s, a bfloat16 " \
                        "output (uint16 bits in the .npz)" % (
                            o.name, got[o.name].dtype), files
                got[o.name] = got[o.name].view(BF16)
        why = compare(got, want, expect)
        if why:
            # The float64 result of the outputs that differ only (onnx's
            # reference evaluator fails on some ops the others need).
            model = onnx.load(model_path)
            bad = {name for name in want
                   if compare(got, {name: want[name]}, expect)}
            keep = [o for o in model.graph.output if o.name in bad]
            del model.graph.output[:]
            model.graph.output.extend(keep)
            prune(model)
            pruned = os.path.join(workdir, "differs.onnx")
            onnx.save(model, pruned)
            status, ref = self.ort().reference(
                pruned, {i.name: inputs[i.name] for i in model.graph.input})
            if status == "ok" and not compare(got, want, expect, ref):
                # Within reach of the float64 result: onnxruntime's error
                # or an ill-conditioned op, not fuse's.
                return "pass", "float64 reference", files
            if status == "ok":
                files["reference64.npz"] = ref["ref"]
                files["reference64-spread.npz"] = ref["spread"]
            else:
                files["reference64.txt"] = ref
            return "mismatch", why, files
        return "pass", "", files


def expected_error(model):
    """The node whose out-of-range indices make the model an error (its
    metadata EXPECT_ERROR), when it is still in the model; else None."""
    props = {p.key: p.value for p in model.metadata_props}
    name = props.get(EXPECT_ERROR)
    if name is None or name not in {n.name for n in model.graph.node}:
        return None
    return name


def run_error(rc, err, node):
    """(category, detail) of fuse-run on a model whose node takes
    out-of-range indices: it must exit with status 1 and an error that
    names the node and says "out of range"."""
    if rc == 0:
        return "mismatch", "fuse-run succeeded on the out-of-range " \
            "indices of node %s (ONNX makes that an error)" % node
    if rc != 1 or any(m in err for m in CRASH_MARKS):
        return "crash", "fuse-run exit %s: %s" % (rc, first_lines(err))
    pattern = re.compile(r"error:.*node '%s'.*out of range" % re.escape(node))
    if not any(pattern.search(line) for line in err.splitlines()):
        return "crash", "fuse-run failed, but not at the out-of-range " \
            "indices of node %s: %s" % (node, first_lines(err))
    return "pass", ""


def npz_arrays(arrays):
    """The arrays as fuse-run reads them from an .npz: bfloat16 as its
    bits, in uint16 (numpy saves ml_dtypes' type as raw bytes, '<V2')."""
    return {k: a.view(np.uint16) if a.dtype == BF16 else a
            for k, a in arrays.items()}


def typed_inputs(model, arrays):
    """The arrays with those of the model's bfloat16 inputs made
    bfloat16: the uint16 bits of an .npz, or float32 values (onnxruntime's
    values of a float32 twin, which the reducer turns into inputs)."""
    types = {i.name: i.type.tensor_type.elem_type for i in model.graph.input}
    out = {}
    for k, a in arrays.items():
        if types.get(k) == TensorProto.BFLOAT16 and a.dtype != BF16:
            a = a.view(BF16) if a.dtype == np.uint16 else a.astype(BF16)
        out[k] = a
    return out


def first_lines(text, n=3):
    lines = [line for line in text.splitlines() if line.strip()]
    return " | ".join(lines[:n])[:400]


def save_failure(out_dir, label, model, inputs, expect, category, detail,
                 files, args):
    """Keeps a failing case under out_dir/label."""
    d = os.path.join(out_dir, label)
    os.makedirs(d, exist_ok=True)
    model_path = os.path.join(d, "model.onnx")
    onnx.save(model, model_path)
    np.savez(os.path.join(d, "inputs.npz"), **npz_arrays(inputs))
    with open(os.path.join(d, "expect.json"), "w") as f:
        json.dump(expect, f, indent=1)
    for name, content in files.items():
        p = os.path.join(d, name)
        if name.endswith(".npz"):
            np.savez(p, **content)
        else:
            with open(p, "w") as f:
                f.write(content)
    me = os.path.abspath(__file__)
    with open(os.path.join(d, "replay.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s: %s\ncd \"$(dirname \"$0\")\"\n" % (
            category, detail.replace("\n", " ")))
        f.write("%s --cpu=x86-64 --target=cpu --no-reference model.onnx "
                "-o model.fbin\n" % shlex.quote(args.fuse_compile))
        f.write("%s model.fbin --inputs inputs.npz --outputs fuse.npz\n" %
                shlex.quote(args.fuse_run))
        f.write("# or, with the comparison against onnxruntime:\n")
        f.write("# %s %s --replay model.onnx --inputs inputs.npz "
                "--fuse-compile %s --fuse-run %s\n" % (
                    shlex.quote(sys.executable), shlex.quote(me),
                    shlex.quote(args.fuse_compile),
                    shlex.quote(args.fuse_run)))
    os.chmod(os.path.join(d, "replay.sh"), 0o755)
    return d


def fresh_out(path):
    """path itself when it is missing or empty, else a new run-K in it."""
    if not os.path.exists(path) or (os.path.isdir(path) and
                                    not os.listdir(path)):
        os.makedirs(path, exist_ok=True)
        return path
    if not os.path.isdir(path):
        sys.exit("error: --out %s exists and is not a directory" % path)
    k = 1
    while True:
        sub = os.path.join(path, "run-%d" % k)
        try:
            os.makedirs(sub)
            return sub
        except FileExistsError:
            k += 1


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.categories = collections.Counter()
        self.refusals = collections.Counter()
        self.invalid = collections.Counter()
        self.ops = collections.Counter()
        self.ops_pass = collections.Counter()
        self.failures = []
        self.skipped = 0
        self.by_reference = 0
        # Categories of the cases of each kind ("bfloat16", "error").
        self.kinds = collections.defaultdict(collections.Counter)

    def add(self, label, category, detail, ops, kinds=()):
        with self.lock:
            self.categories[category] += 1
            for kind in kinds:
                self.kinds[kind][category] += 1
            for op in ops:
                self.ops[op] += 1
                if category == "pass":
                    self.ops_pass[op] += 1
            if category == "pass" and detail:
                self.by_reference += 1
            if category == "refused":
                self.refusals[detail] += 1
            elif category == "invalid":
                self.invalid[normalize_invalid(detail)] += 1


def normalize_invalid(detail):
    d = re.sub(r"\b[xcv]\d+\b", "V", detail)
    d = re.sub(r"n\d+_", "n_", d)
    d = re.sub(r"\b\d+\b", "N", d)
    d = re.sub(r"\{[^}]*\}", "{...}", d)
    return d[:150]


def run_case(runner, seed, index, root, out_dir, stats):
    label = "seed%d-case%d" % (seed, index)
    try:
        generated = generate(seed, index)
    except Exception as e:  # a bug of this generator, not of fuse
        detail = "%s: %s" % (type(e).__name__, e)
        print("FAIL generator %s: %s" % (label, detail), flush=True)
        with stats.lock:
            stats.failures.append((label, "generator", detail, ""))
        stats.add(label, "generator", detail, [])
        return label, "generator", detail
    if generated is None:
        with stats.lock:
            stats.skipped += 1
        return label, "empty", ""
    model, inputs, expect, ops = generated
    kinds = [kind for kind, yes in (
        ("bfloat16", has_bfloat16(model)),
        ("error", expected_error(model) is not None)) if yes]
    workdir = os.path.join(root, label)
    os.makedirs(workdir)
    model_path = os.path.join(workdir, "model.onnx")
    onnx.save(model, model_path)
    try:
        category, detail, files = runner.check(model_path, inputs, expect,
                                               workdir)
    except Exception as e:  # a bug of this script
        category, detail, files = "generator", "%s in the check: %s" % (
            type(e).__name__, e), {}
    if category in FAILURES:
        d = save_failure(out_dir, label, model, inputs, expect, category,
                         detail, files, runner.args)
        with stats.lock:
            stats.failures.append((label, category, detail, d))
        print("FAIL %s %s: %s\n  saved in %s" % (category, label, detail, d),
              flush=True)
    stats.add(label, category, detail, ops, kinds)
    shutil.rmtree(workdir, ignore_errors=True)
    return label, category, detail


def summary(stats, elapsed, args):
    c = stats.categories
    total = sum(c.values())
    failures = sum(c[k] for k in FAILURES)
    print()
    print("differential: seed %d, %d cases in %.0f s" % (args.seed, total,
                                                         elapsed))
    print("  %-9s %7s" % ("category", "cases"))
    for k in ("pass", "refused", "invalid", "mismatch", "crash", "hang"):
        print("  %-9s %7d" % (k, c[k]))
    if c["generator"]:
        print("  %-9s %7d  (errors of this script, not of fuse)" % (
            "generator", c["generator"]))
    print("  %-9s %7d" % ("failures", failures))
    for kind, what in (("bfloat16", "with a bfloat16 value"),
                       ("error", "error-expected (out-of-range indices)")):
        k = stats.kinds[kind]
        print("  %d cases %s: %d pass, %d refused, %d invalid, %d "
              "failures" % (sum(k.values()), what, k["pass"], k["refused"],
                            k["invalid"], sum(k[f] for f in FAILURES)))
    if stats.by_reference:
        print("  (%d of the passes differ from onnxruntime beyond the "
              "tolerance but not from the float64 result: see "
              "compare())" % stats.by_reference)
    if stats.refusals:
        print("\nmost frequent refusals (of %d):" % c["refused"])
        for msg, n in stats.refusals.most_common(args.top):
            print("  %6d  %s" % (n, msg))
    if stats.invalid:
        print("\nmost frequent invalid models (of %d):" % c["invalid"])
        for msg, n in stats.invalid.most_common(args.top):
            print("  %6d  %s" % (n, msg))
    print("\noperators (nodes generated, nodes in passing cases):")
    items = sorted(stats.ops.items(), key=lambda kv: -kv[1])
    for k in range(0, len(items), 3):
        print("  " + "".join("%-22s %5d %5d   " % (op, n, stats.ops_pass[op])
                             for op, n in items[k:k + 3]).rstrip())
    if stats.failures:
        print("\nfailures:")
        for label, category, detail, d in stats.failures:
            print("  %s %s: %s\n    %s" % (category, label, detail[:200], d))
    print("\ndifferential: %d cases: %d pass, %d refused, %d invalid, "
          "%d mismatch, %d crash, %d hang%s (%d bfloat16, %d "
          "error-expected)" % (
              total, c["pass"], c["refused"], c["invalid"], c["mismatch"],
              c["crash"], c["hang"],
              ", %d generator errors" % c["generator"]
              if c["generator"] else "",
              sum(stats.kinds["bfloat16"].values()),
              sum(stats.kinds["error"].values())))
    return failures


def prune(model):
    """Drops nodes no graph output needs, then unused inputs and
    initializers."""
    g = model.graph
    needed = {o.name for o in g.output}
    keep = []
    for node in reversed(list(g.node)):
        if any(o in needed for o in node.output):
            keep.append(node)
            needed.update(i for i in node.input if i)
    del g.node[:]
    g.node.extend(reversed(keep))
    inputs = [i for i in g.input if i.name in needed]
    del g.input[:]
    g.input.extend(inputs)
    inits = [i for i in g.initializer if i.name in needed]
    del g.initializer[:]
    g.initializer.extend(inits)
    return model


def reduce_case(args):
    """Shrinks a failing model: drops outputs and cuts edges (a node's
    input made a graph input holding onnxruntime's value of it) while the
    case fails the same way. Writes reduced.onnx and reduced.npz."""
    d = args.reduce
    model = onnx.load(os.path.join(d, "model.onnx"))
    with np.load(os.path.join(d, "inputs.npz")) as f:
        inputs = typed_inputs(model, {k: f[k] for k in f.files})
    runner = Runner(args)
    expect = load_expect(os.path.join(d, "model.onnx"))
    workdir = tempfile.mkdtemp(prefix="fuse-differential-reduce-")

    def check(m, ins):
        path = os.path.join(workdir, "model.onnx")
        onnx.save(m, path)
        sub = tempfile.mkdtemp(dir=workdir)
        return runner.check(path, ins, expect, sub)[:2]

    want, detail = check(model, inputs)
    print("%s: %s" % (want, detail))
    if want not in FAILURES:
        return 1
    changed = True
    while changed:
        changed = False
        # Fewer outputs.
        for k in range(len(model.graph.output)):
            if len(model.graph.output) == 1:
                break
            m = onnx.ModelProto()
            m.CopyFrom(model)
            del m.graph.output[k]
            prune(m)
            ins = {i.name: inputs[i.name] for i in m.graph.input}
            got, why = check(m, ins)
            if got == want:
                model, inputs, detail, changed = m, ins, why, True
                print("  dropped an output: %d nodes" % len(m.graph.node))
                break
        if changed:
            continue
        # Cut an edge: a value a node computes becomes a graph input.
        inferred = onnx.shape_inference.infer_shapes(model)
        infos = {v.name: v for v in inferred.graph.value_info}
        infos.update({v.name: v for v in inferred.graph.output})
        values = [o for n in model.graph.node for o in n.output
                  if o in infos]
        probe = onnx.ModelProto()
        probe.CopyFrom(model)
        del probe.graph.output[:]
        probe.graph.output.extend(infos[v] for v in values)
        path = os.path.join(workdir, "probe.onnx")
        onnx.save(probe, path)
        status, computed = runner.ort().run(path, inputs)
        if status != "ok":
            break
        for v in values:
            m = onnx.ModelProto()
            m.CopyFrom(model)
            nodes = [n for n in m.graph.node if v not in n.output]
            del m.graph.node[:]
            m.graph.node.extend(nodes)
            if v in [o.name for o in m.graph.output]:
                continue
            m.graph.input.append(infos[v])
            prune(m)
            if v not in [i.name for i in m.graph.input]:
                continue
            ins = typed_inputs(m, {
                i.name: inputs.get(i.name, computed.get(i.name))
                for i in m.graph.input})
            got, why = check(m, ins)
            if got == want:
                model, inputs, detail, changed = m, ins, why, True
                print("  cut %s: %d nodes" % (v, len(m.graph.node)))
                break
    stop_servers()
    shutil.rmtree(workdir, ignore_errors=True)
    onnx.save(model, os.path.join(d, "reduced.onnx"))
    np.savez(os.path.join(d, "reduced.npz"), **npz_arrays(inputs))
    print("%s: %s\n%s" % (want, detail, onnx.printer.to_text(model.graph)))
    print("wrote %s and %s" % (os.path.join(d, "reduced.onnx"),
                               os.path.join(d, "reduced.npz")))
    return 0


def load_expect(model_path):
    """The tolerances saved next to a failing case's model (expect.json),
    else {} (each dtype's own)."""
    path = os.path.join(os.path.dirname(os.path.abspath(model_path)),
                        "expect.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def replay(args):
    model_path = args.replay
    model = onnx.load(model_path)
    if args.inputs:
        with np.load(args.inputs) as f:
            inputs = typed_inputs(model, {k: f[k] for k in f.files})
    else:
        rng = np.random.default_rng(args.seed)
        inits = {i.name for i in model.graph.initializer}
        inputs = {}
        for vi in model.graph.input:
            if vi.name in inits:
                continue
            t = vi.type.tensor_type
            shape = tuple(d.dim_value for d in t.shape.dim)
            g = Gen(rng, 17)
            inputs[vi.name] = g.data(NP_TYPE[t.elem_type], shape)
    workdir = tempfile.mkdtemp(prefix="fuse-differential-replay-")
    try:
        category, detail, _ = Runner(args).check(
            os.path.abspath(model_path), inputs, load_expect(model_path),
            workdir)
    finally:
        stop_servers()
        shutil.rmtree(workdir, ignore_errors=True)
    print("%s: %s%s" % (model_path, category, ": " + detail if detail else ""))
    return 1 if category in FAILURES else 0


def main():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1,
                   help="fixes the models (default 1)")
    p.add_argument("--count", type=int, default=None,
                   help="cases to run (default 100 without --minutes)")
    p.add_argument("--minutes", type=float, default=None,
                   help="run cases until this much time has passed")
    p.add_argument("--case", type=int, default=None,
                   help="run this case of --seed only")
    p.add_argument("--first", type=int, default=0,
                   help="index of the first case (default 0)")
    p.add_argument("--jobs", type=int, default=1,
                   help="cases run at once (default 1)")
    p.add_argument("--out", default=None,
                   help="where failing cases are kept (default: a new "
                   "folder under the temporary directory)")
    here = os.path.dirname(os.path.abspath(__file__))
    build_bin = os.path.join(here, "..", "build", "bin")
    p.add_argument("--fuse-compile",
                   default=os.path.join(build_bin, "fuse-compile"),
                   help="default: build/bin/fuse-compile")
    p.add_argument("--fuse-run", default=os.path.join(build_bin, "fuse-run"),
                   help="default: build/bin/fuse-run")
    p.add_argument("--timeout", type=int, default=60,
                   help="seconds a tool may run before the case is a hang")
    p.add_argument("--progress", type=float, default=30.0,
                   help="seconds between progress lines")
    p.add_argument("--top", type=int, default=12,
                   help="refusals and invalid reasons listed")
    p.add_argument("--replay", metavar="MODEL",
                   help="check one model (its inputs: --inputs, else random)")
    p.add_argument("--inputs", help="with --replay: an .npz of the inputs")
    p.add_argument("--reduce", metavar="DIR",
                   help="shrink the failing case saved in DIR (writes "
                   "DIR/reduced.onnx and DIR/reduced.npz)")
    p.add_argument("--known-bugs", action="store_true",
                   help="also generate what the fuse bugs in KNOWN_BUGS "
                   "break (left out by default)")
    args = p.parse_args()
    if args.known_bugs:
        AVOID.clear()
    for tool in ("fuse_compile", "fuse_run"):
        path = shutil.which(getattr(args, tool))
        if path is None:
            sys.exit("error: --%s %s: not found" % (tool.replace("_", "-"),
                                                    getattr(args, tool)))
        setattr(args, tool, os.path.abspath(path))
    if args.replay:
        return replay(args)
    if args.reduce:
        return reduce_case(args)
    if args.count is None and args.minutes is None:
        args.count = 100
    if args.case is not None:
        args.first, args.count, args.minutes = args.case, 1, None
    out_dir = fresh_out(args.out) if args.out else tempfile.mkdtemp(
        prefix="fuse-differential-")
    root = tempfile.mkdtemp(prefix="fuse-differential-work-")
    runner = Runner(args)
    stats = Stats()
    start = time.time()
    deadline = start + 60 * args.minutes if args.minutes else None
    last = [start]
    end = args.first + args.count if args.count is not None else None

    def progress(force=False):
        now = time.time()
        if force or now - last[0] >= args.progress:
            last[0] = now
            c = stats.categories
            print("[%5.0f s] %d cases: %d pass, %d refused, %d invalid, "
                  "%d failures" % (now - start, sum(c.values()), c["pass"],
                                   c["refused"], c["invalid"],
                                   sum(c[k] for k in FAILURES)), flush=True)

    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            pending = set()
            index = args.first
            while True:
                while len(pending) < 2 * args.jobs and \
                        (end is None or index < end) and \
                        (deadline is None or time.time() < deadline):
                    pending.add(pool.submit(run_case, runner, args.seed,
                                            index, root, out_dir, stats))
                    index += 1
                if not pending:
                    break
                done, pending = concurrent.futures.wait(
                    pending, timeout=args.progress,
                    return_when=concurrent.futures.FIRST_COMPLETED)
                for f in done:
                    f.result()
                progress()
    finally:
        stop_servers()
        shutil.rmtree(root, ignore_errors=True)
    failures = summary(stats, time.time() - start, args)
    if stats.failures:
        print("failing cases are in %s" % out_dir)
    elif not os.listdir(out_dir):
        os.rmdir(out_dir)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
