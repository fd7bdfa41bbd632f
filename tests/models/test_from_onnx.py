"""A committed straight-down network's ONNX export turned back into weights to train on."""

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import torch

from models.dice.from_onnx import unfolded
from models.dice.nets import DieClassifier


def test_an_export_unfolds_into_the_network_it_came_from(tmp_path: Path) -> None:
    torch.manual_seed(0)
    trained = DieClassifier(2, channels=2)
    for module in trained.modules():  # BatchNorms that have learnt something
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    trained.eval()
    path = tmp_path / "cocked.onnx"
    torch.onnx.export(trained, (torch.zeros(1, 2, 48, 48),), str(path), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "n"}},
                      opset_version=17, dynamo=False)
    sample = torch.randn(256, 2, 48, 48)
    model = unfolded(path, sample)
    with torch.no_grad():
        expected = trained(sample)
        assert torch.allclose(model.eval()(sample), expected, atol=1e-4)
        # In train mode each BatchNorm normalises by this batch's statistics: the same ones.
        assert torch.allclose(model.train()(sample), expected, atol=1e-3)
    torch.onnx.export(DieClassifier(2, blocks=1, channels=2).eval(),
                      (torch.zeros(1, 2, 48, 48),), str(path), opset_version=17, dynamo=False)
    with pytest.raises(ValueError, match="residual"):
        unfolded(path, sample)


def test_the_detector_export_unfolds_into_the_network_it_came_from(tmp_path: Path) -> None:
    from models.dice.from_onnx import unfolded_detector
    from models.dice.nets import DiceDetector

    torch.manual_seed(0)
    trained = DiceDetector()
    for module in trained.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    trained.eval()
    path = tmp_path / "detector.onnx"
    torch.onnx.export(trained, (torch.zeros(1, 3, 64, 64),), str(path), input_names=["image"],
                      output_names=["maps"], dynamic_axes={"image": {0: "n", 2: "h", 3: "w"}},
                      opset_version=17, dynamo=False)
    sample = torch.rand(16, 3, 64, 64)
    model = unfolded_detector(path, sample)
    with torch.no_grad():
        expected = trained(sample)
        assert torch.allclose(model.eval()(sample), expected, atol=1e-4)
        assert torch.allclose(model.train()(sample), expected, atol=1e-3)
    with pytest.raises(ValueError, match="DiceDetector"):
        unfolded_detector(_classifier_export(tmp_path), sample)


def _classifier_export(tmp_path: Path) -> Path:
    path = tmp_path / "classifier.onnx"
    torch.onnx.export(DieClassifier(8).eval(), (torch.zeros(1, 1, 48, 48),), str(path),
                      opset_version=17, dynamo=False)
    return path
