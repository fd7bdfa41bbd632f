"""The one place where images become network inputs, for training and inference alike.

Colour order: images are BGR uint8 as OpenCV reads them. The detector takes the BGR image
scaled and letterboxed (to a square in training, to its own shape at run time); the
classifier takes a grey square crop around one die and, when its config asks for one, a wider
crop of the same spot as a second channel; the cocked classifier takes a grey crop of the die
as a camera looking straight down at the tray would see it.
"""

from __future__ import annotations

import cv2
import numpy as np

DETECTOR_SIZE = 320
DETECTOR_MULTIPLE = 32  # the detector's coarsest stride: its input's sides are multiples of it
CROP_SIZE = 48
# The crop spans this many times the die's longer box side, so a whole die shows even when
# the box is tight or covers only the top face.
CROP_SPAN = 1.3
# The straight-down crop for the cocked call spans this many times the die's size there.
STRAIGHT_DOWN_SPAN = 1.6
# The framer's crop spans this many times the detector's box: room for a die framed off by
# a third of its side, and a little of its neighbours.
FRAMER_SPAN = 2.0
FRAMER_SIZE = 48  # pixels, as the classifier: its convolutions start the framer
MAX_VIEW_SLOPE = 3.0  # 72 degrees from straight down: beyond, the floor is all but edge-on
# How far from the box's inside the cocked network is told where a die lies (mm of floor):
# the dice on the box's exit lip lie within a die's width of it.
NEAR_BOX_MM = 40.0
LETTERBOX_GREY = np.float32(114) / np.float32(255)


def letterbox(image: np.ndarray, size: int = DETECTOR_SIZE) -> tuple[np.ndarray, float]:
    """Scale the longer side to `size`, pad right and bottom with grey to the next multiple of
    DETECTOR_MULTIPLE: the network is convolutional, so a 4:3 frame needs no square input
    (320x256, a fifth less work; the detector was trained on squares padded the same grey).

    Returns the (1, 3, rows, columns) float32 input in [0, 1] and the scale from original
    pixels to input pixels.
    """
    height, width = image.shape[:2]
    scale = size / max(height, width)
    # At least a pixel each way: a sliver of an image (5000x3) is still read, not a crash.
    columns, rows = max(1, round(width * scale)), max(1, round(height * scale))
    resized = cv2.resize(image, (columns, rows), interpolation=cv2.INTER_AREA)
    # Each colour plane divided straight into its place in the input, the padding set alone:
    # 0.2 ms a 640x480 frame against 0.3 for a uint8 canvas transposed and then converted,
    # with the same values.
    batch = np.empty((1, 3, _padded(rows), _padded(columns)), np.float32)
    batch[0, :, rows:] = LETTERBOX_GREY
    batch[0, :, :rows, columns:] = LETTERBOX_GREY
    for channel, plane in enumerate(cv2.split(resized)):
        np.divide(plane, np.float32(255), out=batch[0, channel, :rows, :columns],
                  dtype=np.float32)
    return batch, scale


