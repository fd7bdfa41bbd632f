"""Everything a user runs must import without the training extra (torch): a judge's machine
has only the runtime dependencies. Training modules are the one place torch may appear."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_PACKAGES = ("referee", "vision", "calibration", "synth", "models", "bench", "api")
# The training code: the only modules allowed to need the training extra (torch, onnx).
TRAINING_MODULES = {
    "models.board.nets",
    "models.board.train",
    "models.board.train_trays",
    "models.dice.nets",
    "models.dice.training",
    "models.dice.train_classifier",
    "models.dice.train_cocked",
    "models.dice.train_detector",
    "models.dice.train_framer",
    "models.dice.train_joint",
    "models.dice.from_onnx",
    "models.dice.ensemble",
    "models.dice.phase_split",
}


def runtime_modules() -> list[str]:
    names = []
    for package in RUNTIME_PACKAGES:
        names.append(package)
        for module in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            if module.name not in TRAINING_MODULES:
                names.append(module.name)
    return names


def test_runtime_modules_import_without_torch() -> None:
    modules = runtime_modules()
    assert "vision.dice.reader" in modules and "models.dice.evaluate" in modules
    # A None entry in sys.modules makes `import torch` fail as if it were not installed.
    script = (
        "import importlib, sys\n"
        "sys.modules['torch'] = None\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
