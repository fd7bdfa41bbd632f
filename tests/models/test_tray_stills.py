"""The still sets' counts the model cards judge candidates by (models/dice/tray_stills.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.dice.data import LabelledImage, synthetic
from models.dice.tray_stills import UNKNOWN, Tally, count_scene, place
from vision.dice.reader import DieReading
from vision.dice.zones import DiceZones


def scene(looks: tuple[str, ...] | None) -> LabelledImage:
    """Five dice: a flat 3, a flat 5, a cocked die, a flat 2 inside the box and a flat 4 too
    small to judge."""
    boxes = np.array([[10, 10, 30, 30], [100, 10, 30, 30], [200, 10, 30, 30],
                      [300, 10, 30, 30], [400, 10, 8, 8]], np.float32)
    return LabelledImage(Path("scene.png"), boxes, np.array([3, 5, 0, 2, 4]),
                         in_box=np.array([False, False, False, True, False]), styles=looks)


def reading(x: float, value: int | None, side: float = 30) -> DieReading:
    return DieReading((x, 10, side, side), value, value is None, 0.9)


def test_only_dice_found_in_the_tray_and_big_enough_count_by_their_look() -> None:
    by_look: dict[str, Tally] = {}
    looks = ("white", "red", "red", "white", "white")
    # The 3 read right, the 5 called cocked, the cocked die caught; the box's die and the
    # small one misread, which counts for nothing.
    found = [reading(10, 3), reading(100, None), reading(200, None), reading(300, 6),
             reading(400, 1, side=8)]
    count_scene(scene(looks), found, by_look)
    assert by_look["white"] == Tally(flat=1, flat_right=1)
    assert by_look["red"] == Tally(flat=1, flat_called_cocked=1, cocked=1, cocked_caught=1)
    # A die missed is left out; a scene without looks counts its dice under UNKNOWN.
    by_look = {}
    count_scene(scene(None), [reading(100, 4)], by_look)
    assert by_look == {UNKNOWN: Tally(flat=1)}


def test_the_same_dice_are_counted_by_where_they_lie_and_how_far_the_cocked_ones_lean() -> None:
    # The tray's floor 250 x 200 mm at a pixel a millimetre, the box's inside beyond y = 50.
    zones = DiceZones(np.array([[50, 50], [300, 50], [300, 250], [50, 250]], np.float32),
                      np.array([[50, 0], [300, 0], [300, 50], [50, 50]], np.float32),
                      tray_mm=(250.0, 200.0))
    # A flat 3 and a die cocked 7 degrees at the box's exit (feet 5 mm from it), a die
    # cocked 40 degrees in the open tray.
    boxes = np.array([[60, 40, 20, 20], [100, 40, 20, 20], [200, 150, 20, 20]], np.float32)
    item = LabelledImage(Path("scene.png"), boxes, np.array([3, 0, 0]), zones=zones,
                         tilts=np.array([0.0, 7.0, 40.0]))
    found = [DieReading((60, 40, 20, 20), 3, False, 0.9), DieReading((100, 40, 20, 20), 3, False,
             0.9), DieReading((200, 150, 20, 20), None, True, 0.9)]
    by_look: dict[str, Tally] = {}
    by_place: dict[str, Tally] = {}
    count_scene(item, found, by_look, by_place)
    assert by_place == {"box's exit": Tally(flat=1, flat_right=1),
                        "box's exit, leaning under 10 degrees": Tally(cocked=1),
                        "open tray, leaning 35 degrees or more": Tally(cocked=1,
                                                                       cocked_caught=1)}
    assert by_look == {UNKNOWN: Tally(flat=1, flat_right=1, cocked=2, cocked_caught=1)}
    # Without a calibration that places the box, or tilts recorded, only the tray is known.
    assert place(scene(None), 2) == "tray"


def test_a_rendered_scene_gives_the_look_of_each_die_in_sight(tmp_path: Path) -> None:
    dice = [{"box": [10, 10, 30, 30], "cocked": False, "value": 2, "visible_px": 500,
             "tilt_deg": 0.0},
            {"box": None, "cocked": False, "value": 6, "tilt_deg": 0.0},  # hidden by the box
            {"box": [90, 10, 30, 30], "cocked": True, "value": 1, "visible_px": 400,
             "tilt_deg": 24.5}]
    record = {"image": "0.png", "dice": dice,
              "style": {"dice": ["black", "ivory", "translucent"]}}
    (tmp_path / "labels.jsonl").write_text(json.dumps(record) + "\n")
    (item,) = synthetic(tmp_path)
    assert item.styles == ("black", "translucent")
    assert item.tilts is not None and item.tilts.tolist() == [0.0, 24.5]
    with pytest.raises(ValueError, match="styles"):
        LabelledImage(Path("x.png"), item.boxes, item.values, styles=("black",))
    with pytest.raises(ValueError, match="tilts"):
        LabelledImage(Path("x.png"), item.boxes, item.values, tilts=np.zeros(3))


def test_a_tally_of_flat_dice_or_of_cocked_ones_alone_says_only_their_counts() -> None:
    assert Tally(flat=3, flat_right=2, flat_called_cocked=1).line() == (
        "flat right 2 of 3, flat called cocked 1")
    assert Tally(cocked=3, cocked_caught=1).line() == "cocked caught 1 of 3"
    assert Tally(flat=1, flat_right=1, cocked=2, cocked_caught=1).line() == (
        "flat right 1 of 1, cocked caught 1 of 2, flat called cocked 0")
