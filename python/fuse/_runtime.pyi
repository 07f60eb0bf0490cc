"""fuse's runtime: compiled artifacts run through its C API."""

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

class NodeArg:
    """A graph input or output: name, shape and ONNX type, as onnxruntime's
    NodeArg."""
    @property
    def name(self) -> str: ...
    @property
    def shape(self) -> List[int]: ...
    @property
    def type(self) -> str:
        """ONNX's type: 'tensor(float)'."""
    @property
    def dtype(self) -> str:
        """numpy's dtype name of the arrays it takes or gives."""

class Session:
    """A loaded artifact."""
    def __init__(
        self, path_or_bytes: Union[str, os.PathLike, bytes, bytearray,
                                   memoryview, "Session"], *,
        device: int = 0
    ) -> None: ...
    def get_inputs(self) -> List[NodeArg]: ...
    def get_outputs(self) -> List[NodeArg]: ...
    def run(self, output_names: Optional[Sequence[str]],
            input_feed: Dict[str, npt.ArrayLike], *,
            plan: str = "main") -> List[np.ndarray]: ...
    def _run_bound(self, input_feed: Dict[str, Any],
                   outputs: List[Any], stream: int, plan: str) -> None: ...
    def _profile(self, input_feed: Optional[Dict[str, npt.ArrayLike]],
                 plan: str, warmup: int, iterations: int,
                 measure_limits: bool) -> Dict[str, Any]: ...
    def groups(self) -> List[Dict[str, Any]]:
        """The fusion groups: group, strategy, flops, bytes and nodes
        ((name, op type) pairs)."""
    @property
    def target(self) -> str:
        """'cpu' or 'cuda'."""
    @property
    def arch(self) -> str:
        """'x86-64-v3', 'sm_90', ..."""
    @property
    def compiler(self) -> str:
        """The compiler that wrote the artifact ('fuse 0.1.0, commit ...,
        LLVM 22.1.2'); '' for artifacts older than format version 5."""
    @property
    def compile_flags(self) -> str:
        """The options it was compiled with, as fuse-compile's flags
        ('--target=cpu --input-shape=x=1x3x224x224')."""
    @property
    def device(self) -> str: ...
    @property
    def device_index(self) -> int:
        """The CUDA device it runs on (0 for the cpu target)."""
    @property
    def libraries(self) -> str: ...
    @property
    def plans(self) -> List[str]: ...
