"""A committed network's ONNX export (straight-down networks, the detector) turned back into
weights to train on."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import onnx
import torch

from models.dice.from_onnx import unfolded, unfolded_detector
from models.dice.nets import DiceDetector, DieClassifier
from models.dice.phase_split import split


def learnt(model: torch.nn.Module) -> None:
    """BatchNorms that have learnt something, in eval mode."""
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    model.eval()


def assert_unfolds(trained: torch.nn.Module, unfold: Callable[[Path, torch.Tensor], Any],
                   sample: torch.Tensor, path: Path, name: str,
                   split_by_phase: bool = False) -> None:
    """`trained`'s export (`split_by_phase` as the detector is committed), unfolded, computes
    what `trained` does on `sample`, in eval mode and in train mode (each BatchNorm then
    normalises by the batch's statistics: the same)."""
    dynamic = {0: "n", 2: "h", 3: "w"}
    torch.onnx.export(trained, (sample[:1],), str(path), input_names=[name],
                      dynamic_axes={name: dynamic}, opset_version=17, dynamo=False)
    if split_by_phase:
        onnx.save(split(onnx.load(str(path))), str(path))
    model = unfold(path, sample)
    with torch.no_grad():
        expected = trained(sample)
        assert torch.allclose(model.eval()(sample), expected, atol=1e-4)
        assert torch.allclose(model.train()(sample), expected, atol=1e-3)


def test_an_export_unfolds_into_the_network_it_came_from(tmp_path: Path) -> None:
    torch.manual_seed(0)
    trained = DieClassifier(2, channels=2)
    learnt(trained)
    path = tmp_path / "cocked.onnx"
    sample = torch.randn(256, 2, 48, 48)
    assert_unfolds(trained, unfolded, sample, path, "crops")


def test_an_export_with_residual_blocks_unfolds_too(tmp_path: Path) -> None:
    # The committed cocked network has a block at 12x12 and one at 6x6 (models/dice/cocked.md).
    torch.manual_seed(0)
    trained = DieClassifier(2, blocks=1, channels=2)
    learnt(trained)
    sample = torch.randn(256, 2, 48, 48)
    assert_unfolds(trained, unfolded, sample, tmp_path / "cocked.onnx", "crops")
    with pytest.raises(ValueError, match="not a DieClassifier"):
        unfolded(_detector_export(tmp_path), sample)


def test_the_detector_export_unfolds_into_the_network_it_came_from(tmp_path: Path) -> None:
    torch.manual_seed(0)
    trained = DiceDetector()
    learnt(trained)
    sample = torch.rand(16, 3, 64, 64)
    assert_unfolds(trained, unfolded_detector, sample, tmp_path / "detector.onnx", "image")
    # As the detector is committed, its smoothing split by output phase (phase_split.py).
    assert_unfolds(trained, unfolded_detector, sample, tmp_path / "split.onnx", "image",
                   split_by_phase=True)
    with pytest.raises(ValueError, match="DiceDetector"):
        unfolded_detector(_classifier_export(tmp_path), sample)


def _detector_export(tmp_path: Path) -> Path:
    path = tmp_path / "detector.onnx"
    torch.onnx.export(DiceDetector().eval(), (torch.zeros(1, 3, 64, 64),), str(path),
                      opset_version=17, dynamo=False)
    return path


def _classifier_export(tmp_path: Path) -> Path:
    path = tmp_path / "classifier.onnx"
    torch.onnx.export(DieClassifier(8).eval(), (torch.zeros(1, 1, 48, 48),), str(path),
                      opset_version=17, dynamo=False)
    return path
