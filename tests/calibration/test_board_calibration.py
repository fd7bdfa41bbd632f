"""BoardCalibration: JSON round trip, validation, the layout it gives (calibration/board.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration.board import BoardCalibration, Markers
from calibration.numbering import CORNERS
from referee.position import Side, Variant

CORNERS_PX = np.array([[303.0, 97.0], [933.0, 89.0], [933.0, 653.0], [315.0, 657.0]])
ZONES = {"tray": [[10.0, 10.0], [100.0, 10.0], [100.0, 80.0]],
         "box": [[200.0, 10.0], [300.0, 10.0], [300.0, 90.0], [200.0, 90.0]]}


def _calibration(**changes: Any) -> BoardCalibration:
    base = BoardCalibration(CORNERS_PX, (1280, 720), "top-left", 42.5,
                            {"light": (230, 235, 236), "dark": (40, 150, 210)})
    return base.with_(**changes)


@pytest.mark.parametrize("changes", [
    {},
    {"dice_zones": ZONES},
    {"markers": Markers("DICT_4X4_50", (0, 1, 2, 3), CORNERS_PX - 20)},
    {"border": np.arange(4 * 25, dtype=float).reshape(4, 25)},
    {"bar_width": None, "colours": {}},
])
def test_json_round_trip(tmp_path: Path, changes: dict[str, Any]) -> None:
    cal = _calibration(**changes)
    path = tmp_path / "board.json"
    cal.save(path)
    back = BoardCalibration.load(path)
    assert np.allclose(back.corners, cal.corners)
    assert back.white_corner == cal.white_corner and back.direction == cal.direction
    assert back.bar_width == cal.bar_width and back.colours == cal.colours
    assert back.dice_zones == cal.dice_zones
    if cal.markers is not None:
        assert back.markers is not None and back.markers.ids == cal.markers.ids
        assert np.allclose(back.markers.centres, cal.markers.centres)
    if cal.border is not None:
        assert back.border is not None and np.allclose(back.border, cal.border)
    assert back.to_json() == cal.to_json()


def test_dice_zones_key_is_what_the_dice_reader_loads(tmp_path: Path) -> None:
    path = tmp_path / "board.json"
    _calibration(dice_zones=ZONES).save(path)
    assert json.loads(path.read_text())["dice_zones"] == ZONES


@pytest.mark.parametrize(("data", "message"), [
    ({"image_size": [1, 1]}, "not a board calibration"),
    ({"corners": [[0, 0], [1, 0], [1, 1]]}, "shape (4, 2)"),
    ({"corners": CORNERS_PX.tolist(), "layout": {"white_point1": "middle"}}, "white corner"),
    ({"corners": CORNERS_PX.tolist(),
      "layout": {"white_point1": "bottom-right", "direction": "counterclockwise"}}, "direction"),
])
def test_bad_calibrations_are_refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        BoardCalibration.from_json(data)


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        BoardCalibration.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        BoardCalibration.load(bad)


@pytest.mark.parametrize("corner", CORNERS)
def test_layout_puts_whites_point_one_in_the_corner(corner: str) -> None:
    cal = _calibration(white_corner=corner)
    for variant in Variant:
        layout = cal.layout(variant)
        image_point = layout.to_image(Side.WHITE, 1)
        row = "bottom" if image_point <= 12 else "top"
        col = "right" if image_point in (1, 24) else "left"
        assert f"{row}-{col}" == corner
