"""Detectors trained apart, exported as one network averaging their maps."""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import onnxruntime as ort
import torch

from models.dice.ensemble import export
from models.dice.nets import DiceDetector
from vision.dice.preprocess import DETECTOR_SIZE


def test_the_export_computes_the_mean_of_its_members_maps(tmp_path: Path) -> None:
    torch.manual_seed(0)
    members = [DiceDetector().eval() for _ in range(2)]
    paths = []
    for index, member in enumerate(members):
        paths.append(tmp_path / f"member{index}.pt")
        torch.save(member.state_dict(), paths[-1])
    (tmp_path / "member0.json").write_text(json.dumps({"epochs": 30}))
    path = export(paths, tmp_path / "out", "photo_detector")
    # Any frame shape, as the reader letterboxes: here 128 x 96.
    image = np.random.default_rng(0).random((1, 3, 128, 96), dtype=np.float32)
    maps = ort.InferenceSession(str(path)).run(None, {"image": image})[0]
    with torch.no_grad():
        each = [member(torch.from_numpy(image)).numpy() for member in members]
    assert maps.shape == each[0].shape == (1, 5, 32, 24)
    assert not np.allclose(each[0], each[1], atol=1e-3)
    assert np.allclose(maps, (each[0] + each[1]) / 2, atol=1e-5)
    config = json.loads((tmp_path / "out" / "photo_detector.json").read_text())
    assert config["input_size"] == DETECTOR_SIZE
    assert [member["config"] for member in config["members"]] == [{"epochs": 30}, None]
