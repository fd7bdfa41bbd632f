"""The crops the tray pipeline gives the cocked network over clips, with both teachers'
probabilities (models/dice/clip_crops)."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.tray_view import TrayView
from models.dice.clip_crops import STILL_EVERY, clip_crops
from tests.models.test_evaluate_clips import drawn_clip
from vision.dice.reader import DieReading


class Session:
    """Stands in for an onnxruntime session: logits given by each crop's mean brightness."""

    def __init__(self, classes: int) -> None:
        self.classes = classes

    def run(self, names: list[str] | None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        crops = feeds["crops"]
        level = crops.reshape(len(crops), -1).mean(axis=1)
        return [np.stack([level * k for k in range(self.classes)], axis=1)]


class StraightDownReader:
    """Stands in for the dice reader with a tray view: one die, the picture it is given
    shrunk to 16x16 (two channels) standing for the straight-down crop the cocked network
    is given."""

    def __init__(self) -> None:
        self.cocked_model = Session(2)
        self.faces_model = Session(7)
        self.views: list[TrayView | None] = []

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        self.views.append(view)
        crop = cv2.resize(image[..., 0], (16, 16)).astype(np.float32) / 255.0
        crops = np.stack([np.stack([crop, crop])])
        self.cocked_model.run(None, {"crops": crops})
        return [DieReading((40.0, 80.0, 16.0, 16.0), 4, False, 0.95)]


def test_every_crop_given_the_cocked_network_is_kept_with_both_teachers_calls(
        tmp_path: Path) -> None:
    clip = drawn_clip(tmp_path / "clip", True)
    calibration = json.loads((clip / "calibration.json").read_text())
    view = TrayView(np.array([[150.0, 0, 80], [0, 150, 60], [0, 0, 1]]),
                    np.array([0.0, -0.6, -0.8]))
    calibration["dice_zones"]["view"] = view.to_json()
    (clip / "calibration.json").write_text(json.dumps(calibration))
    reader = StraightDownReader()
    teacher = reader.cocked_model
    found = clip_crops(reader, [clip])  # type: ignore[arg-type]
    frames = len(list((clip / "frames").glob("*.jpg")))
    stills = -(-frames // STILL_EVERY)
    # The pipeline's own reads, then one still read in every STILL_EVERY frames, all with
    # the calibration's view.
    assert len(found["crops"]) == len(reader.views) > stills
    assert all(seen is not None for seen in reader.views)
    assert found["crops"].shape[1:] == (2, 16, 16) and found["crops"].dtype == np.float16
    level = found["crops"].astype(np.float32).reshape(len(found["crops"]), -1).mean(axis=1)
    for probabilities, classes in ((found["cocked"], 2), (found["faces"], 7)):
        logits = np.stack([level * k for k in range(classes)], axis=1)
        expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        assert np.allclose(probabilities, expected, atol=1e-3)
    assert reader.cocked_model is teacher  # the reader's own network given back


def test_the_teachers_must_both_be_there(tmp_path: Path) -> None:
    reader = StraightDownReader()
    reader.faces_model = None  # type: ignore[assignment]
    with pytest.raises(ValueError, match=r"faces\.onnx"):
        clip_crops(reader, [tmp_path])  # type: ignore[arg-type]
