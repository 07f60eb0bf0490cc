"""The exceptions fuse raises. The runtime's and the compiler's messages
are carried as they are (fuse_last_error, fuse-compile's diagnostics)."""


class FuseError(RuntimeError):
    """Base of every error fuse raises."""


class CompileError(FuseError):
    """The compiler cannot take the model; the message is its diagnostics
    (the node, op type and opset it stopped at), as fuse-compile prints
    them."""


class ArtifactError(FuseError):
    """The artifact cannot be read, or is not a valid artifact (magic,
    version, checksum, truncation)."""


class TargetError(FuseError):
    """The artifact's target is not available here: a cuda artifact without
    a GPU, or a cpu artifact for an x86-64 level this machine lacks."""


class DeviceError(FuseError):
    """A CUDA or dynamic-loader call failed."""


class InvalidArgument(FuseError, ValueError):
    """A call's arguments do not fit the model: an unknown input, output or
    plan name, a missing input, or an array of the wrong dtype or shape."""


class CompileWarning(UserWarning):
    """Diagnostics of a compile that succeeded."""
