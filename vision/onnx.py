"""The one way the readers open an ONNX network: on the CPU, with a given number of threads
(one by default: a table's process reads its cameras on one core, next to other tables).
onnxruntime is imported on the first model opened, not when a reader's module is."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnxruntime as ort


def load_model(path: Path, threads: int = 1) -> ort.InferenceSession:
    """An inference session for the network at `path`; ValueError when the file is missing."""
    import onnxruntime as ort

    if not Path(path).is_file():
        raise ValueError(f"model {path} is missing (see the model card beside it in models/)")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
