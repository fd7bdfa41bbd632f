"""Reading which side of the game clock runs."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.position import Side
from vision.clock import ClockReader

DISPLAYS = {"white": [[10, 10], [50, 10], [50, 30], [10, 30]],
            "black": [[70, 10], [110, 10], [110, 30], [70, 30]]}


def clock_image(lit: str | None, hand: bool = False) -> np.ndarray:
    image = np.full((40, 120, 3), 40, np.uint8)
    for side, polygon in DISPLAYS.items():
        level = 220 if side == lit else 70
        cv2.fillPoly(image, [np.array(polygon, np.int32)], (level, level, level))
    if hand:  # a hand over both displays on its way to a button
        image[5:35, :] = 150
    return image


@pytest.mark.parametrize("lit", ["white", "black"])
def test_the_lit_display_is_the_running_side(lit: str) -> None:
    reader = ClockReader.from_calibration({"displays": DISPLAYS})
    assert reader.running(clock_image(lit)) is Side(lit)


def test_a_covered_clock_is_unknown_not_a_guess() -> None:
    reader = ClockReader.from_calibration({"displays": DISPLAYS})
    assert reader.running(clock_image("white", hand=True)) is None
    assert reader.running(clock_image(None)) is None


def test_a_downscaled_frame_is_read_with_its_scale() -> None:
    reader = ClockReader.from_calibration({"displays": DISPLAYS})
    small = cv2.resize(clock_image("black"), None, fx=0.25, fy=0.25,
                       interpolation=cv2.INTER_AREA)
    assert reader.running(small, 0.25) is Side.BLACK


def test_a_calibration_without_both_displays_is_refused() -> None:
    with pytest.raises(ValueError, match="white and black"):
        ClockReader.from_calibration({"displays": {"white": DISPLAYS["white"]}})
