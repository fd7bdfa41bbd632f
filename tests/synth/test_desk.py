import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from models.dice.data import synthetic
from synth.dice.desk import SIZE, keyboard, picture, place, printed_label, write_pictures


def test_a_picture_depends_only_on_its_seed_and_index() -> None:
    first, boxes = picture(4, 7)
    again, boxes_again = picture(4, 7)
    other, _ = picture(4, 8)
    assert np.array_equal(first, again) and boxes == boxes_again
    assert not np.array_equal(first, other)


def test_every_negative_box_lies_in_the_picture() -> None:
    for index in range(20):
        image, boxes = picture(11, index)
        assert image.shape == (SIZE[1], SIZE[0], 3)
        assert boxes
        for x, y, w, h in boxes:
            assert min(w, h) >= 12
            inside = (min(x + w, SIZE[0]) - max(x, 0)) * (min(y + h, SIZE[1]) - max(y, 0))
            assert inside >= 0.6 * w * h


@pytest.mark.parametrize("thing", [keyboard, printed_label])
def test_each_box_frames_a_part_of_the_thing_placed(thing: Any) -> None:
    rng = np.random.default_rng(5)
    for _ in range(10):
        bare = np.full((SIZE[1], SIZE[0], 3), 128.0, np.float32)
        canvas = bare.copy()
        boxes = place(canvas, thing(rng), rng, 0.5)
        drawn = np.abs(canvas - bare).max(axis=2) > 1
        for x, y, w, h in boxes:
            x0, y0 = max(int(x), 0), max(int(y), 0)
            part = drawn[y0:int(y + h), x0:int(x + w)]
            # on the thing, not the bare table beside it (a long label turned half-way fills
            # a third of its upright box)
            assert part.mean() > 0.2


def test_the_folder_reads_as_scenes_without_dice_and_negatives_keyed_by_path(
        tmp_path: Path) -> None:
    write_pictures(tmp_path, 3, seed=2)
    scenes = synthetic(tmp_path)
    assert len(scenes) == 3 and all(len(scene.boxes) == 0 for scene in scenes)
    negatives = json.loads((tmp_path / "negatives.json").read_text())
    assert sorted(negatives) == sorted(str(scene.path) for scene in scenes)
    assert all(cv2.imread(str(scene.path)) is not None for scene in scenes)
