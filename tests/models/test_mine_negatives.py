"""The detector's boxes sorted into false alarms and framed positives (mine_negatives)."""

from pathlib import Path

import numpy as np

from models.dice.data import LabelledImage
from models.dice.mine_negatives import false_alarms, framed_positives

# Two dice side by side and a cocked one apart (value 0).
ITEM = LabelledImage(
    Path("scene.png"),
    np.array([[10, 10, 40, 40], [52, 10, 40, 40], [200, 200, 30, 30]], np.float32),
    np.array([3, 5, 0]),
)


def test_a_box_around_one_die_is_a_framed_positive_with_its_label() -> None:
    boxes = np.array([[14, 6, 44, 44], [195, 198, 36, 36]], np.float32)
    assert framed_positives(ITEM, boxes) == [[14.0, 6.0, 44.0, 44.0, 3],
                                             [195.0, 198.0, 36.0, 36.0, 0]]
    assert false_alarms(ITEM, boxes) == []


def test_boxes_around_two_dice_or_a_pip_or_nothing_are_no_framed_positives() -> None:
    pair = [10, 10, 82, 40]
    pip = [20, 20, 12, 12]
    empty = [120, 120, 30, 30]
    boxes = np.array([pair, pip, empty], np.float32)
    assert framed_positives(ITEM, boxes) == []
    assert false_alarms(ITEM, boxes) == [[10.0, 10.0, 82.0, 40.0], [120.0, 120.0, 30.0, 30.0]]
