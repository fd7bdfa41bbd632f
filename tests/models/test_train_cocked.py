"""Which detector box frames which labelled die (train_cocked --detector-boxes), and a
flat-or-cocked network grown to read faces (--values)."""

import json
from argparse import Namespace
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")

import torch

from models.dice.nets import DieClassifier
from models.dice.train_cocked import (
    VALUE_CLASSES,
    dataset,
    exit_emphasis,
    head_for_values,
    matched_boxes,
    styled_scenes,
    told,
    weighted_loss,
    with_cues,
)
from models.dice.training import start_from
from synth.dice.camera_view import project
from tests.models.conftest import ABOVE

# Two dice touching side by side and one apart.
DICE = np.array([[10, 10, 40, 40], [50, 10, 40, 40], [200, 200, 30, 30]], np.float64)


def test_a_box_holding_two_dice_keeps_the_label_of_the_die_at_its_centre() -> None:
    wide = np.array([[12, 8, 60, 44]], np.float64)  # centre (42, 30) lies in the first die
    matches = matched_boxes(DICE, wide)
    assert matches[0] is not None and matches[1] is None and matches[2] is None


def test_a_box_off_centre_goes_by_overlap_and_a_stray_box_to_none() -> None:
    # The first reaches past the third die, its centre (231, 215) outside it: IoU 0.48.
    found = np.array([[200, 200, 62, 30], [400, 400, 30, 30]], np.float64)
    matches = matched_boxes(DICE, found)
    assert matches[0] is None and matches[1] is None
    assert matches[2] is not None and np.array_equal(matches[2], found[0])


def test_a_cocked_network_grown_a_face_head_first_calls_cocked_as_before(
        tmp_path: Path) -> None:
    torch.manual_seed(0)
    saved = DieClassifier(2, channels=2).eval()
    torch.save(saved.state_dict(), tmp_path / "cocked.pt")
    grown = start_from(DieClassifier(len(VALUE_CLASSES), channels=2),
                       Namespace(init=tmp_path / "cocked.pt"), head_for_values).eval()
    crops = torch.randn(5, 2, 48, 48)
    with torch.no_grad():
        before = torch.softmax(saved(crops), 1)[:, 1]
        after = torch.softmax(grown(crops), 1)
    assert torch.allclose(after[:, VALUE_CLASSES.index("cocked")], before, atol=1e-6)
    assert torch.allclose(after[:, 1:], after[:, 1:2].expand(-1, 6))


def test_a_scene_without_a_view_gives_no_crops(two_scenes_one_unmeasurable: Path) -> None:
    patches, slopes, labels = dataset([two_scenes_one_unmeasurable], 2, 0, 1)
    assert len(patches) == len(slopes) == 2 and list(labels) == [3, 3]  # the second scene's


def test_each_crop_is_told_its_slope_and_how_near_the_box_its_die_lies(tmp_path: Path) -> None:
    # Two flat dice seen from above the tray's middle: one at the box's exit, one mid-tray.
    feet = project(ABOVE, [[0.006, 0.0, 0.0], [0.13, 0.0, 0.0]])
    dice = [{"box": [float(x) - 12, float(y) - 18, 24, 24], "cocked": False, "value": 2,
             "visible_px": 500} for x, y in feet]  # the box's foot, a quarter below its centre
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "0.png"), np.full((480, 640), 90, np.uint8))
    (tmp_path / "labels.jsonl").write_text(json.dumps(
        {"image": "images/0.png", "camera": ABOVE, "dice": dice}))
    _, cues, _ = dataset([tmp_path], 1, 0, 1)
    (exit_slope, at_exit), (middle_slope, mid_tray) = cues
    assert at_exit > 0.8 and mid_tray == 0.0  # 6 mm and 130 mm from the box
    assert exit_slope > middle_slope >= 0.0  # the camera stands over the tray's middle
    # The network is told the cues its flags name, each a constant channel after the crop.
    columns = told({"slope": False, "near_box": True})
    crops = with_cues(torch.zeros(2, 1, 48, 48), torch.from_numpy(cues[:, columns]))
    assert crops.shape == (2, 2, 48, 48) and float(crops[0, 1].min()) == pytest.approx(at_exit)


def test_dice_at_the_box_exit_can_weigh_more_in_the_loss() -> None:
    # near_box cues: in the box, 6 mm from it, 20 mm from it, mid-tray.
    cues = np.array([[0.1, 1.0], [0.1, 1.0 - 6 / 40], [0.1, 0.5], [0.1, 0.0]], np.float32)
    assert exit_emphasis(cues, 3.0).tolist() == [3.0, 3.0, 1.0, 1.0]
    logits = torch.tensor([[2.0, -1.0], [0.5, 0.3], [-1.0, 1.0], [0.0, 2.0]])
    target = torch.tensor([0, 1, 1, 0])
    class_weight = torch.tensor([1.0, 2.0])
    plain = torch.nn.functional.cross_entropy(logits, target, weight=class_weight,
                                              label_smoothing=0.02)
    evenly = weighted_loss(logits, target, class_weight, torch.ones(4))
    assert float(evenly) == pytest.approx(float(plain), rel=1e-6)
    # Weighing the worst-called crop (the last) more raises the loss.
    heavier = weighted_loss(logits, target, class_weight, torch.tensor([1.0, 1.0, 1.0, 3.0]))
    assert float(heavier) > float(plain)


def test_scenes_with_a_die_of_the_styles_named_are_drawn_twice(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    lines = []
    for value, styles in ((1, ["white", "white"]), (2, ["translucent", "translucent"]),
                          (3, ["red", "white"])):
        cv2.imwrite(str(tmp_path / "images" / f"{value}.png"), np.full((480, 640), 90, np.uint8))
        die = {"box": [300, 220, 24, 24], "cocked": False, "value": value, "visible_px": 500}
        hidden = {"box": None, "cocked": False, "value": 6}  # the other die, behind the box
        lines.append({"image": f"images/{value}.png", "camera": ABOVE, "dice": [die, hidden],
                      "style": {"dice": styles}})
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    assert styled_scenes(tmp_path, ["translucent", "red"]) == [1, 2]
    assert styled_scenes(tmp_path, []) == []
    _, _, once = dataset([tmp_path], 1, 0, 1)
    _, _, twice = dataset([tmp_path], 1, 0, 1, twice=["translucent", "red"])
    assert list(once) == [1, 2, 3] and list(twice) == [1, 2, 3, 2, 3]
