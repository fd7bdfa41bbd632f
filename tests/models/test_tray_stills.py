"""The still sets' counts the model cards judge candidates by (models/dice/tray_stills.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.dice.data import LabelledImage, synthetic
from models.dice.tray_stills import UNKNOWN, Tally, count_scene
from vision.dice.reader import DieReading


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


def test_a_rendered_scene_gives_the_look_of_each_die_in_sight(tmp_path: Path) -> None:
    dice = [{"box": [10, 10, 30, 30], "cocked": False, "value": 2, "visible_px": 500},
            {"box": None, "cocked": False, "value": 6},  # hidden behind the box
            {"box": [90, 10, 30, 30], "cocked": True, "value": 1, "visible_px": 400}]
    record = {"image": "0.png", "dice": dice,
              "style": {"dice": ["black", "ivory", "translucent"]}}
    (tmp_path / "labels.jsonl").write_text(json.dumps(record) + "\n")
    (item,) = synthetic(tmp_path)
    assert item.styles == ("black", "translucent")
    with pytest.raises(ValueError, match="styles"):
        LabelledImage(Path("x.png"), item.boxes, item.values, styles=("black",))
