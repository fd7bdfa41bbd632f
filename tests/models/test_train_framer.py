"""The framer's training answers: where the die lies in a crop, moved with the picture."""

import numpy as np
import pytest

pytest.importorskip("torch")

import torch

from models.dice.train_framer import augment, loose_box
from vision.dice.preprocess import FRAMER_SIZE, FRAMER_SPAN, crop_square, framing_target, reframed


def die_centre(picture: np.ndarray) -> np.ndarray:
    """The bright die's centre in a crop, as a fraction of the crop's side from its centre."""
    ys, xs = np.nonzero(picture > picture.mean())
    return np.array([xs.mean() + 0.5, ys.mean() + 0.5]) / picture.shape[1] - 0.5


def test_flips_and_the_transpose_move_the_answer_with_the_die() -> None:
    image = np.zeros((200, 200), np.uint8)
    die = np.array([100, 90, 26, 20], np.float64)  # a bright wide die right of the box centre
    image[90:110, 100:126] = 230
    box = np.array([80, 85, 32, 32], np.float64)
    crop = crop_square(image, box.astype(np.float32), FRAMER_SIZE, FRAMER_SPAN)
    answer = framing_target(box, die)
    assert np.allclose(die_centre(crop), answer[:2], atol=0.02)
    crops = torch.from_numpy(np.repeat(crop[None], 64, 0))
    answers = torch.from_numpy(np.repeat(answer[None], 64, 0))
    inputs, moved = augment(crops, answers, torch.Generator().manual_seed(1))
    turned = {tuple(np.sign(row[:2])) for row in moved.numpy()}
    assert len(turned) >= 3  # mirrored and transposed at random
    for picture, row in zip(inputs[:, 0].numpy(), moved.numpy(), strict=True):
        assert np.allclose(die_centre(picture), row[:2], atol=0.02)
        wide = row[2] > row[3]
        ys, xs = np.nonzero(picture > picture.mean())
        assert wide == (np.ptp(xs) > np.ptp(ys))


def test_the_loose_boxes_stay_near_the_die_and_the_answer_finds_it_again() -> None:
    rng = np.random.default_rng(0)
    die = np.array([100, 100, 30, 26], np.float64)
    boxes = np.stack([loose_box(die, rng) for _ in range(500)])
    offsets = (boxes[:, :2] + boxes[:, 2:] / 2 - die[:2] - die[2:] / 2) / 30
    assert 0.05 < np.median(np.hypot(*offsets.T)) < 0.2
    answers = np.stack([framing_target(box, die) for box in boxes])
    assert np.allclose(reframed(boxes, answers), die[None], atol=1e-3)
