"""fuse's compiler driver: an ONNX model to an artifact. Called through
fuse.compile, which checks the options."""

from typing import List, Optional, Tuple

def compile(model: Optional[bytes], source: str, output: str, target: str,
            arch: str, cpu: str, cuda_path: str, strategy: str,
            depthwise: str, conv: str, fuse: bool, reference: bool,
            fusion_report: bool, input_shapes: List[str], precision: str,
            keep_fp32: List[str],
            io_precision: str) -> Tuple[Optional[bytes], str]: ...
