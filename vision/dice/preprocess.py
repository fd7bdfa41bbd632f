"""The one place where images become network inputs, for training and inference alike.

Colour order: images are BGR uint8 as OpenCV reads them. The detector takes the BGR image
letterboxed to a square; the classifier takes a grey square crop around one die and, when its
config asks for one, a wider crop of the same spot as a second channel; the cocked classifier
takes a grey crop of the die as a camera looking straight down at the tray would see it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

DETECTOR_SIZE = 320
CROP_SIZE = 48
# The crop spans this many times the die's longer box side, so a whole die shows even when
# the box is tight or covers only the top face.
CROP_SPAN = 1.3
# The straight-down crop for the cocked call spans this many times the die's size there.
STRAIGHT_DOWN_SPAN = 1.6
MAX_VIEW_SLOPE = 3.0  # 72 degrees from straight down: beyond, the floor is all but edge-on
LETTERBOX_GREY = np.float32(114) / np.float32(255)


def letterbox(image: np.ndarray, size: int = DETECTOR_SIZE) -> tuple[np.ndarray, float]:
    """Scale the longer side to `size`, pad right and bottom with grey.

    Returns the (1, 3, size, size) float32 input in [0, 1] and the scale from original
    pixels to input pixels.
    """
    height, width = image.shape[:2]
    scale = size / max(height, width)
    columns, rows = round(width * scale), round(height * scale)
    resized = cv2.resize(image, (columns, rows), interpolation=cv2.INTER_AREA)
    # Each colour plane divided straight into its place in the input, the padding set alone:
    # 0.2 ms a 640x480 frame against 0.3 for a uint8 canvas transposed and then converted,
    # with the same values.
    batch = np.empty((1, 3, size, size), np.float32)
    batch[0, :, rows:] = LETTERBOX_GREY
    batch[0, :, :rows, columns:] = LETTERBOX_GREY
    for channel, plane in enumerate(cv2.split(resized)):
        np.divide(plane, np.float32(255), out=batch[0, channel, :rows, :columns],
                  dtype=np.float32)
    return batch, scale


def crop_square(
    grey: np.ndarray | PartlyGrey,
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
    return warp_grey(grey, matrix, size)


class PartlyGrey:
    """A BGR frame made grey only where crops take their pixels from, as they are taken: the
    reader's few crops need a few thousand of a frame's pixels (converting a whole 640x480
    frame took 0.12 ms). `grey` holds the frame's grey pixels wherever a crop was taken,
    exactly those of the whole frame made grey, and is not set elsewhere; a crop reads the
    same pixels from it at the same places, so it comes out the same."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        self.width, self.height = int(image.shape[1]), int(image.shape[0])
        self.grey: np.ndarray = np.empty((self.height, self.width), np.uint8)

    def covering(self, matrix: np.ndarray, size: int) -> np.ndarray:
        """`grey`, made grey where a (size, size) warp by `matrix` reads."""
        left, top, right, bottom = sampled_region(matrix, size, self.width, self.height)
        cv2.cvtColor(self.image[top:bottom, left:right], cv2.COLOR_BGR2GRAY,
                     dst=self.grey[top:bottom, left:right])
        return self.grey


