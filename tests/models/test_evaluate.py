"""The still-picture evaluation's matching of readings to labelled dice."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models.dice.data import LabelledImage
from models.dice.evaluate import match
from vision.dice.reader import DieReading


def picture(*dice: tuple[tuple[float, float, float, float], int]) -> LabelledImage:
    return LabelledImage(Path("scene.jpg"), np.array([box for box, _ in dice], np.float32),
                         np.array([value for _, value in dice]))


def read(box: tuple[float, float, float, float], value: int | None,
         confidence: float = 0.9) -> DieReading:
    return DieReading(box, value, value is None, confidence)


def test_touching_dice_are_credited_with_their_own_readings() -> None:
    # A cocked die leaning on a flat 5: each lies within the other's box grown by half. The
    # surer reading frames the 5 and must not be credited to the cocked die listed first.
    scene = picture(((100, 100, 40, 40), 0), ((130, 120, 40, 40), 5))
    five, cocked = read((131, 121, 38, 38), 5, 0.95), read((101, 99, 40, 42), None, 0.6)
    assert match(scene, [five, cocked]) == [(0, 0), (5, 5)]


def test_a_pair_framed_once_counts_for_the_nearer_die() -> None:
    scene = picture(((100, 100, 40, 40), 0), ((130, 120, 40, 40), 5))
    assert match(scene, [read((125, 115, 44, 44), 5)]) == [(0, None), (5, 5)]


def test_a_top_face_label_matches_a_reading_of_the_whole_die() -> None:
    # desk-webcam labels frame the top face; an oblique view's whole die is centred lower.
    scene = picture(((100, 100, 20, 14), 3))
    assert match(scene, [read((95, 98, 30, 40), 3)]) == [(3, 3)]


def test_readings_of_no_die_are_invented() -> None:
    scene = picture(((100, 100, 40, 40), 2))
    assert match(scene, [read((300, 300, 40, 40), 4), read((101, 101, 40, 40), 2)]) == [
        (2, 2), (-1, 4)]
