"""fuse: an ahead-of-time fusion compiler for ONNX models, and its runtime.

    import fuse, numpy as np
    artifact = fuse.compile("model.onnx", target="cpu")
    session = fuse.InferenceSession(artifact)
    y, = session.run(None, {"x": np.zeros((1, 3, 224, 224), np.float32)})
    print(session.profile())

`compile` runs the compiler in this process (the same driver as
fuse-compile); `InferenceSession` loads an artifact through the runtime's C
API, like onnxruntime's InferenceSession. docs/python.md has the details.
"""

import numbers as _numbers
import os as _os
import warnings as _warnings

from ._errors import (ArtifactError, CompileError, CompileWarning,
                      DeviceError, FuseError, InvalidArgument, TargetError)
from ._profile import LaunchProfile, Profile
from ._check import CheckReport, OutputCheck, check_onnx
from . import _runtime
from ._runtime import NodeArg

__version__ = "0.1.0"

__all__ = [
    "ArtifactError", "CheckReport", "CompileError", "CompileWarning",
    "DeviceError", "FuseError", "InferenceSession", "InvalidArgument",
    "LaunchProfile", "NodeArg", "OutputCheck", "Profile", "TargetError",
    "check_onnx", "compile",
]

_CHOICES = {
    "target": ("cpu", "cuda"),
    "strategy": ("auto", "generated", "library"),
    "depthwise": ("kernel", "library"),
    "conv": ("auto", "direct", "gemm", "nhwc", "nhwc-direct"),
    "precision": ("auto", "fp32", "tf32", "fp16", "bf16"),
    "io_precision": ("model", "fp32", "fp16", "bf16"),
}


def _model_source(model):
    """(bytes or None, source name) for the compiler: a path is read by
    the compiler itself, so that external data beside it is found."""
    if isinstance(model, (str, _os.PathLike)):
        path = _os.fspath(model)
        if not _os.path.isfile(path):
            raise FileNotFoundError(f"no ONNX model at '{path}'")
        return None, path
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), "<bytes>"
    # onnx.ModelProto, without importing onnx (not needed to serve).
    if hasattr(model, "SerializeToString") and hasattr(model, "graph"):
        return model.SerializeToString(), "<bytes>"
    raise TypeError("model must be a path, bytes or an onnx.ModelProto, "
                    f"not {type(model).__name__}")


def _shape_spec(name, dims):
    """`--input-shape` text for one input: "x=1x3x224x224", None for `?`."""
    if not isinstance(name, str):
        raise TypeError(f"input_shapes keys must be input names (str), not "
                        f"{type(name).__name__}")
    if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
        raise TypeError(f"input_shapes['{name}'] must be a sequence of "
                        f"dimensions, not {type(dims).__name__}")
    text = []
    for d in dims:
        if d is None:
            text.append("?")
        elif isinstance(d, int) and not isinstance(d, bool) and d >= 0:
            text.append(str(d))
        else:
            raise ValueError(f"input_shapes['{name}']: {d!r} is not a "
                             "dimension (a non-negative int, or None for a "
                             "dynamic one)")
    return f"{name}={'x'.join(text)}"