def warp_grey(grey: np.ndarray | PartlyGrey, matrix: np.ndarray, size: int) -> np.ndarray:
    """The (size, size) uint8 square that `matrix` (2x3 affine or 3x3 perspective, image
    pixels -> square pixels) makes of a grey image."""
    if isinstance(grey, PartlyGrey):
        grey = grey.covering(matrix, size)
    if matrix.shape[0] == 2:
        return cv2.warpAffine(grey, matrix, (size, size), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_REPLICATE)
    return cv2.warpPerspective(grey, matrix, (size, size), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def sampled_region(matrix: np.ndarray, size: int, width: int,
                   height: int) -> tuple[int, int, int, int]:
    """(left, top, right, bottom): the part of a width x height image a (size, size) warp by
    `matrix` (image -> square, 2x3 or 3x3) reads, with a margin for the interpolation,
    clipped to the image and at least a pixel; the whole image when the square reaches the
    horizon. In plain floats: numpy took 30 microseconds for these few numbers."""
    rows = matrix.tolist()
    (a, b, c), (d, e, f) = rows[0], rows[1]
    g, h, i = rows[2] if len(rows) == 3 else (0.0, 0.0, 1.0)
    # The inverse (square -> image) up to the scale 1 / det: the adjugate.
    inverse = (e * i - f * h, c * h - b * i, b * f - c * e,
               f * g - d * i, a * i - c * g, c * d - a * f,
               d * h - e * g, b * g - a * h, a * e - b * d)
    det = a * inverse[0] + b * inverse[3] + c * inverse[6]
    xs, ys = [], []
    # The square's corners a pixel beyond its outer pixels, taken back into the image.
    for u, v in ((-1.0, -1.0), (size, -1.0), (size, size), (-1.0, size)):
        depth = inverse[6] * u + inverse[7] * v + inverse[8]
        if not depth * det > 0.0 or not math.isfinite(depth):
            return 0, 0, width, height
        x = (inverse[0] * u + inverse[1] * v + inverse[2]) / depth
        y = (inverse[3] * u + inverse[4] * v + inverse[5]) / depth
        if not (math.isfinite(x) and math.isfinite(y)):
            return 0, 0, width, height
        xs.append(x)
        ys.append(y)
    left = min(max(math.floor(min(xs)) - 2, 0), width - 1)
    top = min(max(math.floor(min(ys)) - 2, 0), height - 1)
    right = max(min(math.ceil(max(xs)) + 3, width), left + 1)
    bottom = max(min(math.ceil(max(ys)) + 3, height), top + 1)
    return left, top, right, bottom


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
    values = crop.astype(np.float32)
    normalised: np.ndarray = (values - values.mean()) / (values.std() + 8.0)
    return normalised


def normalise_crops(crops: np.ndarray) -> np.ndarray:
    """normalise_crop on each (h, w) crop of a stack (..., h, w) at once, with the same values:
    each crop's sums run over its pixels in the same order, and the mean and spread are
    worked out as numpy's mean and std do (the pixels less their mean found once for both)."""
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
    (models/dice/README.md). `zoom`, `angle` and `shift` (a fraction of the tight crop) move
    both crops alike; inference uses none."""
    die = crop_die(grey, box, CROP_SPAN * zoom, angle, shift)
    if not context_span:
        return die[None]
    ratio = CROP_SPAN / context_span
    wide = crop_die(grey, box, context_span * zoom, angle, (shift[0] * ratio, shift[1] * ratio))
    return np.stack([die, wide])


def classifier_inputs(grey: np.ndarray | PartlyGrey, boxes: np.ndarray,
                      context_span: float = 0.0) -> np.ndarray:
    """(n, channels, CROP_SIZE, CROP_SIZE) float32: classifier_input of each box (n, 4), the
    crops normalised together."""
    spans = [CROP_SPAN, context_span] if context_span else [CROP_SPAN]
    crops = np.empty((len(boxes), len(spans), CROP_SIZE, CROP_SIZE), np.uint8)
    for index, box in enumerate(boxes):
        for channel, span in enumerate(spans):
            crops[index, channel] = crop_square(grey, box, CROP_SIZE, span)
    return normalise_crops(crops)


def straight_down_crop(
    grey: np.ndarray | PartlyGrey,
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
    return warp_grey(grey, straight_down_matrix(box, homography, nadir, size, span)[0], size)


def straight_down_matrix(
    box: np.ndarray,
    homography: np.ndarray,
    nadir: tuple[float, float],
    size: int = CROP_SIZE,
    span: float = STRAIGHT_DOWN_SPAN,
) -> tuple[np.ndarray, np.ndarray]:
    """straight_down_crop's perspective matrix (image -> crop) and the box's centre in the
    straight-down view (seen_straight_down), the box's corners and centre projected at once."""
    x, y, w, h = (float(v) for v in box)
    points = np.array([[[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x + w / 2, y + h / 2]]],
                      np.float32)
    projected = cv2.perspectiveTransform(points, homography)[0]
    quad, centre = projected[:4], projected[4]
    side = max(float(np.sqrt(abs(cv2.contourArea(quad)))), 1.0) * span
    towards = (nadir[0] - float(centre[0]), nadir[1] - float(centre[1]))
    # Below the camera every way is up: no turn then.
    angle = float(np.degrees(np.arctan2(towards[0], -towards[1]))) if np.hypot(*towards) > 1 \
        else 0.0
    turn = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle, size / side)
    turn[:, 2] += np.array([size / 2 - centre[0], size / 2 - centre[1]])
    matrix: np.ndarray = np.vstack([turn, [0.0, 0.0, 1.0]]) @ homography
    return matrix, centre


def view_slope(box: np.ndarray, homography: np.ndarray, nadir: tuple[float, float],
               focal: float) -> float:
    """How far from straight down the camera sees the die: the tangent of the angle between
    its line of sight and the vertical. A flat die's sides show in the straight-down crop in
    proportion to it, so the cocked classifier is told it (MAX_VIEW_SLOPE at most)."""
    return slope_at(seen_straight_down(box, homography), nadir, focal)


def slope_at(centre: np.ndarray, nadir: tuple[float, float], focal: float) -> float:
    """view_slope of a die whose centre in the straight-down view is `centre`."""
    distance = float(np.hypot(centre[0] - nadir[0], centre[1] - nadir[1]))
    return min(distance / focal, MAX_VIEW_SLOPE)


def seen_straight_down(box: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """The centre of an image box (x, y, w, h) in the straight-down view."""
    x, y, w, h = (float(v) for v in box)
    centre: np.ndarray = cv2.perspectiveTransform(
        np.array([[[x + w / 2, y + h / 2]]], np.float32), homography)[0, 0]
    return centre
