"""The machine a benchmark ran on, printed beside its figures: the same code ran twice as fast
on one development machine as on another, so a figure means little without it."""

from __future__ import annotations

import platform
from pathlib import Path


def processor() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo) and whether it has AVX-512, which ONNX
    Runtime's kernels use; else what the platform says."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
    flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
    if not names:
        return platform.processor() or platform.machine() or "unknown"
    return names[0] + (", AVX-512" if "avx512f" in flags else ", no AVX-512")
