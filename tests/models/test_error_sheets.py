"""Cutting out the reader's errors on a held-out set to be judged by eye."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from models.dice.data import LabelledImage
from models.dice.error_sheets import TILE, reading_errors, sheets, tile
from vision.dice.reader import DieReading


class FixedReader:
    def __init__(self, readings: list[DieReading]) -> None:
        self.readings = readings

    def read(self, image: np.ndarray) -> list[DieReading]:
        return self.readings


def test_each_miss_misreading_and_reading_of_no_die_is_listed_and_cut_out(
        tmp_path: Path) -> None:
    path = tmp_path / "dice.png"
    cv2.imwrite(str(path), np.full((300, 400, 3), 90, np.uint8))
    labelled = LabelledImage(path, np.array([[20, 20, 40, 40], [120, 20, 40, 40],
                                             [220, 20, 40, 40]], np.float32),
                             np.array([3, 5, 6]))
    reader = FixedReader([DieReading((21, 21, 38, 38), 3, False, 0.95),
                          DieReading((121, 20, 40, 40), 2, False, 0.6),
                          DieReading((300, 200, 40, 40), 4, False, 0.3)])
    errors = reading_errors(reader, [labelled])
    assert [(e.kind, e.label, e.read) for e in errors] == [
        ("misread", 5, 2), ("missed", 6, None), ("invented", None, 4)]
    assert errors[1].box == (220, 20, 40, 40)  # a missed die is shown by its label's box
    (sheet,) = sheets([tile(error, number) for number, error in enumerate(errors)])
    assert sheet.shape == (TILE, 4 * TILE, 3)
    # The invented reading's box is drawn red in the middle of its tile.
    # (the box is 40 px of a 100 px cut-out: its left side lies 0.3 of the way in).
    assert tuple(sheet[TILE // 2, 2 * TILE + 3 * TILE // 10]) == (0, 0, 255)
