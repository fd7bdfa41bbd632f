"""Four-corner and ArUco calibrations on rendered boards; noticing a moved camera."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.aruco import IDS, detect, draw_markers, field_corners, marker_sheet
from calibration.make import calibrate
from calibration.moved import CONFIRM_SECONDS, CameraWatch, check_camera, judge_sides
from tests.knocked import knocked_aside

Board = tuple[np.ndarray[Any, Any], dict[str, Any]]
REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "board-photos"


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
        verdict = check_camera(cal, knocked_aside(image, dx, dy))
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
    verdict = check_camera(cal, knocked_aside(marked, 5, 0))
    assert verdict.moved and verdict.markers_moved


def test_a_stream_reports_a_camera_that_stays_moved(boards: list[Board]) -> None:
    image, label = boards[0]
    watch = CameraWatch(calibrate(image, label["corners"], read_colours=False))
    assert watch.check(image, 0.0) and watch.moved is None
    knocked = knocked_aside(image, 12, 0)
    # Not read from the first frame that says so; reported once that holds.
    assert not watch.check(knocked, 1.0) and watch.moved is None
    assert not watch.check(knocked, 1.0 + CONFIRM_SECONDS) and watch.moved is not None
    assert watch.check(image, 3.0) and watch.moved is None  # put back


def test_a_moment_of_doubt_is_not_a_moved_camera(boards: list[Board]) -> None:
    image, label = boards[0]
    watch = CameraWatch(calibrate(image, label["corners"], read_colours=False))
    assert not watch.check(knocked_aside(image, 12, 0), 1.0)
    assert watch.check(image, 1.2)
    assert not watch.check(knocked_aside(image, 12, 0), 1.3 + CONFIRM_SECONDS / 2)
    assert watch.moved is None  # the doubt began again at 1.3


def test_a_stream_tolerates_what_the_board_reader_does(boards: list[Board]) -> None:
    """A shift the board reader reads through is no reason to stop refereeing, though the
    calibration's own check (`calibrate --check`) reports it."""
    image, label = boards[0]
    calibration = calibrate(image, label["corners"], read_colours=False)
    nudged = knocked_aside(image, 3, 0)
    assert check_camera(calibration, nudged).moved
    watch = CameraWatch(calibration)
    assert watch.shift_px > 3
    assert watch.check(nudged, 0.0) and watch.check(nudged, 1.0) and watch.moved is None


def test_a_calibration_without_edges_watches_from_the_first_frame(boards: list[Board]) -> None:
    """Corners given a few pixels off the field's edge, with no edges kept (another tool's
    calibration): against the line itself every frame would look moved; against the stream's
    first frame only a moved camera does."""
    image, label = boards[0]
    lowered = np.array(label["corners"]) + np.array([0, 4])
    calibration = replace(calibrate(image, lowered, read_colours=False), border=None)
    assert check_camera(calibration, image).moved
    watch = CameraWatch(calibration)
    assert watch.check(image, 0.0) and watch.check(image, 1.0)
    assert not watch.check(knocked_aside(image, 0, 12), 2.0)


def test_one_side_off_is_something_on_it_not_a_moved_camera(boards: list[Board]) -> None:
    """Checkers stacked against one edge put their rims in that side's profile, as if that
    edge alone had moved; a camera that moved shifts two sides at least."""
    image, label = boards[0]
    cal = calibrate(image, label["corners"], read_colours=False)
    corners = np.array(label["corners"])
    lowered = knocked_aside(image, 0, 5)
    top = slice(int(corners[:2, 1].min()) - 25, int(corners[:2, 1].max()) + 25)
    one_side = image.copy()
    one_side[top] = lowered[top]
    verdict = check_camera(cal, one_side)
    assert not verdict.moved and sum(abs(s) >= 2 for s in verdict.shifts if s is not None) == 1
    bottom = slice(int(corners[2:, 1].min()) - 25, int(corners[2:, 1].max()) + 25)
    one_side[bottom] = lowered[bottom]
    assert check_camera(cal, one_side).moved