def _padded(side: int) -> int:
    return -(-side // DETECTOR_MULTIPLE) * DETECTOR_MULTIPLE


def crop_square(
    grey: np.ndarray,
    box: np.ndarray,
    size: int,
    span: float = CROP_SPAN,
    angle: float = 0.0,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """A (size, size) uint8 square of a grey image centred on `box` = (x, y, w, h), spanning
    `span` times the box's longer side, turned by `angle` degrees and moved by `shift`
    (fractions of the square). Inference uses neither angle nor shift."""
    x, y, w, h = (float(v) for v in box)
    side = max(w, h, 1.0) * span
    centre = (x + w / 2 + shift[0] * side, y + h / 2 + shift[1] * side)
    matrix = cv2.getRotationMatrix2D(centre, angle, size / side)
    matrix[:, 2] += np.array([size / 2 - centre[0], size / 2 - centre[1]])
    return cv2.warpAffine(
        grey, matrix, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def crop_die(
    grey: np.ndarray,
    box: np.ndarray,
    span: float = CROP_SPAN,
    angle: float = 0.0,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """The classifier's input for one die: a normalised CROP_SIZE square (float32)."""
    return normalise_crop(crop_square(grey, box, CROP_SIZE, span, angle, shift))


def normalise_crop(crop: np.ndarray) -> np.ndarray:
    """Zero mean, unit spread: white and black dice, bright and dim trays look alike."""
    normalised: np.ndarray = normalise_crops(crop[None])[0]
    return normalised


def normalise_crops(crops: np.ndarray) -> np.ndarray:
    """normalise_crop on each (h, w) crop of a stack (..., h, w) at once: each crop's mean and
    spread worked out as numpy's mean and std do (the values of a crop alone are the same)."""
    count = crops.shape[-2] * crops.shape[-1]
    values = crops.reshape(-1, count).astype(np.float32)
    mean = np.add.reduce(values, axis=1, keepdims=True)
    np.true_divide(mean, np.intp(count), out=mean, casting="unsafe")
    centred = values - mean
    spread = np.add.reduce(centred * centred, axis=1, keepdims=True)
    np.true_divide(spread, np.intp(count), out=spread, casting="unsafe")
    np.sqrt(spread, out=spread)
    normalised: np.ndarray = (centred / (spread + 8.0)).reshape(crops.shape)
    return normalised


def classifier_input(
    grey: np.ndarray,
    box: np.ndarray,
    context_span: float = 0.0,
    zoom: float = 1.0,
    angle: float = 0.0,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """(channels, CROP_SIZE, CROP_SIZE) float32: the die's crop, and when `context_span` is
    not 0 a crop `context_span` times the box around it: the surroundings (the floor's
    perspective, a wall the die leans on, its shadow) were meant to tell a flat die seen
    obliquely from a cocked one seen from above, alike in the tight crop; they helped little
    (models/dice/experiments.md). `zoom`, `angle` and `shift` (a fraction of the tight crop) move
    both crops alike; inference uses none."""
    return normalise_crops(_classifier_squares(grey, box, context_span, zoom, angle, shift))


def classifier_inputs(grey: np.ndarray, boxes: np.ndarray,
                      context_span: float = 0.0) -> np.ndarray:
    """(n, channels, CROP_SIZE, CROP_SIZE) float32: classifier_input of each box (n, 4), the
    crops normalised together."""
    return normalise_crops(np.stack([_classifier_squares(grey, box, context_span)
                                     for box in boxes]))


def _classifier_squares(
    grey: np.ndarray,
    box: np.ndarray,
    context_span: float = 0.0,
    zoom: float = 1.0,
    angle: float = 0.0,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """classifier_input's (channels, CROP_SIZE, CROP_SIZE) uint8 squares, not yet normalised."""
    die = crop_square(grey, box, CROP_SIZE, CROP_SPAN * zoom, angle, shift)
    if not context_span:
        return die[None]
    ratio = CROP_SPAN / context_span
    wide = crop_square(grey, box, CROP_SIZE, context_span * zoom, angle,
                       (shift[0] * ratio, shift[1] * ratio))
    return np.stack([die, wide])


def framer_inputs(grey: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(n, 1, FRAMER_SIZE, FRAMER_SIZE) float32: the framer's crops, FRAMER_SPAN times each
    box (x, y, w, h) around its centre, normalised together."""
    squares = np.stack([crop_square(grey, box, FRAMER_SIZE, FRAMER_SPAN) for box in boxes])
    return normalise_crops(squares)[:, None]


def framing_target(box: np.ndarray, die: np.ndarray) -> np.ndarray:
    """What the framer answers for a crop around `box` showing `die` (both x, y, w, h): the
    die's centre from the crop's, and the log of its sides, all in the crop's side."""
    x, y, w, h = (float(v) for v in box)
    side = max(w, h, 1.0) * FRAMER_SPAN
    dx, dy, dw, dh = (float(v) for v in die)
    return np.array([(dx + dw / 2 - x - w / 2) / side, (dy + dh / 2 - y - h / 2) / side,
                     np.log(max(dw, 1.0) / side), np.log(max(dh, 1.0) / side)], np.float32)


def reframed(boxes: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """The boxes (n, 4) the framer's answers (n, 4) give for crops around `boxes`: the
    inverse of framing_target."""
    side = np.maximum(boxes[:, 2:].max(axis=1), 1.0) * FRAMER_SPAN
    cx = boxes[:, 0] + boxes[:, 2] / 2 + answers[:, 0] * side
    cy = boxes[:, 1] + boxes[:, 3] / 2 + answers[:, 1] * side
    w, h = np.exp(answers[:, 2]) * side, np.exp(answers[:, 3]) * side
    return np.stack([cx - w / 2, cy - h / 2, w, h], axis=1).astype(boxes.dtype)


def straight_down_crop(
    grey: np.ndarray,
    box: np.ndarray,
    homography: np.ndarray,
    nadir: tuple[float, float],
    size: int = CROP_SIZE,
    span: float = STRAIGHT_DOWN_SPAN,
) -> np.ndarray:
    """A (size, size) uint8 square around a die as a camera looking straight down would see
    it (`homography`: image -> that view, calibration/tray_view.py), turned so that the
    point below the camera (`nadir`, in that view) lies straight up: a flat die's top face is
    then a square and its sides show above it, wherever the die lies. The square spans `span`
    times the side of a square of the box's area in that view."""
    x, y, w, h = (float(v) for v in box)
    corners = np.array([[[x, y], [x + w, y], [x + w, y + h], [x, y + h]]], np.float32)
    quad = cv2.perspectiveTransform(corners, homography)[0]
    side = max(float(np.sqrt(abs(cv2.contourArea(quad)))), 1.0) * span
    centre = seen_straight_down(box, homography)
    towards = (nadir[0] - float(centre[0]), nadir[1] - float(centre[1]))
    # Below the camera every way is up: no turn then.
    angle = float(np.degrees(np.arctan2(towards[0], -towards[1]))) if np.hypot(*towards) > 1 \
        else 0.0
    turn = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle, size / side)
    turn[:, 2] += np.array([size / 2 - centre[0], size / 2 - centre[1]])
    matrix = np.vstack([turn, [0.0, 0.0, 1.0]]) @ homography
    return cv2.warpPerspective(grey, matrix, (size, size), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def view_slope(box: np.ndarray, homography: np.ndarray, nadir: tuple[float, float],
               focal: float) -> float:
    """How far from straight down the camera sees the die: the tangent of the angle between
    its line of sight and the vertical. A flat die's sides show in the straight-down crop in
    proportion to it, so the cocked classifier is told it (MAX_VIEW_SLOPE at most)."""
    centre = seen_straight_down(box, homography)
    distance = float(np.hypot(centre[0] - nadir[0], centre[1] - nadir[1]))
    return min(distance / focal, MAX_VIEW_SLOPE)


def box_nearness(mm: float | None) -> float:
    """How near the box's inside a die lies, `mm` millimetres of tray floor from it, as the
    cocked network is told it: 1 in it or at its exit, falling to 0 at NEAR_BOX_MM and
    beyond, and 0 where the distance is not known. A die on the exit lip, propped on the
    ramp's end, tilts only 5-10 degrees, which the crop shows little of."""
    if mm is None:
        return 0.0
    return max(0.0, 1.0 - mm / NEAR_BOX_MM)


def seen_straight_down(box: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """The centre of an image box (x, y, w, h) in the straight-down view."""
    x, y, w, h = (float(v) for v in box)
    centre: np.ndarray = cv2.perspectiveTransform(
        np.array([[[x + w / 2, y + h / 2]]], np.float32), homography)[0, 0]
    return centre
