"""What every dice trainer shares: where a finished run's weights go."""

import argparse
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import onnxruntime as ort
import torch

from models.dice.nets import DieClassifier
from models.dice.training import save


def test_a_finished_run_is_saved_into_a_folder_not_yet_made(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "first"
    args = argparse.Namespace(out=out, init=None, epochs=1, batch=8, lr=1e-3, seed=0,
                              synthetic=[])
    save(DieClassifier(8), args, "classifier", torch.zeros(1, 1, 48, 48), ("crops", "logits"),
         {"crops": {0: "n"}, "logits": {0: "n"}}, {"classes": 8})
    assert (out / "classifier.pt").is_file()
    assert json.loads((out / "classifier.json").read_text())["classes"] == 8
    session = ort.InferenceSession(str(out / "classifier.onnx"))
    assert session.run(None, {"crops": torch.zeros(3, 1, 48, 48).numpy()})[0].shape == (3, 8)
