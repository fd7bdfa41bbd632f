"""Four-corner and ArUco calibrations on rendered boards; noticing a moved camera."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from calibration.aruco import IDS, detect, draw_markers, field_corners, marker_sheet
from calibration.make import calibrate
from calibration.moved import check_camera

Board = tuple[np.ndarray[Any, Any], dict[str, Any]]


def _shift(image: np.ndarray[Any, Any], dx: float, dy: float) -> np.ndarray[Any, Any]:
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return np.asarray(cv2.warpAffine(image, m, (image.shape[1], image.shape[0]),
                                     borderMode=cv2.BORDER_REPLICATE))


def test_markers_give_the_field_corners(boards: list[Board]) -> None:
    for image, label in boards:
        truth = np.array(label["corners"])
        corners, markers = field_corners(draw_markers(image, truth))
        assert np.abs(corners - truth).max() < 2.0
        assert markers.ids == IDS and markers.dictionary == "DICT_4X4_50"


def test_missing_markers_are_named(boards: list[Board]) -> None:
    image, _ = boards[0]
    with pytest.raises(ValueError, match=r"markers \[0, 1, 2, 3\]"):
        field_corners(image)


def test_marker_sheet_holds_the_four_markers() -> None:
    found = detect(marker_sheet(240))
    assert sorted(found.ids) == list(IDS)


def test_corner_calibration_measures_the_board(boards: list[Board]) -> None:
    image, label = boards[0]
    cal = calibrate(image, label["corners"], "top-right", read_colours=False)
    assert cal.white_corner == "top-right" and cal.image_size == (1280, 720)
    assert cal.bar_width is not None
    assert abs(cal.bar_width - label["board"]["geometry"]["bar_width"]) < 15
    assert cal.border is not None and cal.border.shape[0] == 4


@pytest.mark.parametrize(("dx", "dy", "moved"), [
    (0, 0, False), (6, 0, True), (0, -5, True), (4, 4, True),
])
def test_moved_camera_is_noticed(boards: list[Board], dx: float, dy: float,
                                 moved: bool) -> None:
    for image, label in boards:
        cal = calibrate(image, label["corners"], read_colours=False)
        verdict = check_camera(cal, _shift(image, dx, dy))
        assert verdict.moved is moved, verdict


def test_checkers_moving_is_not_a_moved_camera(boards: list[Board]) -> None:
    image, label = boards[1]
    cal = calibrate(image, label["corners"], read_colours=False)
    changed = image.copy()
    centre = np.array(label["corners"]).mean(0)
    for k in range(6):  # discs in the middle of the field, as if checkers moved there
        c = (int(centre[0] + 40 * (k - 3)), int(centre[1]))
        cv2.circle(changed, c, 18, (240, 240, 240), -1)
    assert not check_camera(cal, changed).moved


def test_markers_moving_is_noticed(boards: list[Board]) -> None:
    image, label = boards[2]
    marked = draw_markers(image, np.array(label["corners"]))
    corners, markers = field_corners(marked)
    cal = calibrate(marked, corners, markers=markers, read_colours=False)
    assert not check_camera(cal, marked).moved
    verdict = check_camera(cal, _shift(marked, 5, 0))
    assert verdict.moved and verdict.markers_moved
