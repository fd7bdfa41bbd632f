"""The reader's batched input preparation gives the very values of the plain one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice.preprocess import (
    classifier_input,
    classifier_inputs,
    framing_target,
    letterbox,
    normalise_crop,
    normalise_crops,
    reframed,
)


def frame(height: int = 480, width: int = 640, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    image = cv2.GaussianBlur(rng.integers(0, 256, (height, width, 3), dtype=np.uint8), (5, 5), 0)
    return np.ascontiguousarray(image)


# Boxes inside the frame, across its edges and corners, beyond it, tiny and huge.
BOXES = [(300.3, 200.7, 52.1, 49.8), (0.0, 0.0, 40.0, 40.0), (-20.5, 100.2, 45.0, 60.0),
         (610.4, 455.9, 50.0, 50.0), (700.0, -90.0, 30.0, 30.0), (5.0, 430.0, 3.0, 0.5),
         (-100.0, -80.0, 900.0, 700.0), (637.2, 12.6, 2.0, 80.0)]


def old_letterbox(image: np.ndarray, size: int) -> np.ndarray:
    """The square input the detector was trained on, as a transposed canvas."""
    height, width = image.shape[:2]
    scale = size / max(height, width)
    resized = cv2.resize(image, (round(width * scale), round(height * scale)),
                         interpolation=cv2.INTER_AREA)
    canvas = np.full((size, size, 3), 114, np.uint8)
    canvas[: resized.shape[0], : resized.shape[1]] = resized
    planes = np.ascontiguousarray(canvas.transpose(2, 0, 1))
    batch: np.ndarray = planes[None].astype(np.float32) / np.float32(255)
    return batch


@pytest.mark.parametrize(("shape", "sides"), [
    ((480, 640), (256, 320)), ((640, 480), (320, 256)), ((333, 517), (224, 320)),
    ((90, 700), (64, 320)), ((320, 320), (320, 320)),
])
def test_letterbox_is_the_square_canvas_cut_to_multiples_of_32(
    shape: tuple[int, int], sides: tuple[int, int],
) -> None:
    image = frame(*shape)
    batch, scale = letterbox(image, 320)
    assert batch.dtype == np.float32 and batch.shape == (1, 3, *sides)
    assert scale == 320 / max(shape)
    assert np.array_equal(batch, old_letterbox(image, 320)[:, :, :sides[0], :sides[1]])
    strided = frame(600, 800)[37:37 + shape[0] // 2, 11:11 + shape[1] // 2]
    cut = letterbox(strided, 320)[0]
    assert np.array_equal(cut, old_letterbox(strided, 320)[:, :, :cut.shape[2], :cut.shape[3]])


def test_crops_normalised_together_are_those_normalised_alone() -> None:
    rng = np.random.default_rng(3)
    for trial in range(200):
        n = int(rng.integers(1, 9))
        if trial % 3 == 0:
            crops = rng.integers(0, 256, (n, 2, 48, 48), dtype=np.uint8)
        elif trial % 3 == 1:
            crops = np.clip(rng.normal(rng.uniform(0, 255), rng.uniform(1, 80), (n, 1, 48, 48)),
                            0, 255).astype(np.uint8)
        else:
            crops = np.full((n, 48, 48), rng.integers(0, 256), np.uint8)
        alone = np.stack([(c.astype(np.float32) - c.astype(np.float32).mean())
                          / (c.astype(np.float32).std() + 8.0) for c in crops.reshape(-1, 48, 48)])
        assert np.array_equal(normalise_crops(crops), alone.reshape(crops.shape))
        assert np.array_equal(normalise_crop(crops.reshape(-1, 48, 48)[0]), alone[0])


@pytest.mark.parametrize("context_span", [0.0, 3.0])
def test_classifier_inputs_are_the_crops_one_by_one(context_span: float) -> None:
    image = frame(seed=4)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    boxes = np.array(BOXES, np.float32)
    one_by_one = np.stack([classifier_input(grey, box, context_span) for box in boxes])
    assert np.array_equal(classifier_inputs(grey, boxes, context_span), one_by_one)


def test_reframed_gives_the_die_that_framing_target_describes() -> None:
    rng = np.random.default_rng(3)
    boxes = np.concatenate([rng.uniform(0, 600, (20, 2)), rng.uniform(12, 60, (20, 2))], 1)
    dice = boxes + rng.normal(0, 4, boxes.shape)
    answers = np.stack([framing_target(box, die) for box, die in zip(boxes, dice, strict=True)])
    assert np.allclose(reframed(boxes, answers), dice, atol=1e-3)
    # A die at the box's centre and its size answers its sides alone.
    assert np.allclose(framing_target(boxes[0], boxes[0])[:2], 0.0)