def compile(model, target="cpu", *, arch="sm_90", sms=0,
            cpu="x86-64,x86-64-v3",
            strategy="auto", input_shapes=None, fusion=True,
            reference=False, depthwise="kernel", conv="auto", cuda_path=None,
            fusion_report=False, output=None, precision="auto",
            keep_fp32=(), io_precision="model", index_checks=True):
    """Compiles an ONNX model into an artifact, as fuse-compile does.

    model: a path (str or os.PathLike; external data is read from its
        folder), the model's bytes, or an onnx.ModelProto.
    target: "cpu" (x86-64 code; the default here, since it runs wherever
        the package does) or "cuda" (cubin for `arch`, plus PTX).
    arch: the GPU architecture for cuda ("sm_90").
    sms: the GPU's streaming multiprocessors, by which kernels' grids are
        sized (fuse-compile --gpu-sms); 0: the architecture's usual part's
        (sm_80 108, sm_86 84, sm_89 58, sm_90 132).
    cpu: the x86-64 levels to compile cpu kernels for, comma-separated:
        "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4" or "native" (this
        machine's). The artifact runs on hosts of the lowest level or
        above, each with the highest level's kernels it has.
    strategy: "auto", "generated" or "library" (fuse-compile --strategy).
    input_shapes: {input name: [dims]} for inputs whose shape the model
        leaves symbolic (None for a dimension that stays dynamic).
    fusion: False compiles one kernel per op (fuse-compile --no-fuse).
    reference: also compile the unfused plan "reference" (fuse-compile
        --reference; off by default: it doubles the compile).
    depthwise, conv, cuda_path, fusion_report: as fuse-compile's
        --depthwise, --conv, --cuda-path and --fusion-report (to stderr).
    precision: "auto" (the model's own), "fp32", "tf32", "fp16" or "bf16"
        (fuse-compile --precision; docs/precision.md).
    keep_fp32: node-name patterns ("*" for any characters) whose groups
        stay fp32 under `precision` (fuse-compile --keep-fp32).
    io_precision: "model" (the types the ONNX model declares), "fp32",
        "fp16" or "bf16": the type of every float input and output
        (fuse-compile --io-precision); InferenceSession.run then takes and
        returns arrays of that type.
    index_checks: False leaves out the run-time checks that Gather,
        GatherElements and GatherND indices are in range (fuse-compile
        --no-index-checks): an index out of range is then clamped into it
        without an error. With them, a run given one raises
        fuse.InvalidArgument naming the node and the index.
    output: a path to write the artifact to instead of returning it.

    Returns the artifact's bytes, or `output` when given. Raises
    CompileError with the compiler's diagnostics when it cannot take the
    model; warnings of a compile that succeeded come as CompileWarning.
    """
    for name, choices in _CHOICES.items():
        value = locals()[name]
        if value not in choices:
            raise ValueError(f"{name} must be {', '.join(choices[:-1])} or "
                             f"{choices[-1]}, not {value!r}")
    if (not isinstance(sms, _numbers.Integral) or isinstance(sms, bool)
            or sms < 0 or sms > 4096):
        raise ValueError(f"sms must be an int from 1 to 4096 (0: the "
                         f"architecture's), not {sms!r}")
    if isinstance(keep_fp32, str) or not all(
            isinstance(p, str) for p in keep_fp32):
        raise TypeError("keep_fp32 must be a sequence of node-name patterns "
                        "(str)")
    data, source = _model_source(model)
    shapes = [_shape_spec(n, d) for n, d in (input_shapes or {}).items()]
    if cuda_path is None:
        cuda_path = _os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    out = "" if output is None else _os.fspath(output)
    # Imported here: the compiler loads LLVM, which serving does not need.
    from . import _compiler
    artifact, diagnostics = _compiler.compile(
        data, source, out, target, arch, int(sms), cpu, _os.fspath(cuda_path),
        strategy, depthwise, conv, fusion, reference, fusion_report, shapes,
        precision, list(keep_fp32), io_precision, bool(index_checks))
    if diagnostics:
        _warnings.warn(diagnostics, CompileWarning, stacklevel=2)
    return artifact if output is None else output


def _framework(tensor):
    return type(tensor).__module__.split(".")[0]


def _allocate_outputs(session, like):
    """One tensor per output, of like's framework and device."""
    framework = _framework(like)
    if framework == "torch":
        import torch
        return [torch.empty(out.shape, dtype=getattr(torch, out.dtype),
                            device=like.device)
                for out in session.get_outputs()]
    if framework == "cupy":
        import cupy
        with cupy.cuda.Device(session.device_index):
            return [cupy.empty(out.shape, dtype=out.dtype)
                    for out in session.get_outputs()]
    if framework == "numpy" and session.target == "cpu":
        import numpy
        return [numpy.empty(out.shape, dtype=out.dtype)
                for out in session.get_outputs()]
    raise InvalidArgument(
        "run_dlpack cannot allocate outputs like a %s tensor: pass outputs="
        " (one tensor per output)" % type(like).__name__)


# CU_STREAM_LEGACY: the legacy default stream, DLPack's default too.
_LEGACY_STREAM = 1


