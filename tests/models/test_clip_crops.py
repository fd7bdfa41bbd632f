"""The crops the tray pipeline gives the cocked network over clips, with the network's calls
and the clip's truth where a crop frames a die at rest (models/dice/clip_crops)."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.tray_view import TrayView
from models.dice.clip_crops import STILL_EVERY, TRUTH_SURE, clip_crops, truth_targets
from tests.models.test_evaluate_clips import drawn_clip
from vision.dice.reader import DieReading

DIE = (40.0, 80.0, 16.0, 16.0)  # the die drawn_clip draws in the tray


class Session:
    """Stands in for a joint network's onnxruntime session: logits for the cocked call and
    the faces given by each crop's mean brightness."""

    def run(self, names: list[str] | None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        crops = feeds["crops"]
        level = crops.reshape(len(crops), -1).mean(axis=1)
        answers = [np.stack([level * k for k in range(classes)], axis=1) for classes in (2, 7)]
        return answers if names is None else answers[:1]


class StraightDownReader:
    """Stands in for the dice reader with a tray view: one die, at DIE in whatever picture it
    is given, its straight-down crop the picture shrunk to 16x16 (two channels); an unsure
    call looked at again mirrored, as the reader does."""

    faces_in_cocked = True
    faces_model = None

    def __init__(self) -> None:
        self.cocked_model = Session()
        self.views: list[TrayView | None] = []

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        if image.shape[:2] != (120, 160):
            return []  # a closer look: the die lies at DIE in the whole view alone
        self.views.append(view)
        self._straight_down(image[..., 0], np.array([DIE], np.float32), view, floor)
        return [DieReading(DIE, 4, False, 0.95)]

    def _straight_down(self, grey: np.ndarray, boxes: np.ndarray, view: object,
                       floor: object = None) -> None:
        crop = cv2.resize(grey, (16, 16)).astype(np.float32) / 255.0
        crops = np.stack([np.stack([crop, crop])] * len(boxes))
        self.cocked_model.run(None, {"crops": crops})
        self.cocked_model.run(["logits"], {"crops": crops[:, :, :, ::-1]})


def die_state(state: str, box: tuple[float, ...] | None = DIE, in_box: bool = False,
              visible_px: int = 256) -> dict[str, object]:
    return {"state": state, "in_box": in_box, "visible_px": visible_px,
            "box": None if box is None else list(box)}


def test_crops_framing_a_die_at_rest_out_of_the_box_take_the_truth(tmp_path: Path) -> None:
    clip = drawn_clip(tmp_path / "clip", True)
    calibration = json.loads((clip / "calibration.json").read_text())
    view = TrayView(np.array([[150.0, 0, 80], [0, 150, 60], [0, 0, 1]]),
                    np.array([0.0, -0.6, -0.8]))
    calibration["dice_zones"]["view"] = view.to_json()
    (clip / "calibration.json").write_text(json.dumps(calibration))
    frames = len(list((clip / "frames").glob("*.jpg")))
    # The tray's die lies cocked from the first frame; the grey one is in the box.
    states = [{"dice": [die_state("cocked"), die_state("in_box", (100, 20, 16, 16), True)]}
              for _ in range(frames)]
    (clip / "states.jsonl").write_text("".join(json.dumps(s) + "\n" for s in states))
    reader = StraightDownReader()
    network = reader.cocked_model
    found = clip_crops(reader, [clip])  # type: ignore[arg-type]
    stills = -(-frames // STILL_EVERY)
    # The pipeline's own reads, then one still read in every STILL_EVERY frames, all with the
    # calibration's view; first looks alone (not the mirrored ones).
    assert len(found["crops"]) == len(reader.views) > stills
    assert all(seen is not None for seen in reader.views)
    assert found["crops"].shape[1:] == (2, 16, 16) and found["crops"].dtype == np.float16
    level = found["crops"].astype(np.float32).reshape(len(found["crops"]), -1).mean(axis=1)
    faces = np.stack([level * k for k in range(7)], axis=1)
    assert np.allclose(found["faces"], np.exp(faces) / np.exp(faces).sum(1, keepdims=True),
                       atol=1e-3)
    # The empty tray shown before the clip has no truth: there the network's call stands.
    empty = np.isclose(level, 40 / 255, atol=0.01)
    assert 0 < empty.sum() < len(level)
    called = np.exp(np.stack([level * 0, level], axis=1))
    called /= called.sum(axis=1, keepdims=True)
    assert np.allclose(found["cocked"][empty], called[empty], atol=1e-3)
    assert np.allclose(found["cocked"][~empty], (1 - TRUTH_SURE, TRUTH_SURE))
    assert reader.cocked_model is network  # the reader's own network given back
    assert "_straight_down" not in vars(reader)


def test_the_truth_stands_only_for_one_die_at_rest_out_of_the_box_in_sight() -> None:
    called = np.array([[0.3, 0.7]] * 7)
    boxes = np.array([DIE, DIE, DIE, DIE, DIE, DIE, (120.0, 10, 16, 16)])
    frames = [[die_state("at_rest")], [die_state("cocked")], [die_state("moving")],
              [die_state("cocked", in_box=True)], [die_state("cocked", visible_px=40)],
              [die_state("at_rest"), die_state("cocked", (42.0, 80, 16, 16))],
              [die_state("cocked"), die_state("at_rest", None)]]
    targets = [truth_targets(called[i:i + 1], boxes[i:i + 1], dice)[0]
               for i, dice in enumerate(frames)]
    assert np.allclose(targets[0], (TRUTH_SURE, 1 - TRUTH_SURE))
    assert np.allclose(targets[1], (1 - TRUTH_SURE, TRUTH_SURE))
    for kept in targets[2:]:  # moving, in the box, hidden, two dice framed, no die framed
        assert np.allclose(kept, (0.3, 0.7))


def test_the_faces_must_be_read(tmp_path: Path) -> None:
    reader = StraightDownReader()
    reader.faces_in_cocked = False
    with pytest.raises(ValueError, match=r"faces"):
        clip_crops(reader, [tmp_path])  # type: ignore[arg-type]