@pytest.mark.parametrize(("shifts", "matches", "moved"), [
    # Game 5016 of the review bench: red and white checkers along the top and bottom edges,
    # their rims matched 16 px out and 4 px in, neither surely.
    ([-16.0, 0.0, 4.0, 0.0], [0.86, 1.0, 0.74, 1.0], False),
    ([-16.0, 0.0, 4.0, 0.0], [0.95, 1.0, 0.92, 1.0], True),  # the same shifts, surely matched
    ([6.0, 0.0, -6.0, 0.0], [0.7, 1.0, 0.65, 1.0], True),  # top and bottom as one translation
    ([6.0, 0.0, 6.0, 0.0], [0.7, 1.0, 0.65, 1.0], False),  # not one translation, not sure
    ([None, 0.0, None, 1.0], [0.3, 1.0, 0.2, 1.0], True),  # two sides lost their edges
])
def test_sides_judged_together(shifts: list[float | None], matches: list[float],
                               moved: bool) -> None:
    assert judge_sides(shifts, matches, 4.0)[0] is moved


@pytest.mark.parametrize("knock", [6, 30])
def test_the_reason_never_overstates_the_knock(boards: list[Board], knock: int) -> None:
    """Past the profiles' reach (16 px) a side matches wherever it can, at 5 or 12 px for a
    30 px knock: the reason gives a shift the knock is sure to reach."""
    image, label = boards[0]
    calibration = calibrate(image, label["corners"], read_colours=False)
    verdict = check_camera(calibration, knocked_aside(image, knock, 0))
    said = int(verdict.reason.rsplit("at least ", 1)[1].split()[0])
    assert verdict.moved and said <= knock
    if knock <= 16:  # within reach the shift is measured
        assert said >= knock - 1


@pytest.mark.skipif(not REAL.is_dir(), reason="shared/data/board-photos is not beside the repo")
@pytest.mark.parametrize("knock", [(0, 0), (6, 0), (0, 6), (-5, 3), (0, -8), (12, 0), (0, 12),
                                   (4, 4), (-3, -5)])
def test_a_real_stream_camera_is_watched(knock: tuple[int, int]) -> None:
    """Three frames of one real tournament stream camera, the checkers elsewhere in each:
    watched from the first one's edges, the others lie where it did, and each knocked aside
    past the stream's tolerance (0.6 % of the field, 3.7 px here) does not."""
    labels = json.loads((REAL / "labels.json").read_text())
    frames = [cv2.imread(str(REAL / item["file"])) for item in labels]
    calibration = calibrate(frames[0], labels[0]["corners"], read_colours=False)
    tolerance = CameraWatch(calibration).shift_px
    for frame in frames[1:]:
        verdict = check_camera(calibration, knocked_aside(frame, *knock), tolerance)
        assert verdict.moved is (knock != (0, 0)), verdict


def test_identical_checkers_along_both_long_sides_are_not_a_moved_camera() -> None:
    """Checkers alike, lined against the top and bottom edges over most of their length (a
    prime on each side): each side's points then show a checker's rim, an edge much like the
    field's a few pixels off, and agree on it. A camera knocked sideways is still noticed."""
    image = np.full((540, 960, 3), 70, np.uint8)
    image += np.random.default_rng(0).integers(0, 12, image.shape, dtype=np.uint8)
    cv2.rectangle(image, (180, 60), (780, 480), (190, 190, 190), -1)
    cv2.rectangle(image, (150, 30), (810, 510), (40, 40, 40), 3)  # the board's outer edge
    corners = np.array([[180, 60], [780, 60], [780, 480], [180, 480]], float)
    calibration = calibrate(image, corners, read_colours=False)
    tolerance = CameraWatch(calibration).shift_px
    for length in (0.6, 0.7, 0.8):
        crowded = image.copy()
        for edge, inward in ((60, 1), (480, -1)):
            for x in np.arange(180 + 0.05 * 600, 180 + length * 600, 36):
                centre = (int(x), edge + inward * 21)
                cv2.circle(crowded, centre, 20, (245, 245, 245), -1)
                cv2.circle(crowded, centre, 20, (20, 20, 20), 3)
        assert not check_camera(calibration, crowded, tolerance).moved, length
        assert check_camera(calibration, knocked_aside(crowded, 6, 0), tolerance).moved, length