def _stream_handle(stream, like, device):
    """The CUstream a run_dlpack goes on, as an int. 0, CUDA's default
    stream (torch's default stream is 0), is the legacy default stream: the
    C API's NULL would be the model's own stream, unordered with the
    caller's work."""
    if stream is None:
        framework = _framework(like)
        if framework == "torch":
            import torch
            handle = torch.cuda.current_stream(device).cuda_stream
        elif framework == "cupy":
            import cupy
            handle = cupy.cuda.get_current_stream().ptr
        else:
            handle = 0
    elif isinstance(stream, int):
        handle = stream
    elif hasattr(stream, "cuda_stream"):
        handle = int(stream.cuda_stream)
    elif hasattr(stream, "ptr"):
        handle = int(stream.ptr)
    else:
        raise TypeError("stream must be an int (a CUstream), a "
                        "torch.cuda.Stream or a cupy Stream, not %s"
                        % type(stream).__name__)
    return handle or _LEGACY_STREAM


class InferenceSession(_runtime.Session):
    """A compiled artifact, loaded and ready to run, modelled on
    onnxruntime.InferenceSession.

    InferenceSession(path_or_bytes, *, device=0): a .fbin path (str or
    os.PathLike) or an artifact's bytes (what compile returns); device is
    the CUDA device it runs on. Raises ArtifactError for a file that cannot
    be read or is not an artifact, TargetError when its target is not
    available here, InvalidArgument for a device that does not exist.
    InferenceSession(session): a second session of a loaded one (see
    new_session).

    get_inputs(), get_outputs(): NodeArg (name, shape, type, dtype) each.
    run(output_names, input_feed, *, plan="main"): output_names is a list
        of output names, or None for all; input_feed maps every input's
        name to a numpy array of its dtype and shape. Returns a list of
        numpy arrays. Raises InvalidArgument for an unknown name, a missing
        input or an array of the wrong dtype or shape, TypeError for a feed
        that is not an array. bfloat16 tensors travel as uint16 bits.
    run_dlpack(input_feed, outputs=None, *, stream=None, plan="main"):
        device tensors in and out, without a copy through the host.
    new_session(): another session sharing this one's weights.
    target, arch, device, device_index, plans, libraries: what the
        artifact is and where it runs.
    compiler, compile_flags: the compiler that wrote the artifact and the
        options it was given (fuse-compile's flags).
    groups(): the fusion groups: strategy, FLOPs, bytes and ONNX nodes.

    One session runs one call at a time (others wait); the GIL is released
    while it runs.
    """

    def run_dlpack(self, input_feed, outputs=None, *, stream=None,
                   plan="main"):
        """Runs the model on tensors that are already on its device (torch
        or CuPy tensors on the GPU; for the cpu target, host tensors such
        as numpy arrays), through DLPack or torch's data pointer: no copy
        through the host.

        input_feed: every input's name to a C-contiguous tensor of its
            dtype and shape on the model's device.
        outputs: a list with one tensor per output (get_outputs() order)
            to write into, None entries for outputs not wanted; None
            allocates them like the inputs (torch.empty or cupy.empty).
        stream: the CUDA stream the run is ordered on: an int (a
            CUstream), a torch.cuda.Stream or a cupy Stream. None: for
            torch tensors torch's current stream, for CuPy CuPy's, else the
            legacy default stream.

        The run is enqueued on the stream and the call returns without
        waiting (the inputs are copied into the model's memory on the
        stream, the plan's CUDA Graph launched, the outputs copied out):
        work the caller enqueues after it on the same stream sees the
        outputs. Returns the output tensors.
        """
        first = next(iter(input_feed.values()), None)
        if outputs is None:
            outputs = _allocate_outputs(self, first)
        if self.target == "cuda":
            handle = _stream_handle(stream, first, self.device_index)
        elif stream is not None:
            raise InvalidArgument("the cpu target takes no stream")
        else:
            handle = 0
        self._run_bound(input_feed, list(outputs), handle, plan)
        return outputs

    def new_session(self):
        """A second session of this artifact on the same device: the
        weights and kernels are shared (not loaded again), its memory for
        activations, its inputs and outputs are its own, so two sessions
        may run at once, from two threads or on two streams."""
        return type(self)(self)

    def profile(self, input_feed=None, *, plan="main", warmup=3,
                iterations=20, measure_limits=False):
        """Times every launch of a plan on its own, as fuse-run --profile:
        returns a Profile (print it for the table, slowest first).

        input_feed: inputs to time with (as run's); without it, the last
            run's, or zeros before any run.
        measure_limits: also measure the device's copy bandwidth and fp32
            matmul rate (about a second on a GPU; nothing on the CPU) to
            give each launch's share of the limit.
        """
        raw = self._profile(input_feed, plan, warmup, iterations,
                            measure_limits)
        return Profile(raw, self.groups())
