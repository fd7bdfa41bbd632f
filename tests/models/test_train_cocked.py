"""Which detector box frames which labelled die (train_cocked --detector-boxes)."""

import numpy as np
import pytest

pytest.importorskip("torch")

from models.dice.train_cocked import matched_boxes

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
