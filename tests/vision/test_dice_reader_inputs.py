"""The reader's faster input preparation gives the very pixels and values of the plain one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.tray_view import TrayView
from vision.dice.preprocess import (
    CROP_SIZE,
    PartlyGrey,
    classifier_input,
    classifier_inputs,
    crop_square,
    letterbox,
    normalise_crop,
    normalise_crops,
    sampled_region,
    straight_down_crop,
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
    height, width = image.shape[:2]
    scale = size / max(height, width)
    resized = cv2.resize(image, (round(width * scale), round(height * scale)),
                         interpolation=cv2.INTER_AREA)
    canvas = np.full((size, size, 3), 114, np.uint8)
    canvas[: resized.shape[0], : resized.shape[1]] = resized
    planes = np.ascontiguousarray(canvas.transpose(2, 0, 1))
    batch: np.ndarray = planes[None].astype(np.float32) / np.float32(255)
    return batch


@pytest.mark.parametrize("shape", [(480, 640), (640, 480), (333, 517), (90, 700), (320, 320)])
def test_letterbox_fills_the_same_input_as_a_transposed_canvas(shape: tuple[int, int]) -> None:
    image = frame(*shape)
    batch, scale = letterbox(image, 320)
    assert batch.dtype == np.float32 and batch.shape == (1, 3, 320, 320)
    assert scale == 320 / max(shape)
    assert np.array_equal(batch, old_letterbox(image, 320))
    strided = frame(600, 800)[37:37 + shape[0] // 2, 11:11 + shape[1] // 2]
    assert np.array_equal(letterbox(strided, 320)[0], old_letterbox(strided, 320))


def test_crops_of_a_partly_grey_frame_are_those_of_the_grey_frame() -> None:
    image = frame()
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    partly = PartlyGrey(image)
    for box in np.array(BOXES, np.float32):
        for span, angle, shift in ((1.3, 0.0, (0.0, 0.0)), (3.0, 0.0, (0.0, 0.0)),
                                   (1.3, 33.0, (0.1, -0.2)), (0.2, 90.0, (0.0, 0.4))):
            assert np.array_equal(crop_square(partly, box, CROP_SIZE, span, angle, shift),
                                  crop_square(grey, box, CROP_SIZE, span, angle, shift))
    # A strided view of a larger frame, as the tray camera's crop of its zones is.
    view = frame(600, 800, seed=1)[40:520, 70:710]
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    for box in np.array(BOXES, np.float32):
        assert np.array_equal(crop_square(PartlyGrey(view), box, 48),
                              crop_square(grey, box, 48))


@pytest.mark.parametrize("elevation", [90.0, 50.0, 25.0, 8.0])
def test_straight_down_crops_of_a_partly_grey_frame_are_those_of_the_grey_frame(
        elevation: float) -> None:
    image = frame(seed=2)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    angle = np.radians(elevation)
    view = TrayView(np.array([[600.0, 0, 320], [0, 600, 240], [0, 0, 1]]),
                    np.array([0.0, -np.cos(angle), -np.sin(angle)]))
    for box in np.array(BOXES, np.float32):
        for size, span in ((48, 1.6), (96, 3.0)):
            assert np.array_equal(
                straight_down_crop(PartlyGrey(image), box, view.straight_down, view.nadir,
                                   size, span),
                straight_down_crop(grey, box, view.straight_down, view.nadir, size, span))


def test_a_square_reaching_the_horizon_reads_from_the_whole_frame() -> None:
    # The square's lower rows lie beyond the horizon of this perspective (image rows further
    # down shrink towards a line): no bounded region.
    matrix = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.05, 1.0]])
    assert sampled_region(matrix, 48, 640, 480) == (0, 0, 640, 480)
    assert sampled_region(np.zeros((2, 3)), 48, 640, 480) == (0, 0, 640, 480)
    # Twice the square's size around (100, 50), a margin for the interpolation, the top
    # clipped to the frame.
    matrix = cv2.getRotationMatrix2D((100.0, 50.0), 0.0, 0.5)
    matrix[:, 2] += np.array([24.0 - 100.0, 24.0 - 50.0])
    assert sampled_region(matrix, 48, 640, 480) == (48, 0, 151, 101)


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
        alone = np.stack([normalise_crop(c) for c in crops.reshape(-1, 48, 48)])
        assert np.array_equal(normalise_crops(crops), alone.reshape(crops.shape))


@pytest.mark.parametrize("context_span", [0.0, 3.0])
def test_classifier_inputs_are_the_crops_one_by_one(context_span: float) -> None:
    image = frame(seed=4)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    boxes = np.array(BOXES, np.float32)
    one_by_one = np.stack([classifier_input(grey, box, context_span) for box in boxes])
    assert np.array_equal(classifier_inputs(PartlyGrey(image), boxes, context_span), one_by_one)
    assert np.array_equal(classifier_inputs(grey, boxes, context_span), one_by_one)
